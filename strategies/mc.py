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
(``doubles-first`` by default: its compiled twin decides inside the core, so a playout never
comes back to Python; it is the strongest cheap heuristic at winning hands, and being deterministic it plays every candidate action out
against the same deals with the same replies, so candidates are compared on common random
numbers). The value of a
playout is the hand's points of the seat's side minus the mean of the other sides' (negated where
lower is better: two-lane, ladder, kozel); in-play points of the tested action count. All
randomness comes from the decision's key (samples and the playouts' match ids), so a decision is
reproducible and does not depend on the batch it is part of.

The positions are rows of arrays (:meth:`BatchEngine.from_arrays`): every open layout (line,
two lanes, single end, spinner with its arms; doubles laid along), the voluntary draws (the
draw is a tested action; the after-draw decision a position of its own) and blind (sampled
rows: the own row keeps its looked-at tiles in place; :func:`sample_rows`), the tested action
as the seat's first decision, which the core plays, and the policy's compiled twin for the
rest, so a decision's playouts run inside the core. Parameters: ``samples`` deals per
decision (256), ``policy`` the playout policy (a built-in with a compiled policy:
:func:`playout_policies`), ``max_batch`` positions per engine run (memory stays well under 2 GB).
``infer`` (on by default: measured stronger, docs/strategies.md; ``mc:infer=off`` is the
plain sampler), ``pool``, ``temp``, ``points``, ``likelihood``: the deals weighted by the other seats' past
placements, as ``pimc`` weights them (:func:`infer_deals`; a deal drawn twice counts twice
in the mean).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from types import SimpleNamespace

import numpy as np

from dominosim.base.errors import StrategyError
from dominosim.engine import kernel
from dominosim.engine.batch import BatchEngine, pending_state
from dominosim.engine.tables import PACK
from dominosim.game import actions, seeding, tiles
from dominosim.game.layout import Layout
from dominosim.game.scoring import placement_points
from dominosim.game.tiles import HIGH, LOW
from dominosim.strategy import Strategy, builtins, get, register

_MID_MASK = (1 << 62) - 1


def playout_policies() -> list[str]:
    """The strategies mc may play its playouts with: the built-ins with a compiled policy, so
    a playout never leaves the core."""
    return builtins(compiled=True)


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


@dataclass
class _Ask:
    """What a sample must respect: the unseen tiles (sorted), per seat to deal to its count,
    its void values (a 7-bit mask) and the unseen tiles it may hold; the seats in dealing
    order (the most constrained first)."""

    unseen: np.ndarray
    need: dict
    voids: dict
    allowed: dict
    order_seats: list


def _ask(obs, seen=()) -> _Ask | None:
    """``seen``: tiles the seat knows besides its hand, the table and the face-up tiles (blind:
    a drawn tile it is deciding on). None when the counts do not add up."""
    r = obs.rules
    P = r.players
    me = obs.seat
    known = set(obs.hand) | set(obs.table) | set(obs.face_up) | set(seen)
    unseen = np.array([t for t in range(28) if t not in known], dtype=np.int64)
    others = [s for s in range(P) if s != me]
    need = {s: obs.counts[s] for s in others}
    if obs.row is not None:  # blind: the own row's unseen tiles too; face-up tiles are known
        need[me] = sum(t is None for t in obs.row)
        for s in obs.face_up_seats:  # (the own ones were looked at: in obs.hand)
            if s != me:
                need[s] -= 1
        others = [s for s in range(P) if s != me or need[me] > 0]
    if len(unseen) != sum(need.values()) + obs.stock_size:
        return None
    lo, hi = LOW[unseen].astype(np.int64), HIGH[unseen].astype(np.int64)
    allowed, voids = {}, {}
    for s in others:
        vm = 0
        for v in obs.voids[s]:
            vm |= 1 << v
        voids[s] = vm
        allowed[s] = ((vm >> lo) & 1 | (vm >> hi) & 1) == 0
    order_seats = sorted(others, key=lambda s: (int(allowed[s].sum()) - need[s], s))
    return _Ask(unseen, need, voids, allowed, order_seats)


