"""``dominosim.action_values`` (docs/strategies.md, "Search as building blocks"): every legal
action's value at a real decision by the solver on a given deal (= the solver asked through
another path: the game replayed to the decision), by ``mc`` (its playouts: the action it plays
is the best value) and by ``pimc`` (the mean of the solver's values over its sampled deals);
deterministic from (Observation, key); a one-line DominosimError for every bad input."""

from __future__ import annotations

import numpy as np
import pytest

from dominosim import action_values, make_rules
from dominosim.base.errors import DominosimError, StrategyError
from dominosim.engine import solver
from dominosim.game import actions
from dominosim.game.reference import Hand
from dominosim.search import NoDealError
from dominosim.strategies.mc import sample_deals
from dominosim.strategy import Strategy, get

SEED = 38


class Recorder(Strategy):
    """Plays greedy and keeps every decision: (obs, legal, key, true hands, true stock), and
    in ``played`` the actions."""

    name = "recorder"

    def __init__(self):
        super().__init__()
        self.seen, self.played, self.hand, self.inner = [], [], None, get("greedy")

    def choose_one(self, obs, legal, key):
        h = self.hand
        self.seen.append((obs, list(legal), key, [list(x) for x in h.hands], list(h.stock)))
        self.played.append(self.inner.choose_one(obs, legal, key))
        return self.played[-1]


def decisions(rules, match_id, played=False):
    """Every decision of the first hand of ``match_id`` (seed SEED), played by greedy (and
    the actions played)."""
    rec = Recorder()
    hand = Hand.deal(rules, SEED, match_id, 0, strategies=[rec] * rules.players)
    rec.hand = hand
    hand.play(None)
    return (rec.seen, rec.played) if played else rec.seen


RULE_SETS = [("fives", 2, {}), ("block", 4, {"partnership": True}), ("classic", 2, {})]


@pytest.mark.parametrize("variant,players,opts", RULE_SETS)
def test_solver_values_on_the_true_deal_are_the_solvers_value_of_the_decision(
    variant, players, opts
):
    """RULES §1.13-§1.15 (the hand's points per side): on the true deal, the best action's
    value is the solver's value of the position reached by replaying the hand's decisions
    (solver.solve_after, the batch engine's own path), and every action the solver rates
    optimal there has that value; the others have less or equal."""
    rules = make_rules(variant, players, **opts)
    checked = 0
    for mid in range(3):
        seen, played = decisions(rules, mid, played=True)
        for i, (obs, legal, key, hands, stock) in enumerate(seen):
            script = played[:i]
            values = dict(action_values(obs, key, "solver", legal=legal, deal=(hands, stock)))
            assert list(values) == legal
            sol = solver.solve_after(rules, SEED, [mid], [script], budget=2_000_000)
            rated = solver.solve_after(
                rules, SEED, [mid] * len(legal), [script] * len(legal), chosen=legal
            )
            assert sol.solved.all() and rated.solved.all()
            # the values count the points from the decision on; the hand's points so far (in
            # the first hand of a match, its scores) are the same for every action
            side = rules.side_of(obs.seat)
            before = obs.scores[side] - sum(obs.scores) + obs.scores[side]
            assert max(values.values()) + before == sol.value[0]
            optimal = [a for a, o in zip(legal, rated.optimal, strict=True) if o == 1]
            assert optimal and all(values[a] + before == sol.value[0] for a in optimal)
            checked += 1
    assert checked >= 10


def test_mc_values_give_the_action_mc_plays_and_repeat_with_the_key():
    rules = make_rules("fives", 2)
    mc = get("mc", samples=24)
    for obs, legal, key, _, _ in decisions(rules, 1):
        values = action_values(obs, key, "mc:samples=24", legal=legal)
        assert [a for a, _ in values] == legal
        best = max(v for _, v in values)
        assert next(a for a, v in values if v == best) == mc.choose_one(obs, legal, key)
        assert action_values(obs, key, "mc", legal=legal, samples=24) == values  # (keywords)
        assert action_values(obs, key, "mc", legal=legal, options={"samples": 24}) == values


