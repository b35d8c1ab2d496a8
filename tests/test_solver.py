"""The perfect-information solver (dominosim.solver, the core's _solver.h) against a plain
exhaustive minimax written here over the reference engine (dominosim.reference), which shares
no code with the core.

The minimax enumerates a hand by replay: a reference hand whose decisions (RULES §1.6: the
choices among two or more legal actions) are answered from a script; the first decision past
the script stops the replay with its seat and legal actions, and a replay that reaches the
hand's end gives the hand record, whose points (§1.15) are the leaf's value. Every node of the
tree is one replay of the hand from its deal. The endgames are the first hands of seeded
deals after a random prefix of play, a few decisions before the end of that random line; the
core reaches the same position by playing the same prefix (BatchEngine.play_prefixes).

The objective is the solver's (dominosim.solver): 2 * d + w, d the root seat's side's points
minus the other sides' together (negated where points are penalties), w the root side winning
the hand; the root side maximises, every other seat minimises (with three or more sides, the
paranoid bound).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from dominosim.base.errors import StrategyError
from dominosim.engine import BatchEngine, kernel, solver
from dominosim.game import actions, reference
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import discover, get

SEED = 20


class _Need(Exception):
    """A replay stopped at the first decision past its script."""


class _TooBig(Exception):
    """The tree of an endgame has more nodes than the test allows (the endgame is skipped)."""


class _Play:
    """What a scripted replay reads and writes (kept off the hand, which is copied): the
    script, ``pick`` (where the script ends: choose, else stop with _Need), the log of
    decisions (seat, legal, blind row opened, drawable tiles left, turns so far, this one
    included), and with ``snap``, a copy of the hand at the start of the latest turn begun
    within the script's last 3 decisions (where the next decision most likely lies; an
    earlier turn only costs a longer replay) and the number of decisions answered before it
    (``at``)."""

    def __init__(self, script, pick=None, snap=False):
        self.script, self.pick = list(script), pick
        self.snap_from = max(0, len(self.script) - 3) if snap else None
        self.log, self.at, self.twins = [], None, []


_ATOMS = frozenset({int, bool, str, tuple, type(None)})


def _copy(x, rules):
    """A deep copy of a reference hand's state: its lists, sets (of tiles, values, side
    names), dicts and objects; the rules and immutable values shared."""
    t = type(x)
    if t is list:
        return [v if type(v) in _ATOMS else _copy(v, rules) for v in x]
    if t is set:
        return set(x)
    if t is dict:
        return {k: v if type(v) in _ATOMS else _copy(v, rules) for k, v in x.items()}
    if x is rules or t in _ATOMS:
        return x
    c = object.__new__(t)
    c.__dict__.update({k: v if type(v) in _ATOMS else _copy(v, rules) for k, v in vars(x).items()})
    return c


def twin_pairs(hand):
    """The pairs of open positions of a reference hand that show the same the same way and
    that the solver takes for twins (docs/design.md, "The solver"): a line's two ends (not a
    single end's, not blind's), a spinner's arms W E or N S (both covered or both not)."""
    lay, rules = hand.layout, hand.rules
    if rules.draw_mode == "blind" or lay.kind == "single_end" or lay.empty:
        return []
    seen = dict(lay.positions())

    def face(pid):
        covered = lay.spinner is None or pid in lay.covered
        e = lay.ends.get(pid) if covered else None
        return (seen[pid], covered, e.double, e.along) if e else (seen[pid], covered)

    pairs = [("L", "R")] if lay.spinner is None else [("W", "E"), ("N", "S")]
    return [(a, b) for a, b in pairs if a in seen and b in seen and face(a) == face(b)]


class _Scripted(reference.Hand):
    """A reference hand whose decisions come from a _Play (``self.play_``)."""

    def ask(self, seat, legal, phase="play"):
        if len(legal) == 1:
            return legal[0]
        p = self.play_
        k = len(p.log)
        p.log.append((seat, list(legal), self.opened[seat], self.drawable() > 0, self.record.turns))
        if k < len(p.script):
            return p.script[k]
        p.twins = twin_pairs(self)
        if p.pick is None:
            raise _Need(seat, list(legal))
        a = p.pick(legal)
        p.script.append(a)
        return a

    def event(self, **ev):
        return ev  # (the play never reads its event list: none is kept)

    def play_turn(self):
        p = self.play_
        if p.snap_from is not None and len(p.log) >= p.snap_from:
            self.play_ = None
            p.at = (len(p.log), _copy(self, self.rules))
            self.play_ = p
        super().play_turn()


