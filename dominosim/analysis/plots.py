"""Figures of a run (matplotlib, Agg backend, imported only when plots are written).

* ``hand_length.png``: distribution of hand length (domino and blocked hands), one line per
  option group, the x axis over the lengths that occur (first to last, with a margin);
* ``turns.png``: the same for turns;
* ``win_rates.png``: each strategy's hand win rate per group with its Wilson 95% interval, and
  its match win rate beside it where the run plays matches; the baseline 1 / sides drawn; the
  axis spans the intervals (not always from 0), so differences show; round robins label a row
  by its table (``greedy (vs random)``), not by the variant again;
* ``match_length.png``: distribution of match length in hands (``unit = "match"`` only);
* ``compare``: ``win_matrix.png``, the heatmap of the round robin's win rates (row vs column),
  its colour scale centred on 50% and only as wide as the data (at least ±5 points), so 47%
  and 53% look different;
* ``tune`` / ``tune-target``: ``sweep_win_rate.png`` (match win rate of each strategy per value
  with Wilson 95% intervals) and ``sweep_match_length.png`` (mean, median, p90 match length);
  option values are categories (markers side by side, no joining lines); for ``tune-target``
  the x axis is the target (numbers, joined) and the win-rate plot marks ``--share``. Axes
  leave a margin, so no marker is cut at the edge.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from dominosim.analysis import analyses
from dominosim.analysis.aggregates import HAND_LEN_BINS, MATCH_LEN_MAX, TURN_BINS, Aggregates
from dominosim.analysis.render import mark

DPI = 100
LEGEND_MAX = 12  # the most groups a distribution figure names in its legend


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _hist(lookups: Mapping, group: int, metric: str, lo: int, hi: int) -> list[int]:
    agg = lookups.get(group)
    return agg.hist(metric, lo, hi) if agg is not None else [0] * (hi - lo + 1)


def _save(plt, fig, path: Path) -> Path:
    import warnings

    with warnings.catch_warnings():  # (a label in a script the font lacks: boxes, no warning)
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from", category=UserWarning)
        fig.tight_layout()
        fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _dist_plot(plt, data, aggregates, bins: tuple, text: tuple, path: Path) -> Path:
    """The distribution of a histogram metric by group: ``bins`` is (metric, lo, hi), ``text``
    (x label, title)."""
    from matplotlib.ticker import MaxNLocator

    (metric, lo, hi), (xlabel, title) = bins, text
    fig, ax = plt.subplots(figsize=(7, 4))
    first, last = hi, lo
    many = len(data["groups"]) > 1
    for g in data["groups"]:
        h = _hist(aggregates, g["index"], metric, lo, hi)
        n = sum(h)
        if not n:
            continue
        nz = [i + lo for i, c in enumerate(h) if c]
        first, last = min(first, nz[0]), max(last, nz[-1])
        ax.plot(
            range(lo, hi + 1),
            [100 * c / n for c in h],
            drawstyle="steps-mid" if not many else "default",
            label=g["label"],
        )
    if first > last:  # nothing to show
        first, last = lo, lo + 1
    pad = max(1, round(0.03 * (last - first)))
    ax.set_xlim(max(lo - 0.5, first - pad - 0.5), last + pad + 0.5)
    ax.set_ylim(bottom=0)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share of hands (%)" if "hand" in metric or "turn" in metric else "share (%)")
    shown = len(data["groups"]) <= LEGEND_MAX  # (a skill ladder's dozens of legs: no room)
    more = "" if shown else f" ({len(data['groups'])} groups, too many to name)"
    ax.set_title(title + more, fontsize="medium")
    if data["groups"] and shown:
        ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    return _save(plt, fig, path)


def _row_label(data: Mapping, g: Mapping, s: Mapping) -> str:
    """A short row label: in a round robin the strategy and its opponents at that table;
    with several option groups the group label and the strategy; else the strategy."""
    name = mark(data, s["strategy"])
    if g.get("seat_list"):
        others = [x for x in dict.fromkeys(g["seat_list"]) if x != s["strategy"]]
        return f"{name} (vs {', '.join(mark(data, o) for o in others)})" if others else name
    if len(data["groups"]) > 1:
        return f"{g['label']}: {name}"
    return name


def _win_rates(plt, data: Mapping, path: Path) -> Path:
    rows = []  # (label, sides, [(kind, rate, lo, hi), ...])
    matches = data["unit"] == "match"
    for g in data["groups"]:
        for s in g["strategies"]:
            vals = []
            for kind, key in (("hand", "hand_win"), ("match", "match_win")):
                if kind == "match" and not matches:
                    continue
                r = s.get(f"{key}_rate")
                if r is not None:
                    lo, hi = s[f"{key}_ci"]
                    vals.append((kind, r, min(lo, r), max(hi, r)))
            if vals:
                rows.append((_row_label(data, g, s), g.get("sides") or data["players"], vals))
    fig, ax = plt.subplots(figsize=(7.5, 1.3 + 0.42 * max(1, len(rows)) * (1.5 if matches else 1)))
    style = {
        "hand": ("o", "tab:blue", "hand win rate"),
        "match": ("s", "tab:orange", "match win rate"),
    }
    seen = set()
    xs = []
    for i, (_, _, vals) in enumerate(rows):
        for j, (kind, r, lo, hi) in enumerate(vals):
            y = i + (0.18 * (2 * j - 1) if len(vals) > 1 else 0)
            marker, colour, label = style[kind]
            ax.errorbar(
                [r],
                [y],
                xerr=[[r - lo], [hi - r]],
                fmt=marker,
                color=colour,
                capsize=3,
                label=None if kind in seen else label,
            )
            seen.add(kind)
            xs += [lo, hi]
    for b in sorted({1 / sides for _, sides, _ in rows}):
        ax.axvline(b, color="grey", ls="--", lw=1, label=f"baseline 1/{round(1 / b)} = {b:.0%}")
        xs.append(b)
    if xs:
        lo, hi = min(xs), max(xs)
        pad = max(0.01, 0.08 * (hi - lo))
        ax.set_xlim(max(0.0, lo - pad), min(1.0, hi + pad))
    ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{100 * v:.0f}%"))
    ax.set_yticks(range(len(rows)), [r[0] for r in rows], fontsize="small")
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlabel("win rate per seat (Wilson 95%)")
    unit = "hands and matches" if matches else "hands"
    ax.set_title(f"{data.get('name', '')}: win rates over {unit}", fontsize="medium")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize="small", loc="best")
    return _save(plt, fig, path)


def write_plots(data: Mapping, aggregates, folder: str | Path) -> list[Path]:
    """Write the figures of a report into ``folder``; returns their paths. ``aggregates``: a
    DataFrame or rows, as :meth:`dominosim.aggregates.Aggregates.by_group` takes."""
    aggregates = Aggregates.by_group(aggregates)
    plt = _plt()
    folder = Path(folder)
    name = data.get("name", "")
    # fmt: off
    paths = [
        _dist_plot(plt, data, aggregates, ("hand_length_hist", 0, HAND_LEN_BINS - 1),
                   ("hand length (tiles placed)",
                    f"{name}: hand length, domino and blocked hands"),
                   folder / "hand_length.png"),
        _dist_plot(plt, data, aggregates, ("turns_hist", 0, TURN_BINS - 1),
                   ("turns per hand", f"{name}: turns per hand, domino and blocked hands"),
                   folder / "turns.png"),
    ]
    # fmt: on
    if data["unit"] == "match":
        paths.append(
            _dist_plot(
                plt,
                data,
                aggregates,
                ("match_length_hist", 1, MATCH_LEN_MAX),
                ("match length (hands)", f"{name}: match length"),
                folder / "match_length.png",
            )
        )
    paths.append(_win_rates(plt, data, folder / "win_rates.png"))
    a = data.get("analysis")
    row = analyses.of_analysis(a)
    if row.plots is not None:  # (the analysis's own figures: its registry row's hook)
        marked = {x: mark(data, x) for x in _named(data)}  # (its figures mark them too)
        paths += row.plots(plt, {**a, "marked": marked}, folder)
    return paths


def _named(data: Mapping) -> list[str]:
    """The strategies the report marks (perfect information, or not verifiable)."""
    return [*data.get("perfect_information_strategies", ()), *data.get("unverified_strategies", ())]


def _shown(a: Mapping, name: str) -> str:
    """A strategy's name in an analysis's figure, marked as the report marks it."""
    return a.get("marked", {}).get(name, name)


def compare_plots(plt, a: Mapping, folder: Path) -> list[Path]:
    """compare's figure (its registry row's ``plots`` hook): the matrix of the ranking
    metric, ``points_matrix.png`` where points per hand rank, else ``win_matrix.png``."""
    return [_matrix(plt, a, folder)]


def skill_plots(plt, a: Mapping, folder: Path) -> list[Path]:
    """skill's figures (its registry row's ``plots`` hook): the ranking metric's matrix (as
    compare's), the ladder."""
    return [_matrix(plt, a, folder), _ladder(plt, a, folder / "ladder.png")]


