"""heaviest: play the heaviest tile ("bota gorda", dump the fat).

The oldest heuristic of draw and block dominoes: get rid of the tiles that would cost most if
the hand were blocked or lost. Among the legal placements it takes the tile with the largest
pip sum. Ties (equal pip sums, and the positions a tile may take) are broken the way players
break them, in this order: a double first (a double fits one value only, so it is the tile most
likely to be stranded); then control, the number of tiles left in hand that fit an open end
after the placement (play to the values you hold, so as not to pass or draw next turn); then
the open ends the opponents are known to lack (``voids``, counted per opponent: the partner's
voids do not count in partnership play); then the first placement in canonical order. Without a placement it draws where drawing is a choice, else
passes or stops.
"""

import numpy as np

from dominosim.engine import kernel, tables
from dominosim.game import actions, tiles
from dominosim.game.scoring import ends_after
from dominosim.strategy import Strategy, fallback, register

# a tie-break score packs (pips, double, control, opponents' void ends) into one integer
_CTRL, _VOID = 64, 16
SCORE_SPAN = 32 * _CTRL * _VOID  # every heaviest score is below this
PIPS = tables.TILE_PIPS
IS_DOUBLE = np.asarray(tables.IS_DOUBLE, dtype=np.int64)
TBIT = tables.TBIT
FIT28 = tables.FIT28
TILE_AT = tables.TILE_AT


def heaviest_key(obs, a: int) -> tuple:
    """The ranking of a placement (larger is better): pips, double, control, void ends."""
    t = actions.tile_of(a)
    ends = ends_after(obs, a)
    vals = set(ends)
    control = sum(1 for x in obs.hand if x != t and vals & set(tiles.halves(x)))
    opponents = [s for s in range(len(obs.counts)) if s not in (obs.seat, obs.partner)]
    voids = sum(e in obs.voids[s] for e in ends for s in opponents)
    return (tiles.pips(t), tiles.is_double(t), control, voids)


def partners(obs) -> np.ndarray:
    """Per decision of a batch, the deciding seat's partner (-1 without partnership)."""
    seat = np.asarray(obs.seat, dtype=np.int64)
    return (seat + 2) % 4 if obs.rules.partnership else np.full(len(seat), -1)


def heaviest_first(legal_list, obs):
    """The per-game rule."""
    places = [a for a in legal_list if actions.is_placement(a)]
    if not places:
        return fallback(legal_list)
    keys = [heaviest_key(obs, a) for a in places]
    best = max(keys)
    return places[keys.index(best)]  # the first of the best in canonical order


def line_score(obs, t, e0, e1):
    """Heaviest scores (one integer per decision) of placing tiles ``t`` leaving open ends
    ``e0``, ``e1`` on a LINE, for a batch; same order as :func:`heaviest_key`."""
    n = len(obs)
    t = np.broadcast_to(np.asarray(t, dtype=np.int64), (n,))
    rest = obs.hand_mask & ~TBIT[t]
    fit = FIT28[(1 << e0) | (1 << e1)]
    control = np.bitwise_count(rest & fit).astype(np.int64)
    voids = np.zeros(n, dtype=np.int64)
    vm, partner = obs.voids, partners(obs)
    for s in range(vm.shape[1]):
        opp = (obs.seat != s) & (partner != s)
        voids += opp * (((vm[:, s] >> e0) & 1) + ((vm[:, s] >> e1) & 1))
    return ((PIPS[t] * 2 + IS_DOUBLE[t]) * _CTRL + control) * _VOID + voids


