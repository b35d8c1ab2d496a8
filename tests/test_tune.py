"""`dominosim tune-target` and `dominosim tune`: sweeps on common deals (docs/compare.md)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import dominosim
from dominosim.cli import main
from dominosim.game.reference import Hand
from dominosim.game.variants import make_rules


def invoke(cmd, tmp_path, *args):
    r = CliRunner().invoke(main, [cmd, *args, "--out", str(tmp_path), "--json"])
    assert r.exit_code == 0, r.output + r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def target_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("tt")
    return invoke(
        "tune-target",
        out,
        "--variant",
        "muggins",
        "--players",
        "2",
        "--strategies",
        "greedy,random",
        "--targets",
        "150,50,100",
        "--games",
        "24",
        "--seed",
        "5",
        "--workers",
        "2",
        "--chunk-size",
        "8",
    )


def test_match_length_grows_with_the_target(target_sweep):
    a = target_sweep["analysis"]
    assert a["kind"] == "tune-target" and a["targets"] == [50, 100, 150]
    rows = sorted(a["rows"], key=lambda r: r["target"])
    assert [r["target"] for r in rows] == [50, 100, 150]
    lengths = [r["mean_match_length"] for r in rows]
    assert lengths[0] < lengths[1] < lengths[2]
    for r in rows:
        assert r["matches"] == 24 and r["median_match_length"] <= r["p90_match_length"]
        assert r["stronger"] == a["stronger"] == "greedy"
        lo, hi = r["stronger_match_win_ci"]
        assert lo <= r["stronger_match_win_rate"] <= hi
        rates = {s["strategy"]: s["match_win_rate"] for s in r["strategies"]}
        assert rates["greedy"] == r["stronger_match_win_rate"]
        adv = r["leading_side_match_advantage"]
        assert adv == pytest.approx(r["leading_side_match_win_rate"] - 0.5)
    hit = [r["target"] for r in rows if r["stronger_match_win_ci"][0] >= a["share"]]
    assert a["share"] == 0.75 and a["smallest_target"] == (hit[0] if hit else None)
    assert ("is " + str(hit[0]) if hit else "No target") in a["sentence"]


def test_same_deals_at_every_target_and_seating(target_sweep):
    run_dir = Path(target_sweep["run_dir"])
    rec = dominosim.load(run_dir).records
    assert set(rec.group) == {0, 1, 2} and set(rec.rotation) == {0, 1}
    # every (match, hand) played at several targets, in either seating, has one deal
    per = rec.groupby(["match_id", "hand_index"]).deal.nunique()
    assert (per == 1).all()
    played = rec.groupby(["match_id", "hand_index"]).size()
    assert (played[played.index.get_level_values(1) == 0] == 6).all()  # 3 targets x 2 seatings
    # hand 0's leader (the holder of the highest double) is the same everywhere
    assert (rec[rec.hand_index == 0].groupby("match_id").leader.nunique() == 1).all()
    # and the reference engine deals the same tiles at each target
    seed = target_sweep["seed"]
    for m, k in [(0, 0), (3, 1), (7, 2)]:
        deals = {
            tuple(map(tuple, Hand.deal(make_rules("muggins", 2, target=t), seed, m, k).hands))
            for t in (50, 100, 150)
        }
        assert len(deals) == 1
    for name in ("report.md", "plots/sweep_win_rate.png", "plots/sweep_match_length.png"):
        assert (run_dir / name).is_file(), name
    text = (run_dir / "report.md").read_text()
    assert "Target sweep" in text and "mean match length" in text


def test_kozel_sweeps_kozel_target(tmp_path):
    rep = invoke(
        "tune-target",
        tmp_path,
        "--variant",
        "kozel",
        "--players",
        "4",
        "--targets",
        "30,60",
        "--games",
        "4",
        "--seed",
        "1",
        "--workers",
        "1",
        "--share",
        "0.6",
    )
    a = rep["analysis"]
    assert a["option"] == "kozel_target" and a["targets"] == [30, 60] and a["share"] == 0.6
    assert [g["options"].get("kozel_target") for g in rep["groups"]] == [30, 60]
    assert a["stronger"] is None and "One strategy" in a["sentence"]


def test_tune_side_by_side(tmp_path):
    rep = invoke(
        "tune",
        tmp_path,
        "--variant",
        "sniff",
        "--set",
        "sniff.us_sniff_counting=off,on",
        "--strategies",
        "greedy,random",
        "--games",
        "6",
        "--seed",
        "2",
        "--workers",
        "1",
    )
    a = rep["analysis"]
    assert a["kind"] == "tune" and a["swept"] == ["us_sniff_counting"]
    assert [r["value"] for r in a["rows"]] == ["us_sniff_counting=off", "us_sniff_counting=on"]
    assert all(r["matches"] == 6 for r in a["rows"])
    r = CliRunner().invoke(main, ["report", rep["run_dir"]])
    assert "side by side" in r.stdout and "us_sniff_counting=on" in r.stdout


@pytest.mark.parametrize(
    ("cmd", "args", "code", "start"),
    [
        (
            "tune-target",
            ["--variant", "two-lane", "--targets", "5"],
            3,
            "error: two-lane has no target: a match is one hand",
        ),
        (
            "tune-target",
            ["--variant", "ladder", "--targets", "5"],
            3,
            "error: ladder has no target",
        ),
        (
            "tune-target",
            ["--variant", "muggins", "--targets", "0,50"],
            2,
            "error: --targets must be integers >= 1",
        ),
        (
            "tune-target",
            ["--variant", "muggins", "--targets", "50,abc"],
            2,
            "error: --targets must be integers >= 1",
        ),
        (
            "tune-target",
            ["--variant", "muggins", "--targets", "50,50"],
            2,
            "error: --targets gives 50 twice",
        ),
        (
            "tune-target",
            ["--variant", "muggins", "--targets", "50", "--share", "2"],
            2,
            "error: --share must be a number in (0, 1]",
        ),
        ("tune-target", ["--variant", "muggins"], 2, "error: tune-target needs --targets"),
        (
            "tune-target",
            ["--variant", "muggins", "--targets", "50", "--set", "muggins.target=60"],
            2,
            "error: tune-target sets muggins.target itself",
        ),
        ("tune", ["--variant", "sniff"], 2, "error: tune sweeps an option: give a value list"),
        (
            "tune",
            ["--variant", "sniff", "--set", "sniff.bogus=1,2"],
            3,
            "error: unknown option 'bogus' for sniff",
        ),
        ("tune", ["--set", "sniff.us_sniff_counting=off,on"], 2, "error: tune needs --variant"),
    ],
)
def test_bad_input_is_one_line(tmp_path, cmd, args, code, start):
    r = CliRunner().invoke(
        main, [cmd, *args, "--games", "2", "--workers", "1", "--out", str(tmp_path)]
    )
    assert r.exit_code == code, r.output
    assert r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(start), r.stderr
