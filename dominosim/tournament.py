"""Round robins and sweeps on common deals: ``compare``, ``tune`` and ``tune-target``
(DESIGN §9; docs/compare.md).

All three are runs of :mod:`dominosim.runner` (same plan, executors, results folder, resume);
this module plans them and adds their own report section, ``analysis``, computed like the rest
of the report from the manifest and the integer aggregates only.

* ``compare``: one group per **leg** (a table of strategies), every leg on the same match ids:
  with 2 players every pairing ``a,b`` (both seatings); in partnership every pair of teams
  ``a,b,a,b`` (both seatings); with 3-4 players otherwise every subset of P strategies in every
  cyclic rotation. Pairwise wins give a win-rate matrix and Bradley–Terry ratings.
* ``tune``: option groups of one variant (``--set V.OPT=a,b``) on the same deals, side by side.
* ``tune-target``: ``tune`` over the match target (``kozel_target`` for kozel).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np

from . import stats as ST
from . import variants as V
from .aggregates import Aggregates
from .config import apply_sets, parse_strategies, rules_from_cli
from .errors import ConfigError

KINDS = ("compare", "tune", "tune-target")
ELO = 400 / math.log(10)  # rating points per unit of log-strength


# ---------------------------------------------------------------------------------------------
# planning


def compare_legs(strategies: Sequence[str], players: int, partnership: bool) -> list[tuple]:
    """The tables of a round robin: seat lists, each played in all its cyclic rotations.

    2 players: every pair ``(a, b)``; partnership (4 players, 2 teams): every pair of teams
    ``(a, b, a, b)``; 3-4 players otherwise: every subset of ``players`` strategies.
    """
    names = list(strategies)
    if players == 2 or partnership:
        return [(a, b) * (players // 2) for a, b in itertools.combinations(names, 2)]
    if len(names) < players:
        raise ConfigError(
            f"compare with {players} players seats {players} different strategies at a table, "
            f"but --strategies names {len(names)}; give at least {players} or use --players 2"
        )
    return list(itertools.combinations(names, players))


def _games(games, default: int = 1000) -> int:
    if games is None:
        return default
    try:
        n = int(str(games).strip())
    except ValueError:
        raise ConfigError(f"--games must be an integer >= 1, not '{games}'") from None
    if n < 1:
        raise ConfigError(f"--games must be an integer >= 1, not {n}")
    return n


def _strategy_labels(strategies) -> list[str]:
    if strategies is None:
        raise ConfigError("compare needs --strategies with at least two names, e.g. random,greedy")
    labels = [s.label for s in parse_strategies(strategies)]
    if len(labels) < 2:
        raise ConfigError(
            f"compare needs at least two strategies, not one ('{labels[0]}'); "
            "write e.g. --strategies random,greedy"
        )
    for x in labels:
        if labels.count(x) > 1:
            raise ConfigError(f"--strategies names '{x}' twice; compare plays each strategy once")
    return labels


def setup_compare(*, variant: str, players=2, strategies=None, sets=(), games=None,
                  unit: str | None = None, name: str | None = None, **flags):  # fmt: skip
    """``(experiment flags, legs, analysis)`` of ``dominosim compare``.

    ``games`` is the total over all legs and seatings; each leg gets ``ceil(games / legs)``.
    """
    labels = _strategy_labels(strategies)
    rules = rules_from_cli(variant, players, sets)
    legs = compare_legs(labels, rules.players, rules.partnership)
    total = _games(games)
    per_leg = math.ceil(total / len(legs))
    exp_flags = dict(variants=[variant], players=players, sets=list(sets),
                     strategies=",".join(legs[0]), games=per_leg, unit=unit or "hand",
                     name=name or f"compare-{variant}", rotate=True, **flags)  # fmt: skip
    analysis = {"kind": "compare", "strategies": labels, "games_requested": total,
                "legs": [list(x) for x in legs]}  # fmt: skip
    return exp_flags, legs, analysis


def setup_tune(*, variant: str, sets=(), name: str | None = None, unit: str | None = None,
               **flags):  # fmt: skip
    """``(experiment flags, analysis)`` of ``dominosim tune``: at least two option groups."""
    V.check_variant(variant)
    swept = [opt for opt, vals in apply_sets(sets, [variant]).get(variant, {}).items()
             if len(vals) > 1]  # fmt: skip
    if not swept:
        raise ConfigError(
            f"tune sweeps an option: give a value list, e.g. --set {variant}.OPTION=A,B "
            f"(options: dominosim variants {variant})"
        )
    exp_flags = dict(variants=[variant], sets=list(sets), unit=unit or "match",
                     name=name or f"tune-{variant}", **flags)  # fmt: skip
    return exp_flags, {"kind": "tune", "variant": variant, "swept": swept}


def parse_targets(text) -> list[int]:
    """``"50,100,150"`` -> ``[50, 100, 150]`` (sorted); integers >= 1, each once."""
    if isinstance(text, str):
        items = [x.strip() for x in text.split(",")]
    else:
        items = [str(x).strip() for x in (text or ())]
    out = []
    for x in items:
        try:
            t = int(x)
        except ValueError:
            t = 0
        if t < 1 or str(t) != x.lstrip("+"):
            raise ConfigError(
                f"--targets must be integers >= 1 separated by commas (e.g. 50,100,150), "
                f"not '{x}' in '{text}'"
            )
        if t in out:
            raise ConfigError(f"--targets gives {t} twice; give each target once")
        out.append(t)
    if not out:
        raise ConfigError("--targets is empty; give e.g. --targets 50,100,150")
    return sorted(out)


def parse_share(share) -> float:
    try:
        x = float(0.75 if share is None else share)
    except (TypeError, ValueError):
        x = math.nan
    if not 0 < x <= 1:
        raise ConfigError(f"--share must be a number in (0, 1], e.g. 0.75, not '{share}'")
    return x


def setup_tune_target(*, variant: str, players=2, targets=None, share=None, sets=(),
                      name: str | None = None, **flags):  # fmt: skip
    """``(experiment flags, analysis)`` of ``dominosim tune-target``: one group per target,
    matches (``unit = match``) on the same deals."""
    V.check_variant(variant)
    if targets is None:
        raise ConfigError("tune-target needs --targets, e.g. --targets 50,100,150,200")
    ts = parse_targets(targets)
    frac = parse_share(share)
    base = rules_from_cli(variant, players, sets)
    V.with_target(base, ts[0])  # RulesError for the one-hand variants (two-lane, ladder)
    option = "kozel_target" if variant == "kozel" else "target"
    if option in apply_sets(sets, [variant]).get(variant, {}):
        raise ConfigError(
            f"tune-target sets {variant}.{option} itself (from --targets); drop that --set"
        )
    sets = [*sets, f"{variant}.{option}=" + ",".join(map(str, ts))]
    exp_flags = dict(variants=[variant], players=players, sets=sets, unit="match",
                     name=name or f"tune-target-{variant}", **flags)  # fmt: skip
    analysis = {"kind": "tune-target", "variant": variant, "option": option, "targets": ts,
                "share": frac}  # fmt: skip
    return exp_flags, analysis


# ---------------------------------------------------------------------------------------------
# Bradley–Terry


def _strongly_connected(W: np.ndarray) -> bool:
    """Whether the directed graph i -> j (i beat j at least once) is strongly connected."""
    K = len(W)
    A = (W > 0) | np.eye(K, dtype=bool)
    R = A.copy()
    for k in range(K):  # transitive closure (Floyd–Warshall on booleans)
        R |= R[:, [k]] & R[[k], :]
    return bool(R.all())


def bradley_terry(wins, z: float = ST.Z95, tol: float = 1e-12, max_iter: int = 100_000) -> dict:
    """Fit Bradley–Terry strengths to pairwise win counts.

    Model: ``P(i beats j) = p_i / (p_i + p_j)`` with ``theta = log p`` centred (mean 0). The
    maximum-likelihood fit uses Hunter's MM iterations
    ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``; the covariance of ``theta`` is the
    Moore–Penrose inverse of the observed information (a weighted graph Laplacian,
    ``I_ij = -n_ij q_ij (1 - q_ij)``), which is the covariance under the sum-zero constraint.
    When the maximum does not exist (some set of strategies never beat the rest), half a win
    is added to both directions of every compared pair and ``regularized`` is true.

    Args:
        wins: ``[K, K]`` counts, ``wins[i, j]`` = times i beat j.

    Returns:
        ``{"theta", "se", "ci", "rating", "rating_ci", "regularized", "iterations"}``:
        ``rating`` is ``theta`` in Elo points (``400 / ln 10`` per unit).
    """
    W = np.asarray(wins, dtype=float)
    K = W.shape[0]
    np.fill_diagonal(W, 0)
    regularized = K > 1 and not _strongly_connected(W)
    if regularized:
        W = W + 0.5 * ((W + W.T) > 0)
    N = W + W.T
    won = W.sum(axis=1)
    p = np.ones(K)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        den = (N / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(den > 0, won / np.where(den > 0, den, 1), 1.0)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(p))) < tol
        p = new
        if done:
            break
    theta = np.log(p)
    theta -= theta.mean()
    q = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
    off = N * q * (1 - q)
    info = np.diag(off.sum(axis=1)) - off
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    se = np.where(off.sum(axis=1) > 0, se, np.inf)
    lo, hi = theta - z * se, theta + z * se
    return {
        "theta": theta.tolist(),
        "se": se.tolist(),
        "ci": np.stack([lo, hi], axis=1).tolist(),
        "rating": (ELO * theta).tolist(),
        "rating_ci": np.stack([ELO * lo, ELO * hi], axis=1).tolist(),
        "regularized": bool(regularized),
        "iterations": int(it),
    }


# ---------------------------------------------------------------------------------------------
# analysis (part of report.build)


def analyse(manifest: Mapping, aggregates, data: Mapping) -> dict:
    """The ``analysis`` object of a compare / tune / tune-target report (docs/compare.md)."""
    a = manifest["analysis"]
    kind = a.get("kind")
    if kind == "compare":
        return _compare(manifest, aggregates, data)
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
                "win_rate": ST.finite(ST.rate(int(W[i, j]), dec)),
                "win_ci": ST.interval(ST.wilson(int(W[i, j]), dec)),
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
            hm, hlo, hhi = ST.mean_ci(hs, hq, n)
            mm, mlo, mhi = ST.mean_ci(ms, mq, n)
            hsc = n / (kk * th) if th else math.nan
            msc = 1 / (kk * R)
            paired.append({
                "a": x, "b": y, "deals": int(n),
                "hand_win_diff": ST.finite(hm * hsc),
                "hand_win_diff_ci": [ST.finite(hlo * hsc), ST.finite(hhi * hsc)],
                "match_win_diff": ST.finite(mm * msc),
                "match_win_diff_ci": [ST.finite(mlo * msc), ST.finite(mhi * msc)],
            })  # fmt: skip
    bt = bradley_terry(W)
    order = sorted(range(K), key=lambda i: -bt["theta"][i])
    ratings = [
        {
            "rank": r + 1,
            "strategy": names[i],
            "rating": ST.finite(bt["rating"][i]),
            "rating_ci": ST.interval(bt["rating_ci"][i]),
            "theta": ST.finite(bt["theta"][i]),
            "theta_se": ST.finite(bt["se"][i]),
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


def _value_label(manifest, g, analysis) -> str:
    gd = next(x for x in manifest["groups"] if x["index"] == g["index"])
    if analysis["kind"] == "tune-target":
        return str(gd["rules"]["target"])
    opts = V.options_of(gd["variant"])
    parts = []
    for opt in analysis.get("swept", ()):
        if opt in gd["options"]:
            v = gd["options"][opt]
        else:
            v = opts[opt].default
            if isinstance(v, tuple):
                v = v[int(manifest["players"]) - 2]
        parts.append(f"{opt}={V.format_value(v)}")
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
    pooled = {x: ST.finite(ST.rate(won[x], played[x])) for x in names}
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


# ---------------------------------------------------------------------------------------------
# presentation (report.render_text / render_markdown)


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _cit(ci) -> str:
    lo, hi = ci
    return "-" if lo is None or hi is None else f"[{100 * lo:.1f}, {100 * hi:.1f}]"


def _pp(x) -> str:
    return "-" if x is None else f"{100 * x:+.2f} pp"


def _f(x, nd=2) -> str:
    return "-" if x is None else f"{x:.{nd}f}"


def sections(data: Mapping):
    """(heading, lines, {title: DataFrame}) of the analysis, for report._sections."""
    import pandas as pd

    a = data["analysis"]
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
            {"rank": r["rank"], "strategy": r["strategy"], "rating": _f(r["rating"], 1),
             "95% CI": "[" + ", ".join(_f(x, 1) for x in r["rating_ci"]) + "]",
             "wins": r["wins"], "losses": r["losses"]}
            for r in a["ratings"]
        ])  # fmt: skip
        matrix = pd.DataFrame([
            {"": x, **{y: ("-" if c is None else f"{_pct(c['win_rate'])} {_cit(c['win_ci'])}")
                       for y, c in zip(names, row, strict=True)}}
            for x, row in zip(names, a["matrix"], strict=True)
        ])  # fmt: skip
        key = "match" if a["unit"] == "match" else "hand"
        paired = pd.DataFrame([
            {"pair": f"{p['a']} - {p['b']}", "deals": p["deals"],
             f"{key} win diff": _pp(p[f"{key}_win_diff"]),
             "95% CI": "[" + ", ".join(_pp(x) for x in p[f"{key}_win_diff_ci"]) + "]"}
            for p in a["paired"]
        ])  # fmt: skip
        yield "Round robin", lines, {"ratings": ratings, "win rates (row vs column)": matrix,
                                     "paired differences (same deals)": paired}  # fmt: skip
        return
    rows = a["rows"]
    cols = [r["value"] for r in rows]
    stats = {}
    for s_i, x in enumerate(a["strategies"]):
        stats[f"{x} match wins"] = [_pct(r["strategies"][s_i]["match_win_rate"]) for r in rows]
        stats[f"{x} 95% CI"] = [_cit(r["strategies"][s_i]["match_win_ci"]) for r in rows]
    if a["stronger"]:
        stats["stronger"] = [a["stronger"] for _ in rows]
    stats["leading side match wins"] = [_pct(r["leading_side_match_win_rate"]) for r in rows]
    stats["leading side advantage"] = [_pp(r["leading_side_match_advantage"]) for r in rows]
    stats["mean match length"] = [_f(r["mean_match_length"]) for r in rows]
    stats["median match length"] = [_f(r["median_match_length"], 0) for r in rows]
    stats["p90 match length"] = [_f(r["p90_match_length"], 0) for r in rows]
    stats["blocked hands"] = [_pct(r["blocked_rate"]) for r in rows]
    stats["mean hand length"] = [_f(r["mean_hand_length"]) for r in rows]
    table = pd.DataFrame([{"statistic": k, **dict(zip(cols, v, strict=True))}
                          for k, v in stats.items()])  # fmt: skip
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
