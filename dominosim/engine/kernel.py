"""The optional compiled turn loop of the batch engine (numba), DESIGN §3 "hot kernel".

The numpy path of :class:`~dominosim.engine.batch.BatchEngine` advances every game by one
decision point per step, with a few dozen whole-array operations per phase; at 10 000 games a
step costs about 3.5 ms, most of it the fixed cost of many small numpy calls. This module plays
the same rules one game slot at a time in compiled code, on the engine's own state arrays:
:func:`advance` takes every active game from where it stands (applying the action a strategy
chose for it, if one is pending) through forced moves, draws, passes, hand ends, settlement,
match ends and new deals, up to its next decision with two or more legal actions. There it
stops and leaves the legal actions (per-slot masks, or the lead mask) and the decision's
addressed random key; the engine then asks the strategies for the whole batch through the
public interface (``Strategy.choose(obs, legal, keys)``), exactly as on the numpy path, and
calls :func:`advance` again.

It is a mirror of the numpy path, rule for rule and in the same order, so that both give
identical records (tested on every variant and option the kernel plays, against the numpy path
and the reference engine). :func:`supports` says which rules it plays: every layout (line,
single end, spinner), every drawing mode except blind's rows, not the voluntary draws
(``may_draw_when_able``, ``bergen_voluntary``) nor ``inline_double_counts_single``. Everything
else stays on the numpy path. The kernel is used when numba imports (the ``fast`` extra) and
``DOMINOSIM_KERNEL`` is not ``0``; event logs (``log=True``) always use the numpy path.
"""

from __future__ import annotations

import os

import numpy as np

from .. import seeding, tiles
from ..rules import Rules
from . import tables as TB

try:  # optional: the numpy path needs none of this
    import numba

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None
    HAVE_NUMBA = False


def enabled() -> bool:
    """True when the compiled kernel may be used (numba present, not switched off)."""
    return HAVE_NUMBA and os.environ.get("DOMINOSIM_KERNEL", "1") != "0"


def supports(rules: Rules) -> bool:
    """True when :func:`advance` plays these rules (otherwise the numpy path does)."""
    return (
        rules.layout in ("line", "single_end", "spinner")
        and rules.draw_mode in ("none", "one", "until_playable")
        and not rules.may_draw_when_able
        and not rules.bergen_voluntary
        and not rules.inline_double_counts_single
        and rules.lead_first not in ("blind_front",)
    )


# ---------------------------------------------------------------------------------------------
# codes shared with batch.py
# ---------------------------------------------------------------------------------------------
LEAD, TURN, DONE, START = 0, 1, 4, 5  # phases (batch.py: LEAD TURN MAYDRAW AFTERDRAW DONE)
DOMINO, BLOCKED, TARGET = 0, 1, 2
ASK_NONE, ASK_LEAD, ASK_PLAY = 0, 1, 2  # what a pending decision is

# rows of the engine's per-hand block (batch.py hand_fields, same order)
H_ATTEMPT, H_SP, H_SEND, H_SPIN, H_COV, H_NTABLE, H_FIRST, H_TABLE, H_DECISION = range(9)
H_LAST, H_LENGTH, H_TURNS, H_DRAWS, H_PASSES, H_REASON, H_FISH, H_WINNER, H_OUT = range(9, 18)
# rows of the previous-hand block
P_LEADER, P_WINNER, P_OUT, P_FISH = range(4)

# rule knobs, as one int64 vector (index names)
_KNOBS = (
    "P", "S", "hand_size", "single_end", "draw_mode", "limit", "scoring", "ftp", "ppm",
    "lead_first", "lead_later", "settlement", "domino_bonus", "partnership", "target",
    "check_only", "match_end", "hands_per_match", "fewest_tiles", "bergen_1pt", "bergen_cap",
    "mug_no_round", "mug_per_opp", "fish_sum_only", "fish_diff", "kozel_redeal", "lone00",
    "lone66", "eggs_double", "fm_takes_all", "dry_goat", "kozel_positive", "unit_hand",
    "npoints", "spinner", "us_sniff", "open_all_four",
)  # fmt: skip
# the knobs' indices in R (compile-time constants inside the kernel)
(_R_P, _R_S, _R_HAND_SIZE, _R_SINGLE_END, _R_DRAW_MODE, _R_LIMIT, _R_SCORING, _R_FTP,
    _R_PPM, _R_LEAD_FIRST, _R_LEAD_LATER, _R_SETTLEMENT, _R_DOMINO_BONUS, _R_PARTNERSHIP,
    _R_TARGET, _R_CHECK_ONLY, _R_MATCH_END, _R_HANDS_PER_MATCH, _R_FEWEST_TILES,
    _R_BERGEN_1PT, _R_BERGEN_CAP, _R_MUG_NO_ROUND, _R_MUG_PER_OPP, _R_FISH_SUM_ONLY,
    _R_FISH_DIFF, _R_KOZEL_REDEAL, _R_LONE00, _R_LONE66, _R_EGGS_DOUBLE, _R_FM_TAKES_ALL,
    _R_DRY_GOAT, _R_KOZEL_POSITIVE, _R_UNIT_HAND, _R_NPOINTS, _R_SPINNER, _R_US_SNIFF,
    _R_OPEN_ALL_FOUR) = range(len(_KNOBS))  # fmt: skip
DRAW_MODES = {"none": 0, "one": 1, "until_playable": 2}
SCORINGS = {"none": 0, "fives": 1, "threes": 2, "muggins": 3, "bergen": 4}
# lead_first: 0 lot (lot_any, ladder), 1 by the priority list (doubles, kozel)
LEAD_LATER = {"as_first": 0, "next_after_leader": 1, "winner_else_lot": 2,
              "winner_else_first": 3, "winner_else_next": 4, "out_else_lot": 5,
              "out_else_fishmaker": 6, "lot": 7}  # fmt: skip
SETTLEMENTS = {"pips": 0, "bergen": 1, "book": 2, "sniff": 3, "muggins": 4, "kozel": 5,
               "penalties": 6}  # fmt: skip
MATCH_ENDS = {"race": 0, "one_hand": 1, "kozel": 2}


