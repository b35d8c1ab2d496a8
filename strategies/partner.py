"""partner: a partnership convention that counts the tiles out and blocks the opponents.

What partners at a table agree on, written as a rule of what the seat sees (its hand, the
table, the voids the others have shown, ``obs.history``), on top of the best heuristic of the
4-player team games (docs/skill.md): ``doubles-first`` where in-play points are scored by the
end count (fives, threes, muggins, sniff), ``suit-keeper`` elsewhere (block, classic, bergen,
kozel ...). It keeps the base's first criteria (a double first and then the in-play points
for ``doubles-first``; going out and then the in-play points for ``suit-keeper``) and then
decides by the convention, before the base's other criteria (``suit-keeper``'s keeping the
longest suit and control; the tile's weight; the first in canonical order):

1. **Count the tiles out: close the ends on the opponents.** Prefer the placement after which
   the open ends show values the opponents can hold fewest tiles of: per end value, the
   tiles carrying it that this seat does not see (not in its hand, not on the table) and that
   some opponent may hold (none of the tile's values is one the opponent has shown it lacks).
   A tile only the partner can hold does not count: closing an end on the opponents is what
   matters, the partner is served by the next rule.
2. **Keep your partner's ends open, close the next opponent's.** Then prefer ends the next
   opponent has shown he lacks (he must pass or draw) and avoid ends the partner has shown he
   lacks.

The count is the domino players' "contar fichas": an end whose value is nearly all played blocks
whoever lacks it, and the seat that chose it knows it. The measured effect of each rule, in
every 4-player team variant against its best heuristic, is in docs/strategies.md ("partner: a
partnership convention"). Without a partner (2 or 3 players, or 4 each for himself) rule 2
reads every other seat as an opponent: a player on his own counts the tiles out too. Draws,
passes and stops are the base's.
"""

from dominosim.game import actions, tiles
from dominosim.game.scoring import ends_after, placement_points, suit_counts
from dominosim.strategy import Strategy, fallback, register

#: The scorings (by the end count) whose best 4-player team heuristic is ``doubles-first``
#: (docs/skill.md: fives, threes, sniff, muggins).
DOUBLES_FIRST_SCORINGS = ("fives", "threes", "muggins")


def open_counts(obs):
    """Per value 0..6, the tiles carrying it that the seat does not see and that some
    opponent (another side's seat) may hold: none of the tile's values is a void it showed."""
    known = set(obs.hand) | set(obs.table) | set(obs.face_up)
    opponents = [s for s in range(obs.rules.players) if obs.rules.side_of(s) != obs.side]
    counts = [0] * 7
    for t in range(28):
        if t in known:
            continue
        values = set(tiles.halves(t))
        if any(not values & set(obs.voids[o]) for o in opponents):
            for v in values:
                counts[v] += 1
    return counts


def convention_key(obs, counts, action):
    """The convention's criteria for a placement (higher is better): minus the opponents'
    tiles for the ends after it, then the next opponent's void ends minus the partner's."""
    ends = ends_after(obs, action)
    P = obs.rules.players
    nxt = (obs.seat + 1) % P
    next_lacks = set(obs.voids[nxt]) if obs.rules.side_of(nxt) != obs.side else set()
    partner_lacks = set(obs.voids[obs.partner]) if obs.partner is not None else set()
    signal = sum(e in next_lacks for e in ends) - sum(e in partner_lacks for e in ends)
    return (-sum(counts[e] for e in ends), signal)


def partner_choice(obs, legal):
    places = [a for a in legal if actions.is_placement(a)]
    if not places:
        return fallback(legal)  # draw where drawing is a choice, else pass or stop
    counts = open_counts(obs)
    hand = list(obs.hand)
    if obs.rules.scoring in DOUBLES_FIRST_SCORINGS:

        def key(i):
            a = places[i]
            t = actions.tile_of(a)
            base = (tiles.is_double(t), placement_points(obs, a))
            return (*base, *convention_key(obs, counts, a), tiles.nondouble_key(t), -i)

        return places[max(range(len(places)), key=key)]
    return _suit_keeper_based(obs, legal, places, counts, hand)


def _suit_keeper_based(obs, legal, places, counts, hand):
    """suit-keeper's ranking with the convention after the in-play points, before keeping the
    longest suit (and suit-keeper's STOP in blind's open phase)."""
    sc = suit_counts(hand)
    suit = max(range(7), key=lambda v: (sc[v], v)) if hand else -1
    going_out = obs.counts[obs.seat] == 1

    def key(i):
        a = places[i]
        t = actions.tile_of(a)
        lo, hi = tiles.halves(t)
        rest = suit_counts([x for x in hand if x != t])
        control = sum(rest[e] for e in ends_after(obs, a))
        keeps = suit not in (lo, hi) or lo == hi
        conv = convention_key(obs, counts, a)
        return (
            going_out,
            placement_points(obs, a),
            *conv,
            keeps,
            control,
            tiles.nondouble_key(t),
            -i,
        )

    best = max(range(len(places)), key=key)
    keeps = key(best)[4]
    if actions.STOP in legal and not keeps and not going_out:
        return actions.STOP  # blind's open phase: keep the suit for later turns (suit-keeper)
    return places[best]


@register
class Partner(Strategy):
    """A partnership convention: the best team heuristic, then count the tiles out and close
    the ends on the opponents, keep the partner's open."""

    name = "partner"
    params = {}
    rank = 6

    def choose_one(self, obs, legal, key):
        return partner_choice(obs, legal)
