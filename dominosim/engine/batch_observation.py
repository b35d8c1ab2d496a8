"""The Observation of a batch of decisions: the same fields as :class:`dominosim.observe.
Observation`, as arrays over the decisions.

Every field is a read-only copy that holds what the deciding seat may know and nothing else
(RULES §1.3): the batch Observation keeps no reference to the engine, to another seat's tiles
or to the stock, and a strategy's writes into its arrays raise (docs/strategies.md, "What a
strategy sees"). The seat, decision, own hand, open values and voids are copied when the batch
is asked; the public fields and the history on their first access, from the core's
``SeatSource`` (no Python reference to the engine), which the engine closes when the
strategy's ``choose`` returns: a field first read after that raises a StrategyError
(docs/design.md, "The history in the core").
"""

from __future__ import annotations

import struct
from array import array
from functools import cached_property
from typing import Any

import numpy as np

from dominosim.base.errors import StrategyError
from dominosim.engine import kernel, tables
from dominosim.game.observe import Event, Observation

_POS_NAMES = ("L", "R", "W", "E", "N", "S")
_U16 = np.uint16


def _frozen(a: Any) -> np.ndarray:
    """``a`` as an array of its own that cannot be written."""
    out = np.array(a, copy=True)
    out.flags.writeable = False
    return out