def knobs(rules: Rules, unit: str) -> np.ndarray:
    """The rule knobs :func:`advance` reads, as an int64 vector."""
    r = rules
    v = {
        "P": r.players,
        "S": r.sides,
        "hand_size": r.hand_size,
        "single_end": int(r.layout == "single_end"),
        "draw_mode": DRAW_MODES[r.draw_mode],
        "limit": 1 if r.draw_mode == "one" else (r.max_draws or 28),
        "scoring": SCORINGS[r.scoring],
        "ftp": r.failed_turn_penalty,
        "ppm": int(r.penalty_per_miss),
        "lead_first": 0 if r.lead_first in ("lot_any", "ladder") else 1,
        "lead_later": LEAD_LATER[r.lead_later],
        "settlement": SETTLEMENTS[r.settlement],
        "domino_bonus": r.domino_bonus,
        "partnership": int(r.partnership),
        "target": r.target,
        "check_only": int(r.check_only_at_hand_end),
        "match_end": MATCH_ENDS[r.match_end],
        "hands_per_match": r.hands_per_match,
        "fewest_tiles": int(r.block_winner_fewest_tiles),
        "bergen_1pt": int(r.bergen_block_lowest_hand_1pt),
        "bergen_cap": int(r.bergen_near_target_cap),
        "mug_no_round": int(r.muggins_no_rounding),
        "mug_per_opp": int(r.muggins_block_difference_per_opponent),
        "fish_sum_only": int(r.fish_score_sum_only),
        "fish_diff": int(r.fish_difference_per_opponent),
        "kozel_redeal": int(r.kozel_redeal),
        "lone00": r.lone_00_value,
        "lone66": r.lone_66_value,
        "eggs_double": int(r.eggs_double_next),
        "fm_takes_all": int(r.fish_maker_takes_all),
        "dry_goat": int(r.dry_goat),
        "kozel_positive": int(r.kozel_positive_scoring),
        "unit_hand": int(unit == "hand"),
        "npoints": r.players if r.match_end == "one_hand" else r.sides,
        "spinner": int(r.layout == "spinner"),
        "us_sniff": int(r.us_sniff_counting),
        "open_all_four": int(r.spinner_open_all_four_immediately),
    }
    return np.array([v[name] for name in _KNOBS], dtype=np.int64)


def first_priority(rules: Rules) -> np.ndarray:
    """The tiles in the order the first leader is looked for (§1.2, §4.4, §12.4, §14.4)."""
    doubles = [tiles.tile_index(v, v) for v in range(7)]
    nd = [t for t in range(28) if not tiles.is_double(t)]
    asc = sorted(nd, key=lambda t: (int(tiles.PIPS[t]), int(tiles.HIGH[t])))
    kind = rules.lead_first
    if kind == "lowest_double":
        prio = doubles + asc
    elif kind == "highest_double":
        prio = doubles[::-1] + asc[::-1]
    elif kind == "kozel":
        if rules.players == 4:
            prio = [tiles.tile_index(1, 1)]
        else:
            order = doubles if rules.kozel_zero_double_lowest else doubles[1:] + doubles[:1]
            prio = order + asc[::-1]  # no double dealt: the highest tile leads (§14.4a)
    else:
        prio = [-1]
    return np.array(prio, dtype=np.int64)


def seeds(seed: int, players: int) -> np.ndarray:
    """Hash prefixes of the addressed streams: deal, lot, strategy (docs/design.md)."""
    return np.array(
        [seeding.key(seed, seeding.DEAL, players), seeding.key(seed, seeding.LOT, players),
         seeding.key(seed, seeding.STRATEGY)],
        dtype=np.uint64,
    )  # fmt: skip


MAX_SLOTS = 4096  # game slots per engine on the kernel (faster than 10 000: cache-resident)
SCRATCH = (14, 32)  # the scratch rows advance() works in
# hand record columns: these, then points[npoints], pips[S], penalties[P]
HREC = ("match_id", "hand_index", "leader", "end_reason", "fish_maker", "winner", "went_out",
        "hand_length", "turns", "draws", "passes", "redeals")  # fmt: skip
# match record columns: these, then scores[npoints]
MREC = ("match_id", "winner", "hands", "dry", "losers")


# ---------------------------------------------------------------------------------------------
# the compiled code
# ---------------------------------------------------------------------------------------------
def _jit(fn):
    if not HAVE_NUMBA:
        return fn
    # no allocation inside: compiled without reference counting (no atomic increments and
    # decrements around every array passed to an inlined helper)
    return numba.njit(cache=True, nogil=True, _nrt=False)(fn)


def _inline(fn):
    """A hot helper of the turn loop, compiled into its callers."""
    if not HAVE_NUMBA:
        return fn
    return numba.njit(cache=True, nogil=True, inline="always", _nrt=False)(fn)


def _once(fn):
    """A helper run once per hand or rarer (deal, settlement): a call of its own, which keeps
    the compile time of :func:`advance` short."""
    if not HAVE_NUMBA:
        return fn
    return numba.njit(cache=True, nogil=True, _nrt=False)(fn)


_U = np.uint64
_GOLD, _M1, _M2 = _U(seeding.GOLDEN), _U(seeding.MUL1), _U(seeding.MUL2)
_S30, _S27, _S31, _S32 = _U(30), _U(27), _U(31), _U(32)
_SEVEN_F = _U(0x7F)
PACK = TB.PACK.copy()
TILE_AT = TB.TILE_AT.copy()
POPC7 = TB.POPC7.copy()
TILE_LOW = TB.TILE_LOW.copy()
TILE_HIGH = TB.TILE_HIGH.copy()
TILE_PIPS = TB.TILE_PIPS.copy()
IS_DBL = TB.IS_DOUBLE.astype(np.int64)
TILES_OF = TB.TILES_OF.copy()
HI_MASK = TB.HI_MASK.astype(np.int64)
PIPS_BYTE = TB.PIPS_BYTE.copy()
SELECT7 = TB.SELECT7.copy()  # [m, k]: the k-th set bit of a 7-bit mask
PACK66 = TB.PACK[TB.TILE_AT[6, 6]]
PACK00 = TB.PACK[0]


@_inline
def _sm(x):
    z = x + _GOLD
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@_inline
def _below(h, n):
    return np.int64(((h >> _S32) * np.uint64(n)) >> _S32)


@_inline
def _byte(h, v):
    """7-bit mask of the other halves of the tiles of packed hand h carrying v (-1: none)."""
    if v < 0:
        return np.int64(0)
    return np.int64((h >> np.uint64(8 * v)) & _SEVEN_F)