def _draw(obs, key: int, samples: int, seen=()) -> _Draw | None:
    """The first try of every sample (the readable definition of core_sample_deals)."""
    a = _ask(obs, seen)
    if a is None:
        return None
    unseen, need, allowed, order_seats = a.unseen, a.need, a.allowed, a.order_seats
    # each seat, in turn, takes the first tiles (by key) it may hold that are still free
    S, U = samples, len(unseen)
    order = np.argsort(
        seeding.key_np(key, np.arange(S)[:, None], 0, unseen[None, :]), axis=1, kind="stable"
    )
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
    d = None if obs.row is not None else _draw(obs, key, samples)
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
    """:func:`sample_deals` as arrays, dealt by the core (``kernel.sample_deals``, the same
    rule step for step): ``(hands, stock)``, the hands packed ``[n, P]`` (tables.PACK) and
    the stock ``[n, 28]`` int8 with the draw order at its end and -1 before it (the engine's
    own layout), the same deals in the same order; None where :func:`sample_deals` gives
    None."""
    a = None if obs.row is not None else _ask(obs)
    if a is None:
        return None
    P, k = obs.rules.players, obs.stock_size
    hands = np.zeros((samples, P), dtype=np.uint64)
    hands[:, obs.seat] = PACK[np.asarray(obs.hand, dtype=np.int64)].sum(dtype=np.uint64)
    stock = np.full((samples, 28), -1, dtype=np.int8)
    ok = np.zeros(samples, dtype=np.int8)
    seats = np.array(a.order_seats, dtype=np.int64)
    kernel.sample_deals(
        key,
        tries,
        a.unseen,
        seats,
        np.array([a.need[s] for s in a.order_seats], dtype=np.int64),
        np.array([a.voids[s] for s in a.order_seats], dtype=np.int64),
        k,
        hands,
        stock,
        ok,
    )
    keep = ok.astype(bool)
    return hands[keep], stock[keep]


def sample_rows(obs, key: int, samples: int, seen=(), tries: int = 4):
    """Blind's hidden state, sampled as :func:`sample_arrays` samples hands: per sample the rows
    ``[n, P, L]`` front to back (-1 after a row's end) and the stock ``[n, 28]`` as
    :func:`sample_arrays` gives it (int8, the draw order at its end, -1 before it). The
    own row keeps the tiles the seat has looked at where they lie and takes sampled tiles where
    it has not looked; another seat's row is its sampled tiles in key order (its order is
    hidden) with its face-up tiles at the back, where each went. ``seen``: a drawn tile the
    seat is deciding on (it is in no row). None when the counts do not add up."""
    d = _draw(obs, key, samples, seen)
    if d is None:
        return None
    P, me, k = obs.rules.players, obs.seat, obs.stock_size
    L = max(obs.counts) if P else 0
    own = np.array([-1 if t is None else t for t in obs.row], dtype=np.int64)
    holes = np.flatnonzero(own < 0)
    tiles_in_order = d.unseen[d.order]
    rows = np.full((samples, P, L), -1, dtype=np.int64)
    ok = np.flatnonzero(d.ok)
    per_seat = {s: tiles_in_order[ok][d.takes[s][ok]].reshape(len(ok), d.need[s]) for s in d.takes}
    stock = np.full((samples, 28), -1, dtype=np.int8)
    if k and len(ok):
        stock[ok, 28 - k :] = tiles_in_order[ok][d.free[ok]].reshape(len(ok), k)
    retried = {int(j): _retry(obs, key, d, int(j), tries) for j in np.flatnonzero(~d.ok)}
    retried = {j: deal for j, deal in retried.items() if deal is not None}
    for s in range(P):
        if s == me:
            rows[:, s, : len(own)] = own
            if len(holes):
                rows[ok[:, None], s, holes[None, :]] = per_seat[s]
        else:
            up = [t for t, h in zip(obs.face_up, obs.face_up_seats, strict=True) if h == s]
            n = d.need[s]
            rows[ok, s, :n] = per_seat[s]
            rows[:, s, n : n + len(up)] = up
    keep = d.ok.copy()
    for j, (hands, rest) in retried.items():  # (the samples whose first try failed)
        keep[j] = True
        stock[j, 28 - k :] = rest
        if len(holes):
            rows[j, me, holes] = hands[me]
        for s in d.takes:
            if s != me:
                rows[j, s, : d.need[s]] = hands[s]
    return rows[keep], stock[keep]


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


