"""Verdicts that answer the player's question (issue 39, docs/compare.md): the paired points
difference per hand in every paired row, the ranking by what decides the game (`--metric`),
the warning when metrics disagree, and `--until-decided` (a sequential test that keeps its
error rate)."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import dominosim
from dominosim.analysis import report, stats
from dominosim.cli import main
from dominosim.runner.plan import planned_looks

from runs import stop_after, strip

# the issue's user strategy: a double if it can, else the heaviest tile
HEAVYDOUBLE = '''"""heavydouble: play a double if you can, else the heaviest tile."""

from dominosim import actions as A
from dominosim import tiles
from dominosim.strategy import Strategy, fallback, register


@register
class HeavyDouble(Strategy):
    """A double first, else the heaviest tile."""

    name = "heavydouble"

    def choose_one(self, obs, legal, key):
        places = [a for a in legal if A.is_placement(a)]
        if not places:
            return fallback(legal)
        return max(places, key=lambda a: (tiles.is_double(A.tile_of(a)), tiles.pips(A.tile_of(a))))
'''

TWINS = '''"""Copies of greedy under other names: the same decisions, other labels."""

from dominosim.strategy import get, register

Greedy = type(get("greedy"))


@register
class GreedyTwin(Greedy):
    name = "greedy-twin"
'''


@pytest.fixture(scope="module")
def bots(tmp_path_factory):
    """One file per process: the strategy registry refuses a name from a second file."""
    folder = tmp_path_factory.mktemp("bots")
    (folder / "heavydouble.py").write_text(HEAVYDOUBLE)
    (folder / "twins.py").write_text(TWINS)
    return str(folder)


def cli(tmp_path, *args, sub="r"):
    r = CliRunner().invoke(main, [*args, "--out", str(tmp_path / sub), "--json"])
    assert r.exit_code == 0, r.output + r.stderr
    return json.loads(r.stdout)


def fives_2p(tmp_path, bots, *extra, games="1200", sub="r"):
    # fmt: off
    return cli(tmp_path, "compare", "--variant", "fives", "--players", "2", "--strategies",
               "heavydouble,greedy", "--games", games, "--seed", "1", "--workers", "1",
               "--strategy-path", bots, *extra, sub=sub)
    # fmt: on


def test_the_issues_case_ranks_greedy_first_by_points(tmp_path, bots):
    """fives 2p, heavydouble against greedy by hands (the default unit): heavydouble wins more
    hands, greedy scores more points per hand; fives is a race to points, so the default
    ranking is by points and puts greedy first, and the report warns that the metrics
    disagree, naming both figures."""
    rep = fives_2p(tmp_path, bots)
    a = rep["analysis"]
    assert a["metric"] == "points" and a["metric_default"]
    assert [r["strategy"] for r in a["ratings"]] == ["greedy", "heavydouble"]
    (p,) = a["paired"]
    assert p["hand_win_diff_ci"][0] > 0  # heavydouble wins more hands ...
    assert p["points_diff_ci"][1] < 0  # ... and fewer points
    (d,) = a["disagreements"]
    assert d["metrics"] == ["hands", "points"] and d["hands"] == p["hand_win_diff"]
    assert d["points"] == p["points_diff"] and d["points_ci"] == p["points_diff_ci"]
    assert rep["groups"][0]["disagreements"] == a["disagreements"]
    text = CliRunner().invoke(main, ["report", rep["run_dir"]]).stdout
    (line,) = [x for x in text.splitlines() if x.startswith("warning: heavydouble - greedy")]
    assert "in hand wins" in line and "points per hand" in line
    assert "ranked by points per hand" in text
    # --metric hands ranks by hand wins (Bradley–Terry) and says it was chosen
    hands = fives_2p(tmp_path, bots, "--metric", "hands", sub="h")["analysis"]
    assert hands["metric"] == "hands" and not hands["metric_default"]
    assert [r["strategy"] for r in hands["ratings"]] == ["heavydouble", "greedy"]


def test_points_ratings_of_two_strategies_are_the_paired_difference(tmp_path, bots):
    a = fives_2p(tmp_path, bots, games="400")["analysis"]
    (p,) = a["paired"]
    by = {r["strategy"]: r for r in a["ratings"]}
    assert by["heavydouble"]["rating"] - by["greedy"]["rating"] == pytest.approx(p["points_diff"])
    assert by["greedy"]["rating"] == pytest.approx(-by["heavydouble"]["rating"])


def _points_per_hand_from_records(rec: pd.DataFrame, a: str, b: str, lower: bool):
    """The paired points difference per hand of a 2-player table, from the per-hand records:
    per deal, d = A's points minus B's over every seating and hand, n = its hands; Σd / Σn,
    with the ratio estimator's interval (deals the units)."""
    pts = np.where(rec["strategy_0"] == a, rec["points_0"] - rec["points_1"], 0) + np.where(
        rec["strategy_1"] == a, rec["points_1"] - rec["points_0"], 0
    )
    rec = rec.assign(d=-pts if lower else pts, n=1)
    by = rec.groupby("match_id")[["d", "n"]].sum()
    d, n = by["d"].to_numpy(float), by["n"].to_numpy(float)
    m, p = len(d), d.sum() / n.sum()
    half = stats.Z95 * np.sqrt(((d - p * n) ** 2).sum() / n.sum() ** 2 * m / (m - 1))
    return p, p - half, p + half


