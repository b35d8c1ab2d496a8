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
from dominosim.strategy import Strategy, fallback, get, register


def greedy_choice(obs, legal):
    places = [a for a in legal if A.is_placement(a)]
    if not places:
        return fallback(legal)
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
        r = obs.rules
        if r.scoring == "none":
            return get("heaviest").choose(obs, legal, keys)
        if r.layout == "line" and r.draw_mode != "blind":
            return _greedy_line(obs, legal)
        return np.array([greedy_choice(obs.row(i), legal.row_list(i)) for i in range(len(keys))],
                        dtype=np.int64)  # fmt: skip


def _points(r, c):
    """In-play points of end counts ``c`` (§5.8, §6.8, §11.8)."""
    m = 3 if r.scoring == "threes" else 5
    hit = (c > 0) & (c % m == 0)
    return np.where(hit, c if r.scoring == "muggins" else c // m, 0)


def _greedy_line(obs, legal):
    """greedy_choice for a batch on a LINE: every candidate scored with array passes, in
    canonical order, keeping the first of the best (points, tile rank)."""
    r = obs.rules
    n = len(legal)
    out = np.full(n, -1, dtype=np.int64)
    best = np.full(n, -1, dtype=np.int64)  # points * 32 + rank
    if legal.lead is not None:
        for along in (False, True) if r.inline_double_counts_single else (False,):
            for t in range(28):
                if along and not tiles.is_double(t):
                    continue
                held = ((legal.lead >> t) & 1) == 1
                if r.scoring == "bergen":
                    pts = 2 if tiles.is_double(t) else 0
                else:
                    pts = int(_points(r, np.array([tiles.pips(t)]))[0])
                score = pts * 32 + int(RANK[t])
                better = held & (score > best)
                out = np.where(better, t * A.NPOS + (A.ALONG if along else 0), out)
                best = np.where(better, score, best)
    else:
        vals, dbl, alg = legal.values, obs.doubles, obs.along
        contrib = np.where(dbl & ~alg, 2 * vals, vals)
        for p in range(2):
            q = 1 - p
            v = np.maximum(vals[:, p], 0)
            for along in (False, True) if r.inline_double_counts_single else (False,):
                for w in range(7):
                    ok = ((legal.masks[:, p] >> w) & 1) == 1
                    d = v == w
                    if along:
                        ok &= d
                    t = TILE_AT[v, w]
                    if r.scoring == "bergen":
                        same = w == vals[:, q]
                        pts = np.where(same, np.where(d | dbl[:, q], 3, 2), 0)
                    else:
                        c = np.where(d & (not along), 2 * w, w) + contrib[:, q]
                        pts = _points(r, c)
                    score = pts * 32 + RANK[t]
                    better = ok & (score > best)
                    code = t * A.NPOS + p + (A.ALONG if along else 0)
                    out = np.where(better, code, out)
                    best = np.where(better, score, best)
    out = np.where((out < 0) & legal.draw, A.DRAW, out)
    out = np.where((out < 0) & legal.pass_, A.PASS, out)
    out = np.where((out < 0) & legal.stop, A.STOP, out)
    return out


_KEY = sorted(range(28), key=lambda t: tiles.nondouble_key(t))
RANK = np.empty(28, dtype=np.int64)
RANK[_KEY] = np.arange(28)
TILE_AT = np.array([[tiles.tile_index(v, w) for w in range(7)] for v in range(7)])
