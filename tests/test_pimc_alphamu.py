"""pimc's ``alphamu`` (issue 47 point 3; strategies/pimc.py, docs/strategies.md): the depth-2
search that does not fuse the seat's second move across the sampled deals. On one deal its
value of each action is the solver's (minimax: the tree, its leaves and the hands over are
valued as the solver values them); on several it is the best over the seat's strategies (one
action per information set at its second decision) that the worlds' replies leave, as a brute
force finds it; a strategy-fusion example is chosen right where a fused vote errs; off (the
default) or where it does not search, the decisions are pimc's; a decision does not depend on
its batch; the parameter is checked."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest

from dominosim.base.errors import StrategyError
from dominosim.engine.solver import solve_actions
from dominosim.game.variants import make_rules
from dominosim.strategy import get

from helpers import greedy_decisions, hands_by_batch, pimc_module


def _decisions(variant, matches=2, players=2):
    return greedy_decisions(variant, matches, players)


def _tree(obs, legal, key, worlds, deals=None):
    """alphamu's tree of a decision on its first ``worlds`` deals (or the deals ``deals``)."""
    pm = pimc_module()
    s = {**get("pimc").settings, "samples": worlds}
    plan, count = pm.weighted_positions(obs, legal, key, s)
    if deals is not None:
        plan = replace(plan, **{k: getattr(plan, k)[deals] for k in plan.PER_DEAL})
        count = np.ones(len(deals))
    roots = [legal[c] for c in sorted(set(plan.cand.tolist()))]
    return pm._Tree(obs.rules, plan, obs.seat, roots), roots, np.asarray(count, dtype=float)


def _root_groups(tree, roots, n):
    return {a: dict.fromkeys(k for k in tree.key[: len(roots) * n] if k[0] == a) for a in roots}


@pytest.mark.parametrize("variant,players", [("fives", 2), ("block", 2), ("ladder", 3)])
def test_on_one_deal_each_action_is_worth_the_solvers_value(variant, players):
    """One world: no fusion to avoid, and the search is the solver's minimax (the paranoid
    bound with three sides) of every root action."""
    pm = pimc_module()
    checked = 0
    for obs, legal, key in _decisions(variant, 1, players)[:8]:
        tree, roots, _ = _tree(obs, legal, key, 2, deals=[0])
        assert tree.ok
        vals, bad = pm._leaf_scores(tree, 10**7)
        assert not bad
        fronts = pm._Fronts(tree, vals, np.ones(1))
        got = [fronts.value(g) for g in _root_groups(tree, roots, 1).values()]
        plan = tree.plan
        av = solve_actions(obs.rules, *plan.engine(obs.rules, [None] * players).slot_records())
        want = dict(zip(av.action[0, : av.count[0]].tolist(), av.score[0].tolist(), strict=False))
        assert got == [want[a] for a in roots]
        checked += 1
    assert checked >= 4


def _brute(tree, vals, w, roots):
    """Each root action's best over the seat's strategies, enumerated: an action per public
    node of its second decision; per world the others' replies at their worst for it (a
    partner's at their best), the worlds' values weighted."""
    rules, seat = tree.rules, tree.seat
    ours = sorted({tree.key[n] for n in range(len(tree.deal)) if tree.kind[n] == 1})
    choices = [sorted(vals[next(n for n, k in enumerate(tree.key) if k == g)]) for g in ours]
    if math.prod(len(c) for c in choices) > 2000:
        return None

    def worth(n, plan):
        if tree.kind[n] == 0:
            return vals[n]
        if tree.kind[n] == 1:
            return vals[n][plan[tree.key[n]]]
        kids = [worth(c, plan) for c in tree.children[n]]
        same = rules.side_of(tree.key[n][2]) == rules.side_of(seat)
        return max(kids) if same else min(kids)

    out = {}
    for i, a in enumerate(roots):
        best = -np.inf
        for pick in itertools.product(*choices):
            plan = dict(zip(ours, pick, strict=True))
            n0 = i * len(w)
            total = sum(w[j] * worth(n0 + j, plan) for j in range(len(w)))
            best = max(best, total / w.sum())
        out[a] = best
    return out


def test_the_value_is_the_best_strategy_that_does_not_fuse():
    """Several worlds: each root action's value is the brute force's (the fronts are exact
    where none is cut), on block's later decisions (small trees), valued by ``2 d + w`` and by
    the win bit."""
    pm = pimc_module()
    checked = 0
    for obs, legal, key in _decisions("block", 3)[::2]:
        tree, roots, w = _tree(obs, legal, key, 4)
        if not tree.ok:
            continue
        vals, bad = pm._leaf_scores(tree, 10**7)
        assert not bad
        fronts = pm._Fronts(tree, vals, w)
        got = [fronts.value(g) for g in _root_groups(tree, roots, len(w)).values()]
        want = _brute(tree, vals, w, roots)
        if want is None or fronts.cut:
            continue
        assert got == pytest.approx([want[a] for a in roots])
        # alphamu_value=win: the same search on the win bits (the opponents' replies too)
        bits = [pm._win_bits(v) for v in vals]
        wins = pm._Fronts(tree, bits, w)
        got = [wins.value(g) for g in _root_groups(tree, roots, len(w)).values()]
        want = _brute(tree, bits, w, roots)
        assert wins.cut or got == pytest.approx([want[a] for a in roots])
        checked += 1
    assert checked >= 5


