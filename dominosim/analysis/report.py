"""The report of a run: computed from the manifest and the integer aggregates only.

:func:`build` turns ``manifest.json`` and ``aggregates.parquet`` into one JSON-ready dict (the
object ``dominosim run --json`` prints; docs/results.md lists every key); :mod:`dominosim.render`
presents it (text, Markdown, CSV, JSON). Because only integers go in,
the numbers do not depend on workers, chunking, executor or the order chunks finished.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dominosim.analysis import analyses, stats
from dominosim.analysis.aggregates import (
    HAND_LEN_BINS,
    MATCH_LEN_MAX,
    TURN_BINS,
    Aggregates,
    seating,
)
from dominosim.analysis.classes import (  # noqa: F401 - (report's names, as before)
    classes_of,
    recomputed_classes,
    seated_labels,
    strategy_classes,
)
from dominosim.analysis.manifest import Group, Manifest
from dominosim.strategy.spec import RANDOM

if TYPE_CHECKING:
    import pandas as pd

    from dominosim.game.rules import Rules


def _one_side(sides: int, players: int, cells, rotations) -> bool:
    """Whether a strategy's seats (``cells``: rotation, seat) are one partnership's in every
    rotation: its win then counts at each of those seats, and its intervals count it once
    (Wilson over the side's hands, not its seat-hands)."""
    if sides != 2 or players != 4:
        return False
    return all(len({s % 2 for q, s in cells if q == r}) == 1 for r in rotations)


def build(
    manifest: Manifest | Mapping, aggregates: pd.DataFrame, run_dir: str | Path | None = None
) -> dict:
    """The report as data (see docs/results.md, "Report JSON").

    Args:
        manifest: the run's manifest (a dict is decoded: :meth:`Manifest.decode`).
        aggregates: the aggregates, a DataFrame (columns of ``aggregates.parquet``) or its
            rows (``aggregates.Aggregates.by_group``).
        run_dir: the run folder, reported as ``run_dir``.
    """
    m = Manifest.decode(manifest)
    timings = m.group_timings or []
    groups = []
    lookups = Aggregates.by_group(aggregates)
    for gd in m.groups:
        g = gd.index
        agg = lookups.get(g) or Aggregates()
        groups.append(_group(m, gd, agg, timings[g] if g < len(timings) else {}))
    data = {
        "run_id": m.run_id,
        "run_dir": str(run_dir) if run_dir is not None else None,
        "name": m.name,
        "status": m.status,
        "seed": m.seed,
        "unit": m.unit,
        "players": m.players,
        "seats": list(m.seats),
        "rotations": [list(r.seats) for r in m.rotations],
        "games_requested": m.games_requested,
        "games_per_group": m.games_per_group,
        "games_played": m.games_played,
        "hands_played": m.hands_played,
        "chunks": _chunk_count(m),
        "wall_seconds": float((m.timings if m.has("timings") else {}).get("wall_seconds", 0.0)),
        "groups": groups,
    }
    # strategies that see the true deal (the oracle): listed, and marked wherever shown
    classes = classes_of(m)
    if classes["perfect_information"]:
        data["perfect_information_strategies"] = classes["perfect_information"]
    if classes["unverified"]:
        data["unverified_strategies"] = classes["unverified"]
    if m.analysis:
        data["analysis"] = analysis(m, aggregates, data)
    if m.until_decided:
        data["until_decided"] = until_decided(m, data)
        if analyses.of_analysis(data.get("analysis")).verdict_pooled:
            data["analysis"]["until_decided"] = data["until_decided"]
    return data


def _chunk_count(m: Manifest) -> object:
    """The manifest's ``chunk_count``, else the length of its ``chunks`` (a manifest may lack
    either; 0 where it has neither)."""
    listed = len(m.chunks if m.has("chunks") else [])
    return m.chunk_count if m.has("chunk_count") else listed


# ---------------------------------------------------------------------------------------------
# --until-decided (docs/compare.md, "Stop when decided")


def sequential_z(alpha: float, looks: int) -> float:
    """The normal quantile of each look's interval when the error rate ``alpha`` is spent in
    equal shares over ``looks`` planned looks: ``z = Φ⁻¹(1 − alpha / (2·looks))``. By the union
    bound, the chance that a pair of equal strategies has an interval excluding zero at any
    look is at most ``alpha`` (given normal intervals at each look)."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(1 - alpha / (2 * looks))


def sequential_interval(diff: float | None, ci, z: float) -> tuple[float, float]:
    """A paired difference's interval at the normal quantile ``z`` instead of 95% (its normal
    95% interval ``ci`` widened by z / 1.96); nan without one. It excludes zero when the pair
    is decided."""
    se = _se(ci)
    if diff is None or not math.isfinite(se):
        return (math.nan, math.nan)
    return (diff - z * se, diff + z * se)


def _decision_pairs(manifest: Manifest, data: Mapping, metric: str | None) -> list[tuple]:
    """``(label, metric, difference, 95% interval)`` of every pair a verdict needs: compare's
    pooled pairs on its ranking metric; a run's pairs of every group, on ``metric`` or the
    metric that decides the group's game."""
    if analyses.of_analysis(data.get("analysis")).verdict_pooled:
        a = data["analysis"]
        m = a["metric"]
        key = _DIFF_KEYS[m]
        return [(f"{p['a']} vs {p['b']}", m, p[key], p[key + "_ci"]) for p in a["paired"]]
    out = []
    for g, gd in zip(data["groups"], manifest.groups, strict=True):
        m = metric or deciding_metric(gd.rules, data["unit"])
        for p in g["paired"]:
            label = f"{g['label']}: {p['a']} vs {p['b']}"
            out.append((label, m, p[_DIFF_KEYS[m]], p[_DIFF_KEYS[m] + "_ci"]))
    return out


