"""pimc: perfect-information Monte Carlo with the exact solver.

At each decision with a choice it samples hidden deals consistent with everything the seat
knows (``mc``'s sampler, in the core: its hand, the table, the face-up tiles, the counts, the
void values its opponents and partner have shown, blind's rows), solves every legal action on
each deal exactly with the core's solver (``solver.solve_actions``: the action's value under
perfect play on that deal, in the variant's own scoring; with three or more sides the
paranoid value, each other seat playing against this one, as the solver documents) and
combines the values over the deals. This is Ginsberg's GIB method with an exact solver at
every sampled deal (M. Ginsberg, JAIR 14, 2001; Long, Sturtevant, Buro and Furtak, AAAI 2010),
where ``mc`` plays one heuristic playout per deal and action.

**Combining** (``objective``; docs/strategies.md has the measurement that chose it):
``vote`` (the default) gives, on each deal, a vote to every action that is best there (ties
all get one), and plays the action with most votes: the estimated chance that an action is
optimal on the true deal. A tie in votes goes to the higher mean value, then to the first
action in canonical order. ``mean`` plays the best mean value (the solver's ``2 d + w``: the
points difference, ties by winning the hand), a tie to the first in canonical order.

**Budget.** ``budget`` is a node budget per sampled deal, every action of the deal
together. A deal whose search runs out of it is left out of the combination (it says nothing:
never a guess; the deals left are those whose search was short, a bias the count of them
shows); where fewer than ``min_solved`` deals of a decision are solved (early in a
long hand of the heavy variants; with inference, counted with the times drawn), the decision
is taken by ``mc``'s playouts on ``samples`` deals, never fewer than ``mc``'s default (256),
instead: a documented search, not a guess. ``unsolved`` and ``fallbacks`` count both.

**Inference** (``infer``, on by default; ``pimc:infer=off`` is the plain sampler): the deals
are weighted by how likely each makes the other seats' placements in the hand's history
(Ginsberg 2001; Buro, Long, Furtak and Sturtevant 2009: "policy-based inference"). ``mc``'s
sampler draws ``samples * pool`` deals; the core scores each (``kernel.infer_logw``, no Python
per deal) by the log-likelihood of every scored placement under the model, a softmax over
tiles at temperature ``temp``: a seat plays a tile that fits with a chance proportional to
``exp(score / temp)``, the score a soft ``doubles-first`` (the tile's pips, and
``mc.DOUBLE_BONUS`` more for a double) plus ``points`` times the in-play points the tile would
score there (:func:`mc.placement_units`; 0 by default: measured no stronger), the same model
for partners and opponents. ``likelihood=learned`` (``heuristic``, the soft doubles-first, by
default) scores a tile instead by the shipped ``learned`` model's weighted sum of the features
the public table gives from the placer's seat (:func:`mc.learned_scores`);
``samples`` draws among them by systematic resampling (one uniform number of the decision's
key) are the deals solved, each deal once with the times it was drawn as its weight in the
vote and the mean (:func:`mc.infer_deals` and :func:`mc.infer_events` say which placements
are scored: those after the seat's last draw, the lead only where it was a free choice).
Blind, where a seat's row is hidden from itself too, keeps the plain sampler.

**Close decisions** (``extend``, 0: off by default; bench/README.md, "Levers (issue 47)"):
where the first ``samples`` deals leave the decision close, more deals are drawn and solved,
``samples`` a round (the last round what is left), until it is no longer close or ``extend``
deals have been added, and the decision is taken on all of them together. *Close*: the
played action (:func:`rank`'s first) and the runner-up (its second) differ deal by deal by
``d_i`` (for ``vote`` 1, 0 or -1: which of the two is best on deal ``i``; for ``mean`` the
difference of their values), each deal counted ``c_i`` times (the times inference drew it);
the lead ``z = sum c_i d_i / sqrt(sum (c_i d_i)^2)`` (the normal approximation of the
sign-flip test that the two are equally good; where no deal tells them apart, not close) is
below ``close`` (1.0). Round ``r``'s deals come from the key ``seeding.key(key,
EXTEND_COORD, r)``, drawn as the first round's are (with inference: ``samples * pool`` dealt,
resampled), so an extended decision is as deterministic as any other. Deals that run out of
budget are left out as in the first round; ``min_solved`` is the first round's.

**Not fusing the second move** (``alphamu``, 0: off by default; bench/README.md, "Levers
(issue 47)"): on each sampled deal the solver lets the seat's later moves depend on the hidden
deal ("strategy fusion", Frank and Basin 1998). ``alphamu=N`` searches instead the alpha-mu
tree of depth 2 (T. Cazenave and V. Ventos, "The alpha-mu search algorithm for the game of
Bridge", 2019) on ``N`` deals (drawn as ``samples`` deals are): the seat's action ``a``; the
other seats' decisions until the seat's next one (each deal played on by the core,
:meth:`BatchEngine.play_scripts`), where every other seat knows the deal and replies per deal
at its worst for the seat (a partner at its best; with three or more sides every other seat
against it, the solver's paranoid objective); then the seat's second action, ONE for all the
deals it cannot tell apart there (the same public key: the layout, the points, the voids, the
table, counts, stock, turns, draws and passes, and its own hand; :func:`_public_keys`); each
deal's leaf valued by the solver (the value ``2 d + w`` of every second action; a hand over
before it, its settled value; with ``alphamu_value=win`` the win bit ``w`` alone, the 0/1
outcome of Cazenave and Ventos's fronts: the chance of winning the hand). The value of ``a`` is the best, over the seat's choices at
its second decisions, of the weighted mean over the deals of what the replies leave it,
computed with alpha-mu's Pareto fronts of value vectors over the deals (at the seat's node the
union of its actions' vectors; at another seat's node, or where the deals part by what the
seat sees, the element-wise min, or max for a partner, of every combination of the children's
vectors; dominated vectors dropped), exact except where a combination would exceed
``AM_FRONT`` vectors (each front is then cut to its best vector by the weighted sum). The
action of best value is played (a tie to the first in canonical order). The solver's
``budget`` holds per leaf; a deal with an unsolved leaf is left out; where fewer than
``min_solved`` deals are left, where the tree would exceed ``AM_NODES`` positions or
``AM_CHAIN`` decisions of other seats in a row, in blind and with voluntary draws, the
decision is plain pimc's (``too_large`` counts the caps). :meth:`values` stays pimc's.
**Partner** (``partner``, ``solver`` by default; bench/README.md, "Levers (issue 47)"): in
partnership play the solver's partner sees every hand and plays with the seat as one mind,
which no partner does. ``partner=<policy>`` (``learned``, ``blocker``, ``greedy``,
``doubles-first``, ``suit-keeper``, ``heaviest``) models it instead as that compiled policy,
which reads only the partner's own hand and the public table: at the partner's decisions the
search follows the policy's action (``solver.solve_actions``' ``policy``); the seat itself and
the opponents still search. Without a partner (2 or 3 players, no partnership) it changes
nothing.

Everything random comes from the decision's addressed key (the deals), and the solver is
exact and searches one decision's deals in a call of its own, so a decision does not depend
on the batch it is part of, the number of workers, or anything else in the run.
"""

