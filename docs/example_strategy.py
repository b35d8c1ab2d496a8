"""lightest: play the lightest tile (an example strategy for docs/strategies.md).

The mirror image of ``heaviest``: keep the heavy tiles. It is a weak strategy in pip-scoring
games and exists to show the shape of a strategy file: one module docstring saying what it does
and where the idea comes from, one class registered by name, parameters as keyword arguments
with defaults in ``params``, and a ``choose_one`` that returns one of the legal actions.

Copy it into a folder of your own and load it with ``--strategy-path FOLDER``.
"""

from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.game.seeding import below
from dominosim.strategy import Strategy, register


@register
class Lightest(Strategy):
    """The smallest pip sum first; optionally a random move now and then."""

    name = "lightest"
    params = {"explore": 0.0}  # probability of a uniformly random legal action

    def choose_one(self, obs, legal, key):
        # ``key`` is this decision's 64-bit random value: the only randomness allowed, so
        # that the same seed gives the same game everywhere.
        if self.settings["explore"] > 0 and (key & 0xFFFF) < self.settings["explore"] * 65536:
            return legal[below(key, len(legal))]
        places = [a for a in legal if A.is_placement(a)]
        if not places:  # draw where drawing is a choice, else pass, or stop (blind)
            return next(a for a in (A.DRAW, A.PASS, A.STOP, *legal) if a in legal)
        # in blind's open phase STOP is legal too; this example always keeps placing
        return min(places, key=lambda a: (tiles.pips(A.tile_of(a)), places.index(a)))
