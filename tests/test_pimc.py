"""pimc (strategies/pimc.py; docs/strategies.md): perfect-information Monte Carlo on the core's
solver. The solver's value of every legal action (``solver.solve_actions``) agrees with the
solver asked action by action; with the true deal as its one sample pimc plays an optimal
move, as the oracle does; its choice is the best of its combined values; the positions it
solves keep what the seat knows; a seed gives the same decisions with 1 and 2 workers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from dominosim.cli import main
from dominosim.engine import BatchEngine, solver
from dominosim.engine.tables import tiles_of
from dominosim.game import tiles
from dominosim.game.reference import play_match
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy, classify, get

from runs import strip


def _pimc_module():
    return sys.modules[type(get("pimc")).__module__]


def _mc_module():
    return sys.modules[type(get("mc")).__module__]


@classify  # (it reads the true state: fixed perfect_information)
class _TrueSlots(Strategy):
    """Plays random and keeps a copy of the true slot (and blind's rows) at each decision with
    two or more legal actions from ``late`` tiles on the table on (small positions)."""

    name = "true-slots"
    classifier = "perfect_information"  # (it reads the true state: obs._e)

    def __init__(self, late: int) -> None:
        super().__init__()
        self.late, self.kept = late, []
        self.rng = get("random")

    def choose(self, obs, legal, keys):
        e, g = obs._e, np.asarray(obs._g)  # the true state: for the solver's eyes
        sel = np.flatnonzero((legal.counts() >= 2) & (e.state.ntable[g] >= self.late))
        for i in sel:
            bst = (
                e.state.blind_records[g[i] : g[i] + 1].copy()
                if e.blind
                else e.state.blind_records[:1].copy()
            )
            self.kept.append((e.state.records[g[i] : g[i] + 1].copy(), bst))
        return self.rng.choose(obs, legal, keys)


def _true_positions(variant: str, players: int, late: int, matches: int = 12):
    rules = make_rules(variant, players)
    keep = _TrueSlots(late)
    BatchEngine(rules, 4, [keep] * players, range(matches), unit="hand").run()
    return rules, keep.kept


CASES = [
    ("fives", 2, 8),
    ("block", 2, 4),
    ("classic", 2, 10),
    ("kozel", 2, 10),
    ("blind", 2, 6),
    ("two-lane", 2, 6),
    ("sniff", 2, 12),
    ("bergen", 3, 8),  # (three sides: the paranoid values)
    ("muggins", 2, 10),
]


@pytest.mark.parametrize(("variant", "players", "late"), CASES)
def test_every_actions_value_agrees_with_the_solver_asked_action_by_action(variant, players, late):
    """solve_actions' best value is solve_slots' value for the seat to move, and an action
    is worth it exactly where solve_slots rates that action optimal (a null-window search of
    its child, asked one action at a time)."""
    rules, kept = _true_positions(variant, players, late)
    assert len(kept) >= 5
    checked = 0
    for st, bst in kept[:12]:
        av = solver.solve_actions(rules, st, bst)
        k = int(av.count[0])
        assert k >= 2
        seat = int(st["to_move"][0])
        whole = solver.solve_slots(rules, st, bst, seats=[seat])
        best = av.score[0, :k].max()
        assert av.value[0, :k][av.score[0, :k] == best][0] == whole.value[0]
        for j in range(k):
            one = solver.solve_slots(rules, st, bst, seats=[seat], chosen=[av.action[0, j]])
            assert one.optimal[0] == int(av.score[0, j] == best), (variant, j)
            checked += 1
    assert checked >= 10


def test_values_are_searched_to_the_end_by_a_plain_minimax():
    """On small endgames every action's value equals a plain minimax's value of the position
    with that action as the one chosen (the solver's exhaustive mode, no table, no pruning)."""
    rules, kept = _true_positions("fives", 2, 12)
    for st, bst in kept[:6]:
        av = solver.solve_actions(rules, st, bst)
        plain = solver.solve_slots(rules, st, bst, seats=[int(st["to_move"][0])], plain=True)
        k = int(av.count[0])
        assert av.score[0, :k].max() == 2 * plain.value[0] + int(plain.win[0])


def test_an_exhausted_budget_says_so():
    rules, kept = _true_positions("sniff", 2, 0, matches=2)
    st, bst = kept[0]
    av = solver.solve_actions(rules, st, bst, budget=50)
    assert av.count[0] == -1  # never a guess


def test_combine_votes_then_mean_then_canonical_order():
    combine = _pimc_module().combine
    ok = np.array([True, True, True])
    # deal by deal the best actions: {1}, {0, 1}, {2}: votes 1, 2, 1
    score = np.array([[0, 5, 1], [4, 4, 0], [1, 0, 9]])
    assert combine(score, ok, "vote") == 1
    assert combine(score, ok, "mean") == 2  # means 5/3, 3, 10/3
    # a tie in votes goes to the higher mean, a tie in both to the first
    assert combine(np.array([[3, 1], [0, 5]]), ok[:2], "vote") == 1
    assert combine(np.array([[3, 1], [1, 3]]), ok[:2], "vote") == 0
    # an unsolved deal counts for nothing
    assert combine(score, np.array([True, False, True]), "vote") == 2


def _known_deal_position():
    """A classic 2-player decision where the stock is empty and nothing is out of play: the
    unseen tiles are exactly the opponent's hand, so every sampled deal is the true one."""
    rules = make_rules("classic", 2)
    w = _Seen()
    for m in range(40):
        play_match(rules, 6, m, [w, w], unit="hand")
        for obs, legal, key in w.seen:
            opp = 1 - obs.seat
            unseen = 28 - len(obs.hand) - len(obs.table) - len(obs.face_up)
            if obs.stock_size == 0 and unseen == obs.counts[opp] and len(legal) >= 3:
                return rules, obs, legal, key
        w.seen.clear()
    raise AssertionError("no position with the deal known")


class _Seen(Strategy):
    name = "seen"

    def __init__(self):
        super().__init__()
        self.seen = []
        self.rng = get("random")

    def choose_one(self, obs, legal, key):
        self.seen.append((obs, list(legal), key))
        return self.rng.choose_one(obs, legal, key)


def test_with_the_true_deal_as_its_sample_pimc_plays_an_optimal_move():
    rules, obs, legal, key = _known_deal_position()
    pimc = get("pimc", samples=1)
    a = pimc.choose_one(obs, legal, key)
    plan = _mc_module().positions(obs, legal, key, 1)
    opp = 1 - obs.seat
    hidden = sorted(set(range(28)) - set(obs.hand) - set(obs.table))
    assert tiles_of(int(plan.hands[0, opp])) == hidden  # (the one sample is the true deal)
    st, bst = plan.engine(rules, [None, None]).slot_records()
    rated = solver.solve_slots(rules, st, bst, seats=[obs.seat], chosen=[a])
    assert rated.solved[0] and rated.optimal[0] == 1
    assert pimc.fallbacks == 0 and pimc.unsolved == 0


def test_the_positions_pimc_solves_keep_what_the_seat_knows():
    """Every sampled position: the seat's own hand as it is, no other seat holds a public tile
    (the table, face-up tiles) or a tile showing a value it is known to lack, every hand its
    count, the table as it is."""
    positions = _mc_module().positions
    checked = voids = 0
    for variant, players in (("fives", 3), ("classic", 2), ("block", 4)):
        w = _Seen()
        for m in range(3):
            play_match(make_rules(variant, players), 9, m, [w] * players, unit="hand")
        for obs, legal, key in w.seen[::2]:
            if len(legal) < 2:
                continue
            plan = positions(obs, legal, key, 6)
            public = set(obs.table) | set(obs.face_up)
            for j in range(len(plan.hands)):
                hands = [tiles_of(int(h)) for h in plan.hands[j]]
                assert sorted(hands[obs.seat]) == sorted(obs.hand)
                assert [len(h) for h in hands] == list(obs.counts)
                for s in range(players):
                    if s == obs.seat:
                        continue
                    assert not public & set(hands[s])
                    assert not any(set(tiles.halves(x)) & obs.voids[s] for x in hands[s])
                    voids += bool(obs.voids[s])
                assert int(plan.table[j]) == sum(1 << x for x in obs.table)
                checked += 1
    assert checked > 100 and voids > 10


def test_parameters():
    assert get("pimc", samples=8).label == "pimc:samples=8"
    for bad in ({"samples": 0}, {"budget": True}, {"objective": "best"}, {"min_solved": 0}):
        with pytest.raises(Exception, match=next(iter(bad))):
            get("pimc", **bad)


@pytest.mark.parametrize(
    "spec", ["pimc:samples=8:infer=on", "mc:samples=16:points=4", "pimc:samples=8:extend=16"]
)
def test_the_same_decisions_with_one_worker_and_two(tmp_path, spec):
    """pimc, mc with inference (issue 38) and pimc extending close decisions (issue 47): a
    seed gives the same games on 1 and 2 workers."""
    base = [
        "run",
        "--variant",
        "fives",
        "--strategies",
        f"{spec},greedy",
        "--games",
        "12",
        "--seed",
        "3",
        "--chunk-size",
        "4",
        "--records",
        "all",
        "--json",
    ]
    out = []
    for workers in ("1", "2"):
        r = CliRunner().invoke(
            main, [*base, "--workers", workers, "--out", str(tmp_path / workers)]
        )
        assert r.exit_code == 0, r.output
        data = json.loads(r.stdout)
        chunks = sorted((Path(data["run_dir"]) / "chunks").glob("*.parquet"))
        out.append((strip(data), [pd.read_parquet(c) for c in chunks]))
    assert out[0][0] == out[1][0]
    assert len(out[0][1]) == len(out[1][1]) == 3  # (12 games in chunks of 4)
    for one, two in zip(out[0][1], out[1][1], strict=True):
        pd.testing.assert_frame_equal(one, two)
