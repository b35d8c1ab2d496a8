"""The report of a run: computed from the manifest and the integer aggregates only.

:func:`build` turns ``manifest.json`` and ``aggregates.parquet`` into one JSON-ready dict (the
object ``dominosim run --json`` prints; docs/results.md lists every key); :func:`render_text`,
:func:`render_markdown` and :func:`summary_csv` present it. Because only integers go in,
the numbers do not depend on workers, chunking, executor or the order chunks finished.
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import stats, variants
from .aggregates import HAND_LEN_BINS, MATCH_LEN_MAX, TURN_BINS, Aggregates, seating

if TYPE_CHECKING:
    import pandas as pd


def _one_side(sides: int, players: int, cells, rotations) -> bool:
    """Whether a strategy's seats (``cells``: rotation, seat) are one partnership's in every
    rotation: its win then counts at each of those seats, and its intervals count it once
    (Wilson over the side's hands, not its seat-hands)."""
    if sides != 2 or players != 4:
        return False
    return all(len({s % 2 for q, s in cells if q == r}) == 1 for r in rotations)


def build(manifest: Mapping, aggregates: pd.DataFrame, run_dir: str | Path | None = None) -> dict:
    """The report as data (see docs/results.md, "Report JSON").

    Args:
        manifest: the run's manifest dict.
        aggregates: the aggregates DataFrame (columns of ``aggregates.parquet``).
        run_dir: the run folder, reported as ``run_dir``.
    """
    P = int(manifest["players"])
    unit = manifest["unit"]
    timings = manifest.get("group_timings") or []
    groups = []
    for gd in manifest["groups"]:
        g = gd["index"]
        seats = list(gd.get("seats", manifest["seats"]))  # a leg of a round robin has its own
        rotations = [r["offset"] for r in gd.get("rotations", manifest["rotations"])]
        labels = list(dict.fromkeys(seats))
        k = {x: seats.count(x) for x in labels}
        A = Aggregates(aggregates[aggregates["group"] == g])
        rules = gd["rules"]
        sides = 2 if rules["partnership"] else P
        hands, matches = A.get("hands"), A.get("matches")
        scored = A.get("domino") + A.get("blocked")
        hl = A.hist("hand_length_hist", 0, HAND_LEN_BINS - 1)
        tu = A.hist("turns_hist", 0, TURN_BINS - 1)
        ml = A.hist("match_length_hist", 1, MATCH_LEN_MAX)
        lead_n, lead_w = A.get("leader_hands"), A.get("leader_wins")
        fl_n, fl_w = A.get("first_leader_matches"), A.get("first_leader_match_wins")
        ncols = P if rules["match_end"] == "one_hand" else sides
        pts = [sum(A.get("points_sum", r, -1, c) for r in rotations) for c in range(ncols)]
        strategies = []
        for x in labels:
            cells = [(r, s) for r in rotations for s, y in enumerate(seating(seats, r)) if y == x]
            sh = sum(A.get("seat_hands", r, s) for r, s in cells)
            hw = sum(A.get("seat_hand_wins", r, s) for r, s in cells)
            sm = sum(A.get("seat_matches", r, s) for r, s in cells)
            mw = sum(A.get("seat_match_wins", r, s) for r, s in cells)
            sp = sum(A.get("seat_points", r, s) for r, s in cells)
            one = k[x] if _one_side(sides, P, cells, rotations) else 1  # (below)
            strategies.append({
                "strategy": x,
                "seats": k[x],
                "seat_hands": sh,
                "hand_wins": hw,
                "hand_win_rate": stats.finite(stats.rate(hw, sh)),
                "hand_win_ci": stats.interval(stats.wilson(hw // one, sh // one)),
                "seat_matches": sm,
                "match_wins": mw,
                "match_win_rate": stats.finite(stats.rate(mw, sm)),
                "match_win_ci": stats.interval(stats.wilson(mw // one, sm // one)),
                "mean_points": stats.finite(stats.rate(sp, sh)),
            })  # fmt: skip
        seat_rows = []
        for s in range(P):
            sh = sum(A.get("seat_hands", r, s) for r in rotations)
            hw = sum(A.get("seat_hand_wins", r, s) for r in rotations)
            sm = sum(A.get("seat_matches", r, s) for r in rotations)
            mw = sum(A.get("seat_match_wins", r, s) for r in rotations)
            seat_rows.append({
                "seat": s,
                "hand_win_rate": stats.finite(stats.rate(hw, sh)),
                "hand_win_ci": stats.interval(stats.wilson(hw, sh)),
                "match_win_rate": stats.finite(stats.rate(mw, sm)),
                "match_win_ci": stats.interval(stats.wilson(mw, sm)),
            })  # fmt: skip
        paired = []
        for i, a in enumerate(labels):
            for b in labels[i + 1 :]:
                pair = f"{a} vs {b}"
                n = A.get("pair_deals", pair=pair)
                if not n:
                    continue
                kk = k[a] * k[b]
                th = A.get("pair_hands", pair=pair)
                hm, hlo, hhi = stats.mean_ci(A.get("pair_hand_sum", pair=pair),
                                          A.get("pair_hand_sumsq", pair=pair), n)  # fmt: skip
                mm, mlo, mhi = stats.mean_ci(A.get("pair_match_sum", pair=pair),
                                          A.get("pair_match_sumsq", pair=pair), n)  # fmt: skip
                hs = n / (kk * th) if th else math.nan  # per-deal wins -> rate per seat-hand
                ms = 1 / (kk * len(rotations))
                paired.append({
                    "a": a,
                    "b": b,
                    "deals": n,
                    "rotations": len(rotations),
                    "hand_win_diff": stats.finite(hm * hs),
                    "hand_win_diff_ci": [stats.finite(hlo * hs), stats.finite(hhi * hs)],
                    "match_win_diff": stats.finite(mm * ms),
                    "match_win_diff_ci": [stats.finite(mlo * ms), stats.finite(mhi * ms)],
                })  # fmt: skip
        tm = timings[g] if g < len(timings) else {}
        cpu = float(tm.get("cpu_seconds", 0.0))
        groups.append({
            "index": g,
            "label": gd["label"],
            "variant": gd["variant"],
            "options": dict(gd["options"]),
            "players": P,
            "sides": sides,
            "partnership": bool(rules["partnership"]),
            "points_sense": _points_sense(rules),
            "games": int(manifest.get("games_per_group", 0)),
            "hands": hands,
            "matches": matches,
            "domino_rate": stats.finite(stats.rate(A.get("domino"), hands)),
            "blocked_rate": stats.finite(stats.rate(A.get("blocked"), hands)),
            "target_rate": stats.finite(stats.rate(A.get("target"), hands)),
            "hand_tie_rate": stats.finite(stats.rate(A.get("hand_ties"), hands)),
            "mean_hand_length": stats.finite(stats.rate(A.get("hand_length_sum"), scored)),
            "median_hand_length": stats.finite(stats.hist_quantile(hl, 0.5)),
            "p90_hand_length": stats.finite(stats.hist_quantile(hl, 0.9)),
            "mean_turns": stats.finite(stats.rate(A.get("turns_sum"), scored)),
            "median_turns": stats.finite(stats.hist_quantile(tu, 0.5)),
            "p90_turns": stats.finite(stats.hist_quantile(tu, 0.9)),
            "mean_draws": stats.finite(stats.rate(A.get("draws_sum"), hands)),
            "mean_passes": stats.finite(stats.rate(A.get("passes_sum"), hands)),
            "leader_win_rate": stats.finite(stats.rate(lead_w, lead_n)),
            "leader_win_ci": stats.interval(stats.wilson(lead_w, lead_n)),
            "leader_baseline": 1 / sides,
            "first_leader_match_win_rate": stats.finite(stats.rate(fl_w, fl_n)),
            "first_leader_match_win_ci": stats.interval(stats.wilson(fl_w, fl_n)),
            "first_leader_match_advantage": stats.finite(stats.rate(fl_w, fl_n) - 1 / sides),
            "match_tie_rate": stats.finite(stats.rate(A.get("match_ties"), matches)),
            "mean_match_length": stats.finite(stats.hist_mean(ml, 1)),
            "median_match_length": stats.finite(stats.hist_quantile(ml, 0.5, 1)),
            "p90_match_length": stats.finite(stats.hist_quantile(ml, 0.9, 1)),
            "mean_points": [stats.finite(stats.rate(p, hands)) for p in pts],
            "points_per": "seat" if rules["match_end"] == "one_hand" else "side",
            "strategies": strategies,
            "seats": seat_rows,
            "paired": paired,
            **({"seat_list": seats} if "seats" in gd else {}),
            "cpu_seconds": cpu,
            "wall_seconds": float(tm.get("wall_seconds", 0.0)),
            "hands_per_second": stats.finite(hands / cpu) if cpu > 0 else None,
        })  # fmt: skip
    chunks = manifest.get("chunks", [])
    data = {
        "run_id": manifest.get("run_id"),
        "run_dir": str(run_dir) if run_dir is not None else None,
        "name": manifest.get("name"),
        "status": manifest.get("status"),
        "seed": manifest.get("seed"),
        "unit": unit,
        "players": P,
        "seats": list(manifest["seats"]),
        "rotations": [list(r["seats"]) for r in manifest["rotations"]],
        "games_requested": manifest.get("games_requested"),
        "games_per_group": manifest.get("games_per_group"),
        "games_played": manifest.get("games_played"),
        "hands_played": manifest.get("hands_played"),
        "chunks": manifest.get("chunk_count", len(chunks)),
        "wall_seconds": float(manifest.get("timings", {}).get("wall_seconds", 0.0)),
        "groups": groups,
    }
    # strategies that see the true deal (the oracle): listed, and marked wherever shown
    seated = (x for g in manifest["groups"] for x in g.get("seats", manifest["seats"]))
    cheats = _perfect_information_labels(seated)
    if cheats:
        data["perfect_information_strategies"] = cheats
    if manifest.get("analysis"):
        data["analysis"] = analysis(manifest, aggregates, data)
    return data


def _mark(data: Mapping, label: str) -> str:
    """A strategy's label in a table, marked where it plays with perfect information."""
    cheats = data.get("perfect_information_strategies", ())
    return f"{label} [perfect information]" if label in cheats else label


def _perfect_information_labels(labels) -> list[str]:
    """The labels among ``labels`` whose strategy plays with perfect information (a class
    classified ``perfect_information``: the oracle), in order of first appearance."""
    from . import strategy

    reg = strategy.discover()
    out = []
    for x in dict.fromkeys(labels):
        cls = reg.get(str(x).split(":")[0])
        if cls is not None and strategy.plays_with_perfect_information(cls):
            out.append(x)
    return out


# ---------------------------------------------------------------------------------------------
# the analysis of compare / tune / tune-target (docs/compare.md)


def analysis(manifest: Mapping, aggregates: pd.DataFrame, data: Mapping) -> dict:
    """The ``analysis`` object of a compare / tune / tune-target report (docs/compare.md)."""
    a = manifest["analysis"]
    kind = a.get("kind")
    if kind == "compare":
        return _compare(manifest, aggregates, data)
    if kind == "skill":
        return _skill(manifest, aggregates, data)
    if kind in ("tune", "tune-target"):
        return _sweep(manifest, data)
    return {"kind": kind}


def _compare(manifest, aggregates, data) -> dict:
    a = manifest["analysis"]
    names = list(a["strategies"])
    K = len(names)
    idx = {x: i for i, x in enumerate(names)}
    match = data["unit"] == "match"
    W = np.zeros((K, K), dtype=np.int64)  # W[i, j]: games i won with j at the table
    N = np.zeros((K, K), dtype=np.int64)  # games i and j played at one table
    for g in data["groups"]:
        games = g["matches"] if match else g["hands"]
        for sx in g["strategies"]:
            wins = (sx["match_wins"] if match else sx["hand_wins"]) // sx["seats"]
            for sy in g["strategies"]:
                if sy is not sx:
                    W[idx[sx["strategy"]], idx[sy["strategy"]]] += wins
                    N[idx[sx["strategy"]], idx[sy["strategy"]]] += games
    cells = []
    for i in range(K):
        row = []
        for j in range(K):
            if i == j:
                row.append(None)
                continue
            dec = int(W[i, j] + W[j, i])
            row.append({
                "wins": int(W[i, j]), "losses": int(W[j, i]), "games": int(N[i, j]),
                "win_rate": stats.finite(stats.rate(int(W[i, j]), dec)),
                "win_ci": stats.interval(stats.wilson(int(W[i, j]), dec)),
            })  # fmt: skip
        cells.append(row)
    # paired differences per pairing, pooled over the legs where the pair met
    groups_m = {gd["index"]: gd for gd in manifest["groups"]}
    aggs = {g["index"]: Aggregates(aggregates[aggregates["group"] == g["index"]])
            for g in data["groups"]}  # fmt: skip
    paired = []
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            n = th = hs = hq = ms = mq = 0
            kk = R = 1
            for g in data["groups"]:
                A = aggs[g["index"]]
                for pair, sign in ((f"{x} vs {y}", 1), (f"{y} vs {x}", -1)):
                    d = A.get("pair_deals", pair=pair)
                    if not d:
                        continue
                    n += d
                    th += A.get("pair_hands", pair=pair)
                    hs += sign * A.get("pair_hand_sum", pair=pair)
                    hq += A.get("pair_hand_sumsq", pair=pair)
                    ms += sign * A.get("pair_match_sum", pair=pair)
                    mq += A.get("pair_match_sumsq", pair=pair)
                    k = {s["strategy"]: s["seats"] for s in g["strategies"]}
                    kk = k[x] * k[y]
                    R = len(groups_m[g["index"]].get("rotations", manifest["rotations"]))
            hm, hlo, hhi = stats.mean_ci(hs, hq, n)
            mm, mlo, mhi = stats.mean_ci(ms, mq, n)
            hsc = n / (kk * th) if th else math.nan
            msc = 1 / (kk * R)
            paired.append({
                "a": x, "b": y, "deals": int(n),
                "hand_win_diff": stats.finite(hm * hsc),
                "hand_win_diff_ci": [stats.finite(hlo * hsc), stats.finite(hhi * hsc)],
                "match_win_diff": stats.finite(mm * msc),
                "match_win_diff_ci": [stats.finite(mlo * msc), stats.finite(mhi * msc)],
            })  # fmt: skip
    bt = stats.bradley_terry(W)
    order = sorted(range(K), key=lambda i: -bt["theta"][i])
    ratings = [
        {
            "rank": r + 1,
            "strategy": names[i],
            "rating": stats.finite(bt["rating"][i]),
            "rating_ci": stats.interval(bt["rating_ci"][i]),
            "theta": stats.finite(bt["theta"][i]),
            "theta_se": stats.finite(bt["se"][i]),
            "wins": int(W[i].sum()),
            "losses": int(W[:, i].sum()),
        }
        for r, i in enumerate(order)
    ]
    return {
        "kind": "compare",
        "strategies": names,
        "unit": data["unit"],
        "legs": [list(x) for x in a.get("legs", [])],
        "games_requested": a.get("games_requested"),
        "matrix": cells,
        "paired": paired,
        "ratings": ratings,
        "bt_regularized": bt["regularized"],
    }


def _skill(manifest, aggregates, data) -> dict:
    """``dominosim skill``'s analysis (docs/skill.md): the round robin's (win rates, paired
    differences, Bradley–Terry), each strategy against random (hand win rate and points per
    hand, with the paired difference from random's), and the share of deals the deal decided
    for the best heuristic against random and for mc against random."""
    a = manifest["analysis"]
    rr = _compare(manifest, aggregates, data)
    aggs = {g["index"]: Aggregates(aggregates[aggregates["group"] == g["index"]])
            for g in data["groups"]}  # fmt: skip
    rot = {
        gd["index"]: len(gd.get("rotations", manifest["rotations"])) for gd in manifest["groups"]
    }
    paired = {(p["a"], p["b"]): p for p in rr["paired"]}
    ladder = []
    for g in data["groups"]:
        st = {s["strategy"]: s for s in g["strategies"]}
        if "random" not in st or len(st) != 2:
            continue
        x = next(n for n in st if n != "random")
        A, k = aggs[g["index"]], {n: st[n]["seats"] for n in st}
        pair = f"{x} vs random" if f"{x} vs random" in _pairs(A) else f"random vs {x}"
        sign = 1 if pair.startswith(f"{x} vs") else -1
        n = A.get("pair_deals", pair=pair)
        pm, plo, phi = stats.mean_ci(sign * A.get("pair_points_sum", pair=pair),
                                     A.get("pair_points_sumsq", pair=pair), n)  # fmt: skip
        scale = 1 / (k[x] * k["random"] * rot[g["index"]])
        diff = paired.get((x, "random")) or _flip(paired.get(("random", x)))
        seated, decided = A.get("deals_seated"), A.get("deals_decided")
        ladder.append({
            "strategy": x,
            "perfect_information": x in data.get("perfect_information_strategies", ()),
            "deals": int(n),
            "hand_win_rate": st[x]["hand_win_rate"], "hand_win_ci": st[x]["hand_win_ci"],
            "random_hand_win_rate": st["random"]["hand_win_rate"],
            "hand_win_diff": diff["hand_win_diff"], "hand_win_diff_ci": diff["hand_win_diff_ci"],
            "points_per_hand": st[x]["mean_points"],
            "random_points_per_hand": st["random"]["mean_points"],
            "points_diff": stats.finite(pm * scale),
            "points_diff_ci": [stats.finite(plo * scale), stats.finite(phi * scale)],
            "deals_decided": int(decided),
            "decided_share": stats.finite(stats.rate(decided, seated)),
            "decided_ci": stats.interval(stats.wilson(decided, seated)),
        })  # fmt: skip
    rates = {r["strategy"]: r["hand_win_rate"] or 0.0 for r in ladder}
    from . import strategy

    heuristics = strategy.builtins("heuristic")
    best = max((x for x in rates if x in heuristics), key=lambda x: rates[x], default=None)
    decided = [{"pair": f"{x} / random", "strategy": x,
                **{k: r[k] for k in ("deals", "decided_share", "decided_ci")}}
               for x in (best, "mc") for r in ladder if r["strategy"] == x]  # fmt: skip
    accuracy = _accuracy(rr["strategies"], aggs)
    rated = {x["strategy"]: x for x in accuracy}
    for r in ladder:
        row = rated.get(r["strategy"], {"accuracy": None, "accuracy_ci": [None, None]})
        r["accuracy"], r["accuracy_ci"] = row["accuracy"], row["accuracy_ci"]
    return {
        "kind": "skill",
        "perfect_information": _perfect_information(manifest, aggs),
        "accuracy_deals": int(a.get("accuracy_deals", 0)),
        "accuracy": accuracy,
        "strategies": rr["strategies"],
        "legs": rr["legs"],
        "deals_requested": a.get("deals_requested"),
        "points_sense": data["groups"][0]["points_sense"] if data["groups"] else "higher",
        "ladder": ladder,
        "best_heuristic": best,
        "decided": decided,
        "matrix": rr["matrix"],
        "paired": rr["paired"],
        "ratings": rr["ratings"],
        "bt_regularized": rr["bt_regularized"],
    }


def _accuracy(names, aggs) -> list[dict]:
    """Each strategy's decision accuracy, where rated: the share of its decisions with a real
    choice that the solver rates optimal on the true deal, with a 95% interval clustered by
    hand (stats.ratio_ci)."""
    out = []
    for x in names:
        A = next((A for A in aggs.values() if A.get("acc_hands", pair=x)), None)
        if A is None:
            continue
        v = {k: A.get(f"acc_{k}", pair=x)
             for k in ("optimal", "rated", "o2", "on", "n2", "hands", "decisions")}  # fmt: skip
        p, lo, hi = stats.ratio_ci(v["optimal"], v["rated"], v["o2"], v["on"], v["n2"], v["hands"])
        out.append({
            "strategy": x, "hands": int(v["hands"]), "decisions": int(v["decisions"]),
            "rated": int(v["rated"]), "optimal": int(v["optimal"]), "accuracy": stats.finite(p),
            "accuracy_ci": stats.interval((lo, hi)),
        })  # fmt: skip
    return out


def _perfect_information(manifest, aggs) -> dict | None:
    """The solver's value of the deals (the leader's side; the paranoid bound with three or
    more sides), or None where the run did not solve them."""
    budget = int(manifest["analysis"].get("solve_budget", 0))
    if not budget or not aggs:
        return None
    A = aggs[min(aggs)]
    n, ok = A.get("pi_deals"), A.get("pi_solved")
    wins = A.get("pi_leader_wins")
    m, lo, hi = stats.mean_ci(A.get("pi_value_sum"), A.get("pi_value_sumsq"), ok)
    rules = manifest["groups"][0]["rules"]
    sides = 2 if rules["partnership"] else int(manifest["players"])
    return {
        "budget": budget,
        "deals": int(n),
        "solved": int(ok),
        "paranoid": sides > 2,
        "leader_win_rate": stats.finite(stats.rate(wins, ok)),
        "leader_win_ci": stats.interval(stats.wilson(wins, ok)),
        "leader_points": stats.finite(m),
        "leader_points_ci": [stats.finite(lo), stats.finite(hi)],
        "nodes": int(A.get("pi_nodes")),
    }


def _pairs(A: Aggregates) -> set:
    return {key[4] for key in A.d if key[0] == "pair_deals"}


def _flip(p):
    """A paired difference seen from its other strategy."""
    neg = lambda x: None if x is None else -x  # noqa: E731
    lo, hi = p["hand_win_diff_ci"]
    return {"hand_win_diff": neg(p["hand_win_diff"]), "hand_win_diff_ci": [neg(hi), neg(lo)]}


def _value_label(manifest, g, analysis) -> str:
    gd = next(x for x in manifest["groups"] if x["index"] == g["index"])
    if analysis["kind"] == "tune-target":
        return str(gd["rules"]["target"])
    opts = variants.options_of(gd["variant"])
    parts = []
    for opt in analysis.get("swept", ()):
        if opt in gd["options"]:
            v = gd["options"][opt]
        else:
            v = opts[opt].default
            if isinstance(v, tuple):
                v = v[int(manifest["players"]) - 2]
        parts.append(f"{opt}={variants.format_value(v)}")
    return ", ".join(parts) or gd["label"]


def _sweep(manifest, data) -> dict:
    a = manifest["analysis"]
    kind = a["kind"]
    groups = data["groups"]
    names = [s["strategy"] for s in groups[0]["strategies"]] if groups else []
    won = {x: 0 for x in names}
    played = {x: 0 for x in names}
    for g in groups:
        for s in g["strategies"]:
            won[s["strategy"]] += s["match_wins"]
            played[s["strategy"]] += s["seat_matches"]
    pooled = {x: stats.finite(stats.rate(won[x], played[x])) for x in names}
    stronger = None
    if len(names) > 1:
        stronger = max(names, key=lambda x: pooled[x] if pooled[x] is not None else -1)
    rows = []
    for g in groups:
        st = {s["strategy"]: s for s in g["strategies"]}
        row = {
            "group": g["index"],
            "label": g["label"],
            "value": _value_label(manifest, g, a),
            "strategies": [
                {
                    k: st[x][k]
                    for k in (
                        "strategy",
                        "match_win_rate",
                        "match_win_ci",
                        "hand_win_rate",
                        "hand_win_ci",
                        "seat_matches",
                    )
                }
                for x in names
            ],  # fmt: skip
            "stronger": stronger,
            "stronger_match_win_rate": st[stronger]["match_win_rate"] if stronger else None,
            "stronger_match_win_ci": st[stronger]["match_win_ci"] if stronger else [None, None],
            "paired": g["paired"],
            "leading_side_match_win_rate": g["first_leader_match_win_rate"],
            "leading_side_match_win_ci": g["first_leader_match_win_ci"],
            "leading_side_match_advantage": g["first_leader_match_advantage"],
            "baseline": 1 / g["sides"],
            "matches": g["matches"],
            "hands": g["hands"],
            "mean_match_length": g["mean_match_length"],
            "median_match_length": g["median_match_length"],
            "p90_match_length": g["p90_match_length"],
            "blocked_rate": g["blocked_rate"],
            "mean_hand_length": g["mean_hand_length"],
            "match_tie_rate": g["match_tie_rate"],
        }
        if kind == "tune-target":
            gd = next(x for x in manifest["groups"] if x["index"] == g["index"])
            row["target"] = int(gd["rules"]["target"])
        rows.append(row)
    out = {"kind": kind, "strategies": names, "pooled_match_win_rate": pooled,
           "stronger": stronger, "rows": rows}  # fmt: skip
    if kind == "tune":
        out["swept"] = list(a.get("swept", ()))
    else:
        share = float(a["share"])
        rows_t = sorted(rows, key=lambda r: r["target"])
        hit = [r["target"] for r in rows_t
               if stronger and r["stronger_match_win_ci"][0] is not None
               and r["stronger_match_win_ci"][0] >= share]  # fmt: skip
        out.update(option=a["option"], targets=[r["target"] for r in rows_t], share=share,
                   smallest_target=hit[0] if hit else None)  # fmt: skip
        if stronger is None:
            out["sentence"] = "One strategy plays every seat, so no strategy is stronger."
        elif hit:
            out["sentence"] = (
                f"The smallest target at which {stronger}'s match win rate has a Wilson 95% "
                f"lower bound of at least {100 * share:.0f}% is {hit[0]}."
            )
        else:
            out["sentence"] = (
                f"No target reached a Wilson 95% lower bound of {100 * share:.0f}% for "
                f"{stronger}'s match win rate (largest target {rows_t[-1]['target']})."
            )
    return out


def _points_sense(rules: Mapping) -> str:
    from .rules import Rules

    fields = {k: v for k, v in rules.items() if k != "options"}
    return Rules(**fields, options=tuple(rules.get("options", {}).items())).points_sense


def to_json(data: Mapping) -> str:
    """The report object as one JSON document."""
    return json.dumps(data, indent=1, allow_nan=False)


# ---------------------------------------------------------------------------------------------
# presentation


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _ci_text(ci) -> str:
    lo, hi = ci
    if lo is None or hi is None:
        return "-"
    return f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _f(x, nd=2) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def _diff(x) -> str:
    return "-" if x is None else f"{100 * x:+.2f} pp"


def tables(data: Mapping) -> dict:
    """pandas DataFrames of the report: ``groups``, and per group ``strategies``, ``seats``,
    ``paired`` (dicts keyed by group label)."""
    import pandas as pd

    out = {"groups": None, "strategies": {}, "seats": {}, "paired": {}}
    rows = []
    for g in data["groups"]:
        rows.append({
            "group": g["label"],
            "hands": g["hands"],
            "matches": g["matches"],
            "blocked": _pct(g["blocked_rate"]),
            "by target": _pct(g["target_rate"]),
            "length mean": _f(g["mean_hand_length"]),
            "median": _f(g["median_hand_length"], 0),
            "p90": _f(g["p90_hand_length"], 0),
            "turns mean": _f(g["mean_turns"]),
            "t.median": _f(g["median_turns"], 0),
            "t.p90": _f(g["p90_turns"], 0),
            "leader wins": _pct(g["leader_win_rate"]),
            "baseline": _pct(g["leader_baseline"]),
        })  # fmt: skip
        label = g["label"]
        out["strategies"][label] = pd.DataFrame([
            {
                "strategy": _mark(data, s["strategy"]),
                "seats": s["seats"],
                "seat-hands": s["seat_hands"],
                "hand wins": _pct(s["hand_win_rate"]),
                "95% CI": _ci_text(s["hand_win_ci"]),
                **({"seat-matches": s["seat_matches"],
                    "match wins": _pct(s["match_win_rate"]),
                    "match 95% CI": _ci_text(s["match_win_ci"])}
                   if data["unit"] == "match" else {}),  # fmt: skip
                "mean points": _f(s["mean_points"]),
            }
            for s in g["strategies"]
        ])  # fmt: skip
        out["seats"][label] = pd.DataFrame([
            {
                "seat": s["seat"],
                "hand wins": _pct(s["hand_win_rate"]),
                "95% CI": _ci_text(s["hand_win_ci"]),
                **({"match wins": _pct(s["match_win_rate"]),
                    "match 95% CI": _ci_text(s["match_win_ci"])}
                   if data["unit"] == "match" else {}),  # fmt: skip
            }
            for s in g["seats"]
        ])  # fmt: skip
        if g["paired"]:
            out["paired"][label] = pd.DataFrame([
                {
                    "pair": f"{p['a']} - {p['b']}",
                    "deals": p["deals"],
                    "hand win diff": _diff(p["hand_win_diff"]),
                    "95% CI": "[" + ", ".join(_diff(x) for x in p["hand_win_diff_ci"]) + "]",
                    **({"match win diff": _diff(p["match_win_diff"]),
                        "match 95% CI": "[" + ", ".join(_diff(x)
                                                        for x in p["match_win_diff_ci"]) + "]"}
                       if data["unit"] == "match" else {}),  # fmt: skip
                }
                for p in g["paired"]
            ])  # fmt: skip
    out["groups"] = pd.DataFrame(rows)
    return out


def _sections(data: Mapping):
    """(heading, lines, {title: DataFrame}) per section, shared by text and markdown."""
    T = tables(data)
    rot = len(data["rotations"])
    head = [
        f"run {data['name']}/{data['run_id']} ({data['status']}): seed {data['seed']}, "
        f"{data['players']} players, seats {', '.join(data['seats'])}",
        f"unit {data['unit']}; {data['games_per_group']} games per group "
        f"({rot} seat rotation{'s' if rot != 1 else ''}); {len(data['groups'])} group(s)",
    ]
    for x in data.get("perfect_information_strategies", ()):
        head.append(
            f"{x} [perfect information]: it sees every hand and the stock order, a "
            "cheating reference (the solver's move), not a strategy a player could follow"
        )
    yield "Summary", head, {"groups": T["groups"]}
    if data.get("analysis"):
        yield from _analysis_sections(data)
    for g in data["groups"]:
        label = g["label"]
        lines = [
            f"{g['hands']} hands, {g['matches']} matches; blocked {_pct(g['blocked_rate'])}, "
            f"ended by target {_pct(g['target_rate'])}, domino {_pct(g['domino_rate'])}",
            f"hand length (domino/blocked hands): mean {_f(g['mean_hand_length'])}, median "
            f"{_f(g['median_hand_length'], 0)}, p90 {_f(g['p90_hand_length'], 0)}; turns: mean "
            f"{_f(g['mean_turns'])}, median {_f(g['median_turns'], 0)}, "
            f"p90 {_f(g['p90_turns'], 0)}",
            f"leading side wins {_pct(g['leader_win_rate'])} {_ci_text(g['leader_win_ci'])} "
            f"(baseline {_pct(g['leader_baseline'])})",
            f"mean points per hand by {g['points_per']} ({g['points_sense']} is better): "
            + ", ".join(_f(x) for x in g["mean_points"]),
        ]
        if data["unit"] == "match":
            lines.append(
                f"match length in hands: mean {_f(g['mean_match_length'])}, median "
                f"{_f(g['median_match_length'], 0)}, p90 {_f(g['p90_match_length'], 0)}"
            )
        tabs = {"strategies": T["strategies"][label], "seats": T["seats"][label]}
        if label in T["paired"]:
            tabs["paired (same deals)"] = T["paired"][label]
        yield f"Group {g['index']}: {label}", lines, tabs


def render_text(data: Mapping) -> str:
    """The report for the terminal."""
    out = io.StringIO()
    for heading, lines, tabs in _sections(data):
        out.write(f"== {heading} ==\n")
        for line in lines:
            out.write(line + "\n")
        for title, df in tabs.items():
            if title == "groups" and len(df) <= 1:
                continue
            out.write(f"\n{title}:\n{df.to_string(index=False)}\n")
        out.write("\n")
    return out.getvalue()


def _md_table(df) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines)


def render_markdown(data: Mapping) -> str:
    """The report as Markdown (report.md)."""
    out = io.StringIO()
    out.write(f"# {data['name']} — run {data['run_id']}\n\n")
    for heading, lines, tabs in _sections(data):
        out.write(f"## {heading}\n\n")
        for line in lines:
            out.write(f"- {line}\n")
        for title, df in tabs.items():
            out.write(f"\n**{title}**\n\n{_md_table(df)}\n")
        out.write("\n")
    return out.getvalue()


def summary_csv(data: Mapping) -> str:
    """One row per (group, strategy) with the group's statistics beside it."""
    import pandas as pd

    rows = []
    for g in data["groups"]:
        base = {
            "group": g["index"], "label": g["label"], "variant": g["variant"],
            "options": json.dumps(g["options"], sort_keys=True), "players": g["players"],
            "hands": g["hands"], "matches": g["matches"], "blocked_rate": g["blocked_rate"],
            "target_rate": g["target_rate"], "mean_hand_length": g["mean_hand_length"],
            "mean_turns": g["mean_turns"], "leader_win_rate": g["leader_win_rate"],
            "points_sense": g["points_sense"],
        }  # fmt: skip
        for s in g["strategies"]:
            rows.append({
                **base,
                "strategy": s["strategy"],
                "seat_hands": s["seat_hands"],
                "hand_win_rate": s["hand_win_rate"],
                "hand_win_lo": s["hand_win_ci"][0],
                "hand_win_hi": s["hand_win_ci"][1],
                "seat_matches": s["seat_matches"],
                "match_win_rate": s["match_win_rate"],
                "match_win_lo": s["match_win_ci"][0],
                "match_win_hi": s["match_win_ci"][1],
                "mean_points": s["mean_points"],
            })  # fmt: skip
    return pd.DataFrame(rows).to_csv(index=False)


def _skill_sections(data: Mapping, a: Mapping):
    import pandas as pd

    lower = " (lower is better)" if a["points_sense"] == "lower" else ""
    lines = [
        f"luck against skill: {len(a['strategies'])} strategies, every pair at one table on "
        f"the same {data['games_per_group'] // max(1, len(data['seats']))} deals in every "
        "seating, one hand per deal",
        "against random: hand win rate (Wilson 95%), the paired difference from random's on "
        f"the same deals, points per hand{lower} and their paired difference (normal 95%)",
        "decided by the deal: the share of deals whose hand the same side won in every "
        "seating, whoever sat there (Wilson 95%)",
    ]
    ladder = pd.DataFrame([
        {"strategy": _mark(data, r["strategy"]), "deals": r["deals"],
         "hand wins": f"{_pct(r['hand_win_rate'])} {_ci_text(r['hand_win_ci'])}",
         "vs random": _diff(r["hand_win_diff"]),
         "95% CI": "[" + ", ".join(_diff(x) for x in r["hand_win_diff_ci"]) + "]",
         "points/hand": _f(r["points_per_hand"], 2),
         "points diff": _f(r["points_diff"], 2),
         "points 95% CI": "[" + ", ".join(_f(x, 2) for x in r["points_diff_ci"]) + "]",
         "decided by deal": f"{_pct(r['decided_share'])} {_ci_text(r['decided_ci'])}"}
        for r in a["ladder"]
    ])  # fmt: skip
    accuracy = pd.DataFrame([
        {"strategy": _mark(data, r["strategy"]), "hands": r["hands"],
         "decisions": r["decisions"], "rated": r["rated"],
         "optimal": f"{_pct(r['accuracy'])} {_ci_text(r['accuracy_ci'])}"}
        for r in a.get("accuracy", ())
    ])  # fmt: skip
    ratings = pd.DataFrame([
        {"rank": r["rank"], "strategy": _mark(data, r["strategy"]), "rating": _f(r["rating"], 1),
         "95% CI": "[" + ", ".join(_f(x, 1) for x in r["rating_ci"]) + "]"}
        for r in a["ratings"]
    ])  # fmt: skip
    if a["best_heuristic"]:
        lines.append(f"best heuristic against random: {a['best_heuristic']}")
    pi = a.get("perfect_information")
    if pi:
        bound = (" (the paranoid bound: the leader's seat against all the others together)"
                 if pi["paranoid"] else "")  # fmt: skip
        lines.append(
            f"perfect information{bound}: the leader's side wins {_pct(pi['leader_win_rate'])} "
            f"{_ci_text(pi['leader_win_ci'])} of the deals under perfect play, "
            f"{_f(pi['leader_points'], 2)} points per hand {'[' + ', '.join(_f(x, 2) for x in pi['leader_points_ci']) + ']'}; "
            f"{pi['solved']} of {pi['deals']} deals solved within {pi['budget']:,} nodes each"
        )
    tables = {"against random": ladder}
    if len(accuracy):
        bound = " (paranoid objective)" if pi and pi["paranoid"] else ""
        lines.append(
            f"decision accuracy{bound}: the share of each strategy's decisions with a real "
            "choice that the solver rates optimal on the true deal, on its first "
            f"{a['accuracy_deals']} deals against random (95% interval clustered by hand)"
        )
        tables["decision accuracy"] = accuracy
    tables["ratings (Bradley–Terry)"] = ratings
    yield "Luck and skill", lines, tables


def _analysis_sections(data: Mapping):
    """(heading, lines, {title: DataFrame}) of the analysis, for report._sections."""
    import pandas as pd

    a = data["analysis"]
    if a["kind"] == "skill":
        yield from _skill_sections(data, a)
        return
    if a["kind"] == "compare":
        names = a["strategies"]
        what = "matches" if a["unit"] == "match" else "hands"
        lines = [
            f"round robin of {len(names)} strategies on duplicate deals: {len(a['legs'])} "
            f"table(s), each in every seating, {data['games_per_group']} {what} per table",
            f"win rate of ROW against COLUMN: share of the {what} that one of the two won, "
            "with both at the table, won by ROW (Wilson 95%)",
            "ratings: Bradley–Terry on those pairwise wins, Elo scale (mean 0), 95% intervals "
            "from the observed information"
            + (" (regularized: +0.5 per pair)" if a["bt_regularized"] else ""),  # fmt: skip
        ]
        ratings = pd.DataFrame([
            {"rank": r["rank"], "strategy": _mark(data, r["strategy"]), "rating": _f(r["rating"], 1),
             "95% CI": "[" + ", ".join(_f(x, 1) for x in r["rating_ci"]) + "]",
             "wins": r["wins"], "losses": r["losses"]}
            for r in a["ratings"]
        ])  # fmt: skip
        matrix = pd.DataFrame([
            {"": x, **{y: ("-" if c is None else f"{_pct(c['win_rate'])} {_ci_text(c['win_ci'])}")
                       for y, c in zip(names, row, strict=True)}}
            for x, row in zip(names, a["matrix"], strict=True)
        ])  # fmt: skip
        key = "match" if a["unit"] == "match" else "hand"
        paired = pd.DataFrame([
            {"pair": f"{p['a']} - {p['b']}", "deals": p["deals"],
             f"{key} win diff": _diff(p[f"{key}_win_diff"]),
             "95% CI": "[" + ", ".join(_diff(x) for x in p[f"{key}_win_diff_ci"]) + "]"}
            for p in a["paired"]
        ])  # fmt: skip
        yield "Round robin", lines, {"ratings": ratings, "win rates (row vs column)": matrix,
                                     "paired differences (same deals)": paired}  # fmt: skip
        return
    rows = a["rows"]
    cols = [r["value"] for r in rows]
    by_stat = {}
    for s_i, x in enumerate(a["strategies"]):
        by_stat[f"{x} match wins"] = [_pct(r["strategies"][s_i]["match_win_rate"]) for r in rows]
        by_stat[f"{x} 95% CI"] = [_ci_text(r["strategies"][s_i]["match_win_ci"]) for r in rows]
    if a["stronger"]:
        by_stat["stronger"] = [a["stronger"] for _ in rows]
    by_stat["leading side match wins"] = [_pct(r["leading_side_match_win_rate"]) for r in rows]
    by_stat["leading side advantage"] = [_diff(r["leading_side_match_advantage"]) for r in rows]
    by_stat["mean match length"] = [_f(r["mean_match_length"]) for r in rows]
    by_stat["median match length"] = [_f(r["median_match_length"], 0) for r in rows]
    by_stat["p90 match length"] = [_f(r["p90_match_length"], 0) for r in rows]
    by_stat["blocked hands"] = [_pct(r["blocked_rate"]) for r in rows]
    by_stat["mean hand length"] = [_f(r["mean_hand_length"]) for r in rows]
    table = pd.DataFrame([{"statistic": k, **dict(zip(cols, v, strict=True))}
                          for k, v in by_stat.items()])  # fmt: skip
    if a["kind"] == "tune-target":
        head = f"target sweep ({a['option']}) on common deals: {', '.join(map(str, cols))}"
        lines = [head]
        if a["stronger"]:
            lines.append(f"stronger strategy (higher pooled match win rate): {a['stronger']}")
        lines.append(a["sentence"])
        yield "Target sweep", lines, {"by target": table}
    else:
        lines = [f"option sweep ({', '.join(a['swept'])}) on common deals"]
        if a["stronger"]:
            lines.append(f"stronger strategy (higher pooled match win rate): {a['stronger']}")
        yield "Option sweep", lines, {"side by side": table}