@pytest.mark.parametrize(
    "variant,unit",
    [("fives", "match"), ("fives", "hand"), ("kozel", "match"), ("two-lane", "hand")],
)
def test_points_diff_equals_the_records(tmp_path, variant, unit):
    """Every paired row's points difference per hand, from the integer aggregates, equals
    the one computed from the per-hand records (matches of unequal length included), signed
    so that positive favours A (where points are penalties, A's fewer points)."""
    # fmt: off
    rep = cli(tmp_path, "run", "--variant", variant, "--players", "2", "--strategies",
              "random,greedy", "--games", "160", "--unit", unit, "--seed", "5",
              "--workers", "2", "--chunk-size", "40")
    # fmt: on
    (p,) = rep["groups"][0]["paired"]
    rec = dominosim.load(rep["run_dir"]).records
    lower = rep["groups"][0]["points_sense"] == "lower"
    want = _points_per_hand_from_records(rec, "random", "greedy", lower)
    assert [p["points_diff"], *p["points_diff_ci"]] == pytest.approx(list(want), rel=1e-9)
    assert p["points_diff"] < 0  # greedy scores more (or is charged less) than random
    paired = pd.read_csv(Path(rep["run_dir"]) / "paired.csv")
    assert paired["points_diff"].tolist() == pytest.approx([p["points_diff"]])
    assert paired["points_diff_lo"].tolist() == pytest.approx([p["points_diff_ci"][0]])
    md = (Path(rep["run_dir"]) / "report.md").read_text()
    assert "points/hand diff" in md and f"{p['points_diff']:+.3f}" in md


@pytest.mark.parametrize(
    "rules,unit,want",
    [
        ({"match_end": "race", "target": 100}, "hand", "points"),
        ({"match_end": "race", "target": 100}, "match", "matches"),
        ({"match_end": "kozel", "target": 0}, "hand", "points"),
        ({"match_end": "one_hand", "hands_per_match": 1, "target": 0}, "hand", "hands"),
        ({"match_end": "one_hand", "hands_per_match": 3, "target": 0}, "hand", "points"),
        ({"match_end": "race", "target": 1_000_000_000}, "hand", "hands"),  # target=none
    ],
)
def test_the_metric_that_decides_the_game(rules, unit, want):
    assert report.deciding_metric(rules, unit) == want


def test_metric_matches_needs_unit_match(tmp_path):
    # fmt: off
    r = CliRunner().invoke(main, ["compare", "--variant", "fives", "--strategies",
                                  "random,greedy", "--metric", "matches", "--out",
                                  str(tmp_path)])
    # fmt: on
    assert r.exit_code == 2 and "--unit match" in r.stderr and "Traceback" not in r.output
    r = CliRunner().invoke(main, ["run", "--variant", "fives", "--metric", "points"])
    assert r.exit_code == 2 and "--until-decided" in r.stderr


