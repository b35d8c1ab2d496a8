"""Figures of a run (matplotlib, Agg backend, imported only when plots are written).

* ``hand_length.png``: distribution of hand length (domino and blocked hands), one line per
  option group;
* ``turns.png``: the same for turns;
* ``win_rates.png``: hand win rate of each strategy per group with its Wilson 95% interval;
* ``match_length.png``: distribution of match length in hands (``unit = "match"`` only).
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
            err_lo.append(r - lo)
            err_hi.append(hi - r)
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
    return paths
