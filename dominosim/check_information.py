"""The ``information`` check of ``dominosim check-strategy`` (docs/strategies.md, "The information
check"): a strategy's answer must not change when only what its seat cannot see changes.

Two plays of the same deals, in two processes:

* :func:`redealt_answers`, in a process forked before the strategy was asked anything
  (``sandbox.call``): at decisions drawn at random (one row of each rule set's first batch,
  then one in :data:`PROBE_RATE`, from a probe seed drawn with ``secrets``, never from anything
  the strategy is given), before the strategy is asked,
  the hidden part (the other hands and the stock) is re-dealt in the engine, consistent with the
  Observation (``mc``'s sampler, from a key of the probe seed's), and a fresh instance is asked
  the same Observation and key; then the true deal is restored and the play goes on;
* :func:`true_answers`, in the check's process, which never saw a re-dealt position: the plain
  play, the answer at each probed decision.

The answers must agree. Neither process saw the other's position at a probed decision, so an
answer remembered by its place (match, hand, decision, seat) in memory cannot pass; which
decisions are probed cannot be derived from the keys or the Observation.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from dominosim import strategy
from dominosim.base.errors import StrategyError
from dominosim.game.rules import Rules
from dominosim.strategy.conformance import Failure, show_action, show_position

PROBE_RATE = 8  # one decision in this many is probed, on average (information)
REDEALS = 2  # hidden deals tried per probed decision (information)


def probe_seed() -> int:
    """A probe seed drawn from the operating system's randomness."""
    return secrets.randbits(63)


@dataclass(frozen=True)
class Probe:
    """A probed decision: its rule set (index), place ``(match, hand, decision, seat)``, key,
    the position shown (:func:`show_position`), its legal actions and the fresh instances'
    answers on the re-dealt deals."""

    rules: int
    at: tuple[int, int, int, int]
    key: int
    shown: str
    legal: tuple[int, ...]
    answers: tuple[int, ...]


class _Passing(strategy.Strategy):
    """Plays ``inner`` and goes by its label (the strategy under test names every error)."""

    name = "check"
    params = {}

    def __init__(self, inner) -> None:
        super().__init__()
        self.inner = inner

    @property
    def label(self) -> str:
        return getattr(self.inner, "label", getattr(self.inner, "name", "?"))


def _places(obs, i: int) -> tuple[int, int, int, int]:
    return (int(obs.match_id[i]), int(obs.hand_index[i]), int(obs.decision[i]), int(obs.seat[i]))


class _Redeal(_Passing):
    """The play of :func:`redealt_answers` (``engine`` set before its run)."""

    def __init__(self, inner, make: Callable, index: int, seed: int) -> None:
        super().__init__(inner)
        self.make, self.index, self.engine = make, index, None
        self.rng = random.Random(f"{seed}:{index}")
        self.found: list[Probe] = []
        self.asked = False

    def choose(self, obs, legal, keys):
        if obs.row(0).row is None:  # (blind's rows are not re-dealt: its decisions not probed)
            # one row of the first batch at least (every rule set probed), then one in
            # PROBE_RATE wherever it falls
            first = self.rng.randrange(len(keys)) if not self.asked else -1
            for i in range(len(keys)):
                if i == first or self.rng.randrange(PROBE_RATE) == 0:
                    self._probe(obs, legal, keys, i)
        self.asked = True
        return self.inner.choose(obs, legal, keys)

    def _slot(self, o) -> int:
        e = self.engine
        g = np.flatnonzero(
            e.state.active & (e.state.match == o.match_id) & (e.state.hand_idx == o.hand_index)
        )
        if len(g) != 1:
            raise RuntimeError(f"information check: {len(g)} slots hold match {o.match_id}")
        return int(g[0])

    def _probe(self, obs, legal, keys, i: int) -> None:
        from dominosim.engine.batch_observation import BatchObservation
        from dominosim.strategies.mc import sample_arrays

        e, o = self.engine, obs.row(i)
        g = self._slot(o)
        drawn = sample_arrays(o, self.rng.getrandbits(64), REDEALS)
        if drawn is None:
            return
        hands0, stock0, sp = e.state.hands[g].copy(), e.state.stock[g].copy(), int(e.state.sp[g])
        answers = []
        try:
            for hands, stock in zip(*drawn, strict=True):
                e.state.hands[g] = hands
                e.state.stock[g, sp:] = stock[sp:]
                if (e.state.hands[g] == hands0).all() and (e.state.stock[g] == stock0).all():
                    continue  # (the true deal again)
                again = BatchObservation(
                    e, np.array([g]), np.array([o.seat]), obs.phase, obs.decision[[i]]
                )
                row = again.row(0)
                again._close()  # (read now, from this deal: no later state)
                if row != o:
                    raise RuntimeError(
                        "information check: a re-dealt position's Observation differs from the "
                        "true one; report this bug"
                    )
                y = self.make().choose(obs.take([i]), legal.take([i]), keys[i : i + 1])
                answers.append(int(np.asarray(y, dtype=np.int64).reshape(-1)[0]))
        finally:
            e.state.hands[g], e.state.stock[g] = hands0, stock0
        if answers:
            lg = tuple(legal.row_list(i))
            shown = show_position(o, lg)
            self.found.append(
                Probe(self.index, _places(obs, i), int(keys[i]), shown, lg, tuple(answers))
            )


