"""The perfect-information solver of a hand (issue 20; docs/design.md, "The solver").

Every hand and the stock order are visible: the "double-dummy" value of a position. The
search runs in the compiled core (``engine/_solver.h``) on the core's own state with the core's
own rule functions, so it plays exactly the engine's rules: alpha-beta with a transposition
table, a node budget per position.

**The value** of a position for a root seat (by default the seat to move; for a deal, its
leader) is the hand's points of the root seat's side minus those of every other side together,
under the variant's own in-play scoring and settlement (RULES §1.13-§1.15; where points are
penalties, two-lane, ladder and kozel, the difference is negated, so higher is always better
for the root side), ties broken by winning the hand (``win``). With two sides (2 players, or 4
in partnership, RULES §1.4) it is the exact minimax value of the hand. With three or more
sides (3 players, 4 without partnership) it is the **paranoid bound**: the root seat plays
against all the others together, who minimise its value (:func:`paranoid`; every report of it
must say so). Match-level state counts only as far as it changes the hand's points: a target
reached in play ends the hand there (§1.14).

A position whose search needs more than ``budget`` nodes is reported unsolved
(``solved`` False, value 0, action -1): never a guess. The table is keyed by a 64-bit hash of
the position (a false match has a probability of about 2^-64 per probe).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dominosim.base.budget import SOLVER_BUDGET
from dominosim.base.errors import StrategyError
from dominosim.engine import BatchEngine, kernel
from dominosim.game import seeding
from dominosim.game.rules import Rules
from dominosim.strategy import Strategy, classify, sees_hidden

DEFAULT_BUDGET = SOLVER_BUDGET  # nodes per position (base/budget.py)


@dataclass(frozen=True)
class Solution:
    """The solver's answers, one row per position.

    Attributes:
        value: the points difference under perfect play (root side minus the rest; higher is
            better for the root side in every variant).
        win: whether the root side wins the hand under perfect play (the tie-break).
        action: the root seat's best action at the first decision (the engine's action code;
            -1 when the hand has no decision left, or the position is unsolved). At a decision
            of another seat, that seat's best reply under the same (paranoid) objective.
        solved: False where the node budget ran out (value, win and action are then
            meaningless: 0, False, -1).
        nodes: the nodes searched.
        seat: the root seat.
        optimal: where an action was given (``chosen``), 1 when it is worth the position's
            value (an optimal move), 0 when it is worth less, -1 where not asked or not known
            (unsolved, the budget ran out on its test, or it is not legal there).
        paranoid: True for three or more sides: the values are the paranoid bound.
    """

    value: np.ndarray
    win: np.ndarray
    action: np.ndarray
    solved: np.ndarray
    nodes: np.ndarray
    seat: np.ndarray
    paranoid: bool
    optimal: np.ndarray

    def __len__(self) -> int:
        return len(self.value)


def paranoid(rules: Rules) -> bool:
    """True where the solver gives the paranoid bound (three or more sides), not the value."""
    return rules.sides > 2


def solve_slots(
    rules: Rules,
    st: np.ndarray,
    bst: np.ndarray,
    *,
    seats=None,
    chosen=None,
    budget: int = DEFAULT_BUDGET,
    plain: bool = False,
) -> Solution:
    """Solve positions given as the core's slot records (``kernel.SLOT``; blind's rows
    ``kernel.BSLOT``, one per slot), e.g. from :meth:`BatchEngine.first_deals` or
    :meth:`BatchEngine.play_prefixes`. A slot waiting on a posed decision is solved from it;
    any other from where it stands, run forward through the forced moves. ``seats``: the root
    seat per position (-1 or None: the seat to move). ``chosen``: per position an action (-1
    or None: none) to rate against the root seat's best (``Solution.optimal``): at a decision
    of the root seat's side, whether it is worth the position's value (a null-window search of
    its child, in the same node budget; the decision accuracy of ``dominosim skill``). ``plain``: by a plain minimax (no table,
    no pruning; the same value, slowly: tests check the search against it)."""
    n = len(st)
    st = np.ascontiguousarray(st)
    bst = np.ascontiguousarray(bst)
    if seats is None:
        seats = np.full(n, -1, dtype=np.int64)
    seats = np.ascontiguousarray(np.broadcast_to(np.asarray(seats, dtype=np.int64), (n,)))
    chosen = np.ascontiguousarray(
        np.broadcast_to(np.asarray(-1 if chosen is None else chosen, dtype=np.int64), (n,))
    )
    out = np.zeros((n, kernel.SV_COLS), dtype=np.int64)
    kernel.solve(kernel.knobs(rules, "hand"), st, bst, seats, chosen, int(budget), bool(plain), out)
    return Solution(
        value=out[:, kernel.SV_VALUE],
        win=out[:, kernel.SV_WIN].astype(bool),
        action=out[:, kernel.SV_ACTION],
        solved=out[:, kernel.SV_SOLVED].astype(bool),
        nodes=out[:, kernel.SV_NODES],
        seat=out[:, kernel.SV_SEAT],
        paranoid=paranoid(rules),
        optimal=out[:, kernel.SV_OPTIMAL],
    )


@dataclass(frozen=True)
class ActionValues:
    """Every legal action's perfect-information value at each position's decision, for the
    seat to move there (its side the root; the paranoid bound with three or more sides), one
    row per position and a column per legal action in canonical order.

    Attributes:
        action: ``[n, kernel.SV_ACTS]`` the legal actions (engine codes), -1 after the last.
        value: ``[n, kernel.SV_ACTS]`` each action's value as the points difference (as
            :attr:`Solution.value`; 0 after the last action).
        win: ``[n, kernel.SV_ACTS]`` whether the root side then wins the hand.
        score: ``[n, kernel.SV_ACTS]`` the search's own value ``2 value + win`` (-1 after the
            last action): one number that orders the actions as the solver does.
        count: ``[n]`` the number of legal actions; 0 where the hand ends before a decision;
            -1 where the node budget (all the position's actions together) ran out (its row
            then says nothing: never a guess).
    """

    action: np.ndarray
    value: np.ndarray
    win: np.ndarray
    score: np.ndarray
    count: np.ndarray
    paranoid: bool


def solve_actions(
    rules: Rules,
    st: np.ndarray,
    bst: np.ndarray,
    *,
    budget: int = DEFAULT_BUDGET,
    policy: np.ndarray | None = None,
) -> ActionValues:
    """The value of every legal action at the decision each position stands at (or runs
    forward to through the forced moves), for the seat to move: each action's child searched
    with the whole window, twins (two ends showing the same) valued once. ``st``, ``bst`` as
    for :func:`solve_slots` (e.g. :meth:`BatchEngine.slot_records` of positions built by
    :meth:`BatchEngine.from_arrays`). ``budget``: nodes per position, its actions together.
    ``policy``: None (every seat searches: the perfect-information value), or a policy table
    (:func:`kernel.policy_table`; no ``random``) whose seats with a compiled policy, the seat
    to move at the root excepted, are modelled as that policy: at their decisions the search
    follows the policy's action (it sees the seat's own hand and the table only) instead of
    searching (``pimc:partner``: the partner's information)."""
    n = len(st)
    acts = np.full((n, kernel.SV_ACTS), -1, dtype=np.int64)
    scores = np.full((n, kernel.SV_ACTS), -1, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    kernel.solve_actions(
        kernel.knobs(rules, "hand"),
        np.ascontiguousarray(st),
        np.ascontiguousarray(bst),
        int(budget),
        acts,
        scores,
        count,
        kernel.policy_table() if policy is None else np.ascontiguousarray(policy, dtype=np.int64),
    )
    live = acts >= 0
    win = np.where(live, scores % 2, 0)
    return ActionValues(
        action=acts,
        value=np.where(live, (scores - win) // 2, 0),
        win=win.astype(bool),
        score=scores,
        count=count,
        paranoid=paranoid(rules),
    )


def leaf_values(rules: Rules, st: np.ndarray, seat: int) -> list[int]:
    """The solver's value ``2 d + w`` for ``seat``'s side of each hand over and settled in
    ``st`` (slot records, ``kernel.SLOT``): as the solver values its leaves (``side_value`` in
    engine/_solver.h: ``d`` the side's points difference, clamped, ``w`` whether it won)."""
    out = np.zeros(len(st), dtype=np.int64)
    kernel.leaf_values(kernel.knobs(rules, "hand"), np.ascontiguousarray(st), int(seat), out)
    return out.tolist()


def _engine(rules: Rules, seed: int, match_ids: Sequence[int]) -> BatchEngine:
    ids = [int(m) for m in match_ids]
    return BatchEngine(
        rules,
        seed,
        [None] * rules.players,
        ids,
        unit="hand",
        batch_size=max(1, len(ids)),
        compiled=False,
        _positions=True,
    )


def solve_deals(
    rules: Rules, seed: int, match_ids: Sequence[int], *, seats=None, budget: int = DEFAULT_BUDGET
) -> Solution:
    """The perfect-information value of the first hand of each match id as the engine deals
    it with ``seed`` (the deal of ``dominosim run`` with unit hand: the same shuffle, redeals
    and leader), from before its first turn. ``seats``: the root seat per deal (default: the
    leader)."""
    seeding.check_seed(seed, "solve_deals(): seed")
    if not len(match_ids):
        return solve_slots(rules, np.zeros(0, kernel.SLOT), np.zeros(1, kernel.BSLOT))
    st, bst = _engine(rules, seed, match_ids).first_deals()
    return solve_slots(rules, st, bst, seats=seats, budget=budget)


def solve_after(
    rules: Rules,
    seed: int,
    match_ids: Sequence[int],
    scripts: Sequence[Sequence[int]],
    *,
    seats=None,
    chosen=None,
    budget: int = DEFAULT_BUDGET,
    plain: bool = False,
) -> Solution:
    """The perfect-information value of the first hand of each match id after its first
    decisions were answered with the actions of its script (``scripts[i]``, in decision
    order), solved from the decision that follows. ``seats``: the root seat per position
    (default: the seat to move at that decision); ``chosen`` and ``plain`` as for
    :func:`solve_slots`."""
    seeding.check_seed(seed, "solve_after(): seed")
    if not len(match_ids):
        return solve_deals(rules, seed, [])
    st, bst = _engine(rules, seed, match_ids).play_prefixes(scripts)
    return solve_slots(rules, st, bst, seats=seats, chosen=chosen, budget=budget, plain=plain)


@classify  # (strategies/oracle.py registers its subclass under the name ``oracle``)
class Oracle(Strategy):
    """``oracle``: the solver's move, seeing everything (every hand and the stock order).

    A **cheating reference**, not a strategy a player could follow: it reads the batch
    engine's true state behind the observation and plays the solver's best action for its
    seat's side (the paranoid bound's with three or more sides). It is never a default and is
    not one of the built-in strategy files; whatever shows its results must mark them as
    perfect-information play. Where the solver's ``budget`` runs out it plays the first legal
    action (strategy.fallback's choice). It plays on the batch engine only: the reference
    engine's Observation holds nothing hidden, so ``choose_one`` refuses.
    """

    name = "oracle"
    params = {"budget": DEFAULT_BUDGET}
    classifier = "perfect_information"  # (reports mark it)

    def choose_one(self, obs, legal, key):
        raise StrategyError(
            "strategy 'oracle' sees the true deal, which only the batch engine "
            "holds: play it on dominosim.engine.BatchEngine"
        )

    def choose(self, obs, legal, keys):
        e, g = obs._e, np.asarray(obs._g)  # the true state: this strategy cheats by design
        st, bst = e.true_records(g)
        bst = bst if bst is not None else np.zeros(1, dtype=kernel.BSLOT)  # (unread: no rows)
        sol = solve_slots(e.r, st, bst, seats=np.asarray(obs.seat), budget=self.settings["budget"])
        first = legal.action_at(np.zeros(len(g), dtype=np.int64))
        self.unsolved = getattr(self, "unsolved", 0) + int((~sol.solved).sum())
        return np.where(sol.solved, sol.action, first)


@classify
class _Watched(Strategy):
    """A seat's strategy, watched for :func:`decision_accuracy`: it decides as ``inner``
    does (asked in Python, a compiled policy's Python twin deciding alike), and every
    decision with a real choice (two or more legal actions) is kept with the true state it
    was made in, the seat and the action."""

    name = "watched"
    # (the measurement reads the true state; the strategy it watches sees its seat's part)
    classifier = "perfect_information"

    def __init__(self, inner: Strategy, seen: list) -> None:
        super().__init__()
        self.inner, self.seen = inner, seen

    @property
    def label(self) -> str:
        return getattr(self.inner, "label", self.inner.name)

    def choose(self, obs, legal, keys):
        shown = obs if sees_hidden(self.inner) else obs.take(np.arange(len(obs)))
        a = np.asarray(self.inner.choose(shown, legal, keys), dtype=np.int64)
        sel = np.flatnonzero(legal.counts() >= 2)
        if len(sel):
            e, g = obs._e, np.asarray(obs._g)[sel]  # the true state: for the solver's eyes
            st, bst = e.true_records(g)
            self.seen.append((st, bst, np.asarray(obs.seat)[sel], e.state.match[g].copy(), a[sel]))
        return a


@dataclass(frozen=True)
class Accuracy:
    """The decisions of watched seats rated by the solver, one row per decision with a real
    choice: its match id, seat, and ``optimal`` (1: the action is worth the position's value
    under perfect play for the seat's side; 0: it is worth less; -1: not rated, the budget ran
    out)."""

    match: np.ndarray
    seat: np.ndarray
    optimal: np.ndarray
    paranoid: bool


def decision_accuracy(
    rules: Rules,
    seed: int,
    strategies: Sequence[Strategy],
    match_ids: Sequence[int],
    watched: Sequence[int],
    *,
    budget: int = DEFAULT_BUDGET,
) -> Accuracy:
    """Play the first hand of each match id (unit hand, as ``dominosim run`` plays it) with
    ``strategies`` by seat and rate every decision with a real choice of the seats in
    ``watched`` on the true deal: whether the solver finds its action optimal for the seat's
    side (the paranoid bound's objective with three or more sides). The games are the run's:
    the watched strategies decide as they would (a test checks the records equal)."""
    seeding.check_seed(seed, "decision_accuracy(): seed")
    seen: list = []
    wrap: dict = {}  # (one wrapper per strategy object: the engine groups seats by it)
    watched = set(watched)
    seats = [
        wrap.setdefault(id(s), _Watched(s, seen)) if i in watched else s
        for i, s in enumerate(strategies)
    ]
    ids = [int(m) for m in match_ids]
    if ids:
        BatchEngine(rules, seed, seats, ids, unit="hand", batch_size=len(ids)).run()
    if not seen:
        z = np.zeros(0, dtype=np.int64)
        return Accuracy(z, z, z, paranoid(rules))
    st = np.concatenate([s[0] for s in seen])
    blind = rules.draw_mode == "blind"
    bst = np.concatenate([s[1] for s in seen]) if blind else np.zeros(1, kernel.BSLOT)
    seat, match, act = (np.concatenate([s[k] for s in seen]) for k in (2, 3, 4))
    # by hand, in the order they came: a hand's later decisions find what its earlier ones'
    # searches left in the table (the core's deal_salt), and no other hand's come between
    order = np.argsort(match, kind="stable")
    st, seat, match, act = st[order], seat[order], match[order], act[order]
    if blind:
        bst = bst[order]
    sol = solve_slots(rules, st, bst, seats=seat, chosen=act, budget=budget)
    return Accuracy(match, seat, sol.optimal, paranoid(rules))