@dataclass
class Playouts:
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
    phase: np.ndarray
    deal: np.ndarray  # per playout from here on
    mids: np.ndarray
    first: np.ndarray
    cand: np.ndarray
    blind: dict | None = None  # blind's rows and turn step per deal (from_arrays' blind)

    PER_PLAYOUT = ("deal", "mids", "first", "cand")
    PER_DEAL = (
        "hands",
        "stock",
        "vals",
        "dbl",
        "alg",
        "spinner",
        "covered",
        "table",
        "to_move",
        "leader",
        "scores",
        "phase",
    )

    def rows(self, sel) -> Playouts:
        """The playouts ``sel`` (the deals stay shared)."""
        return replace(self, **{k: getattr(self, k)[sel] for k in self.PER_PLAYOUT})

    def engine(self, rules, strategies) -> BatchEngine:
        """Every sampled deal's position once, as a :meth:`BatchEngine.from_arrays` engine
        (not run): mc spreads its rows to the playouts, pimc solves them."""
        return BatchEngine.from_arrays(
            rules,
            0,
            strategies,
            match_ids=np.zeros(len(self.hands), dtype=np.int64),
            blind=self.blind,
            **{k: getattr(self, k) for k in self.PER_DEAL},
        )

    def expand(self, name: str) -> np.ndarray:
        """A deal field, one row per playout."""
        return getattr(self, name)[self.deal]

    @staticmethod
    def concat(plans: list) -> Playouts:
        if len(plans) == 1:
            return plans[0]
        offsets = np.cumsum([0] + [len(p.hands) for p in plans[:-1]])
        out = {
            f.name: np.concatenate([getattr(p, f.name) for p in plans])
            for f in fields(Playouts)
            if f.name not in ("deal", "blind")
        }
        out["deal"] = np.concatenate([p.deal + o for p, o in zip(plans, offsets, strict=True)])
        if plans[0].blind is not None:  # (one rule set per call: all blind or none)
            width = max(p.blind["rows"].shape[2] for p in plans)
            rows = [
                np.pad(
                    p.blind["rows"],
                    ((0, 0), (0, 0), (0, width - p.blind["rows"].shape[2])),
                    constant_values=-1,
                )
                for p in plans
            ]
            out["blind"] = {
                k: np.concatenate([p.blind[k] for p in plans])
                for k in plans[0].blind
                if k != "rows"
            }
            out["blind"]["rows"] = np.concatenate(rows)
        return Playouts(**out)


def positions(obs, legal, key: int, samples: int, deals=None) -> Playouts | None:
    """The playouts of one decision as arrays (:class:`Playouts`): ``samples`` hidden deals
    consistent with what the seat knows (:func:`sample_arrays`, blind's :func:`sample_rows`),
    or the given ``deals`` ``(hands, stock)`` as :func:`sample_arrays` gives them (not in
    blind: pimc's :func:`infer_deals`), each a position standing at the decision, and per deal
    one playout for each legal action but the mirror images (:func:`_mirror`); None where no
    deal fits. ``pimc`` solves the same positions."""
    state = pending_state(
        obs.rules,
        obs.phase,
        legal,
        bool(obs.opened[obs.seat]) if obs.opened else False,
        obs.row[0] if obs.row else None,
    )
    blind = None
    if obs.row is not None:
        drawn_tile = [state["dtile"]] if state["turn_phase"] == kernel.T_DRAWN else []
        drawn = sample_rows(obs, key, samples, seen=drawn_tile)
        if drawn is None or not len(drawn[0]):
            return None
        rows, stock = drawn
        blind = _blind_rows(obs, rows, state, drawn_tile)
        packed = blind.pop("hands")
    else:
        drawn = sample_arrays(obs, key, samples) if deals is None else deals
        if drawn is None or not len(drawn[0]):
            return None
        packed, stock = drawn
    return positions_of(obs, legal, key, packed, stock, state["phase"], blind)


def positions_of(obs, legal, key, packed, stock, phase, blind=None) -> Playouts:
    """:func:`positions` for given hidden deals: ``packed`` hands ``[n, P]`` and ``stock``
    ``[n, 28]`` as :func:`sample_arrays` gives them, ``phase`` the core's phase of the
    decision (``batch.pending_state``), ``blind`` the rows' fields (:func:`_blind_rows`)."""
    ends = dict(obs.positions)
    doubles = {
        p: bool(obs.doubles[i]) if obs.doubles else False for i, (p, _) in enumerate(obs.positions)
    }
    cands = np.array(
        [c for c, a in enumerate(legal) if not _mirror(a, legal, ends, doubles)], dtype=np.int64
    )
    S, C = len(packed), len(cands)
    j = np.repeat(np.arange(S, dtype=np.int64), C)
    c = np.tile(cands, S)
    lay = layout_row(obs)
    return Playouts(
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
        phase=np.full(S, phase),
        blind=blind,
        deal=j,
        mids=(seeding.key_np(key, j, c) & np.uint64(_MID_MASK)).astype(np.int64),
        first=np.asarray(legal, dtype=np.int64)[c],
        cand=c,
    )


#: The largest ``samples`` and ``max_batch`` (beyond them a decision needs gigabytes).
MAX_PARAM = {"samples": 100_000, "max_batch": 1_000_000}
#: the inference's parameters' ranges (``temp`` below its range overflows the weights, above
#: it the model is uniform; ``points`` the model's score per in-play point)
INFER_RANGE = {"pool": (1, 64), "temp": (0.05, 1000.0), "points": (0.0, 100.0)}


