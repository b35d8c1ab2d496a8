"""Figures of a run (matplotlib, Agg backend, imported only when plots are written).

* ``hand_length.png``: distribution of hand length (domino and blocked hands), one line per
  option group;
* ``turns.png``: the same for turns;
* ``win_rates.png``: hand win rate of each strategy per group with its Wilson 95% interval;
* ``match_length.png``: distribution of match length in hands (``unit = "match"`` only);
* ``compare``: ``win_matrix.png``, the heatmap of the round robin's win rates (row vs column);
* ``tune`` / ``tune-target``: ``sweep_win_rate.png`` (match win rate of each strategy per value
  with Wilson 95% intervals) and ``sweep_match_length.png`` (mean, median, p90 match length);
  for ``tune-target`` the x axis is the target and the win-rate plot marks ``--share``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _hist(aggregates, group: int, metric: str, lo: int, hi: int) -> list[int]:
    a = aggregates[(aggregates["group"] == group) & (aggregates["metric"] == metric)]
    d = dict(zip(a["bin"].tolist(), a["value"].tolist(), strict=True))
    return [int(d.get(i, 0)) for i in range(lo, hi + 1)]


def _dist_plot(plt, data, aggregates, metric, lo, hi, xlabel, path: Path) -> None:
    fig, ax = plt.subplots(figsize=(7, 4))
    top = lo
    for g in data["groups"]:
        h = _hist(aggregates, g["index"], metric, lo, hi)
        n = sum(h)
        if not n:
            continue
        last = max(i for i, c in enumerate(h) if c) + lo
        top = max(top, last)
        ax.plot(range(lo, hi + 1), [c / n for c in h], marker=".", label=g["label"])
    ax.set_xlim(lo - 0.5, top + 0.5)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("share")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_plots(data: Mapping, aggregates, folder: str | Path) -> list[Path]:
    """Write the figures of a report into ``folder``; returns their paths."""
    from .runner import HAND_LEN_BINS, MATCH_LEN_MAX, TURN_BINS

    plt = _plt()
    folder = Path(folder)
    paths = []
    p = folder / "hand_length.png"
    _dist_plot(plt, data, aggregates, "hand_length_hist", 0, HAND_LEN_BINS - 1,
               "hand length (tiles placed), domino and blocked hands", p)  # fmt: skip
    paths.append(p)
    p = folder / "turns.png"
    _dist_plot(plt, data, aggregates, "turns_hist", 0, TURN_BINS - 1,
               "turns per hand, domino and blocked hands", p)  # fmt: skip
    paths.append(p)
    if data["unit"] == "match":
        p = folder / "match_length.png"
        _dist_plot(plt, data, aggregates, "match_length_hist", 1, MATCH_LEN_MAX,
                   "match length (hands)", p)  # fmt: skip
        paths.append(p)

    fig, ax = plt.subplots(figsize=(7, 0.6 + 0.45 * sum(len(g["strategies"])
                                                        for g in data["groups"])))  # fmt: skip
    names, rates, err_lo, err_hi = [], [], [], []
    for g in data["groups"]:
        for s in g["strategies"]:
            r = s["hand_win_rate"]
            lo, hi = s["hand_win_ci"]
            if r is None:
                continue
            names.append(f"{g['label']}: {s['strategy']}")
            rates.append(r)
            err_lo.append(max(0.0, r - lo))  # rounding may put r a hair outside
            err_hi.append(max(0.0, hi - r))
    ax.barh(range(len(names)), rates, xerr=[err_lo, err_hi], color="tab:blue", alpha=0.7,
            capsize=3)  # fmt: skip
    ax.set_yticks(range(len(names)), names, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("hand win rate per seat-hand (Wilson 95%)")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    p = folder / "win_rates.png"
    fig.savefig(p, dpi=100)
    plt.close(fig)
    paths.append(p)
    a = data.get("analysis")
    if a and a.get("kind") == "compare":
        paths.append(_heatmap(plt, a, folder / "win_matrix.png"))
    elif a and a.get("kind") in ("tune", "tune-target"):
        paths += _sweep_plots(plt, a, folder)
    return paths


def _heatmap(plt, a: Mapping, path: Path) -> Path:
    import numpy as np

    names = a["strategies"]
    K = len(names)
    M = np.full((K, K), np.nan)
    for i, row in enumerate(a["matrix"]):
        for j, c in enumerate(row):
            if c is not None and c["win_rate"] is not None:
                M[i, j] = c["win_rate"]
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * K, 1.2 + 0.9 * K))
    im = ax.imshow(M, cmap="RdBu", vmin=0, vmax=1)
    for i in range(K):
        for j in range(K):
            c = a["matrix"][i][j]
            if c is not None and c["win_rate"] is not None:
                lo, hi = c["win_ci"]
                ax.text(j, i, f"{100 * c['win_rate']:.1f}%\n[{100 * lo:.1f}, {100 * hi:.1f}]",
                        ha="center", va="center", fontsize="x-small")  # fmt: skip
    ax.set_xticks(range(K), names, rotation=30, ha="right")
    ax.set_yticks(range(K), names)
    ax.set_xlabel("against")
    ax.set_ylabel("strategy")
    ax.set_title("win rate of row against column (Wilson 95%)", fontsize="small")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def _sweep_plots(plt, a: Mapping, folder: Path) -> list[Path]:
    rows = a["rows"]
    target = a["kind"] == "tune-target"
    if target:
        rows = sorted(rows, key=lambda r: r["target"])
        xs = [r["target"] for r in rows]
    else:
        xs = list(range(len(rows)))
    out = []
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, name in enumerate(a["strategies"]):
        ys, lo, hi = [], [], []
        for r in rows:
            s = r["strategies"][i]
            y = s["match_win_rate"]
            ys.append(float("nan") if y is None else y)
            lo.append(0 if y is None else max(0.0, y - s["match_win_ci"][0]))
            hi.append(0 if y is None else max(0.0, s["match_win_ci"][1] - y))
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=name)
    if target and a.get("stronger"):
        ax.axhline(a["share"], color="grey", ls="--", lw=1, label=f"share {a['share']:g}")
    ax.set_xlabel(a.get("option", "target") if target else ", ".join(a.get("swept", ())))
    if not target:
        ax.set_xticks(xs, [r["value"] for r in rows], fontsize="small")
    ax.set_ylabel("match win rate per seat-match (Wilson 95%)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    p = folder / "sweep_win_rate.png"
    fig.savefig(p, dpi=100)
    plt.close(fig)
    out.append(p)
    fig, ax = plt.subplots(figsize=(7, 4))
    for key, label in (("mean_match_length", "mean"), ("median_match_length", "median"),
                       ("p90_match_length", "p90")):  # fmt: skip
        ax.plot(xs, [float("nan") if r[key] is None else r[key] for r in rows], marker="o",
                label=label)  # fmt: skip
    ax.set_xlabel(a.get("option", "target") if target else ", ".join(a.get("swept", ())))
    if not target:
        ax.set_xticks(xs, [r["value"] for r in rows], fontsize="small")
    ax.set_ylabel("match length (hands)")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    p = folder / "sweep_match_length.png"
    fig.savefig(p, dpi=100)
    plt.close(fig)
    out.append(p)
    return out
