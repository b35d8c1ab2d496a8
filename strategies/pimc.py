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
for partners and opponents;
``samples`` draws among them by systematic resampling (one uniform number of the decision's
key) are the deals solved, each deal once with the times it was drawn as its weight in the
vote and the mean (:func:`mc.infer_deals` and :func:`mc.infer_events` say which placements
are scored: those after the seat's last draw, the lead only where it was a free choice).
Blind, where a seat's row is hidden from itself too, keeps the plain sampler.

Everything random comes from the decision's addressed key (the deals), and the solver is
exact and searches one decision's deals in a call of its own, so a decision does not depend
on the batch it is part of, the number of workers, or anything else in the run.
"""

from __future__ import annotations

import numpy as np

from dominosim.base.errors import StrategyError
from dominosim.engine.solver import solve_actions
from dominosim.strategies.mc import (
    MonteCarlo,
    Playouts,
    check_infer_params,
    weighted_positions,
)
from dominosim.strategy import Strategy, get, register

OBJECTIVES = ("vote", "mean")
#: The largest ``samples`` and ``budget`` (beyond them a decision takes minutes).
MAX_PARAM = {"samples": 4096, "budget": 50_000_000, "min_solved": 4096}


def combine(score: np.ndarray, solved: np.ndarray, objective: str, count=None) -> int:
    """The index of the action to play from the solver's values ``score`` ``[deals,
    actions]`` (``2 d + w``, higher better) of the ``solved`` deals: by ``objective``, ties
    as the module says; each deal counted ``count`` times (the times inference drew it; once
    each by default)."""
    s = score[solved]
    c = np.ones(len(s)) if count is None else np.asarray(count, dtype=np.float64)[solved]
    mean = (s * c[:, None]).sum(axis=0) / c.sum()
    if objective == "mean":
        return int(np.argmax(mean))  # (ties: the first in canonical order)
    best = s == s.max(axis=1, keepdims=True)
    votes = (best * c[:, None]).sum(axis=0)
    top = np.flatnonzero(votes == votes.max())
    return int(top[np.argmax(mean[top])])


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
    }

    def __init__(self, **params):
        super().__init__(**params)
        s = self.settings
        for k in ("samples", "budget", "min_solved"):
            if isinstance(s[k], bool) or not isinstance(s[k], int) or s[k] < 1:
                raise StrategyError(f"pimc: {k} must be an integer >= 1, not {s[k]!r}")
            if s[k] > MAX_PARAM[k]:
                raise StrategyError(
                    f"pimc: {k} must be at most {MAX_PARAM[k]}, not {s[k]!r}; use a smaller {k}"
                )
        check_infer_params("pimc", s)
        if s["objective"] not in OBJECTIVES:
            raise StrategyError(
                f"pimc: objective must be one of {', '.join(OBJECTIVES)}, not {s['objective']!r}"
            )
        self.unsolved = 0  # sampled deals left out: their search ran out of budget
        self.fallbacks = 0  # decisions taken by mc's playouts (too few deals solved)
        self._mc = None
        self._greedy = None

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
            infer = {k: s[k] for k in ("infer", "pool", "temp", "points")}
            self._mc = get("mc", samples=n, **infer)
        return self._mc

    def _values(self, rules, plan: Playouts):
        """The solver's values of every legal action on each deal of ``plan`` (one decision's
        deals, searched in one call: its own table)."""
        st, bst = plan.engine(rules, [None] * rules.players).slot_records()
        return solve_actions(rules, st, bst, budget=self.settings["budget"])

    def _scores(self, obs, legal, key):
        """The solver's values ``2 d + w`` of each action of ``legal`` (columns in its
        order) on each sampled deal ``[deals, actions]``, which deals were solved and the
        times each deal counts; None where too few deals are solved or none fits (the
        decision goes to the fallback)."""
        plan, count = weighted_positions(obs, legal, key, self.settings)
        if plan is None:
            return None
        av = self._values(obs.rules, plan)
        k = len(legal)
        solved = av.count == k
        bad = (av.count >= 0) & (av.count != k)
        self.unsolved += int((av.count < 0).sum())
        if (
            bad.any()
            or (solved & (np.sort(av.action[:, :k], axis=1) != sorted(legal)).any(1)).any()
        ):
            raise RuntimeError("pimc: the solver's legal actions differ from the decision's")
        if count[solved].sum() < min(self.settings["min_solved"], count.sum()):
            return None
        order = np.argsort(av.action[:, :k], axis=1)  # each deal's columns to canonical order
        canon = np.argsort(np.argsort(legal))
        cols = order[:, canon]
        return np.take_along_axis(av.score[:, :k], cols, axis=1), solved, count

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