class BatchObservation:
    """What each deciding seat may know, for a batch of decisions.

    Array attributes (first axis: decisions): ``seat``, ``hand`` (packed 64-bit own hand),
    ``hand_mask`` (28-bit), ``values`` (``[n, K]`` open position values, -1 closed),
    ``table`` (28-bit), ``counts`` (``[n, P]``), ``voids`` (``[n, P]`` 7-bit value masks),
    ``stock_size``, ``drawable``, ``scores`` (``[n, sides]``), ``penalties`` (``[n, P]``),
    ``leader``, ``match_id``, ``hand_index``, ``decision``; for end counts ``doubles`` and
    ``along`` (``[n, K]``: the end is formed by a double, laid along), ``table_count``,
    ``spinner`` (-1 none) and ``covered`` (4-bit mask of W E N S). The hand's public history
    (:meth:`history_arrays`): ``history_len`` (``[n]``), ``history_kind``, ``history_seat``,
    ``history_tile``, ``history_pos`` (``[n, L]``, -1 where none or hidden) and
    ``history_along``; ``kernel.EV_KINDS`` names the kinds. ``rules`` and ``phase`` are shared.
    :meth:`row` gives one decision as an :class:`~dominosim.observe.Observation`.

    Valid while the strategy's ``choose`` runs: the public fields (together) and the history
    are read on first access; what was read stays, a first read after ``choose`` returned
    raises a StrategyError.
    """

    # the array fields, first axis the decisions (take() selects rows of each)
    # fmt: off
    _FIELDS = ("seat", "decision", "hand", "values", "table", "counts", "voids", "stock_size",
               "drawable", "scores", "penalties", "leader", "match_id", "hand_index",
               "doubles", "along", "table_count", "spinner", "covered", "_history",
               "_rows", "face_up", "_face_up_held", "opened")
    # fmt: on

    def __init__(
        self,
        engine: Any,
        g: np.ndarray,
        seats: np.ndarray,
        phase: str,
        decision: np.ndarray | None = None,
        known: dict | None = None,
    ) -> None:
        # ``known``: fields the caller already holds (the kernel's decision lists), by name.
        self.rules = engine.r
        self.phase = phase
        e, g = engine, np.asarray(g)
        seats = np.asarray(seats)
        known = known or {}
        put = self.__dict__
        put["seat"] = _frozen(seats)
        put["decision"] = _frozen(e.state.decision[g] if decision is None else decision)
        put["hand"] = _frozen(known["hand"] if "hand" in known else _own_hand(e, g, seats))
        put["values"] = _frozen(known["values"] if "values" in known else e.state.vals[g])
        put["voids"] = _frozen(known["voids"] if "voids" in known else e.state.voids[g])
        # the public fields and the history: read from the engine on first access, while the
        # strategy's choose runs (_source; close() when it returns)
        put["_src"] = _source(e, g, seats)
        if e.blind:
            for name, value in _blind_fields(e, g, seats).items():
                put[name] = _frozen(value)

    def __getattr__(self, name: str) -> Any:
        # (only for what the instance does not hold yet: a public field or the history,
        # read now from the engine while the strategy's choose runs)
        if name in _LAZY:
            src = self.__dict__.get("_src")
            if src is None or src.closed:
                raise StrategyError(
                    f"the batch Observation's field '{name.lstrip('_')}' was first read after "
                    "the strategy's choose returned: a batch Observation is valid only while "
                    "choose runs; read (or copy) the fields you need inside choose"
                )
            if name == "_history":
                self.__dict__["_history"] = src.history(len(self.seat))
            else:
                self.__dict__.update(src.public_fields(len(self.seat)))
            return self.__dict__[name]
        raise AttributeError(f"'BatchObservation' object has no attribute '{name}'")

    # ---- a strategy in a process of its own (dominosim/runner/isolated.py) ---------------
    def held_fields(self) -> dict[str, np.ndarray]:
        """The fields this batch Observation holds now (those copied when it was built, and
        those read since), by name: what the engine sends an isolated strategy's process."""
        return {k: self.__dict__[k] for k in self._FIELDS if k in self.__dict__}

    def lazy_fields(self, part: str) -> dict[str, np.ndarray]:
        """The fields read on first access, read now (while the strategy's choose runs):
        ``part`` "public" (the public fields) or "history" (the history codes)."""
        if part == "history":
            return {"_history": self._history}
        self.table  # noqa: B018 - (reads the public fields together)
        return {k: self.__dict__[k] for k in _LAZY if k != "_history"}

    @classmethod
    def from_fields(cls, rules: Any, phase: str, fields: dict, source: Any) -> BatchObservation:
        """A batch Observation of ``fields`` (:meth:`held_fields` of the engine's), whose
        fields read on first access come from ``source`` (an object with ``closed``,
        ``close()``, ``take(rows)``, ``public_fields(n)`` and ``history(n)``, as the core's):
        an isolated strategy's process builds it (dominosim/runner/isolated.py)."""
        obs = cls.__new__(cls)
        obs.rules, obs.phase = rules, phase
        obs.__dict__.update(fields)
        obs.__dict__["_src"] = source
        return obs

    def _close(self) -> None:
        """The strategy's choose has returned: fields not read by now can no longer be."""
        src = self.__dict__.get("_src")
        if src is not None:
            src.close()

    def __len__(self) -> int:
        return len(self.seat)

    @cached_property
    def hand_mask(self) -> np.ndarray:
        return _frozen(tables.mask28_of(self.hand))

    # ---- in-play points ------------------------------------------------------------------
    def placement_points(self, action: np.ndarray) -> np.ndarray:
        """The in-play points each of ``action`` (``[n, W]`` codes, row ``i`` decision ``i``'s)
        would score for the placer's side if played now (``scoring.placement_points``; 0 for
        draw, pass, stop and the padding -1), ``[n, W]`` int64, computed by the core
        (``LegalArrays.points``). While ``choose`` runs and the public fields are unread, the
        core reads the open ends from the engine's records itself (``SeatSource.points``)."""
        action = _c64(action)
        out = np.zeros(action.shape, dtype=np.int64)
        if self.rules.scoring == "none" or action.shape[1] == 0:
            return out
        how = kernel.points_how(self.rules)
        src = self.__dict__.get("_src")
        direct = src is not None and not src.closed and hasattr(src, "point_columns")
        if "doubles" in self.__dict__ or not direct:  # (an isolated strategy's: the fields)
            kernel.legal_points(*points_inputs(self), how, action, out)
        else:
            src.core.points(_c64(self.values), src.point_columns(), how, action, out)
        return out

    # ---- the hand's public history ------------------------------------------------------
    @cached_property
    def history_len(self) -> np.ndarray:
        """[n] the number of public events of the hand so far, per decision."""
        return _frozen(self._history[:, 0].astype(np.int64))

    def history_arrays(self) -> dict[str, np.ndarray]:
        """The history as arrays ``[n, L]`` (L: the longest history of the batch), padded
        with -1: ``kind`` (``kernel.EV_*``; ``kernel.EV_KINDS`` names them), ``seat`` (-1:
        the starting tile), ``tile`` (-1: none, or hidden from this seat), ``pos`` (0..5 for
        ``L R W E N S``, -1 none) and ``along``."""
        return self._decoded

    @property
    def history_kind(self) -> np.ndarray:
        return self._decoded["kind"]

    @property
    def history_seat(self) -> np.ndarray:
        return self._decoded["seat"]

    @property
    def history_tile(self) -> np.ndarray:
        return self._decoded["tile"]

    @property
    def history_pos(self) -> np.ndarray:
        return self._decoded["pos"]

    @property
    def history_along(self) -> np.ndarray:
        return self._decoded["along"]

    @cached_property
    def _decoded(self) -> dict[str, np.ndarray]:
        codes = self._history[:, 1:].astype(np.int64)
        present = np.arange(codes.shape[1]) < self._history[:, :1]
        field = {
            "kind": (kernel.EV_KIND_SHIFT, 15, None),
            "seat": (kernel.EV_SEAT_SHIFT, 7, kernel.EV_NO_SEAT),
            "tile": (kernel.EV_TILE_SHIFT, 31, kernel.EV_NO_TILE),
            "pos": (kernel.EV_POS_SHIFT, 7, kernel.EV_NO_POS),
        }
        out = {}
        for name, (shift, bits, none) in field.items():
            v = codes >> shift & bits
            if none is not None:
                v = np.where(v == none, -1, v)
            out[name] = _frozen(np.where(present, v, -1).astype(np.int8))
        out["along"] = _frozen(present & (codes >> kernel.EV_ALONG_SHIFT & 1).astype(bool))
        return out

    def history(self, i: int) -> tuple[Event, ...]:
        """Decision ``i``'s history as the per-decision Observation gives it."""
        h = self._history[i].tolist()
        return tuple(map(_EVENTS.__getitem__, h[1 : 1 + h[0]]))

    # ---- selections and rows ------------------------------------------------------------
    def take(self, rows: np.ndarray) -> BatchObservation:
        sub = BatchObservation.__new__(BatchObservation)
        sub.rules, sub.phase = self.rules, self.phase
        for k in self._FIELDS:
            if k in self.__dict__:
                sub.__dict__[k] = _frozen(self.__dict__[k][rows])
        src = self.__dict__.get("_src")
        if src is not None and not all(k in self.__dict__ for k in _LAZY):
            rows = np.arange(len(self))[rows]  # (any index: as int64 rows)
            sub.__dict__["_src"] = src.take(np.ascontiguousarray(rows, dtype=np.int64))
        return sub

    def row(self, i: int) -> Observation:
        """Decision ``i`` as an :class:`~dominosim.observe.Observation` (read lazily from a
        copy of its row of numbers: it holds nothing of the batch)."""
        how, buf = self._row_data
        w = how.row_bytes
        self.__dict__["_read"] = i
        return _lazy(how, buf[i * w : (i + 1) * w])

    def rows(self) -> list[Observation]:
        """Every decision as an :class:`~dominosim.observe.Observation`, in order (``row(i)``
        for each ``i``)."""
        how, buf = self._row_data
        w = how.row_bytes
        return [_lazy(how, buf[k : k + w]) for k in range(0, len(buf), w)]

    @cached_property
    def _row_data(self) -> tuple[_RowFormat, bytes]:
        """How a decision's fields lie in its row, and the rows one after the other: the
        batch's columns side by side as int64, then its history codes as uint16 (a decision's
        Observation gets a copy of its own row, a ``bytes``: an object the garbage collector
        need not track)."""
        n = len(self.seat)
        scalars = [self.seat, self.hand_mask, self.table, self.stock_size, self.drawable]
        scalars += [self.leader, self.match_id, self.hand_index, self.decision, self.spinner]
        scalars.append(self.covered)
        blocks = {
            "values": self.values,
            "doubles": self.doubles,
            "along": self.along,
            "counts": self.counts,
            "voids": self.voids,
            "scores": self.scores,
            "penalties": self.penalties,
        }
        if "_rows" in self.__dict__:  # blind
            scalars.append(self.face_up)
            blocks.update(opened=self.opened, held=self._face_up_held, rows=self._rows)
        width = len(scalars) + sum(b.shape[1] for b in blocks.values())
        hist = self._history
        rec = np.empty(n, dtype=[("i", np.int64, (width,)), ("h", _U16, (hist.shape[1],))])
        table = rec["i"]
        for j, col in enumerate(scalars):
            table[:, j] = col
        at, spans = len(scalars), {}
        for name, b in blocks.items():
            spans[name] = (at, at + b.shape[1])
            table[:, at : at + b.shape[1]] = b
            at += b.shape[1]
        rec["h"] = hist
        spans["history"] = (width, width + hist.shape[1])
        blind = "_rows" in self.__dict__
        how = _RowFormat(self.rules, self.phase, spans, blind, 8 * width, rec.dtype.itemsize)
        return how, rec.tobytes()

    def answers(self, choose_one: Any, legal: Any, keys: np.ndarray) -> list:
        """``choose_one(self.row(i), legal.row_list(i), int(keys[i]))`` for each decision
        ``i``, in order (the default ``Strategy.choose``). One loop makes each decision's
        Observation and list, asks, and lets them go before the next (unless the strategy
        keeps them): no object per decision outlives its question, so no garbage collection
        runs on their account."""
        how, buf = self._row_data
        w = how.row_bytes
        flat, starts = legal._flat()
        ks = keys.tolist()
        out = [None] * len(ks)
        at = i = 0
        try:
            for i, key in enumerate(ks):
                o = _new(Observation)
                _set_raw(o, buf[at : at + w])
                _set_how(o, how)
                _set_pts(o, None)
                at += w
                out[i] = choose_one(o, flat[starts[i] : starts[i + 1]], key)
        except BaseException:
            self.__dict__["_failed"] = i  # (the decision it failed at: --debug names it)
            raise
        return out

    @property
    def asked(self) -> int:
        """The decision a strategy's ``choose`` was at when it raised: the one ``answers``
        was asking, else the last :meth:`row` it read (else the first)."""
        return self.__dict__.get("_failed", self.__dict__.get("_read", 0))


