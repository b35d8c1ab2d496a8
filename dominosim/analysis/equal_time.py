"""``compare --equal-time MS``: every search at the same cost per decision (docs/compare.md,
"Equal time").

A calibration before the run, never a clock inside a decision: each seated search with a budget
knob (:data:`KNOBS`: ``mc`` and ``pimc``, their ``samples``) is timed on a fixed calibration
set of decisions of the compared rules (:func:`calibration_set`: every decision with a choice
of :data:`HANDS` hands dealt from :data:`SEED`, played by ``greedy``), and its knob is set to
the value that brings it to about ``MS`` CPU milliseconds per decision (:func:`choose_value`:
proportional, then along the line through the last two measurements, at most :data:`TRIES`
measurements, the one nearest the target kept). The chosen entries (``pimc:samples=23``) are
the run's strategies, recorded in its manifest with the measurements
(``analysis.equal_time``), so its games are a function of those entries and the seed:
``--resume`` and ``verify`` play the recorded entries and never calibrate again.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dominosim.analysis.analyses import CompareParams
from dominosim.base.errors import ConfigError
from dominosim.base.params import declared
from dominosim.strategy import Strategy, classification, classify, discover, get
from dominosim.strategy.spec import StrategySpec, expand_home, parse_strategy

#: ``--equal-time``'s declaration: its range, CPU milliseconds per decision (``lo`` to ``hi``)
MS = declared(CompareParams)["equal_time"]
#: The calibration set: every decision with a choice of hands 0..HANDS-1 of matches dealt from
#: SEED (the same set whatever the run's seed, so the same MS chooses alike in every run).
SEED = 0x45_71_75_61_6C
HANDS = 16
#: The most measurements per search, and the distance from the target that ends them early.
TRIES = 3
TOLERANCE = 0.1
#: The clock: the process's CPU time, so the machine's load moves the measurement little.
CLOCK = "process CPU time"


@dataclass(frozen=True)
class Knob:
    """A search's budget parameter and its allowed range (its time grows with it)."""

    param: str
    lo: int
    hi: int

    def clamp(self, value: float) -> int:
        return int(min(self.hi, max(self.lo, round(value))))


def knobs() -> dict[str, Knob]:
    """The built-in searches with a budget knob, by name: ``samples`` up to each one's own
    largest allowed value."""
    from dominosim.strategies import mc, pimc

    return {
        "mc": Knob("samples", 1, mc.MAX_PARAM["samples"]),
        "pimc": Knob("samples", 1, pimc.MAX_PARAM["samples"]),
    }


def parse_ms(value: object) -> float:
    """``--equal-time MS``: CPU milliseconds per decision in :data:`MS`'s range."""
    try:
        ms = float(str(value).strip()) if not isinstance(value, bool) else math.nan
    except ValueError:
        ms = math.nan
    if not MS.within(ms):  # (nan, inf and <= 0 too)
        raise ConfigError(
            f"--equal-time must be a number of milliseconds per decision from {MS.lo:g} to "
            f"{MS.hi:g}, e.g. --equal-time 10, not '{value}'"
        )
    return ms


# ---------------------------------------------------------------------------------------------
# the choice


def choose_value(
    measure: Callable[[int], float], target: float, start: int, knob: Knob
) -> tuple[int, float, list[tuple[int, float]]]:
    """The knob value whose measured ms per decision is nearest ``target``: ``measure(value)``
    at ``start``, then at the proportional value, then along the line through the last two
    measurements (a cost of the form a + b·value), clamped to the knob's range; it stops
    within :data:`TOLERANCE` of the target, after :data:`TRIES` measurements, or where the next
    value is one measured already (a bound reached). Returns (value, its ms, every (value,
    ms) measured)."""
    seen: list[tuple[int, float]] = []
    value = knob.clamp(start)
    while True:
        ms = max(measure(value), 1e-6)
        seen.append((value, ms))
        if abs(ms / target - 1) <= TOLERANCE or len(seen) >= TRIES:
            break
        value = knob.clamp(_next_value(seen, target))
        if value in (v for v, _ in seen):
            break
    best = min(seen, key=lambda s: (abs(math.log(s[1] / target)), s[0]))
    return best[0], best[1], seen


