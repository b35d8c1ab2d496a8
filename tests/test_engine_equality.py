"""The batch engine equals the reference engine (DESIGN §5): same deals, same decisions, the
same events and records, for every variant, player count and §15 option it plays."""

from __future__ import annotations

import pytest

from dominosim.strategy import get
from dominosim.variants import OPTIONS, VARIANTS, make_rules

from engine_compare import compare

BATCH_VARIANTS = list(VARIANTS)


def _option_cases():
    cases = []
    for (variant, name), opt in OPTIONS.items():
        if isinstance(opt.allowed, tuple):
            values = [v for v in opt.allowed if v != opt.default_for(2)]
        elif "cumulative" in name:
            values = [3]
        else:
            values = [7]  # a small target: many matches end in few hands
        for value in values:
            opts = {name: value}
            if variant == "muggins" and name in ("spinner_open_all_four_immediately",
                                                 "us_sniff_counting"):  # fmt: skip
                opts["first_double_spinner"] = True
            for players in (2, 3, 4):
                try:
                    make_rules(variant, players, **opts)
                except Exception:
                    continue
                cases.append(pytest.param(variant, players, opts,
                                          id=f"{variant}-{players}p-{name}={value}"))  # fmt: skip
                break
    return cases


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


@pytest.mark.parametrize(("variant", "players", "opts"), _option_cases())
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
