"""The Observation of a batch of decisions: the same fields as :class:`dominosim.observe.
Observation`, as arrays over the decisions.

Every field is read from the engine when the batch is asked, as a read-only copy that holds
what the deciding seat may know and nothing else (RULES §1.3): the batch Observation keeps no
reference to the engine, to another seat's tiles or to the stock, and a strategy's writes into
its arrays raise (docs/strategies.md, "What a strategy sees").
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ..observe import Event, Observation
from . import kernel, tables

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
        put["decision"] = _frozen(e.decision[g] if decision is None else decision)
        put["hand"] = _frozen(known["hand"] if "hand" in known else _own_hand(e, g, seats))
        put["values"] = _frozen(known["values"] if "values" in known else e.vals[g])
        put["voids"] = _frozen(known["voids"] if "voids" in known else e.voids[g])
        for name, value in _public_fields(e, g).items():
            put[name] = _frozen(value)
        put["_history"] = _frozen(_seat_history(e, g, seats))
        if e.blind:
            for name, value in _blind_fields(e, g, seats).items():
                put[name] = _frozen(value)

    def __len__(self) -> int:
        return len(self.seat)

    @cached_property
    def hand_mask(self) -> np.ndarray:
        return _frozen(tables.mask28_of(self.hand))

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
        h = self._history[i]
        out = []
        for code in h[1 : 1 + int(h[0])].tolist():
            seat = code >> kernel.EV_SEAT_SHIFT & 7
            tile = code >> kernel.EV_TILE_SHIFT & 31
            pos = code >> kernel.EV_POS_SHIFT & 7
            out.append(
                Event(
                    None if seat == kernel.EV_NO_SEAT else seat,
                    kernel.EV_KINDS[code >> kernel.EV_KIND_SHIFT],
                    None if tile == kernel.EV_NO_TILE else tile,
                    None if pos == kernel.EV_NO_POS else _POS_NAMES[pos],
                    bool(code >> kernel.EV_ALONG_SHIFT & 1),
                )
            )
        return tuple(out)

    # ---- selections and rows ------------------------------------------------------------
    def take(self, rows: np.ndarray) -> BatchObservation:
        sub = BatchObservation.__new__(BatchObservation)
        sub.rules, sub.phase = self.rules, self.phase
        for k in self._FIELDS:
            if k in self.__dict__:
                sub.__dict__[k] = _frozen(self.__dict__[k][rows])
        return sub

    def row(self, i: int) -> Observation:
        r = self.rules
        seat = int(self.seat[i])
        m = int(self.hand_mask[i])
        t = int(self.table[i])
        row, face_up, face_up_seats, opened = None, (), (), ()
        own = tuple(x for x in range(28) if m >> x & 1)
        if "_rows" in self.__dict__:
            row = tuple(None if x == -2 else int(x) for x in self._rows[i] if x != -1)
            own = tuple(x for x in row if x is not None)
            fu = int(self.face_up[i])
            face_up = tuple(x for x in range(28) if fu >> x & 1)
            held = [int(h) for h in self._face_up_held[i]]
            face_up_seats = tuple(
                next(s for s, h in enumerate(held) if h >> x & 1) for x in face_up
            )
            opened = tuple(bool(x) for x in self.opened[i])
        return Observation(
            rules=r,
            seat=seat,
            partner=(seat + 2) % 4 if r.partnership else None,
            hand=own,
            row=row,
            positions=tuple(
                (_POS_NAMES[k], int(v)) for k, v in enumerate(self.values[i]) if v >= 0
            ),
            table=tuple(x for x in range(28) if t >> x & 1),
            counts=tuple(int(c) for c in self.counts[i]),
            voids=tuple(frozenset(v for v in range(7) if int(m7) >> v & 1) for m7 in self.voids[i]),
            face_up=face_up,
            face_up_seats=face_up_seats,
            opened=opened,
            stock_size=int(self.stock_size[i]),
            drawable=int(self.drawable[i]),
            scores=tuple(int(x) for x in self.scores[i]),
            penalties=tuple(int(x) for x in self.penalties[i]),
            leader=int(self.leader[i]),
            match_id=int(self.match_id[i]),
            hand_index=int(self.hand_index[i]),
            decision=int(self.decision[i]),
            phase=self.phase,
            history=self.history(i),
            **self._layout_view(i),
        )

    def _layout_view(self, i: int) -> dict:
        """Per open position: formed by a double, laid along; the spinner (for end counts)."""
        open_ = [k for k in range(len(self.values[i])) if self.values[i, k] >= 0]
        spin = int(self.spinner[i])
        cov = int(self.covered[i])
        return dict(
            doubles=tuple(bool(self.doubles[i, k]) for k in open_),
            along=tuple(bool(self.along[i, k]) for k in open_),
            spinner=spin if spin >= 0 else None,
            covered=tuple(s for j, s in enumerate("WENS") if cov >> j & 1),
        )


# ---- what the engine's state shows a seat -------------------------------------------------
def _own_hand(e: Any, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """The seat's own hand, packed; in blind only the row tiles it has seen (§3.2)."""
    h = e.hands[g, seats]
    if e.blind:
        seen = np.where(e.opened[g, seats], tables.ALL28, e.known[g, seats])
        h = h & tables.pack28(seen)
    return h