def _matrix(plt, a: Mapping, folder: Path) -> Path:
    """The round robin's matrix of the metric that ranks it."""
    if a.get("metric") == "points" and a.get("points_matrix") is not None:
        return _heatmap(plt, a, folder / "points_matrix.png", points=True)
    return _heatmap(plt, a, folder / "win_matrix.png")


def tune_plots(plt, a: Mapping, folder: Path) -> list[Path]:
    """tune's figures (its registry row's ``plots`` hook): the option groups side by side."""
    return _sweep_plots(plt, a, folder, target=False)


def tune_target_plots(plt, a: Mapping, folder: Path) -> list[Path]:
    """tune-target's figures (its registry row's ``plots`` hook): against the target."""
    return _sweep_plots(plt, a, folder, target=True)


def _ladder(plt, a: Mapping, path: Path) -> Path:
    """Each strategy against random, with its 95% interval: its hand win rate, or where
    points rank, its paired points per hand gained on random."""
    rows = a["ladder"]
    points = a.get("metric") == "points"
    key, ci, scale = (
        ("points_diff", "points_diff_ci", 1) if points else ("hand_win_rate", "hand_win_ci", 100)
    )
    fig, ax = plt.subplots(figsize=(6.4, 1.2 + 0.45 * max(1, len(rows))))
    for i, r in enumerate(rows):
        y, (lo, hi) = r[key], r[ci]
        if y is None or lo is None or hi is None:
            continue
        err = [[scale * max(0.0, y - lo)], [scale * max(0.0, hi - y)]]
        ax.errorbar(scale * y, i, xerr=err, fmt="o", color="C0", capsize=3)
    ax.axvline(0 if points else 50, color="0.6", lw=0.8)
    ax.set_yticks(range(len(rows)), [_shown(a, r["strategy"]) for r in rows])
    if points:
        ax.set_xlabel("points per hand gained on random (same deals), 95% interval")
    else:
        ax.set_xlabel("hand win rate against random (%), 95% interval")
    ax.set_title("the ladder: each strategy against random on the same deals")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def _cells(a: Mapping, points: bool):
    """The matrix's value, interval and text of each cell (None: none), and its centre."""
    if points:

        def text(v, lo, hi):
            return f"{v:+.2f}\n[{lo:+.2f}, {hi:+.2f}]"

        key, ci, centre, grid = "points_diff", "points_diff_ci", 0.0, a["points_matrix"]
    else:

        def text(v, lo, hi):
            return f"{100 * v:.1f}%\n[{100 * lo:.1f}, {100 * hi:.1f}]"

        key, ci, centre, grid = "win_rate", "win_ci", 0.5, a["matrix"]
    out = []
    for row in grid:
        cells = []
        for c in row:
            ok = c is not None and c[key] is not None and None not in c[ci]
            cells.append((c[key], text(c[key], *c[ci])) if ok else None)
        out.append(cells)
    return out, centre


