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
    "compare-hands": ["compare", "--variant", "fives", "--strategies", "random,greedy",
                      "--games", "20", "--metric", "hands"],
    "tune": ["tune", "--variant", "sniff", "--set", "sniff.us_sniff_counting=off,on",
             "--strategies", "heaviest,random", "--games", "10"],
    "tune-target": ["tune-target", "--variant", "fives", "--strategies", "greedy,random",
                    "--targets", "10,25", "--games", "20"],
}
# fmt: on
# fmt: off
FIGURES = {
    "run": ["hand_length", "turns", "match_length", "win_rates"],
    "compare": ["hand_length", "turns", "win_rates", "points_matrix"],  # (points rank fives)
    "compare-hands": ["win_matrix"],
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


# ---------------------------------------------------------------------------------------------
# a finished analysis is never lost to its pictures (issue 46 point 1)


def _run_dir(r) -> Path:
    assert r.exit_code == 0, r.output
    return Path(json.loads(r.stdout)["run_dir"])


def test_a_plot_that_fails_is_one_warning_and_the_run_is_done(tmp_path, monkeypatch):
    import dominosim.analysis.plots as P

    def fail(*args, **kwargs):
        raise ValueError("a figure\nthat cannot be drawn")

    monkeypatch.setattr(P, "write_plots", fail)
    args = ["run", "--variant", "fives", "--games", "4", "--seed", "1", "--workers", "1"]
    r = CliRunner().invoke(main, [*args, "--out", str(tmp_path), "--json"])
    d = _run_dir(r)
    warnings = [x for x in r.stderr.splitlines() if x.startswith("warning:")]
    assert len(warnings) == 1 and "a figure that cannot be drawn" in warnings[0], r.stderr
    assert "ValueError" in warnings[0] and "--no-plots" in warnings[0]
    m = json.loads((d / "manifest.json").read_text())
    assert m["status"] == "done" and m["outputs"]["plots"] is False
    assert (d / "report.md").is_file() and (d / "summary.csv").is_file()
    assert not (d / "plots").exists() and not list(d.glob(".plots*"))
    again = CliRunner().invoke(main, ["run", "--resume", str(d), "--json"])  # (done: as it is)
    assert again.exit_code == 0 and "warning" not in again.stderr
    assert json.loads(again.stdout)["groups"] == json.loads(r.stdout)["groups"]


def test_a_side_that_wins_every_match_draws_its_hands_to_separate(tmp_path):
    """greedy wins every match at target 150 (the issue's run, smaller): the hands-to-separate
    interval meets its estimate at a rounding (lower end 1e-13 above it before the fix, and
    the figure's error bar was negative); the run is done, every figure drawn."""
    # fmt: off
    args = ["tune-target", "--variant", "fives", "--targets", "150", "--strategies",
            "greedy,random", "--games", "30", "--seed", "7", "--workers", "1"]
    # fmt: on
    r = CliRunner().invoke(main, [*args, "--out", str(tmp_path), "--json"])
    d = _run_dir(r)
    assert "warning" not in r.stderr, r.stderr
    (row,) = json.loads(r.stdout)["analysis"]["rows"]
    assert row["stronger_match_win_rate"] == 1.0
    lo, hi = row["hands_to_separate_ci"]
    assert lo <= row["hands_to_separate"] <= hi
    assert (d / "plots" / "sweep_hands_to_separate.png").is_file()
    assert json.loads((d / "manifest.json").read_text())["status"] == "done"


def test_the_hands_to_separate_figure_takes_an_inverted_interval(tmp_path):
    """A received report's interval may be inverted: the error bars are never negative."""
    import dominosim.analysis.plots as P

    # fmt: off
    rows = [{"target": 50, "value": "50", "hands_to_separate": 120.0,
             "hands_to_separate_ci": [120.0 + 1e-13, 119.0]},
            {"target": 100, "value": "100", "hands_to_separate": None,
             "hands_to_separate_ci": [None, None]}]
    # fmt: on
    a = {"stronger": "greedy", "fastest_target": 50, "option": "target"}
    path = P._hands_to_separate_plot(P._plt(), a, rows, [50.0, 100.0], tmp_path)
    assert path.is_file()


# fmt: off
NO_PLOTS = {
    "compare": ["--strategies", "random,greedy", "--games", "4"],
    "skill": ["--strategies", "random,greedy", "--deals", "2", "--budget", "0"],
    "tune": ["--set", "fives.reserve_k=0,2", "--games", "4"],
    "tune-target": ["--targets", "25,50", "--games", "4"],
}
# fmt: on


@pytest.mark.parametrize("command", NO_PLOTS)
def test_every_command_that_draws_takes_no_plots(tmp_path, command):
    base = ["--variant", "fives", "--seed", "1", "--workers", "1", "--out", str(tmp_path)]
    r = CliRunner().invoke(main, [command, *base, *NO_PLOTS[command], "--no-plots", "--json"])
    d = _run_dir(r)
    m = json.loads((d / "manifest.json").read_text())
    assert m["status"] == "done" and m["outputs"]["plots"] is False
    assert m["experiment"]["plots"] is False and not (d / "plots").exists()


@pytest.mark.parametrize("name", ["compare", "skill", "tune", "tune_target"])
def test_every_api_function_takes_plots(tmp_path, name):
    from dominosim import api

    kw = dict(variant="fives", seed=1, workers=1, out=str(tmp_path), plots=False)
    # fmt: off
    kw |= {"compare": dict(strategies="random,greedy", games=4),
           "skill": dict(strategies="random,greedy", deals=2, budget=0),
           "tune": dict(sets="fives.reserve_k=0,2", games=4),
           "tune_target": dict(targets="25,50", games=4)}[name]
    # fmt: on
    rep = getattr(api, name)(**kw)
    assert not (Path(rep["run_dir"]) / "plots").exists()


def test_points_matrix_scale_is_centred_on_zero(tmp_path, monkeypatch):
    """Where points rank, the matrix shows the paired points per hand, centred on 0."""
    import matplotlib.colors as C

    import dominosim.analysis.plots as P

    norms = []
    real = C.TwoSlopeNorm
    monkeypatch.setattr(C, "TwoSlopeNorm", lambda **kw: norms.append(kw) or real(**kw))
    cell = {"points_diff": 0.7, "points_diff_ci": [0.2, 1.2], "deals": 10}
    back = {"points_diff": -0.7, "points_diff_ci": [-1.2, -0.2], "deals": 10}
    a = {
        "strategies": ["a", "b"],
        "metric": "points",
        "matrix": [[None, None], [None, None]],
        "points_matrix": [[None, cell], [back, None]],
    }
    (path,) = P.compare_plots(P._plt(), a, tmp_path)
    assert path.name == "points_matrix.png"
    (kw,) = norms
    assert kw["vcenter"] == 0 and kw["vmin"] == pytest.approx(-1.0)
    assert kw["vmax"] == pytest.approx(1.0)