def check_infer_params(name: str, s: dict) -> None:
    """Check (and normalise: ``infer`` on/off to a bool) the inference's parameters of
    strategy ``name``'s settings ``s``: ``infer``, ``pool``, ``temp``, ``points``,
    ``likelihood``."""
    if s["infer"] in ("on", "off"):  # (the command line's spelling, from the API)
        s["infer"] = s["infer"] == "on"
    if not isinstance(s["infer"], bool):
        raise StrategyError(f"{name}: infer must be on or off, not {s['infer']!r}")
    lo, hi = INFER_RANGE["pool"]
    if isinstance(s["pool"], bool) or not isinstance(s["pool"], int) or s["pool"] < lo:
        raise StrategyError(f"{name}: pool must be an integer >= {lo}, not {s['pool']!r}")
    if s["pool"] > hi:
        raise StrategyError(
            f"{name}: pool must be at most {hi}, not {s['pool']!r}; use a smaller pool"
        )
    for k in ("temp", "points"):
        lo, hi = INFER_RANGE[k]
        v = s[k]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not (lo <= v <= hi):
            raise StrategyError(f"{name}: {k} must be a number from {lo} to {hi}, not {v!r}")
    if s["likelihood"] not in LIKELIHOODS:
        raise StrategyError(
            f"{name}: likelihood must be one of {', '.join(LIKELIHOODS)}, not {s['likelihood']!r}"
        )


def weighted_positions(obs, legal, key, s: dict):
    """A decision's positions (:func:`positions`) and the times each deal counts, by the
    sampling settings ``s`` of mc or pimc: with ``infer``, the deals :func:`infer_deals`
    draws (blind: the plain sampler's); without, ``samples`` deals once each.
    ``(None, None)`` where no deal fits."""
    if s["infer"] and obs.row is None:
        got = infer_deals(
            obs,
            key,
            s["samples"],
            s["pool"],
            float(s["temp"]),
            float(s["points"]),
            s["likelihood"],
        )
        if got is None:
            return None, None
        hands, stock, count = got
        return positions(obs, legal, key, s["samples"], deals=(hands, stock)), count
    plan = positions(obs, legal, key, s["samples"])
    return plan, None if plan is None else np.ones(len(plan.hands), dtype=np.int64)


@register
class MonteCarlo(Strategy):
    """Determinized Monte Carlo: sample hidden hands, play each action out, best mean points."""

    name = "mc"
    classifier = "search"
    params = {
        "samples": 256,
        "policy": "doubles-first",
        "max_batch": 16384,
        "infer": True,
        "pool": 4,
        "temp": 4.0,
        "points": 0.0,
        "likelihood": "heuristic",
    }

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
        if s["policy"] not in playout_policies():
            raise StrategyError(
                f"mc: policy must be one of {', '.join(playout_policies())}, not {s['policy']!r}"
            )
        check_infer_params("mc", s)
        self._policy = None
        self._greedy = None

    # -- helpers ---------------------------------------------------------------------------
    def _fallback(self, obs, legal, key):
        """Where no hidden deal fits what the seat knows (not seen in play: a guard)."""
        if self._greedy is None:
            self._greedy = get("greedy")
        return self._greedy.choose_one(obs, legal, key)

    def _positions(self, obs, legal, key):
        """The playouts of one decision as arrays (:class:`Playouts`), or None without a deal."""
        return self._weighted(obs, legal, key)[0]

    def _weighted(self, obs, legal, key):
        """The playouts of one decision and the times each deal counts
        (:func:`weighted_positions`)."""
        return weighted_positions(obs, legal, key, self.settings)

    def _values(self, rules, plan):
        """The playout value of each row of ``plan`` (every decision's playouts together).
        The tested action is the position's first decision, played by the core, and the
        policy's compiled twin decides every other decision: the playouts run inside the
        core."""
        if self._policy is None:
            self._policy = get(self.settings["policy"])
        n = len(plan.mids)
        vals = np.zeros(n)
        cap = self.settings["max_batch"]
        # every sampled deal's position once; each run of playouts copies its deals' slots
        deals = plan.engine(rules, [self._policy] * rules.players)
        for lo in range(0, n, cap):
            part = plan.rows(slice(lo, lo + cap))
            order = np.argsort(part.mids)  # by match id: the records come back in this order
            part = part.rows(order)
            mids = part.mids
            seat = part.expand("seat")
            eng = deals.spread(part.deal, mids, part.first)
            hands, _ = eng.run()
            if not np.array_equal(hands["match_id"], mids):  # (one record per playout, in order)
                raise RuntimeError("mc: the playouts' records do not match their positions")
            pts = np.asarray(hands["points"], dtype=np.float64)
            vals[lo + order] = _value(rules, pts, seat)
        return vals

    def _means(self, rows, min_legal=2):
        """Per row of (obs, legal, key), the mean playout value of each legal action
        (``[rows, widest legal]``; -inf for mirrors, the padding, and a row not searched) and
        whether the row was searched (it has ``min_legal`` actions and a deal fits)."""
        plans, owner, weight = [], [], []
        searched = np.zeros(len(rows), dtype=bool)
        for i, (obs, legal, key) in enumerate(rows):
            plan, count = (
                self._weighted(obs, legal, key) if len(legal) >= min_legal else (None, None)
            )
            if plan is None:
                continue
            searched[i] = True
            plans.append(plan)
            owner.append(np.full(len(plan.mids), i))
            weight.append(count[plan.deal].astype(np.float64))  # (a deal drawn twice: twice)
        width = max((len(legal) for _, legal, _ in rows), default=0)
        mean = np.full((len(rows), width), -np.inf)
        if plans:
            plan = Playouts.concat(plans)
            vals = self._values(rows[int(owner[0][0])][0].rules, plan)
            owner = np.concatenate(owner)
            at = owner * width + plan.cand  # (decision, candidate) -> one bin
            cells = len(rows) * width
            w = np.concatenate(weight)
            sums = np.bincount(at, weights=vals * w, minlength=cells).reshape(len(rows), width)
            n = np.bincount(at, weights=w, minlength=cells).reshape(len(rows), width)
            mean = np.where(n > 0, sums / np.maximum(n, 1), -np.inf)  # mirrors: not played
        return mean, searched

    def _decide(self, rows):
        """Actions for ``rows`` of (obs, legal, key), searched together."""
        mean, searched = self._means(rows)
        out = [None] * len(rows)
        best = np.argmax(mean, axis=1) if mean.shape[1] else None  # ties: the first
        for i, (obs, legal, key) in enumerate(rows):
            if searched[i]:
                out[i] = legal[int(best[i])]
            else:
                out[i] = self._fallback(obs, legal, key)
        return out

    def values(self, obs, legal, key) -> list[float] | None:
        """The mean playout value of each action of ``legal`` (the seat's side's hand points
        minus the others' mean, negated where lower is better), in the order of ``legal``; a
        mirror image takes its twin's value. None where no hidden deal fits what the seat
        knows (:func:`dominosim.action_values`)."""
        legal = list(legal)
        mean, searched = self._means([(obs, legal, int(key))], min_legal=1)
        if not searched[0]:
            return None
        row = [float(v) for v in mean[0]]
        for c, a in enumerate(legal):  # a mirror on R: its twin on L
            if row[c] == -np.inf and a - 1 in legal:
                row[c] = row[legal.index(a - 1)]
        return row

    # -- interface -------------------------------------------------------------------------
    def choose_one(self, obs, legal, key):
        return self._decide([(obs, list(legal), int(key))])[0]

    def choose(self, obs, legal, keys):
        rows = [(obs.row(i), legal.row_list(i), int(keys[i])) for i in range(len(keys))]
        return np.array(self._decide(rows), dtype=np.int64)