def _heatmap(plt, a: Mapping, path: Path, points: bool = False) -> Path:
    """The matrix of row against column: win rates centred on 50% (``points``: the paired
    points per hand row gains, centred on 0), the colour scale only as wide as the data (at
    least ±5 points of win rate, ±0.5 points per hand), so small differences show."""
    import numpy as np
    from matplotlib.colors import TwoSlopeNorm

    names = a["strategies"]
    K = len(names)
    cells, centre = _cells(a, points)
    M = np.full((K, K), np.nan)
    for i, row in enumerate(cells):
        for j, c in enumerate(row):
            if c is not None:
                M[i, j] = c[0]
    dev = np.nanmax(np.abs(M - centre)) if np.isfinite(M).any() else 0.0
    step = 0.5 if points else 0.05  # (a multiple of it, at least one)
    half = max(step, float(np.ceil(dev / step) * step))
    norm = TwoSlopeNorm(vcenter=centre, vmin=centre - half, vmax=centre + half)
    fig, ax = plt.subplots(figsize=(2.2 + 1.2 * K, 1.4 + 0.95 * K))
    cmap = plt.get_cmap("RdBu").with_extremes(bad="0.9")
    im = ax.imshow(np.ma.masked_invalid(M), cmap=cmap, norm=norm)
    for i in range(K):
        for j in range(K):
            c = cells[i][j]
            if c is not None:
                dark = abs(c[0] - centre) > 0.6 * half
                colour = "white" if dark else "black"
                ax.text(j, i, c[1], ha="center", va="center", fontsize="x-small", color=colour)
    shown = [_shown(a, x) for x in names]
    ax.set_xticks(range(K), shown, rotation=30, ha="right")
    ax.set_yticks(range(K), shown)
    ax.set_xlabel("against")
    ax.set_ylabel("strategy")
    if points:
        title = "points per hand row gains on column, same deals (95%)"
    else:
        kind = "match" if a.get("matrix_metric") == "matches" else "hand"
        title = f"{kind} win rate of row against column (Wilson 95%)"
    ax.set_title(title, fontsize="small")
    cb = fig.colorbar(im, ax=ax, fraction=0.046)
    if not points:
        cb.ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{100 * v:.0f}%"))
    return _save(plt, fig, path)


