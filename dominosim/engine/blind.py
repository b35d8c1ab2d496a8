"""Blind domino's rows in the batch engine (RULES §3.2, §3.7).

A row is an ordered queue, so besides the packed hand (membership) each seat keeps a ring
buffer of tile indices: ``buf[B, P, RB]`` with ``head`` and ``span`` (entries from the head,
holes of -1 included). In the blind phase the row only changes at its ends; in the open phase
a placed tile leaves a hole, and drawn tiles join at the back, exactly like the reference
engine's list. ``known`` is the 28-bit mask of row tiles each owner has looked at.

The methods here are mixed into :class:`~dominosim.engine.batch.BatchEngine`; a turn's
several decisions (front tile, optional draw, drawn tile, continue/stop) are taken one after
the other within a step on shrinking subsets of games.
"""

from __future__ import annotations

import numpy as np

from .. import actions as A
from . import tables as TB
from .legal import Legal

RB = 32  # ring size: a row never holds more than 28 entries


class BlindRows:
    """Mixin: blind-domino state and turns for the batch engine."""

    def _blind_alloc(self, B: int | None = None) -> None:
        """Blind's row arrays, ``B`` rows (default: one per slot)."""
        B, P = (self.B if B is None else B), self.P
        self.buf = np.full((B, P, RB), -1, dtype=np.int64)
        self.head = np.zeros((B, P), dtype=np.int64)
        self.span = np.zeros((B, P), dtype=np.int64)
        self.known = np.zeros((B, P), dtype=np.int64)
        self.opened = np.zeros((B, P), dtype=bool)
        self.face_up = np.zeros(B, dtype=np.int64)

    def _blind_deal(self, g, order) -> None:
        h = self.r.hand_size
        self.buf[g] = -1
        for s in range(self.P):
            self.buf[g, s, :h] = order[:, s * h : (s + 1) * h]
        self.head[g] = 0
        self.span[g] = h
        self.known[g] = 0
        self.opened[g] = False
        self.face_up[g] = 0

    def _front(self, g, seats):
        return self.buf[g, seats, self.head[g, seats] % RB]

    def _stock_left(self, g):
        return 28 - self.sp[g]

    # --- row edits --------------------------------------------------------------------------
    def _to_back(self, g, seats, t):
        """Append tiles to the back of the rows (a moved front tile or a drawn tile)."""
        pos = (self.head[g, seats] + self.span[g, seats]) % RB
        self.buf[g, seats, pos] = t
        self.span[g, seats] += 1
        self.hands[g, seats] |= TB.PACK[t]  # a drawn tile joins the hand here
        if self.r.blind_unplayable_double_face_up:
            d = TB.IS_DOUBLE[t]
            self.face_up[g[d]] |= np.left_shift(1, t[d])
        if self.log:
            for i, s, tt in zip(g, seats, t, strict=True):
                self._ev(i, type="to_back", seat=int(s), tile=int(tt))

    def _pop_front(self, g, seats):
        self.head[g, seats] = (self.head[g, seats] + 1) % RB
        self.span[g, seats] -= 1

    def _blind_after_place(self, g, seats, t) -> None:
        """Take a placed tile out of its row; open rows of 3 tiles or fewer (§3.7b)."""
        self.face_up[g] &= ~np.left_shift(1, t)
        self.known[g, seats] &= ~np.left_shift(1, t)
        front = self._front(g, seats) == t
        bl = ~self.opened[g, seats]
        # blind phase: the placed tile is the front tile, or a drawn tile not in the row
        fr = front & (self.span[g, seats] > 0)
        if fr.any():
            self._pop_front(g[fr], seats[fr])
        hole = ~fr & ~bl
        if hole.any():
            gh, sh, th = g[hole], seats[hole], t[hole]
            idx = (self.head[gh, sh][:, None] + np.arange(RB)[None, :]) % RB
            live = np.arange(RB)[None, :] < self.span[gh, sh][:, None]
            vals = np.take_along_axis(self.buf[gh, sh], idx, axis=1)
            j = np.argmax(live & (vals == th[:, None]), axis=1)
            found = (live & (vals == th[:, None])).any(axis=1)
            self.buf[gh[found], sh[found], idx[found, j[found]]] = -1
        newly = bl & (TB.count_of(self.hands[g, seats]) <= 3)
        if newly.any():
            self.opened[g[newly], seats[newly]] = True
            if self.log:
                for i, s in zip(g[newly], seats[newly], strict=True):
                    self._ev(i, type="open", seat=int(s))

    # --- turns ------------------------------------------------------------------------------
    def _single_legal(self, g, tiles_, draw=None, pass_=None, stop=None):
        """Legal placements of one tile per game (the front or drawn tile), plus flags."""
        n = len(g)
        f = np.zeros(n, dtype=bool)
        vals = self.vals[g]
        shift = (np.maximum(vals, 0) * 8).astype(np.uint64)
        packed = TB.PACK[tiles_]
        m = ((packed[:, None] >> shift) & np.uint64(0x7F)).astype(np.int64)
        m = np.where(vals >= 0, m, 0)
        return Legal(vals, m, False, None, f if draw is None else draw,
                     f if pass_ is None else pass_, f if stop is None else stop)  # fmt: skip

    def _flags_legal(self, g, draw, pass_):
        n = len(g)
        z = np.zeros((n, self.NP), dtype=np.int64)
        return Legal(self.vals[g], z, False, None, draw, pass_, np.zeros(n, dtype=bool))

    def _blind_turn(self, g) -> None:
        seats = self.to_move[g]
        self.turns[g] += 1
        op = self.opened[g, seats]
        if op.any():
            self._open_turn(g[op], seats[op])
        if (~op).any():
            self._blind_phase_turn(g[~op], seats[~op])

    def _blind_phase_turn(self, g, seats) -> None:
        """§3.7a."""
        r = self.r
        n = len(g)
        front = self._front(g, seats)
        self.known[g, seats] |= np.left_shift(1, front)
        if self.log:
            for i, s, t in zip(g, seats, front, strict=True):
                self._ev(i, type="look", seat=int(s), tile=int(t))
        vm = self._valmask(g)
        fits = ((vm >> TB.TILE_LOW[front]) & 1 | (vm >> TB.TILE_HIGH[front]) & 1).astype(bool)
        stock = self._stock_left(g) > 0
        declinable = fits & stock if r.blind_play_optional else np.zeros(n, dtype=bool)
        declined = np.zeros(n, dtype=bool)
        for sel, phase in ((fits & declinable, "blind_front"), (fits & ~declinable, "play")):
            rows = np.flatnonzero(sel)
            if not len(rows):
                continue
            legal = self._single_legal(g[rows], front[rows], draw=declinable[rows])
            acts = self._decide(g[rows], seats[rows], legal, phase)
            dec = acts == A.DRAW
            declined[rows[dec]] = True
            pl = rows[~dec]
            if len(pl):
                self._place_and_end_turn(g[pl], seats[pl], acts[~dec])
        rest = np.flatnonzero(~fits | declined)
        if not len(rest):
            return
        g, seats, front, declined = g[rest], seats[rest], front[rest], declined[rest]
        self._pop_front(g, seats)
        self._to_back(g, seats, front)
        stock = self._stock_left(g) > 0
        want = stock.copy()
        if r.blind_draw_optional:
            ask = np.flatnonzero(stock & ~declined)
            if len(ask):
                n2 = len(ask)
                legal = self._flags_legal(g[ask], np.ones(n2, dtype=bool), np.ones(n2, dtype=bool))
                acts = self._decide(g[ask], seats[ask], legal)
                want[ask[acts == A.PASS]] = False
        no = np.flatnonzero(~want)
        if len(no):
            self._pass(g[no], seats[no])
        yes = np.flatnonzero(want)
        if not len(yes):
            return
        g, seats = g[yes], seats[yes]
        t = self.stock[g, self.sp[g]]
        self.sp[g] += 1
        self.draws[g] += 1
        self.known[g, seats] |= np.left_shift(1, t)
        if self.log:
            for i, s, tt in zip(g, seats, t, strict=True):
                self._ev(i, type="draw", seat=int(s), tile=int(tt))
        fits = (vm_ := self._valmask(g)) >> TB.TILE_LOW[t] & 1 | vm_ >> TB.TILE_HIGH[t] & 1
        fits = fits.astype(bool)
        placed = np.zeros(len(g), dtype=bool)
        if fits.any():
            rows = np.flatnonzero(fits)
            opt = np.full(len(rows), r.blind_play_optional)
            legal = self._single_legal(g[rows], t[rows], pass_=opt)
            acts = self._decide(g[rows], seats[rows], legal, "blind_drawn")
            pl = acts != A.PASS
            prow = rows[pl]
            if len(prow):
                self.hands[g[prow], seats[prow]] |= TB.PACK[t[prow]]
                self._place_and_end_turn(g[prow], seats[prow], acts[pl])
                placed[prow] = True
        back = np.flatnonzero(~placed)
        if len(back):
            self._to_back(g[back], seats[back], t[back])
            self._pass(g[back], seats[back])

    def _open_turn(self, g, seats) -> None:
        """§3.7b–§3.7c: the open phase."""
        r = self.r
        masks = self._masks(g, seats)
        has = masks.any(axis=1)
        none = np.flatnonzero(~has)
        go = list(np.flatnonzero(has))
        if len(none):
            gn, sn = g[none], seats[none]
            vm = self._valmask(gn)
            want = self._stock_left(gn) > 0
            if r.blind_draw_optional:
                ask = np.flatnonzero(want)
                if len(ask):
                    k = len(ask)
                    legal = self._flags_legal(gn[ask], np.ones(k, dtype=bool),
                                              np.ones(k, dtype=bool))  # fmt: skip
                    acts = self._decide(gn[ask], sn[ask], legal)
                    want[ask[acts == A.PASS]] = False
            no = np.flatnonzero(~want)
            if len(no):
                self._reveal(gn[no], sn[no], vm[no], np.zeros(len(no), dtype=bool))
                self._pass(gn[no], sn[no])
            yes = np.flatnonzero(want)
            if len(yes):
                gy, sy = gn[yes], sn[yes]
                t = self.stock[gy, self.sp[gy]]
                self.sp[gy] += 1
                self.draws[gy] += 1
                self.hands[gy, sy] |= TB.PACK[t]
                self.known[gy, sy] |= np.left_shift(1, t)
                if self.log:
                    for i, s, tt in zip(gy, sy, t, strict=True):
                        self._ev(i, type="draw", seat=int(s), tile=int(tt))
                self._append_row(gy, sy, t)
                fit = (vm[yes] >> TB.TILE_LOW[t]) & 1 | (vm[yes] >> TB.TILE_HIGH[t]) & 1
                fit = fit.astype(bool)
                self._reveal(gy, sy, vm[yes], ~fit)
                miss = np.flatnonzero(~fit)
                if len(miss):
                    self._pass(gy[miss], sy[miss])
                go += list(none[yes[fit]])
        if not go:
            return
        rows = np.array(sorted(go), dtype=np.int64)
        gg, ss = g[rows], seats[rows]
        acts = self._decide(gg, ss, self._legal(gg, ss))
        self._place(gg, ss, acts)
        # continue or stop, one placement at a time (§3.7b)
        while len(gg):
            alive = ~self.over[gg]
            gg, ss = gg[alive], ss[alive]
            if not len(gg):
                break
            m = self._masks(gg, ss)
            can = m.any(axis=1)
            gg, ss = gg[can], ss[can]
            if not len(gg):
                break
            k = len(gg)
            f = np.zeros(k, dtype=bool)
            legal = Legal(self.vals[gg], self._masks(gg, ss), False, None, f, f,
                          np.ones(k, dtype=bool))  # fmt: skip
            acts = self._decide(gg, ss, legal, "continue")
            stop = acts == A.STOP
            if self.log:
                for i, s in zip(gg[stop], ss[stop], strict=True):
                    self._ev(i, type="stop", seat=int(s))
            keep = ~stop
            gg, ss = gg[keep], ss[keep]
            if len(gg):
                self._place(gg, ss, acts[keep])
        self._end_turn(g[rows], seats[rows])

    def _append_row(self, g, seats, t):
        pos = (self.head[g, seats] + self.span[g, seats]) % RB
        self.buf[g, seats, pos] = t
        self.span[g, seats] += 1

    def _row_view(self, gi: int, seat: int) -> tuple:
        """The row front to back as the owner sees it (None for unseen tiles)."""
        out = []
        for j in range(int(self.span[gi, seat])):
            t = int(self.buf[gi, seat, (self.head[gi, seat] + j) % RB])
            if t < 0:
                continue
            seen = self.opened[gi, seat] or (int(self.known[gi, seat]) >> t & 1)
            out.append(t if seen else None)
        return tuple(out)