def test_unit_match_ranks_by_match_wins(tmp_path, bots):
    a = fives_2p(tmp_path, bots, "--unit", "match", games="300")["analysis"]
    assert a["metric"] == "matches"
    assert [r["strategy"] for r in a["ratings"]] == ["greedy", "heavydouble"]
    wins = {r["strategy"]: r["wins"] for r in a["ratings"]}
    assert wins == {"greedy": a["matrix"][1][0]["wins"], "heavydouble": a["matrix"][0][1]["wins"]}


# ---------------------------------------------------------------------------------------------
# --until-decided


def _simulated_sums(rng, deals: int, shift: float = 0.0) -> dict:
    """The integer aggregates of one pair at one 2-player table, ``deals`` deals in both
    seatings, one hand each (report.PAIR_SUMS' keys), for strategies equal by construction
    (``shift`` 0: A and B are exchangeable, every difference symmetric about 0; a deal decides
    a third of the hands whoever sits where) or A ahead by ``shift`` points per hand."""
    decided = rng.random(deals) < 1 / 3
    wa = rng.integers(0, 2, (2, deals))  # A's hand wins in each seating
    wa[:, decided] = [[1], [0]] * np.ones((1, decided.sum()), dtype=int)
    hand = (2 * wa - 1).sum(axis=0)  # wins of A minus wins of B over both seatings
    pts = 5 * (rng.poisson(0.9, (2, 2, deals)))  # points of A and B in each seating
    d = (pts[0] - pts[1]).sum(axis=0) + np.round(2 * shift).astype(int)
    n = np.full(deals, 2)
    # fmt: off
    return {"deals": deals, "hands": int(n.sum()), "hands_sq": int((n * n).sum()),
            "hand": int(hand.sum()), "hand_sq": int((hand * hand).sum()),
            "match": int(hand.sum()), "match_sq": int((hand * hand).sum()),
            "points": int(d.sum()), "points_sq": int((d * d).sum()),
            "points_hands": int((d * n).sum())}
    # fmt: on


def _declares(rng, looks, z, metric, shift=0.0) -> bool:
    """One simulated run of --until-decided: whether any look's interval excludes zero."""
    sums = dict.fromkeys(report.PAIR_SUMS, 0)
    done = 0
    for look in looks:
        new = _simulated_sums(rng, look - done, shift)
        done = look
        for k, v in new.items():
            sums[k] += v
        row = report.pair_diffs(sums, seatings=1, rotations=2)
        key = {"hands": "hand_win_diff", "points": "points_diff"}[metric]
        lo, hi = report.sequential_interval(row[key], row[key + "_ci"], z)
        if lo > 0 or hi < 0:
            return True
    return False


@pytest.mark.parametrize("metric", ["points", "hands"])
def test_until_decided_keeps_its_error_rate_on_equal_strategies(metric):
    """400 simulated runs of two strategies equal by construction, on the aggregates a run
    holds at each planned look (7 looks up to 4,096 deals): the share that declares a winner
    stays at or under 5%. The same looks at the fixed-sample 95% interval declare one far
    more often (the test can fail), and a real difference is found."""
    looks = planned_looks(4096)
    assert len(looks) == 7
    z = report.sequential_z(0.05, len(looks))
    rng = np.random.default_rng(39)
    runs = 400
    share = sum(_declares(rng, looks, z, metric) for _ in range(runs)) / runs
    naive = sum(_declares(rng, looks, stats.Z95, metric) for _ in range(runs)) / runs
    assert share <= 0.05 < naive
    if metric == "points":  # (the shift moves the points only)
        found = sum(_declares(rng, looks, z, metric, shift=0.5) for _ in range(50)) / 50
        assert found >= 0.9


def test_planned_looks_depend_on_the_cap_only():
    assert planned_looks(50) == [50]
    assert planned_looks(1000) == [64, 128, 256, 512, 1000]
    assert planned_looks(1024) == [64, 128, 256, 512, 1024]
    big = planned_looks(10**6)
    assert (
        len(big) == 7
        and big[-1] == 10**6
        and all(x * 2 == y for x, y in zip(big[:-2], big[1:-1], strict=True))
    )