def points_inputs(obs: BatchObservation) -> tuple[np.ndarray, ...]:
    """A batch's open ends as the core's ``kernel.legal_points`` reads them: values, doubles,
    along, spinner, covered, table."""
    return (
        _c64(obs.values),
        np.ascontiguousarray(obs.doubles, dtype=np.int8),
        np.ascontiguousarray(obs.along, dtype=np.int8),
        _c64(obs.spinner),
        _c64(obs.covered),
        _c64(obs.table),
    )


def _c64(a: Any) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


# ---- one decision's Observation, read from its row on access ------------------------------
_new = object.__new__
_set_raw = Observation.__mro__[1].__dict__["_raw"].__set__
_set_how = Observation.__mro__[1].__dict__["_how"].__set__
_set_pts = Observation.__mro__[1].__dict__["_pts"].__set__


def _lazy(how: _RowFormat, raw: bytes) -> Observation:
    """An Observation whose fields ``how`` reads from ``raw`` on first access."""
    o = _new(Observation)
    _set_raw(o, raw)
    _set_how(o, how)
    _set_pts(o, None)
    return o


def _bit_tables() -> list[tuple[tuple[int, ...], ...]]:
    """Per 7-bit chunk ``c`` of a 28-bit tile mask, the tiles of each of its 128 values."""
    return [
        tuple(tuple(7 * c + b for b in range(7) if m >> b & 1) for m in range(128))
        for c in range(4)
    ]


