"""The sweeps' sections of a report: ``tune`` over option values and ``tune-target`` over
match targets (docs/compare.md; their registry rows, :mod:`dominosim.analysis.analyses`).
Computed from the manifest and the aggregates only, as the rest of the report."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from dominosim.analysis import stats
from dominosim.game import variants

if TYPE_CHECKING:
    from dominosim.analysis.manifest import Manifest


def _value_label(manifest: Manifest, g, analysis, target: bool) -> str:
    gd = manifest.group(g["index"])
    if target:
        return str(gd.rules["target"])
    opts = variants.options_of(gd.variant)
    parts = []
    for opt in analysis.get("swept", ()):
        if opt in gd.options:
            v = gd.options[opt]
        else:
            v = opts[opt].default
            if isinstance(v, tuple):
                v = v[manifest.players - 2]
        parts.append(f"{opt}={variants.format_value(v)}")
    return ", ".join(parts) or gd.label


def tune_analysis(manifest: Manifest, aggregates, data) -> dict:
    """``tune``'s analysis (its registry row's ``report`` hook): :func:`_sweep` of its
    option groups."""
    return _sweep(manifest, data, target=False)


def tune_target_analysis(manifest: Manifest, aggregates, data) -> dict:
    """``tune-target``'s analysis (its registry row's ``report`` hook): :func:`_sweep` of its
    targets."""
    return _sweep(manifest, data, target=True)


def _sweep(manifest: Manifest, data, target: bool) -> dict:
    """``tune`` / ``tune-target``'s analysis: each option group's row side by side, the
    strategy stronger over all groups, and (tune-target, ``target``) the smallest target at
    which it wins ``share`` of the matches with confidence."""
    a = manifest.analysis
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
    rows = [_sweep_row(manifest, g, names, stronger, target) for g in groups]
    out = {
        "kind": kind,
        "strategies": names,
        "pooled_match_win_rate": pooled,
        "stronger": stronger,
        "rows": rows,
    }
    if not target:
        out["swept"] = list(a.get("swept", ()))
    else:
        out.update(_smallest_target(rows, stronger, float(a["share"]), a["option"]))
    return out


_SWEEP_STRATEGY_KEYS = (
    "strategy",
    "match_win_rate",
    "match_win_ci",
    "hand_win_rate",
    "hand_win_ci",
    "seat_matches",
)


def _sweep_row(
    manifest: Manifest, g: Mapping, names: list, stronger: str | None, target: bool
) -> dict:
    """One option group's row of a sweep (``target``: of tune-target's)."""
    by_label = {s["strategy"]: s for s in g["strategies"]}
    # fmt: off
    row = {
        "group": g["index"],
        "label": g["label"],
        "value": _value_label(manifest, g, manifest.analysis, target),
        "strategies": [{k: by_label[x][k] for k in _SWEEP_STRATEGY_KEYS} for x in names],
        "stronger": stronger,
        "stronger_match_win_rate": by_label[stronger]["match_win_rate"] if stronger else None,
        "stronger_match_win_ci": (by_label[stronger]["match_win_ci"] if stronger
                                  else [None, None]),
        "paired": g["paired"],
        "leading_side_match_win_rate": g["first_leader_match_win_rate"],
        "leading_side_match_win_ci": g["first_leader_match_win_ci"],
        "leading_side_match_advantage": g["first_leader_match_advantage"],
        "baseline": 1 / g["sides"],
        **{k: g[k] for k in ("matches", "hands", "mean_match_length", "median_match_length",
                             "p90_match_length", "blocked_rate", "mean_hand_length",
                             "match_tie_rate")},
    }
    # fmt: on
    if target:
        gd = manifest.group(g["index"])
        row["target"] = int(gd.rules["target"])
        row["label"] = _target_label(g["label"], manifest.analysis["option"], row["target"])
        lo, hi = row["stronger_match_win_ci"]
        rate, length = row["stronger_match_win_rate"], row["mean_match_length"]
        need = [_hands_to_separate(x, row["baseline"], length) for x in (rate, hi, lo)]
        row["hands_to_separate"] = need[0]
        row["hands_to_separate_ci"] = _around(need[0], need[1], need[2])
    return row


def _around(estimate: float | None, lo: float | None, hi: float | None) -> list:
    """The interval ``[lo, hi]`` of the hands to separate held around its estimate: the
    Wilson bound a rate of 1 (a side that wins every match) meets its rate at can fall a
    rounding below it, which would put the interval's lower end above the estimate. None
    stays None (an open upper end, or no estimate)."""
    if estimate is None:
        return [lo, hi]
    return [None if lo is None else min(lo, estimate), None if hi is None else max(hi, estimate)]


def _target_label(label: str, option: str, target: int) -> str:
    """A target sweep's row label names its target, the default's too (``fives[target=25]``,
    not ``fives``)."""
    if f"{option}=" in label:
        return label
    name, _, rest = label.partition("[")
    return f"{name}[{rest[:-1]},{option}={target}]" if rest else f"{name}[{option}={target}]"


def _hands_to_separate(rate: float | None, baseline: float, match_length: float | None):
    """The hands of play needed before the stronger side is told apart at 95%: the matches
    ``n`` at which the Wilson 95% lower bound of a match win rate ``rate`` reaches the
    ``baseline`` b (the score test of the rate against b: ``n = 1.96² b (1 − b) / (p − b)²``),
    times the mean match length in hands. None where the rate is at the baseline (or below,
    or unknown)."""
    if rate is None or match_length is None or rate <= baseline:
        return None
    n = stats.Z95**2 * baseline * (1 - baseline) / (rate - baseline) ** 2
    return stats.finite(n * match_length)


def _smallest_target(rows: list, stronger: str | None, share: float, option) -> dict:
    """tune-target: the targets in order, the smallest at which the stronger strategy's match
    win rate has a Wilson lower bound of at least ``share``, and the sentence that says it."""
    by_target = sorted(rows, key=lambda r: r["target"])
    # fmt: off
    hit = [r["target"] for r in by_target
           if stronger and r["stronger_match_win_ci"][0] is not None
           and r["stronger_match_win_ci"][0] >= share]
    # fmt: on
    out = {
        "option": option,
        "targets": [r["target"] for r in by_target],
        "share": share,
        "smallest_target": hit[0] if hit else None,
    }
    out["fastest_target"], fastest = _fastest(by_target, stronger)
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
            f"{stronger}'s match win rate (largest target {by_target[-1]['target']})."
        )
    out["fastest_sentence"] = fastest
    return out


def _fastest(rows: list, stronger: str | None) -> tuple[int | None, str]:
    """The target whose matches tell the stronger strategy apart in the fewest hands of play,
    and the sentence that names it."""
    known = [r for r in rows if r["hands_to_separate"] is not None]
    if stronger is None or not known:
        return None, (
            "No target told the strategies apart (no match win rate above the baseline), "
            "so none shows skill fastest."
        )
    best = min(known, key=lambda r: (r["hands_to_separate"], r["target"]))
    lo, hi = best["hands_to_separate_ci"]
    span = f"95% interval {lo:,.0f} to {hi:,.0f}" if hi is not None else f"at least {lo:,.0f}"
    return best["target"], (
        f"Skill shows fastest at target {best['target']}: about "
        f"{best['hands_to_separate']:,.0f} hands of play ({span}) tell {stronger} apart at 95%, "
        f"the fewest of the {len(rows)} targets."
    )