def _margin_ylim(ax, values, lo: float | None = None, hi: float | None = None) -> None:
    vals = [v for v in values if v == v]  # (not NaN)
    if not vals:
        return
    a, b = min(vals), max(vals)
    pad = max(0.02 * (abs(b) or 1), 0.06 * (b - a))
    a, b = a - pad, b + pad
    ax.set_ylim(a if lo is None else max(lo, a), b if hi is None else min(hi, b))


def _sweep_plots(plt, a: Mapping, folder: Path, target: bool) -> list[Path]:
    """A sweep's figures: match win rates and match length by option value (``target``: by
    target, and the hands of play to tell the strategies apart)."""
    rows = a["rows"]
    if target:
        rows = sorted(rows, key=lambda r: r["target"])
        xs = [float(r["target"]) for r in rows]
    else:
        xs = [float(i) for i in range(len(rows))]
    xlabel = a.get("option", "target") if target else ", ".join(a.get("swept", ()))
    names = a["strategies"]
    width = 0.5 / max(1, len(names))  # categories: the strategies side by side
    out = []
    fig, ax = plt.subplots(figsize=(7, 4))
    ys_all: list[float] = []
    for i, name in enumerate(names):
        ys, lo, hi = [], [], []
        for r in rows:
            s = r["strategies"][i]
            y = s["match_win_rate"]
            ys.append(float("nan") if y is None else y)
            lo.append(0 if y is None else max(0.0, y - s["match_win_ci"][0]))
            hi.append(0 if y is None else max(0.0, s["match_win_ci"][1] - y))
            if y is not None:
                ys_all += list(s["match_win_ci"])
        shift = 0 if target else (i - (len(names) - 1) / 2) * width
        ax.errorbar(
            [x + shift for x in xs],
            ys,
            yerr=[lo, hi],
            marker="o",
            capsize=3,
            ls="-" if target else "none",
            label=_shown(a, name),
        )
    if target and a.get("stronger"):
        ax.axhline(a["share"], color="grey", ls="--", lw=1, label=f"share {a['share']:g}")
        ys_all.append(a["share"])
    _margin_ylim(ax, ys_all, -0.02, 1.02)
    _x_axis(ax, xs, rows, target, xlabel)
    ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{100 * v:.0f}%"))
    ax.set_ylabel("match win rate per seat-match (Wilson 95%)")
    ax.set_title(f"match win rate by {xlabel}", fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    out.append(_save(plt, fig, folder / "sweep_win_rate.png"))
    out.append(_match_length_plot(plt, rows, xs, target, xlabel, folder))
    if target:
        out.append(_hands_to_separate_plot(plt, a, rows, xs, folder))
    return out


def _match_length_plot(plt, rows: list, xs: list, target: bool, xlabel: str, folder: Path) -> Path:
    """A sweep's match length (mean, median, p90) by option value or target."""
    fig, ax = plt.subplots(figsize=(7, 4))
    vals: list[float] = []
    keys = (
        ("mean_match_length", "mean"),
        ("median_match_length", "median"),
        ("p90_match_length", "p90"),
    )
    for k, (key, label) in enumerate(keys):
        ys = [float("nan") if r[key] is None else float(r[key]) for r in rows]
        vals += ys
        shift = 0 if target else (k - 1) * 0.15
        ax.plot([x + shift for x in xs], ys, marker="o", ls="-" if target else "none", label=label)
    _margin_ylim(ax, [*vals, 0.0], lo=0.0)
    _x_axis(ax, xs, rows, target, xlabel)
    ax.set_ylabel("match length (hands)")
    ax.set_title(f"match length by {xlabel}", fontsize="medium")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    return _save(plt, fig, folder / "sweep_match_length.png")


def _hands_to_separate_plot(plt, a: Mapping, rows: list, xs: list, folder: Path) -> Path:
    """tune-target: the hands of play needed to tell the strategies apart at 95%, by target
    (with the interval from the match win rate's; an open upper end drawn to the top)."""
    fig, ax = plt.subplots(figsize=(7, 4))
    ys = [r["hands_to_separate"] for r in rows]
    ys = [float("nan") if y is None else float(y) for y in ys]
    top = max([y for y in ys if y == y] + [1.0]) * 3
    lo, hi = [], []  # (never negative: an interval from a received folder may be inverted)
    for y, r in zip(ys, rows, strict=True):
        low, high = r["hands_to_separate_ci"]
        lo.append(0.0 if y != y or low is None else max(0.0, y - low))
        hi.append(0.0 if y != y else max(0.0, (high or top) - y))
    stronger = a.get("stronger")
    ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=stronger or "_none")
    if a.get("fastest_target") is not None:
        ax.axvline(a["fastest_target"], color="grey", ls="--", lw=1, label="fewest hands")
    if any(y == y for y in ys):
        ax.set_yscale("log")
    _x_axis(ax, xs, rows, True, a.get("option", "target"))
    ax.set_ylabel("hands of play to tell apart at 95%")
    ax.set_title("hands until skill shows, by target", fontsize="medium")
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[1]:
        ax.legend(fontsize="small")
    return _save(plt, fig, folder / "sweep_hands_to_separate.png")


def _x_axis(ax, xs, rows, target: bool, xlabel: str) -> None:
    ax.set_xlabel(xlabel)
    if target:
        span = (max(xs) - min(xs)) or max(1.0, abs(xs[0]))
        ax.set_xlim(min(xs) - 0.06 * span, max(xs) + 0.06 * span)
        ax.set_xticks(xs, [f"{x:g}" for x in xs], fontsize="small")
    else:
        ax.set_xlim(-0.6, len(xs) - 0.4)
        ax.set_xticks(xs, [r["value"] for r in rows], fontsize="small")
        ax.grid(False, axis="x")