from __future__ import annotations

import numpy as np

from dominosim.base.errors import StrategyError
from dominosim.engine import kernel
from dominosim.engine.batch import BatchEngine
from dominosim.engine.solver import leaf_values, solve_actions
from dominosim.engine.tables import count_of
from dominosim.game import seeding
from dominosim.strategies.mc import (
    MonteCarlo,
    Playouts,
    check_infer_params,
    weighted_positions,
)
from dominosim.strategy import Strategy, get, register
from dominosim.strategy.spec import RANDOM

OBJECTIVES = ("vote", "mean")
#: what ``alphamu`` values a deal's leaf by: the solver's ``2 d + w`` or its win bit ``w``
AM_VALUES = ("points", "win")
#: ``partner``: ``solver`` (the partner searches, seeing every hand) or the compiled policy
#: that models it (every compiled policy but random, which reads a decision's key)
PARTNERS = ("solver", *(p for p in kernel.POLICIES if p != RANDOM))
#: The largest ``samples`` and ``budget`` (beyond them a decision takes minutes).
MAX_PARAM = {
    "samples": 4096,
    "budget": 50_000_000,
    "min_solved": 4096,
    "extend": 16384,
    "alphamu": 1024,
}
#: ``close``'s range: the runner-up's standard errors behind the played action
CLOSE_RANGE = (0.0, 10.0)
#: the coordinate of an extension round's key: ``seeding.key(key, EXTEND_COORD, round)``
EXTEND_COORD = 0x657874656E64  # "extend"