_B0, _B1, _B2, _B3 = _bit_tables()
_VOIDS = tuple(frozenset(v for v in range(7) if m >> v & 1) for m in range(128))
_COVERED = tuple(tuple(s for j, s in enumerate("WENS") if m >> j & 1) for m in range(16))


def _tiles_of(m: int) -> tuple[int, ...]:
    """The tiles of a 28-bit mask, in index order."""
    return _B0[m & 127] + _B1[m >> 7 & 127] + _B2[m >> 14 & 127] + _B3[m >> 21 & 127]


class _Events(dict):
    """History code (kernel.EV_*) -> its Event, decoded once (an Event is immutable)."""

    def __missing__(self, code: int) -> Event:
        seat = code >> kernel.EV_SEAT_SHIFT & 7
        tile = code >> kernel.EV_TILE_SHIFT & 31
        pos = code >> kernel.EV_POS_SHIFT & 7
        ev = Event(
            None if seat == kernel.EV_NO_SEAT else seat,
            kernel.EV_KINDS[code >> kernel.EV_KIND_SHIFT],
            None if tile == kernel.EV_NO_TILE else tile,
            None if pos == kernel.EV_NO_POS else _POS_NAMES[pos],
            bool(code >> kernel.EV_ALONG_SHIFT & 1),
        )
        self[code] = ev
        return ev