def _finish(hand):
    """The hand's record as reference.play_match settles it (kozel: by its book)."""
    if hand.kozel is not None:
        reference.settle_kozel(hand, hand.kozel)
    return hand.record


def replay(rules, mid, play):
    """Hand 0 of match ``mid`` from its deal (as reference.play_match deals it) with its
    decisions from ``play``: the hand record, or the _Need of the next decision."""
    book = reference.KozelBook(rules.sides) if rules.match_end == "kozel" else None
    hand = _Scripted.deal(rules, SEED, mid, 0, kozel=book)
    hand.play_ = play
    try:
        hand.play(None)
    except _Need as need:
        return need
    return _finish(hand)


def resume(snap, play):
    """The same from a copy of the hand at the start of a turn (Hand.play's loop of turns)."""
    hand = _copy(snap, snap.rules)
    hand.play_ = play
    try:
        while not hand.over:
            hand.play_turn()
    except reference.MatchOver:
        pass
    except _Need as need:
        return need
    return _finish(hand)


def leaf_value(rules, rec, root_side):
    pts = list(rec.points)
    mine = pts[root_side]
    d = mine - (sum(pts) - mine)
    if rules.points_sense == "lower":
        d = -d
    return 2 * d + (rec.winner == root_side)


def minimax(rules, start, script, root_side, budget):
    """The value of the position after ``script`` (the decisions from the deal), and the
    values of its children (by action). ``start``: where to replay from, (match id, None) for
    the deal or (decisions answered, the hand) for a copy at a turn's start; each child starts
    from its parent's latest turn; ``budget``: a one-element list of replays left."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _TooBig
    k, snap = start
    play = _Play(script if snap is None else script[k:], snap=True)
    res = replay(rules, k, play) if snap is None else resume(snap, play)
    if not isinstance(res, _Need):
        return leaf_value(rules, res, root_side), {}
    if play.at is not None:  # (else the decision is the lead, before any turn)
        start = (play.at[0] + (0 if snap is None else k), play.at[1])
    seat, legal = res.args
    kids = {a: minimax(rules, start, [*script, a], root_side, budget)[0] for a in legal}
    best = max if rules.side_of(seat) == root_side else min
    return best(kids.values()), kids


def endgames(rules, n, rng, want, max_left=3, max_turns=6, max_nodes=32):
    """``n`` endgames (match id, prefix, minimax value, child values) whose first decision
    satisfies ``want(seat, opened, drawable)``: the first hand of a match played at random,
    cut 1 to ``max_left`` decisions and at most ``max_turns`` turns before the end of that
    random line; trees over ``max_nodes`` replays are skipped."""
    out, mid = [], 0
    while len(out) < n:
        mid += 1
        assert mid < 40 * n, "too few endgames of this kind"
        line = _Play([], pick=rng.choice)
        turns = replay(rules, mid, line).turns
        log = line.log
        cuts = [
            k
            for k in range(max(0, len(log) - max_left), len(log))
            if want(*_at(log[k])) and turns - log[k][4] < max_turns
        ]
        if not cuts:
            continue
        k = rng.choice(cuts)
        prefix = line.script[:k]
        root_side = rules.side_of(log[k][0])
        try:
            value, kids = minimax(rules, (mid, None), prefix, root_side, [max_nodes])
        except _TooBig:
            continue
        out.append((mid, prefix, value, kids))
    return out


def _at(entry):
    seat, _, opened, drawable, _ = entry
    return seat, opened, drawable


def anywhere(seat, opened, drawable):
    return True


def open_phase(seat, opened, drawable):
    return opened


def stock_left(seat, opened, drawable):
    return drawable


# mode: (RULES sections, the rule sets: variant, players, options and optionally a weight, the
# share of the mode's endgames relative to 1 for the others (the slow ones get fewer); the
# first decision's kind)
# fmt: off
MODES = {
    "line": ("§1.8 LINE, §1.11 end count, §4.8 headers, §5.8, §6.8, §11.8, §1.13, §1.14",
             [("fives", 2, {}), ("block", 2, {}), ("bergen", 2, {}), ("threes", 3, {}),
              ("muggins", 4, {"partnership": True}), ("fives", 2, {"inline_double_counts_single": True}),
              ("fives", 2, {"target": 4})],  # (§1.14: a target reached in play ends the hand)
             anywhere),
    "two-lane": ("§9 two-lane: penalties per failed turn, lower is better",
                 [("two-lane", 2, {}), ("two-lane", 3, {}), ("two-lane", 4, {})], anywhere),
    "single-end": ("§1.10 SINGLE_END, §10 ladder: the starting tile, penalties",
                   [("ladder", 2, {}), ("ladder", 3, {})], anywhere),
    "spinner": ("§1.9 SPINNER, §1.11 rule 3, §7 sniff, §11.6 first_double_spinner",
                [("sniff", 2, {}), ("sniff", 3, {}), ("sniff", 2, {"us_sniff_counting": True,
                 "spinner_open_all_four_immediately": True}),
                 ("muggins", 4, {"partnership": True, "first_double_spinner": True})], anywhere),
    "blind-open": ("§3.7b-c blind's open phase: several placements a turn, continue or stop",
                   [("blind", 2, {}), ("blind", 3, {}, 0.5),
                    ("blind", 2, {"blind_draw_optional": True, "blind_play_optional": True})],
                   open_phase),
    "drawing": ("§1.7 drawing modes with tiles left to draw, §11.7 and §15 voluntary draws",
                [("classic", 2, {}), ("basic", 2, {"penalty_per_miss": True}), ("kozel", 2, {}),
                 ("bergen", 2, {"bergen_voluntary": True}, 0.4),
                 ("muggins", 2, {"may_draw_when_able": True}, 0.4),
                 ("sniff", 2, {"max_draws_per_turn": 2})], stock_left),
}
# fmt: on
PER_MODE = 500


@pytest.mark.parametrize("mode", list(MODES))
def test_the_solver_equals_an_exhaustive_minimax_over_the_reference_engine(mode):
    """RULES §1.6 decisions, §1.12 hand end, §1.13-§1.15 points per side: on at least 500
    endgames per layout or drawing mode, the solver's value and win bit equal the minimax's,
    every position is solved, and its best action is one of the optimal ones."""
    sections, rule_sets, want = MODES[mode]
    rng = random.Random(f"{SEED}-{mode}")
    count = 0
    weights = [rs[3] if len(rs) > 3 else 1.0 for rs in rule_sets]
    for (variant, players, opts, *_), w in zip(rule_sets, weights, strict=True):
        rules = make_rules(variant, players, **opts)
        n = math.ceil(PER_MODE * w / sum(weights))
        games = endgames(rules, n, rng, want)
        sol = solver.solve_after(
            rules, SEED, [g[0] for g in games], [g[1] for g in games], budget=100_000
        )
        assert sol.solved.all()
        assert sol.paranoid == (rules.sides > 2)
        got = 2 * sol.value + sol.win
        want_values = np.array([g[2] for g in games])
        bad = np.flatnonzero(got != want_values)
        assert not len(bad), (rules.label, players, games[bad[0]][:3], int(got[bad[0]]))
        for (mid, prefix, value, kids), a in zip(games, sol.action, strict=True):
            assert kids.get(int(a)) == value, (rules.label, mid, prefix, actions.describe(int(a)))
        # decision accuracy (issue 20): every legal action is rated optimal exactly where the
        # minimax gives its child the position's value
        rows = [(g, a) for g in games for a in g[3]]
        rated = solver.solve_after(
            rules,
            SEED,
            [g[0] for g, _ in rows],
            [g[1] for g, _ in rows],
            chosen=[a for _, a in rows],
            budget=100_000,
        )
        want_opt = [int(g[3][a] == g[2]) for g, a in rows]
        assert rated.optimal.tolist() == want_opt, rules.label
        assert 0 < sum(want_opt) < len(rows)  # (both kinds of action are rated)
        count += len(games)
    assert count >= PER_MODE, sections


@pytest.mark.parametrize("mode", ["line", "two-lane", "spinner", "drawing"])
def test_twin_positions_are_worth_the_same(mode):
    """What the search's twins rest on (it searches one of two twin positions and gives a
    position and its mirror image one key): by the reference engine's own minimax, a tile
    placed on either of two twin positions (a line's ends showing the same, a spinner's arms
    W E or N S showing the same) is worth the same, and the solver agrees on every such
    position."""
    _, rule_sets, want = MODES[mode]
    rng = random.Random(f"{SEED}-{mode}-twins")
    checked = 0
    for variant, players, opts, *_ in rule_sets:
        rules = make_rules(variant, players, **opts)
        rows = []
        n = 40 if mode == "drawing" else 80  # (six rule sets there, slower to replay)
        for mid, prefix, value, kids in endgames(rules, n, rng, want, max_left=6, max_nodes=64):
            need = _Play(prefix)
            assert isinstance(replay(rules, mid, need), _Need)
            for a, b in need.twins:
                for t in range(28):
                    for along in (False, True):
                        x, y = actions.place(t, a, along), actions.place(t, b, along)
                        if x in kids or y in kids:
                            assert kids.get(x) == kids.get(y), (rules.label, mid, prefix, t)
                            rows += [(mid, prefix, value, x), (mid, prefix, value, y)]
        if rows:
            sol = solver.solve_after(
                rules,
                SEED,
                [r[0] for r in rows],
                [r[1] for r in rows],
                chosen=[r[3] for r in rows],
                budget=100_000,
            )
            assert (2 * sol.value + sol.win == [r[2] for r in rows]).all(), rules.label
            assert (sol.optimal[0::2] == sol.optimal[1::2]).all(), rules.label
            checked += len(rows) // 2
    assert checked >= 20, mode  # (twins occur, and the test sees them)


def random_lines(rules, n, rng, want, left):
    """``n`` positions (match id, prefix, root seat): the first hand of a match played at
    random, cut ``left`` (a range) decisions before the end of that line."""
    out, mid = [], 10_000
    while len(out) < n:
        mid += 1
        line = _Play([], pick=rng.choice)
        replay(rules, mid, line)
        log = line.log
        cuts = [len(log) - j for j in left if j <= len(log) and want(*_at(log[len(log) - j]))]
        if cuts:
            k = rng.choice(cuts)
            out.append((mid, line.script[:k], log[k][0]))
    return out


@pytest.mark.parametrize("mode", list(MODES))
def test_the_search_equals_a_plain_minimax_on_larger_positions(mode):
    """The table and the pruning change nothing: on positions 3 to 10 decisions before the end
    of a random line (trees the Python minimax cannot afford), the solver's value equals the
    core's plain minimax (no table, no pruning: solve(plain=True)) wherever that one finishes
    within its budget, and the solver's best action leads to a child of the same value."""
    _, rule_sets, want = MODES[mode]
    rng = random.Random(f"{SEED}-{mode}-plain")
    compared = 0
    for variant, players, opts, *_ in rule_sets:
        rules = make_rules(variant, players, **opts)
        pos = random_lines(rules, 40, rng, want, range(3, 11))
        mids, scripts, seats = ([p[i] for p in pos] for i in range(3))
        fast = solver.solve_after(rules, SEED, mids, scripts, budget=200_000)
        plain = solver.solve_after(rules, SEED, mids, scripts, budget=50_000, plain=True)
        ok = plain.solved
        assert fast.solved[ok].all()
        assert (2 * fast.value + fast.win == 2 * plain.value + plain.win)[ok].all(), rules.label
        assert (fast.seat == np.array(seats)).all()
        sel, ends = [], []
        for i in np.flatnonzero(ok & (fast.action >= 0)):
            kid = [*scripts[i], int(fast.action[i])]
            res = replay(rules, mids[i], _Play(kid))  # (the best action may end the hand)
            if isinstance(res, _Need):
                sel.append(i)
            else:
                ends.append(
                    leaf_value(rules, res, rules.side_of(seats[i]))
                    == 2 * plain.value[i] + plain.win[i]
                )
        assert all(ends)
        kids = solver.solve_after(
            rules,
            SEED,
            [mids[i] for i in sel],
            [[*scripts[i], int(fast.action[i])] for i in sel],
            seats=fast.seat[sel],
            budget=50_000,
            plain=True,
        )
        assert kids.solved.all()
        assert (2 * kids.value + kids.win == 2 * plain.value[sel] + plain.win[sel]).all()
        compared += int(ok.sum())
        assert (plain.nodes[ok] > 200).sum() >= 5, rules.label  # (trees of some size)
    assert compared >= 15 * len(rule_sets)


