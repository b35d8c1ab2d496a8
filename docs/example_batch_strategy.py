"""lightest-batch: lightest (docs/example_strategy.py), decided a batch at a time.

The same rule as ``lightest``, the same games: the smallest pip sum first, the first in
canonical order among equals; without a placement, draw where drawing is a choice, else pass,
else stop; with ``explore`` > 0 a uniformly random legal action now and then, from the
decision's key. ``choose_one`` decides one game at a time, as in docs/example_strategy.py: the
reference engine (``dominosim trace``) asks it, and ``check-strategy`` holds ``choose`` to it.
``choose`` decides every game of a batch at once with numpy, which is what ``dominosim run``
asks: the tool spends about 0.13-0.16 µs per decision around it where it spends 1-3 µs
around a ``choose_one``, your code's own time on top (docs/strategies.md, "What each path
costs"; bench/README.md, "Your own strategy" and "Per decision").

Copy it into a folder of your own and load it with ``--strategy-path FOLDER``.
"""

import numpy as np

from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.game.seeding import below, below_np
from dominosim.strategy import Strategy, register


@register
class LightestBatch(Strategy):
    """The smallest pip sum first, a batch at a time; optionally a random move now and then."""

    name = "lightest-batch"
    params = {"explore": 0.0}  # probability of a uniformly random legal action

    def choose_one(self, obs, legal, key):
        # one decision: exactly docs/example_strategy.py's rule
        if self.settings["explore"] > 0 and (key & 0xFFFF) < self.settings["explore"] * 65536:
            return legal[below(key, len(legal))]
        places = [a for a in legal if A.is_placement(a)]
        if not places:  # draw where drawing is a choice, else pass, or stop (blind)
            return next(a for a in (A.DRAW, A.PASS, A.STOP, *legal) if a in legal)
        return min(places, key=lambda a: (tiles.pips(A.tile_of(a)), places.index(a)))

    def choose(self, obs, legal, keys):
        # ``la`` holds each decision's legal actions as [n, W] arrays, column j of row i its
        # j-th legal action in canonical order: ``action``, ``placement``, ``pips``, ... and
        # ``count`` [n] (docs/strategies.md, "Writing a batch strategy").
        la = legal.arrays(obs)
        # best() takes per decision the legal action of the highest score, the first in
        # canonical order among equals. A placement scores 13 - pips (1..13: the lightest
        # highest); draw, pass and stop score 0, below every placement, and come in the
        # canonical order draw, pass, stop: choose_one's fallback.
        chosen = la.best(np.where(la.placement, 13 - la.pips, 0))
        explore = self.settings["explore"]
        if explore > 0:  # the rows whose key says "explore": the legal action below(key, n)
            rows = np.flatnonzero((keys & 0xFFFF) < explore * 65536)
            pick = below_np(keys[rows], la.count[rows]).astype(np.int64)
            chosen[rows] = la.action[rows, pick]
        return chosen