def _public_fields(e: Any, g: np.ndarray) -> dict[str, np.ndarray]:
    """The fields every seat sees alike."""
    scores = e.scores[g]
    if e.kozel:
        w = e.written[g]
        scores = np.where(w < 0, 0, w)
    return {
        "table": e.table[g],
        "counts": tables.count_of(e.hands[g]),
        "stock_size": 28 - e.sp[g],
        "drawable": e.send[g] - e.sp[g],
        "scores": scores,
        "penalties": e.penalties[g],
        "leader": e.leader[g],
        "match_id": e.match[g],
        "hand_index": e.hand_idx[g],
        "doubles": e.dbl[g],
        "along": e.alg[g],
        "table_count": e.ntable[g],
        "spinner": e.spin[g],
        "covered": e.cov[g],
    }


def _seat_history(e: Any, g: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``[n, 1 + L]``: per decision its count, then the hand's events (kernel.EV_*) with the
    tiles its seat may not see cleared to ``EV_NO_TILE``; L the longest history here."""
    hist = e.history_rows(g)
    if hist is None:
        return np.zeros((len(g), 1), dtype=_U16)
    n = hist[:, 0].astype(np.int64)
    if (n == kernel.EV_OVERFLOW).any():
        raise RuntimeError("a hand's history passed kernel.history_bound: report this bug")
    width = int(n.max()) if len(n) else 0
    codes = hist[:, 1 : 1 + width].astype(np.int64)
    codes = np.where(np.arange(width) < n[:, None], codes, 0)
    kind = codes >> kernel.EV_KIND_SHIFT
    who = codes >> kernel.EV_SEAT_SHIFT & 7
    tile = codes >> kernel.EV_TILE_SHIFT & 31
    private = np.isin(kind, (kernel.EV_DRAW, kernel.EV_LOOK, kernel.EV_TO_BACK))
    hidden = private & (who != seats[:, None])
    if e.r.blind_unplayable_double_face_up:  # a double sent back lies face up (§15)
        face_up = (kind == kernel.EV_TO_BACK) & tables.IS_DOUBLE[np.minimum(tile, 27)]
        hidden &= ~face_up
    codes = np.where(hidden, codes | kernel.EV_NO_TILE << kernel.EV_TILE_SHIFT, codes)
    out = np.empty((len(g), 1 + width), dtype=_U16)
    out[:, 0] = n
    out[:, 1:] = codes
    return out


def _blind_fields(e: Any, g: np.ndarray, seats: np.ndarray) -> dict[str, np.ndarray]:
    """Blind's rows: the seat's row front to back (-2: a tile it has not seen, -1: padding),
    the face-up tiles and, per seat, which of them its row holds; the opened rows."""
    rb = kernel.RB
    j = np.arange(rb)
    head, span = e.head[g, seats], e.span[g, seats]
    buf = e.buf[g, seats]  # [n, RB]
    ring = np.take_along_axis(buf, (head[:, None] + j) % rb, axis=1).astype(np.int64)
    ring = np.where(j < span[:, None], ring, -1)
    seen_mask = np.where(e.opened[g, seats], tables.ALL28, e.known[g, seats])
    seen = (seen_mask[:, None] >> np.maximum(ring, 0)) & 1
    rows = np.where((ring >= 0) & (seen == 0), -2, ring)
    # (holes the open phase leaves, -1 inside the span, are dropped as padding)
    face_up = e.face_up[g]
    held = tables.mask28_of(e.hands[g]) & face_up[:, None]
    return {
        "_rows": rows.astype(np.int8),
        "face_up": face_up,
        "_face_up_held": held,
        "opened": e.opened[g],
    }
