"""blocker: leave ends the opponents are known to lack.

When a player passes or draws because nothing fits, everyone learns that he lacks the open
values (RULES §1.3; ``Observation.voids``). Block players exploit it by "closing" the game on the
values an opponent is out of, above all when that opponent moves next: he must pass, draw or
fail a turn. This is the counting and blocking play taught for block dominoes and for partnership
games (do not block your partner).

Each placement is ranked by, in order: whether the seat to move next (an opponent) lacks every
end value after the placement; how many opponents lack every end value; whether the partner is
left without a play (avoided); how many (opponent, end) pairs hit a known void; in-play points
where the variant scores them; the heaviest tile; the first in canonical order. Before any void
is known it plays like ``greedy``.

Every variant: on a spinner all open arms count as ends; in the penalty variants (two-lane,
ladder: 10 per failed turn; kozel: the opponents draw more pips) a blocked opponent is exactly
the penalty one wants to give. In blind's open phase it stops when the ends already block the
next opponent and no further placement would keep that block (unless the placement goes out).
Without a placement it draws where drawing is a choice, else passes or stops.
"""

from dominosim.game import actions, tiles
from dominosim.game.scoring import ends_after, placement_points
from dominosim.strategy import Strategy, fallback, register


def _block_terms(obs, ends):
    P = obs.rules.players
    me, partner = obs.seat, obs.partner
    opps = [s for s in range(P) if s != me and s != partner]
    nxt = (me + 1) % P
    vals = set(ends)

    def lacks(s):
        return bool(vals) and vals <= obs.voids[s]

    next_blocked = nxt in opps and lacks(nxt)
    blocked = sum(lacks(s) for s in opps)
    partner_blocked = partner is not None and lacks(partner)
    hits = sum(sum(e in obs.voids[s] for e in ends) for s in opps)
    return next_blocked, blocked, not partner_blocked, hits


def blocker_choice(obs, legal):
    places = [a for a in legal if actions.is_placement(a)]
    if not places:
        return fallback(legal)

    def key(i):
        a = places[i]
        t = actions.tile_of(a)
        terms = _block_terms(obs, ends_after(obs, a))
        return (*terms, placement_points(obs, a), tiles.nondouble_key(t), -i)

    best = max(range(len(places)), key=key)
    a = places[best]
    if actions.STOP in legal and obs.counts[obs.seat] > 1:
        now = _block_terms(obs, [v for _, v in obs.positions])
        if now[0] and not key(best)[0]:
            return actions.STOP  # blind's open phase: keep the next opponent blocked
    return a


@register
class Blocker(Strategy):
    """Leave ends the opponents are known to lack (the next one first); never block a partner."""

    name = "blocker"
    params = {}
    compiled = "blocker"  # the core decides as this file does (_policy.h)
    twin_version = 1  # the decisions its twin follows (policy_files.TWINS)
    rank = 5

    def choose_one(self, obs, legal, key):
        return blocker_choice(obs, legal)