def test_a_deal_is_solved_from_before_its_first_turn_as_after_an_empty_script():
    """RULES §1.5-§1.6: solve_deals starts from the deal (the forced moves before the first
    decision included) and solve_after with empty scripts from the first decision: the same
    values, for the leader's side; the best first action is legal there."""
    rules = make_rules("fives", 2)
    mids = list(range(1, 41))
    a = solver.solve_deals(rules, SEED, mids)
    b = solver.solve_after(rules, SEED, mids, [[] for _ in mids], seats=a.seat)
    assert a.solved.all() and b.solved.all()
    assert (a.value == b.value).all() and (a.win == b.win).all()
    for mid, act in zip(mids, a.action, strict=True):
        res = replay(rules, mid, _Play([]))
        assert isinstance(res, _Need) and int(act) in res.args[1]


def test_the_node_budget_marks_a_deal_unsolved_never_a_guess():
    """A search past its node budget is reported unsolved (value 0, win False, action -1);
    where solved, the value does not depend on the budget."""
    rules = make_rules("classic", 2)
    mids = list(range(1, 31))
    big = solver.solve_deals(rules, SEED, mids, budget=5_000_000)
    assert big.solved.all()
    tiny = solver.solve_deals(rules, SEED, mids, budget=50)
    assert not tiny.solved[big.nodes > 60].any()
    assert (tiny.value[~tiny.solved] == 0).all() and (tiny.action[~tiny.solved] == -1).all()
    for budget in (2_000, 20_000):
        mid = solver.solve_deals(rules, SEED, mids, budget=budget)
        ok = mid.solved
        assert (mid.value[ok] == big.value[ok]).all() and (mid.win[ok] == big.win[ok]).all()
        assert (mid.nodes[~ok] > budget).all()


