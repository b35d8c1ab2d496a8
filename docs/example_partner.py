"""partner-convention: a partnership convention that reads the hand's history (an example).

An example strategy for docs/strategies.md ("An example that reads the history"): the
convention partners agree on at the table, written as a strategy. Two rules, then the best
built-in heuristic of fives in teams (``doubles-first``) for everything else:

- **Lead your strongest suit.** When this seat leads, it leads from the value it holds most
  tiles of (ties: the higher value), the heaviest tile of that suit (a double before others of
  the same pips).
- **Play to your partner's suit.** The suit partner led is read from ``obs.history``: the
  values of the first tile the partner placed in this hand (his lead, or his first placement
  when someone else led). Where it can, this seat keeps that suit open for him: it plays a
  placement after which an open end shows one of those values (``follow="open"``, the
  default), or, with ``follow="tile"``, a placement of a tile carrying one of them. Among those,
  and whenever none is legal, ``doubles-first`` picks.

Without a partner (``obs.partner`` is None: 2 or 3 players, or 4 each for himself), or before
the partner has placed, it is ``doubles-first`` except for its lead. Draws, passes and stops
are ``doubles-first``'s too, so it plays every variant. It is a measured example, not advice:
docs/strategies.md gives its paired result against ``doubles-first`` in fives, 4 players in
teams.

Copy it into a folder of your own and load it with ``--strategy-path FOLDER``.
"""

from dominosim.base.errors import StrategyError
from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.game.scoring import ends_after, suit_counts
from dominosim.strategies.doubles_first import doubles_first_choice
from dominosim.strategy import Strategy, register


def partner_suits(obs):
    """The values of the first tile the partner placed in this hand, or () (no partner yet)."""
    if obs.partner is None:
        return ()
    for event in obs.history:
        if event.kind == "place" and event.seat == obs.partner and event.tile is not None:
            return tuple(sorted(set(tiles.halves(event.tile))))
    return ()


def strongest_lead(obs, places):
    """The lead from the suit this seat holds most of: its heaviest tile of that suit."""
    counts = suit_counts(obs.hand)
    playable = {v for a in places for v in tiles.halves(A.tile_of(a))}
    suit = max(playable, key=lambda v: (counts[v], v))
    of_suit = [a for a in places if tiles.fits(A.tile_of(a), suit)]
    return max(of_suit, key=lambda a: (tiles.pips(A.tile_of(a)), tiles.is_double(A.tile_of(a))))


@register
class PartnerConvention(Strategy):
    """Lead your strongest suit; keep your partner's led suit open; else doubles-first."""

    name = "partner-convention"
    params = {"follow": "open"}  # "open": leave partner's suit on an end; "tile": play it

    def __init__(self, **params):
        super().__init__(**params)
        if self.settings["follow"] not in ("open", "tile"):
            raise StrategyError(
                f"partner-convention: follow must be 'open' or 'tile', not {self.settings['follow']!r}"
            )

    def choose_one(self, obs, legal, key):
        places = [a for a in legal if A.is_placement(a)]
        if places and not obs.positions and not obs.table:  # this seat leads the hand
            return strongest_lead(obs, places)
        suits = partner_suits(obs)
        if places and suits:
            if self.settings["follow"] == "open":
                follow = [a for a in places if set(ends_after(obs, a)) & set(suits)]
            else:
                follow = [a for a in places if set(tiles.halves(A.tile_of(a))) & set(suits)]
            if follow:
                return doubles_first_choice(obs, follow)
        return doubles_first_choice(obs, legal)