def test_until_decided_stops_early_when_decided_and_resumes_to_the_same_numbers(
    tmp_path, monkeypatch
):
    # fmt: off
    args = ["compare", "--variant", "fives", "--strategies", "random,greedy", "--games",
            "20000", "--until-decided", "--seed", "1"]
    # fmt: on
    full = cli(tmp_path, *args, "--workers", "2", sub="full")
    u = full["until_decided"]
    assert u["decided"] and u["deals"] < u["looks"][-1] == 10000
    assert full["analysis"]["until_decided"] == u
    assert full["games_played"] == 2 * u["deals"] and full["games_per_group"] == 2 * u["deals"]
    ((p,),) = [full["analysis"]["paired"]]
    assert p["deals"] == u["deals"] and u["pairs"][0]["sequential_ci"][1] < 0
    stop_after(monkeypatch, 1)
    # fmt: off
    r = CliRunner().invoke(main, [*args, "--workers", "1", "--chunk-size", "64", "--out",
                                  str(tmp_path / "cut")])
    # fmt: on
    assert r.exit_code == 130
    stop_after(monkeypatch, None)
    (run_dir,) = (tmp_path / "cut" / "compare-fives").iterdir()
    r = CliRunner().invoke(main, ["compare", "--resume", str(run_dir), "--workers", "1", "--json"])
    assert r.exit_code == 0, r.output + r.stderr
    again = json.loads(r.stdout)
    assert strip(again) | {"run_dir": None} == strip(full) | {"run_dir": None}


def test_until_decided_on_a_strategy_and_its_renamed_copy_plays_to_the_cap(tmp_path, bots):
    """greedy and greedy-twin make the same decisions: no look tells them apart, so the run
    plays every planned game and says which pair stayed undecided."""
    # fmt: off
    rep = cli(tmp_path, "run", "--variant", "fives", "--strategies", "greedy,greedy-twin",
              "--games", "300", "--until-decided", "--seed", "2", "--workers", "1",
              "--strategy-path", bots)
    # fmt: on
    u = rep["until_decided"]
    assert not u["decided"] and u["deals"] == 150 and u["looks"] == [64, 128, 150]
    assert u["undecided"] == ["fives: greedy vs greedy-twin"] and rep["games_played"] == 300
    r = CliRunner().invoke(main, ["report", rep["run_dir"]])
    assert "stopped at the cap with 1 pair(s) undecided" in r.stdout
    r = CliRunner().invoke(main, ["run", "--variant", "fives", "--until-decided"])
    assert r.exit_code == 2 and "two or more" in r.stderr


# ---------------------------------------------------------------------------------------------
# tune-target: where skill shows fastest


def test_tune_target_hands_to_separate(tmp_path, bots):
    """Per target, the hands of play until the stronger strategy is told apart at 95% (the
    matches at which the Wilson lower bound of its match win rate reaches 50%, times the mean
    match length), with its interval from the Wilson interval; the sentence names the target
    that needs the fewest; the default target's row is labelled with its value."""
    # fmt: off
    rep = cli(tmp_path, "tune-target", "--variant", "fives", "--strategies", "heavydouble,greedy",
              "--targets", "25,100", "--games", "160", "--seed", "1", "--workers", "1",
              "--strategy-path", bots)
    # fmt: on
    a = rep["analysis"]
    rows = {r["target"]: r for r in a["rows"]}
    assert rows[25]["label"] == "fives[target=25]" and rows[100]["label"] == "fives[target=100]"
    for r in rows.values():
        p, b, length = r["stronger_match_win_rate"], r["baseline"], r["mean_match_length"]
        assert p > b == 0.5
        matches = stats.Z95**2 * b * (1 - b) / (p - b) ** 2
        assert r["hands_to_separate"] == pytest.approx(matches * length)
        # at that many matches, the Wilson lower bound of the rate is the baseline
        k = p * matches
        assert stats.wilson(k, matches)[0] == pytest.approx(b, abs=1e-9) or matches < 1
        lo, hi = r["hands_to_separate_ci"]
        assert lo <= r["hands_to_separate"] <= hi
    fastest = min(rows.values(), key=lambda r: r["hands_to_separate"])
    assert a["fastest_target"] == fastest["target"]
    assert a["fastest_sentence"].startswith(f"Skill shows fastest at target {fastest['target']}")
    assert f"{fastest['hands_to_separate']:,.0f} hands" in a["fastest_sentence"]
    text = CliRunner().invoke(main, ["report", rep["run_dir"]]).stdout
    assert a["fastest_sentence"] in text and "hands to separate" in text
    assert (Path(rep["run_dir"]) / "plots" / "sweep_hands_to_separate.png").is_file()