def _votes_means(score: np.ndarray, solved: np.ndarray, count=None):
    """The solved rows of ``score``, their counts, per action the (counted) votes and mean."""
    s = score[solved]
    c = np.ones(len(s)) if count is None else np.asarray(count, dtype=np.float64)[solved]
    mean = (s * c[:, None]).sum(axis=0) / c.sum()
    best = s == s.max(axis=1, keepdims=True)
    return s, c, (best * c[:, None]).sum(axis=0), mean


def rank(score: np.ndarray, solved: np.ndarray, objective: str, count=None) -> np.ndarray:
    """The actions' indices, best first, from the solver's values ``score`` ``[deals,
    actions]`` (``2 d + w``, higher better) of the ``solved`` deals: by ``objective`` (``vote``:
    votes, then the mean, then canonical order; ``mean``: the mean, then canonical order);
    each deal counted ``count`` times (the times inference drew it; once each by default)."""
    _, _, votes, mean = _votes_means(score, solved, count)
    idx = np.arange(score.shape[1])
    if objective == "mean":
        return np.lexsort((idx, -mean))
    return np.lexsort((idx, -mean, -votes))


def combine(score: np.ndarray, solved: np.ndarray, objective: str, count=None) -> int:
    """The index of the action to play (:func:`rank`'s first): by ``objective``, ties as the
    module says; each deal counted ``count`` times (once each by default)."""
    return int(rank(score, solved, objective, count)[0])


def lead(score: np.ndarray, solved: np.ndarray, objective: str, count=None) -> float:
    """How clearly the played action leads the runner-up (:func:`rank`'s first two), in
    standard errors: ``sum c d / sqrt(sum (c d)^2)`` over the solved deals, ``d`` a deal's
    difference between the two (``vote``: 1, 0 or -1, which is best there; ``mean``: their
    values), ``c`` its count; infinite where no deal tells them apart (or one action)."""
    if score.shape[1] < 2:
        return float("inf")
    s, c, _, _ = _votes_means(score, solved, count)
    first, second = rank(score, solved, objective, count)[:2]
    x = (s == s.max(axis=1, keepdims=True)).astype(np.float64) if objective == "vote" else s
    d = c * (x[:, first] - x[:, second])
    den = float(np.sqrt((d * d).sum()))
    return float("inf") if den == 0 else float(d.sum()) / den


#: ``alphamu``'s caps per decision: positions in its tree (beyond: plain pimc decides),
#: decisions of the other seats in a row between the seat's two (beyond: plain pimc), vectors
#: in a front while replies are combined (beyond: each front cut to its best vector)
AM_NODES = 4096
AM_CHAIN = 8
AM_FRONT = 256
#: the hand block's rows the seat sees (a node's public key): the stock's size, the table,
#: the last placer, turns, draws and passes
_PUBLIC_HB = [
    kernel.H_SP,
    kernel.H_SPIN,
    kernel.H_COV,
    kernel.H_NTABLE,
    kernel.H_TABLE,
    kernel.H_LAST,
    kernel.H_TURNS,
    kernel.H_DRAWS,
    kernel.H_PASSES,
]


def _public_keys(st: np.ndarray, seat: int, players: int, done: np.ndarray) -> list[bytes]:
    """Per slot record what ``seat`` sees there, as bytes: whether the hand is over, the seat
    to move, the layout, the points, the void values, the hand block's public rows (the table,
    the stock's size, ...), the seats' tile counts and its own hand (two worlds with equal
    keys are one information set of the seat: it must move alike in both)."""
    n = len(st)
    parts = [
        done.astype(np.int64)[:, None],
        st["to_move"][:, None],
        st["hb"][:, _PUBLIC_HB],
        count_of(st["hands"][:, :players]),
        st["hands"][:, seat : seat + 1].view(np.int64),
    ]
    parts += [st[f].reshape(n, -1) for f in ("vals", "points", "voids")]
    parts += [st[f].reshape(n, -1).astype(np.int64) for f in ("dbl", "alg", "armd", "armv")]
    rows = np.ascontiguousarray(np.hstack(parts))
    return [r.tobytes() for r in rows]


