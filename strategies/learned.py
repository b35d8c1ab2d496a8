"""learned: a weighted sum of a placement's features, the weights learned from the engine's games.

Each legal placement is described by a few integers a player reads off the table (below,
``FEATURES``), and ranked by their sum weighted by the model's integer weights; the first
of the best in canonical order is played, and without a placement it draws where drawing is a
choice, else passes or stops (as every heuristic does). The weights come from a model file
(``learned:model=FILE``; docs/strategies.md, "learned", says its format), which
``dominosim train`` writes: it plays the engine's own games between candidate weights and the
built-in heuristics on paired deals and keeps what wins (the cross-entropy method; see
dominosim/analysis/training.py). Without ``model`` the model shipped for the game plays: its own (variant,
player count, partnership), else one of its variant, else fives at 2 players
(``models.shipped_for``). A model plays any game (its features are defined for every rule
set); it is strongest in the game it was trained for, and the manifest records which played.

The core decides as this file does (``_policy.h``, ``learned_features``), for any model: the
weights travel with the seat's policy code, so a learned player runs at the heuristics' speed.

The features of a placement (for the lead, the tile's two halves are the ends after it):

- ``pips``: the tile's pip sum; ``double``: 1 for a double;
- ``points``: the in-play points it scores now (``scoring.placement_points``);
- ``control``: the tiles left in hand that fit an open end after it;
- ``void_hits``: (opponent, end after) pairs where the opponent is known to lack the end's value;
- ``blocked``: opponents known to lack every end value after it; ``next_blocked``: 1 where the
  seat to move next is such an opponent; ``partner_blocked``: 1 where the partner is;
- ``keeps_suit``: 1 unless it spends a tile of the hand's longest suit (a double of it keeps it);
- ``unseen_fit``: tiles the seat has not seen (not in its hand, not on the table, not this
  one) that fit an end after it: how easily the others can answer;
- ``pips_held``: ``pips`` times the tiles the seat holds (a heavy tile weighs more early);
- ``threat``: on a LINE with in-play points, the most points the next seat could score by
  answering on one end with an unseen tile laid across (0 elsewhere).
"""

from __future__ import annotations

from dominosim.game import actions, tiles
from dominosim.game.scoring import count_points, ends_after, placement_points
from dominosim.strategies.suit_keeper import _longest_suit  # (suit-keeper's own rule)
from dominosim.strategy import Strategy, fallback, register, shipped_builtin
from dominosim.strategy.models import FEATURES, load_model, shipped_model


def _line_ends(obs, a: int) -> tuple[list[int], list[bool]]:
    """The two open ends of a LINE after placement ``a``: their values, and whether a double
    laid across forms each (it counts both halves)."""
    t = actions.tile_of(a)
    lo, hi = tiles.halves(t)
    d = lo == hi and not actions.is_along(a)
    if not obs.positions:
        return [lo, hi], [d, d]
    vals = [v for _, v in obs.positions]
    across = [bool(obs.doubles[i]) and not obs.along[i] for i in range(len(vals))]
    j = [p for p, _ in obs.positions].index(actions.pos_of(a))
    vals[j] = tiles.other_half(t, vals[j])
    across[j] = d
    return vals, across


def _reply_points(r, vals, across, i: int, x: int) -> int:
    dbl, other = x == vals[i], vals[1 - i]
    if r.scoring == "bergen":
        return 0 if x != other else (3 if dbl or across[1 - i] else 2)
    return count_points(r, (2 * x if dbl else x) + (2 * other if across[1 - i] else other))


def threat(obs, a: int, unseen: set) -> int:
    """The most in-play points the next seat could score by answering placement ``a`` on one
    end of a LINE with an unseen tile laid across (0 on other layouts, without in-play points)."""
    r = obs.rules
    if r.scoring == "none" or r.layout != "line" or len(obs.positions) not in (0, 2):
        return 0
    vals, across = _line_ends(obs, a)
    best = 0
    for i in (0, 1):
        for x in range(7):
            if tiles.tile_index(vals[i], x) in unseen:
                best = max(best, _reply_points(r, vals, across, i, x))
    return best


