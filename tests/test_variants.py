"""The twelve presets and the RULES §15 options: building, validation, deal sizes, targets."""

import pytest

from dominosim.base.errors import RulesError
from dominosim.game.rules import Rules
from dominosim.game.variants import (
    INFO,
    OPTIONS,
    VARIANTS,
    format_value,
    make_rules,
    options_of,
    with_target,
)

PLAYERS = (2, 3, 4)

# RULES §2, deal per player: 2 / 3 / 4 players
DEALS = {
    "blind": (7, 5, 5),
    "bergen": (6, 6, 5),
    "fives": (6, 6, 5),
    "threes": (6, 6, 5),
    "sniff": (7, 5, 5),
    "basic": (7, 5, 5),
    "two-lane": (5, 5, 6),
    "ladder": (5, 5, 5),
    "muggins": (7, 5, 5),
    "block": (7, 5, 5),
    "classic": (7, 7, 7),
    "kozel": (7, 7, 7),
}

# RULES §n.11 (kozel: §14.11, the goat at 101)
TARGETS = {
    "blind": (100, 100, 100),
    "bergen": (15, 10, 10),
    "fives": (25, 20, 20),
    "threes": (33, 22, 22),
    "sniff": (61, 61, 61),
    "basic": (100, 100, 100),
    "muggins": (100, 100, 100),
    "block": (50, 50, 50),
    "classic": (100, 100, 100),
    "kozel": (101, 101, 101),
}

# The invalid combinations at the end of RULES §15: (variant, players, options, words in message)
# fmt: off
INVALID = [
    ("block", 2, {"fish_score_sum_only": "on", "fish_difference_per_opponent": "on"},
     ["fish_score_sum_only", "fish_difference_per_opponent"]),
    ("bergen", 2, {"bergen_voluntary": True, "bergen_draw_until_playable": True},
     ["bergen_voluntary", "bergen_draw_until_playable"]),
    ("muggins", 2, {"spinner_open_all_four_immediately": True},
     ["spinner_open_all_four_immediately", "first_double_spinner"]),
    ("muggins", 3, {"us_sniff_counting": True}, ["us_sniff_counting", "first_double_spinner"]),
    ("sniff", 2, {"sniff_book_endgame": True, "target": 61}, ["sniff_book_endgame", "target"]),
    ("fives", 3, {"partnership": True}, ["partnership", "4 players"]),
    ("bergen", 2, {"partnership": True}, ["partnership", "4 players"]),
    ("sniff", 3, {"reserve_k": 2}, ["reserve_k", "2 players"]),
    ("sniff", 4, {"reserve_k": 2}, ["reserve_k"]),
    ("kozel", 4, {"reserve_k": 1}, ["reserve_k", "4"]),
]
# fmt: on


def test_twelve_variants():
    assert len(VARIANTS) == 12 == len(INFO) == len(set(VARIANTS))
    assert [INFO[v].section for v in VARIANTS] == list(range(3, 15))


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_preset_builds_a_hashable_rules(variant, players):
    r = make_rules(variant, players)
    assert isinstance(r, Rules)
    assert r.variant == variant and r.players == players
    assert hash(r) == hash(make_rules(variant, players))
    assert r == make_rules(variant, players)
    assert r.label == variant
    assert {r: 1}[make_rules(variant, players)] == 1


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("variant", VARIANTS)
def test_deal_sizes_match_rules_section_2(variant, players):
    assert make_rules(variant, players).hand_size == DEALS[variant][players - 2]
    assert INFO[variant].deal == DEALS[variant]


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("variant", sorted(TARGETS))
def test_targets_match_rules_n11(variant, players):
    assert make_rules(variant, players).target == TARGETS[variant][players - 2]


@pytest.mark.parametrize("variant", ["two-lane", "ladder"])
def test_one_hand_variants_have_no_target(variant):
    r = make_rules(variant, 2)
    assert r.match_end == "one_hand" and r.hands_per_match == 1
    with pytest.raises(RulesError, match="no target"):
        with_target(r, 50)


