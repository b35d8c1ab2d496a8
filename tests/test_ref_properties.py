"""Property tests: random matches of every variant, replayed by the independent rule checker.

Hypothesis plays matches of all twelve variants (2-4 players, partnership and a set of §15
option combinations, small targets) with the uniformly random strategy on the reference
engine, and the standalone replayer of ``tests/replay.py`` (written from RULES.md alone; it
imports nothing from ``dominosim``) walks each match's trace: its own layout (§1.8-§1.10), end
count (§1.11), drawing modes (§1.7), forced play (§1.6), blind turns (§3.7), block test (§1.12),
in-play scoring (§4.8, §5.8, §6.8, §7.8, §11.8), settlement (§n.10, §14.10-§14.14) and match end
(§1.14, §9.11, §14.11). It works out what is legal at every turn itself and checks that the
recorded event is, so forced play, illegal passes, late or early blocks and wrong awards fail.

(One replayer, not two: an earlier second checker here, with its own rule model over the
engine's event lists, caught exactly the mutations of the reference engine this one catches;
tests/README.md.)
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dominosim.base.errors import RulesError
from dominosim.game.reference import play_match
from dominosim.game.variants import VARIANTS, make_rules, with_target
from dominosim.strategy import get
from dominosim.trace import trace_records

from replay import ReplayError, replay

# --------------------------------------------------------------------------------------------
# Configurations
# --------------------------------------------------------------------------------------------

OPTION_SETS = {
    "blind": [
        {},
        {"blind_deal": "all_tiles"},
        {"blind_draw_optional": True},
        {"blind_play_optional": True},
        {"blind_play_optional": True, "blind_draw_optional": True},
        {"blind_unplayable_double_face_up": True, "block_winner_fewest_tiles": True},
        {"check_only_at_hand_end": True},
    ],
    "bergen": [
        {},
        {"partnership": True},
        {"bergen_voluntary": True},
        {"bergen_draw_until_playable": True},
        {"bergen_highest_double_leads": True, "bergen_domino_bonus": 1},
        {"bergen_block_lowest_hand_1pt": True},
        {"bergen_near_target_cap": True},
        {"bergen_near_target_cap": True, "check_only_at_hand_end": True},
    ],
    "fives": [
        {},
        {"partnership": True},
        {"reserve_k": 2},
        {"inline_double_counts_single": True},
        {"lead_winner_of_previous_hand": True},
        {"lead_winner_of_previous_hand": True, "partnership": True},
        {"check_only_at_hand_end": True},
    ],
    "threes": [
        {},
        {"partnership": True},
        {"reserve_k": 2, "inline_double_counts_single": True},
        {"lead_winner_of_previous_hand": True},
        {"check_only_at_hand_end": True},
    ],
    "sniff": [
        {},
        {"partnership": True},
        {"sniff_pagat_deal": True},
        {"reserve_k": 2},
        {"max_draws_per_turn": 2},
        {"spinner_open_all_four_immediately": True},
        {"us_sniff_counting": True},
        {"sniff_book_endgame": True},
        {"check_only_at_hand_end": True},
    ],
    "basic": [
        {},
        {"lead_highest_double": True},
        {"penalty_per_miss": True},
        {"check_only_at_hand_end": True},
    ],
    "two-lane": [{}, {"cumulative_hands": 3}],
    "ladder": [{}, {"cumulative_hands": 3}],
    "muggins": [
        {},
        {"partnership": True},
        {"muggins_deal_7_all": True},
        {"lead_by_lot": True},
        {"first_double_spinner": True},
        {
            "first_double_spinner": True,
            "spinner_open_all_four_immediately": True,
            "us_sniff_counting": True,
        },
        {"reserve_k": 0},
        {"may_draw_when_able": True},
        {"muggins_no_rounding": True},
        {"muggins_block_difference_per_opponent": True},
        {"muggins_block_difference_per_opponent": True, "partnership": True},
        {"check_only_at_hand_end": True},
    ],
    "block": [
        {},
        {"partnership": True},
        {"block_deal_7_all": True},
        {"lead_winner_of_previous_hand": True},
        {"lead_winner_of_previous_hand": True, "partnership": True},
        {"fish_score_sum_only": True},
        {"fish_difference_per_opponent": True},
        {"check_only_at_hand_end": True},
    ],
    "classic": [
        {},
        {"partnership": True},
        {"lead_winner_of_previous_hand": True},
        {"check_only_at_hand_end": True},
    ],
    "kozel": [
        {},
        {"kozel_individual_4p": True},
        {"kozel_redeal": True},
        {"kozel_zero_double_lowest": True},
        {"reserve_k": 1},
        {"lone_00_value": 25, "lone_66_value": 50},
        {"eggs_double_next": True},
        {"fish_maker_takes_all": True},
        {"dry_goat": True},
        {"kozel_positive_scoring": True},
    ],
}


def configs(variant: str, players: int) -> list[dict]:
    out = []
    for opts in OPTION_SETS[variant]:
        try:
            make_rules(variant, players, **opts)
        except RulesError:
            continue
        out.append(opts)
    return out


RANDOM = get("random")


def match_trace(rules, seed: int, match_id: int) -> list[dict]:
    """The trace of a whole random match on the reference engine."""
    mrec = play_match(rules, seed, match_id, [RANDOM] * rules.players)
    assert mrec.hands, "a match has at least one hand"
    return trace_records(rules, mrec, seed=seed, strategies=["random"] * rules.players, hand=None)


def play_and_check(rules, seed: int, match_id: int) -> list[dict]:
    records = match_trace(rules, seed, match_id)
    replay(records)
    return records


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_matches_follow_the_rules(variant, data):
    """Every hand of a random match replays under the independent rule checker."""
    players = data.draw(st.integers(2, 4), label="players")
    opts = data.draw(st.sampled_from(configs(variant, players)), label="options")
    rules = make_rules(variant, players, **opts)
    if variant not in ("two-lane", "ladder") and not opts.get("sniff_book_endgame"):
        target = data.draw(st.one_of(st.none(), st.integers(1, rules.target)), label="target")
        if target is not None:
            rules = with_target(rules, target)
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    match_id = data.draw(st.integers(0, 10**6), label="match_id")
    play_and_check(rules, seed, match_id)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_option_set_and_player_count_replays(variant):
    """A fixed sweep so that every listed option set meets the checker at every player count."""
    n = 0
    for players in (2, 3, 4):
        for i, opts in enumerate(configs(variant, players)):
            rules = make_rules(variant, players, **opts)
            for match_id in range(2):
                play_and_check(rules, 1000 + i, match_id)
                n += 1
    assert n >= 6


def _first(records, typ):
    return next((i for i, r in enumerate(records) if r["type"] == typ), None)


def test_checker_rejects_a_tampered_placement():
    """The checker is not vacuous: moving a placement to another end fails the position check."""
    records = play_and_check(make_rules("block", 2), 3, 0)
    i = next(i for i, r in enumerate(records) if r["type"] == "place" and not r["lead"])
    records[i] = {**records[i], "pos": "R" if records[i]["pos"] == "L" else "L"}
    with pytest.raises(ReplayError):
        replay(records)


def test_checker_rejects_a_changed_award():
    """Changing the points of a settlement award fails the settlement check."""
    rules = make_rules("basic", 2)
    for seed in range(20):
        records = play_and_check(rules, seed, 0)
        i = _first(records, "hand_end")
        if i + 1 < len(records) and records[i + 1]["type"] == "score":
            records[i + 1] = {**records[i + 1], "points": records[i + 1]["points"] + 1}
            with pytest.raises(ReplayError):
                replay(records)
            return
    pytest.fail("no settled hand found")


def test_checker_rejects_a_dropped_pass():
    """Removing a pass (so a seat seems to skip its turn) fails the turn-order check."""
    rules = make_rules("classic", 3)
    for seed in range(50):
        records = play_and_check(rules, seed, 0)
        i = _first(records, "pass")
        if i is not None:
            del records[i]
            with pytest.raises(ReplayError):
                replay(records)
            return
    pytest.fail("no pass found")
