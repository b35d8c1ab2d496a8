"""`dominosim skill`: the ladder of strategies on duplicate deals, each against random, the
share of deals decided by the deal, Bradley–Terry ratings (docs/skill.md). The figures are
checked against the same games played directly on the batch engine."""

import json

import numpy as np
import pytest
from click.testing import CliRunner

from dominosim.analysis.tournament import default_ladder, skill_legs
from dominosim.cli import main
from dominosim.engine.batch import BatchEngine
from dominosim.game.variants import make_rules
from dominosim.strategy import get


def skill(tmp_path, *args, sub="r"):
    r = CliRunner().invoke(main, ["skill", *args, "--out", str(tmp_path / sub), "--json"])
    assert r.exit_code == 0, r.output + r.stderr
    return json.loads(r.stdout)


def test_legs_and_default_ladder():
    assert skill_legs("abc", 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    assert skill_legs("ab", 4) == [("a", "b", "a", "b")]
    assert skill_legs("ab", 3) == [("a", "b", "b")]
    only = skill_legs(["random", "a", "b"], 2, round_robin=False)  # (--against-random)
    assert only == [("random", "a"), ("random", "b")]
    # the ladder comes from the strategies' classifiers and ranks, in the order it always had
    # (the order of the tables, hence of the games)
    assert default_ladder() == [
        "random",
        "heaviest",
        "greedy",
        "doubles-first",
        "suit-keeper",
        "blocker",
        "partner",
        "learned",
        "mc",
        "pimc",
        "oracle",
    ]


def _hands(rules, seed, seats, n):
    h, _ = BatchEngine(rules, seed, [get(x) for x in seats], range(n), unit="hand").run()
    return h


@pytest.mark.parametrize(("variant", "players"), [("fives", 2), ("block", 4)])
def test_against_random_and_decided_by_the_deal_as_the_games_say(tmp_path, variant, players):
    """Each figure of the ladder equals what the same deals give played directly: in each
    seating the strategy's hand wins and points (its seats' sides), and a deal is decided by
    the deal when the same side won its hand in every seating (§1.15: duplicate deals)."""
    n, seed = 60, 11
    data = skill(
        tmp_path,
        "--variant",
        variant,
        "--players",
        str(players),
        "--strategies",
        "random,greedy",
        "--deals",
        str(n),
        "--seed",
        str(seed),
        "--workers",
        "1",
    )
    a = data["analysis"]
    (row,) = a["ladder"]
    assert row["strategy"] == "greedy" and row["deals"] == n
    rules = make_rules(variant, players)
    seats = ("random", "greedy") * (players // 2)
    rotations = list(dict.fromkeys(seats[r:] + seats[:r] for r in range(players)))
    wins = pts = rpts = 0
    winners = []
    for seating in rotations:
        h = _hands(rules, seed, seating, n)
        winners.append(h["winner"])
        for s, x in enumerate(seating):
            side = rules.side_of(s)
            col = h["points"][:, side]
            if x == "greedy":
                wins += int((h["winner"] == side).sum())
                pts += int(col.sum())
            else:
                rpts += int(col.sum())
    seat_hands = n * len(rotations) * (players // 2)
    assert row["hand_win_rate"] == pytest.approx(wins / seat_hands)
    assert row["points_per_hand"] == pytest.approx(pts / seat_hands)
    assert row["points_diff"] == pytest.approx((pts - rpts) / seat_hands)
    w = np.array(winners)
    decided = int(((w[0] >= 0) & (w == w[0]).all(axis=0)).sum())
    assert row["deals_decided"] == decided and row["decided_share"] == pytest.approx(decided / n)
    assert 0 < decided < n
    assert [d["strategy"] for d in a["decided"]] == ["greedy"] == [a["best_heuristic"]]
    lo, hi = row["points_diff_ci"]
    assert lo < row["points_diff"] < hi


def test_ladder_ratings_and_reproducible_with_two_workers(tmp_path):
    args = [
        "--variant",
        "classic",
        "--strategies",
        "random,heaviest,greedy",
        "--deals",
        "40",
        "--seed",
        "5",
    ]
    one = skill(tmp_path, *args, "--workers", "1", sub="one")["analysis"]
    two = skill(tmp_path, *args, "--workers", "2", "--chunk-size", "20", sub="two")["analysis"]
    assert one == two
    assert [r["strategy"] for r in one["ladder"]] == ["heaviest", "greedy"]
    assert {r["strategy"] for r in one["ratings"]} == {"random", "heaviest", "greedy"}
    assert len(one["legs"]) == 3


@pytest.mark.parametrize(("variant", "players"), [("block", 2), ("fives", 3)])
def test_perfect_information_value_of_the_deals(tmp_path, variant, players):
    """The leader side's win rate and points under perfect play are the solver's on the
    same deals (dominosim.solver.solve_deals), over chunks; with three sides the paranoid
    bound, and said so; --budget 0 solves nothing."""
    from dominosim.engine.solver import solve_deals

    n, seed = 30, 3
    args = [
        "--variant",
        variant,
        "--players",
        str(players),
        "--strategies",
        "random,heaviest",
        "--deals",
        str(n),
        "--seed",
        str(seed),
        "--workers",
        "1",
        "--chunk-size",
        "20",
    ]
    pi = skill(tmp_path, *args)["analysis"]["perfect_information"]
    sol = solve_deals(make_rules(variant, players), seed, range(n))
    assert sol.solved.all() and pi["solved"] == pi["deals"] == n
    assert pi["leader_win_rate"] == pytest.approx(sol.win.mean())
    assert pi["leader_points"] == pytest.approx(sol.value.mean())
    assert pi["paranoid"] == (players == 3)
    assert (
        skill(tmp_path, *args, "--budget", "0", sub="none")["analysis"]["perfect_information"]
        is None
    )


def test_the_oracle_is_on_the_ladder_and_marked(tmp_path):
    """The oracle (the solver's move on the true deal) can be named, plays every seating, and
    every report marks it as perfect-information play; against random it wins more hands
    than the best heuristic does."""
    args = [
        "--variant",
        "block",
        "--strategies",
        "random,greedy,oracle",
        "--deals",
        "40",
        "--seed",
        "2",
        "--workers",
        "1",
    ]
    data = skill(tmp_path, *args)
    assert data["perfect_information_strategies"] == ["oracle"]
    rows = {r["strategy"]: r for r in data["analysis"]["ladder"]}
    assert rows["oracle"]["perfect_information"] and not rows["greedy"]["perfect_information"]
    assert rows["oracle"]["hand_win_rate"] > rows["greedy"]["hand_win_rate"]
    r = CliRunner().invoke(main, ["skill", *args, "--out", str(tmp_path / "text")])
    assert r.exit_code == 0, r.output
    assert "oracle [perfect information]: it sees every hand" in r.stdout
    assert r.stdout.count("oracle [perfect information]") >= 4  # summary, tables, ratings
    assert "greedy [perfect information]" not in r.stdout


def test_decision_accuracy_rates_each_strategys_own_decisions(tmp_path):
    """Decision accuracy (issue 20): each strategy's decisions with a real choice on its
    first deals against random, rated by the solver on the true deal. The figures are those
    of dominosim.solver.decision_accuracy over every seating; the watched games are the
    run's games; the oracle (the solver's own move) is rated optimal at every decision and a
    heuristic above random; --accuracy-deals 0 rates nothing."""
    from dominosim import runner
    from dominosim.engine import solver

    n, k, seed = 40, 15, 4
    args = [
        "--variant",
        "block",
        "--strategies",
        "random,greedy,oracle",
        "--deals",
        str(n),
        "--seed",
        str(seed),
        "--workers",
        "1",
        "--chunk-size",
        "20",
    ]
    a = skill(tmp_path, *args, "--accuracy-deals", str(k))["analysis"]
    assert a["accuracy_deals"] == k
    rows = {r["strategy"]: r for r in a["accuracy"]}
    assert list(rows) == ["random", "greedy", "oracle"]
    rules = make_rules("block", 2)
    for x in rows:
        optimal = rated = decisions = 0
        for seating in (
            ((x, "random"), ("random", x))
            if x != "random"
            else [("random", "greedy"), ("greedy", "random")]
        ):
            strats = [runner.make_strategy(y) for y in seating]
            acc = solver.decision_accuracy(rules, seed, strats, range(k), [seating.index(x)])
            optimal += int((acc.optimal == 1).sum())
            rated += int((acc.optimal >= 0).sum())
            decisions += len(acc.optimal)
        r = rows[x]
        assert (r["optimal"], r["rated"], r["decisions"], r["hands"]) == (
            optimal,
            rated,
            decisions,
            2 * k,
        )
        lo, hi = r["accuracy_ci"]
        assert r["accuracy"] == pytest.approx(optimal / rated)
        assert lo <= r["accuracy"] <= hi
    assert rows["oracle"]["accuracy"] == 1.0
    assert rows["random"]["accuracy"] < rows["greedy"]["accuracy"] < 1.0
    ladder = {r["strategy"]: r for r in a["ladder"]}
    assert ladder["greedy"]["accuracy"] == rows["greedy"]["accuracy"]
    none = skill(tmp_path, *args, "--accuracy-deals", "0", sub="none")["analysis"]
    assert none["accuracy"] == [] and none["ladder"][0]["accuracy"] is None


@pytest.mark.parametrize(("variant", "players"), [("fives", 2), ("blind", 2), ("sniff", 3)])
def test_watched_decisions_leave_the_games_as_they_are(variant, players):
    """Rating a seat's decisions asks its strategy in Python where the core would decide:
    the hands played are the same, record for record, and the decisions rated are that
    seat's (with three sides under the paranoid objective)."""
    from dominosim.engine import solver

    rules = make_rules(variant, players)
    seats = ["greedy"] + ["random"] * (players - 1)
    plain = _hands(rules, 9, seats, 30)
    seen = []
    watched = [solver._Watched(get(seats[0]), seen)] + [get(x) for x in seats[1:]]
    h, _ = BatchEngine(rules, 9, watched, range(30), unit="hand").run()
    assert plain.keys() == h.keys()
    for key in plain:
        assert np.array_equal(plain[key], h[key]), key
    assert seen and all((s[2] == 0).all() for s in seen)
    acc = solver.decision_accuracy(rules, 9, [get(x) for x in seats], range(30), [0])
    assert acc.paranoid == (players == 3)
    assert len(acc.optimal) == sum(len(s[4]) for s in seen) and (acc.seat == 0).all()
    assert np.isin(acc.optimal, (-1, 0, 1)).all()  # (-1: sniff's budget ran out)
    assert (acc.optimal >= 0).mean() > 0.9 and (acc.optimal == 0).any()


def test_interrupted_skill_resumes_to_the_same_report(tmp_path, monkeypatch):
    """``dominosim skill --resume DIR``, the command an interrupted skill run prints, finishes
    the run (--round-robin is not "given" by its default), a chunk deleted meanwhile is played
    again, and the report equals an uninterrupted run's."""
    from pathlib import Path

    from runs import stop_after, strip

    args = [
        "--variant",
        "fives",
        "--strategies",
        "random,greedy,heaviest",
        "--deals",
        "12",
        "--seed",
        "5",
        "--chunk-size",
        "6",
        "--budget",
        "0",
        "--workers",
        "1",
    ]
    full = skill(tmp_path, *args, sub="full")
    stop_after(monkeypatch, 3)
    r = CliRunner().invoke(main, ["skill", *args, "--out", str(tmp_path / "cut")])
    assert r.exit_code == 130, r.output
    assert "finish with: dominosim skill --resume" in r.stderr, r.stderr
    run_dir = r.stderr.split("kept in ")[1].split(";")[0]
    stop_after(monkeypatch, None)
    (Path(run_dir) / "chunks" / "0-1.agg.json").unlink()
    r = CliRunner().invoke(main, ["skill", "--resume", run_dir, "--json"])
    assert r.exit_code == 0, r.output + r.stderr
    assert strip(json.loads(r.stdout)) == strip(full)
    again = CliRunner().invoke(main, ["skill", "--resume", run_dir, "--json", "--against-random"])
    assert again.exit_code == 2 and "--round-robin cannot be given" in again.stderr


def test_metric_is_compares_what_decides_the_game_by_default(tmp_path):
    """skill ranks as compare does (issue 46): in fives points per hand decide the game, so
    they rank by default; --metric hands ranks by hand wins; matches is refused (skill plays
    single hands: not one of its choices), as an unknown metric is."""
    base = ["--variant", "fives", "--strategies", "random,greedy,doubles-first", "--deals", "10"]
    base += ["--budget", "0", "--seed", "3", "--workers", "1"]
    rep = skill(tmp_path, *base, sub="points")
    a = rep["analysis"]
    assert a["metric"] == "points" and a["metric_default"] is True
    assert all("wins" not in r and "points_diff" in r for r in a["ratings"])
    assert a["points_matrix"][0][0] is None and a["points_matrix"][0][1]["deals"] == 10
    h = skill(tmp_path, *base, "--metric", "hands", sub="hands")["analysis"]
    assert h["metric"] == "hands" and h["metric_default"] is False
    assert all("wins" in r for r in h["ratings"]) and h["matrix"] == a["matrix"]
    text = CliRunner().invoke(main, ["report", rep["run_dir"]]).stdout
    assert "ranked by points per hand (what decides the game" in text
    assert "ratings (by points per hand):" in text
    assert text.index("points per hand gained (row vs column)") < text.index("win rates (row")
    for bad, why in (("matches", "is not one of"), ("x", "is not one of")):
        r = CliRunner().invoke(main, ["skill", *base, "--metric", bad, "--out", str(tmp_path)])
        assert r.exit_code == 2 and why in r.stderr and "Traceback" not in r.output