def _engine(rules: Rules, seed: int, strat, deals: int):
    from dominosim.engine.batch import BatchEngine

    return BatchEngine(
        rules, seed, [strat] * rules.players, range(deals), unit="hand", batch_size=deals
    )


def redealt_answers(
    make: Callable, sets: Iterable[tuple[int, Rules]], seed: int, deals: int, key: int
) -> tuple[list[Probe], dict[int, str]]:
    """The probes of each rule set of ``sets`` (``(index, rules)``), probed as the module says
    with probe seed ``key``, and the rule sets whose play stopped (index -> the engine's
    message); run in a process of its own (``sandbox.call``)."""
    found: list[Probe] = []
    stopped: dict[int, str] = {}
    for index, rules in sets:
        play = _Redeal(make(), make, index, key)
        e = _engine(rules, seed, play, deals)
        play.engine = e
        try:
            e.run()
        except StrategyError as exc:
            stopped[index] = exc.message
        found += play.found
    return found, stopped


class _Truth(_Passing):
    """The plain play of :func:`true_answers`: keeps the answer at each wanted place."""

    def __init__(self, inner, wanted: set) -> None:
        super().__init__(inner)
        self.wanted, self.got = wanted, {}

    def choose(self, obs, legal, keys):
        out = np.asarray(self.inner.choose(obs, legal, keys), dtype=np.int64).reshape(-1)
        for i in range(min(len(keys), len(out))):
            at = _places(obs, i)
            if at in self.wanted:
                shown = show_position(obs.row(i), tuple(legal.row_list(i)))
                self.got[at] = (int(keys[i]), shown, int(out[i]))
        return out


def true_answers(make: Callable, rules: Rules, seed: int, deals: int, wanted: set) -> dict:
    """The strategy's answers in the plain play of ``rules``' deals at the places ``wanted``:
    place -> (key, position shown, answer). A StrategyError where the play stops."""
    play = _Truth(make(), wanted)
    _engine(rules, seed, play, deals).run()
    return play.got


def compare(make, sets, seed, deals, rec, probed) -> None:
    """Compare the re-dealt answers (``probed``: :func:`check_information.redealt_answers`'
    result, from a process forked before this one asked anything) with this process's
    answers in the plain play of the same deals; ``rec`` is the check's recorder (its
    ``report``, ``probed``, ``decisions``)."""
    found, stopped = probed
    by_set: dict[int, list] = {}
    for p in found:
        by_set.setdefault(p.rules, []).append(p)
    for index, rules in sets:
        if index in stopped:
            rec.report(
                "information", rules, f"the batch engine stopped: {stopped[index]}", stop=False
            )
            continue
        probes = by_set.get(index, [])
        if not probes:
            continue
        try:
            truth = true_answers(make, rules, seed, deals, {p.at for p in probes})
        except StrategyError as exc:
            rec.report("information", rules, f"the batch engine stopped: {exc.message}", stop=False)
            continue
        for p in probes:
            key, shown, x = truth.get(p.at, (None, None, None))
            if key != p.key or shown != p.shown:
                continue  # (another position there: the plays went apart)
            rec.probed += 1
            rec.decisions += len(p.answers)
            y = next((y for y in p.answers if y != x), None)
            if y is not None:
                rec.report(
                    "information",
                    rules,
                    f"answered {show_action(x)} on the true deal and {show_action(y)} on a "
                    "re-dealt one with the same Observation and key (asked in a process that "
                    "never saw the true deal there)",
                    shown=f"seed {seed} {shown}",
                    stop=False,
                )
                break


def verdict(rec, rule_sets: int, exempt: bool) -> None:
    """The information check fails where it checked nothing: a perfect-information strategy
    (exempt: it sees the hidden tiles by design), or no decision probed."""
    if exempt:
        why = (
            "its class is registered perfect_information: it sees the hidden tiles by design "
            "(reports mark it), so the check does not apply and it does not pass"
        )
    elif rec.probed == 0 and not any(f.check == "information" for f in rec.failures):
        why = (
            f"no decision was probed in {rule_sets} rule sets (blind's decisions are not "
            "re-dealt): the check checked nothing, so it does not pass; give more --deals"
        )
    else:
        return
    rec.failures.append(Failure("information", rec.label, "all rule sets", why))
