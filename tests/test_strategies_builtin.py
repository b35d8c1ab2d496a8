"""The built-in strategies of the batch-engine issue: random, heaviest, greedy."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dominosim.game import actions as A
from dominosim.game import tiles
from dominosim.game.reference import play_match
from dominosim.game.scoring import ends_after, placement_points
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import Strategy, get

from engine_compare import compare


class Predicting(Strategy):
    """Random play that writes down placement_points() of every placement it makes."""

    name = "predicting"
    params = {}

    def __init__(self):
        super().__init__()
        self.log = []

    def choose_one(self, obs, legal, key):
        a = get("random").choose_one(obs, legal, key)
        if A.is_placement(a):
            self.log.append((obs.seat, A.tile_of(a), placement_points(obs, a)))
        return a


# fmt: off
SCORING = [
    ("fives", {}), ("threes", {}), ("muggins", {}), ("sniff", {}), ("bergen", {}),
    ("sniff", {"us_sniff_counting": True}), ("muggins", {"first_double_spinner": True}),
    ("fives", {"inline_double_counts_single": True}),
    ("sniff", {"spinner_open_all_four_immediately": True}),
]
# fmt: on


@pytest.mark.parametrize(("variant", "opts"), SCORING)
def test_placement_points_predicts_the_engine(variant, opts):
    """scoring.placement_points() equals what the engine scores for that placement."""
    rules = make_rules(variant, 2, target=10_000, **opts)
    for m in range(15):
        strat = Predicting()
        match = play_match(rules, 4, m, [strat, strat], unit="hand")
        evs = match.hands[0].events
        predicted = {(seat, tile): pts for seat, tile, pts in strat.log}
        checked = 0
        for i, ev in enumerate(evs):
            if ev["type"] != "place" or (ev["seat"], ev["tile"]) not in predicted:
                continue  # forced placements (one legal action) are not asked
            nxt = evs[i + 1] if i + 1 < len(evs) else {}
            scored = nxt.get("points", 0) if nxt.get("reason") in ("count", "header") else 0
            assert predicted[ev["seat"], ev["tile"]] == scored, (m, tiles.name(ev["tile"]), ev)
            checked += 1
        assert checked > 0


class Watching(Strategy):
    """Wraps a strategy and keeps (legal actions, chosen action) of every decision."""

    name = "watching"
    params = {}

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.seen = []

    def choose_one(self, obs, legal, key):
        a = self.inner.choose_one(obs, legal, key)
        self.seen.append((list(legal), a, obs))
        return a


def test_heaviest_takes_the_largest_pip_sum():
    rules = make_rules("classic", 2)
    w = Watching(get("heaviest"))
    for m in range(10):
        play_match(rules, 1, m, [w, get("random")], unit="hand")
    assert len(w.seen) > 20
    for legal, a, _ in w.seen:
        best = max(tiles.pips(A.tile_of(x)) for x in legal if A.is_placement(x))
        assert tiles.pips(A.tile_of(a)) == best


def test_greedy_takes_the_most_points_then_the_heaviest():
    rules = make_rules("fives", 2)
    w = Watching(get("greedy"))
    for m in range(10):
        play_match(rules, 2, m, [w, get("random")], unit="hand")
    assert any(placement_points(obs, a) > 0 for _, a, obs in w.seen)
    for legal, a, obs in w.seen:
        pts = {x: placement_points(obs, x) for x in legal if A.is_placement(x)}
        top = max(pts.values())
        assert pts[a] == top
        assert tiles.pips(A.tile_of(a)) == max(
            tiles.pips(A.tile_of(x)) for x in pts if pts[x] == top
        )


@pytest.mark.parametrize("variant", VARIANTS)
def test_heaviest_and_greedy_equal_in_both_engines(variant):
    rules = make_rules(variant, 3)
    strategies = [get("heaviest"), get("greedy"), get("random")]
    assert compare(rules, strategies, 40, unit="hand") == []


def _control(obs, a):
    """Tiles left in hand that fit an open end after placement ``a``."""
    t = A.tile_of(a)
    ends = set(ends_after(obs, a))
    return sum(1 for x in obs.hand if x != t and ends & set(tiles.halves(x)))


@pytest.mark.parametrize("variant", ["block", "classic", "fives"])
def test_heaviest_breaks_ties_by_double_then_control(variant):
    """Among the heaviest placements: a double first, then the most tiles left that fit."""
    rules = make_rules(variant, 2)
    w = Watching(get("heaviest"))
    for m in range(40):  # (against random: enough decided ties whatever its keys)
        play_match(rules, 3, m, [w, get("random")], unit="hand")
    ties = 0
    for legal, a, obs in w.seen:
        places = [x for x in legal if A.is_placement(x)]
        top = max(tiles.pips(A.tile_of(x)) for x in places)
        tied = [x for x in places if tiles.pips(A.tile_of(x)) == top]
        if any(tiles.is_double(A.tile_of(x)) for x in tied):
            assert tiles.is_double(A.tile_of(a))
            tied = [x for x in tied if tiles.is_double(A.tile_of(x))]
        assert _control(obs, a) == max(_control(obs, x) for x in tied)
        ties += len({_control(obs, x) for x in tied}) > 1
    assert ties >= 3  # the tie-break decided some of these


class _BothLinePaths(Strategy):
    """heaviest, checking on every batch that its compiled loop and its array passes agree."""

    name = "both-line-paths"
    params = {}

    def __init__(self, mod):
        super().__init__()
        self.mod = mod
        self.decisions = 0

    def choose(self, obs, legal, keys):
        a = self.mod.line_batch_fast(obs, legal)
        assert (a == self.mod.line_batch(obs, legal)).all()
        self.decisions += len(a)
        return a


def _compiled_heaviest():
    """heaviest's strategy module (loaded by path)."""
    import sys

    get("heaviest")  # loads the strategy file
    return next(m for m in sys.modules.values() if hasattr(m, "line_batch_fast"))


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 4), ("block", 3)])
def test_heaviest_compiled_loop_equals_its_array_passes(variant, players):
    """The compiled loop of heaviest (in the core) gives the answers of its array passes,
    leads and placements, with partners' and opponents' voids (§1.7)."""
    from dominosim.engine.batch import BatchEngine

    mod = _compiled_heaviest()

    s = _BothLinePaths(mod)
    BatchEngine(make_rules(variant, players), 5, [s] * players, range(300), unit="hand").run()
    assert s.decisions > 1000