_EVENTS = _Events()  # (at most 2**16 codes)

# the scalar columns of a row (BatchObservation._row_data), in order
_SEAT, _HAND, _TABLE, _STOCK, _DRAWABLE, _LEADER, _MATCH, _HAND_INDEX, _DECISION = range(9)
_SPINNER, _COVERED_AT, _FACE_UP = 9, 10, 11


_INT = struct.Struct("=q")
_COUNT = struct.Struct("=H")


def _at(raw: bytes, j: int) -> int:
    """Column ``j`` of a row's int64 part."""
    return _INT.unpack_from(raw, 8 * j)[0]


class _RowFormat:
    """How an Observation's fields are read from its decision's row (``raw``): shared by the
    decisions of a batch; holds the rules, the phase and the columns, nothing of a game."""

    # fmt: off
    __slots__ = ("rules", "phase", "blind", "int_bytes", "row_bytes", "_blocks", "_readers",
                 "_points_args")
    # fmt: on

    def __init__(
        self, rules: Any, phase: str, spans: dict, blind: bool, int_bytes: int, row_bytes: int
    ) -> None:
        self.rules, self.phase, self.blind = rules, phase, blind
        self.int_bytes, self.row_bytes = int_bytes, row_bytes  # (the int64 part, the whole)
        # per int64 block: how to unpack it, and its byte offset
        self._blocks = {
            name: (struct.Struct(f"={b - a}q"), 8 * a)
            for name, (a, b) in spans.items()
            if name != "history"
        }
        self._readers = {
            name: getattr(self, "_" + name)
            for name in Observation.__dataclass_fields__
            if hasattr(self, "_" + name)
        }
        self._points_args = self._points_of_row(spans)

    def _points_of_row(self, spans: dict) -> tuple | None:
        """``kernel.points_row``'s arguments after the row: how the rules score, the number of
        positions and the columns of the open ends (None: no in-play points)."""
        if self.rules.scoring == "none":
            return None
        (v, end), d, a = spans["values"], spans["doubles"][0], spans["along"][0]
        how = kernel.points_how(self.rules)
        return (how, end - v, v, d, a, _SPINNER, _COVERED_AT, _TABLE)

    def __call__(self, name: str, raw: bytes) -> Any:
        """Field ``name`` of the row ``raw`` (only the numbers it needs are unpacked)."""
        try:
            read = self._readers[name]
        except KeyError:
            raise AttributeError(f"'Observation' object has no attribute '{name}'") from None
        return read(raw)

    def points_table(self, obs: Observation) -> bytes:
        """``obs``'s points table, kept in it (``scoring.placement_points`` reads it): per
        placement code, the points it scores if played now, ``kernel.PT_TABLE_NONE`` where the
        definition answers (a position not open, a tile that does not fit it), written by the
        core from the decision's row (``kernel.points_row``); empty without in-play points."""
        args = self._points_args
        table = b"" if args is None else kernel.points_row(obs._raw, *args)
        _set_pts(obs, table)
        return table

    def _block(self, name: str, raw: bytes) -> tuple[int, ...]:
        unpack, at = self._blocks[name]
        return unpack.unpack_from(raw, at)

    def _open(self, name: str, raw: bytes) -> tuple[bool, ...]:
        """A per-position block, over the open positions."""
        vals = self._block("values", raw)
        return tuple(bool(x) for x, v in zip(self._block(name, raw), vals, strict=True) if v >= 0)

    def _rules(self, raw):
        return self.rules

    def _phase(self, raw):
        return self.phase

    def _seat(self, raw):
        return _at(raw, _SEAT)

    def _partner(self, raw):
        return (_at(raw, _SEAT) + 2) % 4 if self.rules.partnership else None

    def _hand(self, raw):
        if self.blind:
            return tuple(x for x in self._row(raw) if x is not None)
        return _tiles_of(_at(raw, _HAND))

    def _row(self, raw):
        if not self.blind:
            return None
        return tuple(None if x == -2 else x for x in self._block("rows", raw) if x != -1)

    def _positions(self, raw):
        return tuple((_POS_NAMES[k], v) for k, v in enumerate(self._block("values", raw)) if v >= 0)

    def _table(self, raw):
        return _tiles_of(_at(raw, _TABLE))

    def _counts(self, raw):
        return self._block("counts", raw)

    def _voids(self, raw):
        return tuple(_VOIDS[m] for m in self._block("voids", raw))

    def _face_up(self, raw):
        return _tiles_of(_at(raw, _FACE_UP)) if self.blind else ()

    def _face_up_seats(self, raw):
        if not self.blind:
            return ()
        held = self._block("held", raw)
        return tuple(next(s for s, h in enumerate(held) if h >> x & 1) for x in self._face_up(raw))

    def _opened(self, raw):
        return tuple(bool(x) for x in self._block("opened", raw)) if self.blind else ()

    def _stock_size(self, raw):
        return _at(raw, _STOCK)

    def _drawable(self, raw):
        return _at(raw, _DRAWABLE)

    def _scores(self, raw):
        return self._block("scores", raw)

    def _penalties(self, raw):
        return self._block("penalties", raw)

    def _leader(self, raw):
        return _at(raw, _LEADER)

    def _match_id(self, raw):
        return _at(raw, _MATCH)

    def _hand_index(self, raw):
        return _at(raw, _HAND_INDEX)

    def _decision(self, raw):
        return _at(raw, _DECISION)

    def _doubles(self, raw):
        return self._open("doubles", raw)

    def _along(self, raw):
        return self._open("along", raw)

    def _spinner(self, raw):
        return _at(raw, _SPINNER) if _at(raw, _SPINNER) >= 0 else None

    def _covered(self, raw):
        return _COVERED[_at(raw, _COVERED_AT)]

    def _history(self, raw):
        at = self.int_bytes
        n = _COUNT.unpack_from(raw, at)[0]
        return tuple(map(_EVENTS.__getitem__, array("H", raw[at + 2 : at + 2 + 2 * n])))


