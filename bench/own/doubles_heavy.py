"""doubles-heavy: a double first, then the heaviest tile (bench/own_strategy.py).

Among the legal placements: a double if there is one, then the largest pip sum, then the first
in canonical order; without a placement, draw where drawing is a choice, else pass, else stop.
``doubles-heavy`` decides game by game (``choose_one``), ``doubles-heavy-batch`` a whole batch
(``choose``, with the legal actions as padded arrays, ``Legal.arrays``); they play the same
games.
"""

from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.strategy import Strategy, fallback, register


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
        la = legal.arrays(obs)
        # a double scores 64 more than any single; draw, pass and stop score 0 (no pips), below
        # every placement, and come in canonical order draw, pass, stop: the fallback
        return la.best(la.double * 64 + la.pips)
