"""pimc's ``partner`` lever (issue 47 point 3; strategies/pimc.py, "Partner"): the solver's
policy table models the root seat's partner as a compiled policy that sees its own hand and the
table only. Its values equal a minimax over the reference engine in which the partner plays
the policy's Python file (``choose_one`` on its own Observation) and every other seat searches;
without a table (or with a table that names only the root seat) the values are the plain
search's, byte for byte; a partner that follows a policy is never worth more than one that
searches; pimc's option is checked and deterministic, and changes nothing without a partner."""

from __future__ import annotations

import random

import numpy as np
import pytest
from test_solver import SEED, _finish, _Need, _Play, _Scripted, _TooBig, leaf_value, replay

from dominosim.base.errors import StrategyError
from dominosim.engine import BatchEngine, kernel, solver
from dominosim.game.variants import make_rules
from dominosim.strategy import get


class _Modelled(_Scripted):
    """A scripted reference hand in which one seat past the script plays its policy's Python
    (``model``: the seat and the strategy) instead of stopping the replay."""

    model = (-1, None)

    def ask(self, seat, legal, phase="play"):
        p = self.play_
        if len(legal) > 1 and len(p.log) >= len(p.script) and seat == self.model[0]:
            p.script.append(self.model[1].choose_one(self.observe(seat, phase), list(legal), 0))
        return super().ask(seat, legal, phase)


def _replay(rules, mid, play, model):
    hand = _Modelled.deal(rules, SEED, mid, 0)
    hand.model, hand.play_ = model, play
    try:
        hand.play(None)
    except _Need as need:
        return need
    return _finish(hand)