# ---- what the engine's state shows a seat -------------------------------------------------
def _own_hand(e: Any, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The seat's own hand, packed; in blind only the row tiles it has seen (§3.2)."""
    h = e.state.hands[g, seats]
    if e.blind:
        seen = np.where(e.state.opened[g, seats], tables.ALL28, e.state.known[g, seats])
        h = h & tables.pack28(seen)
    return h


# the public fields: (name in the Observation, the engine's state array); each a view of the
# engine's slot records, gathered for the asked slots in one pass by the core
_PUBLIC = (
    ("table", "table"),
    ("stock_size", "sp"),
    ("drawable", "send"),
    ("penalties", "penalties"),
    ("leader", "leader"),
    ("match_id", "match"),
    ("hand_index", "hand_idx"),
    ("doubles", "dbl"),
    ("along", "alg"),
    ("table_count", "ntable"),
    ("spinner", "spin"),
    ("covered", "cov"),
)
# what a batch Observation reads on first access (BatchObservation.__getattr__)
_LAZY = frozenset([name for name, _ in _PUBLIC] + ["scores", "counts", "_history"])


def _source(e: Any, g: np.ndarray, seats: np.ndarray) -> _Source:
    """The public fields and the history of slots ``g`` by ``seats``, to be read on first
    access: the core's source (kernel.seat_source) holds the engine's records and history rows
    as buffers, no Python reference to them, and gives out only what the seats may see (a
    hand as its tile count); the spans say which of its columns make which field."""
    plan, hist = e.observe_plan(), e.history_buffer()
    core = kernel.seat_source(
        plan.raw,
        np.ascontiguousarray(g, dtype=np.int64),
        np.ascontiguousarray(seats, dtype=np.int64),
        plan.offsets,
        plan.widths,
        None if hist is None or hist.shape[1] == 0 else hist,
        e.r.blind_unplayable_double_face_up,
    )
    return _Source(core, plan.spans, e.kozel)


class _Source:
    """A batch Observation's source (the core's, closed when the strategy's choose returns)
    and how its gathered columns make the fields: names, columns, dtypes; no engine."""

    __slots__ = ("core", "spans", "kozel")

    def __init__(self, core: Any, spans: tuple, kozel: bool) -> None:
        self.core, self.spans, self.kozel = core, spans, kozel

    @property
    def closed(self) -> bool:
        return self.core.closed

    def close(self) -> None:
        self.core.close()

    def take(self, rows: np.ndarray) -> _Source:
        return _Source(self.core.take(rows), self.spans, self.kozel)

    def point_columns(self) -> np.ndarray:
        """The columns of the points' fields among the gathered ones (``SeatSource.points``):
        doubles, along (one per position), spinner, covered, table."""
        at = {name: (k, cols) for name, k, cols, _, _ in self.spans}
        cols = [at["doubles"][0] + j for j in range(at["doubles"][1])]
        cols += [at["along"][0] + j for j in range(at["along"][1])]
        cols += [at[name][0] for name in ("spinner", "covered", "table")]
        return np.array(cols, dtype=np.int64)

    def public_fields(self, n: int) -> dict[str, np.ndarray]:
        """The fields every seat sees alike, as arrays of their own that cannot be written."""
        width = self.spans[-1][1] + self.spans[-1][2]
        out = np.empty((n, width), dtype=np.int64)
        self.core.fields(out)
        got = {}
        for name, k, cols, ndim, dtype in self.spans:
            col = out[:, k] if ndim == 1 else out[:, k : k + cols]
            got[name] = col.astype(dtype)  # (a copy: each array its own)
        sp = got["stock_size"]
        got["drawable"] = got["drawable"] - sp
        got["stock_size"] = 28 - sp
        if self.kozel:
            got["scores"] = np.where(got["scores"] < 0, 0, got["scores"])
        for a in got.values():
            a.flags.writeable = False
        return got

    def history(self, n: int) -> np.ndarray:
        """``[n, 1 + L]``: per decision its count, then the hand's events (kernel.EV_*) with
        the tiles its seat may not see cleared to ``EV_NO_TILE`` (the core's seat_history,
        one pass); L the longest history here."""
        most = self.core.history_width()
        if most == kernel.EV_OVERFLOW:
            raise RuntimeError("a hand's history passed kernel.history_bound: report this bug")
        out = np.empty((n, 1 + most), dtype=_U16)
        self.core.history(out)
        out.flags.writeable = False
        return out


def fields_plan(state: Any, kozel: bool) -> _Fields:
    """The public fields' (and the hands' counts') places in the slot records of ``state``
    (``arrays.SlotArrays``), made once per engine (``BatchEngine.observe_plan``)."""
    views = {name: getattr(state, attr) for name, attr in _PUBLIC}
    views["scores"] = state.written if kozel else state.scores
    views["counts"] = state.hands
    return _Fields(state.records, views)


class _Fields:
    """Views of an engine's slot records (each a field, one row per slot): where the core
    gathers them (byte offsets and widths; ``counts``: the tile count of each packed hand) and
    how its columns make the fields (``spans``: as numpy's ``view[g]`` gives them, the counts
    int64)."""

    def __init__(self, records: np.ndarray, views: dict[str, np.ndarray]) -> None:
        base = records.ctypes.data
        size = records.dtype.itemsize
        self.raw = records.view(np.uint8).reshape(len(records), size)
        offsets, widths, spans = [], [], []
        for name, v in views.items():
            if v.strides[0] != size or v.dtype.itemsize not in (1, 8) or v.ndim > 2:
                raise RuntimeError(f"the engine's {name} is not a field of its slot records")
            cols = 1 if v.ndim == 1 else v.shape[1]
            step = v.strides[1] if v.ndim == 2 else 0
            start = v.ctypes.data - base
            dtype = np.dtype(np.int64) if name == "counts" else v.dtype
            spans.append((name, len(offsets), cols, v.ndim, dtype))
            offsets += [start + j * step for j in range(cols)]
            width = kernel.GF_INT8 if v.dtype.itemsize == 1 else kernel.GF_INT64
            widths += [kernel.GF_COUNT if name == "counts" else width] * cols
        self.spans = tuple(spans)
        self.offsets, self.widths = np.array(offsets, np.int64), np.array(widths, np.int64)


def _blind_fields(e: Any, g: np.ndarray, seats: np.ndarray) -> dict[str, np.ndarray]:
    """Blind's rows: the seat's row front to back (-2: a tile it has not seen, -1: padding),
    the face-up tiles and, per seat, which of them its row holds; the opened rows."""
    rb = kernel.RB
    j = np.arange(rb)
    head, span = e.state.head[g, seats], e.state.span[g, seats]
    buf = e.state.buf[g, seats]  # [n, RB]
    ring = np.take_along_axis(buf, (head[:, None] + j) % rb, axis=1).astype(np.int64)
    ring = np.where(j < span[:, None], ring, -1)
    seen_mask = np.where(e.state.opened[g, seats], tables.ALL28, e.state.known[g, seats])
    seen = (seen_mask[:, None] >> np.maximum(ring, 0)) & 1
    rows = np.where((ring >= 0) & (seen == 0), -2, ring)
    # (holes the open phase leaves, -1 inside the span, are dropped as padding)
    face_up = e.state.face_up[g]
    held = tables.mask28_of(e.state.hands[g]) & face_up[:, None]
    return {
        "_rows": rows.astype(np.int8),
        "face_up": face_up,
        "_face_up_held": held,
        "opened": e.state.opened[g],
    }
