"""The batch engine: B games stepped in lockstep as numpy arrays (DESIGN §3).

Every active game advances by one decision point per step. Hands are packed 64-bit masks
(:mod:`.tables`), open positions are ``[B, K]`` value arrays, decisions go through the public
strategy interface (``Strategy.choose(obs, legal, keys)``) for whole batches. A finished hand is
recorded and its slot re-dealt in place (the next hand of the match, or the next match id of the
chunk), so the batch stays full.

It plays the same games as :mod:`dominosim.reference`: the same addressed deals and lots, the
same canonical order of legal actions, the same decision numbering, so that with the same
strategies both engines produce identical records (tested move by move).

Blind domino's ordered rows live in :mod:`.blind` (mixed in); every variant and option of
RULES.md plays here.
"""

from __future__ import annotations

import numpy as np

from .. import actions as A
from .. import seeding
from ..errors import StrategyError
from ..rules import Rules
from . import kernel as KN
from . import tables as TB
from .blind import BlindRows
from .legal import Legal
from .observe import BatchObservation

# phases of a game slot
LEAD, TURN, MAYDRAW, AFTERDRAW, DONE = 0, 1, 2, 3, 4
# end reasons
DOMINO, BLOCKED, TARGET = 0, 1, 2
END_NAMES = ("domino", "blocked", "target")
SLOT_NAMES = A.POSITIONS
U64 = np.uint64


