"""The compact form of legal actions for a batch of decisions (docs/design.md, "Decisions"), and helpers to pick.

For ``n`` decisions:

* ``masks[n, K]``: per position slot (``L R`` for LINE and SINGLE_END, ``L R W E N S`` for
  SPINNER), the 7-bit mask of the *other halves* of the playable tiles; tile ``v-w`` fits the
  slot of value ``values[i, k] = v`` when bit ``w`` is set;
* ``along``: under ``inline_double_counts_single`` the double at a slot may also be laid along
  (an extra action per slot whose double is playable);
* ``lead[n]`` (28-bit tile masks) instead of ``masks`` when the table is empty;
* ``draw``, ``pass_``, ``stop``: ``[n]`` booleans.

The canonical order (docs/design.md, "Action encoding") is: slot, across before along, tile;
then draw, pass, stop.
:meth:`Legal.action_at` returns the k-th legal action in that order with table lookups only;
:meth:`Legal.to_mask` builds a boolean ``[n, 339]`` mask for a strategy that wants one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from dominosim.engine import kernel, tables
from dominosim.game import actions
from dominosim.game.seeding import below_np


@dataclass
class Legal:
    values: np.ndarray  # [n, K] int64, -1 closed
    masks: np.ndarray  # [n, K] int64 7-bit
    along: bool
    lead: np.ndarray | None  # [n] int64 28-bit, or None
    draw: np.ndarray  # [n] bool
    pass_: np.ndarray  # [n] bool
    stop: np.ndarray  # [n] bool
    _counts: np.ndarray | None = field(default=None, repr=False, compare=False)
    # True when built by without_flags: draw, pass_ and stop all False (their bookkeeping
    # skipped; not a constructor argument, so that only this class sets it)
    _no_flags: bool = field(default=False, init=False, repr=False, compare=False)
    # the legal actions as one Python list, and where each decision's start (_flat)
    _lists: tuple | None = field(default=None, repr=False, compare=False)

    @classmethod
    def without_flags(
        cls, values: np.ndarray, masks: np.ndarray, along: bool, lead: np.ndarray | None
    ) -> Legal:
        """Decisions with placements (or leads) only: no draw, pass or stop legal at any
        (the engine's decisions outside blind's turns and voluntary draws)."""
        no = np.zeros(len(values), dtype=bool)
        legal = cls(values, masks, along, lead, no, no, no)
        legal._no_flags = True
        return legal

    @property
    def flagless(self) -> bool:
        """True for a Legal built by :meth:`without_flags`."""
        return self._no_flags

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

    def _extra(self):
        if self._no_flags:
            return 0
        return self.draw.astype(np.int64) + self.pass_ + self.stop

    def counts(self) -> np.ndarray:
        """Number of legal actions per decision ([n])."""
        if self._counts is not None:
            return self._counts
        extra = self._extra()
        if self.lead is not None:
            n = np.bitwise_count(self.lead).astype(np.int64)
            out = n + np.bitwise_count(self._lead_along()) + extra
        elif not self.along and self.masks.shape[1] == 2:
            out = tables.POPC7[self.masks[:, 0]] + tables.POPC7[self.masks[:, 1]]
            if not self._no_flags:
                out += extra
        elif not self.along:
            out = np.bitwise_count(self.masks).sum(axis=1, dtype=np.int64) + extra
        else:
            out = (tables.POPC7[self.masks] + self._along_bits()).sum(axis=1) + extra
        self._counts = out
        return out

    def action_at(self, k: np.ndarray) -> np.ndarray:
        """The k-th legal action of each decision in canonical order ([n] int64)."""
        k = np.asarray(k, dtype=np.int64)
        if self.lead is None and not self.along and self.masks.shape[1] == 2:
            return self._action_at2(k)
        k = k.copy()
        out = np.full(len(k), -1, dtype=np.int64)
        if self.lead is not None:
            c = np.bitwise_count(self.lead).astype(np.int64)
            here = k < c
            t = tables.select28(self.lead, np.where(here, k, 0))
            out = np.where(here, t * actions.NPOS, out)
            k = np.where(here, -1, k - c)
            if self.along:  # (without along actions the next block changes nothing)
                al = self._lead_along()
                ca = np.bitwise_count(al).astype(np.int64)
                here = (k >= 0) & (k < ca)
                t = tables.select28(al, np.where(here, k, 0))
                out = np.where(here, t * actions.NPOS + actions.ALONG, out)
                k = np.where(here | (k < 0), -1, k - ca)
        else:
            ab = self._along_bits()
            for p in range(self.masks.shape[1]):
                m = self.masks[:, p]
                c = tables.POPC7[m]
                v = self.values[:, p]
                here = (k >= 0) & (k < c)
                w = tables.SELECT7[m, np.where(here, k, 0)]
                t = tables.TILE_AT[np.maximum(v, 0), np.maximum(w, 0)]
                out = np.where(here, t * actions.NPOS + p, out)
                k = np.where(here | (k < 0), -1, k - c)
                here = (k >= 0) & (k < ab[:, p])
                t = tables.TILE_AT[np.maximum(v, 0), np.maximum(v, 0)]
                out = np.where(here, t * actions.NPOS + p + actions.ALONG, out)
                k = np.where(here | (k < 0), -1, k - ab[:, p])
        for flag, code in (
            (self.draw, actions.DRAW),
            (self.pass_, actions.PASS),
            (self.stop, actions.STOP),
        ):
            here = flag & (k == 0)
            out = np.where(here, code, out)
            k = np.where(here | (k < 0), -1, k - flag)
        return out

    def _action_at2(self, k: np.ndarray) -> np.ndarray:
        """:meth:`action_at` for two slots (LINE, SINGLE_END) and no along actions."""
        m0 = self.masks[:, 0]
        m1 = self.masks[:, 1]
        c0 = tables.POPC7[m0]
        in0 = k < c0
        k1 = k - c0
        c1 = tables.POPC7[m1]
        place = k1 < c1
        kk = np.where(in0, k, k1)
        mm = np.where(in0, m0, m1)
        w = tables.SELECT7_FLAT[mm * 8 + np.minimum(kk, 7)]
        vv = np.where(in0, self.values[:, 0], self.values[:, 1])
        out = tables.ACT_AT_FLAT[(vv * 8 + w) * 2 + ~in0]
        if self._no_flags or not (self.draw.any() or self.pass_.any() or self.stop.any()):
            return np.where(place & (k >= 0), out, -1)
        k = k1 - c1
        fl = np.full(len(k), -1, dtype=np.int64)
        for flag, code in (
            (self.draw, actions.DRAW),
            (self.pass_, actions.PASS),
            (self.stop, actions.STOP),
        ):
            here = flag & (k == 0)
            fl = np.where(here, code, fl)
            k = np.where(here | (k < 0), -1, k - flag)
        return np.where(place, np.where(k1 + c0 >= 0, out, -1), fl)

    def uniform(self, keys: np.ndarray) -> np.ndarray:
        """A uniformly random legal action per decision from its 64-bit random value."""
        if not self.along and self._no_flags:
            out = np.empty(len(self), dtype=np.int64)
            keys = np.asarray(keys, dtype=np.uint64)  # (any layout: a column of the kernel's)
            if self.lead is None:
                kernel.uniform_slots(_c64(self.values), _c64(self.masks), keys, out)
            else:
                kernel.uniform_lead(_c64(self.lead), keys, out)
            return out
        return self.action_at(below_np(keys, self.counts()).astype(np.int64))

    def contains(self, act: np.ndarray) -> np.ndarray:
        """True where ``act`` is legal ([n] bool)."""
        act = np.asarray(act, dtype=np.int64)
        if self.lead is None and not self.along and self.masks.shape[1] == 2:
            return self._contains2(act)
        ok = (self.draw & (act == actions.DRAW)) | (self.pass_ & (act == actions.PASS))
        ok |= self.stop & (act == actions.STOP)
        place = (act >= 0) & (act < actions.DRAW)
        base = np.where(place, act % actions.ALONG, 0)
        along = place & (act >= actions.ALONG)
        t = base // actions.NPOS
        p = base % actions.NPOS
        rows = np.arange(len(act))
        if self.lead is not None:
            held = (self.lead >> t) & 1
            ok |= place & (p == 0) & (held == 1) & (~along | (self.along & tables.IS_DOUBLE[t]))
            return ok
        K = self.masks.shape[1]
        pk = np.minimum(p, K - 1)
        v = self.values[rows, pk]
        lo, hi = tables.TILE_LOW[t], tables.TILE_HIGH[t]
        w = np.where(lo == v, hi, lo)
        fits = (p < K) & (v >= 0) & ((lo == v) | (hi == v))
        bit = (self.masks[rows, pk] >> np.maximum(w, 0)) & 1
        ok |= place & fits & (bit == 1) & (~along | (self.along & tables.IS_DOUBLE[t]))
        return ok

    def _contains2(self, act: np.ndarray) -> np.ndarray:
        """:meth:`contains` for two slots and no along actions."""
        a = np.clip(act, -1, actions.NUM_ACTIONS)  # out-of-range codes read the sentinel entries
        t = _ACT_TILE_X[a]
        p = _ACT_POS_X[a]
        in0 = p == 0
        m = np.where(in0, self.masks[:, 0], np.where(p == 1, self.masks[:, 1], 0))
        v = np.where(in0, self.values[:, 0], self.values[:, 1])
        # bit w of the slot's mask, w the tile's other half (7: the tile lacks v, never set)
        ok = ((m >> tables.OTHER_HALF[t * 8 + (v & 7)]) & 1).astype(bool)
        if not self._no_flags:
            ok |= (self.draw & (act == actions.DRAW)) | (self.pass_ & (act == actions.PASS))
            ok |= self.stop & (act == actions.STOP)
        return ok

    def to_mask(self) -> np.ndarray:
        """Boolean ``[n, 339]`` mask of legal actions (costly; only for strategies that ask)."""
        n = len(self)
        out = np.zeros((n, actions.NUM_ACTIONS), dtype=bool)
        counts = self.counts()
        for j in range(int(counts.max(initial=0))):
            rows = np.flatnonzero(counts > j)
            a = self.action_at(np.full(n, j))[rows]
            out[rows, a] = True
        return out

    def row_list(self, i: int) -> list[int]:
        """The legal actions of decision ``i`` as a list (a new one) in canonical order."""
        flat, starts = self._flat()
        return flat[starts[i] : starts[i + 1]]

    def lists(self) -> list[list[int]]:
        """Every decision's legal actions as a list (a new one each) in canonical order:
        ``row_list(i)`` for each ``i``."""
        flat, starts = self._flat()
        return list(map(flat.__getitem__, map(slice, starts[:-1], starts[1:])))

    def _flat(self) -> tuple[list[int], list[int]]:
        """Every decision's legal actions one after the other as a Python list (written by the
        core in one pass, ``kernel.legal_arrays``, as :class:`LegalArrays`), and where each
        decision's start (``n + 1`` offsets); kept for the next call."""
        if self._lists is None:
            counts = self.counts()
            action = np.empty((len(self), int(counts.max(initial=0))), dtype=np.int64)
            _write_arrays(self, action, np.empty((_INFO_PLANES, *action.shape), dtype=np.int8))
            starts = np.zeros(len(self) + 1, dtype=np.int64)
            np.cumsum(counts, out=starts[1:])
            self._lists = (action[action >= 0].tolist(), starts.tolist())
        return self._lists

    def arrays(self, obs) -> LegalArrays:
        """Each decision's legal actions as padded arrays (:class:`LegalArrays`: action, tile,
        position, pips, double, points if played now, with their counts), in canonical order;
        ``obs`` is the batch's :class:`~dominosim.engine.batch_observation.BatchObservation` (read for the
        points only)."""
        return LegalArrays(self, obs)

    def take(self, rows: np.ndarray) -> Legal:
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        sub = Legal(
            _take_rows(self.values, rows),
            _take_rows(self.masks, rows),
            self.along,
            None if self.lead is None else np.take(self.lead, rows, axis=0),
            np.take(self.draw, rows, axis=0),
            np.take(self.pass_, rows, axis=0),
            np.take(self.stop, rows, axis=0),
        )
        sub._no_flags = self._no_flags
        if self._counts is not None:
            sub._counts = self._counts[rows]
        return sub