def _next_value(seen: list[tuple[int, float]], target: float) -> float:
    """Proportional from the last measurement; along the line through the last two where it
    rises."""
    (v1, t1) = seen[-1]
    if len(seen) >= 2:
        (v0, t0) = seen[-2]
        if v1 != v0 and (t1 - t0) / (v1 - v0) > 0:
            return v1 + (target - t1) * (v1 - v0) / (t1 - t0)
    return v1 * target / t1


# ---------------------------------------------------------------------------------------------
# the measurement


@classify
class _Recorder(Strategy):
    """``greedy``'s play, keeping every batch of decisions it is asked (whole: every field of
    its Observation read while asked, so the batch can be asked again of another strategy)."""

    name = "equal-time-recorder"

    def __init__(self) -> None:
        super().__init__()
        self.inner = get("greedy")
        self.batches: list[tuple] = []

    def choose(self, obs, legal, keys):
        obs.lazy_fields("public")
        obs.lazy_fields("history")
        self.batches.append((obs, legal, keys.copy()))
        return self.inner.choose(obs, legal, keys)


def calibration_set(rules) -> list[tuple]:
    """The decisions a search is timed on: every decision with a choice of hands
    0..HANDS-1 of matches dealt from :data:`SEED` with ``rules``, played by ``greedy`` in every
    seat, as the batches (Observation, legal actions, keys) the engine asked."""
    from dominosim.engine.batch import BatchEngine

    rec = _Recorder()
    BatchEngine(rules, SEED, [rec] * rules.players, range(HANDS), unit="hand").run()
    return rec.batches


def ms_per_decision(make: Callable[[], Strategy], batches: Sequence[tuple], clock=None) -> float:
    """CPU milliseconds per decision of a strategy made by ``make`` on ``batches``, after one
    untimed batch (its first use loads what it needs)."""
    clock = clock or time.process_time
    s = make()
    s.choose(*batches[0])
    n, t0 = 0, clock()
    for obs, legal, keys in batches:
        s.choose(obs, legal, keys)
        n += len(keys)
    return (clock() - t0) * 1000 / max(n, 1)


# ---------------------------------------------------------------------------------------------
# the calibration of a compare


@dataclass(frozen=True)
class Calibration:
    """What ``--equal-time`` made of a compare's strategies: the entries the run plays (in
    order), the manifest's record (``analysis.equal_time``) and the lines it prints."""

    labels: list[str]
    record: dict
    notes: tuple[str, ...]


def calibrate(rules, labels: Sequence[str], ms: float, paths: Sequence[str] = (), measure=None):
    """:class:`Calibration` of the compare entries ``labels`` at ``ms`` per decision on
    ``rules``: each built-in search with a knob gets its knob chosen; every other strategy
    that is no search is left as it is; a search without a knob is a ConfigError.
    ``measure(make, batches)`` is :func:`ms_per_decision` unless given (the tests' clock)."""
    measure = measure or ms_per_decision
    batches: list[tuple] | None = None
    out, rows, notes = [], [], []
    specs = [parse_strategy(x) for x in labels]
    knobs_of = [_knob_of(spec, paths) for spec in specs]  # (every refusal before any timing)
    for label, spec, knob in zip(labels, specs, knobs_of, strict=True):
        if knob is None:
            out.append(label)
            rows.append({"strategy": label, "spec": label, "calibrated": False})
            notes.append(f"equal time: {label} is not a search: it plays as it is")
            continue
        batches = batches if batches is not None else calibration_set(rules)
        row = _calibrated(spec, knob, ms, _measurer(measure, spec, knob, batches))
        out.append(row["spec"])
        rows.append({"strategy": label, **row})
        notes.append(_note(label, row, knob, ms))
    _check_distinct(labels, out)
    n = sum(len(b[2]) for b in batches) if batches is not None else 0
    record = {"ms": ms, "clock": CLOCK, "hands": HANDS, "decisions": n, "strategies": rows}
    return Calibration(out, record, tuple(notes))


def _calibrated(spec: StrategySpec, knob: Knob, ms: float, measure) -> dict:
    start = spec.kwargs.get(knob.param, get(spec.name).settings[knob.param])
    value, took, seen = choose_value(measure, ms, int(start), knob)
    return {
        "spec": _with(spec, knob, value).label,
        "calibrated": True,
        "knob": knob.param,
        "value": value,
        "ms_per_decision": round(took, 4),
        "tried": [[v, round(t, 4)] for v, t in seen],
    }


