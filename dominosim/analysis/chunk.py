"""A chunk's result, ``chunks/<g>-<c>.agg.json``, as a type (issue 48): declared once
(:class:`ChunkResult`), built by the worker that plays the chunk, encoded by
``store.RunDir.write_chunk`` (:meth:`ChunkResult.encode`) and decoded once where a chunk is
read (:func:`decode`), every check of a received file on the way, each failure the one reason
the chunk is played again; every reader reads its attributes.

Here, not in ``storage/``, because the checks of its counts are the aggregates' facts (this
layer) and the merge (``aggregates.Merger``) reads it. The file is what it was before the type:
the same keys in the same order, compact JSON, the checksum over the same body.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, NamedTuple

from dominosim.analysis.aggregates import AT_MOST, MATCH_LEN_MAX, METRICS, SIGNED, VALUE_LIMIT


def checksum(doc: Mapping) -> str:
    """The sha256 of a JSON document's canonical text (sorted keys, compact)."""
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Row(NamedTuple):
    """One integer aggregate of a chunk (docs/results.md, "Aggregates")."""

    metric: str
    rotation: int
    seat: int
    bin: int
    pair: str
    value: int


@dataclass(frozen=True)
class Timing:
    """The seconds a chunk took in its worker (floats, not aggregates)."""

    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0


@dataclass(frozen=True)
class RecordsFile:
    """A records file as a chunk names it: its size and sha256 (None where the received
    document holds something else there, which matches no file)."""

    bytes: int | None
    sha256: str | None

    @classmethod
    def decode(cls, part: object) -> RecordsFile | None:
        """The file a document's entry names; None where it names none (not an object)."""
        if not isinstance(part, dict):
            return None
        size, sha = part.get("bytes"), part.get("sha256")
        return cls(_size(size), sha if isinstance(sha, str) else None)


#: a document's ``match_parquet`` that is neither absent nor an object: it names no file
NOT_NAMED = RecordsFile(None, None)


def _size(x: object) -> int | None:
    """A size as a document holds it, as equal to a file's size as it was read (a whole float
    equals one, a bool counts as 0 or 1); None where none is."""
    if isinstance(x, int):
        return int(x)
    if isinstance(x, float) and x.is_integer():
        return int(x)
    return None


@dataclass(frozen=True)
class ChunkResult:
    """One chunk's result: which chunk of which run (``run``: the plan's fingerprint, given
    by the session that writes it; None as the worker returns it), its games, hands, timing
    and integer aggregate rows, its records files (None: none) and the checksum it was read
    with (None until written)."""

    run: str | None
    group: int
    chunk: int
    start: int
    stop: int
    games: int
    hands: int
    timing: Timing
    rows: tuple[Row, ...]
    parquet: RecordsFile | None = None
    match_parquet: RecordsFile | None = None
    checksum: str | None = None

    def of_run(self, run: str) -> ChunkResult:
        return replace(self, run=run)

    def body(self) -> dict[str, Any]:
        """The document without its checksum, as the file holds it: its fields by name in
        their order (:data:`KEYS`), ``match_parquet`` where it names a file."""
        doc = {k: _plain(getattr(self, k)) for k in KEYS[:-1]}
        if self.match_parquet is None:
            del doc["match_parquet"]
        return doc

    def encode(self) -> bytes:
        """The ``.agg.json`` file: the body and its checksum, compact JSON."""
        doc = self.body()
        doc["checksum"] = checksum(doc)
        return (json.dumps(doc, separators=(",", ":")) + "\n").encode("utf-8")


#: the keys of a chunk's document: its fields, in the order they are written (``checksum``,
#: over the others, last)
KEYS = tuple(f.name for f in fields(ChunkResult))
#: the fields of the chunk a plan expects, checked before anything else of a received file
HEAD = KEYS[:6]


def _plain(x: object) -> object:
    """A field as JSON holds it (a Timing or RecordsFile an object, rows lists)."""
    if isinstance(x, Timing | RecordsFile):
        return asdict(x)
    if isinstance(x, tuple):
        return [list(r) for r in x]
    return x


@dataclass(frozen=True)
class Expected:
    """What the plan says of a chunk: which chunk of which run (``run``: the plan's
    fingerprint), the seats and rotations its rows may name, and whether the run keeps
    records."""

    run: str
    group: int
    chunk: int
    start: int
    stop: int
    games: int
    players: int
    rotations: tuple[int, ...]
    records: bool


class Files(NamedTuple):
    """The records files a chunk's document names (``match_parquet`` :data:`NOT_NAMED` where
    it holds something that is not one; ``hands`` its hands where they are a count, else 0),
    for the reader to check against the files."""

    parquet: RecordsFile | None
    match_parquet: RecordsFile | None
    hands: int