_NAMES = ("L", "R", "W", "E", "N", "S")


def _blind_rows(obs, rows: np.ndarray, state: dict, drawn_tile: list) -> dict:
    """from_arrays' blind fields for sampled rows ``[n, P, L]``, and the packed hands (the row
    tiles; a drawn tile being decided on is in none). A seat knows its own looked-at tiles
    (and the drawn one); another seat's knowledge of its row is not sampled: none in the
    blind phase, all once opened (what its policy sees)."""
    n, P, _ = rows.shape
    packs = np.where(rows >= 0, PACK[np.maximum(rows, 0)], np.uint64(0))
    hands = packs.sum(axis=2, dtype=np.uint64)
    known = np.zeros((n, P), dtype=np.int64)
    known[:, obs.seat] = sum(1 << t for t in (*obs.hand, *drawn_tile))
    opened = np.tile(np.asarray(obs.opened, dtype=bool), (n, 1))
    face_up = sum(1 << t for t in obs.face_up)
    return {
        "hands": hands,
        "rows": rows.astype(np.int8),
        "known": known,
        "opened": opened,
        "face_up": np.full(n, face_up, dtype=np.int64),
        "turn_phase": np.full(n, state["turn_phase"], dtype=np.int64),
        "dtile": np.full(n, state["dtile"], dtype=np.int64),
        "cflag": np.full(n, state["cflag"], dtype=np.int64),
    }


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
    return {
        "vals": vals,
        "dbl": dbl,
        "alg": alg,
        "spinner": spinner,
        "covered": covered,
        "table": table,
    }


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


# ---------------------------------------------------------------------------------------------
# inference (pimc's ``infer``): the deals weighted by how likely each makes the moves seen
# ---------------------------------------------------------------------------------------------
#: the model's score of a tile (a soft doubles-first: the doubles first, then the heaviest)
DOUBLE_BONUS = 6.0
#: the key coordinate of the resampling's one uniform number (apart from the deals' keys)
_INFER_COORD = 0x696E666572  # "infer"
_ALL28 = (1 << 28) - 1
#: a tile's weight is at least exp(-_LOG_FLOOR) of its event's largest (positive, finite)
_LOG_FLOOR = 700.0


