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
from dominosim.engine.solver import solve_actions
from dominosim.game import seeding
from dominosim.strategies.mc import (
    MonteCarlo,
    Playouts,
    check_infer_params,
    weighted_positions,
)
from dominosim.strategy import Strategy, get, register

OBJECTIVES = ("vote", "mean")
#: ``partner``: ``solver`` (the partner searches, seeing every hand) or the compiled policy
#: that models it (every compiled policy but random, which reads a decision's key)
PARTNERS = ("solver", *(p for p in kernel.POLICIES if p != "random"))
#: The largest ``samples`` and ``budget`` (beyond them a decision takes minutes).
MAX_PARAM = {"samples": 4096, "budget": 50_000_000, "min_solved": 4096, "extend": 16384}
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
        "partner": "solver",
    }

    def __init__(self, **params):
        super().__init__(**params)
        s = self.settings
        for k in ("samples", "budget", "min_solved", "extend"):
            low = 0 if k == "extend" else 1
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
        if s["objective"] not in OBJECTIVES:
            raise StrategyError(
                f"pimc: objective must be one of {', '.join(OBJECTIVES)}, not {s['objective']!r}"
            )
        if s["partner"] not in PARTNERS:
            raise StrategyError(
                f"pimc: partner must be one of {', '.join(PARTNERS)}, not {s['partner']!r}"
            )
        self.unsolved = 0  # sampled deals left out: their search ran out of budget
        self.fallbacks = 0  # decisions taken by mc's playouts (too few deals solved)
        self.extended = 0  # close decisions given more deals (extend)
        self.added = 0  # the deals they were given
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

    def _decide_one(self, obs, legal, key):
        if len(legal) < 2:
            return legal[0]
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
