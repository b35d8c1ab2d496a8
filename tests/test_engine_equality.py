"""The compiled core (through BatchEngine) equals the reference engine, the readable
specification (docs/design.md, "Equal to the reference engine"): the same hand and match
records, and the same questions to the strategies (every Observation field, the legal
actions, the key) with the same answers, for every variant, player count and §15 option, whole
matches included. tests/golden/ pins the games themselves."""

from __future__ import annotations

import pytest

from dominosim.game import actions as A
from dominosim.game.variants import VARIANTS, make_rules
from dominosim.strategy import Strategy, get

from engine_compare import compare, option_cases


def _cases():
    cases = []
    for v in VARIANTS:
        for p in (2, 3, 4):
            try:
                make_rules(v, p)
            except Exception:
                continue
            cases.append(pytest.param(v, p, id=f"{v}-{p}p"))
    return cases


def _mixed(players: int) -> list:
    """A seat list of strategies that choose differently (fast batch ``choose`` overrides
    included), so seats are grouped by strategy on the core."""
    return [get("heaviest"), get("random"), get("greedy"), get("doubles-first")][:players]


@pytest.mark.parametrize(("variant", "players"), _cases())
def test_hands_equal_reference(variant, players):
    """160 deals per variant and player count (random play; then mixed strategies)."""
    rules = make_rules(variant, players)
    assert compare(rules, [get("random")] * players, 160, unit="hand") == []
    assert compare(rules, _mixed(players), 50, unit="hand", seed=5) == []


@pytest.mark.parametrize(("variant", "players"), _cases())
def test_matches_equal_reference(variant, players):
    """Whole matches: later-hand leads, settlement, match ends, slots re-dealt in place."""
    rules = make_rules(variant, players)
    assert compare(rules, _mixed(players), 12, unit="match") == []


@pytest.mark.parametrize(("variant", "players", "opts"), option_cases())
def test_options_equal_reference(variant, players, opts):
    """Every §15 option: 100 deals and whole matches."""
    rules = make_rules(variant, players, **opts)
    assert compare(rules, [get("random")] * players, 100, unit="hand") == []
    assert compare(rules, _mixed(players), 6, unit="match", seed=3) == []


def test_partnership_matches_equal_reference():
    for variant in ("fives", "classic", "block", "muggins", "sniff", "bergen", "threes"):
        rules = make_rules(variant, 4, partnership=True)
        assert compare(rules, [get("random")] * 4, 10, unit="match") == [], variant


@pytest.mark.parametrize(
    ("players", "opts"),
    [
        (3, {"blind_deal": "all_tiles"}),
        (3, {"blind_deal": "all_tiles", "blind_draw_optional": True, "blind_play_optional": True}),
        (
            4,
            {
                "blind_draw_optional": True,
                "blind_play_optional": True,
                "blind_unplayable_double_face_up": True,
            },
        ),
        (2, {"blind_play_optional": True, "blind_unplayable_double_face_up": True}),
    ],
)
def test_blind_rows_equal_reference(players, opts):
    """Blind's rows (§3.2, §3.7) with its options together, and the 3-player all_tiles deal
    whose leftover tile starts the layout (§15): decisions on the front tile, the drawn tile,
    optional draws, continue or stop (the row each owner sees is an Observation field)."""
    rules = make_rules("blind", players, **opts)
    for st in ([get("random")] * players, [get("heaviest"), get("random")] * 2):
        assert compare(rules, st[:players], 120, unit="hand") == []
        assert compare(rules, st[:players], 5, unit="match") == []


@pytest.mark.parametrize(
    ("variant", "players", "opts"),
    [
        ("muggins", 2, {"may_draw_when_able": True}),
        ("muggins", 4, {"may_draw_when_able": True}),
        ("bergen", 2, {"bergen_voluntary": True}),
        ("bergen", 3, {"bergen_voluntary": True}),
        ("fives", 2, {"inline_double_counts_single": True}),
        ("threes", 4, {"inline_double_counts_single": True, "partnership": True}),
    ],
)
@pytest.mark.parametrize("strategy", ["heaviest", "greedy", "doubles-first"])
def test_voluntary_draws_and_along_doubles_with_every_kind_of_strategy(
    variant, players, opts, strategy
):
    """The decisions with a draw or pass flag (§11.7 may_draw_when_able, §15
    bergen_voluntary), the after-draw decision and the along actions (§5.6 / §6.6
    inline_double_counts_single), with strategies that choose them differently, mixed with
    random."""
    rules = make_rules(variant, players, **opts)
    st = [get(strategy), get("random")] * 2
    assert compare(rules, st[:players], 120, unit="hand") == []
    assert compare(rules, st[:players], 5, unit="match") == []


class _Drawer(Strategy):
    """Draws whenever it may, else plays the last legal action (along ones included)."""

    name = "drawer"
    params = {}

    def choose_one(self, obs, legal, key):
        return A.DRAW if A.DRAW in legal else legal[-1]


@pytest.mark.parametrize(
    ("variant", "opts"),
    [
        ("muggins", {"may_draw_when_able": True}),
        ("bergen", {"bergen_voluntary": True}),
        ("threes", {"inline_double_counts_single": True}),
    ],
)
def test_a_strategy_that_always_draws_or_lays_along(variant, opts):
    """Drawing the stock dry by choice, and every double laid along, on both engines."""
    rules = make_rules(variant, 2, **opts)
    assert compare(rules, [_Drawer(), get("random")], 150, unit="hand") == []
    assert compare(rules, [get("random"), _Drawer()], 10, unit="match") == []


class _Liar(Strategy):
    """Plays like random but changes one Observation-dependent answer (the comparison must
    see it): on the core only, the first decision of match 3 takes another legal action."""

    name = "liar"
    params = {}

    def __init__(self, core: bool):
        super().__init__()
        self.core = core
        self.inner = get("random")

    def choose_one(self, obs, legal, key):
        a = self.inner.choose_one(obs, legal, key)
        if self.core and obs.match_id == 3 and obs.decision == 0:
            a = next(x for x in legal if x != a)
        return a


def test_the_comparison_sees_a_changed_decision():
    """compare() is not vacuous: one decision answered differently on the core is reported
    where it happened."""
    rules = make_rules("fives", 2)
    assert compare(rules, [_Liar(False)] * 2, 20, unit="hand") == []
    problems = compare(
        rules, [_Liar(False)] * 2, 20, unit="hand", core_strategies=[_Liar(True)] * 2
    )
    assert any(p.startswith("match 3 hand 0 decision 0: legal/key/action") for p in problems)