@pytest.mark.parametrize(
    "variant,players,opts",
    [("fives", 2, {}), ("two-lane", 2, {}), ("block", 4, {"partnership": True})],
)
def test_two_sides_are_zero_sum(variant, players, opts):
    """RULES §1.4: with two sides the value is exact and zero-sum: a side's value is minus the
    other side's, whichever seat of it is the root."""
    rules = make_rules(variant, players, **opts)
    mids = range(1, 21)
    a = solver.solve_deals(rules, SEED, mids, seats=0)
    b = solver.solve_deals(rules, SEED, mids, seats=players - 1)
    assert not a.paranoid and a.solved.all() and b.solved.all()
    assert (a.value == -b.value).all()
    assert not (a.win & b.win).any()


def test_three_sides_give_the_paranoid_bound_and_say_so():
    """RULES §1.4: 3 players and 4 without partnership have three or more sides: the value is
    the paranoid bound, each seat against the rest (Solution.paranoid). Each seat can make
    sure of its bound whatever the others do, so on the line where every seat plays for its
    own bound each gets at least it: the bounds of the three seats add up to at most that
    line's 2d + w summed, which is -2T + 1 at most (T >= 0 the hand's points; one winner)."""
    rules = make_rules("block", 3)
    assert solver.paranoid(rules) and solver.paranoid(make_rules("block", 4))
    assert not solver.paranoid(make_rules("block", 4, partnership=True))
    mids = range(1, 31)
    sols = [solver.solve_deals(rules, SEED, mids, seats=s) for s in range(3)]
    assert all(s.paranoid and s.solved.all() for s in sols)
    total = sum(2 * s.value + s.win for s in sols)
    assert (total <= 1).all()
    assert (total < 1).any()  # (the bound is not always reached)