def _round5(x):
    return 5 * ((x + 2) // 5)


class BatchEngine(BlindRows):
    """Play the matches (or single hands) of a range of match ids on one batch.

    Args:
        rules: the variant.
        seed: the experiment seed (deals, lots and strategy draws are addressed by it).
        strategies: one strategy per seat.
        match_ids: the match ids this engine plays, in order.
        unit: ``"match"`` (whole matches) or ``"hand"`` (each game is hand 0 of its match).
        batch_size: the number of game slots stepped together (at most ``kernel.MAX_SLOTS`` on
            the compiled kernel, whose per-game state then stays in the core's cache).
        log: keep per-game event lists (slow; for the equality tests and traces).
        kernel: play on the compiled core (:mod:`.kernel`); ``None``: the core unless ``log``
            or ``DOMINOSIM_KERNEL=0``; ``False``: the numpy path (event logs, comparisons).
        compiled: on the core, let strategies with a compiled policy decide inside it
            (``None``: unless ``DOMINOSIM_POLICIES=0``); ``False`` asks every strategy
            through ``Strategy.choose`` (the same records: tests and bench/).
    """

    def __init__(self, rules: Rules, seed: int, strategies, match_ids, *, unit: str = "match",
                 batch_size: int = 10_000, log: bool = False, kernel: bool | None = None,
                 compiled: bool | None = None, _positions: bool = False):  # fmt: skip
        if len(strategies) != rules.players:
            raise ValueError(f"{rules.players} strategies needed, got {len(strategies)}")
        if kernel is None:
            kernel = KN.enabled() and not log
        elif kernel and log:  # (the core plays every rule set, but keeps no event log)
            raise ValueError(f"the compiled core cannot play {rules.label} (log={log})")
        self.kernel = kernel = bool(kernel)
        self._kcap = 2 * batch_size + 64  # kernel record buffer rows (flushed when full)
        self._kblocks: list = []  # kernel hand records of unit "match", column by column
        self.r = rules
        self.seed = int(seed)
        self.strategies = list(strategies)
        groups: dict[int, tuple] = {}
        for seat, st in enumerate(self.strategies):
            groups.setdefault(id(st), (st, []))[1].append(seat)
        self._strategy_groups = list(groups.values())
        self._one_strategy = self.strategies[0] if len(groups) == 1 else None
        if compiled is None:
            compiled = KN.policies_enabled()
        self._policy = KN.policy_codes(self.strategies, kernel and compiled)
        if isinstance(match_ids, range):  # (no list of Python ints for a chunk's ids)
            self.queue = np.arange(match_ids.start, match_ids.stop, match_ids.step, dtype=np.int64)
        else:
            self.queue = np.asarray(list(match_ids), dtype=np.int64)
        self._qmatch = None  # from_positions: the match id of each queue position
        self.next_q = 0
        self.unit = unit
        self.log = log
        P = rules.players
        self.P = P
        self.S = rules.sides
        self.NP = 6 if rules.layout == "spinner" else 2
        self.side_of = np.array([rules.side_of(s) for s in range(P)], dtype=np.int64)
        self.one_hand = rules.match_end == "one_hand"
        self.kozel = rules.match_end == "kozel"
        self.npoints = P if self.one_hand else self.S
        if kernel and not _positions:  # its state stays in the core's cache at this size
            batch_size = min(batch_size, KN.MAX_SLOTS)
        B = max(1, min(batch_size, len(self.queue)))
        self.B = B
        # on the core the state lives in one record per slot (_bind_slots): these arrays only
        # carry the values a slot starts with, so one row each is enough
        NB = 1 if kernel else B
        z = lambda *shape, dt=np.int64, fill=0: np.full(shape, fill, dtype=dt)  # noqa: E731
        self.active = np.zeros(NB, dtype=bool)
        self.match = z(NB)
        self.hand_idx = z(NB)
        self.skey = z(NB, dt=np.uint64)  # key(seed, STRATEGY, match, hand) of each slot
        # per-hand scalar fields: rows of one [F, B] block, so a deal resets them in one write
        h0 = P * rules.hand_size
        send0 = (
            (28 - rules.reserve_k) if (rules.stock_in_play and rules.draw_mode != "none") else h0
        )
        hand_fields = (("attempt", 0), ("sp", h0), ("send", max(send0, h0)), ("spin", -1),
                       ("cov", 0), ("ntable", 0), ("first", -1), ("table", 0), ("decision", 0),
                       ("last_placer", -1), ("hand_length", 0), ("turns", 0), ("draws", 0),
                       ("passes", 0), ("end_reason", -1), ("fish", -1), ("winner", -1),
                       ("went_out", -1))  # fmt: skip
        self._hand_fields = [name for name, _ in hand_fields]
        self._hblk = np.zeros((len(hand_fields), NB), dtype=np.int64)
        self._htmpl = np.array([f for _, f in hand_fields], dtype=np.int64)[:, None]
        for i, (name, fill) in enumerate(hand_fields):
            self._hblk[i] = fill
            setattr(self, name, self._hblk[i])
        self._bblk = np.zeros((2, NB), dtype=bool)
        self.over, self.target_hit = self._bblk[0], self._bblk[1]
        self.hands = z(NB, P, dt=np.uint64)
        self._hflat = self.hands.reshape(-1)  # hands[g, s] is _hflat[g * P + s]
        self.stock = z(NB, 28, dt=np.int8 if kernel else np.int64)
        self.spref = z(NB, 29, dt=np.uint64)  # spref[g, j]: packed tiles of stock[g, :j]
        self._spflat = self.spref.reshape(-1)
        # posm[g, v]: bit j set where stock[g, j] carries value v (column 7: none)
        self.posm = z(NB, 8)
        self._posflat = self.posm.reshape(-1)
        self._next_seat = np.array([(s + 1) % P for s in range(P)], dtype=np.int64)
        self._flags = rules.may_draw_when_able or rules.bergen_voluntary
        self.vals = z(NB, self.NP, fill=-1)
        self.dbl = z(NB, self.NP, dt=bool)
        self._vflat = self.vals.reshape(-1)
        self._dflat = self.dbl.reshape(-1)
        self.alg = z(NB, self.NP, dt=bool)
        self.armv = z(NB, 4, fill=-1)
        self.armd = z(NB, 4, dt=bool)
        self.to_move = z(NB)
        self.leader = z(NB)
        self.lead_tile = z(NB, fill=-1)
        self.phase = z(NB, fill=DONE)
        self.scores = z(NB, self.npoints)
        self.points = z(NB, self.npoints)
        self.penalties = z(NB, P)
        self.voids = z(NB, P)
        self.dry = z(NB, dt=bool)
        self.losers = z(NB)  # kozel: bit mask of goat sides
        self.end_pips = z(NB, self.S)
        self.end_values = z(NB, self.S)  # hand values (kozel §14.12; else the pip totals)
        # kozel's book
        self.written = z(NB, self.S, fill=-1)
        self.pending = z(NB, self.S)
        self.pot = z(NB)
        self.eggs = z(NB)
        # previous hand, for later leads (rows of one block, as the kernel takes them)
        self._pblk = np.full((4, NB), -1, dtype=np.int64)
        self._pblk[0] = 0
        self.prev_leader, self.prev_winner, self.prev_out, self.prev_fish = self._pblk
        self.prev_seat_pips = z(NB, P)
        self.blind = rules.draw_mode == "blind"
        # blind_deal=all_tiles with 3 players: the leftover tile starts the layout (§15)
        self._blind_start = self.blind and rules.blind_deal == "all_tiles" and P == 3
        if self.blind:
            self._blind_alloc(NB)
        if kernel:
            self._bind_slots()
        self.events = [[] for _ in range(B)] if log else None
        self.hand_rows: list[dict] = []
        self.match_rows: list[dict] = []

    # the kernel path's state: one record per slot
    _SLOT_FIELDS = ("hands", "vals", "dbl", "alg", "armv", "armd", "to_move", "leader", "lead_tile",
                    "phase", "scores", "points", "penalties", "voids", "end_pips", "end_values",
                    "written", "pending", "pot", "eggs", "dry", "losers", "active", "match",
                    "hand_idx", "skey", "stock")  # fmt: skip

    def _bind_slots(self) -> None:
        """On the kernel path the state arrays become views of one record per game slot
        (``kernel.SLOT``), with their values, dtypes and shapes: the core then reaches one
        slot's state through one record, and Python code reads and writes the same state.

        Called at the end of ``__init__``, where every slot of every array holds the same
        value: one template record takes slot 0's values and is copied into every slot as
        bytes (a strided copy per field costed a run a few milliseconds per chunk)."""
        B = self.B
        st = self._kst = np.empty(B, dtype=KN.SLOT)
        bst = self._kbst = np.empty(B if self.blind else 1, dtype=KN.BSLOT)
        tmpl, btmpl = np.zeros(1, dtype=KN.SLOT), np.zeros(1, dtype=KN.BSLOT)
        tmpl["vals"] = -1
        tmpl["armv"] = -1
        tmpl["written"] = -1
        names = [(tmpl, st, n) for n in self._SLOT_FIELDS]
        if self.blind:  # blind's rows: a record array of their own (one unused record else)
            blind = ("head", "span", "known", "opened", "face_up", "buf")
            names += [(btmpl, bst, n) for n in blind]
        for t, _, name in names:
            old = getattr(self, name)
            if old.ndim >= 2:
                t[name][0, : old.shape[1]] = old[0]
            else:
                t[name][0] = old[0]
        tmpl["hb"][0] = self._hblk[:, 0]
        tmpl["over"], tmpl["target_hit"] = self._bblk[:, 0]
        tmpl["prev"][0] = self._pblk[:, 0]
        tmpl["prev_pips"][0, : self.P] = self.prev_seat_pips[0]
        for t, rec in ((tmpl, st), (btmpl, bst)):
            rec.view(np.uint8).reshape(len(rec), -1)[:] = t.view(np.uint8)
        for _, rec, name in names:
            old = getattr(self, name)
            view = rec[name]
            if view.ndim >= 2:
                view = view[:, : old.shape[1]]
            if view.dtype != old.dtype and view.dtype.itemsize == old.dtype.itemsize:
                # int8 fields shown as the engine's bool (blind's rows stay int8 tiles)
                view = view.view(old.dtype)
            setattr(self, name, view)
        self._hblk = st["hb"].T
        for i, name in enumerate(self._hand_fields):
            setattr(self, name, self._hblk[i])
        self.over, self.target_hit = st["over"], st["target_hit"]
        self._bblk = None  # numpy path only
        self._pblk = st["prev"].T
        self.prev_leader, self.prev_winner, self.prev_out, self.prev_fish = self._pblk
        self.prev_seat_pips = st["prev_pips"][:, : self.P]
        self._hflat = None  # numpy path only (flat views need contiguous arrays)

    # ------------------------------------------------------------------------------------------
    # running
    # ------------------------------------------------------------------------------------------
    def run(self) -> tuple[dict, dict]:
        """Play every match id; return (hand records, match records) as dicts of arrays,
        ordered by match id and hand index."""
        if self.kernel:
            return self._run_kernel()
        if not self.active.any():
            self._start_matches(np.arange(self.B))
        while self.active.any():
            self.step()
        return self._collect()

    @classmethod
    def from_positions(cls, rules: Rules, seed: int, strategies, positions, *,
                       log: bool = False, kernel: bool | None = None,
                       compiled: bool | None = None) -> BatchEngine:  # fmt: skip
        """An engine whose slots hold positions built elsewhere (a search's sampled hands, a
        test's position), to be played on to the end of the hand with :meth:`run`.

        Each position is a dict with ``hands`` (P lists of tiles), ``stock`` (draw order),
        ``ends`` (a dict ``{"L": v, "R": v}`` of open values, or ``{}`` for an empty table;
        LINE and SINGLE_END layouts, optional ``doubles`` dict of ends formed by a double),
        ``to_move``, and optionally ``scores``, ``leader``, ``match_id`` and ``hand_index``
        (which address the strategies' random draws).
        """
        n = len(positions)
        e = cls(rules, seed, strategies, range(n), unit="hand", batch_size=n, log=log,
                kernel=kernel, compiled=compiled, _positions=True)  # fmt: skip
        e.next_q = n
        g = np.arange(n)
        e.active[g] = True
        e.match[g] = [p.get("match_id", i) for i, p in enumerate(positions)]
        e.hand_idx[g] = [p.get("hand_index", 0) for p in positions]
        e._qmatch = e.match.copy()
        e.skey[g] = seeding.key_np(seed, seeding.STRATEGY, e.match[g], e.hand_idx[g])
        # built as Python lists, converted once (a search builds thousands per decision)
        P = rules.players
        hands, stock, tm, ld, vals, dbl = [], [], [], [], [], []
        for p in positions:
            hs = list(p["hands"]) + [()] * (P - len(p["hands"]))
            row = []
            for h in hs:
                x = 0
                for t in h:
                    x |= _PACK_INT[t]
                row.append(x)
            hands.append(row)
            st = list(p.get("stock", ()))
            stock.append([-1] * (28 - len(st)) + st)
            tm.append(p["to_move"])
            ld.append(p.get("leader", p["to_move"]))
            ends = p.get("ends", {})
            doubles = p.get("doubles", {})
            vals.append([ends.get("L", -1), ends.get("R", -1)])
            dbl.append([bool(doubles.get("L", False)), bool(doubles.get("R", False))])
        e.hands[:] = np.array(hands, dtype=np.uint64).reshape(n, P)
        e.stock[:] = np.array(stock, dtype=np.int64).reshape(n, 28)
        e.sp[:] = (e.stock < 0).sum(axis=1)
        drawable = rules.stock_in_play and rules.draw_mode != "none"
        e.send[:] = np.maximum(e.sp, 28 - rules.reserve_k) if drawable else e.sp
        e.to_move[:] = tm
        e.leader[:] = ld
        e.vals[:, :2] = np.array(vals, dtype=np.int64).reshape(n, 2)
        e.dbl[:, :2] = np.array(dbl, dtype=bool).reshape(n, 2)
        e.ntable[:] = np.where((e.vals[:, :2] >= 0).any(axis=1), 2, 0)
        for i, p in enumerate(positions):
            if "scores" in p:
                e.scores[i] = p["scores"]
        if not e.kernel:  # the numpy path's draw tables
            for i in range(n):
                e.spref[i, 1:] = np.bitwise_or.accumulate(TB.PACK_X[e.stock[i]])
                for j, t in enumerate(e.stock[i]):
                    if t >= 0:
                        e.posm[i, TB.TILE_LOW[t]] |= 1 << j
                        e.posm[i, TB.TILE_HIGH[t]] |= 1 << j
        e.phase[g] = np.where(e.ntable[g] > 0, TURN, LEAD)
        e.lead_tile[g] = -1
        return e

    def step(self) -> None:
        """Advance every active game by one decision point."""
        ph = self.phase
        turn = self._blind_turn if self.blind else self._turn
        phases = ((LEAD, self._lead), (TURN, turn), (MAYDRAW, self._maydraw),
                  (AFTERDRAW, self._afterdraw))  # fmt: skip
        for phase, fn in phases if self._flags else phases[:2]:
            g = np.flatnonzero(self.active & (ph == phase) & ~self.over)
            if len(g):
                fn(g)
        ended = np.flatnonzero(self.active & self.over)
        if len(ended):
            self._end_hands(ended)

    # ------------------------------------------------------------------------------------------
    # logging (tests and traces only)
    # ------------------------------------------------------------------------------------------
    def _ev(self, g, **ev):
        if self.log:
            self.events[g].append(ev)

    # ------------------------------------------------------------------------------------------
    # matches and deals
    # ------------------------------------------------------------------------------------------
    def _start_matches(self, g: np.ndarray) -> None:
        """Put the next match ids of the queue into slots ``g`` (or deactivate them)."""
        n_left = len(self.queue) - self.next_q
        take = min(n_left, len(g))
        if take < len(g):
            idle = g[take:]
            self.active[idle] = False
            self.phase[idle] = DONE
        g = g[:take]
        if not len(g):
            return
        self.match[g] = self.queue[self.next_q : self.next_q + take]
        self.next_q += take
        self.active[g] = True
        self.hand_idx[g] = 0
        self.scores[g] = 0
        self.written[g] = -1
        self.pending[g] = 0
        self.pot[g] = 0
        self.eggs[g] = 0
        self.dry[g] = False
        self.losers[g] = 0
        if self.log:
            for i in g:
                self.events[i] = []
        self._deal(g, first=True)

    def _deal(self, g: np.ndarray, first: bool) -> None:
        r, P = self.r, self.P
        h = r.hand_size
        self._hblk[:, g] = self._htmpl
        self._bblk[:, g] = False
        self.skey[g] = seeding.key_np(self.seed, seeding.STRATEGY, self.match[g], self.hand_idx[g])
        order = seeding.shuffle_np(self.seed, P, self.match[g], self.hand_idx[g], 0)
        hands = self._pack_hands(order, h)
        if r.kozel_redeal:
            bad = self._kozel_bad(hands)
            while bad.any():
                rows = np.flatnonzero(bad)
                self.attempt[g[rows]] += 1
                order[rows] = seeding.shuffle_np(
                    self.seed, P, self.match[g[rows]], self.hand_idx[g[rows]], self.attempt[g[rows]]
                )
                hands[rows] = self._pack_hands(order[rows], h)
                bad = self._kozel_bad(hands)
        self.hands[g] = hands
        self.stock[g] = order
        if self.blind:
            self._blind_deal(g, order)
        self.spref[g, 1:] = np.bitwise_or.accumulate(TB.PACK[order], axis=1)
        pb = np.empty(order.shape)
        np.put_along_axis(pb, order, _POW28[None, :], axis=1)
        self.posm[g] = (pb @ _TILE_VALS_F).astype(np.int64)  # exact: sums of distinct 2**j
        # (the per-hand scalar fields were reset above, from the template)
        _reset_rows(self._vflat, g, self.NP, -1)
        _reset_rows(self._dflat, g, self.NP, False)
        if r.inline_double_counts_single:  # otherwise never set
            self.alg[g] = False
        if r.layout == "spinner":  # otherwise never read
            self.armv[g] = -1
            self.armd[g] = False
        _reset_rows(self.points.reshape(-1), g, self.npoints, 0)
        _reset_rows(self.penalties.reshape(-1), g, P, 0)
        _reset_rows(self.voids.reshape(-1), g, P, 0)
        if self.log:
            for i in g:
                o = [int(t) for t in self.stock[i]]
                self._ev(i, type="deal", hands=[o[s * h : (s + 1) * h] for s in range(P)],
                         stock=o[P * h :], redeals=int(self.attempt[i]))  # fmt: skip
        leader, tile = self._choose_leader(g, first)
        self.leader[g] = leader
        if self.blind:
            tile = self._front(g, leader)  # §3.4: the leader leads his front tile
        self.lead_tile[g] = tile
        if r.layout == "single_end" or self._blind_start:
            start = self.stock[g, self.sp[g]]
            self.sp[g] += 1
            self.send[g] = np.maximum(self.send[g], self.sp[g])
            self._start_tile(g, start)
            self.to_move[g] = leader
            self.phase[g] = TURN
        else:
            self.phase[g] = LEAD

    def _pack_hands(self, order: np.ndarray, h: int) -> np.ndarray:
        n = len(order)
        out = np.zeros((n, self.P), dtype=np.uint64)
        packed = TB.PACK[order[:, : self.P * h]].reshape(n, self.P, h)
        for j in range(h):
            out |= packed[:, :, j]
        return out

    def _kozel_bad(self, hands: np.ndarray) -> np.ndarray:
        """§15 kozel_redeal: a hand with 5+ doubles or 6+ tiles bearing one number."""
        bad = (np.bitwise_count(hands & TB.DOUBLE_BITS) >= 5).any(axis=1)
        for v in range(7):
            bad |= (TB.POPC7[TB.byte(hands, v)] >= 6).any(axis=1)
        return bad

    def _start_tile(self, g, tiles_):
        lo, hi = TB.TILE_LOW[tiles_], TB.TILE_HIGH[tiles_]
        d = lo == hi
        self.vals[g, 0] = lo
        self.vals[g, 1] = hi
        self.dbl[g, 0] = d
        self.dbl[g, 1] = d
        self.ntable[g] = 1
        self.first[g] = tiles_
        self.table[g] |= np.left_shift(1, tiles_)
        if self.log:
            for i, t in zip(g, tiles_, strict=True):
                self._ev(i, type="start_tile", tile=int(t))

    # ------------------------------------------------------------------------------------------
    # leads (§n.4, §n.5)
    # ------------------------------------------------------------------------------------------
    def _holder(self, g, tile):
        bits = TB.PACK[tile]
        held = (self.hands[g] & bits[:, None]) != 0  # [n, P]
        return np.where(held.any(axis=1), held.argmax(axis=1), -1)

    def _lead_by_double(self, g, highest: bool, order=None):
        """The first tile of a priority order (doubles, then non-doubles) held by any seat."""
        doubles = list(order if order is not None else [TB_DOUBLES[v] for v in range(7)])
        if highest:
            doubles.reverse()
        prio = tuple(doubles) + tuple(NONDOUBLES_DESC if highest else NONDOUBLES_ASC)
        tabs, prio_arr = _prio_tables(prio)
        hands = np.take(self.hands, g, axis=0)
        union = hands[:, 0]
        for s in range(1, self.P):
            union = union | hands[:, s]
        held = TB.mask28_of(union)
        ranks = tabs[0][held & 0x7F]
        for part in range(1, 4):
            ranks |= tabs[part][(held >> (7 * part)) & 0x7F]
        first = np.bitwise_count((ranks & -ranks) - 1).astype(np.int64)
        tile = np.where(ranks != 0, prio_arr[np.minimum(first, len(prio_arr) - 1)], -1)
        bits = TB.PACK_X[tile]
        seat = np.full(len(g), -1, dtype=np.int64)
        for s in reversed(range(self.P)):
            seat = np.where((hands[:, s] & bits) != 0, s, seat)
        return seat, tile

    def _lot(self, g):
        k = seeding.key_np(self.seed, seeding.LOT, self.P, self.match[g], self.hand_idx[g],
                           self.attempt[g])  # fmt: skip
        return seeding.below_np(k, self.P).astype(np.int64)

    def _first_leader(self, g):
        r = self.r
        kind = r.lead_first
        n = len(g)
        if kind == "lowest_double":
            return self._lead_by_double(g, False)
        if kind == "highest_double":
            return self._lead_by_double(g, True)
        if kind == "kozel":
            if self.P == 4:
                one = TB.TILE_AT[1, 1]
                return self._holder(g, np.full(n, one)), np.full(n, one)
            order = [TB_DOUBLES[v] for v in range(7)]
            if not r.kozel_zero_double_lowest:
                order = order[1:] + order[:1]
            seat, tile = self._lead_by_double(g, False, order=order)
            # no double dealt: the highest tile leads (§14.4a)
            nod = ~self._any_double_dealt(g)
            if nod.any():
                s2, t2 = self._lead_by_double(g[nod], True, order=[])
                seat[nod], tile[nod] = s2, t2
            return seat, tile
        return self._lot(g), np.full(n, -1)

    def _any_double_dealt(self, g):
        return ((self.hands[g] & TB.DOUBLE_BITS) != 0).any(axis=1)

    def _choose_leader(self, g, first: bool):
        r = self.r
        kind = r.lead_later
        if first or kind == "as_first":
            return self._first_leader(g)
        n = len(g)
        P = self.P
        seat = np.full(n, -1, dtype=np.int64)
        tile = np.full(n, -1, dtype=np.int64)
        if kind == "next_after_leader":
            return (self.prev_leader[g] + 1) % P, tile
        if kind == "lot":
            return self._lot(g), tile
        if kind in ("winner_else_lot", "winner_else_first", "winner_else_next"):
            ws = self._winner_seat(g)
            have = ws >= 0
            seat[have] = ws[have]
            rest = np.flatnonzero(~have)
            if len(rest):
                gr = g[rest]
                if kind == "winner_else_lot":
                    seat[rest] = self._lot(gr)
                elif kind == "winner_else_first":
                    s2, t2 = self._first_leader(gr)
                    seat[rest], tile[rest] = s2, t2
                else:
                    seat[rest] = (self.prev_leader[gr] + 1) % P
            return seat, tile
        if kind == "out_else_lot":
            out = self.prev_out[g]
            return np.where(out >= 0, out, self._lot(g)), tile
        if kind == "out_else_fishmaker":
            out = self.prev_out[g]
            return np.where(out >= 0, out, self.prev_fish[g]), tile
        raise ValueError(kind)

    def _winner_seat(self, g):
        """The seat through which the previous winning side leads (§1.4 team leads)."""
        w = self.prev_winner[g]
        out = self.prev_out[g]
        seat = np.where(out >= 0, out, -1)
        if not self.r.partnership:
            return np.where(w >= 0, np.where(out >= 0, out, w), -1)
        need = np.flatnonzero((w >= 0) & (out < 0))
        for i in need:
            gi = g[i]
            a, b = int(w[i]), int(w[i]) + 2
            pa, pb = self.prev_seat_pips[gi, a], self.prev_seat_pips[gi, b]
            if pa != pb:
                seat[i] = a if pa < pb else b
            else:
                fm = int(self.prev_fish[gi])
                start = (fm + 1) % self.P if fm >= 0 else 0
                seat[i] = next((start + j) % self.P for j in range(self.P)
                               if (start + j) % self.P in (a, b))  # fmt: skip
        return np.where(w >= 0, seat, -1)

    # ------------------------------------------------------------------------------------------
    # positions, legal actions, decisions
    # ------------------------------------------------------------------------------------------
    def _masks(self, g, seats, vals=None, h=None):
        """[n, K] 7-bit masks of the seat's tiles fitting each open slot."""
        if vals is None:
            vals = np.take(self.vals, g, axis=0)
        if h is None:
            h = (
                self.hands[g, seats]
                if self._hflat is None
                else np.take(self._hflat, g * self.P + seats)
            )
        # a closed slot (-1) reads byte 7 of the hand, always empty; built column by column
        # (contiguous columns: much faster in numpy than [n, K] broadcasting)
        K = vals.shape[1]
        out = np.empty((K, len(h)), dtype=np.int64)
        for k in range(K):
            np.bitwise_and(h >> np.take(TB.SHIFT_OF, vals[:, k]), _7F, out=out[k], casting="unsafe")
        return out.T

    def _inc(self, g, *arrays):
        """``a[g] += 1`` for each array; through a dense mask when g is most of the batch."""
        if len(g) * 3 > self.B:
            m = np.zeros(self.B, dtype=np.int64)
            m[g] = 1
            for a in arrays:
                a += m
        else:
            for a in arrays:
                a[g] += 1

    def _drawable(self, g):
        return self.send[g] - self.sp[g]

    def _observe(self, g, seats, phase_name, decision=None, known=None):
        return BatchObservation(self, g, seats, phase_name, decision, known)

    def _decide(self, g, seats, legal: Legal, phase_name="play"):
        """Actions for decisions ``g`` (asks strategies only where 2+ actions are legal)."""
        counts = legal.counts()
        many = counts >= 2
        ask = np.flatnonzero(many)
        n = len(g)
        if len(ask) == n:
            acts = np.empty(n, dtype=np.int64)
            ga, sa, sub = g, seats, legal
        else:
            acts = np.full(n, -1, dtype=np.int64)
            one = np.flatnonzero(counts == 1)
            if len(one):  # the only legal action
                acts[one] = legal.take(one).action_at(np.zeros(len(one), dtype=np.int64))
            if not len(ask):
                return acts
            ga, sa, sub = g[ask], seats[ask], legal.take(ask)
        dec = self.decision[ga]
        h = seeding.splitmix64_np(self.skey[ga] ^ dec.view(U64))
        h ^= sa.view(U64)
        keys = seeding.splitmix64_np(h)
        chosen = self._ask(ga, sa, sub, keys, dec, phase_name)
        self.decision[ga] = dec + 1
        if len(ask) == n:
            return chosen
        acts[ask] = chosen
        return acts

    def _ask(self, ga, sa, sub: Legal, keys, dec, phase_name: str, check: bool = True,
             pre=None):  # fmt: skip
        """The strategies' choices for decisions ``ga`` by seats ``sa`` (2+ legal actions).

        ``check=False``: the caller checks that the actions are legal (the kernel does).
        ``pre``: Observation fields the caller already has (the kernel's decision lists)."""
        obs = self._observe(ga, sa, phase_name, dec, pre)
        if self._one_strategy is not None:
            return self._call(self._one_strategy, obs, sub, keys, check)
        chosen = np.empty(len(ga), dtype=np.int64)
        for strat, seat_list in self._strategy_groups:
            sel = np.flatnonzero(np.isin(sa, seat_list))
            if len(sel):
                chosen[sel] = self._call(strat, obs.take(sel), sub.take(sel), keys[sel], check)
        return chosen

    @staticmethod
    def _name(strat) -> str:
        return getattr(strat, "label", getattr(strat, "name", type(strat).__name__))

    def _illegal(self, strat, legal: Legal, i: int, action) -> StrategyError:
        """The error for strategy ``strat`` choosing ``action`` at decision ``i`` of ``legal``."""
        return StrategyError(
            f"strategy '{self._name(strat)}' returned an illegal action {action!r}; "
            f"legal were {[A.describe(x) for x in legal.row_list(i)]}; fix the strategy"
        )

    def _call(self, strat, obs, legal: Legal, keys, check: bool = True):
        name = self._name(strat)
        try:
            a = np.asarray(strat.choose(obs, legal, keys), dtype=np.int64)
        except StrategyError:
            raise
        except (Exception, SystemExit) as exc:  # SystemExit would kill a pool worker
            raise StrategyError(
                f"strategy '{name}' raised {type(exc).__name__}: {_one_line(str(exc))}; "
                "fix the strategy"
            ) from exc
        if a.shape != (len(legal),):
            raise self._illegal(strat, legal, 0, _one_line(repr(a.tolist())))
        if check and not legal.contains(a).all():
            i = int(np.flatnonzero(~legal.contains(a))[0])
            raise self._illegal(strat, legal, i, int(a[i]))
        return a

    def _legal(self, g, seats, draw=None, pass_=None, masks=None, vals=None):
        n = len(g)
        f = np.zeros(n, dtype=bool)
        if vals is None:
            vals = np.take(self.vals, g, axis=0)
        if masks is None:
            masks = self._masks(g, seats, vals)
        legal = Legal(vals, masks, self.r.inline_double_counts_single,
                      None, f if draw is None else draw, f if pass_ is None else pass_, f)  # fmt: skip
        legal._no_flags = draw is None and pass_ is None
        return legal

    # ------------------------------------------------------------------------------------------
    # phases
    # ------------------------------------------------------------------------------------------
    def _lead(self, g):
        seats = self.leader[g]
        self.turns[g] += 1
        fixed = self.lead_tile[g]
        held = TB.mask28_of(self.hands[g, seats])
        lead = np.where(fixed >= 0, np.left_shift(1, np.maximum(fixed, 0)), held)
        n = len(g)
        f = np.zeros(n, dtype=bool)
        legal = Legal(self.vals[g], np.zeros((n, self.NP), dtype=np.int64),
                      self.r.inline_double_counts_single, lead, f, f, f)  # fmt: skip
        acts = self._decide(g, seats, legal)
        self._place(g, seats, acts, lead=True)
        cont = ~self.over[g]
        self.to_move[g[cont]] = (seats[cont] + 1) % self.P
        self.phase[g] = TURN

    def _turn(self, g):
        r = self.r
        seats = self.to_move[g]
        self._inc(g, self.turns)
        vals = np.take(self.vals, g, axis=0)
        masks = self._masks(g, seats, vals)
        mT = masks.T  # [K, n], rows contiguous
        has = mT[0] != 0
        for k in range(1, len(mT)):
            has |= mT[k] != 0
        if self._flags and (r.may_draw_when_able or r.bergen_voluntary):
            vol = has & (self._drawable(g) > 0)
        else:
            vol = None
        # voluntary draw offered: may_draw_when_able -> MAYDRAW handles it; bergen -> here
        if vol is not None and vol.any():
            gv = g[vol]
            if r.may_draw_when_able:
                self.phase[gv] = MAYDRAW  # handled by _maydraw later in this step
            else:
                self._bergen_offer(gv, seats[vol])
            forced = has & ~vol
        else:
            forced = has
        if forced.all():
            legal = self._legal(g, seats, masks=masks, vals=vals)
            self._place_and_end_turn(g, seats, self._decide(g, seats, legal), True)
            return
        f = np.flatnonzero(forced)
        if len(f):
            gf, sf = g[f], seats[f]
            legal = self._legal(gf, sf, masks=np.take(masks, f, axis=0),
                                vals=np.take(vals, f, axis=0))  # fmt: skip
            self._place_and_end_turn(gf, sf, self._decide(gf, sf, legal), True)
        none = np.flatnonzero(~has)
        if len(none):
            self._forced_draws(g[none], seats[none], np.take(vals, none, axis=0))

    def _place_and_end_turn(self, g, seats, acts, in_turn: bool = False):
        self._place(g, seats, acts)
        self._end_turn(g, seats, in_turn)

    def _end_turn(self, g, seats, in_turn: bool = False):
        # a finished game's to_move and phase are not read before it is dealt again
        self.to_move[g] = self._next_seat[seats]
        if not in_turn:
            self.phase[g] = TURN

    def _forced_draws(self, g, seats, vals=None):
        """Nothing playable: the drawing mode applies (§1.7).

        Every draw of the turn at once: the stock order is fixed, so the seat draws up to the
        first tile that fits (or the limit, or the last drawable tile)."""
        r = self.r
        if vals is None:
            vals = np.take(self.vals, g, axis=0)
        vm = self._valmask(g, vals)
        n = len(g)
        if r.draw_mode != "none":
            limit = 1 if r.draw_mode == "one" else (r.max_draws or 28)
            sp = self.sp[g]
            av = self.send[g] - sp
            if limit < 28:
                av = np.minimum(av, limit)
            # stock positions holding a fitting tile, within [sp, sp + av)
            g8 = g * 8
            fit = self._posflat[g8 + (vals[:, 0] & 7)]
            for k in range(1, vals.shape[1]):
                fit |= self._posflat[g8 + (vals[:, k] & 7)]
            fit &= (np.left_shift(1, sp + av) - 1) ^ (np.left_shift(1, sp) - 1)
            placed = fit != 0
            first = np.bitwise_count((fit & -fit) - 1).astype(np.int64)  # lowest set bit
            nd = np.where(placed, first - sp + 1, av)
            newsp = sp + nd
            g29 = g * 29
            self._hflat[g * self.P + seats] |= self._spflat[g29 + newsp] ^ self._spflat[g29 + sp]
            self.sp[g] = newsp
            self.draws[g] += nd
            kept = nd > placed
            if self.log:
                for i, s_, a, b in zip(g, seats, sp, newsp, strict=True):
                    for j in range(a, b):
                        self._ev(i, type="draw", seat=int(s_), tile=int(self.stock[i, j]))
        else:
            placed = np.zeros(n, dtype=bool)
            kept = placed
        self._reveal(g, seats, vm, kept)
        if placed.all():
            self._place_and_end_turn(g, seats, self._decide(g, seats, self._legal(g, seats)), True)
            return
        pr = np.flatnonzero(placed)
        if len(pr):
            gp, spp = g[pr], seats[pr]
            self._place_and_end_turn(gp, spp, self._decide(gp, spp, self._legal(gp, spp)), True)
        ps = np.flatnonzero(~placed)
        if len(ps):
            self._pass(g[ps], seats[ps], True)

    def _reveal(self, g, seats, vm, kept):
        old = self.voids[g, seats]
        self.voids[g, seats] = np.where(kept, vm, old | vm)

    def _maydraw(self, g):
        """§11.7 may_draw_when_able: draw one at a time while drawable, or place."""
        seats = self.to_move[g]
        can = self._drawable(g) > 0
        acts = self._decide(g, seats, self._legal(g, seats, draw=can))
        d = acts == A.DRAW
        if d.any():
            self._draw_one(g[d], seats[d])
            self.phase[g[d]] = MAYDRAW
        p = ~d
        if p.any():
            self._place_and_end_turn(g[p], seats[p], acts[p])

    def _bergen_offer(self, g, seats):
        """§15 bergen_voluntary: decline by drawing one tile."""
        n = len(g)
        acts = self._decide(g, seats, self._legal(g, seats, draw=np.ones(n, dtype=bool)))
        d = acts == A.DRAW
        if d.any():
            self._draw_one(g[d], seats[d])
            self.phase[g[d]] = AFTERDRAW
        p = ~d
        if p.any():
            self._place_and_end_turn(g[p], seats[p], acts[p])

    def _afterdraw(self, g):
        seats = self.to_move[g]
        n = len(g)
        acts = self._decide(g, seats, self._legal(g, seats, pass_=np.ones(n, dtype=bool)),
                            "after_draw")  # fmt: skip
        ps = acts == A.PASS
        if ps.any():
            self._pass(g[ps], seats[ps])
        p = ~ps
        if p.any():
            self._place_and_end_turn(g[p], seats[p], acts[p])

    def _draw_one(self, g, seats):
        t = self.stock[g, self.sp[g]]
        self.sp[g] += 1
        self.hands[g, seats] |= TB.PACK[t]
        self.draws[g] += 1
        if self.log:
            for i, s, tt in zip(g, seats, t, strict=True):
                self._ev(i, type="draw", seat=int(s), tile=int(tt))

    def _pass(self, g, seats, in_turn: bool = False):
        r = self.r
        self.passes[g] += 1
        if self.log:
            for i, s in zip(g, seats, strict=True):
                self._ev(i, type="pass", seat=int(s))
        if r.failed_turn_penalty:
            self.penalties[g, seats] += r.failed_turn_penalty
            self.points[g, seats] += r.failed_turn_penalty
            if self.log:
                for i, s in zip(g, seats, strict=True):
                    self._ev(i, type="score", side=int(s), points=r.failed_turn_penalty,
                             reason="failed_turn")  # fmt: skip
        elif r.penalty_per_miss:
            self.penalties[g, seats] += 10
            if self.log:
                for i, s in zip(g, seats, strict=True):
                    self._ev(i, type="penalty", seat=int(s), points=10)
        self._block_test(g)
        self._end_turn(g, seats, in_turn)

    # ------------------------------------------------------------------------------------------
    # placement, scoring, hand end
    # ------------------------------------------------------------------------------------------
    def _valmask(self, g, vals=None):
        if vals is None:
            vals = np.take(self.vals, g, axis=0)
        bits = np.take(TB.VBIT_OF, vals)
        if bits.shape[1] == 2:
            return bits[:, 0] | bits[:, 1]
        return np.bitwise_or.reduce(bits, axis=1)

    def _place(self, g, seats, acts, lead: bool = False):
        r = self.r
        t = TB.ACT_TILE[acts]
        p = TB.ACT_POS[acts]
        along = TB.ACT_ALONG[acts]
        lo, hi = TB.TILE_LOW[t], TB.TILE_HIGH[t]
        d = TB.IS_DOUBLE[t]
        hidx = g * self.P + seats
        newh = np.take(self._hflat, hidx) & ~TB.PACK[t]
        self._hflat[hidx] = newh
        self.table[g] |= TB.TBIT[t]
        if lead and r.layout != "spinner":
            self.first[g] = t
            vi = g * self.NP
            self._vflat[vi] = lo
            self._vflat[vi + 1] = hi
            self._dflat[vi] = d
            self._dflat[vi + 1] = d
            if r.inline_double_counts_single:
                self.alg[g, 0] = along & d
                self.alg[g, 1] = along & d
        elif lead:
            self.first[g] = t
            sp = d & (r.layout == "spinner")
            line = ~sp
            gl = g[line]
            self.vals[gl, 0] = lo[line]
            self.vals[gl, 1] = hi[line]
            self.dbl[gl, 0] = d[line]
            self.dbl[gl, 1] = d[line]
            self.alg[gl, 0] = (along & d)[line]
            self.alg[gl, 1] = (along & d)[line]
            if sp.any():
                gs = g[sp]
                self.spin[gs] = lo[sp]
                self.vals[gs, 0:2] = -1
                self._spinner_slots(gs)
        else:
            v = np.take(self._vflat, g * self.NP + p)
            w = lo + hi - v
            if r.layout == "single_end":
                self.vals[g, 0] = -1
                self.vals[g, 1] = w
                self.dbl[g, 1] = d
            elif r.layout == "spinner":
                pre = self.spin[g] < 0
                new_sp = pre & d
                ln = pre & ~d
                gl, pl = g[ln], p[ln]
                self.vals[gl, pl] = w[ln]
                self.dbl[gl, pl] = d[ln]
                if new_sp.any():
                    gs, ps = g[new_sp], p[new_sp]
                    other = 1 - ps
                    self.armv[gs, 0] = self.vals[gs, other]
                    self.armd[gs, 0] = self.dbl[gs, other]
                    self.cov[gs] = 1
                    self.spin[gs] = v[new_sp]
                    self.vals[gs, 0:2] = -1
                    self._spinner_slots(gs)
                arm = ~pre
                if arm.any():
                    ga, pa = g[arm], p[arm] - 2
                    self.cov[ga] |= np.left_shift(1, pa)
                    self.armv[ga, pa] = w[arm]
                    self.armd[ga, pa] = d[arm]
                    self._spinner_slots(ga)
            else:
                vi = g * self.NP + p
                self._vflat[vi] = w
                self._dflat[vi] = d
                if r.inline_double_counts_single:
                    self.alg[g, p] = along & d
        self._inc(g, self.ntable, self.hand_length)
        self.last_placer[g] = seats
        if self.log:
            for i, s, tt, pp, al in zip(g, seats, t, p, along, strict=True):
                self._ev(i, type="place", seat=int(s), tile=int(tt),
                         pos="L" if lead else SLOT_NAMES[pp], along=bool(al), lead=lead)  # fmt: skip
        if self.blind:
            self._blind_after_place(g, seats, t)
        out = newh == 0
        if r.scoring != "none":
            self._in_play(g, seats, lead)
            alive = ~self.over[g]
            out &= alive
            rest = alive & ~out
        else:
            rest = ~out
        if out.any():
            self._finish(g[out], DOMINO, went_out=seats[out])
            self._block_test(g[rest])
        else:
            self._block_test(g if r.scoring == "none" else g[rest])

    def _spinner_slots(self, g):
        cov = self.cov[g]
        spin = self.spin[g]
        we = (cov & 3) == 3
        for j in range(4):
            c = (cov >> j & 1).astype(bool)
            playable = (j < 2) | self.r.spinner_open_all_four_immediately | we
            self.vals[g, 2 + j] = np.where(c, self.armv[g, j], np.where(playable, spin, -1))
            self.dbl[g, 2 + j] = np.where(c, self.armd[g, j], True)

    def _end_count(self, g):
        r = self.r
        one = self.ntable[g] == 1
        ft = np.maximum(self.first[g], 0)
        c_one = TB.TILE_PIPS[ft]
        if r.layout != "spinner":
            v = self.vals[g, :2]
            c = np.where(self.dbl[g, :2] & ~self.alg[g, :2], 2 * v, v).sum(axis=1)
            return np.where(one, c_one, c)
        spin = self.spin[g]
        v = self.vals[g, :2]
        c_line = np.where(self.dbl[g, :2] & ~self.alg[g, :2], 2 * v, v).sum(axis=1)
        cov = self.cov[g]
        arms = np.zeros(len(g), dtype=np.int64)
        k = np.zeros(len(g), dtype=np.int64)
        for j in range(4):
            c = (cov >> j & 1).astype(bool)
            a = self.armv[g, j]
            arms += np.where(c, np.where(self.armd[g, j], 2 * a, a), 0)
            k += c
        if r.us_sniff_counting:
            s = np.where(k <= 2, 2 * spin, np.where(k == 3, spin, 0))
        else:
            s = np.where(k <= 1, 2 * spin, 0)
        c_sp = arms + s
        return np.where(one, c_one, np.where(spin >= 0, c_sp, c_line))

    def _in_play(self, g, seats, lead):
        r = self.r
        if r.scoring == "none":
            return
        sides = self.side_of[seats]
        if r.scoring in ("fives", "threes", "muggins"):
            c = self._end_count(g)
            m = 3 if r.scoring == "threes" else 5
            hit = (c > 0) & (c % m == 0)
            pts = np.where(hit, c if r.scoring == "muggins" else c // m, 0)
        else:  # bergen headers (§4.8)
            if lead:
                pts = np.where(TB.IS_DOUBLE[self.first[g]], 2, 0)
            else:
                v = self.vals[g, :2]
                same = v[:, 0] == v[:, 1]
                anyd = self.dbl[g, 0] | self.dbl[g, 1]
                pts = np.where(same, np.where(anyd, 3, 2), 0)
            if r.bergen_near_target_cap:
                need = r.target - self.scores[g, sides]
                pts = np.where((pts > 0) & (need <= 2), 1,
                               np.where((pts > 0) & (need == 3), np.minimum(pts, 2), pts))  # fmt: skip
        self._award(g, sides, pts, "count" if r.scoring != "bergen" else "header", in_play=True)

    def _award(self, g, sides, pts, reason, in_play: bool):
        """Add points event by event; a side reaching the target ends the match (§1.14)."""
        r = self.r
        got = pts > 0
        if not got.any():
            return
        g, sides, pts = g[got], sides[got], pts[got]
        self.scores[g, sides] += pts
        self.points[g, sides] += pts
        if self.log:
            for i, s, pt in zip(g, sides, pts, strict=True):
                self._ev(i, type="score", side=int(s), points=int(pt), reason=reason)
        if r.match_end == "race" and not r.check_only_at_hand_end:
            hit = self.scores[g, sides] >= r.target
            if hit.any():
                gh = g[hit]
                if in_play:
                    self._finish(gh, TARGET, winner=sides[hit])
                self.target_hit[gh] = True

    def _block_test(self, g):
        """§1.12: blocked when no hand holds a fitting tile and nothing can be drawn."""
        # only games with nothing left to draw can be blocked (blind_draw_optional: any, §3.9a)
        if self.blind and self.r.blind_draw_optional:
            g = g[~np.take(self.over, g)]
        else:
            g = g[(np.take(self.send, g) <= np.take(self.sp, g)) & ~np.take(self.over, g)]
        if not len(g):
            return
        sel = TB.BYTES_OF[self._valmask(g)]
        hands = np.take(self.hands, g, axis=0)
        can = (hands[:, 0] & sel) != 0
        for s in range(1, self.P):
            can |= (hands[:, s] & sel) != 0
        if not can.all():
            gb = g[~can]
            self._finish(gb, BLOCKED, fish=self.last_placer[gb])

    def _finish(self, g, reason, went_out=None, fish=None, winner=None):
        self.over[g] = True
        self.end_reason[g] = reason
        if went_out is not None:
            self.went_out[g] = went_out
        if fish is not None:
            self.fish[g] = fish
        if winner is not None:
            self.winner[g] = winner

    # ------------------------------------------------------------------------------------------
    # settlement, records, next hands
    # ------------------------------------------------------------------------------------------
    def _side_pips(self, g):
        seat_pips = TB.pips_of(self.hands[g])  # [n, P]
        out = np.zeros((len(g), self.S), dtype=np.int64)
        for s in range(self.P):
            out[:, self.side_of[s]] += seat_pips[:, s]
        return seat_pips, out

    def _end_hands(self, g):
        seat_pips, pips = self._side_pips(g)
        self.end_pips[g] = pips
        self.end_values[g] = pips
        if self.log:
            for i in g:
                self._ev(i, type="hand_end", reason=END_NAMES[self.end_reason[i]],
                         fish_maker=int(self.fish[i]) if self.end_reason[i] == BLOCKED else None,
                         went_out=int(self.went_out[i]) if self.went_out[i] >= 0 else None,
                         pips=[int(x) for x in pips[g == i][0]])  # fmt: skip
        settle = np.flatnonzero(self.end_reason[g] != TARGET)
        if len(settle):
            from .settle import settle_batch

            settle_batch(self, g[settle], seat_pips[settle], pips[settle])
        if self.log:
            for i in g:
                for ev in reversed(self.events[i]):
                    if ev["type"] == "hand_end":
                        ev["winner"] = int(self.winner[i]) if self.winner[i] >= 0 else None
                        break
        self._record_hands(g)
        done, mwin = self._match_over(g)
        self.prev_leader[g] = self.leader[g]
        self.prev_winner[g] = self.winner[g]
        self.prev_out[g] = self.went_out[g]
        self.prev_fish[g] = self.fish[g]
        self.prev_seat_pips[g] = seat_pips
        fin = g[done]
        if len(fin):
            self._record_matches(fin, mwin[done])
            self._start_matches(fin)
        cont = g[~done]
        if len(cont):
            self.hand_idx[cont] += 1
            self._deal(cont, first=False)

    def _match_over(self, g):
        r = self.r
        n = len(g)
        done = np.zeros(n, dtype=bool)
        win = np.full(n, -1, dtype=np.int64)
        sc = self.scores[g]
        if r.match_end == "race":
            if r.check_only_at_hand_end:
                top = sc.max(axis=1)
                unique = (sc == top[:, None]).sum(axis=1) == 1
                done = (top >= r.target) & unique
                win = np.where(done, sc.argmax(axis=1), -1)
            else:
                done = self.target_hit[g]
                win = np.where(done, sc.argmax(axis=1), -1)
        elif r.match_end == "one_hand":
            self.scores[g] += self.penalties[g]
            sc = self.scores[g]
            done = self.hand_idx[g] + 1 >= r.hands_per_match
            if r.hands_per_match == 1:
                win = np.where(done, self.winner[g], -1)
            else:
                lo = sc.min(axis=1)
                unique = (sc == lo[:, None]).sum(axis=1) == 1
                win = np.where(done & unique, sc.argmin(axis=1), -1)
        else:
            from .settle import kozel_match_over

            done, win = kozel_match_over(self, g)
        if self.unit == "hand":
            win = np.where(done, win, self.winner[g])
            done[:] = True
        self._match_done_flag = done
        return done, win

    def _record_hands(self, g):
        row = {
            "match_id": self.match[g].copy(),
            "hand_index": self.hand_idx[g].copy(),
            "leader": self.leader[g].copy(),
            "end_reason": self.end_reason[g].copy(),
            "fish_maker": self.fish[g].copy(),
            "winner": self.winner[g].copy(),
            "went_out": self.went_out[g].copy(),
            "hand_length": self.hand_length[g].copy(),
            "turns": self.turns[g].copy(),
            "draws": self.draws[g].copy(),
            "passes": self.passes[g].copy(),
            "points": self.points[g].copy(),
            "pips": self.end_pips[g].copy(),
            "penalties": self.penalties[g].copy(),
            "redeals": self.attempt[g].copy(),
            "values": self.end_values[g].copy(),
        }
        self.hand_rows.append(row)

    def _record_matches(self, g, win):
        r = self.r
        if self.kozel:
            scores = np.where(self.written[g] < 0, 0, self.written[g])
        else:
            scores = self.scores[g].copy()
        self.match_rows.append(
            {
                "match_id": self.match[g].copy(),
                "winner": win.copy(),
                "hands": self.hand_idx[g] + 1,
                "scores": scores,
                "dry": self.dry[g].copy(),
                "losers": self.losers[g].copy(),
            }
        )
        if self.log:
            for i, w in zip(g, win, strict=True):
                self._ev(i, type="match_end", winner=int(w) if w >= 0 else None,
                         scores=[int(x) for x in scores[g == i][0]])  # fmt: skip
                self.finished_events = getattr(self, "finished_events", {})
                self.finished_events[int(self.match[i])] = self.events[i]
        del r

    # ------------------------------------------------------------------------------------------
    # the compiled path (kernel.py): the kernel plays up to each decision with a choice
    # ------------------------------------------------------------------------------------------
    def _run_kernel(self):
        B, P, S, npts = self.B, self.P, self.S, self.npoints
        if not self.active.any():
            self.active[:] = True
            self.phase[:] = KN.START
        R = KN.knobs(self.r, self.unit)
        sd = KN.seeds(self.seed, P)
        prio = KN.first_priority(self.r)
        htmpl = np.ascontiguousarray(self._htmpl[:, 0])
        qpos = np.array([self.next_q], dtype=np.int64)
        st = self._kst
        st["ask"] = KN.ASK_NONE
        ask, act = st["ask"], st["act"]
        # slot -> queue position (from_positions fills slot i with queue entry i)
        st["qidx"] = np.arange(B, dtype=np.int64)
        bad = KN.check_slots(R, st, self._kbst, len(self.queue))
        if bad >= 0:
            raise ValueError(f"{KN.BAD_STATE}: slot {bad}")
        # the decisions of a round, as two lists (0: placements, 1: leads): a row of cd each
        # (columns KN.CD_*), a placement's values and slot masks in cvals, cmasks
        nd = np.zeros(2, dtype=np.int64)
        cd = np.zeros((2, B, KN.CDW), dtype=np.int64)
        cact = np.zeros((2, B), dtype=np.int64)  # the strategies' choices, in list order
        cvals = np.zeros((B, self.NP), dtype=np.int64)
        cmasks = np.zeros((B, self.NP), dtype=np.int64)
        no = np.zeros(B, dtype=bool)
        lead_vals = np.full((B, self.NP), -1, dtype=np.int64)
        lead_masks = np.zeros((B, self.NP), dtype=np.int64)
        along = self.r.inline_double_counts_single
        # decisions with flags (blind's turn, voluntary draws) are asked by phase name
        flagged = self.blind or self._flags
        # records, column by column: matches (and hands, with unit "hand") in queue order
        nq = len(self.queue)
        hcols = len(KN.HREC) + npts + S + P + S
        direct = self.unit == "hand"
        # (int32: half the memory to touch; the match id column holds the queue position)
        hdir = np.zeros((hcols, nq if direct else 0), dtype=np.int32)
        hrec = np.zeros((hcols, 0 if direct else self._kcap), dtype=np.int32)
        mdir = np.zeros((len(KN.MREC) + npts, nq), dtype=np.int32)
        nrec = np.zeros(2, dtype=np.int64)
        while True:
            start = 0
            while start >= 0:
                start = KN.advance(R, sd, prio, htmpl, self.queue, qpos, self._policy, st,
                                   self._kbst, nd, cd, cact, cvals, cmasks, hdir, hrec, mdir, nrec,
                                   start)  # fmt: skip
                if nrec[0]:
                    self._kblocks.append(hrec[:, : nrec[0]].copy())
                    nrec[0] = 0
                if start <= -2:
                    raise self._kernel_illegal(-2 - start, ask, act)
            n_play, n_lead = int(nd[0]), int(nd[1])
            if not n_play + n_lead:
                break
            if flagged:  # placements and flags, by phase name
                self._kernel_flag_round(n_play, cd, cvals, cmasks, cact, along)
                n_play = 0
            for kind, n in ((0, n_play), (1, n_lead)):
                if not n:
                    continue
                c = cd[kind, :n]
                if kind == 0:
                    legal = Legal(cvals[:n], cmasks[:n], along, None, no[:n], no[:n], no[:n])
                else:
                    legal = Legal(lead_vals[:n], lead_masks[:n], along, c[:, KN.CD_LEAD],
                                  no[:n], no[:n], no[:n])  # fmt: skip
                legal._no_flags = True
                pre = {"voids": c[:, KN.CD_VOIDS : KN.CD_VOIDS + P], "values": legal.values}
                if not self.blind:  # (in blind the owner sees only the row tiles he looked at)
                    pre["hand"] = c[:, KN.CD_HAND].view(U64)
                cact[kind, :n] = self._ask_rows(c, legal, "play", pre)
        self.next_q = int(qpos[0])
        self._kernel_fields(hdir if direct else None, mdir)
        return self._collect()

    def _kernel_flag_round(self, n, cd, cvals, cmasks, cact, along):
        """A round of placement decisions that may carry flags (blind's turn, §3.7; voluntary
        draws, §11.7 and §15): one ask per phase name."""
        if not n:
            return
        ph = cd[0, :n, KN.CD_PHASE]
        for code in np.unique(ph):
            sel = np.flatnonzero(ph == code)
            c = cd[0, sel]
            flags = _kernel_flags(c[:, KN.CD_FLAGS])
            legal = Legal(cvals[sel], cmasks[sel], along, None, *flags)
            cact[0, sel] = self._ask_rows(c, legal, KN.PHASES[code])

    def _ask_rows(self, c, legal: Legal, phase_name: str, pre=None):
        """The strategies' choices for the kernel's decision rows ``c`` (columns KN.CD_*);
        the kernel checks that they are legal."""
        return self._ask(c[:, KN.CD_SLOT], c[:, KN.CD_SEAT], legal, c[:, KN.CD_KEY].view(U64),
                         c[:, KN.CD_DEC], phase_name, check=False, pre=pre)  # fmt: skip

    def _kernel_illegal(self, i: int, ask, act) -> StrategyError:
        """The error for the illegal action the core refused at slot ``i``."""
        g = np.array([i])
        seat = self.to_move[g]
        no = np.zeros(1, dtype=bool)
        if self.blind and ask[i] == KN.ASK_PLAY:  # the blind turn's pending decision
            bw = self._kbst[i]
            draw, pass_, stop = _kernel_flags(np.array([int(bw["cflag"])]))
            tph = int(bw["tph"])
            if tph in (KN.T_FRONT, KN.T_DRAWN):
                legal = self._single_legal(g, np.array([int(bw["dtile"])]), draw=draw,
                                           pass_=pass_)  # fmt: skip
            elif tph in (KN.T_OPLAY, KN.T_CONT):
                legal = Legal(self.vals[g], self._masks(g, seat), False, None, no, no, stop)
            else:
                legal = self._flags_legal(g, draw, pass_)
        elif ask[i] == KN.ASK_LEAD:
            t = int(self.lead_tile[i])
            lead = np.array([1 << t]) if t >= 0 else TB.mask28_of(self.hands[g, seat])
            legal = Legal(self.vals[g], np.zeros((1, self.NP), dtype=np.int64),
                          self.r.inline_double_counts_single, lead, no, no, no)  # fmt: skip
        else:  # (voluntary draws: the flags follow from the turn's phase)
            ph = int(self.phase[i])
            draw = ph == KN.BOFFER or (ph == KN.MAYDRAW and int(self._drawable(g)[0]) > 0)
            legal = self._legal(g, seat, draw=np.array([draw]),
                                pass_=np.array([ph == KN.AFTERDRAW]))  # fmt: skip
        return self._illegal(self.strategies[int(seat[0])], legal, 0, int(act[i]))

    def _kernel_fields(self, hdir, mdir) -> None:
        """The kernel's records as record dicts (the numpy path's fields), in (match id, hand
        index) order."""
        if hdir is None:
            h = np.concatenate(self._kblocks, axis=1) if self._kblocks else hdir
            self._kblocks = []
        else:
            h = hdir
        # queue position -> match id
        qmatch = self.queue if self._qmatch is None else self._qmatch
        if h is not None and h.shape[1]:
            mid = qmatch[h[0]]
            if hdir is None or not np.all(mid[1:] > mid[:-1]):
                o = np.lexsort((h[1], mid))
                h, mid = h[:, o], mid[o]
            col = {name: h[j] for j, name in enumerate(KN.HREC)}
            col["match_id"] = mid
            c = len(KN.HREC)
            for name, w in (("points", self.npoints), ("pips", self.S), ("penalties", self.P),
                            ("values", self.S)):  # fmt: skip
                col[name] = h[c : c + w].T
                c += w
            self.hand_rows.append({name: col[name] for name in _HAND_KEYS})
        m = mdir[:, : self.next_q]
        if m.shape[1]:
            mid = qmatch[m[0]]
            if not np.all(mid[1:] > mid[:-1]):
                o = np.argsort(mid, kind="stable")
                m, mid = m[:, o], mid[o]
            col = {name: m[j] for j, name in enumerate(KN.MREC)}
            col["match_id"] = mid
            col["dry"] = col["dry"].astype(bool)
            col["scores"] = m[len(KN.MREC) :].T
            self.match_rows.append({name: col[name] for name in _MATCH_KEYS})

    def _collect(self):
        def cat(rows, key):
            if len(rows) == 1:
                return rows[0][key]
            return np.concatenate([row[key] for row in rows]) if rows else np.zeros(0)

        ordered = self.kernel and len(self.hand_rows) <= 1 and len(self.match_rows) <= 1

        hands = {k: cat(self.hand_rows, k) for k in (self.hand_rows[0] if self.hand_rows else {})}
        matches = {
            k: cat(self.match_rows, k) for k in (self.match_rows[0] if self.match_rows else {})
        }
        # one canonical order (match id, hand index) whatever the path or the batch size
        if ordered:  # _kernel_fields sorted them
            return hands, matches
        if hands and len(hands["match_id"]) > 1:
            o = np.lexsort((hands["hand_index"], hands["match_id"]))
            hands = {k: v[o] for k, v in hands.items()}
        if matches and len(matches["match_id"]) > 1:
            o = np.argsort(matches["match_id"], kind="stable")
            matches = {k: v[o] for k, v in matches.items()}
        return hands, matches


_7F = U64(0x7F)
_PACK_INT = [int(x) for x in TB.PACK]
# record fields, in the order of _record_hands / _record_matches
_HAND_KEYS = ("match_id", "hand_index", "leader", "end_reason", "fish_maker", "winner",
              "went_out", "hand_length", "turns", "draws", "passes", "points", "pips",
              "penalties", "redeals", "values")  # fmt: skip
_MATCH_KEYS = ("match_id", "winner", "hands", "scores", "dry", "losers")


def _kernel_flags(f: np.ndarray) -> tuple:
    """A blind decision's flag bits (KN.F_*) as Legal's draw, pass and stop arrays."""
    return (f & KN.F_DRAW) != 0, (f & KN.F_PASS) != 0, (f & KN.F_STOP) != 0


def _reset_rows(flat: np.ndarray, g: np.ndarray, k: int, value) -> None:
    """``a[g] = value`` for a C-contiguous [B, k] array given as its flat view (fast path)."""
    if k == 1:
        flat[g] = value
    else:
        flat[(g[:, None] * k + _ARANGE8[:k]).ravel()] = value


_ARANGE8 = np.arange(8, dtype=np.int64)
_POW28 = 2.0 ** np.arange(28)
_TILE_VALS_F = np.zeros((28, 8))  # [t, v] 1 where tile t carries v
for _t in range(28):
    _TILE_VALS_F[_t, TB.TILE_LOW[_t]] = 1
    _TILE_VALS_F[_t, TB.TILE_HIGH[_t]] = 1
_PRIO_CACHE: dict = {}


def _prio_tables(prio):
    """Per 7-tile chunk of a 28-bit tile mask, the mask of the chunk's tiles' ranks in prio."""
    if prio not in _PRIO_CACHE:
        rank = {t: j for j, t in enumerate(prio)}
        tabs = np.zeros((4, 128), dtype=np.int64)
        for part in range(4):
            for m in range(128):
                tabs[part, m] = sum(1 << rank[7 * part + b] for b in range(7)
                                    if m >> b & 1 and 7 * part + b in rank)  # fmt: skip
        _PRIO_CACHE[prio] = (tabs, np.array(prio if prio else (-1,), dtype=np.int64))
    return _PRIO_CACHE[prio]


TB_DOUBLES = [int(TB.TILE_AT[v, v]) for v in range(7)]
_ND = [t for t in range(28) if not TB.IS_DOUBLE[t]]
NONDOUBLES_ASC = sorted(_ND, key=lambda t: (int(TB.TILE_PIPS[t]), int(TB.TILE_HIGH[t])))
NONDOUBLES_DESC = list(reversed(NONDOUBLES_ASC))


def _one_line(text: str, limit: int = 200) -> str:
    """``text`` on one line, shortened to ``limit`` characters (for error messages)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