TB_DOUBLES28 = sum(1 << t for t in range(28) if tables.IS_DOUBLE[t])
# action code -> tile / position of across placements; along codes, draw, pass, stop and the
# out-of-range sentinels (index -1 and NUM_ACTIONS) read tile 0 at position 6 (never legal)
_ACT_TILE_X = np.zeros(actions.NUM_ACTIONS + 2, dtype=np.int64)
_ACT_POS_X = np.full(actions.NUM_ACTIONS + 2, 6, dtype=np.int64)
_ACT_TILE_X[: actions.ALONG] = np.arange(actions.ALONG) // actions.NPOS
_ACT_POS_X[: actions.ALONG] = np.arange(actions.ALONG) % actions.NPOS


def _take_rows(a: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``a[rows]`` for a 2-D array, keeping a column-major array column-major (fast paths)."""
    if a.ndim == 2 and a.flags.f_contiguous and not a.flags.c_contiguous:
        return np.take(a.T, rows, axis=1).T
    return np.take(a, rows, axis=0)


def _c64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.int64)


class LegalArrays:
    """The legal actions of ``n`` decisions as ``[n, W]`` arrays padded on the right, ``W`` the
    largest number of legal actions of the batch; column ``j`` of row ``i`` is decision ``i``'s
    ``j``-th legal action in canonical order (``Legal.action_at(j)``, ``row_list(i)[j]``),
    for ``j < count[i]``. Built by :meth:`Legal.arrays` (docs/strategies.md, "Writing a batch
    strategy"); every array is read-only.

    * ``count`` ``[n]``: the number of legal actions;
    * ``action``: the action codes (``-1`` in the padding);
    * ``valid``: ``j < count`` (a legal action, not padding);
    * ``placement``: a placement (not ``DRAW``, ``PASS``, ``STOP``, not padding);
    * ``tile``, ``position`` (``0..5``: ``L R W E N S``), ``along`` (a double laid along):
      of placements (``-1``, ``-1``, False elsewhere);
    * ``pips`` (the tile's pip sum), ``double`` (the tile is a double): of placements (0,
      False elsewhere);
    * ``points``: the in-play points the placement scores for the placer's side if played now
      (``dominosim.scoring.placement_points``; 0 elsewhere).

    Integers are int64, the rest bool. The compiled core writes every array but ``points`` in
    one pass; ``points`` is computed on its first read, by the core too, from the open ends of
    ``obs`` (``BatchObservation.placement_points``). :meth:`best` picks the legal action with
    the highest score per decision.
    """

    def __init__(self, legal: Legal, obs) -> None:
        self._obs = obs
        self.count = _frozen(legal.counts())
        n, width = len(self.count), int(self.count.max(initial=0))
        self.action = np.empty((n, width), dtype=np.int64)
        self._info = np.empty((_INFO_PLANES, n, width), dtype=np.int8)
        _write_arrays(legal, self.action, self._info)
        _frozen(self.action)
        _frozen(self._info)

    def __len__(self) -> int:
        return len(self.count)

    @property
    def width(self) -> int:
        """``W``: the columns of the arrays (the largest count; 0 for no decision)."""
        return self.action.shape[1]

    @cached_property
    def valid(self) -> np.ndarray:
        return _frozen(self.action >= 0)

    @cached_property
    def placement(self) -> np.ndarray:
        return _frozen(self._info[_TILE] >= 0)

    @cached_property
    def tile(self) -> np.ndarray:
        return _frozen(self._info[_TILE].astype(np.int64))

    @cached_property
    def position(self) -> np.ndarray:
        return _frozen(self._info[_POS].astype(np.int64))

    @cached_property
    def pips(self) -> np.ndarray:
        return _frozen(self._info[_PIPS].astype(np.int64))

    @property
    def double(self) -> np.ndarray:
        return self._info[_DOUBLE].view(bool)

    @property
    def along(self) -> np.ndarray:
        return self._info[_ALONG].view(bool)

    @cached_property
    def points(self) -> np.ndarray:
        return _frozen(self._obs.placement_points(self.action))

    def best(self, score: np.ndarray) -> np.ndarray:
        """Per decision, the legal action with the highest ``score`` (``[n, W]``, read only at
        legal entries), the first in canonical order among equals ([n] int64). Integer (or
        bool) scores are compared in the compiled core; float scores with numpy (a NaN counts
        as the highest, as in ``numpy.argmax``)."""
        score = np.asarray(score)
        n, w = self.action.shape
        if score.shape != (n, w):
            raise ValueError(f"best: score must have the shape of the arrays, {(n, w)}")
        if w == 0:
            return np.full(n, -1, dtype=np.int64)
        if score.dtype.kind in "iub":
            out = np.empty(n, dtype=np.int64)
            kernel.best(_c64(score), self.count, self.action, out)
            return out
        col = np.argmax(np.where(self.valid, score, -np.inf), axis=1)
        return np.take_along_axis(self.action, col[:, None], axis=1)[:, 0]


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def _write_arrays(legal: Legal, action: np.ndarray, info: np.ndarray) -> None:
    """The core writes ``legal``'s actions, padded with -1, into ``action`` ``[n, W]`` and
    their tiles, positions, pips, doubles and along into ``info`` (kernel.legal_arrays)."""
    n = len(legal)
    is_lead = legal.lead is not None
    flags = 0 if legal._no_flags else legal.draw * kernel.F_DRAW
    if not legal._no_flags:
        flags = flags + legal.pass_ * kernel.F_PASS + legal.stop * kernel.F_STOP
    kernel.legal_arrays(
        _c64(legal.values),
        _c64(legal.masks),
        _c64(legal.lead) if is_lead else _NO_LEAD,
        is_lead,
        _c64(np.broadcast_to(flags, (n,))),
        legal.along,
        action,
        info,
    )


# the planes of the core's info array (kernel.legal_arrays; _core.c, INFO_*)
_TILE, _POS, _PIPS, _DOUBLE, _ALONG = range(5)
_INFO_PLANES = 5
_NO_LEAD = np.zeros(0, dtype=np.int64)
