"""The plan of a run: work items (plain, picklable), the chunking, the plan in the manifest."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from dominosim.analysis import analyses
from dominosim.analysis.aggregates import seating
from dominosim.analysis.manifest import Group, Manifest, Rotation, as_json
from dominosim.base.errors import ConfigError, OutputError, RulesError
from dominosim.game import seeding
from dominosim.game.rules import UNITS, Rules
from dominosim.runner.files import recorded_files

if TYPE_CHECKING:  # (the config builds what the runner takes; the runner never imports it)
    from dominosim.config import Experiment

MANIFEST_FORMAT = 2  # 2: strategy files listed by built-in name or path; chunks carry "run"
#: The manifest lists the chunks of a plan up to this many (a larger plan is made on the fly).
MAX_LISTED_CHUNKS = 10_000
#: The largest number of match ids per group (the engine's records hold match ids as int64).
MAX_IDS = 2**62
# ---------------------------------------------------------------------------------------------
# plan


def strategy_paths_of(paths: Sequence[str]) -> tuple[str, ...]:
    """An experiment's strategy paths as a plan records them: absolute, links resolved."""
    return tuple(str(Path(p).expanduser().resolve()) for p in paths)


def rotations_of(seats: Sequence[str], rotate: bool) -> tuple[int, ...]:
    """The rotation offsets to play: the distinct cyclic seatings, or ``(0,)``."""
    if not rotate or len(set(seats)) == 1:
        return (0,)
    seen: dict[tuple[str, ...], int] = {}
    for r in range(len(seats)):
        seen.setdefault(seating(seats, r), r)
    return tuple(seen.values())


@dataclass(frozen=True, kw_only=True)
class WorkItem:
    """One chunk: option group ``group``, match ids ``[start, stop)``, every rotation."""

    group: int
    chunk: int
    start: int
    stop: int
    rules: Rules
    seed: int
    unit: str
    seats: tuple[str, ...]
    rotations: tuple[int, ...]
    strategy_paths: tuple[str, ...] = ()
    records: bool = True
    #: ``(kind, name or path, sha256)`` of every strategy file of the run (``kind``
    #: "builtin" or "path", :func:`strategy_files`): a worker loads exactly these, each
    #: checked against its hash before it is run, and refuses a changed file
    strategy_files: tuple[tuple[str, str, str], ...] = ()
    #: seconds a strategy may take for one decision batch (0: no limit; a session's setting,
    #: not the plan's: :meth:`Plan.item` is given it)
    strategy_timeout: float = 0.0
    #: users' strategies in fresh processes of their own (``--isolate``, a session's setting)
    isolate: bool = False
    #: a per-chunk measurement the run's analysis asks for (an object with
    #: ``rotation(agg, item, seat_labels, strategies)``, called after each seating is played,
    #: and ``chunk(agg, item)``, after the chunk; :func:`measurement_of`), or None
    measure: object | None = None

    @property
    def games(self) -> int:
        return (self.stop - self.start) * len(self.rotations)