def test_pimc_values_are_the_mean_solver_values_over_its_sampled_deals():
    """pimc's value of an action (the plain sampler: infer=off) is the mean, over the deals
    its sampler draws from the key (mc.sample_deals), of the solver's value of that action on
    each deal."""
    rules = make_rules("block", 4, partnership=True)
    checked = 0
    for obs, legal, key, _, _ in decisions(rules, 2)[-6:]:
        got = action_values(obs, key, "pimc:samples=6:infer=off", legal=legal, budget=2_000_000)
        per_deal = [
            [v for _, v in action_values(obs, key, "solver", legal=legal, deal=d)]
            for d in sample_deals(obs, key, 6)
        ]
        want = np.mean(per_deal, axis=0)
        assert [a for a, _ in got] == legal
        assert np.allclose([v for _, v in got], want)
        checked += 1
    assert checked == 6


def test_values_depend_on_the_key_only_through_the_sampled_deals():
    rules = make_rules("fives", 2)
    obs, legal, key, hands, stock = decisions(rules, 0)[1]
    a = action_values(obs, key, "pimc:samples=8", legal=legal)
    assert action_values(obs, key, "pimc:samples=8", legal=legal) == a
    solved = action_values(obs, key, "solver", legal=legal, deal=(hands, stock))
    assert action_values(obs, key + 1, "solver", legal=legal, deal=(hands, stock)) == solved


def test_blind_decisions_are_valued_by_mc_and_pimc_and_refused_by_the_solver():
    rules = make_rules("blind", 2)
    obs, legal, key, hands, stock = decisions(rules, 0)[-1]
    assert obs.row is not None
    for method in ("mc:samples=8", "pimc:samples=8"):
        assert [a for a, _ in action_values(obs, key, method, legal=legal)] == legal
    with pytest.raises(DominosimError, match="blind's rows"):
        action_values(obs, key, "solver", legal=legal, deal=(hands, stock))


def _bad(obs, legal, key, deal):
    hands, stock = deal
    other = 1 - obs.seat
    swapped = [list(h) for h in hands]
    swapped[other] = swapped[other][:-1] + [obs.table[0]]
    return [
        (("nope",), {}, "unknown method 'nope'; use one of solver, mc, pimc"),
        ((3,), {}, "method must be one of solver, mc, pimc"),
        (("pimc:samples",), {}, "bad parameter 'samples'"),
        (("pimc:objective=mean",), {}, "drop objective"),
        (("pimc:samples=8",), {"samples": 9}, "option 'samples' given twice"),
        (("mc",), {"options": [1]}, "options must be a dict"),
        (("mc",), {"options": {1: 2}}, "an option's name must be a string"),
        (("mc",), {"deal": deal}, "deal= is for method 'solver'"),
        (("solver",), {}, "needs deal=(hands, stock)"),
        (("solver",), {"deal": deal, "samples": 3}, "unknown option 'samples' for method"),
        (("solver",), {"deal": deal, "budget": 0}, "budget must be an integer from 1"),
        (("solver",), {"deal": (hands,)}, "deal must be (hands, stock)"),
        (("solver",), {"deal": (hands[:1], stock)}, "deal must be (hands, stock)"),
        (("solver",), {"deal": (swapped, stock)}, "every tile 0..27 once"),
        (("solver",), {"deal": (hands, stock[:-1])}, "deal's stock has"),
        (("solver",), {"deal": (hands[::-1], stock)}, "must be obs.hand"),
    ]