def side_value(rules, hands, seat):
    """2d + w of seat's side in each hand record (the solver's objective, played out)."""
    me = rules.side_of(seat)
    pts = hands["points"]
    d = pts[:, me] - (pts.sum(axis=1) - pts[:, me])
    if rules.points_sense == "lower":
        d = -d
    return 2 * d + (hands["winner"] == me)


BUILT_IN = list(kernel.POLICIES)  # (the compiled twins, as the core lists them)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_oracle_never_scores_below_the_solvers_value(variant):
    """Issue 20: the oracle plays the solver's move seeing everything; against built-in
    strategies (two per variant, in both seatings) its side scores at least the solver's value
    of the deal (RULES §1.13-§1.15 points, the win as tie-break), and no built-in strategy
    scores above that value against it: its points margin over the oracle's side is at most
    minus the solver's (the hand's points are zero-sum between two sides)."""
    rules = make_rules(variant, 2)
    k = sorted(VARIANTS).index(variant)
    mids = list(range(1, 4))
    for opp in (BUILT_IN[k % 6], BUILT_IN[(k + 3) % 6]):
        for seat in (0, 1):
            oracle = solver.Oracle()
            strats = [oracle, get(opp)] if seat == 0 else [get(opp), oracle]
            value = solver.solve_deals(rules, SEED, mids, seats=seat)
            hands, _ = BatchEngine(rules, SEED, strats, mids, unit="hand").run()
            ok = value.solved
            assert ok.sum() >= 2 and getattr(oracle, "unsolved", 0) == 0
            got = side_value(rules, hands, seat)
            assert (got[ok] >= (2 * value.value + value.win)[ok]).all(), (opp, seat)
            # the other direction, from the built-in's side: its points margin over the
            # oracle's never exceeds minus the solver's (2d + w >= 2d* + w* gives d >= d*)
            theirs = (side_value(rules, hands, 1 - seat) - (hands["winner"] == 1 - seat)) // 2
            assert (theirs[ok] <= -value.value[ok]).all(), (opp, seat)