class PlanItems(Sequence):
    """The work items of a plan, made on the fly (a plan of 10^15 games holds no list)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.per_group = -(-plan.ids_played // plan.ids_per_chunk)

    def __len__(self) -> int:
        return len(self.plan.rules) * self.per_group

    def __getitem__(self, i: int) -> WorkItem:
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.plan.item(*divmod(i, self.per_group))

    def __iter__(self) -> Iterator[WorkItem]:
        for g in range(len(self.plan.rules)):
            for c in range(self.per_group):
                yield self.plan.item(g, c)

    def has(self, group: int, chunk: int) -> bool:
        return 0 <= group < len(self.plan.rules) and 0 <= chunk < self.per_group


@dataclass(frozen=True, kw_only=True)
class Plan:
    """Everything needed to play a run: made once, from the experiment
    (:meth:`from_experiment`) or from the manifest (:meth:`from_manifest`), and never changed;
    stored in the manifest. How a session plays it (workers, executor, the strategies'
    timeout) is the session's (:class:`~.progress.Session`), beside it."""

    name: str
    seed: int
    unit: str
    players: int
    seats: tuple[str, ...]
    rotations: tuple[int, ...]
    rules: tuple[Rules, ...]
    games_requested: int
    ids_per_rotation: int
    ids_per_chunk: int
    records: bool
    strategy_paths: tuple[str, ...] = ()
    #: Per-group seat lists (a round robin), or empty: every group plays ``seats``.
    legs: tuple[tuple[str, ...], ...] = ()
    rotate: bool = True
    strategy_files: tuple[tuple[str, str, str], ...] = ()
    #: the run's per-chunk measurement (:func:`measurement_of` its analysis), or None
    measurement: object | None = None
    #: ``--until-decided`` (:class:`Sequential`), or None: every planned game is played
    sequential: Sequential | None = None
    #: the files of ``strategy_files`` a session loads (None: all of them): those the user
    #: named, of an older manifest that lists files the run does not seat
    #: (:func:`.files.permitted_files`); not part of the plan's fingerprint
    load_files: tuple[tuple[str, str, str], ...] | None = None

    @property
    def items(self) -> PlanItems:
        """The work items (made on the fly)."""
        return PlanItems(self)

    @property
    def ids_played(self) -> int:
        """The match ids per rotation the run plays: all of them, or (``--until-decided``,
        decided early) those up to the look that decided it."""
        s = self.sequential
        return s.stopped if s is not None and s.stopped is not None else self.ids_per_rotation

    @classmethod
    def from_experiment(
        cls,
        exp: Experiment,
        seed: int,
        *,
        legs: Sequence[Sequence[str]] | None = None,
        measurement: object | None = None,
        strategy_files: tuple[tuple[str, str, str], ...] = (),
        workers: int = 1,
        until_decided: bool = False,
        metric: str | None = None,
    ) -> Plan:
        """The plan of ``exp`` (its rules as it made them); with ``legs``, one group per
        (rules, leg) pair, rules slowest, each leg a seat list playing its own rotations (every
        leg must have as many). Its chunks are cut for ``workers`` (:func:`chunk_for_workers`)
        and, ``until_decided``, to the looks on ``metric`` (:class:`Sequential`)."""
        rules, seats, group_legs = tuple(exp.rules), tuple(s.label for s in exp.seats), ()
        if legs:
            group_legs = tuple(tuple(x) for _ in rules for x in legs)
            rules, seats = tuple(r for r in rules for _ in legs), tuple(legs[0])
            if len({len(rotations_of(x, exp.rotate)) for x in legs}) != 1:
                raise ConfigError("every leg of a round robin must play as many seat rotations")
        rots = rotations_of(seats, exp.rotate)
        ids = -(-exp.games // len(rots))  # (exact for any size; math.ceil goes through a float)
        if ids > MAX_IDS:
            where = "--games" if exp.source == "command line" else f"'games' in {exp.source}"
            raise ConfigError(f"{where} must be at most {MAX_IDS * len(rots)}, not {exp.games}")
        chunk = chunk_for_workers(max(1, exp.chunk_size // len(rots)), ids, len(rules), workers)
        sequential = None
        if until_decided:
            sequential = Sequential(looks=tuple(planned_looks(ids)), metric=metric)
            chunk = chunk_for_looks(chunk, sequential.looks[0])
        return cls(
            name=exp.name,
            seed=int(seed),
            unit=exp.unit,
            players=exp.players,
            seats=seats,
            rotations=rots,
            rules=rules,
            games_requested=exp.games,
            ids_per_rotation=ids,
            ids_per_chunk=chunk,
            records=exp.records,
            strategy_paths=strategy_paths_of(exp.strategy_path),
            legs=group_legs,
            rotate=exp.rotate,
            strategy_files=strategy_files,
            measurement=measurement,
            sequential=sequential,
        )

    def stopped_at(self, look: int) -> Plan:
        """This plan decided at ``look`` (``--until-decided``): it plays the chunks up to
        that look."""
        return replace(self, sequential=replace(self.sequential, stopped=look))

    def seats_of(self, group: int) -> tuple[str, ...]:
        """The seat list of group ``group`` (its leg, or the plan's seats)."""
        return self.legs[group] if self.legs else self.seats

    def rotations_of_group(self, group: int) -> tuple[int, ...]:
        if not self.legs:
            return self.rotations
        return rotations_of(self.legs[group], self.rotate)

    def item(
        self, g: int, c: int, strategy_timeout: float = 0.0, isolate: bool = False
    ) -> WorkItem:
        """The work item of chunk ``c`` of group ``g`` (``strategy_timeout``: the session's,
        seconds per decision batch, 0: no limit; ``isolate``: the session's ``--isolate``)."""
        start = c * self.ids_per_chunk
        stop = min(self.ids_played, start + self.ids_per_chunk)
        return WorkItem(
            group=g,
            chunk=c,
            start=start,
            stop=stop,
            rules=self.rules[g],
            seed=self.seed,
            unit=self.unit,
            seats=self.seats_of(g),
            rotations=self.rotations_of_group(g),
            strategy_paths=self.strategy_paths,
            records=self.records,
            strategy_files=self.strategy_files if self.load_files is None else self.load_files,
            strategy_timeout=strategy_timeout,
            isolate=isolate,
            measure=(
                self.measurement.for_group(self.legs, self.rules, g) if self.measurement else None
            ),
        )

    @property
    def total_games(self) -> int:
        return sum(
            self.ids_played * len(self.rotations_of_group(g)) for g in range(len(self.rules))
        )

    def labels(self) -> list[str]:
        """Every distinct seat label of the plan, in order of first appearance."""
        return list(dict.fromkeys(x for g in range(len(self.rules)) for x in self.seats_of(g)))

    @property
    def games_per_group(self) -> int:
        return self.ids_played * len(self.rotations)

    def to_manifest(self) -> dict:
        """The manifest's fields of this plan, in the order a run writes them, as the
        manifest's types (:meth:`Manifest.build` takes them)."""
        extra: dict = {}
        if self.legs:
            extra = {"legs": [list(x) for x in dict.fromkeys(self.legs)], "rotate": self.rotate}
        items = self.items
        return {
            **extra,
            "seed": self.seed,
            "unit": self.unit,
            "players": self.players,
            "seats": self.seats,
            "rotations": _rotations(self.seats, self.rotations),
            "games_requested": self.games_requested,
            "games_per_group": self.games_per_group,
            "ids_per_rotation": self.ids_per_rotation,
            "ids_per_chunk": self.ids_per_chunk,
            "records": self.records,
            "strategy_paths": self.strategy_paths,
            "groups": tuple(self._group(g) for g in range(len(self.rules))),
            **({"until_decided": self.sequential.to_manifest()} if self.sequential else {}),
            "chunk_count": len(items),
            **(
                {"chunks": [_chunk_entry(it) for it in items]}
                if len(items) <= MAX_LISTED_CHUNKS
                else {}
            ),
        }

    def _group(self, g: int) -> Group:
        """Group ``g`` as the manifest holds it (a round robin's leg with its own seats and
        rotations)."""
        r = self.rules[g]
        leg = {}
        if self.legs:
            seats = self.seats_of(g)
            leg = {"seats": seats, "rotations": _rotations(seats, self.rotations_of_group(g))}
        return Group(
            index=g,
            label=self._group_label(g),
            variant=r.variant,
            options={k: v for k, v in r.options},
            rules=r.to_dict(),
            **leg,
        )

    def fingerprint(self) -> str:
        """What a chunk of this run must say it belongs to: the sha256 of everything that
        makes its games (engine version, seed, unit, rules, seatings, chunk plan, records, the
        strategy files' contents, the measurements), not of where its files lie, so a
        moved run folder keeps it and a chunk of any other run has another."""
        from dominosim.base.version import ENGINE_VERSION
        from dominosim.storage.store import checksum

        return checksum(
            {
                "engine": ENGINE_VERSION,
                "seed": self.seed,
                "unit": self.unit,
                "players": self.players,
                "rules": [r.to_dict() for r in self.rules],
                "seats": [list(self.seats_of(g)) for g in range(len(self.rules))],
                "rotations": [list(self.rotations_of_group(g)) for g in range(len(self.rules))],
                "ids": [self.ids_per_rotation, self.ids_per_chunk],
                "records": self.records,
                "files": sorted(
                    [name if kind == "builtin" else "", sha]
                    for kind, name, sha in self.strategy_files
                ),
                # (the key keeps its first name, so the fingerprints of earlier runs hold)
                "skill": self.measurement.fingerprint() if self.measurement else [0, 0],
            }
        )

    def _group_label(self, g: int) -> str:
        label = self.rules[g].label
        if self.legs:
            label += ": " + " vs ".join(dict.fromkeys(self.legs[g]))
        return label

    @classmethod
    def from_manifest(cls, m: Manifest | dict) -> Plan:
        """The plan a manifest records, every field checked (a manifest is untrusted input:
        an OutputError names what is damaged): the fields the plan is made of
        (:meth:`Manifest.plan_fields`), its strategy files, measurement and
        ``--until-decided``, then what the plan derives (:func:`_check_plan_types`)."""
        if not isinstance(m, Manifest | dict):
            raise OutputError(
                f"the manifest is damaged (a JSON {type(m).__name__}, not an object); "
                "the run folder cannot be resumed or reported, start the run again"
            )
        m = Manifest.decode(m, strict=False)
        try:
            fields = m.plan_fields()
            ids, chunk, seq = fields["ids_per_rotation"], fields["ids_per_chunk"], m.until_decided
            plan = cls(
                **fields,
                strategy_files=recorded_files(m.inputs),
                measurement=measurement_of(m.analysis or {}),
                sequential=None if seq is None else Sequential.from_manifest(seq, ids, chunk),
            )
            _check_plan_types(m, plan)
        except (KeyError, TypeError, ValueError, AttributeError, RulesError) as e:
            raise OutputError(
                f"the manifest is damaged or from another version ({type(e).__name__}: {e}); "
                "resume with the version that started the run, or start it again"
            ) from None
        return plan


def _rotations(seats: tuple[str, ...], offsets: Sequence[int]) -> tuple[Rotation, ...]:
    """The manifest's rotations of ``seats`` at ``offsets`` (``{offset, seats}``)."""
    return tuple(Rotation.build(r, seating(seats, r)) for r in offsets)


def _chunk_entry(it: WorkItem) -> dict:
    """A chunk of the manifest's ``chunks`` list."""
    return {
        "group": it.group,
        "chunk": it.chunk,
        "start": it.start,
        "stop": it.stop,
        "games": it.games,
    }


def _manifest_ints(m: Manifest) -> tuple[tuple[str, object], ...]:
    """The manifest's fields that are integers (never a bool), named, in the order checked."""
    # fmt: off
    return (("seed", m.seed), ("players", m.players), ("ids_per_rotation", m.ids_per_rotation),
            ("ids_per_chunk", m.ids_per_chunk), ("games_requested", m.games_requested))
    # fmt: on


def _check_plan_types(m: Manifest, plan: Plan) -> None:
    """The manifest's chunk plan and counts have the types and values the plan gives: a
    TypeError or ValueError naming the first field that does not (checked in this order)."""
    for key, value in _manifest_ints(m):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"'{key}' is {value!r}, not an integer")
    _check_plan_ranges(m, plan)
    _check_derived(m, plan)
    _check_groups(m, plan)
    if m.has("chunks") or not m.has("chunk_count"):
        if not m.has("chunks"):
            raise KeyError("chunks")
        _check_chunk_list(m.chunks, plan)
    if not isinstance(m.status, str):
        raise TypeError(f"'status' is {m.status!r}, not a string")
    if m.has("fingerprint") and m.fingerprint != plan.fingerprint():
        raise ValueError(
            "'fingerprint' is not the one of the manifest's plan (its seed, rules, seats, "
            "chunk plan, records or strategy files were changed)"
        )


def _check_plan_ranges(m: Manifest, plan: Plan) -> None:
    """The chunk plan's numbers, ``records``, the seat lists, ``unit``, ``rotations`` and
    ``batch_size`` are in range."""
    if plan.ids_per_chunk < 1 or plan.ids_per_rotation < 1 or not seeding.in_range(plan.seed):
        raise ValueError("the chunk plan is out of range")
    if not isinstance(m.records, bool):
        raise TypeError(f"'records' is {m.records!r}, not true or false")
    _check_seat_lists(plan)
    if plan.unit not in UNITS or not all(int_in(r, 0, plan.players) for r in plan.rotations):
        raise ValueError("'unit' or 'rotations' is out of range")
    # (a manifest written by an earlier dominosim records a batch size, which no run set: it
    # is checked, then left alone, so those folders still load, resume and verify)
    batch = int(m.batch_size if m.has("batch_size") else 1)
    if not int_in(batch, 1, 10**7) or plan.ids_per_rotation > MAX_IDS:
        raise ValueError("'batch_size' or 'ids_per_rotation' is out of range")


def _check_seat_lists(plan: Plan) -> None:
    """The plan's seat lists (its seats, its legs') are strategy labels, one per player."""
    for seats in (plan.seats, *plan.legs):
        if not seats or not all(isinstance(x, str) for x in seats):
            raise TypeError(f"a seat list is {list(seats)!r}, not strategy labels")
    if len(plan.seats) != plan.players or any(len(x) != plan.players for x in plan.legs):
        raise ValueError("a seat list does not seat every player")


def _check_chunk_list(chunks: object, plan: Plan) -> None:
    """The manifest's ``chunks`` list is the plan's chunks, in its order."""
    if not isinstance(chunks, list):
        raise TypeError(f"'chunks' is {chunks!r}, not a list")
    planned = plan.items
    if len(chunks) != len(planned):
        raise ValueError(f"'chunks' lists {len(chunks)} chunks, the plan has {len(planned)}")
    for d, it in zip(chunks, planned, strict=True):
        if not isinstance(d, dict) or [
            d.get(k) for k in ("group", "chunk", "start", "stop", "games")
        ] != [it.group, it.chunk, it.start, it.stop, it.games]:
            raise ValueError(f"'chunks' entry {d!r} is not chunk {it.group}-{it.chunk}")


def _check_derived(m: Manifest, plan: Plan) -> None:
    """Every field of the manifest that the plan derives (rotations and their seats, legs,
    games per group, match ids per rotation, the chunk list) is what the plan gives, and the
    plan is the one the run's fingerprint names: a ValueError naming the first field that
    disagrees (a manifest is untrusted input; docs/results.md)."""
    rotate = plan.rotate
    want = rotations_of(plan.seats, rotate)
    _check_rotations("rotations", as_json(m.rotations), plan.seats, want, rotate)
    if plan.legs:
        legs = m.legs
        if not isinstance(legs, list) or [tuple(x) for x in legs if isinstance(x, list)] != list(
            dict.fromkeys(plan.legs)
        ):
            raise ValueError(f"'legs' is {_short(legs)}, not the seat lists of its groups")
        for g, gd in enumerate(m.groups):
            _check_rotations(
                f"groups[{g}].rotations",
                as_json(gd.rotations),
                plan.legs[g],
                rotations_of(plan.legs[g], rotate),
                rotate,
            )
        if len({len(plan.rotations_of_group(g)) for g in range(len(plan.rules))}) != 1:
            raise ValueError("'legs' do not all play as many seat rotations")
    seatings = len(plan.rotations)
    if plan.ids_per_rotation != -(-plan.games_requested // seatings):
        raise ValueError(
            f"'ids_per_rotation' is {plan.ids_per_rotation}, not the "
            f"{-(-plan.games_requested // seatings)} that 'games_requested' "
            f"{plan.games_requested} over {seatings} rotations gives"
        )
    if m.has("games_per_group") and m.games_per_group != plan.games_per_group:
        raise ValueError(
            f"'games_per_group' is {_short(m.games_per_group)}, not {plan.games_per_group}"
        )
    if m.has("chunk_count") and m.chunk_count != len(plan.items):
        raise ValueError(
            f"'chunk_count' is {_short(m.chunk_count)}, not the plan's {len(plan.items)}"
        )


def _check_groups(m: Manifest, plan: Plan) -> None:
    """Each group's label is a string, and a group of a run that is not a round robin holds
    the run's seats and rotations where it holds its own (a report reads them as the group's:
    docs/results.md): a TypeError or ValueError naming the first group field that does not."""
    for g, gd in enumerate(m.groups):
        if not isinstance(gd.label, str):
            raise TypeError(f"'groups[{g}].label' is {_short(gd.label)}, not a string")
        if plan.legs:
            continue
        if gd.has("seats") and as_json(gd.seats) != list(plan.seats):
            raise ValueError(
                f"'groups[{g}].seats' is {_short(as_json(gd.seats))}, not the run's seats "
                f"{_short(list(plan.seats))}"
            )
        if gd.has("rotations"):
            want = rotations_of(plan.seats, plan.rotate)
            got = as_json(gd.rotations)
            _check_rotations(f"groups[{g}].rotations", got, plan.seats, want, plan.rotate)


def _check_rotations(
    field: str, got: object, seats: tuple[str, ...], want: tuple, rotate: bool
) -> None:
    """A manifest's list of rotations (``{offset, seats}``) is the one ``seats`` give."""
    expect = [{"offset": r, "seats": list(seating(seats, r))} for r in want]
    if got != expect:
        raise ValueError(
            f"'{field}' is {_short(got)}, not {_short(expect)} (the seat rotations its seats "
            f"give with 'rotate' {'on' if rotate else 'off'})"
        )


def _short(x: object) -> str:
    text = " ".join(repr(x).split())
    return text if len(text) <= 120 else text[:117] + "..."


#: ``--until-decided``: the error rate a pair's verdict keeps over all looks of a run
SEQUENTIAL_ALPHA = 0.05
#: the first look is at least this many match ids per rotation
FIRST_LOOK_IDS = 64
#: at most this many looks (the first at the cap / 2**(MAX_LOOKS - 1) or later)
MAX_LOOKS = 7


def planned_looks(cap: int) -> list[int]:
    """The match ids per rotation at which ``--until-decided`` looks: powers of two from
    max(:data:`FIRST_LOOK_IDS`, cap / 2**(MAX_LOOKS - 1)) rounded up, doubling, then the
    cap; fixed by the cap alone (never by workers or chunking), so the same seed stops at the
    same look."""
    first = FIRST_LOOK_IDS
    while first * 2 ** (MAX_LOOKS - 1) < cap:
        first *= 2
    looks = []
    x = first
    while x < cap:
        looks.append(x)
        x *= 2
    return [*looks, cap]


@dataclass(frozen=True)
class Sequential:
    """``--until-decided``: play in rounds up to each planned look (:func:`planned_looks`)
    and stop at the first look where every pair's sequential interval on the ranking metric
    excludes zero (``metric`` None: the metric that decides the game, report.deciding_metric),
    or at the cap. ``stopped``: the look that ended the run (None while it plays; a plan
    that stopped is another plan, :meth:`Plan.stopped_at`)."""

    looks: tuple[int, ...]
    alpha: float = SEQUENTIAL_ALPHA
    metric: str | None = None
    stopped: int | None = None

    def to_manifest(self) -> dict:
        # fmt: off
        return {"looks": list(self.looks), "alpha": self.alpha, "metric": self.metric,
                "stopped": self.stopped}
        # fmt: on

    @classmethod
    def from_manifest(cls, d: object, ids_per_rotation: int, ids_per_chunk: int) -> Sequential:
        """The manifest's ``until_decided`` for a plan of ``ids_per_rotation`` match ids in
        chunks of ``ids_per_chunk``, checked (ValueError / TypeError: damaged)."""
        if not isinstance(d, dict):
            raise TypeError(f"'until_decided' is {d!r}, not an object")
        looks, alpha, metric, stopped = (d.get(k) for k in ("looks", "alpha", "metric", "stopped"))
        if looks != planned_looks(ids_per_rotation):
            raise ValueError(f"'until_decided' looks {looks!r} are not the plan's")
        if isinstance(alpha, bool) or not isinstance(alpha, float) or not 0 < alpha < 1:
            raise ValueError(f"'until_decided' alpha {alpha!r} is not in (0, 1)")
        if metric not in (None, "hands", "points", "matches"):
            raise ValueError(f"'until_decided' metric {metric!r} is unknown")
        if stopped is not None and stopped not in looks:
            raise ValueError(f"'until_decided' stopped {stopped!r} is not a look")
        if any(x % ids_per_chunk for x in looks[:-1]):
            raise ValueError("'until_decided' looks are not whole chunks")
        return cls(looks=tuple(looks), alpha=alpha, metric=metric, stopped=stopped)


def chunk_for_looks(ids_per_chunk: int, first_look: int) -> int:
    """``--until-decided``: the chunk size no longer than the first look and a power of two,
    so every look but the cap ends on a chunk's end."""
    size = 1
    while size * 2 <= min(ids_per_chunk, first_look):
        size *= 2
    return size


def int_in(x: object, lo: int, hi: int) -> bool:
    """``x`` is an integer (not a bool) with ``lo <= x < hi``."""
    return isinstance(x, int) and not isinstance(x, bool) and lo <= x < hi


#: A plan with fewer chunks than workers is cut finer, but not below this many match ids.
MIN_SPLIT_IDS = 500


def chunk_for_workers(ids_per_chunk: int, ids_per_rotation: int, groups: int, workers: int) -> int:
    """The chunk size of a plan of ``groups`` groups of ``ids_per_rotation`` match ids: a
    plan with fewer chunks than ``workers`` is cut into smaller chunks, so that every worker
    has one (a 2,000-match run with the default chunk size is one chunk otherwise); chunks keep
    at least :data:`MIN_SPLIT_IDS` match ids, so small runs stay in one process. Results do
    not depend on the chunk size."""
    chunks = groups * -(-ids_per_rotation // ids_per_chunk)
    if workers <= 1 or chunks >= workers:
        return ids_per_chunk
    per_group = max(1, math.ceil(workers / max(1, groups)))
    return min(ids_per_chunk, max(MIN_SPLIT_IDS, math.ceil(ids_per_rotation / per_group)))


def split_for_workers(plan: Plan, workers: int) -> Plan:
    """``plan`` with its chunks cut for ``workers`` (:func:`chunk_for_workers`)."""
    size = chunk_for_workers(plan.ids_per_chunk, plan.ids_per_rotation, len(plan.rules), workers)
    return replace(plan, ids_per_chunk=size)


def check_plan_match_end(plan: Plan) -> None:
    from dominosim.game.variants import check_match_end

    for rules in plan.rules:
        check_match_end(rules, plan.unit)


def games_note(plan: Plan, analysis: dict | None = None) -> str | None:
    """The line saying that ``games`` was rounded up to whole seat rotations (or round-robin
    tables), with the number that will be played; None when nothing was rounded."""
    unit = f"{plan.unit}es" if plan.unit == "match" else f"{plan.unit}s"
    ids, seatings = plan.ids_per_rotation, len(plan.rotations)
    if analyses.of_analysis(analysis).games_total:
        asked = int(analysis.get("games_requested", plan.games_requested))
        tables = len(plan.rules)
        played = plan.games_per_group * tables
        if played == asked:
            return None
        return (
            f"games: {asked} rounded up to {played} {unit} ({tables} tables x {ids} deals "
            f"x {seatings} seatings)"
        )
    if plan.games_per_group == plan.games_requested:
        return None
    return (
        f"games: {plan.games_requested} rounded up to {plan.games_per_group} {unit} per "
        f"option group ({ids} deals x {seatings} seat rotations)"
    )


def measurement_of(analysis: dict) -> object | None:
    """The per-chunk measurement a run's analysis asks for, or None: its registry row's hook
    (:mod:`dominosim.analysis.analyses`; skill's is ``tournament.skill_measurement``); the runner only
    calls its hooks. (The hooks import their module when called: a plain run does not import
    the tournaments.)"""
    row = analyses.of_analysis(analysis)
    return row.measurement(analysis) if row.measurement is not None else None