@_once
def _mask28(h):
    out = np.int64(0)
    for v in range(7):
        out |= TILES_OF[v, _byte(h, v) & HI_MASK[v]]
    return out


@_once
def _pips(h):
    s = np.int64(0)
    d = np.int64(0)
    for v in range(7):
        m = _byte(h, v)
        s += PIPS_BYTE[v, m]
        d += ((m >> v) & 1) * 2 * v
    return (s + d) // 2


@_once
def _count(h):
    c = np.int64(0)
    for v in range(7):
        m = _byte(h, v)
        c += POPC7[m] + ((m >> v) & 1)
    return c // 2


@_inline
def _popc28(m):
    return POPC7[m & 0x7F] + POPC7[(m >> 7) & 0x7F] + POPC7[(m >> 14) & 0x7F] + POPC7[m >> 21]


@_inline
def _select28(m, k):
    """Index of the k-th set bit of a 28-bit mask (k < its popcount), by 7-bit chunks."""
    for part in range(4):
        c = (m >> (7 * part)) & 0x7F
        n = POPC7[c]
        if k < n:
            return 7 * part + SELECT7[c, k]
        k -= n
    return np.int64(-1)


@_inline
def _lowbit(m):
    return _select28(m, 0)


@_inline
def _next(seat, P):
    """(seat + 1) % P without a division (the turn passes to the left, §1.6)."""
    s = seat + 1
    return s if s < P else s - P