@pytest.mark.parametrize(
    ("players", "partnership"), [(2, False), (3, False), (4, False), (4, True)]
)
def test_heaviest_compiled_loop_equals_its_array_passes_on_random_positions(players, partnership):
    """The same on made-up positions: any hand, any open ends, and voids for every seat, the
    deciding seat's own and its partner's included (they must not count: only the opponents'
    voids do)."""
    from dominosim.engine import Legal
    from dominosim.engine import tables as TB

    mod = _compiled_heaviest()
    rng = np.random.default_rng(players)
    n = 3000
    held = rng.random((n, 28)) < 0.3
    hand_mask = (held * (1 << np.arange(28))).sum(axis=1)
    values = rng.integers(-1, 7, size=(n, 2))
    values[:, 0] = np.where(values[:, 0] < 0, rng.integers(0, 7, size=n), values[:, 0])
    masks = np.zeros((n, 2), dtype=np.int64)
    for p in range(2):
        for w in range(7):
            t = TB.TILE_AT[np.maximum(values[:, p], 0), w]
            masks[:, p] |= np.where((values[:, p] >= 0) & held[np.arange(n), t], 1 << w, 0)
    no = np.zeros(n, dtype=bool)
    voids = rng.integers(0, 128, size=(n, players))
    obs = _Fields(
        hand=TB.pack28(hand_mask),
        hand_mask=hand_mask,
        voids=voids,
        seat=rng.integers(0, players, size=n),
        rules=SimpleNamespace(partnership=partnership),
    )
    for lead in (None, hand_mask):
        legal = Legal(values, masks, False, lead, no, no, no)
        fast = mod.line_batch_fast(obs, legal)
        assert (fast == mod.line_batch(obs, legal)).all()
        assert (fast >= 0).sum() > n // 2


class _Fields(SimpleNamespace):
    """The Observation fields heaviest's passes read, for made-up decisions."""

    def __len__(self) -> int:
        return len(self.seat)