def _fake(kinds, keys, deals, children, vals):
    tree = SimpleNamespace(
        rules=make_rules("block", 2),
        seat=0,
        kind=kinds,
        key=keys,
        deal=deals,
        children=children,
    )
    return pimc_module()._Fronts(tree, vals, np.ones(2))


def test_strategy_fusion_is_not_credited():
    """Two worlds the seat cannot tell apart at its second decision: after ``A`` one move wins
    in the first (4), the other in the second; ``B`` is worth 3 in both. Solved world by
    world (pimc), A is worth 4 everywhere; alphamu credits one move for both worlds: 2 < 3."""
    same = (10, 1, 0, b"x")  # (root action A, the seat's decision, the seat to move, its key)
    fr = _fake(
        kinds=[1, 1, 0, 0],
        keys=[same, same, (11, 0, 1, b"e"), (11, 0, 1, b"e")],
        deals=[0, 1, 0, 1],
        children={},
        vals=[{5: 4, 6: 0}, {5: 0, 6: 4}, 3, 3],
    )
    assert fr.value({same: None}) == 2.0
    assert fr.value({(11, 0, 1, b"e"): None}) == 3.0
    # told apart (the public keys differ), each world gets its own move: 4
    fr = _fake([1, 1], [(10, 1, 0, b"x"), (10, 1, 0, b"y")], [0, 1], {}, [{5: 4, 6: 0}] * 2)
    assert fr.value({(10, 1, 0, b"x"): None, (10, 1, 0, b"y"): None}) == 4.0


def test_the_replies_combine_every_pair_of_the_seats_choices():
    """The opponent (seat 1) replies r1 or r2 knowing the world; after r1 the seat chooses u1
    (4, 0) or u2 (0, 3), after r2 v1 (1, 4) or v2 (4, 1), per world. The best pair is (u1,
    v2): min per world (4, 0), 2 a world; choosing each by its own sum gives (u1, v1): 0.5."""
    opp = (10, 2, 1, b"o")
    k1, k2 = (10, 1, 0, b"1"), (10, 1, 0, b"2")
    fr = _fake(
        kinds=[2, 2, 1, 1, 1, 1],
        keys=[opp, opp, k1, k2, k1, k2],
        deals=[0, 1, 0, 0, 1, 1],
        children={0: [2, 3], 1: [4, 5]},
        vals=[None, None, {1: 4, 2: 0}, {1: 1, 2: 4}, {1: 0, 2: 3}, {1: 4, 2: 1}],
    )
    assert fr.value({opp: None}) == 2.0


def test_off_or_where_it_does_not_search_the_decisions_are_pimcs(monkeypatch):
    plain = get("pimc", samples=8)
    off = get("pimc", samples=8, alphamu=0)
    for obs, legal, key in _decisions("block", 1):
        assert off.choose_one(obs, legal, key) == plain.choose_one(obs, legal, key)
    assert get("pimc").settings["alphamu"] == 0 and get("pimc").label == "pimc"
    # its tree beyond the caps: plain pimc decides, counted
    monkeypatch.setattr(pimc_module(), "AM_NODES", 4)
    capped = get("pimc", samples=8, alphamu=8)
    for obs, legal, key in _decisions("block", 1):
        assert capped.choose_one(obs, legal, key) == plain.choose_one(obs, legal, key)
    assert capped.searched == 0 and capped.too_large > 0
    # blind (its rows): not searched
    blind = get("pimc", samples=8, alphamu=8)
    plain_b = get("pimc", samples=8)
    for obs, legal, key in _decisions("blind", 1)[:6]:
        assert blind.choose_one(obs, legal, key) == plain_b.choose_one(obs, legal, key)
    assert blind.searched == 0


def test_it_changes_decisions_and_does_not_depend_on_its_batch():
    """The same hands with every game in one batch and one game a batch; and the option
    changes some of pimc's decisions."""
    (one, s1), (four, s4) = hands_by_batch(lambda: get("pimc", samples=8, alphamu=8), (1, 4), 4)
    assert s1.searched > 0 and s4.searched > 0
    assert one == four
    am, plain = get("pimc", samples=8, alphamu=8), get("pimc", samples=8)
    seen = _decisions("fives", 2)
    assert any(am.choose_one(*d) != plain.choose_one(*d) for d in seen)
    again = get("pimc", samples=8, alphamu=8)
    assert [am.choose_one(*d) for d in seen] == [again.choose_one(*d) for d in seen]


@pytest.mark.parametrize(
    "option", [{"alphamu": b} for b in (-1, 1.5, True, "many", 2000)] + [{"alphamu_value": "x"}]
)
def test_alphamu_is_checked(option):
    with pytest.raises(StrategyError) as err:
        get("pimc", **option)
    assert next(iter(option)) in str(err.value) and "\n" not in str(err.value)


def test_play_scripts_refuses_what_it_cannot_play():
    obs, legal, key = _decisions("block", 1)[0]
    plan, _ = pimc_module().weighted_positions(
        obs, legal, key, {**get("pimc").settings, "samples": 2}
    )
    e = plan.engine(obs.rules, [None, None])
    with pytest.raises(ValueError, match="one script"):
        e.play_scripts([[legal[0]]])
    e = plan.engine(obs.rules, [None, None])
    with pytest.raises(ValueError, match="illegal"):
        e.play_scripts([[legal[0], 27 * 6], [legal[0], 27 * 6]])
