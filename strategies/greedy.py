"""greedy: score the most points now, then play the heaviest tile.

The one-move lookahead every points-game player learns first (All Fives, Muggins, Sniff,
Bergen): take the placement with the most in-play points (end count of RULES §1.11, bergen's
headers); among equals, the ``heaviest`` rule: the largest pip sum, then a double, then control
(tiles left in hand that fit an open end afterwards), then the open ends the opponents are
known to lack, then the first in canonical order. In games without in-play scoring it plays
exactly like ``heaviest``.
"""

import numpy as np

from dominosim.game import actions, tiles
from dominosim.game.scoring import placement_points
from dominosim.strategies import heaviest
from dominosim.strategy import Strategy, fallback, register


def greedy_choice(obs, legal):
    places = [a for a in legal if actions.is_placement(a)]
    if not places:
        return fallback(legal)
    key = heaviest.heaviest_key
    scored = [(placement_points(obs, a), *key(obs, a)) for a in places]
    return places[scored.index(max(scored))]  # the first of the best in canonical order


@register
class Greedy(Strategy):
    """The most in-play points, then the heaviest tile (with heaviest's tie-breaks)."""

    name = "greedy"
    params = {}
    compiled = "greedy"  # the core decides as this file does (_policy.h)
    twin_version = 1  # the decisions its twin follows (policy_files.TWINS)
    rank = 2

    def choose_one(self, obs, legal, key):
        return greedy_choice(obs, legal)

    def choose(self, obs, legal, keys):
        r = obs.rules
        h = heaviest
        if r.scoring == "none":
            return h.Heaviest().choose(obs, legal, keys)
        if h.batch_ok(obs, legal):
            return h.line_batch(obs, legal, _points_fn(obs, legal))
        return np.array(
            [greedy_choice(obs.row(i), legal.row_list(i)) for i in range(len(keys))], dtype=np.int64
        )


def _points(r, c):
    """In-play points of end counts ``c`` (§5.8, §6.8, §11.8)."""
    m = 3 if r.scoring == "threes" else 5
    hit = (c > 0) & (c % m == 0)
    return np.where(hit, c if r.scoring == "muggins" else c // m, 0)


def _points_fn(obs, legal):
    """``extra(t, p, along)`` for heaviest's array passes: the in-play points of tile ``t``
    (lead) or ``(v, w)`` (tile v-w on slot ``p`` showing ``v``), over the batch."""
    r = obs.rules
    n = len(legal)
    if legal.lead is not None:

        def lead(t, p, along):
            if r.scoring == "bergen":
                return np.full(n, 2 if tiles.is_double(t) else 0)
            return np.full(n, int(_points(r, np.array([tiles.pips(t)]))[0]))

        return lead
    vals, dbl, alg = legal.values, obs.doubles, obs.along
    contrib = np.where(dbl & ~alg, 2 * vals, vals)

    def place(vw, p, along):
        v, w = vw
        q = 1 - p
        d = v == w
        if r.scoring == "bergen":
            same = w == vals[:, q]
            return np.where(same, np.where(d | dbl[:, q], 3, 2), 0)
        c = np.where(d & (not along), 2 * w, w) + contrib[:, q]
        return _points(r, c)

    return place
