"""pimc's close decisions (``extend``, ``close``; strategies/pimc.py, docs/strategies.md): the
lead is the sign-flip statistic it is defined as; a close decision is taken on its first
round of deals and the further rounds from the keys the module names; off (the default, or
``close=0``) gives exactly the plain decisions; a decision does not depend on its batch; the
parameters are checked."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dominosim.base.errors import StrategyError
from dominosim.game import seeding
from dominosim.strategy import get

from helpers import greedy_decisions, hands_by_batch, pimc_module


def _decisions(variant, matches=3):
    return greedy_decisions(variant, matches)


def test_the_lead_is_the_sign_flip_statistic():
    lead = pimc_module().lead
    ok = np.ones(4, dtype=bool)
    # best per deal: {0}, {0}, {1}, {0, 1}: votes 3, 2; d = 1, 1, -1, 0 -> 1 / sqrt(3)
    score = np.array([[5, 1], [4, 0], [0, 3], [2, 2]])
    assert lead(score, ok, "vote") == pytest.approx(1 / math.sqrt(3))
    # a deal drawn twice counts twice: d c = 2, 1, -1, 0 -> 2 / sqrt(6)
    assert lead(score, ok, "vote", np.array([2, 1, 1, 1])) == pytest.approx(2 / math.sqrt(6))
    # mean: differences 4, 4, -3, 0 -> 5 / sqrt(41)
    assert lead(score, ok, "mean") == pytest.approx(5 / math.sqrt(41))
    # no deal tells the two apart, or one action: not close at any threshold
    assert lead(np.array([[1, 1, 0], [3, 3, 1]]), ok[:2], "vote") == math.inf
    assert lead(np.array([[1], [2]]), ok[:2], "vote") == math.inf
    # an unsolved deal counts for nothing; the runner-up is rank's second (a third action)
    score = np.array([[0, 1, 9], [0, 1, 9], [5, 0, 0], [0, 0, 7]])
    assert lead(score, np.array([True, True, True, False]), "vote") == pytest.approx(1 / 3**0.5)


def test_rank_orders_as_combine_chooses():
    pm = pimc_module()
    rng = np.random.default_rng(3)
    for _ in range(200):
        score = rng.integers(-3, 4, size=(int(rng.integers(1, 9)), int(rng.integers(2, 6))))
        ok = rng.random(len(score)) < 0.8
        ok[0] = True
        count = rng.integers(1, 4, size=len(score))
        for objective in ("vote", "mean"):
            order = pm.rank(score, ok, objective, count)
            assert sorted(order) == list(range(score.shape[1]))
            assert pm.combine(score, ok, objective, count) == order[0]


def _rounds(pimc, obs, legal, key, rounds):
    """The first round and ``rounds`` further ones, concatenated, by the module's keys."""
    pm = pimc_module()
    n = pimc.settings["samples"]
    keys = [key] + [seeding.key(key, pm.EXTEND_COORD, r) for r in range(1, rounds + 1)]
    parts = [pimc._round(obs, legal, k, n) for k in keys]
    return tuple(np.concatenate(p) for p in zip(*parts, strict=True))


def test_a_close_decision_is_taken_on_every_round_of_its_deals():
    """``extend=24`` at 8 samples a round: up to three rounds more while the lead is below
    ``close``; the decision is the vote over every round's deals, drawn from the round keys."""
    pm = pimc_module()
    checked = extended = changed = 0
    for obs, legal, key in _decisions("block", 6):
        ext = get("pimc", samples=8, extend=24, close=1.5)
        plain = get("pimc", samples=8)
        got = ext.choose_one(obs, legal, key)
        first = _rounds(plain, obs, legal, key, 0)
        rounds = 0
        while rounds < 3 and pm.lead(first[0], first[1], "vote", first[2]) < 1.5:
            rounds += 1
            first = _rounds(plain, obs, legal, key, rounds)
        assert got == legal[pm.combine(first[0], first[1], "vote", first[2])]
        assert ext.added == 8 * rounds and ext.extended == int(rounds > 0)
        extended += rounds > 0
        changed += got != plain.choose_one(obs, legal, key)
        checked += 1
    assert checked > 20 and extended > 5 and changed >= 1


@pytest.mark.parametrize("variant", ["fives", "block"])
def test_off_gives_the_plain_decisions(variant):
    """``close=0`` never extends (the lead is never below 0); with the default (``extend=0``)
    these are the decisions the golden transcripts and pinned reports hold."""
    plain = get("pimc", samples=8)
    never = get("pimc", samples=8, extend=64, close=0)
    for obs, legal, key in _decisions(variant, 2):
        assert never.choose_one(obs, legal, key) == plain.choose_one(obs, legal, key)
    assert never.extended == never.added == 0
    assert get("pimc").label == "pimc" and get("pimc").settings["extend"] == 0


def test_an_extended_decision_does_not_depend_on_its_batch():
    """The same hands with every game in one batch and one game a batch (the decisions'
    keys are the same; the extension's rounds come from each decision's own key)."""
    (one, s1), (six, s6) = hands_by_batch(
        lambda: get("pimc", samples=8, extend=16, close=2.0), (1, 6), 6
    )
    assert s1.extended > 0 and s6.extended > 0
    assert one == six


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"extend": -1}, "extend must be an integer >= 0, not -1"),
        ({"extend": True}, "extend must be an integer >= 0, not True"),
        ({"extend": 2.5}, "extend must be an integer >= 0, not 2.5"),
        ({"extend": 16385}, "extend must be at most 16384, not 16385; use a smaller extend"),
        ({"close": -0.5}, r"close must be a number from 0\.0 to 10\.0, not -0\.5"),
        ({"close": 11}, r"close must be a number from 0\.0 to 10\.0, not 11"),
        ({"close": "near"}, r"close must be a number from 0\.0 to 10\.0, not 'near'"),
    ],
)
def test_parameters(bad, message):
    with pytest.raises(StrategyError, match=f"^pimc: {message}$"):
        get("pimc", **bad)


def test_the_options_read_back_from_their_label():
    from dominosim.strategy.spec import parse_strategy

    p = get("pimc", extend=128, close=1.5)
    assert p.label == "pimc:extend=128:close=1.5"
    spec = parse_strategy(p.label)
    assert get(spec.name, **dict(spec.params)).settings == p.settings