def modelled_minimax(rules, mid, script, root_side, model, budget):
    """The value of the position after ``script`` with ``model``'s seat playing its policy
    (the root side maximises, the other side minimises), and its children's values."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig
    play = _Play(script)
    res = _replay(rules, mid, play, model)
    if not isinstance(res, _Need):
        return leaf_value(rules, res, root_side), {}
    seat, legal = res.args
    kids = {
        a: modelled_minimax(rules, mid, [*play.script, a], root_side, model, budget)[0]
        for a in legal
    }
    best = max if rules.side_of(seat) == root_side else min
    return best(kids.values()), kids


def partner_endgames(rules, n, rng, policy, max_left=5, max_nodes=48):
    """``n`` endgames (match id, prefix, the modelled minimax's child values) of 4-player
    partnership hands played at random, cut where the partner of the seat to move has a
    decision with a choice later in that random line."""
    out, mid = [], 0
    while len(out) < n:
        mid += 1
        assert mid < 60 * n, "too few endgames"
        line = _Play([], pick=rng.choice)
        replay(rules, mid, line)
        log = line.log
        cuts = [
            k
            for k in range(max(0, len(log) - max_left), len(log))
            if any(s == (log[k][0] + 2) % 4 for s, *_ in log[k + 1 :])
        ]
        if not cuts:
            continue
        k = rng.choice(cuts)
        root = log[k][0]
        model = ((root + 2) % 4, policy)
        try:
            _, kids = modelled_minimax(
                rules, mid, line.script[:k], rules.side_of(root), model, [max_nodes]
            )
        except _TooBig:
            continue
        out.append((mid, line.script[:k], kids))
    return out


def _table(rules, seats):
    """The policy table that models ``seats`` (seat -> strategy name)."""
    return kernel.policy_table(
        [get(seats[s]) if s in seats else None for s in range(4)], rules=rules
    )


def _records(rules, games):
    return solver._engine(rules, SEED, [g[0] for g in games]).play_prefixes([g[1] for g in games])


@pytest.mark.parametrize(("variant", "policy"), [("block", "learned"), ("fives", "greedy")])
def test_the_modelled_partner_equals_a_minimax_where_it_plays_its_python(variant, policy):
    rules = make_rules(variant, 4, partnership=True)
    rng = random.Random(f"{SEED}-partner-{variant}")
    games = partner_endgames(rules, 30, rng, get(policy))
    st, bst = _records(rules, games)
    seats = st["to_move"]
    differ = 0
    for i, (_, _, kids) in enumerate(games):
        table = _table(rules, {(int(seats[i]) + 2) % 4: policy})
        av = solver.solve_actions(rules, st[i : i + 1], bst, policy=table)
        plain = solver.solve_actions(rules, st[i : i + 1], bst)
        k = int(av.count[0])
        got = {int(a): int(v) for a, v in zip(av.action[0, :k], av.score[0, :k], strict=True)}
        assert got == kids, (variant, games[i][:2])
        assert (av.score[0, :k] <= plain.score[0, :k]).all()  # (a restricted maximiser)
        differ += bool((av.score[0, :k] != plain.score[0, :k]).any())
    assert differ >= 5  # (the model changes values: the test can tell)


def _positions(variant, players, matches=6):
    """True positions at decisions with a choice (random play), as slot records."""
    rules = make_rules(variant, players, partnership=players == 4)
    rng = random.Random(f"{SEED}-{variant}-{players}")
    games = []
    for mid in range(1, matches + 1):
        line = _Play([], pick=rng.choice)
        replay(rules, mid, line)
        games += [(mid, line.script[:k]) for k in range(0, len(line.log), 3)]
    st, bst = _records(rules, games)
    return rules, st, bst


@pytest.mark.parametrize(("variant", "players"), [("block", 4), ("fives", 4), ("fives", 2)])
def test_without_a_modelled_seat_the_values_are_the_plain_searchs(variant, players):
    rules, st, bst = _positions(variant, players)
    plain = solver.solve_actions(rules, st, bst, budget=200_000)
    assert (plain.count != 0).all()
    for table in (kernel.policy_table(), _table(rules, {0: "learned"})):
        # (an empty table; one naming seat 0, where seat 0 is the root: never modelled)
        rows = st["to_move"] == 0 if table[0] != kernel.POL_PYTHON else slice(None)
        got = solver.solve_actions(rules, st[rows], bst, budget=200_000, policy=table)
        for f in ("action", "score", "count"):
            assert np.array_equal(getattr(got, f), getattr(plain, f)[rows]), f


def test_the_core_refuses_a_random_or_malformed_table():
    rules, st, bst = _positions("block", 4, matches=1)
    table = kernel.policy_table()
    table[2] = kernel.POLICIES.index("random")
    with pytest.raises(ValueError, match="random"):
        solver.solve_actions(rules, st, bst, policy=table)
    with pytest.raises(ValueError, match="policy table"):
        solver.solve_actions(rules, st, bst, policy=table[:4])


@pytest.mark.parametrize("bad", ["nobody", "random", "partner", 3])
def test_partner_must_name_a_compiled_policy(bad):
    with pytest.raises(StrategyError, match="pimc: partner must be one of solver, heaviest"):
        get("pimc", partner=bad)


def test_alphamu_and_a_partner_model_are_refused_together():
    """alpha-mu searches the partner's replies: a partner model beside it would be ignored,
    so the pair is refused (each alone is taken)."""
    with pytest.raises(StrategyError, match="alphamu and partner do not combine"):
        get("pimc", alphamu=8, partner="learned")
    assert get("pimc", alphamu=8).settings["partner"] == "solver"
    assert get("pimc", partner="learned").settings["alphamu"] == 0


def _games(rules, strategies, ids):
    hands, _ = BatchEngine(rules, 3, strategies, ids, unit="hand").run()
    return {k: np.asarray(v).tolist() for k, v in hands.items()}


def test_pimc_partner_is_deterministic_and_inert_without_a_partner():
    rules = make_rules("block", 4, partnership=True)
    a = get("pimc", partner="learned", samples=8)
    seats = [a, get("greedy"), a, get("greedy")]
    once = _games(rules, seats, range(4))
    again = _games(rules, [get("pimc", partner="learned", samples=8), *seats[1:]], range(4))
    assert once == again
    two = make_rules("block", 2)
    plain = _games(two, [get("pimc", samples=8), get("greedy")], range(4))
    assert (
        _games(two, [get("pimc", partner="learned", samples=8), get("greedy")], range(4)) == plain
    )