def _pareto(vs: list) -> list:
    """The vectors of ``vs`` (over the same worlds, NaN elsewhere) that no other dominates (at
    least as good in every world, better in one), each once, in a fixed order."""
    if len(vs) < 2:
        return vs
    m = np.nan_to_num(np.array(vs))
    first = {}
    for i, row in enumerate(m):
        first.setdefault(row.tobytes(), i)
    idx = np.fromiter(first.values(), dtype=np.int64)
    m = m[idx]
    ge = (m[:, None, :] >= m[None, :, :]).all(axis=2)
    gt = (m[:, None, :] > m[None, :, :]).any(axis=2)
    dominated = (ge & gt).any(axis=0)
    return [vs[i] for i in idx[~dominated]]


class _Tree:
    """One decision's alpha-mu tree of depth 2 (:meth:`Pimc._alphamu`): per node (a world, the
    actions of its posed decisions so far) its kind (0 the hand over, 1 the seat's second
    decision, 2 another seat's decision), the seat's public key there and its slot record."""

    def __init__(self, rules, plan, seat: int, roots: list):
        self.rules, self.plan, self.seat = rules, plan, seat
        self.deal, self.kind, self.key, self.children, recs = [], [], [], {}, []
        frontier = [(j, (a,), None) for a in roots for j in range(len(plan.hands))]
        self.ok = False
        for _ in range(AM_CHAIN + 1):
            if not frontier:
                break
            if len(self.deal) + len(frontier) > AM_NODES:
                return
            got = self._step(frontier)
            if got is None:
                return
            recs.append(got[0])
            frontier = got[1]
        self.ok = not frontier
        self.st = np.concatenate(recs) if recs else None

    def _step(self, frontier):
        """The nodes of ``frontier`` played to their next posed decision (or the hand's end):
        their records and the next frontier (each other seat's decision's legal actions)."""
        idx = np.array([f[0] for f in frontier], dtype=np.int64)
        p = self.plan
        e = BatchEngine.from_arrays(
            self.rules,
            0,
            [None] * self.rules.players,
            match_ids=np.zeros(len(idx), dtype=np.int64),
            blind=None,
            **{k: getattr(p, k)[idx] for k in p.PER_DEAL},
        )
        st, _, done = e.play_scripts([f[1] for f in frontier])
        other = np.flatnonzero(~done & (st["to_move"] != self.seat))
        if (st["ask"][~done] != kernel.ASK_PLAY).any():
            return None  # (a lead within the hand: not searched here)
        lists = dict(zip(other.tolist(), e.legal_lists(other), strict=True))
        keys = _public_keys(st, self.seat, self.rules.players, done)
        nxt = []
        for i, (j, script, parent) in enumerate(frontier):
            n = len(self.deal)
            self.deal.append(j)
            self.kind.append(0 if done[i] else 1 if st["to_move"][i] == self.seat else 2)
            self.key.append((script[0], self.kind[-1], int(st["to_move"][i]), keys[i]))
            if parent is not None:
                self.children.setdefault(parent, []).append(n)
            nxt += [(j, (*script, r), n) for r in lists.get(i, ())]
        return st, nxt


def _win_bits(v):
    """A leaf's values ``2 d + w`` (a number, or a dict of the seat's actions' values) as their
    win bits ``w``."""
    if v is None:
        return None
    return v % 2 if isinstance(v, int) else {b: x % 2 for b, x in v.items()}


def _leaf_scores(tree: _Tree, budget: int):
    """The solver's values ``2 d + w`` for the seat at the tree's leaves: per node where the
    hand is over its value (the core's, ``solver.leaf_values``), per node of the seat's second
    decision a dict of its actions' values; and the deals with a leaf whose search ran out of
    ``budget`` (left out)."""
    kinds, deal = np.array(tree.kind), np.array(tree.deal)
    bst = np.zeros(1, dtype=kernel.BSLOT)
    vals: list = [None] * len(kinds)
    bad = set()
    ours = np.flatnonzero(kinds == 1)
    if len(ours):
        av = solve_actions(tree.rules, tree.st[ours], bst, budget=budget)
        for r, n in enumerate(ours.tolist()):
            k = int(av.count[r])
            if k <= 0:
                bad.add(int(deal[n]))
                continue
            vals[n] = dict(zip(av.action[r, :k].tolist(), av.score[r, :k].tolist(), strict=True))
    over = np.flatnonzero(kinds == 0)
    if len(over):
        leaves = leaf_values(tree.rules, tree.st[over], tree.seat)
        for n, v in zip(over.tolist(), leaves, strict=True):
            vals[n] = v
    return vals, bad


