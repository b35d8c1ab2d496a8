"""The batch engine equals the reference engine (DESIGN §5): same deals, same decisions, the
same events and records, for every variant, player count and §15 option it plays."""

from __future__ import annotations

import pytest

from dominosim.strategy import get
from dominosim.variants import VARIANTS, make_rules

from engine_compare import compare, option_cases

BATCH_VARIANTS = list(VARIANTS)


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", BATCH_VARIANTS)
def test_hands_equal_reference_random(variant, players):
    """200 deals per variant and player count, random play, first-hand rules."""
    rules = make_rules(variant, players)
    assert compare(rules, [get("random")] * players, 200, unit="hand") == []


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("variant", BATCH_VARIANTS)
def test_matches_equal_reference_random(variant, players):
    """Whole matches: later-hand leads, match ends, slots re-dealt in place."""
    rules = make_rules(variant, players)
    assert compare(rules, [get("random")] * players, 12, unit="match") == []


@pytest.mark.parametrize(("variant", "players", "opts"), option_cases())
def test_options_equal_reference(variant, players, opts):
    """Every §15 option: 200 deals (and a few whole matches)."""
    rules = make_rules(variant, players, **opts)
    strategies = [get("random")] * players
    assert compare(rules, strategies, 200, unit="hand") == []
    assert compare(rules, strategies, 6, unit="match", seed=3) == []


def test_partnership_matches_equal_reference():
    for variant in ("fives", "classic", "block", "muggins", "sniff", "bergen", "threes"):
        rules = make_rules(variant, 4, partnership=True)
        assert compare(rules, [get("random")] * 4, 10, unit="match") == [], variant