def test_bad_input_is_a_one_line_error_naming_the_fix():
    rules = make_rules("fives", 2)
    obs, legal, key, hands, stock = decisions(rules, 0)[2]
    assert obs.stock_size > 0
    for args, kw, message in _bad(obs, legal, key, (hands, stock)):
        with pytest.raises(DominosimError) as err:
            action_values(obs, key, *args, legal=kw.pop("legal", legal), **kw)
        assert message in str(err.value) and "\n" not in str(err.value), (args, kw)
    with pytest.raises(DominosimError, match="obs must be the decision's Observation"):
        action_values(None, key, "mc", legal=legal)
    with pytest.raises(DominosimError, match="key must be the decision's key"):
        action_values(obs, "1", "mc", legal=legal)
    for legal_bad in ([], "6-5@L", [1.5], [actions.STOP + 1]):
        with pytest.raises(DominosimError, match="legal must be the decision's legal"):
            action_values(obs, key, "mc", legal=legal_bad)
    with pytest.raises(DominosimError, match="legal is not this decision's legal actions"):
        action_values(obs, key, "solver", legal=legal[:1], deal=(hands, stock))
    # the strategies' own checks, unchanged: a bad value, an unknown parameter
    with pytest.raises(StrategyError, match="samples must be an integer >= 1"):
        action_values(obs, key, "mc:samples=0", legal=legal)
    with pytest.raises(StrategyError, match="sampels"):
        action_values(obs, key, "pimc:sampels=3", legal=legal)


def test_a_deal_against_a_revealed_void_is_refused():
    """RULES §1.3: a seat that passed has shown it lacks the ends' values; a deal that gives
    it a tile of such a value does not fit the Observation."""
    from dominosim.game import tiles

    rules = make_rules("block", 2)  # (2 players: 14 tiles sleep in the stock)
    for mid in range(30):
        for obs, legal, key, hands, stock in decisions(rules, mid):
            other = 1 - obs.seat
            lacking = [t for t in stock if set(tiles.halves(t)) & set(obs.voids[other])]
            if not lacking or not hands[other]:
                continue
            hands = [list(h) for h in hands]
            stock = list(stock)
            i = stock.index(lacking[0])
            stock[i], hands[other][0] = hands[other][0], stock[i]
            with pytest.raises(DominosimError, match="a value it has shown it lacks"):
                action_values(obs, key, "solver", legal=legal, deal=(hands, stock))
            return
    pytest.fail("no decision with a revealed void and a stock tile of it")


def test_no_hidden_deal_is_a_no_deal_error_for_mc_and_pimc():
    """Where no deal fits every revealed void (here an Observation whose other seat lacks
    every value, so no tile can be its), mc and pimc find none: NoDealError, a StrategyError
    a strategy can catch."""
    from dataclasses import replace

    rules = make_rules("fives", 2)
    obs, legal, key, _, _ = decisions(rules, 0)[1]
    voids = [set(v) for v in obs.voids]
    voids[1 - obs.seat] = set(range(7))
    impossible = replace(obs, voids=tuple(frozenset(v) for v in voids))
    for method in ("mc", "pimc"):
        with pytest.raises(NoDealError, match="catch dominosim.search.NoDealError"):
            action_values(impossible, key, method, legal=legal, samples=4)
    assert issubclass(NoDealError, StrategyError)


def test_pimc_values_with_inference_weigh_each_drawn_deal_by_its_draws():
    """With inference (pimc's default) the mean runs over the deals mc.infer_deals draws, each
    counted as many times as it was drawn."""
    from dominosim.engine import tables
    from dominosim.strategies.mc import infer_deals

    rules = make_rules("block", 2)
    checked = 0
    for obs, legal, key, _, _ in decisions(rules, 3)[-8:]:
        drawn = infer_deals(obs, key, 6, 4, 4.0)
        if drawn is None:
            continue
        hands, stock, count = drawn
        per_deal = []
        for h, st in zip(hands, stock, strict=True):
            deal = ([tables.tiles_of(int(x)) for x in h], [int(t) for t in st if t >= 0])
            per_deal.append(
                [v for _, v in action_values(obs, key, "solver", legal=legal, deal=deal)]
            )
        want = np.average(per_deal, axis=0, weights=count)
        got = action_values(obs, key, "pimc:samples=6", legal=legal, budget=2_000_000)
        assert np.allclose([v for _, v in got], want)
        checked += 1
    assert checked >= 4
