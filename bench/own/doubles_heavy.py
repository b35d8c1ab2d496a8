"""doubles-heavy: a double first, then the heaviest tile (bench/own_strategy.py).

Among the legal placements: a double if there is one, then the largest pip sum, then the first
in canonical order; without a placement, draw where drawing is a choice, else pass, else stop.
``doubles-heavy`` decides game by game (``choose_one``), ``doubles-heavy-batch`` a whole batch
(``choose``, written with the public batch interface as a user would); they play the same
games.
"""

import numpy as np

from dominosim import actions as A
from dominosim import tiles
from dominosim.strategy import Strategy, fallback, register

_PIPS = np.asarray(tiles.PIPS, dtype=np.int64)
_DOUBLE = np.asarray(tiles.IS_DOUBLE, dtype=np.int64)


@register
class DoublesHeavy(Strategy):
    """A double first, then the heaviest tile, one decision at a time (choose_one)."""

    name = "doubles-heavy"
    params = {}

    def choose_one(self, obs, legal, key):
        best, best_key = None, None
        for a in legal:
            if A.is_placement(a):
                t = A.tile_of(a)
                k = (tiles.is_double(t), tiles.pips(t))
                if best_key is None or k > best_key:
                    best, best_key = a, k
        return fallback(legal) if best is None else best


@register
class DoublesHeavyBatch(DoublesHeavy):
    """A double first, then the heaviest tile, a batch at a time (choose)."""

    name = "doubles-heavy-batch"

    def choose(self, obs, legal, keys):
        n = len(keys)
        counts = legal.counts()
        width = int(counts.max(initial=0))
        acts = np.stack(
            [legal.action_at(np.full(n, k, dtype=np.int64)) for k in range(width)], axis=1
        ).reshape(n, width)
        place = (acts >= 0) & (acts < A.DRAW)
        t = np.where(place, acts % A.ALONG, 0) // A.NPOS
        score = np.where(place, _DOUBLE[t] * 64 + _PIPS[t], -1)
        best = acts[np.arange(n), np.argmax(score, axis=1)]
        none = ~place.any(axis=1)
        if none.any():  # draw, else pass, else stop
            flags = [(legal.draw, A.DRAW), (legal.pass_, A.PASS), (legal.stop, A.STOP)]
            fb = acts[:, 0].copy()
            for flag, code in reversed(flags):
                fb = np.where(flag, code, fb)
            best = np.where(none, fb, best)
        return best