def test_kozel_four_players_play_as_two_teams():
    assert make_rules("kozel", 4).partnership
    assert make_rules("kozel", 4).draw_mode == "none"
    assert not make_rules("kozel", 4, kozel_individual_4p=True).partnership
    assert not make_rules("kozel", 3).partnership


def _allowed_values(opt):
    if opt.allowed == "integer >= 1":
        return [1, 7, 250]
    if opt.allowed == "off or integer >= 2":
        return [0, 2, 5, "off"]
    return list(opt.allowed)


def _players_for(variant, name):
    return 4 if name == "partnership" else 2


@pytest.mark.parametrize("key", list(OPTIONS), ids=[f"{v}.{n}" for v, n in OPTIONS])
def test_every_option_accepts_default_and_allowed_values(key):
    variant, name = key
    opt = OPTIONS[key]
    players = _players_for(variant, name)
    default = opt.default_for(players)
    base = make_rules(variant, players)
    # the default changes nothing, except that an explicit sniff target is still "set"
    assert make_rules(variant, players, **{name: default}) == base
    extra = {}
    if variant == "muggins" and name in ("spinner_open_all_four_immediately", "us_sniff_counting"):
        extra = {"first_double_spinner": True}
    for value in _allowed_values(opt):
        r = make_rules(variant, players, **{name: value}, **extra)
        assert isinstance(hash(r), int)
    # the string form of the command line works too
    for value in _allowed_values(opt):
        make_rules(variant, players, **{name: format_value(value)}, **extra)


@pytest.mark.parametrize("key", list(OPTIONS), ids=[f"{v}.{n}" for v, n in OPTIONS])
def test_every_option_rejects_a_bad_value(key):
    variant, name = key
    with pytest.raises(RulesError, match=f"{variant}.{name}"):
        make_rules(variant, _players_for(variant, name), **{name: "nonsense-value"})


def test_non_default_options_are_in_the_label():
    r = make_rules("fives", 2, reserve_k=2)
    assert r.reserve_k == 2
    assert r.label == "fives[reserve_k=2]"
    assert r != make_rules("fives", 2)


@pytest.mark.parametrize(("variant", "players", "options", "words"), INVALID)
def test_invalid_combinations_of_section_15(variant, players, options, words):
    with pytest.raises(RulesError) as info:
        make_rules(variant, players, **options)
    msg = str(info.value)
    assert "invalid combination" in msg
    assert "\n" not in msg
    for w in words:
        assert w in msg


def test_valid_neighbours_of_invalid_combinations():
    make_rules("muggins", 2, first_double_spinner=True, us_sniff_counting=True)
    make_rules("sniff", 2, reserve_k=2)
    make_rules("kozel", 3, reserve_k=1)
    make_rules("fives", 4, partnership=True)
    make_rules("sniff", 2, sniff_book_endgame=True)
    assert make_rules("sniff", 3, sniff_book_endgame=True).target == 20


@pytest.mark.parametrize("variant", [v for v in VARIANTS if "partnership" in options_of(v)])
def test_partnership_with_three_players_errors(variant):
    with pytest.raises(RulesError, match="partnership needs 4 players, not 3"):
        make_rules(variant, 3, partnership=True)
    assert make_rules(variant, 4, partnership=True).sides == 2


def test_unknown_variant_suggests_a_close_name():
    with pytest.raises(RulesError, match=r"unknown variant 'fivs' \(did you mean 'fives'\?\)"):
        make_rules("fivs", 2)


def test_unknown_option_suggests_a_close_name():
    with pytest.raises(RulesError, match=r"unknown option 'reserv_k' for fives .*'reserve_k'"):
        make_rules("fives", 2, reserv_k=2)


@pytest.mark.parametrize("players", [1, 5, 0, "2", True])
def test_bad_player_count(players):
    with pytest.raises(RulesError, match="2, 3 or 4 players"):
        make_rules("fives", players)


def test_with_target_sweeps():
    assert with_target(make_rules("fives", 2), 50).target == 50
    assert with_target(make_rules("kozel", 2), 51).target == 51
