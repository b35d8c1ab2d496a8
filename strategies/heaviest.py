"""heaviest: play the heaviest tile ("bota gorda", dump the fat).

The oldest heuristic of draw and block dominoes: get rid of the tiles that would cost most if
the hand were blocked or lost. Among the legal placements it takes the tile with the largest
pip sum (ties: the larger high half, RULES §1.2), on the first position in canonical order.
Without a placement it draws where drawing is a choice, else passes or stops.
"""

import numpy as np

from dominosim import actions as A
from dominosim import tiles
from dominosim.engine import tables as TB
from dominosim.strategy import Strategy, fallback, register

# rank of every tile by (pips, high half), 0 = lightest
_KEY = sorted(range(28), key=lambda t: (tiles.pips(t), tiles.halves(t)[1]))
RANK = np.empty(28, dtype=np.int64)
RANK[_KEY] = np.arange(28)
TILE_OF_RANK = np.array(_KEY, dtype=np.int64)
# RANKMASK[part, m7]: the tiles of 7-bit chunk `part` of a 28-bit mask, as bits at their ranks
RANKMASK = np.zeros((4, 128), dtype=np.int64)
for _p in range(4):
    for _m in range(128):
        RANKMASK[_p, _m] = sum(1 << int(RANK[7 * _p + b]) for b in range(7) if _m >> b & 1)
# HIGHBIT7[m]: the highest set bit of a 7-bit mask (-1 for 0)
HIGHBIT7 = np.array([m.bit_length() - 1 for m in range(128)], dtype=np.int64)


def heaviest_first(legal_list):
    """The per-game rule shared by the batch path's tests."""
    places = [a for a in legal_list if A.is_placement(a)]
    if places:
        best = max(tiles.nondouble_key(A.tile_of(a)) for a in places)
        return next(a for a in places if tiles.nondouble_key(A.tile_of(a)) == best)
    return fallback(legal_list)


def _highest_bit(x: np.ndarray) -> np.ndarray:
    out = np.full(x.shape, -1, dtype=np.int64)
    for part in range(4):
        chunk = (x >> (7 * part)) & 0x7F
        hb = HIGHBIT7[chunk]
        out = np.where(hb >= 0, 7 * part + hb, out)
    return out


@register
class Heaviest(Strategy):
    """The largest pip sum first."""

    name = "heaviest"
    params = {}

    def choose_one(self, obs, legal, key):
        return heaviest_first(legal)

    def choose(self, obs, legal, keys):
        n = len(legal)
        out = np.full(n, -1, dtype=np.int64)
        if legal.lead is not None:
            ranked = np.zeros(n, dtype=np.int64)
            for part in range(4):
                ranked |= RANKMASK[part][(legal.lead >> (7 * part)) & 0x7F]
            hb = _highest_bit(ranked)
            ok = hb >= 0
            out = np.where(ok, TILE_OF_RANK[np.maximum(hb, 0)] * A.NPOS, out)
        else:
            best_rank = np.full(n, -1, dtype=np.int64)
            for p in range(legal.masks.shape[1]):
                m = legal.masks[:, p]
                v = np.maximum(legal.values[:, p], 0)
                w = HIGHBIT7[m]
                t = TB.TILE_AT[v, np.maximum(w, 0)]
                rank = np.where(w >= 0, RANK[t], -1)
                better = rank > best_rank
                out = np.where(better, t * A.NPOS + p, out)
                best_rank = np.where(better, rank, best_rank)
        none = out < 0
        out = np.where(none & legal.draw, A.DRAW, out)
        out = np.where((out < 0) & legal.pass_, A.PASS, out)
        out = np.where((out < 0) & legal.stop, A.STOP, out)
        return out
