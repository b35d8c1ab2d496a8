"""The Observation of a batch of decisions: the same fields as :class:`dominosim.observe.
Observation`, as arrays over the decisions, built lazily from the engine's state."""

from __future__ import annotations

from functools import cached_property

import numpy as np

from ..observe import Observation
from . import tables as TB


class BatchObservation:
    """What each deciding seat may know, for decisions ``g`` (game slots) by ``seats``.

    Array attributes (first axis: decisions): ``seat``, ``hand`` (packed 64-bit own hand),
    ``hand_mask`` (28-bit), ``values`` (``[n, K]`` open position values, -1 closed),
    ``table`` (28-bit), ``counts`` (``[n, P]``), ``voids`` (``[n, P]`` 7-bit value masks),
    ``stock_size``, ``drawable``, ``scores`` (``[n, sides]``), ``penalties`` (``[n, P]``),
    ``leader``, ``match_id``, ``hand_index``, ``decision``. ``rules`` and ``phase`` are shared.
    :meth:`row` gives one decision as an :class:`~dominosim.observe.Observation`.
    """

    def __init__(self, engine, g, seats, phase: str):
        e = engine
        self.rules = e.r
        self.phase = phase
        self.seat = np.asarray(seats)
        self.hand = e.hands[g, seats]
        self.values = e.vals[g]
        self.table = e.table[g]
        self._hands_all = e.hands[g]
        self.voids = e.voids[g]
        self.stock_size = 28 - e.sp[g]
        self.drawable = e.send[g] - e.sp[g]
        if e.kozel:
            w = e.written[g]
            self.scores = np.where(w < 0, 0, w)
        else:
            self.scores = e.scores[g]
        self.penalties = e.penalties[g]
        self.leader = e.leader[g]
        self.match_id = e.match[g]
        self.hand_index = e.hand_idx[g]
        self.decision = e.decision[g]

    def __len__(self) -> int:
        return len(self.seat)

    @cached_property
    def hand_mask(self) -> np.ndarray:
        return TB.mask28_of(self.hand)

    @cached_property
    def counts(self) -> np.ndarray:
        return TB.count_of(self._hands_all)

    def take(self, rows) -> BatchObservation:
        sub = object.__new__(BatchObservation)
        sub.rules, sub.phase = self.rules, self.phase
        for k in ("seat", "hand", "values", "table", "_hands_all", "voids", "stock_size",
                  "drawable", "scores", "penalties", "leader", "match_id", "hand_index",
                  "decision"):  # fmt: skip
            setattr(sub, k, getattr(self, k)[rows])
        return sub

    def row(self, i: int) -> Observation:
        r = self.rules
        seat = int(self.seat[i])
        m = int(self.hand_mask[i])
        t = int(self.table[i])
        names = ("L", "R", "W", "E", "N", "S")
        return Observation(
            rules=r,
            seat=seat,
            partner=(seat + 2) % 4 if r.partnership else None,
            hand=tuple(x for x in range(28) if m >> x & 1),
            row=None,
            positions=tuple((names[k], int(v)) for k, v in enumerate(self.values[i]) if v >= 0),
            table=tuple(x for x in range(28) if t >> x & 1),
            counts=tuple(int(c) for c in self.counts[i]),
            voids=tuple(frozenset(v for v in range(7) if int(m7) >> v & 1)
                        for m7 in self.voids[i]),  # fmt: skip
            face_up=(),
            stock_size=int(self.stock_size[i]),
            drawable=int(self.drawable[i]),
            scores=tuple(int(x) for x in self.scores[i]),
            penalties=tuple(int(x) for x in self.penalties[i]),
            leader=int(self.leader[i]),
            match_id=int(self.match_id[i]),
            hand_index=int(self.hand_index[i]),
            decision=int(self.decision[i]),
            phase=self.phase,
        )