# ---------------------------------------------------------------------------------------------
# per-match records


@pytest.fixture(scope="module")
def match_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("matches")
    # fmt: off
    return dominosim.run(variants=["fives"], players=2, strategies="random,greedy", games=40,
                         unit="match", seed=3, workers=2, chunk_size=10, out=str(out))
    # fmt: on


def test_match_records_agree_with_the_hand_records(match_run):
    """``load(run, level="match")``: one row per match and seating, with its seats'
    strategies, the winning side, the hands played and the final scores, which are the sums
    of the match's hand points; the winner scored more than the loser."""
    m = dominosim.load(match_run["run_dir"], level="match").records
    h = dominosim.load(match_run["run_dir"]).records
    assert len(m) == 40 and not m.duplicated(["group", "rotation", "match_id"]).any()
    assert list(m.columns[:5]) == ["group", "rotation", "match_id", "strategy_0", "strategy_1"]
    by = h.groupby(["group", "rotation", "match_id"])
    sums = by[["points_0", "points_1"]].sum().reset_index()
    both = m.merge(sums, on=["group", "rotation", "match_id"])
    assert (both["score_0"] == both["points_0"]).all() and (
        both["score_1"] == both["points_1"]
    ).all()
    assert (by.size().to_numpy() == m.sort_values(["group", "rotation", "match_id"])["hands"]).all()
    won = m[m["winner"] >= 0]
    top = np.where(won["winner"] == 0, won["score_0"], won["score_1"])
    other = np.where(won["winner"] == 0, won["score_1"], won["score_0"])
    assert (top > other).all()
    # the strategies seated per rotation, as in the hand records
    seated = h.drop_duplicates(["rotation"])[["rotation", "strategy_0", "strategy_1"]]
    again = m.drop_duplicates(["rotation"])[["rotation", "strategy_0", "strategy_1"]]
    assert (
        seated.astype(str).reset_index(drop=True).equals(again.astype(str).reset_index(drop=True))
    )
    # match wins per strategy equal the report's
    wins = {}
    for s in (0, 1):
        for x, n in m[m["winner"] == s][f"strategy_{s}"].astype(str).value_counts().items():
            wins[x] = wins.get(x, 0) + n
    assert wins == {s["strategy"]: s["match_wins"] for s in match_run["groups"][0]["strategies"]}


def test_match_records_are_checked_and_older_folders_say_so(tmp_path):
    from dominosim.storage.store import checksum

    # fmt: off
    rep = dominosim.run(variants=["fives"], players=2, strategies="random,greedy", games=8,
                        unit="match", seed=1, workers=1, out=str(tmp_path))
    # fmt: on
    run_dir = Path(rep["run_dir"])
    (agg,) = (run_dir / "chunks").glob("*.agg.json")
    (mfile,) = (run_dir / "matches").glob("*.parquet")
    mfile.write_bytes(mfile.read_bytes()[:-3])  # a damaged match records file: played again
    r = CliRunner().invoke(main, ["run", "--resume", str(run_dir), "--json"])
    assert r.exit_code == 0 and "match records file does not match its checksum" in r.stderr
    assert strip(json.loads(r.stdout)) == strip(rep)
    # a chunk of an older version names no match records: level="match" says so in one line
    doc = json.loads(agg.read_text())
    doc.pop("match_parquet")
    doc.pop("checksum")
    doc["checksum"] = checksum(doc)
    agg.write_text(json.dumps(doc))
    assert len(dominosim.load(run_dir).records) > 0
    with pytest.raises(dominosim.base.errors.OutputError, match="no per-match records"):
        dominosim.load(run_dir, level="match")
    with pytest.raises(dominosim.base.errors.ConfigError, match="level must be"):
        dominosim.load(run_dir, level="deal")