def test_the_oracle_keeps_the_paranoid_bound_and_plays_for_its_partner():
    """With three sides the oracle's seat gets at least the paranoid bound; in partnership
    (RULES §1.4) two oracles, one per partner, get at least their side's value."""
    rules = make_rules("block", 3)
    mids = list(range(1, 9))
    for seat in range(3):
        strats = [get("heaviest"), get("random"), get("blocker")]
        strats[seat] = solver.Oracle()
        value = solver.solve_deals(rules, SEED, mids, seats=seat)
        hands, _ = BatchEngine(rules, SEED, strats, mids, unit="hand").run()
        assert value.paranoid and value.solved.all()
        assert (side_value(rules, hands, seat) >= 2 * value.value + value.win).all()
    rules = make_rules("fives", 4, partnership=True)
    oracle = solver.Oracle()
    value = solver.solve_deals(rules, SEED, mids, seats=0)
    hands, _ = BatchEngine(
        rules, SEED, [oracle, get("greedy"), oracle, get("heaviest")], mids, unit="hand"
    ).run()
    assert value.solved.all() and not value.paranoid
    assert (side_value(rules, hands, 0) >= 2 * value.value + value.win).all()


def test_the_oracle_is_marked_and_refuses_the_reference_engine():
    """The oracle cheats by design: it is marked so, and the reference engine, whose
    observations hold nothing hidden, cannot play it."""
    oracle = solver.Oracle()
    assert oracle.classifier == "perfect_information" and oracle.name == "oracle"
    assert oracle.compiled_policy() is None
    # (nameable in --strategies, marked in reports)
    assert discover()["oracle"].classifier == "perfect_information"
    with pytest.raises(StrategyError, match="batch engine"):
        reference.play_match(make_rules("block", 2), SEED, 1, [oracle, get("random")])


def test_solve_refuses_a_position_out_of_range():
    """The core checks every position it is given (a seat, a tile, a phase out of range)."""
    rules = make_rules("fives", 2)
    st, bst = BatchEngine(rules, SEED, [None, None], [1], unit="hand").first_deals()
    bad = st.copy()
    bad["to_move"] = 7
    with pytest.raises(ValueError, match="out of range"):
        solver.solve_slots(rules, bad, bst)
    with pytest.raises(ValueError, match="out of range"):
        solver.solve_slots(rules, st, bst, seats=[5])
    with pytest.raises(ValueError, match="budget"):
        solver.solve_slots(rules, st, bst, budget=0)


def test_a_hand_over_is_valued_as_the_solver_values_its_leaves():
    """solver.leaf_values (pimc's alpha-mu reads it): 2 d + w for the seat's side, d the
    points difference (fewer is better where the variant counts so), clamped at the core's
    bound, w whether the side won; points past any hand's are refused."""
    st = np.zeros(3, dtype=kernel.SLOT)
    st["points"][:, :2] = [[10, 3], [3, 10], [2**30, 0]]
    st["hb"][:, kernel.H_WINNER] = [0, 1, 0]
    fives, kozel = make_rules("fives", 2), make_rules("kozel", 2)
    cap = 2 * 2**27
    assert solver.leaf_values(fives, st, 0) == [15, -14, cap + 1]
    assert solver.leaf_values(fives, st, 1) == [-14, 15, -cap]
    assert solver.leaf_values(kozel, st, 0) == [-13, 14, -cap + 1]
    st["points"][0, 1] = 2**41
    with pytest.raises(ValueError, match="slot 0's points are out of range"):
        solver.leaf_values(fives, st, 0)