class _Fronts:
    """alpha-mu's Pareto fronts over the worlds (Cazenave and Ventos 2019) of a :class:`_Tree`:
    per public node (the root action, the node's kind, the seat's public key) the vectors of
    values, one entry per world that reaches it (NaN elsewhere), that the seat's choices at
    its second decision can reach, each world counted ``weight`` times (0: left out)."""

    def __init__(self, tree: _Tree, vals: list, weight: np.ndarray):
        self.tree, self.vals, self.w = tree, vals, weight
        self.members: dict = {}
        for node, d in enumerate(tree.deal):
            if weight[d] > 0:
                self.members.setdefault(tree.key[node], []).append(node)
        self.memo: dict = {}
        self.cut = 0  # combinations cut to their best vectors (AM_FRONT)

    def _vector(self, nodes, value) -> np.ndarray:
        v = np.full(len(self.w), np.nan)
        for n in nodes:
            v[self.tree.deal[n]] = value(n)
        return v

    def best(self, front: list) -> np.ndarray:
        """The vector of ``front`` with the largest weighted sum (the first of equals)."""
        return max(front, key=lambda v: np.nansum(v * self.w))

    def front(self, g) -> list:
        if g not in self.memo:
            self.memo[g] = self._front(g)
        return self.memo[g]

    def _front(self, g) -> list:
        t, nodes = self.tree, self.members[g]
        kind = t.kind[nodes[0]]
        if kind == 0:  # the hand is over: its value in each world
            return [self._vector(nodes, lambda n: self.vals[n])]
        if kind == 1:  # the seat's second decision: one action for every world here
            acts = sorted(self.vals[nodes[0]])
            if any(sorted(self.vals[n]) != acts for n in nodes):
                raise RuntimeError("pimc: one information set with different legal actions")
            return _pareto([self._vector(nodes, lambda n, b=b: self.vals[n][b]) for b in acts])
        # another seat's decision, knowing the world: the worst (a partner: the best) reply per
        # world, for every combination of the seat's choices below (the product of the fronts)
        to_move = g[2]
        same = t.rules.side_of(to_move) == t.rules.side_of(t.seat)
        op = np.fmax if same else np.fmin
        groups = dict.fromkeys(t.key[c] for n in nodes for c in t.children[n])
        acc = None
        for cg in groups:
            f = self.front(cg)
            if acc is None:
                acc = f
                continue
            if len(acc) * len(f) > AM_FRONT:
                acc, f = [self.best(acc)], [self.best(f)]
                self.cut += 1
            acc = _pareto([op(u, v) for u in acc for v in f])
        return acc

    def value(self, groups) -> float:
        """The root action's value: over its public nodes (disjoint sets of worlds), the best
        vector's weighted sum of each, added, per unit of weight."""
        total = sum(float(np.nansum(self.best(self.front(g)) * self.w)) for g in groups)
        return total / float(self.w.sum())


def _check_choices(s) -> None:
    """pimc's parameters that name a choice (``objective``, ``alphamu_value``, ``partner``),
    and the one pair it does not combine: ``alphamu``'s tree takes every other seat's reply by
    search, so a ``partner`` model is refused beside it."""
    for k, allowed in (
        ("alphamu_value", AM_VALUES),
        ("objective", OBJECTIVES),
        ("partner", PARTNERS),
    ):
        if s[k] not in allowed:
            raise StrategyError(f"pimc: {k} must be one of {', '.join(allowed)}, not {s[k]!r}")
    if s["alphamu"] and s["partner"] != "solver":
        raise StrategyError(
            "pimc: alphamu and partner do not combine (alpha-mu searches the partner's "
            "replies); set one of them"
        )


