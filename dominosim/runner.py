"""Running an experiment: the plan of work items, the workers, the executors, resume.

Flow (DESIGN §1, §8)::

    Experiment --plan--> WorkItems (plain, picklable) --executor--> play_item() in workers
      --> parent: write chunk files, merge integer aggregates, progress bar --> report

* A work item is ``(group, chunk, [start, stop))``: option group ``group`` (one ``Rules``),
  match ids ``start..stop-1``, and it plays **every seat rotation** of those ids, so paired
  per-deal comparisons are computed inside the item.
* Rotation ``r`` seats the strategy of seat ``(s - r) mod P`` of the seat list at seat ``s``
  (seat 0's strategy moves to seat ``r``); only distinct seatings are played, and only when
  ``rotate`` is on and the seats differ.
* Every group uses the same match ids, hence the same deals (DESIGN §7): option groups are
  paired too.
* Legs (``compare``): a plan may give each group its own seat list (``Plan.legs``), so one run
  holds a round robin: group ``g`` plays rules ``rules[g]`` with seats ``legs[g]`` on the same
  match ids as every other group (dominosim/tournament.py).
* Executors: in-process (``workers == 1``), a local ``multiprocess`` pool, or Dask
  (``dask.distributed``). Workers load strategies by name and by the file paths the item
  carries, so user strategy files reach remote workers that can see the same paths.
"""

from __future__ import annotations

import contextlib
import math
import os
import platform
import re
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import report, sandbox, signals, strategy
from .aggregates import (
    Merger,
    add,
    aggregate_rotation,
    check_chunk_counts,
    per_match_wins,
    seating,
)
from .config import Experiment, parse_strategy, resolve_rules
from .errors import (
    ConfigError,
    DominosimError,
    Interrupted,
    OutputError,
    RulesError,
    StrategyError,
    WorkerError,
)
from .rules import Rules
from .store import AGGREGATES, RunDir
from .version import __version__

if TYPE_CHECKING:
    import pyarrow as pa

#: Environment variable read by the parent: raise KeyboardInterrupt after this many chunks
#: have been written in this session (a deterministic hook for the resume tests).
STOP_ENV = "DOMINOSIM_STOP_AFTER_CHUNKS"
#: Environment variable read by the parent: after this many chunks have been written, wait
#: (up to a minute) for a signal, so a test's Ctrl-C or kill -9 lands in the middle of a run
#: however fast the machine plays.
HOLD_ENV = "DOMINOSIM_HOLD_AFTER_CHUNKS"
EXECUTORS = ("local", "dask", "dask-local")
MANIFEST_FORMAT = 2  # 2: strategy files listed by built-in name or path; chunks carry "run"
BATCH_SIZE = 10_000
#: The manifest lists the chunks of a plan up to this many (a larger plan is made on the fly).
MAX_LISTED_CHUNKS = 10_000
#: The largest number of match ids per group (the engine's records hold match ids as int64).
MAX_IDS = 2**62


# ---------------------------------------------------------------------------------------------
# plan


def rotations_of(seats: Sequence[str], rotate: bool) -> tuple[int, ...]:
    """The rotation offsets to play: the distinct cyclic seatings, or ``(0,)``."""
    if not rotate or len(set(seats)) == 1:
        return (0,)
    seen: dict[tuple[str, ...], int] = {}
    for r in range(len(seats)):
        seen.setdefault(seating(seats, r), r)
    return tuple(seen.values())


@dataclass(frozen=True)
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
    batch_size: int = BATCH_SIZE
    #: ``(kind, name or path, sha256)`` of every strategy file of the run (``kind``
    #: "builtin" or "path", :func:`strategy_files`): a worker loads exactly these, each
    #: checked against its hash before it is run, and refuses a changed file
    strategy_files: tuple[tuple[str, str, str], ...] = ()
    #: seconds a strategy may take for one decision batch (0: no limit)
    strategy_timeout: float = 0.0
    #: skill: the solver's node budget per deal for the perfect-information value of this
    #: chunk's deals (0: none; one group's chunks solve them: the deals are every group's)
    solve_budget: int = 0
    #: skill: the labels whose decisions this chunk rates with the solver (decision accuracy),
    #: on its deals below ``accuracy_deals``, with ``accuracy_budget`` nodes per decision
    accuracy_labels: tuple[str, ...] = ()
    accuracy_deals: int = 0
    accuracy_budget: int = 0

    @property
    def games(self) -> int:
        return (self.stop - self.start) * len(self.rotations)