@_inline
def _rnd(x, no_rounding):
    if no_rounding:
        return x
    return 5 * ((x + 2) // 5)


@_inline
def _side(R, seat):
    return seat % 2 if R[_R_PARTNERSHIP] else seat


@_once
def _unique_min(vals, n, valid):
    """Index of the strictly lowest of vals[:n] among valid ones, or -1 on a tie."""
    lo = np.int64(1) << 62
    for s in range(n):
        if valid[s] and vals[s] < lo:
            lo = vals[s]
    at = np.int64(-1)
    c = 0
    for s in range(n):
        if valid[s] and vals[s] == lo:
            c += 1
            at = s
    return at if c == 1 else np.int64(-1)


@_inline
def _award(R, i, side, pts, scores, points, bb):
    """Points event by event; a side reaching the target ends the match (§1.14)."""
    if pts <= 0:
        return False
    scores[i, side] += pts
    points[i, side] += pts
    if R[_R_MATCH_END] == 0 and R[_R_CHECK_ONLY] == 0 and scores[i, side] >= R[_R_TARGET]:
        bb[1, i] = True
        return True
    return False


@_inline
def _finish(hb, bb, i, reason, out, fish, winner):
    bb[0, i] = True
    hb[H_REASON, i] = reason
    if out >= 0:
        hb[H_OUT, i] = out
    if fish >= -1 and reason == BLOCKED:
        hb[H_FISH, i] = fish
    if winner >= 0:
        hb[H_WINNER, i] = winner


@_inline
def _open_values(i, vals):
    """7-bit mask of the values showing on open positions."""
    vm = np.int64(0)
    for k in range(vals.shape[1]):
        if vals[i, k] >= 0:
            vm |= np.int64(1) << vals[i, k]
    return vm


@_inline
def _block_test(R, i, hb, bb, hands, vals):
    """§1.12: blocked when no hand holds a fitting tile and nothing can be drawn."""
    if bb[0, i] or hb[H_SEND, i] > hb[H_SP, i]:
        return
    P = R[_R_P]
    vm = _open_values(i, vals)
    for s in range(P):
        h = hands[i, s]
        for v in range(7):
            if (vm >> v) & 1 and _byte(h, v):
                return
    _finish(hb, bb, i, BLOCKED, -1, hb[H_LAST, i], -1)


@_inline
def _end_count(R, i, hb, vals, dbl, armv, armd):
    """The end count (§1.11; the spinner's arms, §6.8, us_sniff_counting)."""
    if hb[H_NTABLE, i] == 1:
        return TILE_PIPS[hb[H_FIRST, i]]
    spin = hb[H_SPIN, i]
    c = np.int64(0)
    if spin < 0:
        for k in range(2):
            v = vals[i, k]
            if v >= 0:
                c += 2 * v if dbl[i, k] else v
        return c
    cov = hb[H_COV, i]
    k = 0
    for j in range(4):
        if (cov >> j) & 1:
            a = armv[i, j]
            c += 2 * a if armd[i, j] else a
            k += 1
    if R[_R_US_SNIFF]:
        c += 2 * spin if k <= 2 else (spin if k == 3 else 0)
    else:
        c += 2 * spin if k <= 1 else 0
    return c


@_inline
def _spinner_slots(R, i, hb, vals, dbl, armv, armd):
    """The open positions around the spinner: W E first, N S once W and E are covered."""
    cov = hb[H_COV, i]
    spin = hb[H_SPIN, i]
    we = (cov & 3) == 3
    for j in range(4):
        if (cov >> j) & 1:
            vals[i, 2 + j] = armv[i, j]
            dbl[i, 2 + j] = armd[i, j]
        else:
            vals[i, 2 + j] = spin if (j < 2 or R[_R_OPEN_ALL_FOUR] or we) else -1
            dbl[i, 2 + j] = True


@_inline
def _place(R, i, seat, act, lead, hb, bb, hands, vals, dbl, armv, armd, scores, points):
    t = act // 6
    p = act % 6
    lo = TILE_LOW[t]
    hi = TILE_HIGH[t]
    d = IS_DBL[t] == 1
    h = hands[i, seat] & ~PACK[t]
    hands[i, seat] = h
    hb[H_TABLE, i] |= np.int64(1) << t
    if lead:
        hb[H_FIRST, i] = t
        if d and R[_R_SPINNER]:  # a double lead becomes the spinner
            hb[H_SPIN, i] = lo
            vals[i, 0] = -1
            vals[i, 1] = -1
            _spinner_slots(R, i, hb, vals, dbl, armv, armd)
        else:
            vals[i, 0] = lo
            vals[i, 1] = hi
            dbl[i, 0] = d
            dbl[i, 1] = d
    else:
        v = vals[i, p]
        w = lo + hi - v
        if R[_R_SINGLE_END]:
            vals[i, 0] = -1
            vals[i, 1] = w
            dbl[i, 1] = d
        elif R[_R_SPINNER] and hb[H_SPIN, i] >= 0:  # on an arm of the spinner
            pa = p - 2
            hb[H_COV, i] |= np.int64(1) << pa
            armv[i, pa] = w
            armd[i, pa] = d
            _spinner_slots(R, i, hb, vals, dbl, armv, armd)
        elif R[_R_SPINNER] and d:  # the first double on the line becomes the spinner
            armv[i, 0] = vals[i, 1 - p]
            armd[i, 0] = dbl[i, 1 - p]
            hb[H_COV, i] = 1
            hb[H_SPIN, i] = v
            vals[i, 0] = -1
            vals[i, 1] = -1
            _spinner_slots(R, i, hb, vals, dbl, armv, armd)
        else:
            vals[i, p] = w
            dbl[i, p] = d
    hb[H_NTABLE, i] += 1
    hb[H_LENGTH, i] += 1
    hb[H_LAST, i] = seat
    scoring = R[_R_SCORING]
    if scoring != 0:
        side = _side(R, seat)
        pts = np.int64(0)
        if scoring <= 3:  # fives, threes, muggins
            c = _end_count(R, i, hb, vals, dbl, armv, armd)
            m = 3 if scoring == 2 else 5
            if c > 0 and c % m == 0:
                pts = c if scoring == 3 else c // m
        else:  # bergen headers (§4.8)
            if lead:
                pts = 2 if IS_DBL[hb[H_FIRST, i]] == 1 else 0
            elif vals[i, 0] == vals[i, 1]:
                pts = 3 if (dbl[i, 0] or dbl[i, 1]) else 2
            if R[_R_BERGEN_CAP] and pts > 0:
                need = R[_R_TARGET] - scores[i, side]
                if need <= 2:
                    pts = 1
                elif need == 3:
                    pts = min(pts, 2)
        if _award(R, i, side, pts, scores, points, bb):
            _finish(hb, bb, i, TARGET, -1, -2, side)
        if bb[0, i]:
            return
    if h == 0:
        _finish(hb, bb, i, DOMINO, seat, -2, -1)
        return
    _block_test(R, i, hb, bb, hands, vals)


@_inline
def _pass(R, i, seat, hb, bb, hands, vals, points, penalties):
    hb[H_PASSES, i] += 1
    if R[_R_FTP]:
        penalties[i, seat] += R[_R_FTP]
        points[i, seat] += R[_R_FTP]
    elif R[_R_PPM]:
        penalties[i, seat] += 10
    _block_test(R, i, hb, bb, hands, vals)


@_inline
def _play_masks(i, seat, hands, vals, m2):
    """Per open slot, the 7-bit mask of the seat's tiles fitting it; returns their count."""
    h = hands[i, seat]
    n = np.int64(0)
    for k in range(vals.shape[1]):
        m = _byte(h, vals[i, k])
        m2[k] = m
        n += POPC7[m]
    return n


@_inline
def _only_play(i, vals, m2):
    """The one legal placement (first in canonical order) of the masks just computed."""
    for k in range(vals.shape[1]):
        if m2[k]:
            return TILE_AT[vals[i, k], _lowbit(m2[k])] * 6 + k
    return np.int64(-1)


@_once
def _lot(R, i, sd, match, hand_idx, hb):
    k = _sm(sd[1] ^ np.uint64(match[i]))
    k = _sm(k ^ np.uint64(hand_idx[i]))
    k = _sm(k ^ np.uint64(hb[H_ATTEMPT, i]))
    return _below(k, R[_R_P])


@_once
def _first_leader(R, i, sd, prio, match, hand_idx, hb, hands):
    if R[_R_LEAD_FIRST] == 0:
        return _lot(R, i, sd, match, hand_idx, hb), np.int64(-1)
    P = R[_R_P]
    for t in prio:
        for s in range(P):
            if hands[i, s] & PACK[t]:
                return np.int64(s), t
    return np.int64(-1), np.int64(-1)


@_once
def _winner_seat(R, i, prev, prev_pips):
    w = prev[P_WINNER, i]
    out = prev[P_OUT, i]
    if w < 0:
        return np.int64(-1)
    if out >= 0:
        return out
    if not R[_R_PARTNERSHIP]:
        return w
    a = w
    b = w + 2
    pa = prev_pips[i, a]
    pb = prev_pips[i, b]
    if pa != pb:
        return a if pa < pb else b
    fm = prev[P_FISH, i]
    P = R[_R_P]
    start = (fm + 1) % P if fm >= 0 else 0
    for j in range(P):
        s = (start + j) % P
        if s == a or s == b:
            return np.int64(s)
    return a


@_once
def _choose_leader(R, i, first, sd, prio, match, hand_idx, hb, hands, prev, prev_pips):
    kind = R[_R_LEAD_LATER]
    if first or kind == 0:
        return _first_leader(R, i, sd, prio, match, hand_idx, hb, hands)
    P = R[_R_P]
    none = np.int64(-1)
    if kind == 1:
        return (prev[P_LEADER, i] + 1) % P, none
    if kind == 7:
        return _lot(R, i, sd, match, hand_idx, hb), none
    if kind == 2 or kind == 3 or kind == 4:
        ws = _winner_seat(R, i, prev, prev_pips)
        if ws >= 0:
            return ws, none
        if kind == 2:
            return _lot(R, i, sd, match, hand_idx, hb), none
        if kind == 3:
            return _first_leader(R, i, sd, prio, match, hand_idx, hb, hands)
        return (prev[P_LEADER, i] + 1) % P, none
    out = prev[P_OUT, i]
    if out >= 0:
        return out, none
    if kind == 5:
        return _lot(R, i, sd, match, hand_idx, hb), none
    return prev[P_FISH, i], none


@_once
def _kozel_bad(R, i, hands):
    P = R[_R_P]
    for s in range(P):
        h = hands[i, s]
        nd = 0
        for v in range(7):
            m = _byte(h, v)
            nd += (m >> v) & 1
            if POPC7[m] >= 6:
                return True
        if nd >= 5:
            return True
    return False


@_once
def _deal(R, i, first, sd, prio, htmpl, match, hand_idx, skey, hb, bb, hands, stock, vals,
          dbl, armv, armd, leader, lead_tile, phase, points, penalties, voids, prev, prev_pips, to_move,
          order):  # fmt: skip
    P = R[_R_P]
    hs = R[_R_HAND_SIZE]
    for f in range(hb.shape[0]):
        hb[f, i] = htmpl[f]
    bb[0, i] = False
    bb[1, i] = False
    sk = _sm(sd[2] ^ np.uint64(match[i]))
    skey[i] = _sm(sk ^ np.uint64(hand_idx[i]))
    while True:
        h = _sm(sd[0] ^ np.uint64(match[i]))
        h = _sm(h ^ np.uint64(hand_idx[i]))
        h = _sm(h ^ np.uint64(hb[H_ATTEMPT, i]))
        # the addressed Fisher-Yates shuffle (seeding.shuffle)
        for j in range(28):
            order[j] = j
        for j in range(27, 0, -1):
            r = _below(_sm(h ^ np.uint64(j)), j + 1)
            t = order[j]
            order[j] = order[r]
            order[r] = t
        for s in range(P):
            x = np.uint64(0)
            for j in range(s * hs, (s + 1) * hs):
                x |= PACK[order[j]]
            hands[i, s] = x
        if not (R[_R_KOZEL_REDEAL] and _kozel_bad(R, i, hands)):
            break
        hb[H_ATTEMPT, i] += 1
    for j in range(28):
        stock[i, j] = order[j]
    for k in range(vals.shape[1]):
        vals[i, k] = -1
        dbl[i, k] = False
    for k in range(armv.shape[1]):
        armv[i, k] = -1
        armd[i, k] = False
    for s in range(points.shape[1]):
        points[i, s] = 0
    for s in range(P):
        penalties[i, s] = 0
        voids[i, s] = 0
    ld, tile = _choose_leader(R, i, first, sd, prio, match, hand_idx, hb, hands, prev, prev_pips)
    leader[i] = ld
    lead_tile[i] = tile
    if R[_R_SINGLE_END]:  # single_end: the starting tile from the stock (§10.6)
        t = stock[i, hb[H_SP, i]]
        hb[H_SP, i] += 1
        hb[H_SEND, i] = max(hb[H_SEND, i], hb[H_SP, i])
        lo = TILE_LOW[t]
        hi = TILE_HIGH[t]
        vals[i, 0] = lo
        vals[i, 1] = hi
        dbl[i, 0] = lo == hi
        dbl[i, 1] = lo == hi
        hb[H_NTABLE, i] = 1
        hb[H_FIRST, i] = t
        hb[H_TABLE, i] |= np.int64(1) << t
        to_move[i] = ld
        phase[i] = TURN
    else:
        phase[i] = LEAD


@_once
def _settle(R, i, hb, bb, hands, seat_pips, pips, scores, points, penalties, end_pips,
            written, pending, pot, eggs, side_tmp, valid, scr):  # fmt: skip
    """End-of-hand awards and the hand winner (settle.py, row by row)."""
    P = R[_R_P]
    S = R[_R_S]
    kind = R[_R_SETTLEMENT]
    out = hb[H_OUT, i]
    dom = out >= 0
    out_side = _side(R, out) if dom else np.int64(-1)
    total = np.int64(0)
    for s in range(S):
        total += pips[s]
        valid[s] = True
    if kind == 5:
        _settle_kozel(R, i, hb, hands, seat_pips, points, end_pips, written, pending, pot,
                      eggs, side_tmp, scr)  # fmt: skip
        return
    if kind == 6 or (kind == 0 and R[_R_PPM]):  # penalties
        if dom:
            w = out
        else:
            lo = np.int64(1) << 62
            for s in range(P):
                lo = min(lo, penalties[i, s])
            for s in range(P):
                valid[s] = penalties[i, s] == lo
            w = _unique_min(seat_pips, P, valid)
        hb[H_WINNER, i] = w
        if kind == 6:
            return
        if w >= 0:
            tot = np.int64(0)
            for s in range(P):
                tot += penalties[i, s]
            _award(R, i, w, max(0, tot - 2 * penalties[i, w]), scores, points, bb)
        return
    wblock = _unique_min(pips, S, valid)
    pts = np.int64(0)
    if kind == 0:  # pips
        if R[_R_FEWEST_TILES]:  # block_winner_fewest_tiles
            for s in range(S):
                side_tmp[s] = 0
            for s in range(P):
                side_tmp[_side(R, s)] += _count(hands[i, s])
            wblock = _unique_min(side_tmp, S, valid)
        winner = out_side if dom else wblock
        if winner >= 0:
            own = pips[winner]
            others = total - own
            if dom or R[_R_FEWEST_TILES] or R[_R_FISH_SUM_ONLY]:
                pts = others
            elif R[_R_FISH_DIFF]:
                pts = others - (S - 1) * own
            else:
                pts = max(0, others - own)
    elif kind == 2:  # book
        winner = out_side if dom else wblock
        if winner >= 0:
            pts = R[_R_DOMINO_BONUS] if dom else 1
    elif kind == 3:  # sniff
        winner = out_side if dom else wblock
        if winner >= 0:
            own = pips[winner]
            others = total - own
            pts = (_rnd(others, False) if dom else _rnd(others - own, False)) // 5
    elif kind == 4:  # muggins
        nr = R[_R_MUG_NO_ROUND] == 1
        winner = out_side if dom else wblock
        if dom:
            for s in range(S):
                pts += _rnd(pips[s], nr)
            pts -= _rnd(pips[out_side], nr)
        elif winner >= 0:
            pts = _rnd(total - 2 * pips[winner], nr)
        if R[_R_MUG_PER_OPP] and not dom:
            hb[H_WINNER, i] = winner
            _muggins_per_opponent(R, i, hb, bb, pips, scores, points, side_tmp, scr[13])
            return
    else:  # bergen
        if dom:
            winner = out_side
            pts = R[_R_DOMINO_BONUS]
        else:
            winner, pts = _bergen_block(R, i, hands, side_tmp, valid, scr)
    hb[H_WINNER, i] = winner
    if winner >= 0:
        _award(R, i, winner, pts, scores, points, bb)


@_once
def _muggins_per_opponent(R, i, hb, bb, pips, scores, points, rank, done):
    """§15 muggins_block_difference_per_opponent: sides score in ascending pip order."""
    P = R[_R_P]
    S = R[_R_S]
    fm = hb[H_FISH, i]
    start = (fm + 1) % P if fm >= 0 else 0
    for s in range(S):
        rank[s] = 99
    for j in range(P):
        s = _side(R, (start + j) % P)
        if rank[s] == 99:
            rank[s] = j
    for s in range(S):
        done[s] = 0
    for _ in range(S):
        best = np.int64(-1)
        for s in range(S):
            if not done[s] and (best < 0 or pips[s] < pips[best] or
                                (pips[s] == pips[best] and rank[s] < rank[best])):  # fmt: skip
                best = s
        done[best] = True
        if bb[1, i]:
            break
        pts = np.int64(0)
        for o in range(S):
            if pips[o] > pips[best]:
                pts += _rnd(pips[o] - pips[best], R[_R_MUG_NO_ROUND] == 1)
        _award(R, i, best, pts, scores, points, bb)


@_once
def _bergen_block(R, i, hands, side_tmp, valid, scr):
    """Bergen's block award (§4.10, §4.10a, bergen_block_lowest_hand_1pt)."""
    P = R[_R_P]
    S = R[_R_S]
    has_double = scr[6]
    nd_pips = scr[7]
    all_pips = scr[8]
    min_double = scr[9]
    for s in range(S):
        has_double[s] = 0
        nd_pips[s] = 0
        all_pips[s] = 0
        min_double[s] = 99
    for s in range(P):
        side = _side(R, s)
        m = _mask28(hands[i, s])
        for t in range(28):
            if (m >> t) & 1:
                all_pips[side] += TILE_PIPS[t]
                if IS_DBL[t] == 1:
                    has_double[side] = True
                    min_double[side] = min(min_double[side], t)
                else:
                    nd_pips[side] += TILE_PIPS[t]
    n_nd = 0
    for s in range(S):
        if not has_double[s]:
            n_nd += 1
    if R[_R_BERGEN_1PT]:
        for s in range(S):
            valid[s] = (not has_double[s]) or n_nd == 0
        return _unique_min(nd_pips, S, valid), np.int64(1)
    if n_nd == 1:
        for s in range(S):
            if not has_double[s]:
                return np.int64(s), np.int64(2)
    if n_nd >= 2:
        for s in range(S):
            valid[s] = not has_double[s]
        return _unique_min(all_pips, S, valid), np.int64(2)
    for s in range(S):
        valid[s] = True
    return _unique_min(min_double, S, valid), np.int64(2)


@_once
def _write(i, s, amount, written, pending):
    """The 13-point rule (§14.13)."""
    if written[i, s] < 0:
        pending[i, s] += amount
        if pending[i, s] >= 13:
            written[i, s] = pending[i, s]
            pending[i, s] = 0
    else:
        written[i, s] += amount


@_once
def _settle_kozel(R, i, hb, hands, seat_pips, points, end_pips, written, pending, pot, eggs,
                  vals, scr):  # fmt: skip
    P = R[_R_P]
    n = R[_R_S]
    for s in range(n):
        vals[s] = 0
    for s in range(P):
        h = hands[i, s]
        if h == PACK00:
            v = R[_R_LONE00]
        elif h == PACK66 and R[_R_LONE66]:
            v = R[_R_LONE66]
        else:
            v = seat_pips[s]
        vals[_side(R, s)] += v
    for s in range(n):
        end_pips[i, s] = vals[s]
    charges = scr[10]
    charged = scr[11]
    winners = scr[12]
    for s in range(n):
        charges[s] = 0
        charged[s] = 0
        winners[s] = 0
    out = hb[H_OUT, i]
    if out >= 0:
        w = _side(R, out)
        hb[H_WINNER, i] = w
        winners[w] = True
        for s in range(n):
            if s != w:
                charged[s] = True
                charges[s] = vals[s]
    else:
        lo = vals[0]
        for s in range(n):
            lo = min(lo, vals[s])
        nlow = 0
        first_low = -1
        total = np.int64(0)
        for s in range(n):
            total += vals[s]
            if vals[s] == lo:
                nlow += 1
                winners[s] = True
                if first_low < 0:
                    first_low = s
        if nlow == n:  # eggs
            hb[H_WINNER, i] = -1
            if R[_R_EGGS_DOUBLE]:
                eggs[i] += 1
            else:
                pot[i] += total
            return
        hb[H_WINNER, i] = first_low if nlow == 1 else -1
        fm = hb[H_FISH, i]
        fm_side = _side(R, fm) if fm >= 0 else -1
        if R[_R_FM_TAKES_ALL] and fm_side >= 0 and not winners[fm_side]:
            charged[fm_side] = True
            charges[fm_side] = total
        else:
            for s in range(n):
                if not winners[s]:
                    charged[s] = True
                    charges[s] = vals[s]
    mult = np.int64(1) << eggs[i] if R[_R_EGGS_DOUBLE] else np.int64(1)
    eggs[i] = 0
    p0 = pot[i]
    pot[i] = 0
    if R[_R_KOZEL_POSITIVE]:  # kozel_positive_scoring
        tot = np.int64(0)
        for s in range(n):
            if charged[s]:
                tot += charges[s] * mult
        for s in range(n):
            if winners[s]:
                points[i, s] += tot + p0
                _write(i, s, tot + p0, written, pending)
    else:
        for s in range(n):
            if charged[s]:
                amount = charges[s] * mult + p0
                points[i, s] += amount
                _write(i, s, amount, written, pending)


@_once
def _match_over(R, i, hb, bb, hand_idx, scores, penalties, written, dry, losers):
    """(done, winner) after a hand (batch.py _match_over, settle.kozel_match_over)."""
    me = R[_R_MATCH_END]
    n = R[_R_NPOINTS]
    win = np.int64(-1)
    done = False
    if me == 0:  # race
        top = scores[i, 0]
        at = 0
        for s in range(n):
            if scores[i, s] > top:
                top = scores[i, s]
                at = s
        if R[_R_CHECK_ONLY]:
            c = 0
            for s in range(n):
                c += scores[i, s] == top
            done = top >= R[_R_TARGET] and c == 1
        else:
            done = bb[1, i]
        if done:
            win = at
    elif me == 1:  # one hand (penalty ledgers)
        for s in range(n):
            scores[i, s] += penalties[i, s]
        done = hand_idx[i] + 1 >= R[_R_HANDS_PER_MATCH]
        if done:
            if R[_R_HANDS_PER_MATCH] == 1:
                win = hb[H_WINNER, i]
            else:
                lo = scores[i, 0]
                for s in range(n):
                    lo = min(lo, scores[i, s])
                c = 0
                for s in range(n):
                    if scores[i, s] == lo:
                        c += 1
                        win = s if c == 1 else win
                if c != 1:
                    win = -1
    else:  # kozel
        S = R[_R_S]
        hit = False
        for s in range(S):
            hit |= written[i, s] >= R[_R_TARGET]
        if hit:
            done = True
            lose = np.int64(0)
            if R[_R_KOZEL_POSITIVE]:
                top = np.int64(-1)
                for s in range(S):
                    top = max(top, max(written[i, s], 0))
                c = 0
                for s in range(S):
                    if max(written[i, s], 0) == top:
                        c += 1
                        win = s if c == 1 else win
                    else:
                        lose |= np.int64(1) << s
                if c != 1:
                    win = -1
            else:
                lo = np.int64(1) << 62
                for s in range(S):
                    tot = max(written[i, s], 0)
                    if tot >= R[_R_TARGET]:
                        lose |= np.int64(1) << s
                    elif tot < lo:
                        lo = tot
                c = 0
                for s in range(S):
                    if not (lose >> s) & 1 and max(written[i, s], 0) == lo:
                        c += 1
                        win = s if c == 1 else win
                if c != 1:
                    win = -1
                if R[_R_DRY_GOAT]:  # dry goat
                    for gl in range(S):
                        if (lose >> gl) & 1:
                            allnone = True
                            for o in range(S):
                                if o != gl and written[i, o] >= 0:
                                    allnone = False
                            if allnone:
                                dry[i] = True
            losers[i] = lose
    if R[_R_UNIT_HAND]:  # unit hand
        if not done:
            win = hb[H_WINNER, i]
        done = True
    return done, win


@_inline
def _legal_act(i, kind, a, seat, hands, vals, lead_tile):
    """Whether action ``a`` is one of the legal actions slot i waits on (kind ASK_*)."""
    if a < 0 or a >= 168:
        return False
    t = a // 6
    p = a % 6
    if not hands[i, seat] & PACK[t]:
        return False
    if kind == ASK_LEAD:
        return p == 0 and (lead_tile[i] < 0 or lead_tile[i] == t)
    if p >= vals.shape[1]:
        return False
    v = vals[i, p]
    return v >= 0 and (TILE_LOW[t] == v or TILE_HIGH[t] == v)


@_jit
def advance(R, sd, prio, htmpl, queue, qpos, active, match, hand_idx, skey, hb, bb, prev,
            prev_pips, hands, stock, vals, dbl, armv, armd, to_move, leader, lead_tile, phase,
            scores, points, penalties, voids, end_pips, written, pending, pot, eggs, dry, losers,
            ask, act, dl, nd, cvals, cmasks, clead, ckeys, cdec, cseat, qidx, hdir, hrec,
            mdir, nrec, scr, start):  # fmt: skip
    """Advance every game slot from ``start`` to its next decision with a choice.

    A slot waiting on a decision (``ask[i]`` ASK_PLAY / ASK_LEAD) first plays the action the
    strategy chose, ``act[i]``, after checking that it is legal. A slot that stops at its next
    decision is appended to list 0 (a placement; its values and slot masks in ``cvals``,
    ``cmasks``) or list 1 (a lead; its tile mask in ``clead``) of ``dl``, with its key,
    decision number and seat; ``nd`` counts both lists.

    Records are written column by column (``[field, row]``): a match's record to row
    ``qidx[i]`` (its position in the queue) of ``mdir``; a hand's record, with unit "hand", to
    row ``qidx[i]`` of ``hdir``, otherwise to the next row of the buffer ``hrec`` (``nrec[0]``
    rows used).

    Returns -1 when every slot stands at a decision or is idle; the slot to resume from when
    ``hrec`` filled up; ``-2 - i`` when slot i's chosen action is illegal.
    """
    B = active.shape[0]
    P = R[_R_P]
    S = R[_R_S]
    npts = R[_R_NPOINTS]
    cap = hrec.shape[1]
    direct = R[_R_UNIT_HAND] == 1
    # scratch rows (no allocation here: the kernel runs without numba's reference counting)
    order = scr[0]
    seat_pips = scr[1]
    pips = scr[2]
    tmp = scr[3]
    valid = scr[4]
    m2 = scr[5]
    for i in range(start, B):
        if not active[i]:
            continue
        kind = ask[i]
        seat = to_move[i]
        lm = np.int64(0)
        if kind != ASK_NONE:  # play the chosen action
            a = act[i]
            if not _legal_act(i, kind, a, seat, hands, vals, lead_tile):
                return -2 - i
            ask[i] = ASK_NONE
            _place(R, i, seat, a, kind == ASK_LEAD, hb, bb, hands, vals, dbl, armv, armd, scores,
                   points)  # fmt: skip
            if kind == ASK_LEAD:
                phase[i] = TURN
                if not bb[0, i]:
                    to_move[i] = _next(seat, P)
            else:
                to_move[i] = _next(seat, P)
        while True:
            if phase[i] == START or bb[0, i]:
                if not direct and nrec[0] >= cap:
                    return i  # flush the records, then resume here
                first = True
                if phase[i] != START:
                    # ---- the hand is over: settle, record, next hand or match
                    for s in range(P):
                        seat_pips[s] = _pips(hands[i, s])
                    for s in range(S):
                        pips[s] = 0
                    for s in range(P):
                        pips[_side(R, s)] += seat_pips[s]
                    for s in range(S):
                        end_pips[i, s] = pips[s]
                    if hb[H_REASON, i] != TARGET:
                        _settle(R, i, hb, bb, hands, seat_pips, pips, scores, points,
                                penalties, end_pips, written, pending, pot, eggs, tmp,
                                valid, scr)  # fmt: skip
                    if direct:
                        r = qidx[i]
                        buf = hdir
                    else:
                        r = nrec[0]
                        nrec[0] = r + 1
                        buf = hrec
                    buf[0, r] = match[i]
                    buf[1, r] = hand_idx[i]
                    buf[2, r] = leader[i]
                    buf[3, r] = hb[H_REASON, i]
                    buf[4, r] = hb[H_FISH, i]
                    buf[5, r] = hb[H_WINNER, i]
                    buf[6, r] = hb[H_OUT, i]
                    buf[7, r] = hb[H_LENGTH, i]
                    buf[8, r] = hb[H_TURNS, i]
                    buf[9, r] = hb[H_DRAWS, i]
                    buf[10, r] = hb[H_PASSES, i]
                    buf[11, r] = hb[H_ATTEMPT, i]
                    c = 12
                    for s in range(npts):
                        buf[c + s, r] = points[i, s]
                    c += npts
                    for s in range(S):
                        buf[c + s, r] = end_pips[i, s]
                    c += S
                    for s in range(P):
                        buf[c + s, r] = penalties[i, s]
                    done, mwin = _match_over(R, i, hb, bb, hand_idx, scores, penalties,
                                             written, dry, losers)  # fmt: skip
                    prev[P_LEADER, i] = leader[i]
                    prev[P_WINNER, i] = hb[H_WINNER, i]
                    prev[P_OUT, i] = hb[H_OUT, i]
                    prev[P_FISH, i] = hb[H_FISH, i]
                    for s in range(P):
                        prev_pips[i, s] = seat_pips[s]
                    if done:
                        m = qidx[i]
                        mdir[0, m] = match[i]
                        mdir[1, m] = mwin
                        mdir[2, m] = hand_idx[i] + 1
                        mdir[3, m] = dry[i]
                        mdir[4, m] = losers[i]
                        for s in range(npts):
                            if R[_R_MATCH_END] == 2:
                                mdir[5 + s, m] = max(written[i, s], 0)
                            else:
                                mdir[5 + s, m] = scores[i, s]
                    else:
                        first = False
                if first:
                    # ---- the next match id of the queue, or idle
                    q = qpos[0]
                    if q >= queue.shape[0]:
                        active[i] = False
                        phase[i] = DONE
                        break
                    qpos[0] = q + 1
                    qidx[i] = q
                    match[i] = queue[q]
                    hand_idx[i] = 0
                    for s in range(scores.shape[1]):
                        scores[i, s] = 0
                    for s in range(S):
                        written[i, s] = -1
                        pending[i, s] = 0
                    pot[i] = 0
                    eggs[i] = 0
                    dry[i] = False
                    losers[i] = 0
                else:
                    hand_idx[i] += 1
                _deal(R, i, first, sd, prio, htmpl, match, hand_idx, skey, hb, bb, hands, stock,
                      vals, dbl, armv, armd, leader, lead_tile, phase, points, penalties, voids, prev,
                      prev_pips, to_move, order)  # fmt: skip
                continue
            if phase[i] == LEAD:
                seat = leader[i]
                to_move[i] = seat
                hb[H_TURNS, i] += 1
                fixed = lead_tile[i]
                if fixed >= 0:
                    lm = np.int64(1) << fixed
                else:
                    lm = _mask28(hands[i, seat])
                if _popc28(lm) >= 2:
                    kind = ASK_LEAD
                else:
                    _place(R, i, seat, _lowbit(lm) * 6, True, hb, bb, hands, vals, dbl, armv,
                           armd, scores, points)  # fmt: skip
                    if not bb[0, i]:
                        to_move[i] = _next(seat, P)
                    phase[i] = TURN
                    continue
            else:  # TURN
                seat = to_move[i]
                hb[H_TURNS, i] += 1
                n = _play_masks(i, seat, hands, vals, m2)
                if n == 0:
                    # nothing playable: the drawing mode applies (§1.7)
                    vm = _open_values(i, vals)
                    placed = False
                    ndraw = 0
                    if R[_R_DRAW_MODE] != 0:
                        sp = hb[H_SP, i]
                        av = min(hb[H_SEND, i] - sp, R[_R_LIMIT])
                        while ndraw < av:
                            t = stock[i, sp + ndraw]
                            ndraw += 1
                            hands[i, seat] |= PACK[t]
                            if (vm >> TILE_LOW[t]) & 1 or (vm >> TILE_HIGH[t]) & 1:
                                placed = True
                                break
                        hb[H_SP, i] = sp + ndraw
                        hb[H_DRAWS, i] += ndraw
                    kept = ndraw > (1 if placed else 0)
                    voids[i, seat] = vm if kept else (voids[i, seat] | vm)
                    if not placed:
                        _pass(R, i, seat, hb, bb, hands, vals, points, penalties)
                        to_move[i] = _next(seat, P)
                        continue
                    n = _play_masks(i, seat, hands, vals, m2)
                if n >= 2:
                    kind = ASK_PLAY
                else:
                    _place(R, i, seat, _only_play(i, vals, m2), False, hb, bb, hands, vals,
                           dbl, armv, armd, scores, points)  # fmt: skip
                    to_move[i] = _next(seat, P)
                    continue
            # ---- a decision with a choice: its key, then stop here
            dec = hb[H_DECISION, i]
            h = _sm(skey[i] ^ np.uint64(dec))
            li = 0 if kind == ASK_PLAY else 1
            j = nd[li]
            nd[li] = j + 1
            dl[li, j] = i
            ckeys[li, j] = _sm(h ^ np.uint64(seat))
            cdec[li, j] = dec
            cseat[li, j] = seat
            if li == 0:
                for k in range(vals.shape[1]):
                    cvals[j, k] = vals[i, k]
                    cmasks[j, k] = m2[k]
            else:
                clead[j] = lm
            hb[H_DECISION, i] = dec + 1
            ask[i] = kind
            break
    return -1


# ---------------------------------------------------------------------------------------------
# compiled library helpers of Legal (same answers as its numpy code)
# ---------------------------------------------------------------------------------------------
@_jit
def uniform_slots(values, masks, keys, out):
    """Legal.uniform for placements without flags or along actions (any number of slots)."""
    K = masks.shape[1]
    for j in range(out.shape[0]):
        c = np.int64(0)
        for p in range(K):
            c += POPC7[masks[j, p]]
        k = _below(keys[j], c)
        p = 0
        while k >= POPC7[masks[j, p]]:
            k -= POPC7[masks[j, p]]
            p += 1
        out[j] = TILE_AT[values[j, p], SELECT7[masks[j, p], k]] * 6 + p


@_jit
def uniform_lead(lead, keys, out):
    """Legal.uniform for leads without along actions."""
    for j in range(out.shape[0]):
        m = lead[j]
        out[j] = _select28(m, _below(keys[j], _popc28(m))) * 6