class Damaged(Exception):
    """A chunk's file that is not the chunk expected: ``reason``, one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def decode(
    data: bytes, expect: Expected, files: Callable[[Files], str | None] | None = None
) -> ChunkResult:
    """Chunk ``data`` (a ``.agg.json`` file's bytes) as its type, checked in this order: a
    JSON object whose checksum is its own, the chunk ``expect`` describes, its records files
    (``files``, the reader's check of them; None: not checked), counts a chunk of the plan can
    hold. :class:`Damaged` with the reason otherwise."""
    doc = _document(data)
    reason = _other_chunk(doc, expect)
    if reason is None and files is not None:
        reason = files(_files(doc))
    if reason is None:
        reason = check_counts(doc, expect.players, expect.rotations, expect.games)
    if reason is not None:
        raise Damaged(reason)
    timing = doc["timing"]
    return ChunkResult(
        run=expect.run,
        group=expect.group,
        chunk=expect.chunk,
        start=expect.start,
        stop=expect.stop,
        games=expect.games,
        hands=doc["hands"],
        timing=Timing(
            float(timing.get("cpu_seconds", 0.0)), float(timing.get("wall_seconds", 0.0))
        ),
        rows=tuple(Row(*r) for r in doc["rows"]),
        parquet=RecordsFile.decode(doc.get("parquet")),
        match_parquet=_match_part(doc.get("match_parquet")),
        checksum=doc["checksum"],
    )


def _document(data: bytes) -> dict:
    """The JSON object of a chunk's file whose checksum is its own."""
    try:
        doc = json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        raise Damaged(f"its aggregates file cannot be read ({type(e).__name__})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("checksum"), str):
        raise Damaged("its aggregates file has no checksum (damaged or from an older version)")
    body = {k: v for k, v in doc.items() if k != "checksum"}
    if checksum(body) != doc["checksum"]:
        raise Damaged("its aggregates file does not match its checksum (edited or damaged)")
    return doc


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON number")


def _other_chunk(doc: Mapping, expect: Expected) -> str | None:
    """Why a chunk's document is not of the chunk ``expect`` describes (another run's,
    another chunk's), or None."""
    if doc.get("run") != expect.run:
        return (
            "its aggregates file is of another run (another seed, rules, "
            "strategies or plan), or of an older version"
        )
    got = {k: doc.get(k) for k in HEAD[1:]}
    want = dict(
        zip(
            HEAD[1:],
            (expect.group, expect.chunk, expect.start, expect.stop, expect.games),
            strict=True,
        )
    )
    if got != want:
        return f"its aggregates file is of another chunk ({str(got)[:200]}), not this one"
    return None


def _match_part(part: object) -> RecordsFile | None:
    if part is None:
        return None
    return RecordsFile.decode(part) or NOT_NAMED


def _files(doc: Mapping) -> Files:
    hands = doc.get("hands")
    ok = isinstance(hands, int) and not isinstance(hands, bool) and 0 <= hands < 2**40
    return Files(
        RecordsFile.decode(doc.get("parquet")),
        _match_part(doc.get("match_parquet")),
        hands if ok else 0,
    )


def check_counts(doc: Mapping, players: int, rotations: Sequence[int], games: int) -> str | None:
    """None when a chunk's document (``rows``, ``hands``, ``timing``) holds counts a chunk of
    ``games`` games at ``players`` seats in ``rotations`` can have; else the reason (the chunk
    is played again, never merged)."""
    rows = doc.get("rows")
    if not isinstance(rows, list):
        return "its aggregates file is damaged (rows is not a list)"
    seen: dict[tuple, int] = {}
    for row in rows:
        reason = _row_problem(row, players, rotations)
        if reason is not None:
            return f"its aggregates file is damaged ({reason})"
        key = tuple(row[:5])
        if key in seen:
            return f"its aggregates file is damaged (row {list(key)} is listed twice)"
        seen[key] = row[5]
    return _timing_problem(doc.get("timing")) or _relation_problem(seen, doc.get("hands"), games)


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _row_problem(row: object, players: int, rotations: Sequence[int]) -> str | None:
    if not isinstance(row, list) or len(row) != 6:
        return f"row {_short(row)} is not [metric, rotation, seat, bin, pair, value]"
    metric, rotation, seat, bin_, pair, value = row
    if not isinstance(metric, str) or metric not in METRICS:
        return f"unknown metric {_short(metric)}"
    if not all(_is_int(x) for x in (rotation, seat, bin_, value)) or not isinstance(pair, str):
        return f"row {_short(row)} has a value of the wrong type"
    if rotation != -1 and rotation not in rotations or not -1 <= seat < players:
        return f"row {_short(row)} names a rotation or seat this chunk does not have"
    if not -1 <= bin_ <= MATCH_LEN_MAX or len(pair) > 1000:
        return f"row {_short(row)} is out of range"
    if abs(value) >= VALUE_LIMIT or (value < 0 and metric not in SIGNED):
        return f"row {_short(row)} holds an impossible count"
    return None


def _timing_problem(timing: object) -> str | None:
    if not isinstance(timing, dict):
        return "its aggregates file is damaged (timing)"
    for k in ("cpu_seconds", "wall_seconds"):
        x = timing.get(k, 0.0)
        if (
            isinstance(x, bool)
            or not isinstance(x, int | float)
            or not math.isfinite(x)
            or not 0 <= x < 1e12
        ):
            return f"its aggregates file is damaged (timing {k} {_short(x)})"
    return None


def _relation_problem(seen: dict, hands: object, games: int) -> str | None:
    def total(metric: str) -> int:
        return sum(v for k, v in seen.items() if k[0] == metric)

    if not _is_int(hands) or hands != total("hands"):
        return f"its aggregates count {total('hands')} hands, not {_short(hands)}"
    if total("matches") != games:
        return f"its aggregates count {total('matches')} matches, not the chunk's {games} games"
    if total("domino") + total("blocked") + total("target") != hands:
        return "its aggregates' hand ends do not add up to its hands"
    for small, large in AT_MOST:
        for key, v in seen.items():
            if key[0] == small and v > seen.get((large, *key[1:]), 0):
                return f"its aggregates count more {small} than {large} ({list(key)})"
    return None


def _short(x: object) -> str:
    text = " ".join(repr(x).split())
    return text if len(text) <= 60 else text[:57] + "..."
