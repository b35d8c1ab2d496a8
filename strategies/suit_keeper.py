"""suit-keeper: keep the number you hold most of ("play to your data").

The hand's longest suit (the value carried by most of its tiles; "la data" of Latin American and
Cuban play) is what lets a player answer whatever the others open: while the ends show values
he holds many of, he never has to pass, draw or fail a turn. Strategy guides give it as the
strongest simple rule of thumb: do not spend tiles of your longest suit while another tile will
do, and steer the ends toward values you hold.

Each placement is ranked by, in order: in-play points where the variant scores them (fives,
threes, muggins, sniff, bergen); whether it keeps every tile of the longest suit (ties between
suits: the higher value; a double of that suit keeps the end on it and counts as keeping);
control, the number of tiles left in hand that fit the ends after the placement; the heaviest
tile; the first in canonical order. A placement that empties the hand always wins.

Every variant: on a spinner each open arm is one more end to control; in the penalty variants
(two-lane, ladder: 10 per failed turn; kozel: pips at the count) control is what avoids the
penalty. In blind's open phase it continues only with a placement that keeps the longest suit
(or goes out) and stops rather than spend the suit it will need on later turns. Without a
placement it draws where drawing is a choice, else passes or stops.
"""

from dominosim.game import actions, tiles
from dominosim.game.scoring import ends_after, placement_points, suit_counts
from dominosim.strategy import Strategy, fallback, register


def _longest_suit(hand) -> int:
    counts = suit_counts(hand)
    return max(range(7), key=lambda v: (counts[v], v))


def suit_keeper_ranked(obs, legal):
    """(key, action) of the best placement, or None without one."""
    places = [a for a in legal if actions.is_placement(a)]
    if not places:
        return None
    hand = list(obs.hand)
    suit = _longest_suit(hand) if hand else -1
    going_out = obs.counts[obs.seat] == 1

    def key(i):
        a = places[i]
        t = actions.tile_of(a)
        lo, hi = tiles.halves(t)
        rest = [x for x in hand if x != t]
        counts = suit_counts(rest)
        ends = ends_after(obs, a)
        control = sum(counts[e] for e in ends)
        keeps = suit not in (lo, hi) or lo == hi
        return (going_out, placement_points(obs, a), keeps, control, tiles.nondouble_key(t), -i)

    best = max(range(len(places)), key=key)
    return key(best), places[best]


def suit_keeper_choice(obs, legal):
    ranked = suit_keeper_ranked(obs, legal)
    if ranked is None:
        return fallback(legal)
    (going_out, _pts, keeps, *_), a = ranked
    if actions.STOP in legal and not keeps and not going_out:
        return actions.STOP  # blind's open phase: keep the suit for later turns
    return a


@register
class SuitKeeper(Strategy):
    """Keep the longest suit: points, then not spending it, then control of the ends."""

    name = "suit-keeper"
    params = {}
    compiled = "suit-keeper"  # the core decides as this file does (_policy.h)
    twin_version = 1  # the decisions its twin follows (policy_files.TWINS)
    rank = 4

    def choose_one(self, obs, legal, key):
        return suit_keeper_choice(obs, legal)
