"""The Observation of a batch of decisions: the same fields as :class:`dominosim.observe.
Observation`, as arrays over the decisions, built lazily from the engine's state."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np

from ..observe import Observation
from . import tables


class BatchObservation:
    """What each deciding seat may know, for decisions ``g`` (game slots) by ``seats``.

    Array attributes (first axis: decisions): ``seat``, ``hand`` (packed 64-bit own hand),
    ``hand_mask`` (28-bit), ``values`` (``[n, K]`` open position values, -1 closed),
    ``table`` (28-bit), ``counts`` (``[n, P]``), ``voids`` (``[n, P]`` 7-bit value masks),
    ``stock_size``, ``drawable``, ``scores`` (``[n, sides]``), ``penalties`` (``[n, P]``),
    ``leader``, ``match_id``, ``hand_index``, ``decision``; for end counts ``doubles`` and
    ``along`` (``[n, K]``: the end is formed by a double, laid along) and ``table_count``.
    ``rules`` and ``phase`` are shared.
    :meth:`row` gives one decision as an :class:`~dominosim.observe.Observation`.
    """

    # fmt: off
    _FIELDS = ("seat", "hand", "values", "table", "_hands_all", "voids", "stock_size",
               "drawable", "scores", "penalties", "leader", "match_id", "hand_index",
               "decision", "doubles", "along", "table_count")
    # fmt: on

    def __init__(
        self,
        engine: Any,
        g: np.ndarray,
        seats: np.ndarray,
        phase: str,
        decision: np.ndarray | None = None,
        known: np.ndarray | None = None,
    ) -> None:
        # Fields are read from the engine on first use (most strategies read few of them);
        # ``decision`` is taken now because the engine numbers the next decisions right after.
        # ``known``: fields the caller already holds (the kernel's decision lists), by name.
        self._e = engine
        self._g = g
        self.rules = engine.r
        self.phase = phase
        self.seat = np.asarray(seats)
        self.decision = engine.decision[g] if decision is None else decision
        if known:
            self.__dict__.update(known)

    def __len__(self) -> int:
        return len(self.seat)

    @cached_property
    def hand(self) -> np.ndarray:
        """The seat's own hand, packed; in blind only the row tiles it has seen (§3.2)."""
        e = self._e
        h = e.hands[self._g, self.seat]
        if e.blind:
            seen = e.known[self._g, self.seat]
            seen = np.where(e.opened[self._g, self.seat], tables.ALL28, seen)
            h = h & tables.pack28(seen)
        return h

    @cached_property
    def values(self) -> np.ndarray:
        return np.take(self._e.vals, self._g, axis=0)

    @cached_property
    def table(self) -> np.ndarray:
        return self._e.table[self._g]

    @cached_property
    def _hands_all(self) -> np.ndarray:
        return np.take(self._e.hands, self._g, axis=0)

    @cached_property
    def voids(self) -> np.ndarray:
        return self._e.voids[self._g]

    @cached_property
    def stock_size(self) -> np.ndarray:
        return 28 - self._e.sp[self._g]

    @cached_property
    def drawable(self) -> np.ndarray:
        return self._e.send[self._g] - self._e.sp[self._g]

    @cached_property
    def scores(self) -> np.ndarray:
        e = self._e
        if e.kozel:
            w = e.written[self._g]
            return np.where(w < 0, 0, w)
        return e.scores[self._g]

    @cached_property
    def penalties(self) -> np.ndarray:
        return self._e.penalties[self._g]

    @cached_property
    def leader(self) -> np.ndarray:
        return self._e.leader[self._g]

    @cached_property
    def match_id(self) -> np.ndarray:
        return self._e.match[self._g]

    @cached_property
    def hand_index(self) -> np.ndarray:
        return self._e.hand_idx[self._g]

    @cached_property
    def doubles(self) -> np.ndarray:
        return np.take(self._e.dbl, self._g, axis=0)

    @cached_property
    def along(self) -> np.ndarray:
        return np.take(self._e.alg, self._g, axis=0)

    @cached_property
    def table_count(self) -> np.ndarray:
        return self._e.ntable[self._g]

    @cached_property
    def hand_mask(self) -> np.ndarray:
        return tables.mask28_of(self.hand)

    @cached_property
    def counts(self) -> np.ndarray:
        return tables.count_of(self._hands_all)

    def take(self, rows: np.ndarray) -> BatchObservation:
        sub = BatchObservation(
            self._e, self._g[rows], self.seat[rows], self.phase, self.decision[rows]
        )
        for k, v in self.__dict__.items():  # fields already read
            if k in self._FIELDS and k not in ("seat", "decision"):
                sub.__dict__[k] = v[rows]
        return sub

    def row(self, i: int) -> Observation:
        r = self.rules
        seat = int(self.seat[i])
        m = int(self.hand_mask[i])
        t = int(self.table[i])
        names = ("L", "R", "W", "E", "N", "S")
        row, face_up, face_up_seats, opened = None, (), (), ()
        own = tuple(x for x in range(28) if m >> x & 1)
        if self._e.blind:
            e, gi = self._e, int(self._g[i])
            row = e._row_view(gi, seat)
            own = tuple(x for x in row if x is not None)
            fu = int(e.face_up[gi])
            face_up = tuple(x for x in range(28) if fu >> x & 1)
            held = tables.mask28_of(e.hands[gi, : r.players]).tolist()
            face_up_seats = tuple(
                next(s for s, h in enumerate(held) if h >> x & 1) for x in face_up
            )
            opened = tuple(bool(x) for x in e.opened[gi])
        return Observation(
            rules=r,
            seat=seat,
            partner=(seat + 2) % 4 if r.partnership else None,
            hand=own,
            row=row,
            positions=tuple((names[k], int(v)) for k, v in enumerate(self.values[i]) if v >= 0),
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
            **self._layout_view(i),
        )

    def _layout_view(self, i: int) -> dict:
        """Per open position: formed by a double, laid along; the spinner (for end counts)."""
        e, gi = self._e, int(self._g[i])
        open_ = [k for k in range(e.NP) if e.vals[gi, k] >= 0]
        spin = int(e.spin[gi])
        cov = int(e.cov[gi])
        return dict(
            doubles=tuple(bool(e.dbl[gi, k]) for k in open_),
            along=tuple(bool(e.alg[gi, k]) for k in open_),
            spinner=spin if spin >= 0 else None,
            covered=tuple(s for j, s in enumerate("WENS") if cov >> j & 1),
        )