def line_batch(obs, legal, extra=None, base=line_score):
    """Best placement per decision on a LINE (not blind) by ``extra(t, p, along) * SCORE_SPAN
    + base(obs, t, e0, e1)`` (default: :func:`line_score`), the first of the best in canonical
    order; draw, pass or stop where no placement is legal. ``extra`` (greedy's points) returns
    an array over the decisions, or None for 0."""
    n = len(legal)
    out = np.full(n, -1, dtype=np.int64)
    best = np.full(n, -1, dtype=np.int64)
    alongs = (False, True) if (legal.along and extra is not None) else (False,)
    if legal.lead is not None:
        for along in alongs:
            for t in range(28):
                if along and not tiles.is_double(t):
                    continue
                held = ((legal.lead >> t) & 1) == 1
                if not held.any():
                    continue
                lo, hi = tiles.halves(t)
                score = base(obs, t, np.full(n, lo), np.full(n, hi))
                if extra is not None:
                    score = score + extra(t, None, along) * SCORE_SPAN
                better = held & (score > best)
                out = np.where(better, t * actions.NPOS + (actions.ALONG if along else 0), out)
                best = np.where(better, score, best)
    else:
        vals = legal.values
        for p in range(2):
            q = 1 - p
            v = np.maximum(vals[:, p], 0)
            other = np.maximum(vals[:, q], 0)
            for along in alongs:
                for w in range(7):
                    ok = ((legal.masks[:, p] >> w) & 1) == 1
                    if along:
                        ok &= v == w
                    if not ok.any():
                        continue
                    t = TILE_AT[v, w]
                    e1 = np.where(vals[:, q] >= 0, other, w)
                    score = base(obs, t, np.full(n, w), e1)
                    if extra is not None:
                        score = score + extra((v, w), p, along) * SCORE_SPAN
                    better = ok & (score > best)
                    code = t * actions.NPOS + p + (actions.ALONG if along else 0)
                    out = np.where(better, code, out)
                    best = np.where(better, score, best)
    return _no_placement(out, legal)


def line_batch_fast(obs, legal):
    """:func:`line_batch` (heaviest's scores, no ``extra``) in the compiled core, one decision
    at a time: the same scores, the same order, the same answers. The hands, voids and seats go
    in as they are (columns of the engine's decision rows, strided).

    Control is counted on the packed hand directly: the tiles carrying ``e0`` are the bits of
    its byte ``e0``; those carrying ``e1`` and not ``e0``, of byte ``e1`` less the tile
    ``(e0, e1)``; less the placed tile itself, which carries ``e0``. The opponents' voids (not
    the partner's) are summed once per decision into a count per value (4 bits each). The two slots' masks make
    one 14-bit mask, visited lowest bit first: the canonical order (slot 0, then slot 1;
    ascending other half)."""
    n = len(legal)
    out = np.empty(n, dtype=np.int64)
    is_lead = legal.lead is not None
    lead = np.ascontiguousarray(legal.lead, dtype=np.int64) if is_lead else np.zeros(n, np.int64)
    kernel.heaviest(
        np.ascontiguousarray(legal.values, dtype=np.int64),
        np.ascontiguousarray(legal.masks, dtype=np.int64),
        lead,
        is_lead,
        np.asarray(obs.hand, dtype=np.uint64),
        np.asarray(obs.voids, dtype=np.int64),
        np.asarray(obs.seat, dtype=np.int64),
        bool(obs.rules.partnership),
        out,
    )
    return _no_placement(out, legal)


def _no_placement(out, legal):
    """Where no placement was chosen (-1): draw, else pass, else stop (as ``fallback``)."""
    if out.min(initial=0) >= 0:
        return out
    out = np.where((out < 0) & legal.draw, actions.DRAW, out)
    out = np.where((out < 0) & legal.pass_, actions.PASS, out)
    out = np.where((out < 0) & legal.stop, actions.STOP, out)
    return out


def batch_ok(obs, legal) -> bool:
    """Whether the array passes apply: a LINE with two slots, not blind."""
    r = obs.rules
    return r.layout == "line" and r.draw_mode != "blind" and legal.masks.shape[1] >= 2


@register
class Heaviest(Strategy):
    """The largest pip sum first; ties: a double, control, the opponents' void ends."""

    name = "heaviest"
    params = {}
    compiled = "heaviest"  # the core decides as this file does (_policy.h)
    twin_version = 1  # the decisions its twin follows (policy_files.TWINS)
    rank = 1

    def choose_one(self, obs, legal, key):
        return heaviest_first(legal, obs)

    def choose(self, obs, legal, keys):
        if batch_ok(obs, legal):
            if legal.masks.shape[1] == 2:
                return line_batch_fast(obs, legal)
            return line_batch(obs, legal)
        return np.array(
            [heaviest_first(legal.row_list(i), obs.row(i)) for i in range(len(keys))],
            dtype=np.int64,
        )
