"""Compare the compiled core (through BatchEngine) with the reference engine, the readable
specification: the hand and match records, and every question the strategies were asked
(what they were shown, the legal actions, the key, what they chose), recorded by
:class:`Recorder` on both engines (shared by tests)."""

from __future__ import annotations

from dataclasses import fields

import numpy as np
import pytest

from dominosim.engine import BatchEngine
from dominosim.game.observe import Observation
from dominosim.game.reference import play_match
from dominosim.game.variants import OPTIONS, make_rules
from dominosim.strategy import Strategy


class Recorder(Strategy):
    """Plays like ``inner`` and writes down every decision it is asked into ``log``:
    ``(Observation, legal actions, key, chosen action)``. On the batch engine the inner
    strategy's batch ``choose`` plays (fast strategies override it) and each decision is
    recorded through ``obs.row(i)`` and ``legal.row_list(i)``."""

    name = "recorder"
    params = {}

    def __init__(self, inner: Strategy, log: list):
        super().__init__()
        self.inner = inner
        self.log = log

    @property
    def label(self) -> str:
        return self.inner.label

    def choose_one(self, obs, legal, key):  # the reference engine
        action = self.inner.choose_one(obs, legal, key)
        self.log.append((obs, tuple(legal), int(key), int(action)))
        return action

    def choose(self, obs, legal, keys):  # the batch engine
        actions = np.asarray(self.inner.choose(obs, legal, keys))
        for i in range(len(keys)):
            self.log.append((obs.row(i), tuple(legal.row_list(i)), int(keys[i]), int(actions[i])))
        return actions


def recorders(strategies, log: list) -> list[Recorder]:
    """One recorder per distinct strategy object (the engine groups seats by object)."""
    made: dict[int, Recorder] = {}
    return [made.setdefault(id(s), Recorder(s, log)) for s in strategies]


def _ordered(log: list) -> list:
    return sorted(log, key=lambda d: (d[0].match_id, d[0].hand_index, d[0].decision))


def _decision_difference(a: list, b: list) -> str | None:
    """The first decision where the reference engine's log ``a`` and the core's ``b`` differ."""
    for x, y in zip(a, b, strict=False):
        if x == y:
            continue
        o = x[0]
        where = f"match {o.match_id} hand {o.hand_index} decision {o.decision}"
        if x[0] != y[0]:
            diff = [
                f.name
                for f in fields(Observation)
                if getattr(x[0], f.name) != getattr(y[0], f.name)
            ]
            shown = {k: (getattr(x[0], k), getattr(y[0], k)) for k in diff}
            return f"{where}: Observation fields differ (reference, core): {shown}"
        return f"{where}: legal/key/action {x[1:]} vs {y[1:]}"
    if len(a) != len(b):
        return f"{len(a)} decisions on the reference engine, {len(b)} on the core"
    return None


HAND_FIELDS = (
    "hand_index",
    "leader",
    "fish_maker",
    "winner",
    "went_out",
    "hand_length",
    "turns",
    "draws",
    "passes",
    "redeals",
)
LIST_FIELDS = ("points", "pips", "values", "penalties")
END_REASONS = ("domino", "blocked", "target")


def _none(x):
    return -1 if x is None else x


def compare(
    rules,
    strategies,
    n: int,
    *,
    unit: str,
    seed: int = 11,
    batch_size: int = 13,
    core_strategies=None,
) -> list[str]:
    """Play matches 0..n-1 on both engines; return a list of mismatch descriptions: records
    field by field, then the first question asked differently (``core_strategies``: other
    strategies for the core, to show that a difference is seen)."""
    ref_log: list = []
    core_log: list = []
    ref_st = recorders(strategies, ref_log)
    core_st = recorders(strategies if core_strategies is None else core_strategies, core_log)
    eng = BatchEngine(rules, seed, core_st, range(n), unit=unit, batch_size=batch_size)
    hands, matches = eng.run()
    problems = []
    at = 0
    for m in range(n):
        ref = play_match(rules, seed, m, ref_st, unit=unit)
        for rec in ref.hands:
            where = f"match {m} hand {rec.hand_index}"
            if at >= len(hands["match_id"]) or int(hands["match_id"][at]) != m:
                problems.append(f"{where}: no such record on the core")
                break
            for f in HAND_FIELDS:
                if int(hands[f][at]) != _none(getattr(rec, f)):
                    problems.append(f"{where}: {f} {getattr(rec, f)} vs {hands[f][at]}")
            if END_REASONS[int(hands["end_reason"][at])] != rec.end_reason:
                problems.append(
                    f"{where}: end_reason {rec.end_reason} vs {hands['end_reason'][at]}"
                )
            for f in LIST_FIELDS:
                if list(hands[f][at]) != list(getattr(rec, f)):
                    problems.append(f"{where}: {f} {getattr(rec, f)} vs {list(hands[f][at])}")
            at += 1
        want = (
            _none(ref.winner),
            list(ref.scores),
            ref.length,
            bool(ref.dry),
            sum(1 << s for s in ref.losers),
        )
        got = (
            int(matches["winner"][m]),
            list(matches["scores"][m]),
            int(matches["hands"][m]),
            bool(matches["dry"][m]),
            int(matches["losers"][m]),
        )
        if want != got:
            problems.append(f"match {m}: (winner, scores, hands, dry, losers) {want} vs {got}")
    if at != len(hands["match_id"]):
        problems.append(f"{len(hands['match_id'])} hand records on the core, {at} on the reference")
    diff = _decision_difference(_ordered(ref_log), _ordered(core_log))
    if diff:
        problems.append(diff)
    if not ref_log and n >= 20:
        problems.append("no decision was asked (the comparison compared nothing)")
    return problems


def option_cases():
    """One case per §15 option value away from its default (variant, players, options)."""
    cases = []
    for (variant, name), opt in OPTIONS.items():
        if isinstance(opt.allowed, tuple):
            values = [v for v in opt.allowed if v != opt.default_for(2)]
        elif "cumulative" in name:
            values = [3]
        else:
            values = [7]  # a small target: many matches end in few hands
        for value in values:
            opts = {name: value}
            if variant == "muggins" and name in (
                "spinner_open_all_four_immediately",
                "us_sniff_counting",
            ):
                opts["first_double_spinner"] = True
            for players in (2, 3, 4):
                try:
                    make_rules(variant, players, **opts)
                except Exception:
                    continue
                cases.append(
                    pytest.param(variant, players, opts, id=f"{variant}-{players}p-{name}={value}")
                )
                break
    return cases