def model_scores() -> np.ndarray:
    """The model's score of each tile: its pips, and :data:`DOUBLE_BONUS` more for a double."""
    return tiles.PIPS.astype(np.float64) + DOUBLE_BONUS * np.asarray(tiles.IS_DOUBLE, np.float64)


def _fit_mask(values) -> int:
    """The 28-bit mask of the tiles carrying one of ``values``."""
    return sum(1 << t for t in range(28) if LOW[t] in values or HIGH[t] in values)


def infer_events(obs, temp: float, points: float = 0.0, likelihood: str = "heuristic"):
    """The events the inference scores, as ``kernel.infer_logw`` takes them: ``(events [E,
    IE_COLS] int64, weights [E, 28] float64)``, or None where it does not apply (blind).

    An event is another seat's placement (its partner's too) made after its last draw (its
    hand then is its hand now and the tiles it placed since: a draw since would add a tile
    nobody saw), the lead only where the leader chose its tile (``lead_first`` by lot,
    any tile). Its columns: the seat, the tile placed, the tiles the seat placed from then on
    (``back``) and the tiles that fitted the open positions then (``fit``); its weights
    ``exp(score / temp)`` per tile: :func:`model_scores`, plus ``points`` times the in-play
    points the tile would score there (:func:`placement_units`; in the variants that score
    in play). The layout is replayed from the history once per decision
    (:class:`dominosim.layout.Layout`, as the reference engine does). ``likelihood="learned"``:
    the score is the shipped ``learned`` model's instead (:func:`learned_scores`; ``points``
    is then unused)."""
    r = obs.rules
    if obs.row is not None or r.draw_mode == "blind":
        return None
    learned = likelihood == "learned"
    scored = points != 0 and r.scoring != "none" and not learned
    placed = [(i, ev.seat, ev.tile) for i, ev in enumerate(obs.history) if ev.kind == "place"]
    rows, pts = _scored_placements(obs, placed, learned, scored)
    events = _event_rows(rows, placed)
    if learned:
        score = np.array(pts).reshape(len(rows), 28)
        score = np.maximum(score - score.max(axis=1, keepdims=True), -_LOG_FLOOR * temp)
        return events, np.exp(score / temp)
    score = np.tile(model_scores(), (len(rows), 1))
    if scored and rows:  # (each event's weights scaled to a largest of 1: the same chances)
        score += points * np.array(pts)
        score = np.maximum(score - score.max(axis=1, keepdims=True), -_LOG_FLOOR * temp)
    return events, np.exp(score / temp)


def _scored_placements(obs, placed, learned: bool, scored: bool):
    """The history replayed on a layout: the placements :func:`infer_events` scores (another
    seat's, after its last draw; the lead only where the leader chose its tile), as rows
    ``[seat, tile, index, fit]``, and per row the tiles' scores there (the learned model's,
    the in-play points where ``scored``, else None)."""
    r = obs.rules
    lay = Layout(r.layout, r.spinner_open_all_four_immediately, r.us_sniff_counting)
    spinners = r.layout == "spinner"
    hist = obs.history
    last_draw = {ev.seat: i for i, ev in enumerate(hist) if ev.kind == "draw"}
    voids = _VoidReplay(r.players)
    rows, pts = [], []  # [seat, tile, index, fit]; per row the tiles' points there
    for i, ev in enumerate(hist):
        if ev.kind == "start":
            lay.start_with(ev.tile)
            continue
        if learned:
            voids.see(ev, lay)
        if ev.kind != "place":
            continue
        lead = lay.empty
        if ev.seat != obs.seat and i > last_draw.get(ev.seat, -1):
            fit = _ALL28 if lead else _fit_mask(lay.values())
            if not lead or r.lead_first == "lot_any":
                rows.append([ev.seat, ev.tile, i, fit])
                pts.append(_placement_scores(obs, lay, fit, ev, i, placed, voids, learned, scored))
        lay.place(ev.tile, None if lead else ev.pos, ev.along, spinners)
    return rows, pts


def _placement_scores(obs, lay, fit, ev, i, placed, voids, learned: bool, scored: bool):
    """One scored placement's per-tile scores (:func:`_scored_placements`)."""
    r = obs.rules
    if learned:
        held = obs.counts[ev.seat] + sum(j >= i and s == ev.seat for j, s, _ in placed)
        seen = PlacerView(ev.seat, held, voids.now())
        return learned_scores(r, lay, fit, seen, _learned_weights(r))
    return placement_units(r, lay, fit) if scored else None