def until_decided(manifest: Manifest, data: Mapping) -> dict:
    """The verdict of ``--until-decided`` on the report's aggregates: each pair's difference
    on its ranking metric with its sequential interval (:func:`sequential_z`), whether every
    interval excludes zero, and where the run stopped."""
    u = manifest.until_decided
    looks = list(u["looks"])
    z = sequential_z(float(u["alpha"]), len(looks))
    pairs = []
    for label, m, diff, ci in _decision_pairs(manifest, data, u.get("metric")):
        lo, hi = sequential_interval(diff, ci, z)
        # fmt: off
        pairs.append({"pair": label, "metric": m, "diff": diff,
                      "sequential_ci": stats.interval((lo, hi)),
                      "decided": bool(lo > 0 or hi < 0)})
        # fmt: on
    deals = u.get("stopped") or looks[-1]
    alpha = float(u["alpha"])
    return {
        "method": (
            f"alpha spending: the {100 * alpha:g}% error rate in equal shares over the "
            f"{len(looks)} planned looks (z = {z:.3f} at each; a Bonferroni bound), per pair"
        ),
        "alpha": alpha,
        "z": z,
        "looks": looks,
        "looks_planned": len(looks),
        "looks_taken": looks.index(deals) + 1 if deals in looks else len(looks),
        "deals": deals,
        "decided": bool(pairs) and all(p["decided"] for p in pairs),
        "undecided": [p["pair"] for p in pairs if not p["decided"]],
        "pairs": pairs,
    }


def decided(manifest: Manifest | Mapping, aggregates: pd.DataFrame, look: int) -> bool:
    """Whether the aggregates of the chunks up to ``look`` decide every pair (the runner's
    verdict after each round of ``--until-decided``)."""
    m = Manifest.decode(manifest)
    m = m.with_(until_decided={**m.until_decided, "stopped": look})
    return build(m, aggregates)["until_decided"]["decided"]


def _group(manifest: Manifest, gd: Group, agg: Aggregates, timing: Mapping) -> dict:
    """One option group's section of the report (``gd``: its entry in the manifest)."""
    players = manifest.players
    seats = list(manifest.seats_of(gd))  # a leg of a round robin has its own
    rotations = [r.offset for r in manifest.rotations_of(gd)]
    rules = _rules(gd.rules)
    sides = 2 if rules.partnership else players
    hands = agg.get("hands")
    columns = range(rules.score_columns)
    points = [sum(agg.get("points_sum", r, -1, c) for r in rotations) for c in columns]
    cpu = float(timing.get("cpu_seconds", 0.0))
    paired = _paired_rows(agg, seats, rotations, rules.points_sense)
    return {
        "index": gd.index,
        "label": gd.label,
        "variant": gd.variant,
        "options": dict(gd.options),
        "players": players,
        "sides": sides,
        "partnership": bool(rules.partnership),
        "points_sense": rules.points_sense,
        "games": int(manifest.games_per_group if manifest.has("games_per_group") else 0),
        "hands": hands,
        "matches": agg.get("matches"),
        **_outcomes(agg, sides),
        "mean_points": [stats.finite(stats.rate(p, hands)) for p in points],
        "points_per": "seat" if rules.points_by_seat else "side",
        "strategies": _strategy_rows(agg, seats, rotations, sides, players),
        "seats": _seat_rows(agg, players, rotations),
        "paired": paired,
        "disagreements": disagreements(paired, manifest.unit),
        **({"seat_list": seats} if gd.seats is not None else {}),
        "cpu_seconds": cpu,
        "wall_seconds": float(timing.get("wall_seconds", 0.0)),
        "hands_per_second": stats.finite(hands / cpu) if cpu > 0 else None,
    }