class PlanItems(Sequence):
    """The work items of a plan, made on the fly (a plan of 10^15 games holds no list)."""

    def __init__(self, plan: Plan):
        self.plan = plan
        self.per_group = -(-plan.ids_per_rotation // plan.ids_per_chunk)

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


@dataclass
class Plan:
    """Everything needed to play a run; stored in the manifest and rebuilt from it."""

    name: str
    seed: int
    unit: str
    players: int
    seats: tuple[str, ...]
    rotations: tuple[int, ...]
    rules: list[Rules]
    games_requested: int
    ids_per_rotation: int
    ids_per_chunk: int
    records: bool
    strategy_paths: tuple[str, ...] = ()
    batch_size: int = BATCH_SIZE
    items: list[WorkItem] = field(default_factory=list)
    #: Per-group seat lists (a round robin), or empty: every group plays ``seats``.
    legs: list[tuple[str, ...]] = field(default_factory=list)
    rotate: bool = True
    strategy_files: tuple[tuple[str, str, str], ...] = ()
    strategy_timeout: float = 0.0
    solve_budget: int = 0  # skill: the solver's budget per deal (manifest's analysis)
    accuracy_deals: int = 0  # skill: deals per strategy whose decisions are rated

    @classmethod
    def from_experiment(cls, exp: Experiment, seed: int,
                        legs: Sequence[Sequence[str]] | None = None) -> Plan:  # fmt: skip
        """The plan of ``exp``; with ``legs``, one group per (rules, leg) pair, rules slowest,
        each leg a seat list playing its own rotations (every leg must have as many)."""
        rules = resolve_rules(exp)
        seats = tuple(s.label for s in exp.seats)
        group_legs: list[tuple[str, ...]] = []
        if legs:
            legs = [tuple(x) for x in legs]
            rules = [r for r in rules for _ in legs]
            group_legs = [x for _ in range(len(rules) // len(legs)) for x in legs]
            seats = legs[0]
            counts = {len(rotations_of(x, exp.rotate)) for x in legs}
            if len(counts) != 1:
                raise ConfigError("every leg of a round robin must play as many seat rotations")
        rots = rotations_of(seats, exp.rotate)
        R = len(rots)
        ids = -(-exp.games // R)  # (exact for any size; math.ceil goes through a float)
        if ids > MAX_IDS:
            raise ConfigError(f"--games must be at most {MAX_IDS * R}, not {exp.games}")
        plan = cls(
            name=exp.name,
            seed=int(seed),
            unit=exp.unit,
            players=exp.players,
            seats=seats,
            rotations=rots,
            rules=rules,
            games_requested=exp.games,
            ids_per_rotation=ids,
            ids_per_chunk=max(1, exp.chunk_size // R),
            records=exp.records,
            strategy_paths=tuple(str(Path(p).expanduser().resolve()) for p in exp.strategy_path),
            legs=group_legs,
            rotate=exp.rotate,
        )
        plan.items = plan.make_items()
        return plan

    def seats_of(self, group: int) -> tuple[str, ...]:
        """The seat list of group ``group`` (its leg, or the plan's seats)."""
        return self.legs[group] if self.legs else self.seats

    def rotations_of_group(self, group: int) -> tuple[int, ...]:
        if not self.legs:
            return self.rotations
        return rotations_of(self.legs[group], self.rotate)

    def make_items(self) -> PlanItems:
        return PlanItems(self)

    def item(self, g: int, c: int) -> WorkItem:
        """The work item of chunk ``c`` of group ``g``."""
        start = c * self.ids_per_chunk
        stop = min(self.ids_per_rotation, start + self.ids_per_chunk)
        return WorkItem(g, c, start, stop, self.rules[g], self.seed, self.unit,
                        self.seats_of(g), self.rotations_of_group(g), self.strategy_paths,
                        self.records, self.batch_size, self.strategy_files,
                        self.strategy_timeout, self.solve_budget if g == 0 else 0,
                        *self._accuracy(g))  # fmt: skip

    def _accuracy(self, g: int) -> tuple:
        """skill: (labels, deals, budget) of the decision accuracy rated in group ``g``: every
        label of a table with random is rated at the first such table it sits at (random at
        the first), on its first ``accuracy_deals`` deals."""
        legs = self.legs
        if not (self.accuracy_deals and self.solve_budget and legs and "random" in legs[g]):
            return (), 0, 0
        done = {x for h in range(g) if self.rules[h] == self.rules[g] and "random" in legs[h]
                for x in legs[h]}  # fmt: skip
        labels = tuple(x for x in dict.fromkeys(legs[g]) if x not in done)
        return labels, self.accuracy_deals if labels else 0, self.solve_budget if labels else 0

    @property
    def total_games(self) -> int:
        return sum(self.ids_per_rotation * len(self.rotations_of_group(g))
                   for g in range(len(self.rules)))  # fmt: skip

    def labels(self) -> list[str]:
        """Every distinct seat label of the plan, in order of first appearance."""
        return list(dict.fromkeys(x for g in range(len(self.rules)) for x in self.seats_of(g)))

    @property
    def games_per_group(self) -> int:
        return self.ids_per_rotation * len(self.rotations)

    def to_manifest(self) -> dict:
        extra: dict = {}
        if self.legs:
            extra = {"legs": [list(x) for x in dict.fromkeys(self.legs)], "rotate": self.rotate}
        return {
            **extra,
            "seed": self.seed,
            "unit": self.unit,
            "players": self.players,
            "seats": list(self.seats),
            "rotations": [
                {"offset": r, "seats": list(seating(self.seats, r))} for r in self.rotations
            ],  # fmt: skip
            "games_requested": self.games_requested,
            "games_per_group": self.games_per_group,
            "ids_per_rotation": self.ids_per_rotation,
            "ids_per_chunk": self.ids_per_chunk,
            "records": self.records,
            "strategy_paths": list(self.strategy_paths),
            "batch_size": self.batch_size,
            "groups": [
                {
                    "index": g,
                    "label": self._group_label(g),
                    "variant": r.variant,
                    "options": {k: v for k, v in r.options},
                    "rules": r.to_dict(),
                    **(
                        {
                            "seats": list(self.seats_of(g)),
                            "rotations": [
                                {"offset": x, "seats": list(seating(self.seats_of(g), x))}
                                for x in self.rotations_of_group(g)
                            ],
                        }
                        if self.legs
                        else {}
                    ),  # fmt: skip
                }
                for g, r in enumerate(self.rules)
            ],  # fmt: skip
            "chunk_count": len(self.items),
            **(
                {
                    "chunks": [
                        {
                            "group": it.group,
                            "chunk": it.chunk,
                            "start": it.start,
                            "stop": it.stop,
                            "games": it.games,
                        }
                        for it in self.items
                    ]
                }
                if len(self.items) <= MAX_LISTED_CHUNKS
                else {}
            ),  # fmt: skip
        }

    def fingerprint(self) -> str:
        """What a chunk of this run must say it belongs to: the sha256 of everything that
        makes its games (engine version, seed, unit, rules, seatings, chunk plan, records, the
        strategy files' contents, skill's measurements), not of where its files lie, so a
        moved run folder keeps it and a chunk of any other run has another."""
        from .store import checksum
        from .version import ENGINE_VERSION

        return checksum({
            "engine": ENGINE_VERSION, "seed": self.seed, "unit": self.unit,
            "players": self.players, "rules": [r.to_dict() for r in self.rules],
            "seats": [list(self.seats_of(g)) for g in range(len(self.rules))],
            "rotations": [list(self.rotations_of_group(g)) for g in range(len(self.rules))],
            "ids": [self.ids_per_rotation, self.ids_per_chunk], "records": self.records,
            "files": sorted([name if kind == "builtin" else "", sha]
                            for kind, name, sha in self.strategy_files),
            "skill": [self.solve_budget, self.accuracy_deals],
        })  # fmt: skip

    def _group_label(self, g: int) -> str:
        label = self.rules[g].label
        if self.legs:
            label += ": " + " vs ".join(dict.fromkeys(self.legs[g]))
        return label

    @classmethod
    def from_manifest(cls, m: dict) -> Plan:
        from .variants import make_rules

        if not isinstance(m, dict):
            raise OutputError(
                f"the manifest is damaged (a JSON {type(m).__name__}, not an object); "
                "the run folder cannot be resumed or reported, start the run again"
            )
        try:
            rules = []
            for gd in m["groups"]:
                r = make_rules(gd["variant"], m["players"], **gd["options"])
                if r.to_dict() != gd["rules"]:
                    raise OutputError(
                        f"the rules of group {gd['label']} in the manifest differ from this "
                        "version of dominosim; resume with the version that started the run"
                    )
                rules.append(r)
            plan = cls(
                name=m["name"],
                seed=int(m["seed"]),
                unit=m["unit"],
                players=int(m["players"]),
                seats=tuple(m["seats"]),
                rotations=tuple(x["offset"] for x in m["rotations"]),
                rules=rules,
                games_requested=int(m["games_requested"]),
                ids_per_rotation=int(m["ids_per_rotation"]),
                ids_per_chunk=int(m["ids_per_chunk"]),
                records=bool(m["records"]),
                strategy_paths=tuple(m.get("strategy_paths", ())),
                batch_size=int(m.get("batch_size", BATCH_SIZE)),
                legs=[tuple(gd["seats"]) for gd in m["groups"]] if "legs" in m else [],
                rotate=bool(m.get("rotate", True)),
                strategy_files=recorded_files(m.get("inputs")),
                solve_budget=int((m.get("analysis") or {}).get("solve_budget", 0)),
                accuracy_deals=int((m.get("analysis") or {}).get("accuracy_deals", 0)),
            )  # fmt: skip
            _check_plan_types(m, plan)
        except (KeyError, TypeError, ValueError, AttributeError, RulesError) as e:
            raise OutputError(
                f"the manifest is damaged or from another version ({type(e).__name__}: {e}); "
                "resume with the version that started the run, or start it again"
            ) from None
        plan.items = plan.make_items()
        return plan


def _check_plan_types(m: dict, plan: Plan) -> None:
    """The manifest's chunk plan and counts have the types and values the plan gives."""
    for key in ("seed", "players", "ids_per_rotation", "ids_per_chunk", "games_requested"):
        if isinstance(m[key], bool) or not isinstance(m[key], int):
            raise TypeError(f"'{key}' is {m[key]!r}, not an integer")
    if plan.ids_per_chunk < 1 or plan.ids_per_rotation < 1 or not 0 <= plan.seed < 2**64:
        raise ValueError("the chunk plan is out of range")
    if not isinstance(m["records"], bool):
        raise TypeError(f"'records' is {m['records']!r}, not true or false")
    for seats in (plan.seats, *plan.legs):
        if not seats or not all(isinstance(x, str) for x in seats):
            raise TypeError(f"a seat list is {list(seats)!r}, not strategy labels")
    if len(plan.seats) != plan.players or any(len(x) != plan.players for x in plan.legs):
        raise ValueError("a seat list does not seat every player")
    if plan.unit not in ("hand", "match") or not all(
            _int_in(r, 0, plan.players) for r in plan.rotations):  # fmt: skip
        raise ValueError("'unit' or 'rotations' is out of range")
    if not _int_in(plan.batch_size, 1, 10**7) or plan.ids_per_rotation > MAX_IDS:
        raise ValueError("'batch_size' or 'ids_per_rotation' is out of range")
    if "chunks" in m or "chunk_count" not in m:
        chunks = m["chunks"]
        if not isinstance(chunks, list):
            raise TypeError(f"'chunks' is {chunks!r}, not a list")
        planned = plan.make_items()
        if len(chunks) != len(planned):
            raise ValueError(f"'chunks' lists {len(chunks)} chunks, the plan has {len(planned)}")
        for d, it in zip(chunks, planned, strict=True):
            if not isinstance(d, dict) or [d.get(k) for k in ("group", "chunk", "start", "stop")] \
                    != [it.group, it.chunk, it.start, it.stop]:  # fmt: skip
                raise ValueError(f"'chunks' entry {d!r} is not chunk {it.group}-{it.chunk}")
    if not isinstance(m.get("status"), str):
        raise TypeError(f"'status' is {m.get('status')!r}, not a string")


def _int_in(x: object, lo: int, hi: int) -> bool:
    """``x`` is an integer (not a bool) with ``lo <= x < hi``."""
    return isinstance(x, int) and not isinstance(x, bool) and lo <= x < hi


#: A plan with fewer chunks than workers is cut finer, but not below this many match ids.
MIN_SPLIT_IDS = 500


def split_for_workers(plan: Plan, workers: int) -> None:
    """Cut a plan with fewer chunks than ``workers`` into smaller chunks, so that every worker
    has one (a 2,000-match run with the default chunk size is one chunk otherwise); chunks keep
    at least :data:`MIN_SPLIT_IDS` match ids, so small runs stay in one process. Results do
    not depend on the chunk size."""
    per_group = max(1, math.ceil(workers / max(1, len(plan.rules))))
    if workers <= 1 or len(plan.items) >= workers:
        return
    want = max(MIN_SPLIT_IDS, math.ceil(plan.ids_per_rotation / per_group))
    if want < plan.ids_per_chunk:
        plan.ids_per_chunk = want
        plan.items = plan.make_items()


def _check_match_end(plan: Plan) -> None:
    from .variants import check_match_end

    for rules in plan.rules:
        check_match_end(rules, plan.unit)


def games_note(plan: Plan, analysis: dict | None = None) -> str | None:
    """The line saying that ``games`` was rounded up to whole seat rotations (or round-robin
    tables), with the number that will be played; None when nothing was rounded."""
    unit = f"{plan.unit}es" if plan.unit == "match" else f"{plan.unit}s"
    ids, R = plan.ids_per_rotation, len(plan.rotations)
    if analysis and analysis.get("kind") == "compare":
        asked = int(analysis.get("games_requested", plan.games_requested))
        tables = len(plan.rules)
        played = plan.games_per_group * tables
        if played == asked:
            return None
        return (f"games: {asked} rounded up to {played} {unit} ({tables} tables x {ids} deals "
                f"x {R} seatings)")  # fmt: skip
    if plan.games_per_group == plan.games_requested:
        return None
    return (f"games: {plan.games_requested} rounded up to {plan.games_per_group} {unit} per "
            f"option group ({ids} deals x {R} seat rotations)")  # fmt: skip


# ---------------------------------------------------------------------------------------------
# strategies in workers


_STRATEGY_CACHE: dict[tuple, object] = {}


def load_strategy_paths(paths: Iterable[str]) -> None:
    """Load strategy files and folders (a path may be a ``.py`` file or a folder): the user's
    own ``--strategy-path``, never a path read from a run folder (:func:`load_run_files`)."""
    for p in paths:
        path = Path(p).expanduser()
        if path.is_file():
            strategy.load_file(path)
        elif path.is_dir():
            strategy.load_folder(path)
        else:
            raise StrategyError(f"strategy path {p} does not exist; check --strategy-path")


def strategy_files(paths: Iterable[str]) -> list[dict]:
    """Every strategy file a run loads, with its sha256, as the manifest lists them: the
    built-in files by name (``{"builtin": "greedy.py", "sha256": ...}``: another install
    with the same files resumes the run) and the user's files by absolute path (``{"path":
    ..., "sha256": ...}``), the ``*.py`` files of the folders of ``paths`` included."""
    out = []
    for x in _py_files(strategy.builtin_dir()):
        out.append({"builtin": x.name, "sha256": strategy.file_hash(x)})
    for p in paths:
        for x in _py_files(Path(p).expanduser()):
            if strategy.builtin_name(x) is None:
                out.append({"path": str(x.resolve()), "sha256": strategy.file_hash(x)})
    return out


def probe_strategies(paths: Sequence[str], labels: Sequence[str],
                     files: Sequence[tuple[str, str, str]] = ()) -> None:  # fmt: skip
    """Load the strategy files ``paths`` (or a run's recorded ``files``, as
    :func:`load_run_files` does) and start the strategies ``labels`` in a child process first
    (:func:`dominosim.sandbox.call`): a file that ends its process at import or in a
    strategy's ``__init__`` (``os._exit``, a crash) is a StrategyError naming it, where
    loading it here would end this process quietly. Errors of loading are left to the load in
    this process, which gives them again (the child's are the same)."""

    def load(progress, paths, labels):
        for p in paths:
            progress(f"path {p}")
            load_strategy_paths([p])
        for kind, ref, digest in files:
            if kind == "path":
                progress(f"path {ref}")
                strategy.load_file(Path(ref), expect=digest)
        for label in dict.fromkeys(labels):
            spec = parse_strategy(label)
            progress(f"start {spec.name}")
            strategy.get(spec.name, **spec.kwargs)

    def died(how: str, last: str | None) -> str:
        kind, _, what = (last or "path ").partition(" ")
        if kind == "start":
            return (f"strategy '{what}' ended its process in __init__ ({how}: os._exit, or a "
                    "crash); fix its __init__")  # fmt: skip
        return (f"strategy path {what or ', '.join(paths)} ended its process while loading "
                f"({how}: os._exit at import, or a crash); fix it")  # fmt: skip

    try:
        sandbox.call(load, list(paths), list(labels), died=died)
    except sandbox.ProcessEnded:
        raise
    except DominosimError:
        pass


def _py_files(f: Path) -> list[Path]:
    if f.is_dir():
        return sorted(x for x in f.glob("*.py") if not x.name.startswith("_"))
    return [f]


_SHA256 = re.compile(r"[0-9a-f]{64}")


def recorded_files(inputs: object) -> tuple[tuple[str, str, str], ...]:
    """The strategy files a manifest's ``inputs`` lists, as ``(kind, name or path, sha256)``
    (:func:`strategy_files`), each entry checked: a built-in by plain file name, a user's file
    by absolute ``.py`` path, a sha256 each; a ValueError names a bad entry. A manifest of
    format 1 (``{path: sha256}``) is read too: a path that is this install's built-in file,
    or a built-in file's name with its content, is that built-in."""
    if not isinstance(inputs, dict):  # (none recorded: check_inputs refuses to play on)
        return ()
    files = inputs.get("strategy_files", [])
    if isinstance(files, dict):  # (format 1)
        files = [_format1_entry(k, v) for k, v in files.items()]
    if not isinstance(files, list):
        raise TypeError(f"'inputs.strategy_files' is {files!r}, not a list")
    return tuple(_file_entry(e) for e in files)


def _format1_entry(path: object, digest: object) -> dict:
    name = strategy.builtin_name(path) if isinstance(path, str) else None
    if name is None and isinstance(path, str) and not Path(path).exists():
        here = strategy.builtin_file(Path(path).name)
        if here is not None and strategy.file_hash(here) == digest:
            name = here.name
    return {"builtin": name, "sha256": digest} if name else {"path": path, "sha256": digest}


def _file_entry(e: object) -> tuple[str, str, str]:
    if not isinstance(e, dict) or len(e) != 2 or not isinstance(e.get("sha256"), str) \
            or not _SHA256.fullmatch(e["sha256"]):  # fmt: skip
        raise ValueError(f"strategy file entry {e!r} is not a file and its sha256")
    if "builtin" in e:
        if strategy.builtin_file(e["builtin"]) is None:
            raise ValueError(f"built-in strategy file {e['builtin']!r} is not one of this "
                             "install's")  # fmt: skip
        return ("builtin", e["builtin"], e["sha256"])
    path = e.get("path")
    if not isinstance(path, str) or not Path(path).is_absolute() or not path.endswith(".py") \
            or "\0" in path:  # fmt: skip
        raise ValueError(f"strategy file entry {e!r} is not an absolute path of a .py file")
    return ("path", path, e["sha256"])


def file_location(kind: str, ref: str) -> Path | None:
    """Where a recorded strategy file is on this machine (None: a built-in this install lacks)."""
    return strategy.builtin_file(ref) if kind == "builtin" else Path(ref)


def changed_strategy_file(recorded: Iterable[tuple[str, str, str]]) -> str | None:
    """The first recorded strategy file whose content is not what the run began with (or
    that is missing)."""
    for kind, ref, digest in recorded:
        where = file_location(kind, ref)
        if where is None or strategy.file_hash(where) != digest:
            return str(where or f"{ref} (built-in)")
    return None


def load_run_files(files: Iterable[tuple[str, str, str]]) -> None:
    """Load the strategy files of a run (the built-in ones, then each of the user's files
    whose content is the recorded one: :func:`strategy.load_file` reads it once, checks its
    sha256 and runs what it checked; no other file of a folder is imported)."""
    strategy.discover()
    for kind, ref, digest in files:
        if kind == "path":
            strategy.load_file(Path(ref), expect=digest)


_TIMEOUT = [0.0]  # the strategy timeout of the work item being played (seconds; 0: none)


class StrategyTimeout(BaseException):
    """Raised inside a strategy that overran ``--strategy-timeout`` (not an Exception, so the
    strategy's own ``except Exception`` does not swallow it)."""


def _on_alarm(signum, frame):
    raise StrategyTimeout


def _async_raise(tid: int, exc: type | None) -> None:
    """Raise ``exc`` in thread ``tid`` at its next Python instruction (None: cancel)."""
    import ctypes

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(tid),
                                               None if exc is None else ctypes.py_object(exc))  # fmt: skip


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Raise StrategyTimeout in the block after ``seconds`` (0: no limit). In the main
    thread a SIGALRM timer (it also ends a blocking call such as ``time.sleep``); in any other
    thread (the Python API called from a thread, a Dask worker) a timer thread raises it in
    this one at its next Python instruction."""
    import threading

    if seconds <= 0:
        yield
        return
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        old = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
        return
    tid, lock, state = threading.get_ident(), threading.Lock(), {"on": True, "fired": False}

    def fire() -> None:
        with lock:
            if state["on"]:
                state["fired"] = True
                _async_raise(tid, StrategyTimeout)

    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        with lock:
            state["on"] = False
            timer.cancel()
            if state["fired"]:  # (raised already, or still pending: never later than here)
                _async_raise(tid, None)


def _guard(inst, name: str):
    """Wrap ``inst.choose``: a result that is not integers of the right shape is refused with
    the message every path gives (strategy.check_actions); the timeout is applied; a
    KeyboardInterrupt or GeneratorExit the strategy raises itself is its error (a real Ctrl-C
    or SIGTERM, noted by dominosim.signals, stays an interruption)."""
    choose = inst.choose

    def guarded(obs, legal, keys):
        limit = _TIMEOUT[0]
        try:
            with _time_limit(limit):
                out = choose(obs, legal, keys)
        except StrategyTimeout:
            raise StrategyError(
                f"strategy '{name}' did not return a decision batch within {limit:g} s "
                "(--strategy-timeout); fix the strategy or raise the limit"
            ) from None
        except (KeyboardInterrupt, GeneratorExit) as exc:
            if signals.is_interruption(exc):
                raise
            text = " ".join(str(exc).split())
            raise StrategyError(
                f"strategy '{name}' raised {type(exc).__name__}{': ' + text if text else ''}; "
                "fix the strategy"
            ) from None
        return strategy.check_actions(name, out, len(keys))

    inst.choose = guarded
    return inst


def make_strategy(label: str, files: Sequence[tuple[str, str, str]] = ()) -> strategy.Strategy:
    """A strategy instance from a seat label (``name:key=value``), loading the run's strategy
    ``files`` first (:func:`load_run_files`); a strategy file changed since it was loaded is
    loaded again (a long-lived process plays the file as it is now)."""
    load_run_files(files)
    spec = parse_strategy(label)
    origin = strategy._ORIGIN.get(spec.name)
    key = (label, tuple(files), origin, strategy._HASHES.get(Path(origin)) if origin else None)
    if key not in _STRATEGY_CACHE:
        inst = strategy.get(spec.name, **spec.kwargs)
        _STRATEGY_CACHE[key] = _guard(inst, getattr(inst, "label", spec.name))
    return _STRATEGY_CACHE[key]


# ---------------------------------------------------------------------------------------------
# the worker


def _play_batch(rules, seed, strategies, ids, unit, batch_size):
    from .engine import BatchEngine

    eng = BatchEngine(rules, seed, strategies, ids, unit=unit, batch_size=batch_size)
    return eng.run()


def play(rules: Rules, seed: int, strategies: Sequence[strategy.Strategy], ids: Sequence[int] | range,
         unit: str, batch_size: int = BATCH_SIZE) -> tuple[dict, dict]:  # fmt: skip
    """Play match ids ``ids`` on the batch engine. Returns (hands, matches) dicts of arrays."""
    return _play_batch(rules, seed, strategies, ids, unit, batch_size)


def _sorted(d: dict, keys: Sequence[str]) -> dict:
    """The records ordered by ``keys`` (the engines return them so: then only checked)."""
    if not d or not len(d[keys[0]]):
        return d
    first = d[keys[0]]
    step = first[1:] - first[:-1]
    ok = step > 0
    if len(keys) > 1:
        ok |= (step == 0) & (d[keys[1]][1:] > d[keys[1]][:-1])
    if ok.all():
        return d
    order = np.lexsort(tuple(d[k] for k in reversed(keys)))
    return {k: v[order] for k, v in d.items()}


def play_item(item: WorkItem, tick: Callable[[int], None] | None = None) -> dict:
    """:func:`_play_item`, with a strategy's prints sent to stderr (on every executor: the
    report alone goes to stdout)."""
    import contextlib

    with contextlib.redirect_stdout(sys.stderr):
        return _play_item(item, tick)


def _play_item(item: WorkItem, tick=None) -> dict:
    """Play one work item (every rotation of its ids); the worker's whole job.

    ``tick`` (optional): called with the number of games played after each slice of ids
    (:func:`_slices`), for a progress bar that moves while a chunk is played. Returns
    ``{"group", "chunk", "games", "hands", "rows", "records", "timing"}``: ``rows`` the integer
    aggregate rows ``[metric, rotation, seat, bin, pair, value]``, ``records`` a dict of
    column arrays (or None).
    """
    t0, c0 = time.perf_counter(), time.process_time()
    changed = changed_strategy_file(item.strategy_files)
    if changed is not None:
        raise StrategyError(
            f"strategy file {changed} changed while the run was playing; the run's chunks "
            "must all come from one version of it, so start a new run"
        )
    _TIMEOUT[0] = float(item.strategy_timeout or 0.0)
    rules = item.rules
    P = rules.players
    ids = range(item.start, item.stop)
    n_ids = len(ids)
    labels = list(dict.fromkeys(item.seats))
    k = {x: item.seats.count(x) for x in labels}
    agg: Counter = Counter()
    W = {x: np.zeros(n_ids, dtype=np.int64) for x in labels}
    MW = {x: np.zeros(n_ids, dtype=np.int64) for x in labels}
    T = np.zeros(n_ids, dtype=np.int64)
    PT = {x: np.zeros(n_ids, dtype=np.int64) for x in labels}  # points of its seats' sides
    winners = []  # per rotation, the side that won each deal's hand (unit hand)
    parts = []
    n_hands = 0
    for r in item.rotations:
        seat_labels = seating(item.seats, r)
        strategies = [make_strategy(x, item.strategy_files) for x in seat_labels]
        hands, matches = _play_sliced(rules, item, strategies, ids, tick)
        hands = _sorted(hands, ("match_id", "hand_index"))
        matches = _sorted(matches, ("match_id",))
        n_hands += len(hands["match_id"])
        aggregate_rotation(agg, rules, r, hands, matches)
        hw, mw, nh = per_match_wins(rules, hands, matches, item.start, n_ids)
        T += nh
        for s, x in enumerate(seat_labels):
            W[x] += hw[s]
            MW[x] += mw[s]
        one_each = len(hands["match_id"]) == n_ids  # (sorted: one hand per match id)
        if one_each:
            pts = hands["points"].reshape(n_ids, -1)
            per_seat = rules.match_end == "one_hand"  # (points by seat, as aggregate_rotation)
            for s, x in enumerate(seat_labels):
                PT[x] += pts[:, s if per_seat else rules.side_of(s)]
            winners.append(hands["winner"])
        if item.records:
            parts.append(_record_columns(item, r, seat_labels, hands))
        if item.accuracy_labels and item.start < item.accuracy_deals:
            _rate_decisions(agg, item, seat_labels, strategies)
    for i, a in enumerate(labels):
        for b in labels[i + 1 :]:
            pair = f"{a} vs {b}"
            dh = W[a] * k[b] - W[b] * k[a]
            dm = MW[a] * k[b] - MW[b] * k[a]
            add(agg, "pair_deals", n_ids, pair=pair)
            add(agg, "pair_hands", T.sum(), pair=pair)
            add(agg, "pair_hand_sum", dh.sum(), pair=pair)
            add(agg, "pair_hand_sumsq", (dh * dh).sum(), pair=pair)
            add(agg, "pair_match_sum", dm.sum(), pair=pair)
            add(agg, "pair_match_sumsq", (dm * dm).sum(), pair=pair)
            if len(winners) == len(item.rotations):
                dp = PT[a] * k[b] - PT[b] * k[a]
                add(agg, "pair_points_sum", dp.sum(), pair=pair)
                add(agg, "pair_points_sumsq", (dp * dp).sum(), pair=pair)
    if item.solve_budget:
        _solve_deals(agg, item)
    if len(item.rotations) > 1 and len(winners) == len(item.rotations):
        # the deal decided it: the same side won the hand in every seating
        w = np.array(winners)
        add(agg, "deals_seated", n_ids)
        add(agg, "deals_decided", ((w[0] >= 0) & (w == w[0]).all(axis=0)).sum())
    records = None
    if parts:
        records = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    del P
    return {
        "group": item.group,
        "chunk": item.chunk,
        "games": item.games,
        "hands": n_hands,
        "rows": sorted([*key, v] for key, v in agg.items()),
        "records": records,
        "timing": {
            "cpu_seconds": time.process_time() - c0,
            "wall_seconds": time.perf_counter() - t0,
        },
    }


#: Progress slices: the first plays this many match ids, later ones aim at this many seconds.
SLICE_FIRST_IDS = 256
SLICE_SECONDS = 0.5


def _slices(ids: range) -> Iterator[range]:
    """``ids`` cut into consecutive slices: the first of :data:`SLICE_FIRST_IDS` ids, then
    growing (at most four times the one before) while a slice takes less than
    :data:`SLICE_SECONDS`. Deals and strategy draws are addressed by match id,
    so playing slices gives the records of playing ``ids`` at once (any chunk size does)."""
    size, i = SLICE_FIRST_IDS, ids.start
    while i < ids.stop:
        t = time.perf_counter()
        s = range(i, min(ids.stop, i + size))
        yield s
        i = s.stop
        dt = max(time.perf_counter() - t, 1e-3)
        size = max(size, min(4 * size, int(size * SLICE_SECONDS / dt)))  # (never smaller:
        # every slice pays the engine's tail, the steps of its last few games)


def _play_sliced(rules, item: WorkItem, strategies, ids: range, tick):
    """:func:`play` of ``ids``; with ``tick``, slice by slice, calling ``tick(games)`` after
    each (without, in one call: the engine's fastest)."""
    if tick is None:
        return play(rules, item.seed, strategies, ids, item.unit, item.batch_size)
    parts = []
    for s in _slices(ids):
        parts.append(play(rules, item.seed, strategies, s, item.unit, item.batch_size))
        tick(len(s))
    if len(parts) == 1:
        return parts[0]
    return tuple({k: np.concatenate([p[j][k] for p in parts]) for k in parts[0][j]} for j in (0, 1))


def _record_columns(item: WorkItem, r: int, seat_labels, hands: dict) -> dict:
    n = len(hands["match_id"])
    cols = {
        "group": np.full(n, item.group, dtype=np.int32),
        "rotation": np.full(n, r, dtype=np.int16),
        "match_id": hands["match_id"].astype(np.int64),
        "hand_index": hands["hand_index"].astype(np.int32),
    }
    labels = list(dict.fromkeys(item.seats))
    for s, x in enumerate(seat_labels):  # codes into the item's labels; see records_table
        cols[f"strategy_{s}"] = np.full(n, labels.index(x), dtype=np.int8)
    cols["deal"] = deal_keys(item.seed, item.rules.players, hands["match_id"],
                             hands["hand_index"], hands["redeals"])  # fmt: skip
    for key in ("leader", "end_reason", "fish_maker", "winner", "went_out", "hand_length",
                "turns", "draws", "passes", "redeals"):  # fmt: skip
        cols[key] = hands[key].astype(np.int16 if key != "turns" else np.int32)
    keys = ("points", "pips", "penalties") + (("values",) if item.rules.variant == "kozel" else ())
    for key in keys:
        a = hands[key].reshape(n, -1)
        for c in range(a.shape[1]):
            cols[f"{key}_{c}"] = a[:, c].astype(np.int32)
    return cols


def deal_keys(seed: int, players: int, match_id: np.ndarray, hand_index: np.ndarray,
              redeals: np.ndarray) -> np.ndarray:  # fmt: skip
    """The ``deal`` record column: the 64-bit key (as int64) the 28-tile shuffle of each hand
    is drawn from (``seeding``: seed, players, match id, hand index, redeal attempt), so two
    records with equal ``deal`` were dealt the same tiles."""
    from .seeding import DEAL, key_np

    m = np.asarray(match_id, dtype=np.int64)
    if not len(m):
        return np.zeros(0, dtype=np.int64)
    h = key_np(seed, DEAL, players, m, np.asarray(hand_index, dtype=np.int64),
               np.asarray(redeals, dtype=np.int64))  # fmt: skip
    return np.broadcast_to(h, m.shape).astype(np.uint64).view(np.int64)


def records_table(records: dict, seats: Sequence[str]) -> pa.Table:
    """A pyarrow Table of a chunk's record columns; the ``strategy_<seat>`` codes become
    dictionary-encoded strings (the labels of ``seats``)."""
    import pyarrow as pa

    labels = pa.array(list(dict.fromkeys(seats)), type=pa.string())
    arrays = {}
    for key, v in records.items():
        if key.startswith("strategy_"):
            arrays[key] = pa.DictionaryArray.from_arrays(pa.array(v), labels)
        else:
            arrays[key] = pa.array(v)
    return pa.table(arrays)


# ---------------------------------------------------------------------------------------------
# executors: each yields play_item results as they finish


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _InProcess:
    def __init__(self, items):
        self.items = items

    def results(self, tick=None) -> Iterator[dict]:
        for it in self.items:
            yield play_item(it, tick)

    def stop(self) -> None:
        pass


def _worker_main(conn, others=(), games=None, parent=None) -> None:
    """A pool worker: play the items the parent sends, one at a time, and send back
    ``("ok", result)``, ``("error", DominosimError)`` or ``("crash", text)``. ``others``: the
    parent's ends of earlier workers' pipes, inherited by the fork and closed here (so a
    worker sees the end of its pipe when the parent dies). ``games``: a shared counter of the
    games played, for a progress bar that moves while a chunk is played (or None).
    ``parent``: the parent's process id; the worker dies with it
    (:func:`dominosim.sandbox.die_with_parent`)."""
    _ignore_sigint()
    if parent is not None:
        sandbox.die_with_parent(parent)
    for c in others:
        c.close()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (the parent's handler raises Ctrl-C)
    from . import store

    store.close_locks_in_child()
    try:  # a strategy's prints go to stderr, never into the report on stdout
        sys.stdout.flush()
        os.dup2(2, 1)
    except (OSError, ValueError):
        pass
    sys.stdout = sys.stderr
    from .errors import DominosimError

    def tick(n: int) -> None:
        with games.get_lock():
            games.value += n

    while True:
        try:
            item = conn.recv()
        except (EOFError, OSError):
            return
        if item is None:
            return
        try:
            out = ("ok", play_item(item, tick if games is not None else None))
        except DominosimError as e:
            out = ("error", e)
        except BaseException as e:  # noqa: BLE001 - KeyboardInterrupt in a strategy, ...
            text = " ".join(str(e).split())
            out = ("crash", f"{type(e).__name__}: {text}" if text else type(e).__name__)
        try:
            conn.send(out)
        except (OSError, ValueError):
            return


def _solve_deals(agg: Counter, item: WorkItem) -> None:
    """skill: the perfect-information value of the chunk's deals (dominosim.solver), for
    the leader's side: deals, solved, won by the leader's side, and Σ, Σ² of its points
    difference."""
    from .solver import solve_deals

    sol = solve_deals(item.rules, item.seed, range(item.start, item.stop), budget=item.solve_budget)
    ok = sol.solved
    d = sol.value[ok].astype(np.int64)
    add(agg, "pi_deals", len(sol))
    add(agg, "pi_solved", ok.sum())
    add(agg, "pi_leader_wins", (sol.win & ok).sum())
    add(agg, "pi_value_sum", d.sum())
    add(agg, "pi_value_sumsq", (d * d).sum())
    add(agg, "pi_nodes", sol.nodes.sum())


def _rate_decisions(agg: Counter, item: WorkItem, seat_labels, strategies) -> None:
    """skill: the decision accuracy of the item's accuracy labels in one seating, on its deals
    below ``accuracy_deals`` (dominosim.solver.decision_accuracy, one play for all of them):
    per label, the decisions with a real choice, those rated (``acc_rated``; the rest ran out
    of budget), the optimal ones, and for an interval clustered by hand (the decisions of one
    hand are not independent) the hands and Σn², Σon, Σo² of each hand's rated n and optimal
    o."""
    from .solver import decision_accuracy

    ids = range(item.start, min(item.stop, item.accuracy_deals))
    watched = [s for s, y in enumerate(seat_labels) if y in item.accuracy_labels]
    acc = decision_accuracy(item.rules, item.seed, strategies, ids, watched,
                            budget=item.accuracy_budget)  # fmt: skip
    for x in item.accuracy_labels:
        mine = np.isin(acc.seat, [s for s, y in enumerate(seat_labels) if y == x])
        rated = mine & (acc.optimal >= 0)
        n = np.bincount(acc.match[rated] - ids.start, minlength=len(ids))
        o = np.bincount(acc.match[mine & (acc.optimal == 1)] - ids.start, minlength=len(ids))
        add(agg, "acc_decisions", mine.sum(), pair=x)
        add(agg, "acc_rated", rated.sum(), pair=x)
        add(agg, "acc_optimal", o.sum(), pair=x)
        add(agg, "acc_hands", len(ids), pair=x)
        add(agg, "acc_n2", (n * n).sum(), pair=x)
        add(agg, "acc_on", (o * n).sum(), pair=x)
        add(agg, "acc_o2", (o * o).sum(), pair=x)


def _death(exitcode) -> str:
    """Why a worker process ended, in words."""
    if exitcode is None:
        return "its worker process stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        why = " (out of memory, or killed)" if name == "SIGKILL" else ""
        return f"its worker process was killed by {name}{why}"
    return f"its worker process exited with code {exitcode} (os._exit in a strategy, or a crash)"


class _Pool:
    """Worker processes fed one item at a time; a worker that dies is noticed at once (its
    process sentinel), so the run ends naming the chunk instead of waiting for it."""

    def __init__(self, items, workers: int):
        import multiprocess

        methods = multiprocess.get_all_start_methods()
        ctx = multiprocess.get_context("fork" if "fork" in methods else None)
        self.items = iter(items)
        self.games = ctx.Value("q", 0)  # games played in the workers, for progress
        self.workers: list[list] = []  # [process, connection, item]
        for _ in range(workers):
            here, there = ctx.Pipe(duplex=True)
            others = [here, *(w[1] for w in self.workers)]
            p = ctx.Process(target=_worker_main, args=(there, others, self.games, os.getpid()),
                            daemon=True)  # fmt: skip
            p.start()
            there.close()
            self.workers.append([p, here, None])

    def _give(self, w) -> None:
        w[2] = next(self.items, None)
        if w[2] is not None:
            try:
                w[1].send(w[2])
            except (OSError, ValueError):
                self._died(w)

    def _died(self, w):
        w[0].join(timeout=2)
        if w[0].exitcode == -signal.SIGTERM:  # the process group was stopped: an interruption
            raise KeyboardInterrupt
        it = w[2]
        raise WorkerError(f"chunk {it.group}-{it.chunk} failed: {_death(w[0].exitcode)}")

    def results(self, tick=None) -> Iterator[dict]:
        """The chunks' results as they finish; ``tick(games)`` (optional) is told the games
        played in the workers' slices about four times a second."""
        from multiprocess.connection import wait

        for w in self.workers:
            self._give(w)
        seen = 0
        while True:
            busy = [w for w in self.workers if w[2] is not None]
            if not busy:
                break
            ready = set(wait([w[1] for w in busy] + [w[0].sentinel for w in busy],
                             timeout=5 if tick is None else 0.25))  # fmt: skip
            if tick is not None and self.games.value > seen:
                now = self.games.value
                tick(now - seen)
                seen = now
            for w in busy:
                if w[1] not in ready and w[0].sentinel not in ready:
                    continue
                try:
                    if not w[1].poll():
                        raise EOFError
                    kind, value = w[1].recv()
                except (EOFError, OSError):
                    self._died(w)
                if kind == "error":
                    raise value
                if kind == "crash":
                    it = w[2]
                    raise WorkerError(
                        f"chunk {it.group}-{it.chunk} failed: its worker stopped on {value}"
                    )
                self._give(w)
                yield value
        self.stop()

    def stop(self) -> None:
        """Kill the workers (whatever their strategies do with SIGTERM) and reap them: a
        finished run's workers are idle, an interrupted run's chunks are played again."""
        for p, conn, _ in self.workers:
            try:
                conn.close()
            except OSError:
                pass
            if p.is_alive():
                p.kill()
        for p, _, _ in self.workers:
            p.join(timeout=5)


class _Dask:
    def __init__(self, items, workers: int, scheduler: str | None):
        items = list(items)
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise ConfigError(
                "the dask executors need dask.distributed; install it with "
                "pip install 'dominosim[dask]' (or pip install 'dask[distributed]')"
            ) from None
        self.items = items
        self.cluster = None
        try:
            if scheduler is None:
                self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                            processes=True, host="127.0.0.1",
                                            dashboard_address=None)  # fmt: skip
                self.client = Client(self.cluster)
            else:
                self.client = Client(scheduler, timeout=30)
        except (OSError, TimeoutError, ValueError) as e:
            self.stop()
            where = scheduler or "a local cluster"
            raise ConfigError(f"cannot connect to the Dask scheduler {where}: {e}") from None

    def results(self, tick=None) -> Iterator[dict]:  # (progress per finished chunk)
        from dask.distributed import as_completed

        futures = self.client.map(play_item, self.items, pure=False)
        chunk_of = {f.key: f"{it.group}-{it.chunk}" for f, it in zip(futures, self.items,
                                                                     strict=True)}  # fmt: skip
        ac = as_completed(futures)
        del futures  # no list of futures is kept, so finished results are released
        for fut in ac:
            try:
                res = fut.result()
            except DominosimError:
                raise
            except Exception as e:  # noqa: BLE001 - a worker lost (KilledWorker), ...
                text = " ".join(str(e).split()).split(". ")[0]  # (dask's first sentence)
                raise WorkerError(
                    f"chunk {chunk_of.get(fut.key, '?')} failed on the Dask cluster: "
                    f"{type(e).__name__}: {text}"
                ) from None
            chunk_of.pop(fut.key, None)
            fut.release()
            yield res

    def stop(self) -> None:
        for x in (getattr(self, "client", None), self.cluster):
            if x is not None:
                try:
                    x.close()
                except Exception:  # noqa: BLE001 - closing is best effort
                    pass


def check_executor(executor: str, scheduler: str | None) -> None:
    """The executor settings are valid (checked before a run folder is made)."""
    if executor not in EXECUTORS:
        raise ConfigError(f"--executor must be one of {', '.join(EXECUTORS)}, not '{executor}'")
    if executor == "dask" and not scheduler:
        raise ConfigError("--executor dask needs --scheduler tcp://HOST:PORT")
    if executor != "dask" and scheduler:
        raise ConfigError("--scheduler is only used with --executor dask")
    if executor == "dask":  # (tcp only: tls:// and ucx:// need a set-up dominosim does not make)
        _check_scheduler(scheduler)


def _check_scheduler(address: str) -> None:
    """A Dask scheduler address: ``tcp://HOST:PORT`` (or ``HOST:PORT``), else one line."""
    scheme, sep, rest = str(address).rpartition("://")
    if sep and scheme != "tcp":
        raise ConfigError(
            f"--scheduler '{address}': dominosim connects to a Dask scheduler over tcp only, "
            f"not {scheme}://; give its address as tcp://HOST:PORT"
        )
    host, _, port = rest.rpartition(":")
    if not (host.strip("[]") and port.isdigit() and 1 <= int(port) <= 65535) or any(
        c.isspace() or c in "/?#@" for c in rest
    ):
        raise ConfigError(
            f"--scheduler '{address}' is not an address tcp://HOST:PORT (port 1 to 65535); "
            "give the scheduler's address, e.g. tcp://10.0.0.5:8786"
        )


def user_strategies(plan: Plan) -> bool:
    """The plan plays a strategy that is not one of dominosim's built-ins (a file of
    ``--strategy-path``, or a class the caller registered): such code never runs in the
    caller's process, so it cannot end it (docs/design.md, "Errors")."""
    if plan.strategy_paths:
        return True
    builtin = strategy.builtin_dir().resolve()
    labels = set(plan.seats).union(*plan.legs) if plan.legs else set(plan.seats)
    for label in labels:
        try:
            origin = Path(strategy.origin(parse_strategy(label).name))
        except (KeyError, DominosimError):
            return True
        if origin.parent != builtin:
            return True
    return False


def _executor(items, n_items: int, workers: int, executor: str, scheduler: str | None,
              isolate: bool = False):  # fmt: skip
    """The executor of a run; ``isolate``: the run plays users' strategies, so even one chunk
    or one worker is played in a worker process (a watched pool), never in this one."""
    check_executor(executor, scheduler)
    if executor == "dask":
        return _Dask(items, workers, scheduler)
    if executor == "dask-local":
        return _Dask(items, workers, None)
    if (workers <= 1 or n_items <= 1) and not isolate:
        return _InProcess(items)
    return _Pool(items, max(1, min(workers, n_items)))


# ---------------------------------------------------------------------------------------------
# the parent


def versions() -> dict:
    """Versions of dominosim, Python and the packages a run depends on."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("dominosim", "numpy", "pandas", "pyarrow", "multiprocess", "tqdm", "click",
                "matplotlib", "dask", "distributed"):  # fmt: skip
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            if pkg == "dominosim":
                out[pkg] = __version__
    return out


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def merge_finished(rd: RunDir, plan: Plan, bad: list | None = None) -> tuple[Merger, set]:
    """A Merger holding every finished chunk of a run folder that checks out against the plan
    (``store.RunDir.check_chunk``); the others are left out, and listed in ``bad`` as
    ``(group, chunk, reason)`` when it is given."""
    m = Merger(len(plan.rules))
    done = set()
    planned = plan.items if isinstance(plan.items, PlanItems) else plan.make_items()
    run = plan.fingerprint()
    for g, c in sorted(rd.finished_chunks()):
        if not planned.has(g, c):
            continue
        it = plan.item(g, c)
        a, reason = rd.check_chunk(g, c, chunk_expect(it, run), plan.records)
        if reason is None:
            reason = check_chunk_counts(a, plan.players, it.rotations, it.games)
        if reason is not None:
            if bad is not None:
                bad.append((g, c, reason))
            continue
        m.add(g, a["rows"], a.get("timing", {}), a.get("games", 0), a.get("hands", 0))
        done.add((g, c))
    if bad is not None:  # records without their aggregates: a chunk cut short, or damaged
        for g, c in sorted(rd.orphan_records() - rd.finished_chunks()):
            if planned.has(g, c):
                bad.append((g, c, "its aggregates file is missing"))
    return m, done


def chunk_expect(it: WorkItem, run: str) -> dict:
    """What a chunk's aggregates file must say of itself: which chunk it is, and of which run
    (``run``: :meth:`Plan.fingerprint`)."""
    return {"run": run, "group": it.group, "chunk": it.chunk, "start": it.start,
            "stop": it.stop, "games": it.games}  # fmt: skip


@dataclass
class Session:
    """Options of one execution (not part of the results)."""

    workers: int | None = None
    executor: str = "local"
    scheduler: str | None = None
    progress: bool | None = None  # None: when stderr is a terminal
    echo: object = None  # callable(str) for status lines; default: stderr
    strategy_timeout: float | None = None  # seconds per decision batch; None or 0: no limit


def _echo(session: Session, text: str) -> None:
    if session.echo is not None:
        session.echo(text)
    else:
        print(text, file=sys.stderr)


def _check_workers(session: Session) -> None:
    """Warn once when more local workers are asked for than the machine has cores."""
    cores = os.cpu_count() or 1
    if session.executor == "local" and session.workers and session.workers > cores:
        _echo(session, f"warning: --workers {session.workers} is more than the {cores} cores "
                       "of this machine; the run is not faster for it")  # fmt: skip


def start_run(exp: Experiment, seed: int, *, seed_drawn: bool = False,
              session: Session | None = None, legs: Sequence[Sequence[str]] | None = None,
              analysis: dict | None = None) -> tuple[RunDir, dict]:  # fmt: skip
    """Create the run folder for ``exp`` and play it; returns the finished run folder and
    its report.

    ``legs`` (a round robin: one seat list per leg) and ``analysis`` (the command's own report
    section, ``{"kind": ...}``, stored in the manifest) serve compare / tune / tune-target.
    Every check that can fail runs before the folder is made; a run that fails before any
    chunk is finished leaves no folder behind.
    """
    from .version import ENGINE_VERSION

    session = session or Session()
    if session.workers is None:
        session.workers = exp.workers
    check_executor(session.executor, session.scheduler)
    if not 0 <= int(seed) < 2**64:
        raise ConfigError(f"--seed must be an integer from 0 to 2**64-1, not {seed}")
    if exp.strategy_path:  # (os._exit at import or in __init__ cannot end this process)
        probe_strategies(exp.strategy_path,
                         [*(s.label for s in exp.seats), *(x for leg in legs or () for x in leg)])  # fmt: skip
    load_strategy_paths(exp.strategy_path)
    for spec in exp.seats:  # unknown names and bad parameters fail here, in the parent
        strategy.get(spec.name, **spec.kwargs)
    for label in dict.fromkeys(x for leg in legs or () for x in leg):
        spec = parse_strategy(label)
        strategy.get(spec.name, **spec.kwargs)
    plan = Plan.from_experiment(exp, seed, legs=legs)
    plan.solve_budget = int((analysis or {}).get("solve_budget", 0))
    plan.accuracy_deals = int((analysis or {}).get("accuracy_deals", 0))
    files = strategy_files(plan.strategy_paths)
    plan.strategy_files = recorded_files({"strategy_files": files})
    _check_workers(session)
    _check_match_end(plan)
    split_for_workers(plan, session.workers or os.cpu_count() or 1)
    rd = RunDir.create(exp.out, exp.name)
    exp_dict = exp.to_dict()
    exp_dict["seed"] = plan.seed
    manifest = {
        "format": MANIFEST_FORMAT,
        "run_id": rd.run_id,
        "name": plan.name,
        "status": "running",
        "created": _now(),
        "source": exp.source,
        "experiment": exp_dict,
        "seed_drawn": seed_drawn,
        **plan.to_manifest(),
        "inputs": {"engine_version": ENGINE_VERSION, "strategy_files": files},
        "versions": versions(),
        "timings": {"wall_seconds": 0.0, "sessions": []},
        **({"analysis": dict(analysis)} if analysis else {}),
    }
    try:
        with rd.locked():
            rd.write_manifest(manifest)
            if seed_drawn:
                _echo(session,
                      f"seed: {plan.seed} (drawn; repeat this run with --seed {plan.seed})")  # fmt: skip
            note = games_note(plan, analysis)
            if note:
                _echo(session, note)
            data = execute(rd, plan, manifest, session)
    except Interrupted:
        raise
    except BaseException:
        if not rd.finished_chunks():  # nothing to keep: no empty 'failed' folder
            rd.remove()
        raise
    return rd, data


def check_inputs(rd: RunDir, manifest: dict) -> None:
    """Refuse to resume a run whose engine or strategy files changed since it began."""
    from .version import ENGINE_VERSION

    inputs = manifest.get("inputs")
    if not isinstance(inputs, dict):
        raise OutputError(
            f"the manifest of {rd.path} records no engine version or strategy files (made by "
            "an older dominosim); resume with the version that started the run, or start a "
            "new run"
        )
    new = _new_run_hint(manifest)
    if inputs.get("engine_version") != ENGINE_VERSION:
        raise OutputError(
            f"the engine changed since the run {rd.path} began (engine version "
            f"{inputs.get('engine_version')}, now {ENGINE_VERSION}), so its chunks would mix "
            f"two engines; start a new run ({new}) or resume with the version that began it"
        )
    files = recorded_files(inputs)  # (checked by Plan.from_manifest before this)
    inside = next((ref for kind, ref, _ in files
                   if kind == "path" and _is_within(Path(ref), rd.path)), None)  # fmt: skip
    if inside is not None:
        raise OutputError(
            f"the manifest of {rd.path} names a strategy file inside the run folder ({inside}); "
            "a run folder is data and none of its files is ever run: use your own copy of "
            "the strategy and start a new run"
        )
    changed = changed_strategy_file(files)
    if changed is not None:
        raise OutputError(
            f"strategy file {changed} changed since the run {rd.path} began (or is missing), "
            f"so its games would mix two versions of it; start a new run ({new}) or restore "
            "the file"
        )


def _is_within(path: Path, folder: Path) -> bool:
    """``path`` lies inside ``folder`` (links resolved on both)."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (ValueError, OSError, RuntimeError):
        return False
    return True


def _new_run_hint(manifest: dict) -> str:
    src = manifest.get("source")
    kind = (manifest.get("analysis") or {}).get("kind") or "run"
    if isinstance(src, str) and src != "command line":
        return f"dominosim {kind} {src}"
    return f"dominosim {kind} with the settings of its manifest.json 'experiment'"


def outputs_complete(rd: RunDir, manifest: dict) -> bool:
    """The merged outputs of a finished run are all there and match the manifest."""
    from .store import AGGREGATES, REPORT, SUMMARY

    want = (manifest.get("outputs") or {}) if isinstance(manifest.get("outputs"), dict) else {}
    if not all((rd.path / f).is_file() for f in (AGGREGATES, SUMMARY, REPORT)):
        return False
    if want.get("plots") and not (rd.path / "plots").is_dir():
        return False
    digest = want.get(AGGREGATES)
    return digest is None or digest == strategy.file_hash(rd.path / AGGREGATES)


def resume_run(path: str | Path, session: Session | None = None) -> tuple[RunDir, dict]:
    """Finish the missing chunks of a run folder (a finished run is left as it is, unless a
    chunk or an output is missing or damaged: those are played or written again); returns the
    run folder and its report."""
    session = session or Session()
    rd = RunDir.open(path)
    with rd.locked():
        manifest = rd.read_manifest()
        plan = Plan.from_manifest(manifest)
        if session.workers is None:
            session.workers = _recorded_workers(manifest)
        check_executor(session.executor, session.scheduler)
        if manifest.get("status") == "done" and outputs_complete(rd, manifest):
            bad: list = []
            _, done = merge_finished(rd, plan, bad)
            if not bad and len(done) == len(plan.items):
                return rd, _checked_build(rd, manifest)
        check_inputs(rd, manifest)
        _check_workers(session)
        rd.check_writable()
        if any(kind == "path" for kind, _, _ in plan.strategy_files):
            probe_strategies([], [], plan.strategy_files)
        load_run_files(plan.strategy_files)
        return rd, execute(rd, plan, manifest, session)


def _recorded_workers(manifest: dict) -> int | None:
    """The worker count the run was started with (None: the default, when the manifest has
    none that is a count)."""
    exp = manifest.get("experiment")
    workers = exp.get("workers") if isinstance(exp, dict) else None
    return workers if _int_in(workers, 1, 10_000) else None


def execute(rd: RunDir, plan: Plan, manifest: dict, session: Session) -> dict:
    """Play the chunks of ``plan`` not yet in ``rd``, then write the merged outputs; returns
    the report (built once, by :func:`finish`)."""
    plan.strategy_timeout = float(session.strategy_timeout or 0.0)
    bad: list = []
    merger, done = merge_finished(rd, plan, bad)
    run = plan.fingerprint()
    for g, c, reason in bad:
        _echo(session, f"chunk {g}-{c}: {reason}; playing it again")
        rd.remove_chunk(g, c)
    pending = (it for it in plan.items if (it.group, it.chunk) not in done)
    n_pending = len(plan.items) - len(done)
    total_games = plan.total_games
    workers = session.workers or os.cpu_count() or 1
    stop_after = os.environ.get(STOP_ENV)
    stop_after = int(stop_after) if stop_after else None
    clock = _SessionClock(manifest)
    played_games = played_hands = written = 0
    bar = _Progress(session, total_games, merger.games, rd.path)
    ex = None
    signals.reset()
    old_handlers = signals.install()  # Ctrl-C and SIGTERM: interrupted, the resume command
    try:
        if n_pending:
            bar.phase(f"starting {min(workers, n_pending)} worker(s)")
            ex = _executor(pending, n_pending, workers, session.executor, session.scheduler,
                           isolate=user_strategies(plan))  # fmt: skip
            bar.phase("playing")
            for res in ex.results(bar.tick if bar.show else None):
                recs = res["records"]
                seats = plan.seats_of(res["group"])
                table = records_table(recs, seats) if recs is not None else None
                it = plan.item(res["group"], res["chunk"])
                agg_doc = {**chunk_expect(it, run), "hands": res["hands"], "timing": res["timing"],
                           "rows": res["rows"]}  # fmt: skip
                rd.write_chunk(res["group"], res["chunk"], agg_doc, table)
                merger.add(res["group"], res["rows"], res["timing"], res["games"], res["hands"])
                played_games += res["games"]
                played_hands += res["hands"]
                written += 1
                bar.chunk(res["games"])
                if stop_after is not None and written >= stop_after and written < n_pending:
                    raise KeyboardInterrupt
                _hold(written, n_pending)
        _stop(ex)
        ex = None
        data = finish(rd, plan, manifest, merger, lambda: clock.end(written, "done"),
                        phase=bar.phase)  # (the bar closes in finally)  # fmt: skip
    except KeyboardInterrupt:
        with signals.deferred():  # (a second signal cannot cut the cleanup short)
            _stop(ex)
            # a chunk whose file was written just before the signal is finished too
            written = max(written, len(rd.finished_chunks() - set(done)))
            bar.close()
            clock.end(written, "interrupted")
            rd.write_manifest(manifest)
        n_done = len(done) + written
        raise Interrupted(
            f"interrupted: {n_done} of {len(plan.items)} chunks kept in {rd.path}; "
            f"finish with: {_resume_command(manifest, rd)}"
        ) from None
    except BaseException as e:
        _stop(ex)
        bar.close()
        try:
            clock.end(written, "failed")
            rd.write_manifest(manifest)
        except OutputError:
            pass
        if len(done) + written:
            again = f"; finished chunks are kept, finish with: {_resume_command(manifest, rd)}"
        else:
            again = "; no chunk was finished"
        if isinstance(e, OSError):
            reason = e.strerror or str(e)
            raise OutputError(f"cannot write the run folder {rd.path}: {reason}{again}") from None
        if isinstance(e, OutputError | WorkerError):  # a full disk, a dead worker: go on how
            raise type(e)(e.message + again) from None
        raise
    finally:
        _stop(ex)  # closes a Dask client and its cluster; a finished pool is already joined
        bar.close()
        signals.restore(old_handlers)
    wall = clock.end(written, "done")
    rate = played_games / wall if wall > 0 else 0.0
    _echo(session, f"played {played_games} games ({played_hands} hands) in {wall:.1f} s, "
                   f"{rate:,.0f} games/s; results in {rd.path}")  # fmt: skip
    return data


class _Progress:
    """The progress bar of a run on stderr (when ``session.progress``, or stderr is a
    terminal): games played, games per second and time left; what the run is doing when it
    is not playing (starting workers, merging, writing the report, drawing the plots). It
    moves as slices of a chunk are played (:func:`_slices`), and a small thread refreshes it.
    It appears only after :attr:`DELAY` seconds, and so does the ``run folder:`` line (with a
    bar or without), so a run shorter than that prints its summary line only."""

    DELAY = 2.0

    def __init__(self, session: Session, total: int, done: int, path) -> None:
        from tqdm import tqdm

        self.session, self.path = session, path
        self.show = bool(session.progress if session.progress is not None
                         else sys.stderr.isatty())  # fmt: skip
        self.bar = tqdm(total=total, initial=done, unit="game", disable=not self.show,
                        file=sys.stderr, dynamic_ncols=True, smoothing=0.3, delay=self.DELAY,
                        desc="planning")  # fmt: skip
        self.base, self.ticked, self.chunked = done, 0, 0
        self.t0 = time.monotonic()
        self.announced = False
        import threading

        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._refresh, daemon=True)
        self._thread.start()

    def _visible(self) -> bool:
        return time.monotonic() - self.t0 >= self.DELAY

    def _refresh(self) -> None:
        while not self._stop.wait(0.25):
            if self._visible():
                if not self.announced:
                    self.announced = True
                    line = f"run folder: {self.path}"
                    if self.show and self.session.echo is None:
                        self.bar.write(line, file=sys.stderr)
                    else:
                        _echo(self.session, line)
                if self.show:
                    self.bar.refresh()

    def phase(self, text: str) -> None:
        if self.show:
            self.bar.set_description_str(text, refresh=self._visible())

    def _move(self) -> None:
        n = self.base + max(self.ticked, self.chunked)
        if n > self.bar.n:
            self.bar.update(n - self.bar.n)

    def tick(self, games: int) -> None:
        """Games played in slices (chunks not yet finished included)."""
        self.ticked += games
        self._move()

    def chunk(self, games: int) -> None:
        """A finished chunk (the executors that do not tick move the bar this way)."""
        self.chunked += games
        self._move()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        if self.show and self.announced:  # shown by our refreshes: tqdm's close must know it
            self.bar.last_print_t = max(self.bar.last_print_t, self.bar.start_t + self.DELAY)
        self.bar.close()


def _hold(written: int, pending: int) -> None:
    """The test hook of :data:`HOLD_ENV`: wait for a signal after that many chunks."""
    hold = os.environ.get(HOLD_ENV)
    if hold and written == int(hold) and written < pending:
        time.sleep(60)


def _resume_command(manifest: dict, rd: RunDir) -> str:
    """The command that finishes this run (compare / tune runs resume with their command)."""
    kind = (manifest.get("analysis") or {}).get("kind") or "run"
    return f"dominosim {kind} --resume {rd.path}"


def _stop(ex) -> None:
    if ex is not None:
        try:
            ex.stop()
        except Exception:  # noqa: BLE001 - stopping is best effort
            pass


class _SessionClock:
    """This session's entry in the manifest's ``timings``: its wall time and chunks are fixed
    by the first :meth:`end` (when the play and the merge are over, before the report is built,
    so the report carries the run's whole wall time); a later call (writing the outputs
    failed, or was interrupted) changes only its status. The caller writes the manifest."""

    def __init__(self, manifest: dict) -> None:
        self.manifest = manifest
        self.started = _now()
        self.t0 = time.perf_counter()
        self.entry: dict | None = None

    def end(self, chunks: int, status: str) -> float:
        """End the session (once) with ``status``; its wall seconds."""
        timings = self.manifest.get("timings")
        if not _timings_ok(timings):  # (damaged: the earlier sessions' times are dropped)
            timings = self.manifest["timings"] = {"wall_seconds": 0.0, "sessions": []}
        if self.entry is None:
            self.entry = {"started": self.started, "ended": _now(),
                          "wall_seconds": time.perf_counter() - self.t0, "chunks": chunks,
                          "status": status}  # fmt: skip
            timings["sessions"].append(self.entry)
            timings["wall_seconds"] = sum(s["wall_seconds"] for s in timings["sessions"])
        self.entry["status"] = status
        self.manifest["status"] = status
        return self.entry["wall_seconds"]


def _timings_ok(timings: object) -> bool:
    """A manifest's ``timings`` is a list of sessions with finite wall times."""
    if not isinstance(timings, dict) or not isinstance(timings.get("sessions"), list):
        return False
    for x in timings["sessions"]:
        w = x.get("wall_seconds") if isinstance(x, dict) else None
        if isinstance(w, bool) or not isinstance(w, int | float) or not math.isfinite(w):
            return False
    return True


def finish(rd: RunDir, plan: Plan, manifest: dict, merger: Merger,
           end_session: Callable[[], object], phase: Callable[[str], None] | None = None,
           ) -> dict:  # fmt: skip
    """Write aggregates.parquet, then end the session (``end_session``: the manifest's
    timings and status ``done``), build the report once from the manifest and the merged
    aggregates, write report.md, summary.csv and plots (each atomically) and last the
    manifest, ``done`` with the outputs' hashes: a run stopped in between is not done, and
    ``--resume`` writes what is missing. ``phase``: optional callable told what is being done
    (the progress bar). Returns the report (what :func:`load_report` reads back)."""
    phase = phase or (lambda text: None)
    phase("merging the aggregates")
    digest = rd.write_aggregates(merger.rows())
    manifest["group_timings"] = [
        {"cpu_seconds": merger.cpu[g], "wall_seconds": merger.wall[g]}
        for g in range(len(plan.rules))
    ]
    manifest["games_played"] = merger.games
    manifest["hands_played"] = merger.hands
    end_session()
    phase("writing the report")
    frame = merger.frame()
    data = _build(rd, manifest, frame)
    rd.write_outputs(report.render_markdown(data), report.summary_csv(data))
    plotted = False
    try:
        from . import plots

        phase("drawing the plots")
        with rd.staged_plots() as folder:
            plots.write_plots(data, frame, folder)
        plotted = True
    except ImportError:  # matplotlib missing: the report stands without figures
        pass
    manifest["outputs"] = {"aggregates.parquet": digest, "plots": plotted}
    manifest["status"] = "done"
    rd.write_manifest(manifest)
    return data


# ---------------------------------------------------------------------------------------------
# from a run folder


def load_report(run_dir: str | Path) -> dict:
    """The report of a run folder (finished or not: an unfinished run reports the chunks it
    has, and its ``status`` says so)."""
    rd = RunDir.open(run_dir)
    manifest = rd.read_manifest()
    plan = Plan.from_manifest(manifest)  # (a damaged manifest is one line here)
    if manifest.get("status") == "done" and (rd.path / AGGREGATES).is_file():
        return _checked_build(rd, manifest)
    merger, _ = merge_finished(rd, plan)
    manifest = dict(manifest)
    manifest["group_timings"] = [
        {"cpu_seconds": merger.cpu[g], "wall_seconds": merger.wall[g]}
        for g in range(len(plan.rules))
    ]
    manifest["games_played"] = merger.games
    manifest["hands_played"] = merger.hands
    return _build(rd, manifest, merger.frame())


def _checked_build(rd, manifest: dict) -> dict:
    """The report of a finished run, from an aggregates.parquet that is the one it wrote."""
    outputs = manifest.get("outputs")
    want = outputs.get(AGGREGATES) if isinstance(outputs, dict) else None
    if want is not None and strategy.file_hash(rd.path / AGGREGATES) != want:
        raise OutputError(
            f"{rd.path / AGGREGATES} is not the file the run wrote (edited or damaged); "
            f"write it again from the chunks with: dominosim run --resume {rd.path}"
        )
    return _build(rd, manifest, rd.read_aggregates())


def _build(rd: RunDir, manifest: dict, frame) -> dict:
    """The report of a run folder's manifest and aggregates; a manifest the report cannot be
    built from is one line (it is untrusted input)."""
    try:
        return report.build(manifest, frame, run_dir=rd.path)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as e:
        what = " ".join(str(e).split())[:200]
        raise OutputError(
            f"the manifest is damaged or from another version ({type(e).__name__}: {what}); "
            "resume with the version that started the run, or start it again"
        ) from None
