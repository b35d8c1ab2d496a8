"""`dominosim compare`: round robins on duplicate deals, the win-rate matrix, paired
differences and Bradley–Terry ratings (docs/compare.md)."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import dominosim
from dominosim.analysis.stats import bradley_terry
from dominosim.analysis.tournament import compare_legs
from dominosim.cli import main

from runs import stop_after, strip

TWINS = '''"""Copies of random under other names (test strategies): same decisions, other labels."""

from dominosim.strategy import get, register

Random = type(get("random"))


@register
class TwinA(Random):
    name = "twin-a"


@register
class TwinB(Random):
    name = "twin-b"
'''


def compare(tmp_path, *args, sub="r"):
    r = CliRunner().invoke(main, ["compare", *args, "--out", str(tmp_path / sub), "--json"])
    assert r.exit_code == 0, r.output + r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """One file per process: the strategy registry refuses a name from a second file."""
    folder = tmp_path_factory.mktemp("mine")
    (folder / "twins.py").write_text(TWINS)
    return str(folder)


def test_legs():
    assert compare_legs("abc", 2, False) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert compare_legs("abc", 4, True) == [("a", "b") * 2, ("a", "c") * 2, ("b", "c") * 2]
    assert compare_legs("abcd", 3, False) == [tuple(x) for x in ("abc", "abd", "acd", "bcd")]


@pytest.mark.parametrize("players", [2, 3])
def test_a_strategy_against_itself_is_exactly_balanced(tmp_path, twins, players):
    """Seat randomness depends on the seat, not the label, so identical strategies on
    duplicate deals in every seating win exactly as often as each other."""
    names = ["random", "twin-a", "twin-b"][: max(players, 2)]
    rep = compare(
        tmp_path,
        "--variant",
        "fives",
        "--players",
        str(players),
        "--strategies",
        ",".join(names),
        "--games",
        "48",
        "--seed",
        "3",
        "--workers",
        "1",
        "--strategy-path",
        twins,
    )
    a = rep["analysis"]
    K = len(names)
    for i in range(K):
        for j in range(K):
            if i != j:
                c, d = a["matrix"][i][j], a["matrix"][j][i]
                assert c["wins"] == d["wins"] > 0 and c["win_rate"] == 0.5
    for p in a["paired"]:
        assert p["hand_win_diff"] == 0 and p["hand_win_diff_ci"] == [0, 0]
    for r in a["ratings"]:
        assert abs(r["rating"]) < 1e-6
    wins = {s["strategy"]: s["hand_wins"] for g in rep["groups"] for s in g["strategies"]}
    assert len(set(wins.values())) == 1


def test_bradley_terry_orders_synthetic_strengths():
    p = np.array([1.0, 2.0, 4.0, 8.0, 0.5])
    n = 4000
    W = np.round(n * p[:, None] / (p[:, None] + p[None, :]))
    np.fill_diagonal(W, 0)
    bt = bradley_terry(W)
    assert not bt["regularized"]
    assert list(np.argsort(bt["theta"])) == [4, 0, 1, 2, 3]
    want = np.log(p) - np.log(p).mean()
    assert np.allclose(bt["theta"], want, atol=0.02)
    for (lo, hi), t in zip(bt["ci"], want, strict=True):
        assert lo < t < hi
    assert abs(sum(bt["theta"])) < 1e-9
    # standard errors shrink with more games
    bt4 = bradley_terry(4 * W)
    assert np.allclose(np.array(bt4["se"]) * 2, bt["se"], rtol=0.02)


def test_bradley_terry_without_a_maximum_is_regularized():
    W = np.array([[0, 5, 7], [0, 0, 3], [0, 1, 0]])  # strategy 0 never lost
    bt = bradley_terry(W)
    assert bt["regularized"]
    assert bt["theta"][0] == max(bt["theta"]) and all(np.isfinite(bt["theta"]))


def test_round_robin_report_files_and_common_deals(tmp_path):
    rep = compare(
        tmp_path,
        "--variant",
        "fives",
        "--strategies",
        "random,greedy,heaviest",
        "--games",
        "60",
        "--seed",
        "2",
        "--workers",
        "2",
        "--chunk-size",
        "8",
    )
    a = rep["analysis"]
    assert a["kind"] == "compare" and a["strategies"] == ["random", "greedy", "heaviest"]
    assert len(rep["groups"]) == 3 and rep["games_played"] == 60
    assert [g["label"] for g in rep["groups"]] == [
        "fives: random vs greedy",
        "fives: random vs heaviest",
        "fives: greedy vs heaviest",
    ]
    assert sorted(r["rank"] for r in a["ratings"]) == [1, 2, 3]
    assert [(p["a"], p["b"]) for p in a["paired"]] == [
        ("random", "greedy"),
        ("random", "heaviest"),
        ("greedy", "heaviest"),
    ]
    for i, row in enumerate(a["matrix"]):
        assert row[i] is None
        for j, c in enumerate(row):
            if c is not None:
                assert c["games"] == 20 and c["wins"] + c["losses"] <= 20
                assert c["wins"] == a["matrix"][j][i]["losses"]
                lo, hi = c["win_ci"]
                assert 0 <= lo <= c["win_rate"] <= hi <= 1
    run_dir = Path(rep["run_dir"])
    for name in (
        "manifest.json",
        "aggregates.parquet",
        "summary.csv",
        "report.md",
        "plots/points_matrix.png",  # (points per hand rank fives: their matrix, no other)
    ):
        assert (run_dir / name).is_file(), name
    assert not (run_dir / "plots" / "win_matrix.png").exists()
    assert "Round robin" in (run_dir / "report.md").read_text()
    # every leg plays the same match ids, hence the same deals, in both seatings
    rec = dominosim.load(run_dir).records
    key = ["rotation", "match_id", "hand_index"]
    legs = [
        g.sort_values(key)[[*key, "deal", "leader"]].reset_index(drop=True)
        for _, g in rec.groupby("group")
    ]
    assert len(legs) == 3 and len(legs[0]) == 20
    for other in legs[1:]:
        assert other.equals(legs[0])
    r0, r1 = (legs[0][legs[0].rotation == r].deal.to_numpy() for r in (0, 1))
    assert (r0 == r1).all()
    # the report command prints the same object again
    again = CliRunner().invoke(main, ["report", str(run_dir), "--json"])
    assert json.loads(again.stdout) == rep


def test_interrupted_compare_resumes_to_the_same_numbers(tmp_path, monkeypatch):
    args = [
        "--variant",
        "fives",
        "--strategies",
        "random,greedy,heaviest",
        "--games",
        "36",
        "--seed",
        "4",
        "--chunk-size",
        "6",
    ]
    full = compare(tmp_path, *args, "--workers", "1", sub="full")
    stop_after(monkeypatch, 2)
    r = CliRunner().invoke(
        main, ["compare", *args, "--workers", "1", "--out", str(tmp_path / "cut")]
    )
    assert r.exit_code == 130, r.output
    run_dir = r.stderr.split("kept in ")[1].split(";")[0]
    stop_after(monkeypatch, None)
    wrong = CliRunner().invoke(main, ["tune", "--resume", run_dir])
    assert wrong.exit_code == 2 and "is not a tune run" in wrong.stderr
    r = CliRunner().invoke(main, ["compare", "--resume", run_dir, "--json", "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert strip(json.loads(r.stdout)) == strip(full)


@pytest.mark.parametrize(
    ("args", "code", "start"),
    [
        (["--strategies", "greedy"], 2, "error: compare needs at least two strategies"),
        (["--strategies", "greedy,greedy"], 2, "error: --strategies names 'greedy' twice"),
        (
            ["--strategies", "greedy,random", "--players", "3"],
            2,
            "error: compare with 3 players seats 3 different strategies",
        ),
        (
            ["--strategies", "greedy,random", "--set", "fives.reserve_k=0,2"],
            2,
            "error: --set gives 2 rule sets",
        ),
        (["--strategies", "greedy,gready"], 4, "error: unknown strategy 'gready'"),
        (
            ["--strategies", "greedy,random", "--games", "0"],
            2,
            "error: --games must be an integer >= 1",
        ),
        (["--strategies", "greedy,random", "--variant", "fivs"], 3, "error: unknown variant"),
        (
            ["--strategies", "greedy,random", "--resume", "x"],
            2,
            "error: --resume continues a run as it was planned, so --variant",
        ),
    ],
)
def test_bad_input_is_one_line(tmp_path, args, code, start):
    base = [] if "--variant" in args else ["--variant", "fives"]
    r = CliRunner().invoke(
        main, ["compare", *base, *args, "--workers", "1", "--out", str(tmp_path)]
    )
    assert r.exit_code == code, r.output
    assert r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(start), r.stderr


def test_rounding_to_whole_tables_is_said_in_one_line(tmp_path):
    r = CliRunner().invoke(
        main,
        [
            "compare",
            "--variant",
            "fives",
            "--strategies",
            "random,greedy,heaviest",
            "--games",
            "13",
            "--seed",
            "1",
            "--workers",
            "1",
            "--out",
            str(tmp_path),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "games: 13 rounded up to 18 hands (3 tables x 3 deals x 2 seatings)" in r.stderr
    assert json.loads(r.stdout)["analysis"]["games_requested"] == 13


# ---------------------------------------------------------------------------------------------
# every output agrees with the metric that ranks (issue 46 point 3)


def _fives(tmp_path, *args, sub="r"):
    # fmt: off
    return compare(tmp_path, "--variant", "fives", "--strategies", "greedy,random,doubles-first",
                   "--games", "60", "--seed", "1", "--workers", "1", *args, sub=sub)
    # fmt: on


def test_per_hand_games_report_no_match_figures(tmp_path):
    """With unit hand every game is one hand (here a hand is the whole game, target=none):
    the paired rows, pooled and per table, have no match figures, and the text names no
    matches."""
    rep = _fives(tmp_path, "--set", "fives.target=none")
    a = rep["analysis"]
    assert a["metric"] == "hands" and a["matrix_metric"] == "hands"
    rows = [*a["paired"], *(p for g in rep["groups"] for p in g["paired"])]
    assert rows and all(p["hand_win_diff"] is not None for p in rows)
    assert all(p["match_win_diff"] is None and p["match_win_diff_ci"] == [None, None] for p in rows)
    text = CliRunner().invoke(main, ["report", rep["run_dir"]]).stdout
    assert "20 hands;" in text and " matches" not in text.replace("20 hands per table", "")
    assert "matches" not in text.split("groups:")[1].splitlines()[1]  # (the table's columns)


def test_points_rank_every_table_and_the_matrix(tmp_path):
    """Ranked by points (fives: what decides the game): the ratings' columns are the points
    difference, the points matrix comes first and the paired table shows points first."""
    rep = _fives(tmp_path)
    a = rep["analysis"]
    assert a["metric"] == "points" and a["metric_default"]
    assert all("wins" not in r and r["deals"] > 0 for r in a["ratings"])
    names = a["strategies"]
    for r in a["ratings"]:  # (its pairs' points differences, weighted by their deals)
        mine = [
            (p["deals"], (1 if p["a"] == r["strategy"] else -1) * p["points_diff"])
            for p in a["paired"]
            if r["strategy"] in (p["a"], p["b"])
        ]
        assert r["deals"] == sum(n for n, _ in mine)
        assert r["points_diff"] == pytest.approx(sum(n * d for n, d in mine) / r["deals"])
    for p in a["paired"]:
        i, j = names.index(p["a"]), names.index(p["b"])
        c, back = a["points_matrix"][i][j], a["points_matrix"][j][i]
        assert c["points_diff"] == p["points_diff"] == -back["points_diff"]
        assert c["points_diff_ci"] == p["points_diff_ci"]
        assert back["points_diff_ci"] == [-p["points_diff_ci"][1], -p["points_diff_ci"][0]]
    text = CliRunner().invoke(main, ["report", rep["run_dir"]]).stdout
    section = text.split("== Round robin ==")[1].split("== Group")[0]
    assert section.index("points per hand gained (row vs column)") < section.index("win rates")
    assert "deals points/hand diff" in section.split("ratings (by points per hand):")[1]
    paired = section.split("paired differences (same deals):\n")[1].splitlines()[0]
    assert paired.index("points/hand diff") < paired.index("hand win diff")
    plots = Path(rep["run_dir"]) / "plots"
    assert (plots / "points_matrix.png").is_file() and not (plots / "win_matrix.png").exists()


def test_metric_hands_with_whole_matches_counts_hands_in_the_matrix(tmp_path):
    # fmt: off
    a = compare(tmp_path, "--variant", "fives", "--strategies", "greedy,random", "--games",
                "8", "--seed", "1", "--workers", "1", "--unit", "match", "--metric",
                "hands")["analysis"]
    # fmt: on
    assert a["matrix_metric"] == "hands"
    (r,) = [r for r in a["ratings"] if r["strategy"] == "greedy"]
    cell = a["matrix"][0][1]
    assert r["wins"] == cell["wins"] and cell["games"] > 8  # (hands, not the 8 matches)
    assert all(p["match_win_diff"] is not None for p in a["paired"])  # (games are matches)