def _outcomes(agg: Aggregates, sides: int) -> dict:
    """How a group's hands and matches went: how they ended, their lengths, the draws and
    passes, the leader's and the first leader's advantage."""
    hands, matches = agg.get("hands"), agg.get("matches")
    scored = agg.get("domino") + agg.get("blocked")
    hand_lengths = agg.hist("hand_length_hist", 0, HAND_LEN_BINS - 1)
    turns = agg.hist("turns_hist", 0, TURN_BINS - 1)
    match_lengths = agg.hist("match_length_hist", 1, MATCH_LEN_MAX)
    lead_hands, lead_wins = agg.get("leader_hands"), agg.get("leader_wins")
    first_matches = agg.get("first_leader_matches")
    first_wins = agg.get("first_leader_match_wins")
    rate, finite = stats.rate, stats.finite
    return {
        "domino_rate": finite(rate(agg.get("domino"), hands)),
        "blocked_rate": finite(rate(agg.get("blocked"), hands)),
        "target_rate": finite(rate(agg.get("target"), hands)),
        "hand_tie_rate": finite(rate(agg.get("hand_ties"), hands)),
        "mean_hand_length": finite(rate(agg.get("hand_length_sum"), scored)),
        "median_hand_length": finite(stats.hist_quantile(hand_lengths, 0.5)),
        "p90_hand_length": finite(stats.hist_quantile(hand_lengths, 0.9)),
        "mean_turns": finite(rate(agg.get("turns_sum"), scored)),
        "median_turns": finite(stats.hist_quantile(turns, 0.5)),
        "p90_turns": finite(stats.hist_quantile(turns, 0.9)),
        "mean_draws": finite(rate(agg.get("draws_sum"), hands)),
        "mean_passes": finite(rate(agg.get("passes_sum"), hands)),
        "leader_win_rate": finite(rate(lead_wins, lead_hands)),
        "leader_win_ci": stats.interval(stats.wilson(lead_wins, lead_hands)),
        "leader_baseline": 1 / sides,
        "first_leader_match_win_rate": finite(rate(first_wins, first_matches)),
        "first_leader_match_win_ci": stats.interval(stats.wilson(first_wins, first_matches)),
        "first_leader_match_advantage": finite(rate(first_wins, first_matches) - 1 / sides),
        "match_tie_rate": finite(rate(agg.get("match_ties"), matches)),
        "mean_match_length": finite(stats.hist_mean(match_lengths, 1)),
        "median_match_length": finite(stats.hist_quantile(match_lengths, 0.5, 1)),
        "p90_match_length": finite(stats.hist_quantile(match_lengths, 0.9, 1)),
    }