def _event_rows(rows, placed) -> np.ndarray:
    """The events array ``[E, IE_COLS]`` of :func:`infer_events` from its rows: the seat,
    the tile, the tiles the seat placed from then on (``back``) and the tiles that fitted."""
    events = np.zeros((len(rows), kernel.IE_COLS), dtype=np.int64)
    for k, (seat, tile, i, fit) in enumerate(rows):
        back = sum(1 << t for j, s, t in placed if j >= i and s == seat)
        events[k, [kernel.IE_SEAT, kernel.IE_TILE, kernel.IE_BACK, kernel.IE_FIT]] = (
            seat,
            tile,
            back,
            fit,
        )
    return events


# the learned likelihood (``likelihood=learned``): the shipped ``learned`` model's score of a
# tile, from the features the public table gives at the event, from the placer's seat
#: the likelihoods: a soft doubles-first (:func:`model_scores`), or the learned model's
LIKELIHOODS = ("heuristic", "learned")
#: the model's features the learned likelihood computes (the others read the placer's hidden
#: hand and count 0: control, keeps_suit, unseen_fit)
PUBLIC_FEATURES = (
    "pips",
    "double",
    "points",
    "void_hits",
    "blocked",
    "next_blocked",
    "partner_blocked",
    "pips_held",
    "threat",
)
#: the score's unit: the largest weight magnitude of PUBLIC_FEATURES (points and threat left
#: out without in-play points) over this, so one unit of the model's strongest feature weighs
#: as the heuristic's whole pip range (0 to 12) and ``temp`` keeps its meaning
LEARNED_SPAN = 12.0


@dataclass(frozen=True)
class PlacerView:
    """What the learned likelihood knows of the placer at an event: its seat, the tiles it
    held then (public: its count now and its placements since) and every seat's voids then
    (:class:`_VoidReplay`)."""

    seat: int
    held: int
    voids: tuple


class _VoidReplay:
    """The voids the public history has revealed so far, replayed event by event as the
    reference engine reveals them (``reference.reveal_void``): a pass reveals the open values
    (added to the seat's voids); a run of draws reveals the values open at its first draw,
    and replaces the older voids where a drawn tile was kept (more than one draw before a
    placement, any draw before a pass). A voluntary draw is read as a forced one."""

    def __init__(self, players: int):
        self.voids = [set() for _ in range(players)]
        self.run: dict = {}  # seat -> (the values open at its first draw, the draws)

    def see(self, ev, lay: Layout) -> None:
        if ev.seat is None or ev.kind not in ("draw", "pass", "place"):
            return
        if ev.kind == "draw":
            vals, n = self.run.get(ev.seat, (set(lay.values()), 0))
            self.run[ev.seat] = (vals, n + 1)
            return
        vals, n = self.run.pop(ev.seat, (set(lay.values()), 0))
        if ev.kind == "place" and n == 0:
            return
        kept = n > 1 if ev.kind == "place" else n > 0
        self.voids[ev.seat] = set(vals) if kept else self.voids[ev.seat] | set(vals)

    def now(self) -> tuple:
        return tuple(frozenset(v) for v in self.voids)


_LEARNED_CACHE: dict = {}


def _learned_weights(rules) -> np.ndarray:
    """The shipped model's weights of :data:`PUBLIC_FEATURES` for ``rules``' game, divided by
    the score's unit (:data:`LEARNED_SPAN`); the others' weights 0."""
    from dominosim.strategy.models import FEATURES, shipped_for, shipped_model

    key = (shipped_for(rules), rules.scoring != "none", rules.layout)
    if key not in _LEARNED_CACHE:
        w = np.array(shipped_model(rules).weights, dtype=np.float64)
        used = [f in PUBLIC_FEATURES for f in FEATURES]
        if rules.scoring == "none":
            used[FEATURES.index("points")] = used[FEATURES.index("threat")] = False
        w[~np.array(used)] = 0.0
        top = np.abs(w).max()
        _LEARNED_CACHE[key] = w / (top / LEARNED_SPAN) if top > 0 else w
    return _LEARNED_CACHE[key]


def learned_features(rules, lay: Layout, a: int, who: PlacerView) -> list[int]:
    """Placement ``a``'s features (``models.FEATURES`` order) as the public table at the event
    shows them from the placer's seat (``learned.public_features``: the hidden hand's control,
    keeps_suit and unseen_fit left at 0; ``threat``'s unseen tiles: those not on the table)."""
    from dominosim.strategies.learned import public_features

    partner = (who.seat + 2) % 4 if rules.partnership else None
    unseen = set(range(28)) - set(lay.tiles) - {actions.tile_of(a)}
    view = _scoring_view(rules, lay)
    return public_features(view, a, who.seat, partner, who.voids, who.held, unseen)


