"""End-of-hand settlement of the batch engine (RULES §1.13, §n.10, §14.10–§14.14).

Mirrors :func:`dominosim.reference.settle` and :func:`dominosim.reference.settle_kozel`, row
for row; the common kinds are vectorized, the rare ones (muggins per opponent, bergen blocks,
kozel books) loop over the few hands that end in a step.
"""

from __future__ import annotations

import numpy as np

from . import tables as TB


def _unique_min(vals: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray:
    """Column of the strictly lowest value per row ([n, k] -> [n]), or -1 on a tie."""
    v = vals if valid is None else np.where(valid, vals, np.iinfo(np.int64).max)
    lo = v.min(axis=1)
    unique = (v == lo[:, None]).sum(axis=1) == 1
    return np.where(unique, v.argmin(axis=1), -1)


def _rnd(x, no_rounding: bool):
    return x if no_rounding else 5 * ((x + 2) // 5)


def settle_batch(e, g, seat_pips, pips) -> None:
    """Awards and hand winners for the hands ``g`` that ended by domino or block."""
    r = e.r
    kind = r.settlement
    if kind == "kozel":
        values = _kozel_values_batch(e, g, seat_pips)
        for i, gi in enumerate(g):
            _settle_kozel_row(e, int(gi), pips[i], [int(x) for x in values[i]])
        return
    n = len(g)
    rows = np.arange(n)
    out = e.went_out[g]
    dom = out >= 0
    out_side = np.where(dom, e.side_of[np.maximum(out, 0)], -1)
    total = pips.sum(axis=1)
    winner = np.full(n, -1, dtype=np.int64)
    pts = np.zeros(n, dtype=np.int64)
    reason = np.where(dom, 0, 1)  # 0 domino, 1 block
    if kind == "penalties" or (kind == "pips" and r.penalty_per_miss):
        pen = e.penalties[g]
        w = np.where(dom, out, -1)
        blk = np.flatnonzero(~dom)
        if len(blk):
            lo = pen[blk].min(axis=1)
            tied = pen[blk] == lo[:, None]
            w[blk] = _unique_min(seat_pips[blk], tied)
        winner = w
        if kind == "penalties":
            e.winner[g] = winner
            return
        has = winner >= 0
        own = pen[rows, np.maximum(winner, 0)]
        pts = np.where(has, np.maximum(0, pen.sum(axis=1) - 2 * own), 0)  # others - own
        e.winner[g] = winner
        _award(e, g, winner, pts, np.full(n, 2))
        return
    wblock = _unique_min(pips)
    if kind == "pips":
        if r.block_winner_fewest_tiles:
            counts = np.zeros((n, e.S), dtype=np.int64)
            c = TB.count_of(e.hands[g])
            for s in range(e.P):
                counts[:, e.side_of[s]] += c[:, s]
            wblock = _unique_min(counts)
        winner = np.where(dom, out_side, wblock)
        has = winner >= 0
        own = pips[rows, np.maximum(winner, 0)]
        others = total - own
        if r.block_winner_fewest_tiles:
            block_pts = others
        elif r.fish_score_sum_only:
            block_pts = others
        elif r.fish_difference_per_opponent:
            block_pts = others - (e.S - 1) * own
        else:
            block_pts = np.maximum(0, others - own)
        pts = np.where(has, np.where(dom, others, block_pts), 0)
    elif kind == "book":
        winner = np.where(dom, out_side, wblock)
        pts = np.where(winner >= 0, np.where(dom, r.domino_bonus, 1), 0)
    elif kind == "sniff":
        winner = np.where(dom, out_side, wblock)
        own = pips[rows, np.maximum(winner, 0)]
        others = total - own
        pts = np.where(
            winner >= 0, np.where(dom, _rnd(others, False), _rnd(others - own, False)), 0
        )
        pts = pts // 5
    elif kind == "muggins":
        nr = r.muggins_no_rounding
        winner = np.where(dom, out_side, wblock)
        dom_pts = _rnd(pips, nr).sum(axis=1) - _rnd(pips[rows, np.maximum(out_side, 0)], nr)
        own = pips[rows, np.maximum(winner, 0)]
        blk_pts = _rnd(total - own - own, nr)
        pts = np.where(winner >= 0, np.where(dom, dom_pts, blk_pts), 0)
        if r.muggins_block_difference_per_opponent:
            e.winner[g] = winner
            d = np.flatnonzero(dom)
            _award(e, g[d], winner[d], pts[d], reason[d])
            for i in np.flatnonzero(~dom):
                _muggins_per_opponent(e, int(g[i]), pips[i])
            return
    elif kind == "bergen":
        winner = np.where(dom, out_side, -1)
        pts = np.where(dom, r.domino_bonus, 0)
        for i in np.flatnonzero(~dom):
            winner[i], pts[i] = _bergen_block_row(e, int(g[i]))
    else:
        raise ValueError(kind)
    e.winner[g] = winner
    _award(e, g, winner, pts, reason)


def _award(e, g, sides, pts, reason):
    names = ("domino", "block", "penalties")
    for code in (0, 1, 2):
        sel = (reason == code) & (sides >= 0)
        if sel.any():
            e._award(g[sel], sides[sel], pts[sel], names[code], in_play=False)


def _muggins_per_opponent(e, gi: int, pips) -> None:
    """§15 muggins_block_difference_per_opponent: sides score in ascending pip order."""
    r = e.r
    S = e.S
    fm = int(e.fish[gi])
    start = (fm + 1) % e.P if fm >= 0 else 0
    rank = {}
    for j in range(e.P):
        rank.setdefault(int(e.side_of[(start + j) % e.P]), j)
    for s in sorted(range(S), key=lambda s: (pips[s], rank[s])):
        if e.target_hit[gi]:
            break
        pts = sum(_rnd(int(pips[o] - pips[s]), r.muggins_no_rounding)
                  for o in range(S) if pips[o] > pips[s])  # fmt: skip
        e._award(np.array([gi]), np.array([s]), np.array([pts]), "block", in_play=False)


def _bergen_block_row(e, gi: int) -> tuple[int, int]:
    """Bergen's block award (§4.10, §4.10a, bergen_block_lowest_hand_1pt)."""
    r = e.r
    side_tiles = [[] for _ in range(e.S)]
    for s in range(e.P):
        side_tiles[int(e.side_of[s])].extend(TB.tiles_of(int(e.hands[gi, s])))
    has_double = [any(TB.IS_DOUBLE[t] for t in ts) for ts in side_tiles]
    no_double = [s for s in range(e.S) if not has_double[s]]

    def umin(d):
        lo = min(d.values())
        best = [k for k, v in d.items() if v == lo]
        return best[0] if len(best) == 1 else -1

    if r.bergen_block_lowest_hand_1pt:
        cands = no_double or list(range(e.S))
        vals = {s: sum(int(TB.TILE_PIPS[t]) for t in side_tiles[s] if not TB.IS_DOUBLE[t])
                for s in cands}  # fmt: skip
        return umin(vals), 1
    if len(no_double) == 1:
        return no_double[0], 2
    if len(no_double) >= 2:
        return umin({s: sum(int(TB.TILE_PIPS[t]) for t in side_tiles[s]) for s in no_double}), 2
    return umin({s: min(t for t in side_tiles[s] if TB.IS_DOUBLE[t]) for s in range(e.S)}), 2


# --------------------------------------------------------------------------------------------
# kozel
# --------------------------------------------------------------------------------------------


def _kozel_values(e, gi: int) -> list[int]:
    r = e.r
    out = [0] * e.S
    zz, ss = TB.PACK[0], TB.PACK[TB.TILE_AT[6, 6]]
    for s in range(e.P):
        h = e.hands[gi, s]
        if h == zz:
            v = r.lone_00_value
        elif h == ss and r.lone_66_value:
            v = r.lone_66_value
        else:
            v = int(TB.pips_of(np.array([h]))[0])
        out[int(e.side_of[s])] += v
    return out


def _kozel_values_batch(e, g, seat_pips) -> np.ndarray:
    """:func:`_kozel_values` for the hands ``g`` at once ([n, sides])."""
    r = e.r
    hands = e.hands[g]
    zz, ss = TB.PACK[0], TB.PACK[TB.TILE_AT[6, 6]]
    v = np.where(hands == zz, r.lone_00_value, seat_pips)
    if r.lone_66_value:
        v = np.where(hands == ss, r.lone_66_value, v)
    out = np.zeros((len(g), e.S), dtype=np.int64)
    for s in range(e.P):
        out[:, int(e.side_of[s])] += v[:, s]
    return out


def _settle_kozel_row(e, gi: int, _pips, vals=None) -> None:
    r = e.r
    n = e.S
    if vals is None:
        vals = _kozel_values(e, gi)
    e.end_values[gi] = vals  # (§14.12 hand values; end_pips keeps the pip totals)
    out = int(e.went_out[gi])
    if out >= 0:
        w = int(e.side_of[out])
        e.winner[gi] = w
        charges = {s: vals[s] for s in range(n) if s != w}
        winners = [w]
    else:
        lo = min(vals)
        lowest = [s for s in range(n) if vals[s] == lo]
        if len(lowest) == n:  # eggs
            e.winner[gi] = -1
            if r.eggs_double_next:
                e.eggs[gi] += 1
            else:
                e.pot[gi] += sum(vals)
            e._ev(gi, type="eggs", pot=int(e.pot[gi]), streak=int(e.eggs[gi]))
            return
        e.winner[gi] = lowest[0] if len(lowest) == 1 else -1
        winners = lowest
        fm = int(e.fish[gi])
        fm_side = int(e.side_of[fm]) if fm >= 0 else None
        if r.fish_maker_takes_all and fm_side is not None and fm_side not in lowest:
            charges = {fm_side: sum(vals)}
        else:
            charges = {s: vals[s] for s in range(n) if s not in lowest}
    mult = 2 ** int(e.eggs[gi]) if r.eggs_double_next else 1
    e.eggs[gi] = 0
    charges = {s: c * mult for s, c in charges.items()}
    pot = int(e.pot[gi])
    e.pot[gi] = 0
    if r.kozel_positive_scoring:
        total = sum(charges.values())
        items = [(s, total + pot, "credit") for s in winners]
    else:
        items = [(s, c + pot, "charge") for s, c in charges.items()]
    for s, amount, why in items:
        e.points[gi, s] += amount
        e._ev(gi, type="score", side=s, points=amount, reason=why)
        _write(e, gi, s, amount)
    e._ev(gi, type="written",
          written=[None if w < 0 else int(w) for w in e.written[gi]],
          pending=[int(p) for p in e.pending[gi]])  # fmt: skip


def _write(e, gi, s, amount):
    """The 13-point rule (§14.13)."""
    if e.written[gi, s] < 0:
        e.pending[gi, s] += amount
        if e.pending[gi, s] >= 13:
            e.written[gi, s] = e.pending[gi, s]
            e.pending[gi, s] = 0
    else:
        e.written[gi, s] += amount


def kozel_match_over(e, g):
    """§14.11, §14.11a and kozel_positive_scoring: goats, winner, dry losses."""
    r = e.r
    n = len(g)
    done = np.zeros(n, dtype=bool)
    win = np.full(n, -1, dtype=np.int64)
    for i, gi in enumerate(g):
        written = e.written[gi]
        if not (written >= r.target).any():
            continue
        done[i] = True
        totals = np.where(written < 0, 0, written)
        S = e.S
        if r.kozel_positive_scoring:
            top = totals.max()
            best = [s for s in range(S) if totals[s] == top]
            win[i] = best[0] if len(best) == 1 else -1
            losers = [s for s in range(S) if s not in best]
        else:
            losers = [s for s in range(S) if totals[s] >= r.target]
            rest = [s for s in range(S) if s not in losers]
            if rest:
                lo = min(totals[s] for s in rest)
                best = [s for s in rest if totals[s] == lo]
                win[i] = best[0] if len(best) == 1 else -1
            if r.dry_goat:
                e.dry[gi] = any(all(written[o] < 0 for o in range(S) if o != gl) for gl in losers)
        e.losers[gi] = sum(1 << s for s in losers)
    return done, win
