"""The figures of a run (dominosim/analysis/plots.py): every figure type is drawn from a small real run,
opened as an image, and checked for its size and that it is not blank; and the scales the
figures promise (axis over the data, colour scale centred on 50%)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from dominosim.cli import main

# fmt: off
RUNS = {
    "run": ["run", "--variant", "fives", "--set", "fives.reserve_k=0,2", "--strategies",
            "greedy,random", "--games", "40", "--unit", "match"],
    "compare": ["compare", "--variant", "fives", "--strategies", "random,greedy,heaviest",
                "--games", "60"],
    "tune": ["tune", "--variant", "sniff", "--set", "sniff.us_sniff_counting=off,on",
             "--strategies", "heaviest,random", "--games", "10"],
    "tune-target": ["tune-target", "--variant", "fives", "--strategies", "greedy,random",
                    "--targets", "10,25", "--games", "20"],
}
# fmt: on
# fmt: off
FIGURES = {
    "run": ["hand_length", "turns", "match_length", "win_rates"],
    "compare": ["hand_length", "turns", "win_rates", "win_matrix"],
    "tune": ["hand_length", "turns", "match_length", "win_rates", "sweep_win_rate",
             "sweep_match_length"],
    "tune-target": ["sweep_win_rate", "sweep_match_length", "sweep_hands_to_separate"],
}
# fmt: on


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("plots")
    dirs = {}
    for kind, args in RUNS.items():
        r = CliRunner().invoke(
            main, [*args, "--seed", "3", "--workers", "1", "--out", str(out / kind), "--json"]
        )
        assert r.exit_code == 0, r.output
        dirs[kind] = Path(json.loads(r.stdout)["run_dir"])
    return dirs


def image(path: Path) -> np.ndarray:
    import matplotlib.image as mpimg

    return mpimg.imread(path)[..., :3]


CASES = [(k, f) for k, figs in FIGURES.items() for f in figs]


@pytest.mark.parametrize(("kind", "figure"), CASES, ids=[f"{k}-{f}" for k, f in CASES])
def test_figure_is_drawn_and_not_blank(runs, kind, figure):
    img = image(runs[kind] / "plots" / f"{figure}.png")
    h, w, _ = img.shape
    assert 300 <= w <= 2000 and 200 <= h <= 2000, (w, h)
    ink = (img < 0.9).any(axis=2).mean()  # share of pixels that are not (near) white
    assert 0.02 < ink < 0.9, ink
    colours = len(np.unique((img * 255).astype(np.uint8).reshape(-1, 3), axis=0))
    assert colours > 20, colours  # text, lines and markers, not one flat colour


def test_distributions_cover_the_data_without_an_empty_half(runs, monkeypatch):
    """hand_length.png's x axis reaches past the longest hand and starts near the shortest."""
    import pandas as pd

    import dominosim.analysis.plots as P
    from dominosim import runner as RN
    from dominosim.analysis.aggregates import Aggregates

    d = runs["run"]
    data = RN.load_report(d)
    agg = pd.read_parquet(d / "aggregates.parquet")
    seen = {}
    real = P._save

    def spy(plt, fig, path):
        seen["x"] = fig.axes[0].get_xlim()
        return real(plt, fig, path)

    monkeypatch.setattr(P, "_save", spy)
    lookups = Aggregates.by_group(agg)
    P._dist_plot(P._plt(), data, lookups, ("hand_length_hist", 0, 28), ("x", "t"), d / "unused.png")
    bins = agg[agg["metric"] == "hand_length_hist"]["bin"]
    lo, hi = seen["x"]
    assert hi > bins.max() + 0.5 and lo < bins.min() - 0.5
    assert bins.min() - lo <= 2 + 0.03 * (bins.max() - bins.min()) + 0.5


def test_win_matrix_scale_is_centred_and_narrow(runs, monkeypatch):
    """47% and 53% get visibly different colours: the scale is centred on 50% and only as wide
    as the data (multiples of 5 points)."""
    import matplotlib.colors as C

    import dominosim.analysis.plots as P

    norms = []
    real = C.TwoSlopeNorm

    def spy(**kw):
        norms.append(kw)
        return real(**kw)

    monkeypatch.setattr(C, "TwoSlopeNorm", spy)
    cell = {"win_rate": 0.53, "win_ci": [0.5, 0.56]}
    back = {"win_rate": 0.47, "win_ci": [0.44, 0.5]}
    a = {"strategies": ["a", "b"], "matrix": [[None, cell], [back, None]]}
    P._heatmap(P._plt(), a, runs["compare"] / "plots" / "matrix-test.png")
    (kw,) = norms
    assert kw["vcenter"] == 0.5 and kw["vmin"] == pytest.approx(0.45)
    assert kw["vmax"] == pytest.approx(0.55)


def test_a_distribution_of_many_groups_names_none_and_still_fits(runs, tmp_path):
    """A skill ladder's dozens of legs in one distribution figure: no legend (it cannot fit,
    and matplotlib warned that the layout failed), the count in the title instead."""
    import warnings

    import pandas as pd

    import dominosim.analysis.plots as P
    from dominosim import runner as RN
    from dominosim.analysis.aggregates import Aggregates

    d = runs["run"]
    data = RN.load_report(d)
    g = data["groups"][0]
    many = {**data, "groups": [{**g, "label": f"leg {i}"} for i in range(P.LEGEND_MAX + 1)]}
    lookups = Aggregates.by_group(pd.read_parquet(d / "aggregates.parquet"))
    titles = []
    real = P._save

    def spy(plt, fig, path):
        titles.append((fig.axes[0].get_title(), fig.axes[0].get_legend()))
        return real(plt, fig, path)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P._save, saved = spy, P._save
        try:
            P._dist_plot(
                P._plt(), many, lookups, ("hand_length_hist", 0, 28), ("x", "t"), tmp_path / "a.png"
            )
            P._dist_plot(
                P._plt(), data, lookups, ("hand_length_hist", 0, 28), ("x", "t"), tmp_path / "b.png"
            )
        finally:
            P._save = saved
    assert titles[0] == (f"t ({P.LEGEND_MAX + 1} groups, too many to name)", None)
    assert titles[1][0] == "t" and titles[1][1] is not None