def learned_scores(rules, lay: Layout, fit: int, who: PlacerView, weights) -> np.ndarray:
    """Per tile (28) the learned likelihood's score at an event: the best over the tile's
    placements on ``lay`` (its positions, across or along) of the weighted sum of
    :func:`learned_features`; a tile outside ``fit`` scores as the best (it never counts)."""
    spots = [("L", None)] if lay.empty else lay.positions()
    along = (False, True) if rules.inline_double_counts_single else (False,)
    out = np.full(28, -np.inf)
    for t in range(28):
        if not fit >> t & 1:
            continue
        for pid, v in spots:
            if v is not None and not tiles.fits(t, v):
                continue
            for al in along if tiles.is_double(t) else (False,):
                f = learned_features(rules, lay, actions.place(t, pid, along=al), who)
                out[t] = max(out[t], float(np.dot(weights, f)))
    best = out[np.isfinite(out)].max(initial=0.0)
    out[~np.isfinite(out)] = best
    return out


def placement_units(rules, lay: Layout, fit: int) -> np.ndarray:
    """Per tile (28), the most in-play points it would score placed now on ``lay`` (the best
    of its positions, across or along; :func:`dominosim.scoring.placement_points`, the
    variant's own scoring: fives, threes, muggins, bergen's headers), in scoring units:
    muggins' points (the end count itself) divided by 5, as fives counts them; 0 for a tile
    outside ``fit``."""
    view = _scoring_view(rules, lay)
    spots = [("L", None)] if lay.empty else lay.positions()
    along = (False, True) if rules.inline_double_counts_single else (False,)
    out = np.zeros(28)
    for t in range(28):
        if not fit >> t & 1:
            continue
        best = 0
        for pid, v in spots:
            if v is not None and not tiles.fits(t, v):
                continue
            for a in along if tiles.is_double(t) else (False,):
                best = max(best, placement_points(view, actions.place(t, pid, along=a)))
        out[t] = best / 5 if rules.scoring == "muggins" else best
    return out


def _scoring_view(rules, lay: Layout) -> SimpleNamespace:
    """The fields of an Observation that :func:`placement_points` reads, from a layout (as
    the reference engine's Observation shows them)."""
    doubles, along = [], []
    for pid, _ in lay.positions():
        end = lay.ends.get(pid) if (lay.spinner is None or pid in lay.covered) else None
        doubles.append(bool(end.double) if end else True)
        along.append(bool(end.along) if end else False)
    return SimpleNamespace(
        rules=rules,
        positions=tuple(lay.positions()),
        table=tuple(lay.tiles),
        doubles=tuple(doubles),
        along=tuple(along),
        spinner=lay.spinner,
        covered=tuple(s for s in ("W", "E", "N", "S") if s in lay.covered),
    )


def infer_logw_py(hands, events, weights) -> np.ndarray:
    """The readable definition of ``kernel.infer_logw``: per deal (hands ``[n, P]`` packed),
    the sum over the events of ``log(w[tile] / sum of w over the seat's tiles then that
    fit)``."""
    out = np.zeros(len(hands))
    for j in range(len(hands)):
        for e, ev in enumerate(events):
            seat, tile, back, fit = (int(ev[c]) for c in (0, 1, 2, 3))
            held = sum(1 << t for t in range(28) if hands[j, seat] & PACK[t] == PACK[t])
            cand = (held | back) & fit
            total = sum(weights[e, t] for t in range(28) if cand >> t & 1)
            out[j] += np.log(weights[e, tile]) - np.log(total)
    return out


def infer_deals(
    obs,
    key: int,
    samples: int,
    pool: int,
    temp: float,
    points: float = 0.0,
    likelihood: str = "heuristic",
):
    """``samples`` draws among ``samples * pool`` deals of :func:`sample_arrays`, each drawn
    with a chance proportional to its likelihood under the model (:func:`infer_events`,
    ``kernel.infer_logw``): systematic resampling from one uniform number of the decision's
    key. Returns ``(hands, stock, count)``, each deal drawn once with the times it was drawn
    (``count`` sums to ``samples``), or None where :func:`sample_arrays` gives no deal. Where
    nothing is scored (no event, blind) the first ``samples`` deals, once each: the plain
    sampler's."""
    inf = infer_events(obs, temp, points, likelihood)
    drawn = sample_arrays(obs, key, samples * pool if inf is not None and len(inf[0]) else samples)
    if drawn is None or not len(drawn[0]):
        return None
    hands, stock = drawn
    if inf is None or not len(inf[0]):
        return hands, stock, np.ones(len(hands), dtype=np.int64)
    logw = np.empty(len(hands))
    kernel.infer_logw(np.ascontiguousarray(hands), inf[0], inf[1], logw)
    cum = np.cumsum(np.exp(logw - logw.max()))
    u0 = (seeding.key(key, _INFER_COORD) >> 11) * 2.0**-53
    at = np.searchsorted(cum / cum[-1], (u0 + np.arange(samples)) / samples, side="right")
    pick, count = np.unique(np.minimum(at, len(hands) - 1), return_counts=True)
    return hands[pick], stock[pick], count.astype(np.int64)
