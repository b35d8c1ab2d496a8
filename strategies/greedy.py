"""greedy: score the most points now, then play the heaviest tile.

The one-move lookahead every points-game player learns first (All Fives, Muggins, Sniff,
Bergen): take the placement with the most in-play points (end count of RULES §1.11, bergen's
headers); among equals, the heaviest tile ("bota gorda"), then the first in canonical order. In
games without in-play scoring it plays exactly like ``heaviest``.
"""

import numpy as np

from dominosim import actions as A
from dominosim import tiles
from dominosim.scoring import placement_points
from dominosim.strategy import Strategy, register


def greedy_choice(obs, legal):
    places = [a for a in legal if A.is_placement(a)]
    if not places:
        for a in (A.DRAW, A.PASS, A.STOP):
            if a in legal:
                return a
        return legal[0]
    scored = [(placement_points(obs, a), tiles.nondouble_key(A.tile_of(a)), -i)
              for i, a in enumerate(places)]  # fmt: skip
    best = max(scored)
    return places[-best[2]]


@register
class Greedy(Strategy):
    """The most in-play points, then the heaviest tile."""

    name = "greedy"
    params = {}

    def choose_one(self, obs, legal, key):
        return greedy_choice(obs, legal)

    def choose(self, obs, legal, keys):
        if obs.rules.scoring == "none":
            from dominosim.strategy import get

            return get("heaviest").choose(obs, legal, keys)
        return np.array([greedy_choice(obs.row(i), legal.row_list(i)) for i in range(len(keys))],
                        dtype=np.int64)  # fmt: skip