def public_features(view, a: int, seat: int, partner, voids, held: int, unseen: set) -> list:
    """Placement ``a``'s features that the public table gives (``FEATURES`` order), seen from
    ``seat`` (its ``partner`` or None) with the seats' ``voids``, the tiles it ``held`` and
    the tiles ``unseen`` by it; those that read the hidden hand (control, keeps_suit,
    unseen_fit) are 0 here. ``view``: what ``scoring`` reads of the table (an Observation)."""
    t = actions.tile_of(a)
    lo, hi = tiles.halves(t)
    ends = ends_after(view, a)
    vals = set(ends)
    players = view.rules.players
    opponents = [s for s in range(players) if s not in (seat, partner)]
    nxt = (seat + 1) % players

    def lacks(s):
        return int(bool(vals) and vals <= voids[s])

    return [
        lo + hi,
        int(lo == hi),
        placement_points(view, a),
        0,
        sum(e in voids[s] for s in opponents for e in ends),
        sum(lacks(s) for s in opponents),
        lacks(nxt) if nxt in opponents else 0,
        lacks(partner) if partner is not None else 0,
        0,
        0,
        (lo + hi) * held,
        threat(view, a, unseen),
    ]


def features(obs, a: int, suit: int) -> list[int]:
    """Placement ``a``'s features, in ``FEATURES`` order (``suit``: the hand's longest)."""
    t = actions.tile_of(a)
    lo, hi = tiles.halves(t)
    vals = set(ends_after(obs, a))
    unseen = set(range(28)) - set(obs.hand) - set(obs.table) - {t}
    f = public_features(obs, a, obs.seat, obs.partner, obs.voids, obs.counts[obs.seat], unseen)

    def fits(x):
        return bool(vals & set(tiles.halves(x)))

    f[FEATURES.index("control")] = sum(fits(x) for x in set(obs.hand) - {t})
    f[FEATURES.index("keeps_suit")] = int((suit != lo and suit != hi) or lo == hi)
    f[FEATURES.index("unseen_fit")] = sum(fits(x) for x in unseen)
    return f


def learned_choice(obs, legal, weights) -> int:
    """The first of the best placements by the weighted sum of its features; else the
    fallback (draw, pass, stop)."""
    places = [a for a in legal if actions.is_placement(a)]
    if not places:
        return fallback(legal)
    suit = _longest_suit(obs.hand)
    ranks = [
        sum(w * f for w, f in zip(weights, features(obs, a, suit), strict=False)) for a in places
    ]
    return places[ranks.index(max(ranks))]


@register
class Learned(Strategy):
    """A weighted sum of each placement's features, the weights a trained model's."""

    name = "learned"
    params = {"model": ""}
    compiled = "learned"  # the core decides as this file does, for any model (_policy.h)
    twin_version = 1  # the decisions its twin follows (policy_files.TWINS)
    rank = 7

    def __init__(self, **params):
        super().__init__(**params)
        self._models: dict = {}  # (variant, players, partnership) -> the model

    def model(self, rules):
        """The model this strategy plays in ``rules``' game (loaded once; a one-line
        StrategyError where none fits)."""
        key = (rules.variant, rules.players, bool(rules.partnership))
        if key not in self._models:
            path = self.settings["model"]
            m = load_model(path) if path else shipped_model(rules)
            self._models[key] = m
        return self._models[key]

    def use(self, model) -> None:
        """Play ``model`` (a ``models.Model``) in its game (``dominosim train``'s candidates)."""
        self._models[(model.variant, model.players, model.partnership)] = model

    def compiled_policy(self) -> str | None:
        """``learned`` for any model, where this is the built-in as shipped."""
        return "learned" if shipped_builtin(type(self)) else None

    def compiled_weights(self, rules) -> list[int]:
        return list(self.model(rules).weights)

    def choose_one(self, obs, legal, key):
        return learned_choice(obs, legal, self.model(obs.rules).weights)
