"""The compact form of legal actions for a batch of decisions (DESIGN §6), and helpers to pick.

For ``n`` decisions:

* ``masks[n, K]``: per position slot (``L R`` for LINE and SINGLE_END, ``L R W E N S`` for
  SPINNER), the 7-bit mask of the *other halves* of the playable tiles; tile ``v-w`` fits the
  slot of value ``values[i, k] = v`` when bit ``w`` is set;
* ``along``: under ``inline_double_counts_single`` the double at a slot may also be laid along
  (an extra action per slot whose double is playable);
* ``lead[n]`` (28-bit tile masks) instead of ``masks`` when the table is empty;
* ``draw``, ``pass_``, ``stop``: ``[n]`` booleans.

The canonical order of docs/design.md is: slot, across before along, tile; then draw, pass, stop.
:meth:`Legal.action_at` returns the k-th legal action in that order with table lookups only;
:meth:`Legal.to_mask` builds a boolean ``[n, 339]`` mask for a strategy that wants one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import actions as A
from ..seeding import below_np
from . import tables as TB


@dataclass
class Legal:
    values: np.ndarray  # [n, K] int64, -1 closed
    masks: np.ndarray  # [n, K] int64 7-bit
    along: bool
    lead: np.ndarray | None  # [n] int64 28-bit, or None
    draw: np.ndarray  # [n] bool
    pass_: np.ndarray  # [n] bool
    stop: np.ndarray  # [n] bool

    def __len__(self) -> int:
        return len(self.draw)

    def _along_bits(self) -> np.ndarray:
        """[n, K] 1 where the slot's double may be laid along."""
        if not self.along:
            return np.zeros(self.masks.shape, dtype=np.int64)
        v = np.maximum(self.values, 0)
        return (self.masks >> v) & 1

    def _lead_along(self) -> np.ndarray:
        return self.lead & TB_DOUBLES28 if self.along else np.zeros_like(self.lead)

    def counts(self) -> np.ndarray:
        """Number of legal actions per decision ([n])."""
        extra = self.draw.astype(np.int64) + self.pass_ + self.stop
        if self.lead is not None:
            n = np.bitwise_count(self.lead).astype(np.int64)
            return n + np.bitwise_count(self._lead_along()) + extra
        return (TB.POPC7[self.masks] + self._along_bits()).sum(axis=1) + extra

    def action_at(self, k: np.ndarray) -> np.ndarray:
        """The k-th legal action of each decision in canonical order ([n] int64)."""
        k = np.asarray(k, dtype=np.int64).copy()
        out = np.full(len(k), -1, dtype=np.int64)
        if self.lead is not None:
            c = np.bitwise_count(self.lead).astype(np.int64)
            here = k < c
            t = TB.select28(self.lead, np.where(here, k, 0))
            out = np.where(here, t * A.NPOS, out)
            k = np.where(here, -1, k - c)
            al = self._lead_along()
            ca = np.bitwise_count(al).astype(np.int64)
            here = (k >= 0) & (k < ca)
            t = TB.select28(al, np.where(here, k, 0))
            out = np.where(here, t * A.NPOS + A.ALONG, out)
            k = np.where(here | (k < 0), -1, k - ca)
        else:
            ab = self._along_bits()
            for p in range(self.masks.shape[1]):
                m = self.masks[:, p]
                c = TB.POPC7[m]
                v = self.values[:, p]
                here = (k >= 0) & (k < c)
                w = TB.SELECT7[m, np.where(here, k, 0)]
                t = TB.TILE_AT[np.maximum(v, 0), np.maximum(w, 0)]
                out = np.where(here, t * A.NPOS + p, out)
                k = np.where(here | (k < 0), -1, k - c)
                here = (k >= 0) & (k < ab[:, p])
                t = TB.TILE_AT[np.maximum(v, 0), np.maximum(v, 0)]
                out = np.where(here, t * A.NPOS + p + A.ALONG, out)
                k = np.where(here | (k < 0), -1, k - ab[:, p])
        for flag, code in ((self.draw, A.DRAW), (self.pass_, A.PASS), (self.stop, A.STOP)):
            here = flag & (k == 0)
            out = np.where(here, code, out)
            k = np.where(here | (k < 0), -1, k - flag)
        return out

    def uniform(self, keys: np.ndarray) -> np.ndarray:
        """A uniformly random legal action per decision from its 64-bit random value."""
        return self.action_at(below_np(keys, self.counts()).astype(np.int64))

    def contains(self, act: np.ndarray) -> np.ndarray:
        """True where ``act`` is legal ([n] bool)."""
        act = np.asarray(act, dtype=np.int64)
        ok = (self.draw & (act == A.DRAW)) | (self.pass_ & (act == A.PASS))
        ok |= self.stop & (act == A.STOP)
        place = (act >= 0) & (act < A.DRAW)
        base = np.where(place, act % A.ALONG, 0)
        along = place & (act >= A.ALONG)
        t = base // A.NPOS
        p = base % A.NPOS
        rows = np.arange(len(act))
        if self.lead is not None:
            held = (self.lead >> t) & 1
            ok |= place & (p == 0) & (held == 1) & (~along | (self.along & TB.IS_DOUBLE[t]))
            return ok
        K = self.masks.shape[1]
        pk = np.minimum(p, K - 1)
        v = self.values[rows, pk]
        lo, hi = TB.TILE_LOW[t], TB.TILE_HIGH[t]
        w = np.where(lo == v, hi, lo)
        fits = (p < K) & (v >= 0) & ((lo == v) | (hi == v))
        bit = (self.masks[rows, pk] >> np.maximum(w, 0)) & 1
        ok |= place & fits & (bit == 1) & (~along | (self.along & TB.IS_DOUBLE[t]))
        return ok

    def to_mask(self) -> np.ndarray:
        """Boolean ``[n, 339]`` mask of legal actions (costly; only for strategies that ask)."""
        n = len(self)
        out = np.zeros((n, A.NUM_ACTIONS), dtype=bool)
        counts = self.counts()
        for j in range(int(counts.max(initial=0))):
            rows = np.flatnonzero(counts > j)
            a = self.action_at(np.full(n, j))[rows]
            out[rows, a] = True
        return out

    def row_list(self, i: int) -> list[int]:
        """The legal actions of decision ``i`` as a list in canonical order."""
        n = int(self.counts()[i])
        sub = self.take(np.array([i]))
        return [int(sub.action_at(np.array([j]))[0]) for j in range(n)]

    def take(self, rows: np.ndarray) -> Legal:
        return Legal(
            self.values[rows],
            self.masks[rows],
            self.along,
            None if self.lead is None else self.lead[rows],
            self.draw[rows],
            self.pass_[rows],
            self.stop[rows],
        )


TB_DOUBLES28 = sum(1 << t for t in range(28) if TB.IS_DOUBLE[t])