@register
class Pimc(Strategy):
    """Perfect-information Monte Carlo: sample hidden deals, solve each action exactly, vote."""

    name = "pimc"
    classifier = "search"
    rank = 1
    params = {
        "samples": 64,
        "budget": 20_000,
        "objective": "vote",
        "min_solved": 8,
        "infer": True,
        "pool": 4,
        "temp": 4.0,
        "points": 0.0,
        "likelihood": "heuristic",
        "extend": 0,
        "close": 1.0,
        "alphamu": 0,
        "alphamu_value": "points",
        "partner": "solver",
    }

    def __init__(self, **params):
        super().__init__(**params)
        s = self.settings
        for k in ("samples", "budget", "min_solved", "extend", "alphamu"):
            low = 0 if k in ("extend", "alphamu") else 1
            if isinstance(s[k], bool) or not isinstance(s[k], int) or s[k] < low:
                raise StrategyError(f"pimc: {k} must be an integer >= {low}, not {s[k]!r}")
            if s[k] > MAX_PARAM[k]:
                raise StrategyError(
                    f"pimc: {k} must be at most {MAX_PARAM[k]}, not {s[k]!r}; use a smaller {k}"
                )
        check_infer_params("pimc", s)
        lo, hi = CLOSE_RANGE
        v = s["close"]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi):
            raise StrategyError(f"pimc: close must be a number from {lo} to {hi}, not {v!r}")
        _check_choices(s)
        self.unsolved = 0  # sampled deals left out: their search ran out of budget
        self.fallbacks = 0  # decisions taken by mc's playouts (too few deals solved)
        self.extended = 0  # close decisions given more deals (extend)
        self.added = 0  # the deals they were given
        self.searched = 0  # decisions taken by alphamu's depth-2 search
        self.too_large = 0  # alphamu on, but the decision was left to plain pimc
        self.cut = 0  # alphamu's fronts cut to their best vectors (AM_FRONT)
        self._mc = None
        self._greedy = None
        self._tables = {}  # (rules, partner seat) -> the solver's policy table (partner)

    def _fallback(self, obs, legal, key):
        """Where too few deals are solved: mc's playouts on as many deals, and never fewer
        than mc's default (a fallback is mc at its own strength at least); where no hidden
        deal fits what the seat knows (not seen in play: a guard), greedy, as mc does."""
        self.fallbacks += 1
        return self._fallback_mc().choose_one(obs, legal, key)

    def _fallback_mc(self):
        """The fallback's ``mc``: as many samples as pimc's and never fewer than mc's
        default, with pimc's inference settings (``pimc:infer=off`` falls back to the plain
        sampler's mc)."""
        if self._mc is None:
            s = self.settings
            n = max(s["samples"], MonteCarlo.params["samples"])
            infer = {k: s[k] for k in ("infer", "pool", "temp", "points", "likelihood")}
            self._mc = get("mc", samples=n, **infer)
        return self._mc

    def _policy(self, obs):
        """The solver's policy table for ``obs``'s decision: None (every seat searches) unless
        ``partner`` names a policy and the seat has a partner, which the table then models as
        that policy (it sees its own hand and the table; the module's "Partner")."""
        name = self.settings["partner"]
        if name == "solver" or obs.partner is None:
            return None
        at = (obs.rules, obs.partner)
        if at not in self._tables:
            seats = [get(name) if s == obs.partner else None for s in range(4)]
            self._tables[at] = kernel.policy_table(seats, rules=obs.rules)
        return self._tables[at]

    def _values(self, obs, plan: Playouts):
        """The solver's values of every legal action on each deal of ``plan`` (one decision's
        deals, searched in one call: its own table)."""
        rules = obs.rules
        st, bst = plan.engine(rules, [None] * rules.players).slot_records()
        return solve_actions(
            rules, st, bst, budget=self.settings["budget"], policy=self._policy(obs)
        )

    def _round(self, obs, legal, key, samples: int):
        """One round of deals from ``key``: the solver's values ``2 d + w`` of each action of
        ``legal`` (columns in its order) on each deal ``[deals, actions]``, which deals were
        solved and the times each deal counts; None where no deal fits."""
        s = self.settings
        s = s if samples == s["samples"] else {**s, "samples": samples}
        plan, count = weighted_positions(obs, legal, key, s)
        if plan is None:
            return None
        av = self._values(obs, plan)
        k = len(legal)
        solved = av.count == k
        bad = (av.count >= 0) & (av.count != k)
        self.unsolved += int((av.count < 0).sum())
        if (
            bad.any()
            or (solved & (np.sort(av.action[:, :k], axis=1) != sorted(legal)).any(1)).any()
        ):
            raise RuntimeError("pimc: the solver's legal actions differ from the decision's")
        order = np.argsort(av.action[:, :k], axis=1)  # each deal's columns to canonical order
        canon = np.argsort(np.argsort(legal))
        cols = order[:, canon]
        return np.take_along_axis(av.score[:, :k], cols, axis=1), solved, count

    def _scores(self, obs, legal, key):
        """The first round's values (:meth:`_round`), with a close decision's further rounds
        (``extend``); None where too few deals are solved or none fits (the decision goes
        to the fallback)."""
        got = self._round(obs, legal, key, self.settings["samples"])
        if got is None:
            return None
        _, solved, count = got
        if count[solved].sum() < min(self.settings["min_solved"], count.sum()):
            return None
        return self._extend(obs, legal, key, got) if self.settings["extend"] else got

    def _extend(self, obs, legal, key, got):
        """``got`` with more rounds of deals while the decision is close (the module's
        "Close decisions"), ``extend`` deals at most."""
        s = self.settings
        added, r = 0, 0
        while added < s["extend"] and lead(got[0], got[1], s["objective"], got[2]) < s["close"]:
            r += 1
            n = min(s["samples"], s["extend"] - added)
            more = self._round(obs, legal, seeding.key(key, EXTEND_COORD, r), n)
            if more is None:
                break
            got = tuple(np.concatenate(p) for p in zip(got, more, strict=True))
            added += n
        if added:
            self.extended += 1
            self.added += added
        return got

    def _alphamu(self, obs, legal, key):
        """The action alphamu's depth-2 search chooses (the module's "Not fusing the second
        move"), or None where it does not search: blind or voluntary draws, no deal fits, its
        tree beyond its caps, too few deals solved."""
        s, r = self.settings, obs.rules
        if r.draw_mode == "blind" or r.may_draw_when_able or r.bergen_voluntary:
            return None
        plan, count = weighted_positions(obs, legal, key, {**s, "samples": s["alphamu"]})
        if plan is None:
            return None
        roots = [legal[c] for c in sorted(set(plan.cand.tolist()))]
        tree = _Tree(r, plan, obs.seat, roots)
        if not tree.ok:
            self.too_large += 1
            return None
        vals, bad = _leaf_scores(tree, s["budget"])
        if s["alphamu_value"] == "win":  # (2 d + w: its parity is the win bit)
            vals = [_win_bits(v) for v in vals]
        w = np.asarray(count, dtype=np.float64).copy()
        w[sorted(bad)] = 0.0
        self.unsolved += len(bad)
        if not w.sum() or w.sum() < min(s["min_solved"], count.sum()):
            return None
        fronts = _Fronts(tree, vals, w)
        first = range(len(roots) * len(w))  # (the tree's first nodes: each root action's)
        groups = {a: {} for a in roots}
        for n in first:
            if w[tree.deal[n]] > 0:
                groups[tree.key[n][0]][tree.key[n]] = None
        value = [fronts.value(groups[a]) for a in roots]
        self.searched += 1
        self.cut += fronts.cut
        return roots[int(np.argmax(value))]

    def _decide_one(self, obs, legal, key):
        if len(legal) < 2:
            return legal[0]
        if self.settings["alphamu"]:
            chosen = self._alphamu(obs, legal, key)
            if chosen is not None:
                return chosen
        scored = self._scores(obs, legal, key)
        if scored is None:
            return self._fallback(obs, legal, key)
        score, solved, count = scored
        return legal[combine(score, solved, self.settings["objective"], count)]

    def values(self, obs, legal, key) -> list[float] | None:
        """Each action of ``legal``'s mean perfect-information value over the solved deals
        (the points difference, as ``solver.ActionValues.value``; a deal the inference draws
        twice counts twice), in the order of ``legal``; where too few deals are solved,
        ``mc``'s mean playout values (as the decision would fall back); None where no hidden
        deal fits what the seat knows (:func:`dominosim.action_values`)."""
        legal = list(legal)
        scored = self._scores(obs, legal, int(key))
        if scored is None:
            self.fallbacks += 1
            return self._fallback_mc().values(obs, legal, key)
        score, solved, count = scored
        value, weight = score[solved] // 2, count[solved]  # (2 d + w: the points difference d)
        mean = (value * weight[:, None]).sum(axis=0) / weight.sum()
        return [float(v) for v in mean]

    def choose_one(self, obs, legal, key):
        return self._decide_one(obs, list(legal), int(key))

    def choose(self, obs, legal, keys):
        return np.array(
            [
                self._decide_one(obs.row(i), legal.row_list(i), int(keys[i]))
                for i in range(len(keys))
            ],
            dtype=np.int64,
        )