def _strategy_rows(agg: Aggregates, seats: list, rotations: list, sides: int, players: int):
    """Per strategy label: its seats, hands and matches played and won (with intervals) and
    its mean points per hand."""
    rows = []
    for label in dict.fromkeys(seats):
        cells = [(r, s) for r in rotations for s, y in enumerate(seating(seats, r)) if y == label]
        seat_hands = sum(agg.get("seat_hands", r, s) for r, s in cells)
        hand_wins = sum(agg.get("seat_hand_wins", r, s) for r, s in cells)
        seat_matches = sum(agg.get("seat_matches", r, s) for r, s in cells)
        match_wins = sum(agg.get("seat_match_wins", r, s) for r, s in cells)
        seat_points = sum(agg.get("seat_points", r, s) for r, s in cells)
        n_seats = seats.count(label)
        # (a partnership's seats: its intervals count each of its hands once)
        one = n_seats if _one_side(sides, players, cells, rotations) else 1
        # fmt: off
        rows.append({
            "strategy": label,
            "seats": n_seats,
            "seat_hands": seat_hands,
            "hand_wins": hand_wins,
            "hand_win_rate": stats.finite(stats.rate(hand_wins, seat_hands)),
            "hand_win_ci": stats.interval(stats.wilson(hand_wins // one, seat_hands // one)),
            "seat_matches": seat_matches,
            "match_wins": match_wins,
            "match_win_rate": stats.finite(stats.rate(match_wins, seat_matches)),
            "match_win_ci": stats.interval(stats.wilson(match_wins // one, seat_matches // one)),
            "mean_points": stats.finite(stats.rate(seat_points, seat_hands)),
        })
        # fmt: on
    return rows


def _seat_rows(agg: Aggregates, players: int, rotations: list) -> list[dict]:
    """Per seat, whoever sat there: its hand and match win rates (seat advantage)."""
    rows = []
    for s in range(players):
        seat_hands = sum(agg.get("seat_hands", r, s) for r in rotations)
        hand_wins = sum(agg.get("seat_hand_wins", r, s) for r in rotations)
        seat_matches = sum(agg.get("seat_matches", r, s) for r in rotations)
        match_wins = sum(agg.get("seat_match_wins", r, s) for r in rotations)
        # fmt: off
        rows.append({
            "seat": s,
            "hand_win_rate": stats.finite(stats.rate(hand_wins, seat_hands)),
            "hand_win_ci": stats.interval(stats.wilson(hand_wins, seat_hands)),
            "match_win_rate": stats.finite(stats.rate(match_wins, seat_matches)),
            "match_win_ci": stats.interval(stats.wilson(match_wins, seat_matches)),
        })
        # fmt: on
    return rows


#: the sums of one pair's per-deal differences (the ``pair_*`` aggregates) a paired row is
#: computed from: key in :func:`pair_diffs` -> (metric, signed: flips with the pair's order)
PAIR_SUMS = {
    "deals": ("pair_deals", False),
    "hands": ("pair_hands", False),
    "hands_sq": ("pair_hands_sumsq", False),
    "hand": ("pair_hand_sum", True),
    "hand_sq": ("pair_hand_sumsq", False),
    "match": ("pair_match_sum", True),
    "match_sq": ("pair_match_sumsq", False),
    "points": ("pair_points_sum", True),
    "points_sq": ("pair_points_sumsq", False),
    "points_hands": ("pair_points_hands", True),
}


def pair_sums(agg: Aggregates, pair: str, sign: int = 1, into: dict | None = None) -> dict:
    """A pair's sums (:data:`PAIR_SUMS`) added to ``into``; ``sign`` -1 reads ``b vs a``."""
    out = into if into is not None else dict.fromkeys(PAIR_SUMS, 0)
    for key, (metric, signed) in PAIR_SUMS.items():
        out[key] += (sign if signed else 1) * agg.get(metric, pair=pair)
    return out


def _paired_rows(agg: Aggregates, seats: list, rotations: list, sense: str = "higher"):
    """Per pair of strategy labels that met on the same deals: the paired differences of
    their hand and match win rates and of their points per hand, with intervals."""
    labels = list(dict.fromkeys(seats))
    rows = []
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            pair = f"{a} vs {b}"
            if not agg.get("pair_deals", pair=pair):
                continue
            seatings = seats.count(a) * seats.count(b)
            sums = pair_sums(agg, pair)
            diffs = pair_diffs(sums, seatings, len(rotations), sense)
            rows.append({"a": a, "b": b, "rotations": len(rotations), **diffs})
    return rows


# ---------------------------------------------------------------------------------------------
# the analysis of compare / tune / tune-target (docs/compare.md)


def analysis(manifest: Manifest, aggregates: pd.DataFrame, data: Mapping) -> dict:
    """The ``analysis`` object of a compare / skill / tune / tune-target report
    (docs/compare.md, docs/skill.md): its registry row's ``report`` hook (a kind no row has:
    only its kind)."""
    a = manifest.analysis
    row = analyses.of_analysis(a)
    if row.report is None:
        return {"kind": a.get("kind")}
    return row.report(manifest, aggregates, data)


#: what each ranking metric (analyses.METRICS) compares (docs/compare.md, "Which metric")
METRIC_TEXT = {
    "hands": "hand wins",
    "points": "paired points per hand",
    "matches": "match wins",
}


def deciding_metric(rules: Mapping, unit: str) -> str:
    """What decides a game of ``rules`` played in ``unit``: match wins with unit match;
    with unit hand, the points per hand where the match is a race to a target (its points
    decide it), hand wins where a hand is the whole game (two-lane and ladder without
    ``cumulative_hands``, or ``target=none``)."""
    from dominosim.game.rules import NO_TARGET

    if unit == "match":
        return "matches"
    one_hand = rules["match_end"] == "one_hand" and int(rules.get("hands_per_match", 1)) <= 1
    return "hands" if one_hand or rules.get("target") == NO_TARGET else "points"


def ranking_metric(manifest: Manifest) -> tuple[str, bool]:
    """The metric a compare report ranks by and whether it is the default (the metric that
    decides the game: :func:`deciding_metric`; ``--metric`` chooses another)."""
    chosen = (manifest.analysis or {}).get("metric")
    if chosen is not None:
        if chosen not in analyses.METRICS:
            names = ", ".join(analyses.METRICS)
            raise ValueError(f"analysis metric {chosen!r} is not one of {names}")
        return str(chosen), False
    return deciding_metric(manifest.groups[0].rules, manifest.unit), True


def compare_analysis(manifest: Manifest, aggregates, data) -> dict:
    """``compare``'s analysis (its registry row's ``report`` hook), ranked by its metric."""
    return _compare(manifest, aggregates, data)


def _compare(
    manifest: Manifest, aggregates, data, metric: str | None = None, default: bool = True
) -> dict:
    """``compare``'s analysis: the win-rate matrix of every pair of strategies (on the ranking
    metric's wins: hands or matches; with points, the games' unit) and their paired points
    matrix, their paired differences pooled over the legs where they met, the ratings by the
    ranking metric (Bradley–Terry on hand or match wins; a least-squares fit of the paired
    points per hand) and the pairs whose metrics disagree. With unit hand every game is one
    hand: the paired rows (the groups' too) leave the match figures out (None)."""
    a = manifest.analysis
    names = list(a["strategies"])
    if metric is None:
        metric, default = ranking_metric(manifest)
    counted = metric if metric != "points" else "matches" if data["unit"] == "match" else "hands"
    wins, games = _win_matrix(names, data, counted)
    paired = _pooled_pairs(manifest, aggregates, data, names)
    if data["unit"] == "hand":  # (a match is a hand: its figures repeat the hand's)
        paired = [_hand_games(p) for p in paired]
        for g in data["groups"]:
            g["paired"] = [_hand_games(p) for p in g["paired"]]
    if metric == "points":
        ratings, regularized = _points_ratings(names, paired)
    else:
        ratings, regularized = _bt_ratings(names, wins)
    return {
        "kind": analyses.COMPARE.name,
        "strategies": names,
        "unit": data["unit"],
        "metric": metric,
        "metric_default": default,
        "legs": [list(x) for x in a.get("legs", [])],
        "games_requested": a.get("games_requested"),
        "matrix_metric": counted,
        "matrix": _matrix_cells(wins, games),
        "points_matrix": _points_cells(names, paired),
        "paired": paired,
        "ratings": ratings,
        "bt_regularized": regularized,
        "disagreements": disagreements(paired, data["unit"]),
    }


def _hand_games(p: dict) -> dict:
    """A paired row of games that are single hands: no match figures."""
    return {**p, "match_win_diff": None, "match_win_diff_ci": [None, None]}


def _bt_ratings(names: list, wins: np.ndarray) -> tuple[list[dict], bool]:
    """Bradley–Terry ratings of pairwise win counts, best first (Elo scale), with each
    strategy's wins and losses."""
    bt = stats.bradley_terry(wins)
    fit = (bt["rating"], bt["rating_ci"], bt["theta"], bt["se"])
    counts = [
        {"wins": int(wins[i].sum()), "losses": int(wins[:, i].sum())} for i in range(len(names))
    ]
    return _ranked(names, fit, counts), bt["regularized"]


def _ranked(names: list, fit: tuple, columns: list[dict]) -> list[dict]:
    """The rating rows of ``names``, best (highest theta) first: ``fit`` is (rating, its
    interval, theta, theta's standard error), one entry per name; ``columns``: each name's
    figures of the ranking metric (wins and losses; deals and points difference)."""
    rating, rating_ci, theta, theta_se = fit
    order = sorted(range(len(names)), key=lambda i: -theta[i])
    return [
        {
            "rank": r + 1,
            "strategy": names[i],
            "rating": stats.finite(rating[i]),
            "rating_ci": stats.interval(rating_ci[i]),
            "theta": stats.finite(theta[i]),
            "theta_se": stats.finite(theta_se[i]),
            **columns[i],
        }
        for r, i in enumerate(order)
    ]


def _points_ratings(names: list, paired: list) -> tuple[list[dict], bool]:
    """Ratings in points per hand, best first: strengths ``s`` (mean 0) fitted to every pair's
    paired points difference by weighted least squares (stats.paired_strengths; ``s_a - s_b``
    is the expected points per hand A gains on B), with each strategy's paired deals and its
    points difference per hand against its opponents (their pairs' differences weighted by
    deals; positive favours it)."""
    index = {x: i for i, x in enumerate(names)}
    pairs = [
        (index[p["a"]], index[p["b"]], p["points_diff"], _se(p["points_diff_ci"])) for p in paired
    ]
    fit = stats.paired_strengths(len(names), pairs)
    strength = fit["strength"]
    deals, total = [0] * len(names), [0.0] * len(names)
    for p in paired:
        if p["points_diff"] is not None:
            for x, sign in ((p["a"], 1), (p["b"], -1)):
                deals[index[x]] += p["deals"]
                total[index[x]] += sign * p["points_diff"] * p["deals"]
    # fmt: off
    columns = [{"deals": deals[i], "points_diff": stats.finite(stats.rate(total[i], deals[i]))}
               for i in range(len(names))]
    # fmt: on
    return _ranked(names, (strength, fit["ci"], strength, fit["se"]), columns), False


def _points_cells(names: list, paired: list) -> list[list]:
    """The paired points matrix: per (i, j) the points per hand i gains on j on the same
    deals (positive favours i), with its 95% interval and the deals; None on the diagonal."""
    index = {x: i for i, x in enumerate(names)}
    cells: list[list] = [[None] * len(names) for _ in names]
    for p in paired:
        i, j = index[p["a"]], index[p["b"]]
        d, (lo, hi) = p["points_diff"], p["points_diff_ci"]
        neg = [None if x is None else -x for x in (d, hi, lo)]
        cells[i][j] = {"points_diff": d, "points_diff_ci": [lo, hi], "deals": p["deals"]}
        cells[j][i] = {"points_diff": neg[0], "points_diff_ci": neg[1:], "deals": p["deals"]}
    return cells


def _se(ci) -> float:
    """The standard error behind a normal 95% interval (nan without one)."""
    lo, hi = ci
    return math.nan if lo is None or hi is None else (hi - lo) / (2 * stats.Z95)


#: a paired row's difference and interval per metric, and how the warning line shows it
_DIFF_KEYS = {"hands": "hand_win_diff", "matches": "match_win_diff", "points": "points_diff"}


def disagreements(paired: list, unit: str) -> list[dict]:
    """The pairs two of whose metrics point opposite ways with both 95% intervals excluding
    zero (hand wins, points per hand, and with unit match match wins): one entry per pair and
    pair of metrics, with both figures."""
    metrics = analyses.METRICS if unit == "match" else analyses.HAND_METRICS
    out = []
    for p in paired:
        side = {}
        for m in metrics:
            lo, hi = p[_DIFF_KEYS[m] + "_ci"]
            if lo is not None and hi is not None and (lo > 0 or hi < 0):
                side[m] = 1 if lo > 0 else -1
        for i, m1 in enumerate(metrics):
            for m2 in metrics[i + 1 :]:
                if m1 in side and m2 in side and side[m1] != side[m2]:
                    # fmt: off
                    out.append({
                        "a": p["a"], "b": p["b"], "metrics": [m1, m2],
                        m1: p[_DIFF_KEYS[m1]], f"{m1}_ci": p[_DIFF_KEYS[m1] + "_ci"],
                        m2: p[_DIFF_KEYS[m2]], f"{m2}_ci": p[_DIFF_KEYS[m2] + "_ci"],
                    })
                    # fmt: on
    return out


def _win_matrix(names: list, data, metric: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``wins[i, j]``: the games strategy i won with j at the table; ``games[i, j]``: the
    games i and j played at one table (games: matches, or hands with unit hand; ``metric``
    "hands" or "matches" chooses)."""
    index = {x: i for i, x in enumerate(names)}
    match = data["unit"] == "match" if metric is None else metric == "matches"
    wins = np.zeros((len(names), len(names)), dtype=np.int64)
    games = np.zeros((len(names), len(names)), dtype=np.int64)
    for g in data["groups"]:
        played = g["matches"] if match else g["hands"]
        for sx in g["strategies"]:
            won = (sx["match_wins"] if match else sx["hand_wins"]) // sx["seats"]
            for sy in g["strategies"]:
                if sy is not sx:
                    wins[index[sx["strategy"]], index[sy["strategy"]]] += won
                    games[index[sx["strategy"]], index[sy["strategy"]]] += played
    return wins, games


def _matrix_cells(wins: np.ndarray, games: np.ndarray) -> list[list]:
    """The matrix as the report holds it: per (i, j) i's wins, losses, games and win rate
    over the decided games (with its interval); None on the diagonal."""
    cells = []
    for i in range(len(wins)):
        row = []
        for j in range(len(wins)):
            if i == j:
                row.append(None)
                continue
            decided = int(wins[i, j] + wins[j, i])
            # fmt: off
            row.append({
                "wins": int(wins[i, j]), "losses": int(wins[j, i]), "games": int(games[i, j]),
                "win_rate": stats.finite(stats.rate(int(wins[i, j]), decided)),
                "win_ci": stats.interval(stats.wilson(int(wins[i, j]), decided)),
            })
            # fmt: on
        cells.append(row)
    return cells


def _pooled_pairs(manifest: Manifest, aggregates, data, names: list) -> list[dict]:
    """Per pairing, the paired differences pooled over the legs where the pair met."""
    by_index = {gd.index: gd for gd in manifest.groups}
    lookups = Aggregates.by_group(aggregates)
    aggs = {g["index"]: lookups.get(g["index"]) or Aggregates() for g in data["groups"]}
    sense = data["groups"][0]["points_sense"] if data["groups"] else "higher"
    paired = []
    for i, x in enumerate(names):
        for y in names[i + 1 :]:
            sums = dict.fromkeys(PAIR_SUMS, 0)
            seatings = rotations = 1
            for g in data["groups"]:
                agg = aggs[g["index"]]
                for pair, sign in ((f"{x} vs {y}", 1), (f"{y} vs {x}", -1)):
                    if not agg.get("pair_deals", pair=pair):
                        continue
                    pair_sums(agg, pair, sign, into=sums)
                    count = {s["strategy"]: s["seats"] for s in g["strategies"]}
                    seatings = count[x] * count[y]
                    rotations = len(manifest.rotations_of(by_index[g["index"]]))
            paired.append({"a": x, "b": y, **pair_diffs(sums, seatings, rotations, sense)})
    return paired


def pair_diffs(sums: dict, seatings: int, rotations: int, sense: str = "higher") -> dict:
    """The paired differences of hand and match win rates and of points per hand (with
    intervals) from the sums of per-deal differences: a rate per seat-hand and per match, and
    points per hand (signed so that a positive difference favours A: where points are
    penalties, ``sense`` "lower", A's fewer points)."""
    n = sums["deals"]
    hand_mean, hand_lo, hand_hi = stats.mean_ci(sums["hand"], sums["hand_sq"], n)
    match_mean, match_lo, match_hi = stats.mean_ci(sums["match"], sums["match_sq"], n)
    hand_scale = n / (seatings * sums["hands"]) if sums["hands"] else math.nan
    match_scale = 1 / (seatings * rotations)
    pts, pts_lo, pts_hi = _points_per_hand(sums, -1 if sense == "lower" else 1)
    finite = stats.finite
    return {
        "deals": int(n),
        "hand_win_diff": finite(hand_mean * hand_scale),
        "hand_win_diff_ci": [finite(hand_lo * hand_scale), finite(hand_hi * hand_scale)],
        "match_win_diff": finite(match_mean * match_scale),
        "match_win_diff_ci": [finite(match_lo * match_scale), finite(match_hi * match_scale)],
        "points_diff": finite(pts / seatings),
        "points_diff_ci": [finite(pts_lo / seatings), finite(pts_hi / seatings)],
    }


def _points_per_hand(sums: dict, sign: int) -> tuple[float, float, float]:
    """The paired points difference per hand, Σd / Σn over deals (d: a deal's points
    difference over its seatings and hands, n: its hands), with the ratio estimator's normal
    interval (deals are the independent units; stats.ratio_ci's variance). A folder written
    before these sums existed (no ``pair_hands_sumsq``) has them only where every deal was
    one hand per seating (unit hand); elsewhere nan."""
    m, n = sums["deals"], sums["hands"]
    d, d2, dn, n2 = (
        sign * sums["points"],
        sums["points_sq"],
        sign * sums["points_hands"],
        sums["hands_sq"],
    )
    if not m or not n:
        return (math.nan, math.nan, math.nan)
    if not n2:  # (older folder)
        if n % m or not d2 and not d:
            return (math.nan, math.nan, math.nan)
        n2, dn = n * n / m, d * n / m
    p = d / n
    if m < 2:
        return (p, math.nan, math.nan)
    var = max(0.0, d2 - 2 * p * dn + p * p * n2) / (n * n) * m / (m - 1)
    half = stats.Z95 * math.sqrt(var)
    return (p, p - half, p + half)


def skill_analysis(manifest: Manifest, aggregates, data) -> dict:
    """``dominosim skill``'s analysis (docs/skill.md; its registry row's ``report`` hook):
    the round robin's (win rates, paired differences, Bradley–Terry), each strategy against
    random (hand win rate and points per hand, with the paired difference from random's), and
    the share of deals the deal decided for the best heuristic against random and for mc
    against random."""
    a = manifest.analysis
    # (a folder from before skill took --metric has no key: it ranked by hand wins)
    metric, default = ranking_metric(manifest) if "metric" in a else ("hands", False)
    rr = _compare(manifest, aggregates, data, metric, default)
    lookups = Aggregates.by_group(aggregates)
    aggs = {g["index"]: lookups.get(g["index"]) or Aggregates() for g in data["groups"]}
    ladder = _ladder(manifest, data, aggs, rr)
    rates = {r["strategy"]: r["hand_win_rate"] or 0.0 for r in ladder}
    heuristics = set(classes_of(manifest)["heuristics"])
    best = max((x for x in rates if x in heuristics), key=lambda x: rates[x], default=None)
    # fmt: off
    decided = [{"pair": f"{x} / {RANDOM}", "strategy": x,
                **{k: r[k] for k in ("deals", "decided_share", "decided_ci")}}
               for x in (best, "mc") for r in ladder if r["strategy"] == x]
    # fmt: on
    accuracy = _accuracy(rr["strategies"], aggs)
    rated = {x["strategy"]: x for x in accuracy}
    for r in ladder:
        row = rated.get(r["strategy"], {"accuracy": None, "accuracy_ci": [None, None]})
        r["accuracy"], r["accuracy_ci"] = row["accuracy"], row["accuracy_ci"]
    return {
        "kind": analyses.SKILL.name,
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
        **{k: rr[k] for k in ("metric", "metric_default", "matrix_metric", "matrix")},
        "points_matrix": rr["points_matrix"],
        "paired": rr["paired"],
        "ratings": rr["ratings"],
        "bt_regularized": rr["bt_regularized"],
    }


def _ladder(manifest: Manifest, data, aggs: Mapping, rr: Mapping) -> list[dict]:
    """skill's ladder: each strategy against random (its table's hand win rate and points per
    hand, the paired differences from random's, the share of deals the deal decided)."""
    rot = {gd.index: len(manifest.rotations_of(gd)) for gd in manifest.groups}
    paired = {(p["a"], p["b"]): p for p in rr["paired"]}
    ladder = []
    for g in data["groups"]:
        st = {s["strategy"]: s for s in g["strategies"]}
        if RANDOM not in st or len(st) != 2:
            continue
        x = next(n for n in st if n != RANDOM)
        A, k = aggs[g["index"]], {n: st[n]["seats"] for n in st}
        pair = f"{x} vs {RANDOM}" if f"{x} vs {RANDOM}" in _pairs(A) else f"{RANDOM} vs {x}"
        sign = 1 if pair.startswith(f"{x} vs") else -1
        n = A.get("pair_deals", pair=pair)
        pm, plo, phi = stats.mean_ci(
            sign * A.get("pair_points_sum", pair=pair), A.get("pair_points_sumsq", pair=pair), n
        )
        scale = 1 / (k[x] * k[RANDOM] * rot[g["index"]])
        diff = paired.get((x, RANDOM)) or _flip(paired.get((RANDOM, x)))
        seated, decided = A.get("deals_seated"), A.get("deals_decided")
        # fmt: off
        ladder.append({
            "strategy": x,
            "perfect_information": x in data.get("perfect_information_strategies", ()),
            "deals": int(n),
            "hand_win_rate": st[x]["hand_win_rate"], "hand_win_ci": st[x]["hand_win_ci"],
            "random_hand_win_rate": st[RANDOM]["hand_win_rate"],
            "hand_win_diff": diff["hand_win_diff"], "hand_win_diff_ci": diff["hand_win_diff_ci"],
            "points_per_hand": st[x]["mean_points"],
            "random_points_per_hand": st[RANDOM]["mean_points"],
            "points_diff": stats.finite(pm * scale),
            "points_diff_ci": [stats.finite(plo * scale), stats.finite(phi * scale)],
            "deals_decided": int(decided),
            "decided_share": stats.finite(stats.rate(decided, seated)),
            "decided_ci": stats.interval(stats.wilson(decided, seated)),
        })
        # fmt: on
    return ladder


def _accuracy(names, aggs) -> list[dict]:
    """Each strategy's decision accuracy, where rated: the share of its decisions with a real
    choice that the solver rates optimal on the true deal, with a 95% interval clustered by
    hand (stats.ratio_ci)."""
    out = []
    for x in names:
        A = next((A for A in aggs.values() if A.get("acc_hands", pair=x)), None)
        if A is None:
            continue
        v = {
            k: A.get(f"acc_{k}", pair=x)
            for k in ("optimal", "rated", "o2", "on", "n2", "hands", "decisions")
        }
        p, lo, hi = stats.ratio_ci(v["optimal"], v["rated"], v["o2"], v["on"], v["n2"], v["hands"])
        # fmt: off
        out.append({
            "strategy": x, "hands": int(v["hands"]), "decisions": int(v["decisions"]),
            "rated": int(v["rated"]), "optimal": int(v["optimal"]), "accuracy": stats.finite(p),
            "accuracy_ci": stats.interval((lo, hi)),
        })
        # fmt: on
    return out


def _perfect_information(manifest: Manifest, aggs) -> dict | None:
    """The solver's value of the deals (the leader's side; the paranoid bound with three or
    more sides), or None where the run did not solve them."""
    budget = int(manifest.analysis.get("solve_budget", 0))
    if not budget or not aggs:
        return None
    A = aggs[min(aggs)]
    n, ok = A.get("pi_deals"), A.get("pi_solved")
    wins = A.get("pi_leader_wins")
    m, lo, hi = stats.mean_ci(A.get("pi_value_sum"), A.get("pi_value_sumsq"), ok)
    rules = manifest.groups[0].rules
    sides = 2 if rules["partnership"] else manifest.players
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


def _rules(rules: Mapping) -> Rules:
    """The Rules of a manifest's rules entry."""
    from dominosim.game.rules import Rules

    fields = {k: v for k, v in rules.items() if k != "options"}
    return Rules(**fields, options=tuple(rules.get("options", {}).items()))
