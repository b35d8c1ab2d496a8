"""doubles-first: get rid of the doubles early.

A double fits only one value, so it is the tile most likely to be stranded: it blocks its owner
late in the hand and costs its pips at the count. "Play your doubles early" is the first rule of
thumb of domino strategy writing, in block and draw games alike. Among the legal placements it
takes a double if it has one (the heaviest double first), otherwise the placement with the most
in-play points (fives, threes, muggins, sniff, bergen), then the heaviest tile, then the first in
canonical order.

Every variant: in blind's open phase it keeps placing (each tile placed is a tile nearer to
domino, and the doubles go first); on a spinner every open arm is a position like any other; in
the penalty variants (two-lane, ladder, kozel) the same order holds, since a stranded double is
what makes a player fail a turn or keep pips. Without a placement it draws where drawing is a
choice, else passes or stops.
"""

import numpy as np

from dominosim.game import actions, tiles
from dominosim.game.scoring import placement_points
from dominosim.strategies import greedy, heaviest
from dominosim.strategy import Strategy, fallback, register

_HIGH = tiles.HIGH.astype(np.int64)
_PIPS = tiles.PIPS.astype(np.int64)
_DOUBLE = np.asarray(tiles.IS_DOUBLE, dtype=np.int64)


def doubles_first_choice(obs, legal):
    places = [a for a in legal if actions.is_placement(a)]
    if not places:
        return fallback(legal)

    def key(i):
        a = places[i]
        t = actions.tile_of(a)
        return (tiles.is_double(t), placement_points(obs, a), tiles.nondouble_key(t), -i)

    return places[max(range(len(places)), key=key)]


@register
class DoublesFirst(Strategy):
    """Doubles first (the heaviest double), then in-play points, then the heaviest tile."""

    name = "doubles-first"
    params = {}
    compiled = "doubles-first"  # the core decides as this file does (_policy.h)
    twin_version = 1  # the decisions its twin follows (policy_files.TWINS)
    rank = 3

    def choose_one(self, obs, legal, key):
        return doubles_first_choice(obs, legal)

    def choose(self, obs, legal, keys):
        # whole batches with heaviest's array passes on a LINE (the answers of choose_one;
        # mc's playouts use the compiled twin, in the core)
        h, g = heaviest, greedy
        if not h.batch_ok(obs, legal):
            return super().choose(obs, legal, keys)
        points = g._points_fn(obs, legal) if obs.rules.scoring != "none" else None

        def extra(t, p, along):
            tile = t if p is None else h.TILE_AT[t[0], t[1]]
            pts = 0 if points is None else points(t, p, along)
            return _DOUBLE[tile] * 64 + pts

        def base(obs, t, e0, e1):
            return _PIPS[t] * 8 + _HIGH[t]

        return h.line_batch(obs, legal, extra, base)
