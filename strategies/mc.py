"""mc: determinized Monte Carlo search ("perfect information Monte Carlo").

For each decision it deals the hidden tiles many times, consistently with everything the seat
knows, plays every legal action out to the end of the hand under a fast policy, and takes the
action with the best mean result. This is the determinization of Ginsberg's bridge program GIB
(M. Ginsberg, "GIB: Imperfect information in a computationally challenging game", JAIR 14,
2001), analysed by Long, Sturtevant, Buro and Furtak ("Understanding the success of perfect
information Monte Carlo sampling in game tree search", AAAI 2010); it is the standard strong
baseline for trick-taking and domino games.

A sample: the unseen tiles (28 minus the own hand, the table and face-up tiles) are ordered by
keys drawn from the decision's key; each other seat takes, in that order, as many tiles as it
holds among those carrying none of its known void values (the most constrained seat first); the
rest is the stock, in that order. Each (sample, action) pair is one position of
:meth:`BatchEngine.from_positions`; the engine plays it to the end of the hand, the seat's first
decision being the action under test and every other decision the ``policy``
(``doubles-first`` by default: it decides whole batches with array passes, is the strongest
cheap heuristic at winning hands, and being deterministic it plays every candidate action out
against the same deals with the same replies, so candidates are compared on common random
numbers). The value of a
playout is the hand's points of the seat's side minus the mean of the other sides' (negated where
lower is better: two-lane, ladder, kozel); in-play points of the tested action count. All
randomness comes from the decision's key (samples and the playouts' match ids), so a decision is
reproducible and does not depend on the batch it is part of.

The positions are rows of arrays (:meth:`BatchEngine.from_arrays`): every open layout (line,
two lanes, single end, spinner with its arms; doubles laid along), the tested action as the
seat's first decision, which the core plays, and the policy's compiled twin for the rest, so a
decision's playouts run inside the core. It plays like ``greedy`` where it cannot start from the
position: blind (row tiles and the open phase's continue/stop), decisions after a voluntary
draw, and observations with face-up tiles. Parameters: ``samples`` deals per
decision (1024), ``policy`` the playout policy (``random``, ``heaviest``, ``greedy`` or
``doubles-first``), ``max_batch`` positions per engine run (memory stays well under 2 GB).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np

from dominosim import actions, seeding
from dominosim.engine.tables import PACK
from dominosim.errors import StrategyError
from dominosim.strategy import Strategy, get, register
from dominosim.tiles import HIGH, LOW

_MID_MASK = (1 << 62) - 1
POLICIES = ("random", "heaviest", "greedy", "doubles-first")


@dataclass
class _Draw:
    """The first try of every sample at once (:func:`_draw`): per sample, the unseen tiles in
    key order; per other seat the tiles it takes (by position in that order); what stays free
    (the stock); whether every seat got its count."""

    unseen: np.ndarray
    order: np.ndarray
    takes: dict
    free: np.ndarray
    ok: np.ndarray
    allowed: dict
    need: dict
    order_seats: list


def _draw(obs, key: int, samples: int) -> _Draw | None:
    r = obs.rules
    P = r.players
    me = obs.seat
    known = set(obs.hand) | set(obs.table) | set(obs.face_up)
    unseen = np.array([t for t in range(28) if t not in known], dtype=np.int64)
    others = [s for s in range(P) if s != me]
    need = {s: obs.counts[s] for s in others}
    if len(unseen) != sum(need.values()) + obs.stock_size:
        return None
    lo, hi = LOW[unseen].astype(np.int64), HIGH[unseen].astype(np.int64)
    allowed = {}
    for s in others:
        vm = 0
        for v in obs.voids[s]:
            vm |= 1 << v
        allowed[s] = ((vm >> lo) & 1 | (vm >> hi) & 1) == 0
    order_seats = sorted(others, key=lambda s: (int(allowed[s].sum()) - need[s], s))
    # each seat, in turn, takes the first tiles (by key) it may hold that are still free
    S, U = samples, len(unseen)
    order = np.argsort(seeding.key_np(key, np.arange(S)[:, None], 0, unseen[None, :]),
                       axis=1, kind="stable")  # fmt: skip
    free = np.ones((S, U), dtype=bool)  # by position in order
    ok = np.ones(S, dtype=bool)
    takes = {}
    for s in order_seats:
        el = free & allowed[s][order]
        cs = np.cumsum(el, axis=1)
        takes[s] = el & (cs <= need[s])
        ok &= (cs[:, -1] if U else np.zeros(S, dtype=np.int64)) >= need[s]
        free &= ~takes[s]
    return _Draw(unseen, order, takes, free, ok, allowed, need, order_seats)


def _retry(obs, key, d: _Draw, j: int, tries: int):
    """A deal for sample ``j`` whose first try failed (rare: other keys), or None."""
    for attempt in range(1, tries):
        deal = _one_deal(obs, key, j, attempt, d.unseen, d.allowed, d.need, d.order_seats)
        if deal is not None:
            return deal
    return None


def sample_deals(obs, key: int, samples: int, tries: int = 4):
    """Up to ``samples`` hidden deals ``(hands, stock)`` consistent with ``obs`` (hands indexed
    by seat, the own hand included); None when the counts do not add up (blind's rows)."""
    d = _draw(obs, key, samples)
    if d is None:
        return None
    deals = []
    for j in range(samples):
        if not d.ok[j]:
            deal = _retry(obs, key, d, j, tries)
            if deal is not None:
                deals.append(deal)
            continue
        hands = [[] for _ in range(obs.rules.players)]
        hands[obs.seat] = list(obs.hand)
        for s in d.takes:
            hands[s] = d.unseen[d.order[j][d.takes[s][j]]].tolist()
        deals.append((hands, d.unseen[d.order[j][d.free[j]]].tolist()))
    return deals


def sample_arrays(obs, key: int, samples: int, tries: int = 4):
    """:func:`sample_deals` as arrays: ``(hands, stock)``, the hands packed ``[n, P]``
    (tables.PACK) and the stock ``[n, stock size]`` in draw order, the same deals in the same
    order; None where :func:`sample_deals` gives None."""
    d = _draw(obs, key, samples)
    if d is None:
        return None
    P, k = obs.rules.players, obs.stock_size
    tiles_in_order = d.unseen[d.order]  # [S, U]
    packs = PACK[tiles_in_order]
    hands = np.zeros((samples, P), dtype=np.uint64)
    hands[:, obs.seat] = PACK[np.asarray(obs.hand, dtype=np.int64)].sum(dtype=np.uint64)
    for s, take in d.takes.items():
        hands[:, s] = np.where(take, packs, np.uint64(0)).sum(axis=1, dtype=np.uint64)
    stock = np.zeros((samples, k), dtype=np.int64)
    okr = np.flatnonzero(d.ok)
    if k and len(okr):
        stock[okr] = tiles_in_order[okr][d.free[okr]].reshape(len(okr), k)
    keep = d.ok.copy()
    for j in np.flatnonzero(~d.ok):
        deal = _retry(obs, key, d, int(j), tries)
        if deal is None:
            continue
        keep[j] = True
        for s, h in enumerate(deal[0]):
            hands[j, s] = PACK[np.asarray(h, dtype=np.int64)].sum(dtype=np.uint64)
        stock[j] = deal[1]
    return hands[keep], stock[keep]


def _one_deal(obs, key, j, attempt, unseen, allowed, need, order_seats):
    prio = seeding.key_np(key, j, attempt, unseen)
    order = np.argsort(prio, kind="stable")
    free = np.ones(len(unseen), dtype=bool)
    hands = [[] for _ in range(obs.rules.players)]
    hands[obs.seat] = list(obs.hand)
    for s in order_seats:
        cand = order[free[order] & allowed[s][order]][: need[s]]
        if len(cand) < need[s]:
            return None
        free[cand] = False
        hands[s] = [int(t) for t in unseen[cand]]
    return hands, [int(t) for t in unseen[order[free[order]]]]


class _Root(Strategy):
    """Playout strategy: the tested action at each position's first decision of the root seat,
    the policy everywhere else."""

    name = "mc-playout"
    params = {}

    def __init__(self, policy, mids, seats, acts):
        super().__init__()
        self.policy = policy
        order = np.argsort(mids)
        self.mids = np.asarray(mids, dtype=np.int64)[order]
        self.seats = np.asarray(seats, dtype=np.int64)[order]
        self.acts = np.asarray(acts, dtype=np.int64)[order]
        self.pending = np.ones(len(order), dtype=bool)

    def choose(self, obs, legal, keys):
        out = np.asarray(self.policy.choose(obs, legal, keys), dtype=np.int64).copy()
        m = np.asarray(obs.match_id, dtype=np.int64)
        idx = np.minimum(np.searchsorted(self.mids, m), len(self.mids) - 1)
        hit = (self.mids[idx] == m) & self.pending[idx] & (self.seats[idx] == obs.seat)
        if hit.any():
            rows = np.flatnonzero(hit)
            act = self.acts[idx[rows]]
            ok = legal.take(rows).contains(act)
            out[rows[ok]] = act[ok]
            self.pending[idx[rows]] = False
        return out


@dataclass
class _Plan:
    """Playouts as arrays: per sampled deal its position (BatchEngine.from_arrays' fields and
    the root seat), and per playout the deal it starts from, its match id, the tested action
    and that action's index in the legal list. A deal's row is shared by its candidates (not
    copied for each)."""

    hands: np.ndarray
    stock: np.ndarray
    vals: np.ndarray
    dbl: np.ndarray
    alg: np.ndarray
    spinner: np.ndarray
    covered: np.ndarray
    table: np.ndarray
    to_move: np.ndarray
    leader: np.ndarray
    scores: np.ndarray
    seat: np.ndarray
    deal: np.ndarray  # per playout from here on
    mids: np.ndarray
    first: np.ndarray
    cand: np.ndarray

    PER_PLAYOUT = ("deal", "mids", "first", "cand")

    def rows(self, sel) -> _Plan:
        """The playouts ``sel`` (the deals stay shared)."""
        return replace(self, **{k: getattr(self, k)[sel] for k in self.PER_PLAYOUT})

    def expand(self, name: str) -> np.ndarray:
        """A deal field, one row per playout."""
        return getattr(self, name)[self.deal]

    @staticmethod
    def concat(plans: list) -> _Plan:
        if len(plans) == 1:
            return plans[0]
        offsets = np.cumsum([0] + [len(p.hands) for p in plans[:-1]])
        out = {f.name: np.concatenate([getattr(p, f.name) for p in plans])
               for f in fields(_Plan) if f.name != "deal"}  # fmt: skip
        out["deal"] = np.concatenate([p.deal + o for p, o in zip(plans, offsets, strict=True)])
        return _Plan(**out)


#: The largest ``samples`` and ``max_batch`` (beyond them a decision needs gigabytes).
MAX_PARAM = {"samples": 100_000, "max_batch": 1_000_000}


@register
class MonteCarlo(Strategy):
    """Determinized Monte Carlo: sample hidden hands, play each action out, best mean points."""

    name = "mc"
    params = {"samples": 1024, "policy": "doubles-first", "max_batch": 16384}

    def __init__(self, **params):
        super().__init__(**params)
        s = self.settings
        for k in ("samples", "max_batch"):
            if isinstance(s[k], bool) or not isinstance(s[k], int) or s[k] < 1:
                raise StrategyError(f"mc: {k} must be an integer >= 1, not {s[k]!r}")
            if s[k] > MAX_PARAM[k]:  # (memory grows with both)
                raise StrategyError(
                    f"mc: {k} must be at most {MAX_PARAM[k]}, not {s[k]!r}; use a smaller {k}"
                )
        if s["policy"] not in POLICIES:
            raise StrategyError(
                f"mc: policy must be one of {', '.join(POLICIES)}, not {s['policy']!r}"
            )
        self._policy = None
        self._greedy = None

    # -- helpers ---------------------------------------------------------------------------
    def _fallback(self, obs, legal, key):
        if self._greedy is None:
            self._greedy = get("greedy")
        return self._greedy.choose_one(obs, legal, key)

    @staticmethod
    def searchable(obs, legal) -> bool:
        r = obs.rules
        return (len(legal) >= 2 and r.draw_mode != "blind" and obs.phase == "play"
                and not obs.face_up)  # fmt: skip

    def _positions(self, obs, legal, key):
        """The playouts of one decision as arrays (:class:`_Plan`), or None without a deal."""
        drawn = sample_arrays(obs, key, self.settings["samples"])
        if drawn is None or not len(drawn[0]):
            return None
        packed, dealt_stock = drawn
        ends = dict(obs.positions)
        doubles = {p: bool(obs.doubles[i]) if obs.doubles else False
                   for i, (p, _) in enumerate(obs.positions)}  # fmt: skip
        cands = np.array([c for c, a in enumerate(legal) if not _mirror(a, legal, ends, doubles)],
                         dtype=np.int64)  # fmt: skip
        S, C = len(packed), len(cands)
        stock = np.full((S, 28), -1, dtype=np.int8)  # (the engine's own type: less to copy)
        k = obs.stock_size
        if k:
            stock[:, 28 - k :] = dealt_stock
        j = np.repeat(np.arange(S, dtype=np.int64), C)
        c = np.tile(cands, S)
        lay = layout_row(obs)
        return _Plan(
            hands=packed,
            stock=stock,
            vals=np.tile(lay["vals"], (S, 1)),
            dbl=np.tile(lay["dbl"], (S, 1)),
            alg=np.tile(lay["alg"], (S, 1)),
            spinner=np.full(S, lay["spinner"]),
            covered=np.full(S, lay["covered"]),
            table=np.full(S, lay["table"]),
            to_move=np.full(S, obs.seat),
            leader=np.full(S, obs.leader if ends else obs.seat),
            scores=np.tile(np.asarray(obs.scores, dtype=np.int64), (S, 1)),
            seat=np.full(S, obs.seat),
            deal=j,
            mids=(seeding.key_np(key, j, c) & np.uint64(_MID_MASK)).astype(np.int64),
            first=np.asarray(legal, dtype=np.int64)[c],
            cand=c,
        )

    def _values(self, rules, plan, root_in_python: bool | None = None):
        """The playout value of each row of ``plan`` (every decision's playouts together).
        The tested action is the position's first decision, played by the core; where a turn
        may start with a voluntary draw (or ``root_in_python``) a Python wrapper of the policy
        (``_Root``) plays it instead (the same values: tested)."""
        from dominosim.engine.batch import BatchEngine

        if self._policy is None:
            self._policy = get(self.settings["policy"])
        n = len(plan.mids)
        vals = np.zeros(n)
        P = rules.players
        cap = self.settings["max_batch"]
        flags = rules.may_draw_when_able or rules.bergen_voluntary  # a turn may start drawing
        if root_in_python is not None:
            flags = root_in_python
        for lo in range(0, n, cap):
            part = plan.rows(slice(lo, lo + cap))
            order = np.argsort(part.mids)  # by match id: the records come back in this order
            part = part.rows(order)
            mids = part.mids
            seat = part.expand("seat")
            if flags:
                strats = [_Root(self._policy, mids, seat, part.first)] * P
                first = None
            else:  # the tested action as the position's first decision: the playouts run
                # inside the core (the policy's compiled twin decides every other decision)
                strats = [self._policy] * P
                first = part.first
            deal = {k: part.expand(k) for k in ("hands", "stock", "vals", "dbl", "alg", "spinner",
                                                 "covered", "table", "to_move", "leader",
                                                 "scores")}  # fmt: skip
            eng = BatchEngine.from_arrays(rules, 0, strats, match_ids=mids, first=first, **deal)
            hands, _ = eng.run()
            if not np.array_equal(hands["match_id"], mids):  # (one record per playout, in order)
                raise RuntimeError("mc: the playouts' records do not match their positions")
            pts = np.asarray(hands["points"], dtype=np.float64)
            vals[lo + order] = _value(rules, pts, seat)
        return vals

    def _decide(self, rows):
        """Actions for ``rows`` of (obs, legal, key), searched together."""
        out = [None] * len(rows)
        plans, owner = [], []
        rules = None
        for i, (obs, legal, key) in enumerate(rows):
            plan = self._positions(obs, legal, key) if self.searchable(obs, legal) else None
            if plan is None:
                out[i] = self._fallback(obs, legal, key)
                continue
            rules = obs.rules
            plans.append(plan)
            owner.append(np.full(len(plan.mids), i))
        if plans:
            plan = _Plan.concat(plans)
            vals = self._values(rules, plan)
            owner = np.concatenate(owner)
            width = max(len(legal) for _, legal, _ in rows)
            at = owner * width + plan.cand  # (decision, candidate) -> one bin
            cells = len(rows) * width
            sums = np.bincount(at, weights=vals, minlength=cells).reshape(len(rows), width)
            n = np.bincount(at, minlength=cells).reshape(len(rows), width)
            mean = np.where(n > 0, sums / np.maximum(n, 1), -np.inf)  # mirrors: not played
            best = np.argmax(mean, axis=1)  # ties: the first in canonical order
            for i in np.unique(owner):
                out[i] = rows[i][1][int(best[i])]
        return out

    # -- interface -------------------------------------------------------------------------
    def choose_one(self, obs, legal, key):
        return self._decide([(obs, list(legal), int(key))])[0]

    def choose(self, obs, legal, keys):
        rows = [(obs.row(i), legal.row_list(i), int(keys[i])) for i in range(len(keys))]
        return np.array(self._decide(rows), dtype=np.int64)


_NAMES = ("L", "R", "W", "E", "N", "S")


def layout_row(obs) -> dict:
    """The layout of ``obs`` as one row of BatchEngine.from_arrays' layout fields."""
    K = 6 if obs.rules.layout == "spinner" else 2
    vals, dbl, alg = [-1] * K, [False] * K, [False] * K
    for i, (p, v) in enumerate(obs.positions):
        k = _NAMES.index(p)
        vals[k] = v
        dbl[k] = bool(obs.doubles[i]) if obs.doubles else False
        alg[k] = bool(obs.along[i]) if obs.along else False
    covered = sum(1 << "WENS".index(p) for p in obs.covered)
    table = sum(1 << t for t in obs.table)
    spinner = -1 if obs.spinner is None else obs.spinner
    return {"vals": vals, "dbl": dbl, "alg": alg, "spinner": spinner, "covered": covered,
            "table": table}  # fmt: skip


def _mirror(a, legal, ends, doubles) -> bool:
    """Whether placement ``a`` on R mirrors the same placement on L (both ends show the same
    value, both formed by a double or neither): the positions are the same up to left and
    right, so only the one on L is played out."""
    if not actions.is_placement(a) or actions.pos_of(a) != "R" or ends.get("L") != ends.get("R"):
        return False
    return doubles.get("L") == doubles.get("R") and a - 1 in legal


def _value(rules, pts: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """Points of the seat's side minus the mean of the others', higher is better."""
    n, k = pts.shape
    P = rules.players
    side = np.array([rules.side_of(s) for s in range(P)])
    if k == P:  # points by seat (one-hand variants): a side owns its seats
        own = side[None, :] == side[seats][:, None]
    else:
        own = np.arange(k)[None, :] == side[seats][:, None]
    mine = (pts * own).sum(1) / own.sum(1)
    theirs = (pts * ~own).sum(1) / np.maximum((~own).sum(1), 1)
    v = mine - theirs
    return -v if rules.points_sense == "lower" else v
