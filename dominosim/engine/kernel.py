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
and the reference engine). :func:`supports` says which rules it plays: every variant, every
layout (line, single end, spinner), every drawing mode including blind's rows, not the
voluntary draws (``may_draw_when_able``, ``bergen_voluntary``) nor
``inline_double_counts_single``. Everything else stays on the numpy path. One game slot's
state is one record (:data:`SLOT`, blind's rows in :data:`BSLOT`); the engine's state arrays
are views of its fields. The kernel is used when numba imports (the ``fast`` extra) and
``DOMINOSIM_KERNEL`` is not ``0``; event logs (``log=True``) always use the numpy path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
from pathlib import Path

import numpy as np

from .. import actions as A
from .. import seeding, tiles
from ..rules import Rules
from . import tables as TB

try:  # optional: the numpy path needs none of this
    import numba

    HAVE_NUMBA = True
    COMPILE_ERRORS: tuple = (numba.core.errors.NumbaError,)
except ImportError:  # pragma: no cover - exercised where numba is absent
    numba = None
    HAVE_NUMBA = False
    COMPILE_ERRORS = ()


def enabled() -> bool:
    """True when the compiled kernel may be used (numba present, not switched off)."""
    return HAVE_NUMBA and os.environ.get("DOMINOSIM_KERNEL", "1") != "0"


def supports(rules: Rules) -> bool:
    """True when :func:`advance` plays these rules (otherwise the numpy path does)."""
    return (
        rules.layout in ("line", "single_end", "spinner")
        and rules.draw_mode in ("none", "one", "until_playable", "blind")
        and not rules.may_draw_when_able
        and not rules.bergen_voluntary
        and not rules.inline_double_counts_single
    )


# ---------------------------------------------------------------------------------------------
# codes shared with batch.py
# ---------------------------------------------------------------------------------------------
LEAD, TURN, DONE, START = 0, 1, 4, 5  # phases (batch.py: LEAD TURN MAYDRAW AFTERDRAW DONE)
DOMINO, BLOCKED, TARGET = 0, 1, 2
ASK_NONE, ASK_LEAD, ASK_PLAY = 0, 1, 2  # what a pending decision is
# blind (§3.7): where a turn stands (bw.tph), the flags of a decision and its phase name
T_START, T_FRONT, T_BACK, T_BACK_DECLINED, T_DRAWQ, T_DRAWN, T_ODRAWQ, T_OPLAY, T_CONT = range(9)
F_DRAW, F_PASS, F_STOP = 1, 2, 4
PHASES = ("play", "blind_front", "blind_drawn", "continue")  # a decision's phase code -> name
PH_PLAY, PH_FRONT, PH_DRAWN, PH_CONT = range(4)
RB = 32  # blind's row ring size (engine/blind.py)
A_DRAW, A_PASS, A_STOP = A.DRAW, A.PASS, A.STOP

# rows of the engine's per-hand block (batch.py hand_fields, same order)
H_ATTEMPT, H_SP, H_SEND, H_SPIN, H_COV, H_NTABLE, H_FIRST, H_TABLE, H_DECISION = range(9)
H_LAST, H_LENGTH, H_TURNS, H_DRAWS, H_PASSES, H_REASON, H_FISH, H_WINNER, H_OUT = range(9, 18)
# rows of the previous-hand block
P_LEADER, P_WINNER, P_OUT, P_FISH = range(4)
# columns of a decision's row in the decision lists (advance's ``cd[list, j]``): the slot, the
# addressed random key (uint64 bits), the decision number, the seat, its packed hand, blind's
# flags and phase code, a lead's tile mask, and everyone's voids (CD_VOIDS to CD_VOIDS + 3)
CD_SLOT, CD_KEY, CD_DEC, CD_SEAT, CD_HAND, CD_FLAGS, CD_PHASE, CD_LEAD, CD_VOIDS = range(9)
CDW = CD_VOIDS + 4

# rule knobs, as one int64 vector (index names)
_KNOBS = (
    "P", "S", "hand_size", "single_end", "draw_mode", "limit", "scoring", "ftp", "ppm",
    "lead_first", "lead_later", "settlement", "domino_bonus", "partnership", "target",
    "check_only", "match_end", "hands_per_match", "fewest_tiles", "bergen_1pt", "bergen_cap",
    "mug_no_round", "mug_per_opp", "fish_sum_only", "fish_diff", "kozel_redeal", "lone00",
    "lone66", "eggs_double", "fm_takes_all", "dry_goat", "kozel_positive", "unit_hand",
    "npoints", "spinner", "us_sniff", "open_all_four", "npos", "blind", "bplay_opt",
    "bdraw_opt", "bface_up", "start_tile", "block_any",
)  # fmt: skip
# the knobs' indices in R (compile-time constants inside the kernel)
(_R_P, _R_S, _R_HAND_SIZE, _R_SINGLE_END, _R_DRAW_MODE, _R_LIMIT, _R_SCORING, _R_FTP,
    _R_PPM, _R_LEAD_FIRST, _R_LEAD_LATER, _R_SETTLEMENT, _R_DOMINO_BONUS, _R_PARTNERSHIP,
    _R_TARGET, _R_CHECK_ONLY, _R_MATCH_END, _R_HANDS_PER_MATCH, _R_FEWEST_TILES,
    _R_BERGEN_1PT, _R_BERGEN_CAP, _R_MUG_NO_ROUND, _R_MUG_PER_OPP, _R_FISH_SUM_ONLY,
    _R_FISH_DIFF, _R_KOZEL_REDEAL, _R_LONE00, _R_LONE66, _R_EGGS_DOUBLE, _R_FM_TAKES_ALL,
    _R_DRY_GOAT, _R_KOZEL_POSITIVE, _R_UNIT_HAND, _R_NPOINTS, _R_SPINNER, _R_US_SNIFF,
    _R_OPEN_ALL_FOUR, _R_NPOS, _R_BLIND, _R_BPLAY_OPT, _R_BDRAW_OPT, _R_BFACE_UP,
    _R_START_TILE, _R_BLOCK_ANY) = range(len(_KNOBS))  # fmt: skip
_KNOB_NAMES = tuple("_R_" + name.upper() for name in _KNOBS)
DRAW_MODES = {"none": 0, "one": 1, "until_playable": 2, "blind": 0}  # (blind: its rows)
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
    blind = r.draw_mode == "blind"
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
        "lead_first": 0 if r.lead_first in ("lot_any", "ladder", "blind_front") else 1,
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
        "npos": 6 if r.layout == "spinner" else 2,
        "blind": int(blind),
        "bplay_opt": int(blind and r.blind_play_optional),
        "bdraw_opt": int(blind and r.blind_draw_optional),
        "bface_up": int(blind and r.blind_unplayable_double_face_up),
        # a tile from the stock starts the layout: single_end (§10.6), and blind_deal=all_tiles
        # with 3 players (§15)
        "start_tile": int(
            r.layout == "single_end" or (blind and r.blind_deal == "all_tiles" and r.players == 3)
        ),
        # blind_draw_optional: a hand is blocked whatever the stock (§3.9a)
        "block_any": int(blind and r.blind_draw_optional),
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


# One game slot's whole state on the kernel path, as one record: the engine's state arrays are
# views of these fields (``BatchEngine._bind_slots``), and :func:`advance` works on one slot's
# record at a time (``st[i]``), so its helpers take one record instead of thirty arrays. Sizes
# are the largest any rules need (4 seats, 6 open positions); the views show the rules' own.
SLOT = np.dtype(
    [("hands", np.uint64, (4,)), ("vals", np.int64, (6,)), ("hb", np.int64, (18,)),
     ("phase", np.int64), ("to_move", np.int64), ("leader", np.int64),
     ("lead_tile", np.int64), ("ask", np.int64), ("act", np.int64),
     ("over", np.bool_), ("target_hit", np.bool_), ("active", np.bool_), ("dry", np.bool_),
     ("dbl", np.int8, (6,)), ("armd", np.int8, (4,)), ("stock", np.int8, (28,)),
     ("armv", np.int64, (4,)), ("match", np.int64), ("hand_idx", np.int64),
     ("skey", np.uint64), ("qidx", np.int64), ("pot", np.int64), ("eggs", np.int64),
     ("losers", np.int64), ("scores", np.int64, (4,)), ("points", np.int64, (4,)),
     ("penalties", np.int64, (4,)), ("voids", np.int64, (4,)), ("end_pips", np.int64, (4,)),
     ("written", np.int64, (4,)), ("pending", np.int64, (4,)), ("prev", np.int64, (4,)),
     ("prev_pips", np.int64, (4,))],
    align=True,
)  # fmt: skip
# blind's per-slot state, a record array of its own (one unused record for other rules): the
# turn's sub-phase and pending decision, and the rows (engine/blind.py)
BSLOT = np.dtype(
    [("tph", np.int64), ("dtile", np.int64), ("cflag", np.int64), ("head", np.int64, (4,)),
     ("span", np.int64, (4,)), ("known", np.int64, (4,)), ("face_up", np.int64),
     ("opened", np.int8, (4,)), ("buf", np.int8, (4, 32))],
    align=True,
)  # fmt: skip
# knobs a specialized kernel still reads at run time: numbers a study varies (one compile per
# target score of a sweep would cost more than it saves)
_RUNTIME = frozenset({_R_TARGET, _R_HANDS_PER_MATCH, _R_LIMIT, _R_FTP, _R_DOMINO_BONUS,
                      _R_LONE00, _R_LONE66})  # fmt: skip
MAX_SLOTS = 4096  # game slots per engine on the kernel (faster than 10 000: cache-resident)
SCRATCH = (15, 32)  # the scratch rows advance() works in
# hand record columns (int32): these, then points[npoints], pips[S], penalties[P]; the kernel
# writes the queue position in the match id columns (the engine maps it to the match id)
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
BYTES_OF = TB.BYTES_OF.copy()  # [value mask]: the bytes of those values in a packed hand
PACK66 = TB.PACK[TB.TILE_AT[6, 6]]
PACK00 = TB.PACK[0]


# >>> the rule-dependent code (advance_for compiles it once more per rule set, with the knobs
# R[...] it reads written in as constants; keep every knob read in the form R[_R_<NAME>])


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
def _award(R, rw, side, pts):
    """Points event by event; a side reaching the target ends the match (§1.14)."""
    if pts <= 0:
        return False
    rw.scores[side] += pts
    rw.points[side] += pts
    if R[_R_MATCH_END] == 0 and R[_R_CHECK_ONLY] == 0 and rw.scores[side] >= R[_R_TARGET]:
        rw.target_hit = True
        return True
    return False


@_inline
def _finish(rw, reason, out, fish, winner):
    rw.over = True
    rw.hb[H_REASON] = reason
    if out >= 0:
        rw.hb[H_OUT] = out
    if fish >= -1 and reason == BLOCKED:
        rw.hb[H_FISH] = fish
    if winner >= 0:
        rw.hb[H_WINNER] = winner


@_inline
def _open_values(R, rw):
    """7-bit mask of the values showing on open positions."""
    vm = np.int64(0)
    for k in range(2):
        if rw.vals[k] >= 0:
            vm |= np.int64(1) << rw.vals[k]
    if R[_R_SPINNER]:
        for k in range(2, 6):
            if rw.vals[k] >= 0:
                vm |= np.int64(1) << rw.vals[k]
    return vm


@_inline
def _block_test(R, rw):
    """§1.12: blocked when no hand holds a fitting tile and nothing can be drawn."""
    if rw.over or (rw.hb[H_SEND] > rw.hb[H_SP] and not R[_R_BLOCK_ANY]):
        return
    sel = BYTES_OF[_open_values(R, rw)]  # the hands' bytes of the open values
    for s in range(R[_R_P]):
        if rw.hands[s] & sel:
            return
    _finish(rw, BLOCKED, -1, rw.hb[H_LAST], -1)


@_inline
def _end_count(R, rw):
    """The end count (§1.11; the spinner's arms, §6.8, us_sniff_counting)."""
    if rw.hb[H_NTABLE] == 1:
        return TILE_PIPS[rw.hb[H_FIRST]]
    spin = rw.hb[H_SPIN]
    c = np.int64(0)
    if spin < 0:
        for k in range(2):
            v = rw.vals[k]
            if v >= 0:
                c += 2 * v if rw.dbl[k] else v
        return c
    cov = rw.hb[H_COV]
    k = 0
    for j in range(4):
        if (cov >> j) & 1:
            a = rw.armv[j]
            c += 2 * a if rw.armd[j] else a
            k += 1
    if R[_R_US_SNIFF]:
        c += 2 * spin if k <= 2 else (spin if k == 3 else 0)
    else:
        c += 2 * spin if k <= 1 else 0
    return c


@_inline
def _spinner_slots(R, rw):
    """The open positions around the spinner: W E first, N S once W and E are covered."""
    cov = rw.hb[H_COV]
    spin = rw.hb[H_SPIN]
    we = (cov & 3) == 3
    for j in range(4):
        if (cov >> j) & 1:
            rw.vals[2 + j] = rw.armv[j]
            rw.dbl[2 + j] = rw.armd[j]
        else:
            rw.vals[2 + j] = spin if (j < 2 or R[_R_OPEN_ALL_FOUR] or we) else -1
            rw.dbl[2 + j] = True


@_inline
def _place(R, rw, seat, act, lead):
    t = act // 6
    p = act % 6
    lo = TILE_LOW[t]
    hi = TILE_HIGH[t]
    d = IS_DBL[t] == 1
    h = rw.hands[seat] & ~PACK[t]
    rw.hands[seat] = h
    rw.hb[H_TABLE] |= np.int64(1) << t
    if lead:
        rw.hb[H_FIRST] = t
        if d and R[_R_SPINNER]:  # a double lead becomes the spinner
            rw.hb[H_SPIN] = lo
            rw.vals[0] = -1
            rw.vals[1] = -1
            _spinner_slots(R, rw)
        else:
            rw.vals[0] = lo
            rw.vals[1] = hi
            rw.dbl[0] = d
            rw.dbl[1] = d
    else:
        v = rw.vals[p]
        w = lo + hi - v
        if R[_R_SINGLE_END]:
            rw.vals[0] = -1
            rw.vals[1] = w
            rw.dbl[1] = d
        elif R[_R_SPINNER] and rw.hb[H_SPIN] >= 0:  # on an arm of the spinner
            pa = p - 2
            rw.hb[H_COV] |= np.int64(1) << pa
            rw.armv[pa] = w
            rw.armd[pa] = d
            _spinner_slots(R, rw)
        elif R[_R_SPINNER] and d:  # the first double on the line becomes the spinner
            rw.armv[0] = rw.vals[1 - p]
            rw.armd[0] = rw.dbl[1 - p]
            rw.hb[H_COV] = 1
            rw.hb[H_SPIN] = v
            rw.vals[0] = -1
            rw.vals[1] = -1
            _spinner_slots(R, rw)
        else:
            rw.vals[p] = w
            rw.dbl[p] = d
    rw.hb[H_NTABLE] += 1
    rw.hb[H_LENGTH] += 1
    rw.hb[H_LAST] = seat
    scoring = R[_R_SCORING]
    if scoring != 0:
        side = _side(R, seat)
        pts = np.int64(0)
        if scoring <= 3:  # fives, threes, muggins
            c = _end_count(R, rw)
            m = 3 if scoring == 2 else 5
            if c > 0 and c % m == 0:
                pts = c if scoring == 3 else c // m
        else:  # bergen headers (§4.8)
            if lead:
                pts = 2 if IS_DBL[rw.hb[H_FIRST]] == 1 else 0
            elif rw.vals[0] == rw.vals[1]:
                pts = 3 if (rw.dbl[0] or rw.dbl[1]) else 2
            if R[_R_BERGEN_CAP] and pts > 0:
                need = R[_R_TARGET] - rw.scores[side]
                if need <= 2:
                    pts = 1
                elif need == 3:
                    pts = min(pts, 2)
        if _award(R, rw, side, pts):
            _finish(rw, TARGET, -1, -2, side)
        if rw.over:
            return
    if h == 0:
        _finish(rw, DOMINO, seat, -2, -1)
        return
    _block_test(R, rw)


@_inline
def _pass(R, rw, seat):
    rw.hb[H_PASSES] += 1
    if R[_R_FTP]:
        rw.penalties[seat] += R[_R_FTP]
        rw.points[seat] += R[_R_FTP]
    elif R[_R_PPM]:
        rw.penalties[seat] += 10
    _block_test(R, rw)


@_inline
def _play_masks(R, rw, seat, m2):
    """Per open slot, the 7-bit mask of the seat's tiles fitting it; returns their count."""
    h = rw.hands[seat]
    m = _byte(h, rw.vals[0])
    m2[0] = m
    n = POPC7[m]
    m = _byte(h, rw.vals[1])
    m2[1] = m
    n += POPC7[m]
    if R[_R_SPINNER]:
        for k in range(2, 6):
            m = _byte(h, rw.vals[k])
            m2[k] = m
            n += POPC7[m]
    return n


@_inline
def _only_play(R, rw, m2):
    """The one legal placement (first in canonical order) of the masks just computed."""
    for k in range(R[_R_NPOS]):
        if m2[k]:
            return TILE_AT[rw.vals[k], SELECT7[m2[k], 0]] * 6 + k
    return np.int64(-1)


@_once
def _lot(R, rw, sd):
    k = _sm(sd[1] ^ np.uint64(rw.match))
    k = _sm(k ^ np.uint64(rw.hand_idx))
    k = _sm(k ^ np.uint64(rw.hb[H_ATTEMPT]))
    return _below(k, R[_R_P])


@_once
def _first_leader(R, rw, sd, prio):
    if R[_R_LEAD_FIRST] == 0:
        return _lot(R, rw, sd), np.int64(-1)
    P = R[_R_P]
    for t in prio:
        for s in range(P):
            if rw.hands[s] & PACK[t]:
                return np.int64(s), t
    return np.int64(-1), np.int64(-1)


@_once
def _winner_seat(R, rw):
    w = rw.prev[P_WINNER]
    out = rw.prev[P_OUT]
    if w < 0:
        return np.int64(-1)
    if out >= 0:
        return out
    if not R[_R_PARTNERSHIP]:
        return w
    a = w
    b = w + 2
    pa = rw.prev_pips[a]
    pb = rw.prev_pips[b]
    if pa != pb:
        return a if pa < pb else b
    fm = rw.prev[P_FISH]
    P = R[_R_P]
    start = (fm + 1) % P if fm >= 0 else 0
    for j in range(P):
        s = (start + j) % P
        if s == a or s == b:
            return np.int64(s)
    return a


@_once
def _choose_leader(R, rw, first, sd, prio):
    kind = R[_R_LEAD_LATER]
    if first or kind == 0:
        return _first_leader(R, rw, sd, prio)
    P = R[_R_P]
    none = np.int64(-1)
    if kind == 1:
        return (rw.prev[P_LEADER] + 1) % P, none
    if kind == 7:
        return _lot(R, rw, sd), none
    if kind == 2 or kind == 3 or kind == 4:
        ws = _winner_seat(R, rw)
        if ws >= 0:
            return ws, none
        if kind == 2:
            return _lot(R, rw, sd), none
        if kind == 3:
            return _first_leader(R, rw, sd, prio)
        return (rw.prev[P_LEADER] + 1) % P, none
    out = rw.prev[P_OUT]
    if out >= 0:
        return out, none
    if kind == 5:
        return _lot(R, rw, sd), none
    return rw.prev[P_FISH], none


@_once
def _kozel_bad(R, rw):
    P = R[_R_P]
    for s in range(P):
        h = rw.hands[s]
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
def _deal(R, rw, bw, first, sd, prio, htmpl, order, rr):  # fmt: skip
    P = R[_R_P]
    hs = R[_R_HAND_SIZE]
    for f in range(htmpl.shape[0]):
        rw.hb[f] = htmpl[f]
    rw.over = False
    rw.target_hit = False
    sk = _sm(sd[2] ^ np.uint64(rw.match))
    rw.skey = _sm(sk ^ np.uint64(rw.hand_idx))
    while True:
        h = _sm(sd[0] ^ np.uint64(rw.match))
        h = _sm(h ^ np.uint64(rw.hand_idx))
        h = _sm(h ^ np.uint64(rw.hb[H_ATTEMPT]))
        # the addressed Fisher-Yates shuffle (seeding.shuffle)
        for j in range(1, 28):  # the swaps' draws first: independent, so they vectorize
            rr[j] = _below(_sm(h ^ np.uint64(j)), j + 1)
        for j in range(28):
            order[j] = j
        for j in range(27, 0, -1):
            r = rr[j]
            t = order[j]
            order[j] = order[r]
            order[r] = t
        for s in range(P):
            x = np.uint64(0)
            for j in range(s * hs, (s + 1) * hs):
                x |= PACK[order[j]]
            rw.hands[s] = x
        if not (R[_R_KOZEL_REDEAL] and _kozel_bad(R, rw)):
            break
        rw.hb[H_ATTEMPT] += 1
    for j in range(28):
        rw.stock[j] = order[j]
    for k in range(6):
        rw.vals[k] = -1
        rw.dbl[k] = False
    for k in range(4):
        rw.armv[k] = -1
        rw.armd[k] = False
    for s in range(4):
        rw.points[s] = 0
    for s in range(P):
        rw.penalties[s] = 0
        rw.voids[s] = 0
    if R[_R_BLIND]:  # the rows, in deal order (§3.2)
        for s in range(P):
            for k in range(RB):
                bw.buf[s, k] = -1
            for k in range(hs):
                bw.buf[s, k] = order[s * hs + k]
            bw.head[s] = 0
            bw.span[s] = hs
            bw.known[s] = 0
            bw.opened[s] = 0
        bw.face_up = 0
        bw.tph = T_START
    ld, tile = _choose_leader(R, rw, first, sd, prio)
    rw.leader = ld
    rw.lead_tile = tile
    if R[_R_BLIND]:
        rw.lead_tile = bw.buf[ld, 0]  # §3.4: the leader leads his front tile
    if R[_R_START_TILE]:  # the starting tile from the stock (§10.6; blind_deal, §15)
        t = rw.stock[rw.hb[H_SP]]
        rw.hb[H_SP] += 1
        rw.hb[H_SEND] = max(rw.hb[H_SEND], rw.hb[H_SP])
        lo = TILE_LOW[t]
        hi = TILE_HIGH[t]
        rw.vals[0] = lo
        rw.vals[1] = hi
        rw.dbl[0] = lo == hi
        rw.dbl[1] = lo == hi
        rw.hb[H_NTABLE] = 1
        rw.hb[H_FIRST] = t
        rw.hb[H_TABLE] |= np.int64(1) << t
        rw.to_move = ld
        rw.phase = TURN
    else:
        rw.phase = LEAD


@_once
def _settle(R, rw, seat_pips, pips, side_tmp, valid, scr):  # fmt: skip
    """End-of-hand awards and the hand winner (settle.py, row by row)."""
    P = R[_R_P]
    S = R[_R_S]
    kind = R[_R_SETTLEMENT]
    out = rw.hb[H_OUT]
    dom = out >= 0
    out_side = _side(R, out) if dom else np.int64(-1)
    total = np.int64(0)
    for s in range(S):
        total += pips[s]
        valid[s] = True
    if kind == 5:
        _settle_kozel(R, rw, seat_pips, side_tmp, scr)
        return
    if kind == 6 or (kind == 0 and R[_R_PPM]):  # penalties
        if dom:
            w = out
        else:
            lo = np.int64(1) << 62
            for s in range(P):
                lo = min(lo, rw.penalties[s])
            for s in range(P):
                valid[s] = rw.penalties[s] == lo
            w = _unique_min(seat_pips, P, valid)
        rw.hb[H_WINNER] = w
        if kind == 6:
            return
        if w >= 0:
            tot = np.int64(0)
            for s in range(P):
                tot += rw.penalties[s]
            _award(R, rw, w, max(0, tot - 2 * rw.penalties[w]))
        return
    wblock = _unique_min(pips, S, valid)
    pts = np.int64(0)
    if kind == 0:  # pips
        if R[_R_FEWEST_TILES]:  # block_winner_fewest_tiles
            for s in range(S):
                side_tmp[s] = 0
            for s in range(P):
                side_tmp[_side(R, s)] += _count(rw.hands[s])
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
            rw.hb[H_WINNER] = winner
            _muggins_per_opponent(R, rw, pips, side_tmp, scr[13])
            return
    else:  # bergen
        if dom:
            winner = out_side
            pts = R[_R_DOMINO_BONUS]
        else:
            winner, pts = _bergen_block(R, rw, side_tmp, valid, scr)
    rw.hb[H_WINNER] = winner
    if winner >= 0:
        _award(R, rw, winner, pts)


@_once
def _muggins_per_opponent(R, rw, pips, rank, done):
    """§15 muggins_block_difference_per_opponent: sides score in ascending pip order."""
    P = R[_R_P]
    S = R[_R_S]
    fm = rw.hb[H_FISH]
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
        if rw.target_hit:
            break
        pts = np.int64(0)
        for o in range(S):
            if pips[o] > pips[best]:
                pts += _rnd(pips[o] - pips[best], R[_R_MUG_NO_ROUND] == 1)
        _award(R, rw, best, pts)


@_once
def _bergen_block(R, rw, side_tmp, valid, scr):
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
        m = _mask28(rw.hands[s])
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
def _write(rw, s, amount):
    """The 13-point rule (§14.13)."""
    if rw.written[s] < 0:
        rw.pending[s] += amount
        if rw.pending[s] >= 13:
            rw.written[s] = rw.pending[s]
            rw.pending[s] = 0
    else:
        rw.written[s] += amount


@_once
def _settle_kozel(R, rw, seat_pips, tmpv, scr):  # fmt: skip
    P = R[_R_P]
    n = R[_R_S]
    for s in range(n):
        tmpv[s] = 0
    for s in range(P):
        h = rw.hands[s]
        if h == PACK00:
            v = R[_R_LONE00]
        elif h == PACK66 and R[_R_LONE66]:
            v = R[_R_LONE66]
        else:
            v = seat_pips[s]
        tmpv[_side(R, s)] += v
    for s in range(n):
        rw.end_pips[s] = tmpv[s]
    charges = scr[10]
    charged = scr[11]
    winners = scr[12]
    for s in range(n):
        charges[s] = 0
        charged[s] = 0
        winners[s] = 0
    out = rw.hb[H_OUT]
    if out >= 0:
        w = _side(R, out)
        rw.hb[H_WINNER] = w
        winners[w] = True
        for s in range(n):
            if s != w:
                charged[s] = True
                charges[s] = tmpv[s]
    else:
        lo = tmpv[0]
        for s in range(n):
            lo = min(lo, tmpv[s])
        nlow = 0
        first_low = -1
        total = np.int64(0)
        for s in range(n):
            total += tmpv[s]
            if tmpv[s] == lo:
                nlow += 1
                winners[s] = True
                if first_low < 0:
                    first_low = s
        if nlow == n:  # eggs
            rw.hb[H_WINNER] = -1
            if R[_R_EGGS_DOUBLE]:
                rw.eggs += 1
            else:
                rw.pot += total
            return
        rw.hb[H_WINNER] = first_low if nlow == 1 else -1
        fm = rw.hb[H_FISH]
        fm_side = _side(R, fm) if fm >= 0 else -1
        if R[_R_FM_TAKES_ALL] and fm_side >= 0 and not winners[fm_side]:
            charged[fm_side] = True
            charges[fm_side] = total
        else:
            for s in range(n):
                if not winners[s]:
                    charged[s] = True
                    charges[s] = tmpv[s]
    mult = np.int64(1) << rw.eggs if R[_R_EGGS_DOUBLE] else np.int64(1)
    rw.eggs = 0
    p0 = rw.pot
    rw.pot = 0
    if R[_R_KOZEL_POSITIVE]:  # kozel_positive_scoring
        tot = np.int64(0)
        for s in range(n):
            if charged[s]:
                tot += charges[s] * mult
        for s in range(n):
            if winners[s]:
                rw.points[s] += tot + p0
                _write(rw, s, tot + p0)
    else:
        for s in range(n):
            if charged[s]:
                amount = charges[s] * mult + p0
                rw.points[s] += amount
                _write(rw, s, amount)


@_once
def _match_over(R, rw):
    """(done, winner) after a hand (batch.py _match_over, settle.kozel_match_over)."""
    me = R[_R_MATCH_END]
    n = R[_R_NPOINTS]
    win = np.int64(-1)
    done = False
    if me == 0:  # race
        top = rw.scores[0]
        at = 0
        for s in range(n):
            if rw.scores[s] > top:
                top = rw.scores[s]
                at = s
        if R[_R_CHECK_ONLY]:
            c = 0
            for s in range(n):
                c += rw.scores[s] == top
            done = top >= R[_R_TARGET] and c == 1
        else:
            done = rw.target_hit
        if done:
            win = at
    elif me == 1:  # one hand (penalty ledgers)
        for s in range(n):
            rw.scores[s] += rw.penalties[s]
        done = rw.hand_idx + 1 >= R[_R_HANDS_PER_MATCH]
        if done:
            if R[_R_HANDS_PER_MATCH] == 1:
                win = rw.hb[H_WINNER]
            else:
                lo = rw.scores[0]
                for s in range(n):
                    lo = min(lo, rw.scores[s])
                c = 0
                for s in range(n):
                    if rw.scores[s] == lo:
                        c += 1
                        win = s if c == 1 else win
                if c != 1:
                    win = -1
    else:  # kozel
        S = R[_R_S]
        hit = False
        for s in range(S):
            hit |= rw.written[s] >= R[_R_TARGET]
        if hit:
            done = True
            lose = np.int64(0)
            if R[_R_KOZEL_POSITIVE]:
                top = np.int64(-1)
                for s in range(S):
                    top = max(top, max(rw.written[s], 0))
                c = 0
                for s in range(S):
                    if max(rw.written[s], 0) == top:
                        c += 1
                        win = s if c == 1 else win
                    else:
                        lose |= np.int64(1) << s
                if c != 1:
                    win = -1
            else:
                lo = np.int64(1) << 62
                for s in range(S):
                    tot = max(rw.written[s], 0)
                    if tot >= R[_R_TARGET]:
                        lose |= np.int64(1) << s
                    elif tot < lo:
                        lo = tot
                c = 0
                for s in range(S):
                    if not (lose >> s) & 1 and max(rw.written[s], 0) == lo:
                        c += 1
                        win = s if c == 1 else win
                if c != 1:
                    win = -1
                if R[_R_DRY_GOAT]:  # dry goat
                    for gl in range(S):
                        if (lose >> gl) & 1:
                            allnone = True
                            for o in range(S):
                                if o != gl and rw.written[o] >= 0:
                                    allnone = False
                            if allnone:
                                rw.dry = True
            rw.losers = lose
    if R[_R_UNIT_HAND]:  # unit hand
        if not done:
            win = rw.hb[H_WINNER]
        done = True
    return done, win


# ---------------------------------------------------------------------------------------------
# blind's rows (§3.2, §3.7; engine/blind.py, step for step)
# ---------------------------------------------------------------------------------------------
@_once
def _blind_after_place(rw, bw, seat, t):
    """Take a placed tile out of its row; open a row of 3 tiles or fewer (§3.7b)."""
    bw.face_up &= ~(np.int64(1) << t)
    bw.known[seat] &= ~(np.int64(1) << t)
    blind_phase = bw.opened[seat] == 0
    h0 = bw.head[seat]
    if bw.span[seat] > 0 and bw.buf[seat, h0 % RB] == t:
        _pop_front(bw, seat)
    elif not blind_phase:  # the open phase leaves a hole
        for j in range(bw.span[seat]):
            k = (h0 + j) % RB
            if bw.buf[seat, k] == t:
                bw.buf[seat, k] = -1
                break
    if blind_phase and _count(rw.hands[seat]) <= 3:
        bw.opened[seat] = 1


@_inline
def _fits(t, vm):
    return ((vm >> TILE_LOW[t]) & 1) == 1 or ((vm >> TILE_HIGH[t]) & 1) == 1


@_inline
def _single(rw, t, m2):
    """The slot masks of placing the one tile t (the front tile or a drawn tile)."""
    for k in range(2):
        m2[k] = _byte(PACK[t], rw.vals[k])


@_inline
def _pose(R, rw, bw, tph, flags, m2):
    """A decision of the turn: -1 when it has two or more legal actions (the strategy is
    asked), else its one legal action (placements first, then draw, pass, stop)."""
    bw.tph = tph
    bw.cflag = flags
    n = POPC7[m2[0]] + POPC7[m2[1]]
    if n + POPC7[flags] >= 2:  # (flags: draw, pass, stop bits)
        return np.int64(-1)
    if n == 1:
        return _only_play(R, rw, m2)
    if flags & F_DRAW:
        return np.int64(A_DRAW)
    if flags & F_PASS:
        return np.int64(A_PASS)
    return np.int64(A_STOP)


@_inline
def _pop_front(bw, seat):
    """The front tile leaves the row (engine/blind.py, _pop_front)."""
    bw.head[seat] = (bw.head[seat] + 1) % RB
    bw.span[seat] -= 1


@_inline
def _append_row(bw, seat, t):
    """Tile t joins the back of the row (engine/blind.py, _append_row)."""
    bw.buf[seat, (bw.head[seat] + bw.span[seat]) % RB] = t
    bw.span[seat] += 1


@_inline
def _to_back(R, rw, bw, seat, t):
    """A moved front tile or a drawn tile joins the back of the row (and the hand)."""
    _append_row(bw, seat, t)
    rw.hands[seat] |= PACK[t]
    if R[_R_BFACE_UP] and IS_DBL[t] == 1:
        bw.face_up |= np.int64(1) << t


@_inline
def _blind_place(R, rw, bw, seat, a):
    """A placement, then the placed tile leaves its row (engine/blind.py, _place)."""
    _place(R, rw, seat, a, False)
    _blind_after_place(rw, bw, seat, a // 6)


@_inline
def _draw_one(rw, bw, seat):
    """The next stock tile, drawn and looked at (it joins the hand or a row after)."""
    sp = rw.hb[H_SP]
    t = np.int64(rw.stock[sp])
    rw.hb[H_SP] = sp + 1
    rw.hb[H_DRAWS] += 1
    bw.known[seat] |= np.int64(1) << t
    return t


@_inline
def _turn_over(R, rw, bw, seat):
    rw.to_move = _next(seat, R[_R_P])
    bw.tph = T_START
    return np.int64(-1)


@_inline
def _pass_turn(R, rw, bw, seat):
    """The seat passes, and its turn is over."""
    _pass(R, rw, seat)
    return _turn_over(R, rw, bw, seat)


@_inline
def _draw_or_pass(bw, tph, m2):
    """The optional draw (blind_draw_optional, §3.7): draw or pass, always the strategy's
    choice (no placement)."""
    m2[0] = 0
    m2[1] = 0
    bw.tph = tph
    bw.cflag = F_DRAW | F_PASS
    return np.int64(PH_PLAY)


@_once
def _blind_run(R, rw, bw, seat, a, m2):
    """A blind turn (§3.7a–c) from where it stands (``bw.tph``), with ``a`` the answer to its
    pending decision. Forced decisions are taken here; returns the phase code of the next
    decision with a choice (its masks in m2, flags in bw.cflag), or -1 when the turn is over.
    """
    while True:
        tph = bw.tph
        if tph == T_START:
            if bw.opened[seat]:  # the open phase (§3.7b, §3.7c)
                if _play_masks(R, rw, seat, m2) > 0:
                    a = _pose(R, rw, bw, T_OPLAY, 0, m2)
                    if a < 0:
                        return np.int64(PH_PLAY)
                    continue
                if 28 - rw.hb[H_SP] > 0:
                    if R[_R_BDRAW_OPT]:
                        return _draw_or_pass(bw, T_ODRAWQ, m2)
                    bw.tph = T_ODRAWQ
                    a = np.int64(A_DRAW)
                    continue
                rw.voids[seat] |= _open_values(R, rw)
                return _pass_turn(R, rw, bw, seat)
            front = bw.buf[seat, bw.head[seat] % RB]
            bw.known[seat] |= np.int64(1) << front
            if _fits(front, _open_values(R, rw)):
                declinable = R[_R_BPLAY_OPT] and 28 - rw.hb[H_SP] > 0
                _single(rw, front, m2)
                bw.dtile = front
                a = _pose(R, rw, bw, T_FRONT, F_DRAW if declinable else 0, m2)
                if a < 0:
                    return np.int64(PH_FRONT if declinable else PH_PLAY)
                continue
            bw.tph = T_BACK
        elif tph == T_FRONT:
            if a == A_DRAW:  # declined (blind_play_optional)
                bw.tph = T_BACK_DECLINED
                continue
            _blind_place(R, rw, bw, seat, a)
            return _turn_over(R, rw, bw, seat)
        elif tph == T_BACK or tph == T_BACK_DECLINED:
            front = bw.buf[seat, bw.head[seat] % RB]
            _pop_front(bw, seat)
            _to_back(R, rw, bw, seat, front)
            stock = 28 - rw.hb[H_SP] > 0
            if R[_R_BDRAW_OPT] and stock and tph == T_BACK:
                return _draw_or_pass(bw, T_DRAWQ, m2)
            if not stock:
                return _pass_turn(R, rw, bw, seat)
            bw.tph = T_DRAWQ
            a = np.int64(A_DRAW)
        elif tph == T_DRAWQ:
            if a == A_PASS:
                return _pass_turn(R, rw, bw, seat)
            t = _draw_one(rw, bw, seat)
            if _fits(t, _open_values(R, rw)):
                _single(rw, t, m2)
                bw.dtile = t
                a = _pose(R, rw, bw, T_DRAWN, F_PASS if R[_R_BPLAY_OPT] else 0, m2)
                if a < 0:
                    return np.int64(PH_DRAWN)
                continue
            _to_back(R, rw, bw, seat, t)
            return _pass_turn(R, rw, bw, seat)
        elif tph == T_DRAWN:
            t = bw.dtile
            if a != A_PASS:
                rw.hands[seat] |= PACK[t]
                _blind_place(R, rw, bw, seat, a)
                return _turn_over(R, rw, bw, seat)
            _to_back(R, rw, bw, seat, t)
            return _pass_turn(R, rw, bw, seat)
        elif tph == T_ODRAWQ:
            vm = _open_values(R, rw)
            if a == A_PASS:
                rw.voids[seat] |= vm
                return _pass_turn(R, rw, bw, seat)
            t = _draw_one(rw, bw, seat)
            rw.hands[seat] |= PACK[t]
            _append_row(bw, seat, t)
            if not _fits(t, vm):
                rw.voids[seat] = vm
                return _pass_turn(R, rw, bw, seat)
            rw.voids[seat] |= vm
            _play_masks(R, rw, seat, m2)
            a = _pose(R, rw, bw, T_OPLAY, 0, m2)
            if a < 0:
                return np.int64(PH_PLAY)
        else:  # T_OPLAY, T_CONT: a placement, then continue or stop (§3.7b)
            if a == A_STOP:
                return _turn_over(R, rw, bw, seat)
            _blind_place(R, rw, bw, seat, a)
            if rw.over or _play_masks(R, rw, seat, m2) == 0:
                return _turn_over(R, rw, bw, seat)
            a = _pose(R, rw, bw, T_CONT, F_STOP, m2)
            if a < 0:
                return np.int64(PH_CONT)


@_inline
def _blind_legal(rw, bw, a, seat):
    """Whether ``a`` is legal at the blind turn's pending decision (bw.tph, bw.cflag)."""
    f = bw.cflag
    if a == A_DRAW:
        return (f & F_DRAW) != 0
    if a == A_PASS:
        return (f & F_PASS) != 0
    if a == A_STOP:
        return (f & F_STOP) != 0
    if a < 0 or a >= 168:
        return False
    t = a // 6
    p = a % 6
    if p >= 2:
        return False
    tph = bw.tph
    if tph == T_FRONT or tph == T_DRAWN:  # the one tile looked at
        if t != bw.dtile:
            return False
    elif tph == T_OPLAY or tph == T_CONT:
        if not rw.hands[seat] & PACK[t]:
            return False
    else:  # draw or pass only
        return False
    v = rw.vals[p]
    return v >= 0 and (TILE_LOW[t] == v or TILE_HIGH[t] == v)


@_inline
def _legal_act(R, rw, bw, kind, a, seat):
    """Whether action ``a`` is one of the legal actions slot i waits on (kind ASK_*)."""
    if R[_R_BLIND] and kind == ASK_PLAY:
        return _blind_legal(rw, bw, a, seat)
    if a < 0 or a >= 168:
        return False
    t = a // 6
    p = a % 6
    if not rw.hands[seat] & PACK[t]:
        return False
    if kind == ASK_LEAD:
        return p == 0 and (rw.lead_tile < 0 or rw.lead_tile == t)
    if p >= R[_R_NPOS]:
        return False
    v = rw.vals[p]
    return v >= 0 and (TILE_LOW[t] == v or TILE_HIGH[t] == v)


@_jit
def advance(R, sd, prio, htmpl, queue, qpos, st, bst, nd, cd, cact, cvals, cmasks, hdir, hrec,
            mdir, nrec, scr, start):  # fmt: skip
    """Advance every game slot from ``start`` to its next decision with a choice.

    A slot waiting on a decision (``rw.ask`` ASK_PLAY / ASK_LEAD) first plays the action the
    strategy chose, after checking that it is legal: the engine leaves the choices of the
    last round's lists in ``cact`` (same order), and a call with ``start`` 0 gives them to
    their slots (``rw.act``) and empties the lists. A slot that stops at its next
    decision is appended to list 0 (a placement; its values and slot masks in ``cvals``,
    ``cmasks``) or list 1 (a lead) as one row of ``cd`` (columns CD_*: the slot, key,
    decision number and seat, the seat's hand and everyone's voids, the Observation's most
    read fields; a lead's tile mask; blind's flags and phase); ``nd`` counts both lists.
    (One row per decision rather than an array per field: fewer arrays to address.)

    Records are written column by column (``[field, row]``): a match's record to row
    ``rw.qidx`` (its position in the queue) of ``mdir``; a hand's record, with unit "hand", to
    row ``rw.qidx`` of ``hdir``, otherwise to the next row of the buffer ``hrec`` (``nrec[0]``
    rows used).

    Returns -1 when every slot stands at a decision or is idle; the slot to resume from when
    ``hrec`` filled up; ``-2 - i`` when slot i's chosen action is illegal.
    """
    B = st.shape[0]
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
    if start == 0:  # the strategies' choices of the last round, to their slots
        for li in range(2):
            for j in range(nd[li]):
                st[cd[li, j, CD_SLOT]].act = cact[li, j]
            nd[li] = 0
    for i in range(start, B):
        rw = st[i]
        if not rw.active:
            continue
        bw = bst[i if R[_R_BLIND] else 0]
        kind = rw.ask
        seat = rw.to_move
        lm = np.int64(0)
        code = np.int64(-1)  # blind: the phase code of the turn's next decision
        if kind != ASK_NONE:  # play the chosen action
            a = rw.act
            if not _legal_act(R, rw, bw, kind, a, seat):
                return -2 - i
            rw.ask = ASK_NONE
            if R[_R_BLIND] and kind == ASK_PLAY:
                code = _blind_run(R, rw, bw, seat, a, m2)
            elif kind == ASK_LEAD:
                _place(R, rw, seat, a, True)
                rw.phase = TURN
                if not rw.over:
                    rw.to_move = _next(seat, P)
            else:
                _place(R, rw, seat, a, False)
                rw.to_move = _next(seat, P)
        while True:
            if code >= 0:  # blind: a decision posed when the last one was answered
                kind = ASK_PLAY
            elif rw.phase == START or rw.over:
                if not direct and nrec[0] >= cap:
                    return i  # flush the records, then resume here
                first = True
                if rw.phase != START:
                    # ---- the hand is over: settle, record, next hand or match
                    for s in range(P):
                        seat_pips[s] = _pips(rw.hands[s])
                    for s in range(S):
                        pips[s] = 0
                    for s in range(P):
                        pips[_side(R, s)] += seat_pips[s]
                    for s in range(S):
                        rw.end_pips[s] = pips[s]
                    if rw.hb[H_REASON] != TARGET:
                        _settle(R, rw, seat_pips, pips, tmp, valid, scr)
                    if direct:
                        r = rw.qidx
                        buf = hdir
                    else:
                        r = nrec[0]
                        nrec[0] = r + 1
                        buf = hrec
                    buf[0, r] = rw.qidx
                    buf[1, r] = rw.hand_idx
                    buf[2, r] = rw.leader
                    buf[3, r] = rw.hb[H_REASON]
                    buf[4, r] = rw.hb[H_FISH]
                    buf[5, r] = rw.hb[H_WINNER]
                    buf[6, r] = rw.hb[H_OUT]
                    buf[7, r] = rw.hb[H_LENGTH]
                    buf[8, r] = rw.hb[H_TURNS]
                    buf[9, r] = rw.hb[H_DRAWS]
                    buf[10, r] = rw.hb[H_PASSES]
                    buf[11, r] = rw.hb[H_ATTEMPT]
                    c = 12
                    for s in range(npts):
                        buf[c + s, r] = rw.points[s]
                    c += npts
                    for s in range(S):
                        buf[c + s, r] = rw.end_pips[s]
                    c += S
                    for s in range(P):
                        buf[c + s, r] = rw.penalties[s]
                    done, mwin = _match_over(R, rw)
                    rw.prev[P_LEADER] = rw.leader
                    rw.prev[P_WINNER] = rw.hb[H_WINNER]
                    rw.prev[P_OUT] = rw.hb[H_OUT]
                    rw.prev[P_FISH] = rw.hb[H_FISH]
                    for s in range(P):
                        rw.prev_pips[s] = seat_pips[s]
                    if done:
                        m = rw.qidx
                        mdir[0, m] = m
                        mdir[1, m] = mwin
                        mdir[2, m] = rw.hand_idx + 1
                        mdir[3, m] = rw.dry
                        mdir[4, m] = rw.losers
                        for s in range(npts):
                            if R[_R_MATCH_END] == 2:
                                mdir[5 + s, m] = max(rw.written[s], 0)
                            else:
                                mdir[5 + s, m] = rw.scores[s]
                    else:
                        first = False
                if first:
                    # ---- the next match id of the queue, or idle
                    q = qpos[0]
                    if q >= queue.shape[0]:
                        rw.active = False
                        rw.phase = DONE
                        break
                    qpos[0] = q + 1
                    rw.qidx = q
                    rw.match = queue[q]
                    rw.hand_idx = 0
                    for s in range(4):
                        rw.scores[s] = 0
                    for s in range(S):
                        rw.written[s] = -1
                        rw.pending[s] = 0
                    rw.pot = 0
                    rw.eggs = 0
                    rw.dry = False
                    rw.losers = 0
                else:
                    rw.hand_idx += 1
                _deal(R, rw, bw, first, sd, prio, htmpl, order, scr[14])
                continue
            elif rw.phase == LEAD:
                seat = rw.leader
                rw.to_move = seat
                rw.hb[H_TURNS] += 1
                fixed = rw.lead_tile
                if fixed >= 0:
                    lm = np.int64(1) << fixed
                else:
                    lm = _mask28(rw.hands[seat])
                if _popc28(lm) >= 2:
                    kind = ASK_LEAD
                else:
                    _place(R, rw, seat, _lowbit(lm) * 6, True)
                    if R[_R_BLIND]:  # (blind leads are forced: the front tile, §3.4)
                        _blind_after_place(rw, bw, seat, _lowbit(lm))
                    if not rw.over:
                        rw.to_move = _next(seat, P)
                    rw.phase = TURN
                    continue
            else:  # TURN
                seat = rw.to_move
                rw.hb[H_TURNS] += 1
                if R[_R_BLIND]:
                    code = _blind_run(R, rw, bw, seat, np.int64(-1), m2)
                    if code < 0:
                        continue
                    kind = ASK_PLAY
                else:
                    n = _play_masks(R, rw, seat, m2)
                    if n == 0:
                        # nothing playable: the drawing mode applies (§1.7)
                        vm = _open_values(R, rw)
                        placed = False
                        ndraw = 0
                        if R[_R_DRAW_MODE] != 0:
                            sp = rw.hb[H_SP]
                            av = min(rw.hb[H_SEND] - sp, R[_R_LIMIT])
                            while ndraw < av:
                                t = rw.stock[sp + ndraw]
                                ndraw += 1
                                rw.hands[seat] |= PACK[t]
                                if (vm >> TILE_LOW[t]) & 1 or (vm >> TILE_HIGH[t]) & 1:
                                    placed = True
                                    break
                            rw.hb[H_SP] = sp + ndraw
                            rw.hb[H_DRAWS] += ndraw
                        kept = ndraw > (1 if placed else 0)
                        rw.voids[seat] = vm if kept else (rw.voids[seat] | vm)
                        if not placed:
                            _pass(R, rw, seat)
                            rw.to_move = _next(seat, P)
                            continue
                        n = _play_masks(R, rw, seat, m2)
                    if n >= 2:
                        kind = ASK_PLAY
                    else:
                        _place(R, rw, seat, _only_play(R, rw, m2), False)
                        rw.to_move = _next(seat, P)
                        continue
            # ---- a decision with a choice: its key, then stop here
            dec = rw.hb[H_DECISION]
            h = _sm(rw.skey ^ np.uint64(dec))
            li = 0 if kind == ASK_PLAY else 1
            j = nd[li]
            nd[li] = j + 1
            cw = cd[li, j]
            cw[CD_SLOT] = i
            cw[CD_KEY] = np.int64(_sm(h ^ np.uint64(seat)))
            cw[CD_DEC] = dec
            cw[CD_SEAT] = seat
            cw[CD_HAND] = np.int64(rw.hands[seat])
            cw[CD_FLAGS] = bw.cflag if code >= 0 else 0
            cw[CD_PHASE] = code if code >= 0 else PH_PLAY
            cw[CD_LEAD] = lm
            for s in range(4):  # (a fixed count: unrolled)
                cw[CD_VOIDS + s] = rw.voids[s]
            if li == 0:
                for k in range(R[_R_NPOS]):
                    cvals[j, k] = rw.vals[k]
                    cmasks[j, k] = m2[k]
            rw.hb[H_DECISION] = dec + 1
            rw.ask = kind
            break
    return -1


# <<< the rule-dependent code


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
        # the slot holding the k-th action, without a branch per slot (a random pick
        # mispredicts): p counts the slots whose running total k has reached
        p = np.int64(0)
        base = np.int64(0)
        acc = np.int64(0)
        for q in range(K - 1):
            acc += POPC7[masks[j, q]]
            ge = k >= acc
            p += ge
            base = acc if ge else base
        out[j] = TILE_AT[values[j, p], SELECT7[masks[j, p], k - base]] * 6 + p


@_jit
def uniform_lead(lead, keys, out):
    """Legal.uniform for leads without along actions."""
    for j in range(out.shape[0]):
        m = lead[j]
        out[j] = _select28(m, _below(keys[j], _popc28(m))) * 6


# ---------------------------------------------------------------------------------------------
# the kernel specialized to one rule set
# ---------------------------------------------------------------------------------------------
_BEGIN, _END = "# >>> the rule-dependent code", "# <<< the rule-dependent code"
_specialized: dict = {}


def specialize_enabled() -> bool:
    """True when :func:`advance_for` compiles a kernel per rule set (``DOMINOSIM_SPECIALIZE``
    not ``0``)."""
    return HAVE_NUMBA and os.environ.get("DOMINOSIM_SPECIALIZE", "1") != "0"


def cache_dir() -> Path:
    """Where specialized kernels are written (``DOMINOSIM_CACHE_DIR``, else the user cache)."""
    d = os.environ.get("DOMINOSIM_CACHE_DIR")
    if d:
        return Path(d)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "dominosim"


def advance_for(R: np.ndarray):
    """:func:`advance` for the rule knobs ``R``, compiled with them written in as constants.

    The same code as :func:`advance` (its text between the ``>>>``/``<<<`` markers of this
    file, with every ``R[_R_NAME]`` but the run-time numbers of ``_RUNTIME`` replaced by its
    value), so the same records; the compiler drops the branches of other rules and unrolls
    the loops over seats and positions (classic 2p: about 1.2x the hands per second). The
    source goes to :func:`cache_dir` under a name that hashes it, this file and the modules
    whose globals it uses, and numba's version, and numba caches its machine code beside it: the first run of a
    rule set compiles (about as long as the general kernel), later runs load it. Falls back
    to the general :func:`advance` when specialization is off or the cache is not writable.
    """
    if not specialize_enabled():
        return advance
    key = _key(R)
    fn = _specialized.get(key)
    if fn is None:
        try:
            fn = _load_specialized(key)
        except OSError:
            fn = advance
        _specialized[key] = fn
    return fn


def give_up_specialized(R: np.ndarray):
    """The general :func:`advance`, from now on, for the rules ``R`` whose specialized kernel
    failed to compile (a safety net: the same records, a warning instead of a failed run)."""
    import warnings

    warnings.warn("the kernel compiled for these rules failed to compile; the general kernel "
                  "plays them (same results, slower). Please report this.", RuntimeWarning,
                  stacklevel=2)  # fmt: skip
    _specialized[_key(R)] = advance
    return advance


def _key(R) -> tuple:
    return tuple(int(x) if i not in _RUNTIME else None for i, x in enumerate(R))


def _specialized_source(key: tuple, text: str | None = None) -> str:
    """The generated module for ``key`` from this file's ``text``."""
    if text is None:
        text = Path(__file__).read_text()
    body = text[text.index(_BEGIN) : text.index(_END)]
    index = {name: i for i, name in enumerate(_KNOB_NAMES)}

    def const(m):
        v = key[index[m.group(1)]]
        return m.group(0) if v is None else f"np.int64({v})"

    body = re.sub(r"R\[(_R_[A-Z0-9_]+)\]", const, body)
    return (
        '"""The batch kernel of dominosim.engine.kernel for one rule set, generated by '
        "kernel.advance_for\n(knobs: " + repr(key) + ").\nDo not edit: delete it to have "
        'it generated again."""\n\n'
        "from dominosim.engine import kernel as _kernel\n\n"
        'globals().update({k: v for k, v in vars(_kernel).items() if not k.startswith("__")})'
        "\n\n\n" + body
    )


def _load_specialized(key: tuple):
    text = Path(__file__).read_text()
    src = _specialized_source(key, text)
    h = hashlib.sha256(text.encode())
    # (the generated code takes this module's globals - tables, codes, constants - and numba
    # freezes them into its cache, so every file they come from is part of the name)
    for mod in (TB, A, seeding, tiles):
        h.update(Path(mod.__file__).read_bytes())
    h.update(f"{src}{numba.__version__}{np.__version__}".encode())
    name = f"_dominosim_kernel_{h.hexdigest()[:20]}"
    d = cache_dir()
    d.mkdir(parents=True, exist_ok=True)
    path = d / f"{name}.py"
    if not path.exists():  # (written once: numba's cache keys on the file's time stamp)
        tmp = d / f"{name}.{os.getpid()}.tmp"
        tmp.write_text(src)
        os.replace(tmp, path)
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod  # (numba's cache finds the module by name)
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            del sys.modules[name]
            raise
    return mod.advance


def prepare(rules: Rules, unit: str) -> None:
    """Compile (or load) the kernel for ``rules`` now: a pool's parent calls it before it
    forks, so its workers inherit one compiled kernel instead of each compiling its own."""
    if enabled() and supports(rules):
        advance_for(knobs(rules, unit))
