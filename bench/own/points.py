"""points: the most in-play points now (bench/points_speed.py, issue 46 point 5).

Among the legal actions, the one whose placement scores the most in-play points if played now
(``dominosim.scoring.placement_points``: draw, pass and stop score 0), the first in canonical
order among equals. ``points`` decides game by game (``choose_one``, the rule's points of each
legal action), ``points-batch`` a whole batch (``choose``, ``LegalArrays.points`` and
``best``, as docs/strategies.md documents); they play the same games.
"""

from dominosim.game.scoring import placement_points
from dominosim.strategy import Strategy, register


@register
class Points(Strategy):
    """The most in-play points now, one decision at a time (choose_one)."""

    name = "points"
    params = {}

    def choose_one(self, obs, legal, key):
        return max(legal, key=lambda a: placement_points(obs, a))  # (the first of the best)


@register
class PointsBatch(Points):
    """The most in-play points now, a batch at a time (choose)."""

    name = "points-batch"

    def choose(self, obs, legal, keys):
        la = legal.arrays(obs)
        return la.best(la.points)
