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

Where the batch engine cannot start from the position it plays like ``greedy``: spinner layouts
(sniff), ladder's single end, blind (row tiles and the open phase's continue/stop), and decisions
after a voluntary draw. (The playouts start without the layout's history: an end formed by a
double laid along under ``inline_double_counts_single`` counts as across there.) Parameters: ``samples`` deals per
decision (256), ``policy`` the playout policy (``random``, ``heaviest``, ``greedy`` or
``doubles-first``), ``max_batch`` positions per engine run (memory stays well under 2 GB).
"""

from __future__ import annotations

import numpy as np

from dominosim import actions as A
from dominosim import seeding
from dominosim.errors import StrategyError
from dominosim.strategy import Strategy, get, register
from dominosim.tiles import HIGH, LOW

_MID_MASK = (1 << 62) - 1
POLICIES = ("random", "heaviest", "greedy", "doubles-first")


def sample_deals(obs, key: int, samples: int, tries: int = 4):
    """Up to ``samples`` hidden deals ``(hands, stock)`` consistent with ``obs`` (hands indexed
    by seat, the own hand included); None when the counts do not add up (blind's rows)."""
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
    # first try of every sample at once: each seat, in turn, takes the first tiles (by key) it
    # may hold that are still free
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
    deals = []
    for j in range(S):
        if ok[j]:
            hands = [[] for _ in range(P)]
            hands[me] = list(obs.hand)
            for s in others:
                hands[s] = unseen[order[j][takes[s][j]]].tolist()
            deals.append((hands, unseen[order[j][free[j]]].tolist()))
            continue
        for attempt in range(1, tries):  # rare: try again with other keys
            deal = _one_deal(obs, key, j, attempt, unseen, allowed, need, order_seats)
            if deal is not None:
                deals.append(deal)
                break
    return deals


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


#: The largest ``samples`` and ``max_batch`` (beyond them a decision needs gigabytes).
MAX_PARAM = {"samples": 100_000, "max_batch": 1_000_000}


@register
class MonteCarlo(Strategy):
    """Determinized Monte Carlo: sample hidden hands, play each action out, best mean points."""

    name = "mc"
    params = {"samples": 256, "policy": "doubles-first", "max_batch": 4096}

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
        return (len(legal) >= 2 and r.layout == "line" and r.draw_mode != "blind"
                and obs.phase == "play" and not obs.face_up)  # fmt: skip

    def _positions(self, obs, legal, key):
        """(positions, root seats, tested actions, match ids) of one decision, or None."""
        deals = sample_deals(obs, key, self.settings["samples"])
        if not deals:
            return None
        ends = dict(obs.positions)
        doubles = {p: bool(obs.doubles[i]) if obs.doubles else False
                   for i, (p, _) in enumerate(obs.positions)}  # fmt: skip
        leader = obs.leader if ends else obs.seat
        cands = [c for c, a in enumerate(legal) if not _mirror(a, legal, ends, doubles)]
        out = []
        for j, (hands, stock) in enumerate(deals):
            for c in cands:
                a = legal[c]
                mid = seeding.key(key, j, c) & _MID_MASK
                out.append((
                    {"hands": hands, "stock": stock, "ends": ends, "doubles": doubles,
                     "to_move": obs.seat, "leader": leader, "scores": list(obs.scores),
                     "match_id": mid},
                    obs.seat, a, mid, c,
                ))  # fmt: skip
        return out

    def _values(self, rules, items):
        """Playout value for each item of ``items`` (from :meth:`_positions`)."""
        from dominosim.engine.batch import BatchEngine

        if self._policy is None:
            self._policy = get(self.settings["policy"])
        n = len(items)
        vals = np.zeros(n)
        P = rules.players
        cap = self.settings["max_batch"]
        for lo in range(0, n, cap):
            chunk = items[lo : lo + cap]
            mids = np.array([it[3] for it in chunk], dtype=np.int64)
            root = _Root(self._policy, mids, [it[1] for it in chunk], [it[2] for it in chunk])
            eng = BatchEngine.from_positions(rules, 0, [root] * P, [it[0] for it in chunk])
            hands, _ = eng.run()
            order = np.argsort(mids)
            where = order[np.searchsorted(mids[order], hands["match_id"])]
            pts = np.asarray(hands["points"], dtype=np.float64)
            seats = np.array([it[1] for it in chunk], dtype=np.int64)[where]
            vals[lo + where] = _value(rules, pts, seats)
        return vals

    def _decide(self, rows):
        """Actions for ``rows`` of (obs, legal, key), searched together."""
        out = [None] * len(rows)
        items, owner = [], []
        rules = None
        for i, (obs, legal, key) in enumerate(rows):
            plan = self._positions(obs, legal, key) if self.searchable(obs, legal) else None
            if plan is None:
                out[i] = self._fallback(obs, legal, key)
                continue
            rules = obs.rules
            items += plan
            owner += [i] * len(plan)
        if items:
            vals = self._values(rules, items)
            owner = np.array(owner)
            cand = np.array([it[4] for it in items])
            for i in np.unique(owner):
                legal = rows[i][1]
                sel = owner == i
                sums = np.bincount(cand[sel], weights=vals[sel], minlength=len(legal))
                n = np.bincount(cand[sel], minlength=len(legal))
                mean = np.where(n > 0, sums / np.maximum(n, 1), -np.inf)  # mirrors: not played
                out[i] = legal[int(np.argmax(mean))]  # ties: the first in canonical order
        return out

    # -- interface -------------------------------------------------------------------------
    def choose_one(self, obs, legal, key):
        return self._decide([(obs, list(legal), int(key))])[0]

    def choose(self, obs, legal, keys):
        rows = [(obs.row(i), legal.row_list(i), int(keys[i])) for i in range(len(keys))]
        return np.array(self._decide(rows), dtype=np.int64)


def _mirror(a, legal, ends, doubles) -> bool:
    """Whether placement ``a`` on R mirrors the same placement on L (both ends show the same
    value, both formed by a double or neither): the positions are the same up to left and
    right, so only the one on L is played out."""
    if not A.is_placement(a) or A.pos_of(a) != "R" or ends.get("L") != ends.get("R"):
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