def _measurer(measure, spec: StrategySpec, knob: Knob, batches) -> Callable[[int], float]:
    """The ms per decision of ``spec`` with its knob at a value, on ``batches``."""
    return lambda value: measure(_maker(spec, knob, value), batches)


def _with(spec: StrategySpec, knob: Knob, value: int) -> StrategySpec:
    return StrategySpec(spec.name, tuple(sorted({**spec.kwargs, knob.param: value}.items())))


def _maker(spec: StrategySpec, knob: Knob, value: int) -> Callable[[], Strategy]:
    return lambda: get(spec.name, **_with(spec, knob, value).kwargs)


def _note(label: str, row: dict, knob: Knob, ms: float) -> str:
    bound = ""
    if row["value"] in (knob.lo, knob.hi) and abs(row["ms_per_decision"] / ms - 1) > TOLERANCE:
        most = row["value"] == knob.hi
        bound = f" (its {'most' if most else 'least'} {knob.param}: {ms:g} ms is out of reach)"
    return (
        f"equal time: {label} -> {row['spec']}, {row['ms_per_decision']:.3g} ms per decision "
        f"(CPU; {knob.param} tried {', '.join(str(v) for v, _ in row['tried'])}){bound}"
    )


def _check_distinct(labels: Sequence[str], out: Sequence[str]) -> None:
    for i, x in enumerate(out):
        if x in out[:i]:
            raise ConfigError(
                f"--equal-time makes '{labels[out.index(x)]}' and '{labels[i]}' the same "
                f"strategy ({x}); drop one of them"
            )


def _knob_of(spec: StrategySpec, paths: Sequence[str]) -> Knob | None:
    """The knob of a built-in search (a search without one: ConfigError); None for a
    strategy that is no search (a user's, by what its file declares, read without running
    it)."""
    reg = discover()
    if spec.name in reg:
        get(spec.name, **spec.kwargs)  # (its parameters checked: the run's error, now)
        kind = classification(reg[spec.name])
    else:
        kind = _user_classifier(spec.name, paths)
    if kind != "search":
        return None
    knob = knobs().get(spec.name)
    if knob is None:
        raise ConfigError(
            f"--equal-time sets a search's budget knob, and '{spec.name}' is a search with "
            f"none it knows (only {', '.join(f'{n}:{k.param}' for n, k in knobs().items())}); "
            "give its budget in its entry and drop --equal-time"
        )
    return knob


def _user_classifier(name: str, paths: Sequence[str]) -> str | None:
    """The classifier a user's strategy file declares for ``name`` (docs/strategies.md,
    "Classifiers"); an unknown name is the run's StrategyError, a file whose classifier
    cannot be read without running it a ConfigError (a search could hide there)."""
    from dominosim.base import bounded
    from dominosim.strategy import FILE_MAX
    from dominosim.strategy.source_classes import classifier_in_source

    found, mentioned = set(), False
    for f in _py_files(paths):
        try:
            data = bounded.read(str(f), FILE_MAX)
        except (OSError, ValueError, bounded.NotRegular, bounded.TooLarge):
            continue
        if name.encode() in data:
            mentioned = True
            found.add(classifier_in_source(data, name))
    if not mentioned:
        get(name, paths)  # (raises: unknown strategy, with the names it knows)
    kinds = found - {None}
    if len(kinds) != 1:
        raise ConfigError(
            f"--equal-time cannot tell whether '{name}' is a search: its file does not declare "
            "its classifier plainly (docs/strategies.md, Classifiers); write e.g. "
            'classifier = "heuristic" in its class, or drop --equal-time'
        )
    return kinds.pop()


def _py_files(paths: Sequence[str]) -> list[Path]:
    """The strategy files of ``--strategy-path`` (a folder's ``*.py`` but ``_*``)."""
    out = []
    for p in paths:
        p = Path(expand_home(str(p), "--strategy-path"))
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out += [x for x in sorted(p.glob("*.py")) if not x.name.startswith("_")]
    return out
