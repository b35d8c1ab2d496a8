"""What `doubles-first`, `suit-keeper` and `blocker` must play (docs/strategies.md, "The
built-in strategies"): hand-built Observations and the expected action under each documented
rule and tie-break, in the manner of Axelrod's `versus_test` sequences. Each case is built so
that the rule it names decides it (the other candidate is heavier, or ahead on the later
terms): with that rule left out or reordered, another action wins.

The compiled twins are held equal to these Python definitions decision by decision elsewhere
(tests/test_policies.py), so a mistake here would be copied there; these tests pin the
definitions themselves.
"""

import pytest

from dominosim.game import actions, tiles
from dominosim.game.observe import Observation
from dominosim.game.variants import make_rules
from dominosim.strategy import get

DRAW, PASS, STOP = actions.DRAW, actions.PASS, actions.STOP


def tile(text: str) -> int:
    return tiles.parse(text)


def play(text: str) -> int:
    """``"6-5@L"``: the placement of tile 6-5 on position L."""
    t, pos = text.split("@")
    return actions.place(tile(t), pos)


def observation(
    variant="block",
    players=2,
    *,
    hand,
    ends,
    seat=0,
    voids=None,
    counts=None,
    phase="play",
    options=None,
) -> Observation:
    """The seat's view: its hand, the open ends (``{"L": 2, "R": 5}``), known voids per seat,
    tiles held per seat (the others hold 5 unless given)."""
    rules = make_rules(variant, players, **(options or {}))
    hand = tuple(sorted(tile(x) for x in hand))
    held = list(counts) if counts else [5] * players
    held[seat] = len(hand)
    partner = (seat + 2) % 4 if rules.partnership else None
    return Observation(
        rules=rules,
        seat=seat,
        partner=partner,
        hand=hand,
        row=None,
        positions=tuple(ends.items()),
        table=(),
        counts=tuple(held),
        voids=tuple(frozenset((voids or {}).get(s, ())) for s in range(players)),
        face_up=(),
        stock_size=4,
        drawable=4,
        scores=(0,) * rules.sides,
        penalties=(0,) * players,
        leader=seat,
        match_id=0,
        hand_index=0,
        decision=5,
        phase=phase,
        doubles=(False,) * len(ends),
        along=(False,) * len(ends),
    )


def choose(name: str, obs: Observation, legal: list[int]) -> int:
    return get(name).choose_one(obs, legal, 0)


# ---------------------------------------------------------------------------------------------
# doubles-first: a double (the heaviest first), then in-play points, then the heaviest tile,
# then the first in canonical order; without a placement draw, else pass, else stop


def test_doubles_first_plays_a_double_before_a_heavier_tile():
    obs = observation(hand=["6-5", "2-2"], ends={"L": 2, "R": 5})
    assert choose("doubles-first", obs, [play("2-2@L"), play("6-5@R")]) == play("2-2@L")


def test_doubles_first_plays_the_heaviest_double_first():
    obs = observation(hand=["1-1", "3-3"], ends={"L": 3, "R": 1})
    assert choose("doubles-first", obs, [play("3-3@L"), play("1-1@R")]) == play("3-3@L")


def test_doubles_first_takes_in_play_points_before_the_heavier_tile():
    # fives: 1-6 on R leaves ends 4 and 6, ten points; 6-4 on L leaves 6 and 1, none
    obs = observation("fives", hand=["6-4", "6-1"], ends={"L": 4, "R": 1})
    assert choose("doubles-first", obs, [play("6-4@L"), play("6-1@R")]) == play("6-1@R")


def test_doubles_first_then_the_heaviest_tile_by_its_high_half():
    # 6-0 and 4-2 both hold six pips: the larger high half (RULES §1.2) goes first
    obs = observation(hand=["4-2", "6-0"], ends={"L": 0, "R": 2})
    assert choose("doubles-first", obs, [play("6-0@L"), play("4-2@R")]) == play("6-0@L")
    assert choose("doubles-first", obs, [play("4-2@R"), play("6-0@L")]) == play("6-0@L")


def test_doubles_first_breaks_a_full_tie_by_canonical_order():
    obs = observation(hand=["3-2"], ends={"L": 2, "R": 3})
    assert choose("doubles-first", obs, [play("3-2@L"), play("3-2@R")]) == play("3-2@L")


@pytest.mark.parametrize("name", ["doubles-first", "suit-keeper", "blocker", "partner"])
def test_without_a_placement_every_heuristic_draws_else_passes_else_stops(name):
    obs = observation(hand=["6-6"], ends={"L": 2, "R": 5})
    assert choose(name, obs, [DRAW, PASS]) == DRAW
    assert choose(name, obs, [PASS]) == PASS
    assert choose(name, obs, [STOP]) == STOP


# ---------------------------------------------------------------------------------------------
# suit-keeper: in-play points, then keep the longest suit, then control (tiles left that fit
# the ends after), then the heaviest tile; in blind's open phase STOP rather than break the
# suit (unless going out)


def test_suit_keeper_keeps_its_longest_suit_over_control_and_weight():
    # fives (5-x: three tiles) is the longest suit. 6-5 on L would leave ends 5 and 0, three
    # tiles fitting them, and is the heavier; 3-0 on R keeps the suit with one tile fitting.
    obs = observation(hand=["6-5", "5-1", "5-2", "3-0"], ends={"L": 6, "R": 0})
    assert choose("suit-keeper", obs, [play("6-5@L"), play("3-0@R")]) == play("3-0@R")


def test_suit_keeper_then_plays_for_control():
    # the longest suit is 1 (1-0, 1-5, 1-4); neither candidate breaks it. 6-3 on R leaves ends
    # 2 and 6, which no tile left fits; 4-3 on R leaves 2 and 4, which 1-4 fits: 4-3 wins
    # though it is the lighter
    obs = observation(hand=["1-0", "1-5", "1-4", "6-3", "4-3"], ends={"L": 2, "R": 3})
    legal = [play("6-3@R"), play("4-3@R")]
    assert choose("suit-keeper", obs, legal) == play("4-3@R")


def test_suit_keeper_takes_in_play_points_first():
    # fives: 6-1 on R scores ten (ends 4 and 6) though it breaks the longest suit (6)
    obs = observation("fives", hand=["6-1", "6-2", "6-3", "4-0"], ends={"L": 4, "R": 1})
    assert choose("suit-keeper", obs, [play("4-0@L"), play("6-1@R")]) == play("6-1@R")


def test_suit_keeper_then_the_heaviest_tile():
    # the longest suit, 5, is not touched; 4-0 on L leaves 0 and 3 (5-0 fits), 4-2 on L
    # leaves 2 and 3 (5-2 fits): control is equal, the heavier 4-2 goes
    obs = observation(hand=["5-0", "5-1", "5-2", "4-2", "4-0"], ends={"L": 4, "R": 3})
    legal = [play("4-0@L"), play("4-2@L")]
    assert choose("suit-keeper", obs, legal) == play("4-2@L")


def test_suit_keeper_stops_in_blinds_open_phase_rather_than_break_its_suit():
    obs = observation("blind", hand=["6-5", "5-1", "5-2"], ends={"L": 6, "R": 0}, phase="continue")
    assert choose("suit-keeper", obs, [play("6-5@L"), STOP]) == STOP
    keeps = observation(
        "blind", hand=["6-0", "5-1", "5-2"], ends={"L": 6, "R": 3}, phase="continue"
    )
    assert choose("suit-keeper", keeps, [play("6-0@L"), STOP]) == play("6-0@L")


def test_suit_keeper_goes_out_rather_than_stop():
    obs = observation("blind", hand=["6-5"], ends={"L": 6, "R": 0}, phase="continue")
    assert choose("suit-keeper", obs, [play("6-5@L"), STOP]) == play("6-5@L")


# ---------------------------------------------------------------------------------------------
# blocker: the next seat (an opponent) left without a play, then the opponents left without one,
# then the partner not blocked, then (opponent, end) pairs on known voids, then in-play points,
# then the heaviest tile; before any void it plays like greedy


def test_blocker_blocks_the_next_opponent_over_a_heavier_tile():
    # seat 1 is known to lack 3 and 5: 2-3 on R leaves ends 5 and 3 (with two players, the
    # block is also the most (opponent, end) hits)
    obs = observation(hand=["2-3", "6-2"], ends={"L": 5, "R": 2}, voids={1: {3, 5}})
    assert choose("blocker", obs, [play("6-2@R"), play("2-3@R")]) == play("2-3@R")


def test_blocker_prefers_the_next_seat_to_another_opponent():
    # 3 players: seat 1 (next) lacks 4 and 6, seat 2 lacks 5 and 6. 4-1 on L leaves ends 4
    # and 6: seat 1 blocked; 5-1 on L leaves 5 and 6: seat 2 blocked. One opponent blocked
    # and three hits each way, and 5-1 is the heavier: the next seat decides
    obs = observation(
        players=3, hand=["4-1", "5-1"], ends={"L": 1, "R": 6}, voids={1: {4, 6}, 2: {5, 6}}
    )
    assert choose("blocker", obs, [play("4-1@L"), play("5-1@L")]) == play("4-1@L")
    assert choose("blocker", obs, [play("5-1@L"), play("4-1@L")]) == play("4-1@L")


def test_blocker_counts_the_opponents_it_blocks():
    # 3 players: seat 1 lacks 0, seat 2 lacks 3, 5 and 6. 5-0 on R leaves ends 6 and 5: seat
    # 2 blocked (two hits); 6-3 on L leaves 3 and 0: nobody blocked (two hits too), and it is
    # the heavier: the count of blocked opponents decides
    obs = observation(
        players=3, hand=["5-0", "6-3"], ends={"L": 6, "R": 0}, voids={1: {0}, 2: {3, 5, 6}}
    )
    assert choose("blocker", obs, [play("6-3@L"), play("5-0@R")]) == play("5-0@R")


def test_blocker_never_blocks_its_partner():
    # 4 players in partnership: seat 2 is the partner and lacks 5 and 6; seat 1 lacks 6.
    # 6-2 on R leaves ends 5 and 6: the partner blocked, though it hits seat 1's void and is
    # the heavier; 3-2 on R leaves 5 and 3
    obs = observation(
        players=4,
        hand=["3-2", "6-2"],
        ends={"L": 5, "R": 2},
        voids={1: {6}, 2: {5, 6}},
        options={"partnership": "on"},
    )
    assert choose("blocker", obs, [play("6-2@R"), play("3-2@R")]) == play("3-2@R")


def test_blocker_aims_at_known_voids():
    # seat 1 lacks 4: 4-0 on L leaves 4 (a hit) and 2; 6-0 on L leaves 6 and 2 (none)
    obs = observation(hand=["4-0", "6-0"], ends={"L": 0, "R": 2}, voids={1: {4}})
    assert choose("blocker", obs, [play("6-0@L"), play("4-0@L")]) == play("4-0@L")


def test_blocker_plays_like_greedy_before_any_void_is_known():
    # fives, no voids: 6-1 on R scores ten; 6-4 on L is heavier and scores none
    obs = observation("fives", hand=["6-4", "6-1"], ends={"L": 4, "R": 1})
    legal = [play("6-4@L"), play("6-1@R")]
    assert choose("blocker", obs, legal) == play("6-1@R") == choose("greedy", obs, legal)
    block = observation(hand=["4-2", "6-0"], ends={"L": 0, "R": 2})
    assert choose("blocker", block, [play("4-2@R"), play("6-0@L")]) == play("6-0@L")


def test_blocker_stops_in_blinds_open_phase_to_keep_the_next_opponent_blocked():
    # the ends (5, 3) already block seat 1; placing 3-2 would open a 2 it may hold
    obs = observation(
        "blind", hand=["3-2", "6-6"], ends={"L": 5, "R": 3}, voids={1: {3, 5}}, phase="continue"
    )
    assert choose("blocker", obs, [play("3-2@R"), STOP]) == STOP
    going_out = observation(
        "blind", hand=["3-2"], ends={"L": 5, "R": 3}, voids={1: {3, 5}}, phase="continue"
    )
    assert choose("blocker", going_out, [play("3-2@R"), STOP]) == play("3-2@R")


# ---------------------------------------------------------------------------------------------
# partner (strategies/partner.py): the team games' best heuristic's first criteria, then count
# the tiles out (the ends after a placement: fewest tiles an opponent may hold), then the
# next opponent's void ends over the partner's, then the base's other criteria


def team_observation(variant="block", *, hand, ends, table=(), voids=None):
    """Seat 0 of 4 in partnership (partner 2; seat 1 plays next), the others holding 5."""
    from dataclasses import replace

    obs = observation(variant, 4, hand=hand, ends=ends, voids=voids, options={"partnership": True})
    return replace(obs, table=tuple(sorted(tile(x) for x in table)))


# five of the seven 6s and four of the 5s are on the table: few 6s or 5s are left to anyone
GONE = ["6-6", "6-4", "6-3", "6-1", "6-0", "5-5", "5-4", "5-3", "5-0"]


def test_partner_closes_the_ends_on_values_nearly_all_played():
    # 6-2@L leaves 6 and 5 (1 and 2 tiles an opponent may hold: 6-5, 5-2), 5-1@R leaves 2 and
    # 1 (6 and 5): the count decides before suit-keeper's keeping the longest suit (6, by the
    # higher value), for which suit-keeper plays 5-1@R
    obs = team_observation(hand=["6-2", "5-1"], ends={"L": 2, "R": 5}, table=GONE)
    legal = [play("6-2@L"), play("5-1@R")]
    assert choose("suit-keeper", obs, legal) == play("5-1@R")
    assert choose("partner", obs, legal) == play("6-2@L")


def test_partner_counts_only_the_tiles_an_opponent_may_hold():
    from dominosim.strategies.partner import open_counts

    hand = ["6-2", "5-1"]
    both = team_observation(hand=hand, ends={"L": 2, "R": 5}, voids={1: {4}, 3: {4}})
    one = team_observation(hand=hand, ends={"L": 2, "R": 5}, voids={1: {4}, 2: {3}})
    # no opponent can hold a tile with a 4: it counts for no value (4-3 is not a 3 they hold)
    assert open_counts(both)[4] == 0 and open_counts(both)[3] == 6
    # seat 3 may still hold the 4s; the partner's void is no opponent's
    assert open_counts(one)[4] == 7 and open_counts(one)[3] == 7
    assert open_counts(one)[1] == 6 and open_counts(one)[6] == 6  # (5-1 and 6-2 are its own)


def test_partner_leaves_the_next_opponent_his_void_and_the_partner_none_of_his():
    # 3-1@L leaves 1 and 4, 4-1@R leaves 3 and 1: the same count (11); seat 1 (next) lacks 4
    # and the partner (seat 2) lacks 3, so 3-1@L; without the voids the heavier 4-1@R
    legal = [play("3-1@L"), play("4-1@R")]
    voids = {1: {4}, 2: {3}}
    shown = team_observation(hand=["3-1", "4-1"], ends={"L": 3, "R": 4}, voids=voids)
    assert choose("partner", shown, legal) == play("3-1@L")
    plain = team_observation(hand=["3-1", "4-1"], ends={"L": 3, "R": 4})
    assert choose("partner", plain, legal) == play("4-1@R")


def test_partner_keeps_doubles_first_and_the_points_in_the_count_games():
    # fives: the double before the count (6-5@R would leave the nearly gone 6)
    obs = team_observation("fives", hand=["2-2", "6-5"], ends={"L": 2, "R": 5}, table=GONE)
    assert choose("partner", obs, [play("2-2@L"), play("6-5@R")]) == play("2-2@L")
    # the in-play points before the count: 6-1@R scores 10 (4 + 6), 6-4@L leaves 6 and 1,
    # and the 1s are nearly gone
    ones = ["1-1", "2-1", "3-1", "5-1", "1-0"]
    obs = team_observation("fives", hand=["6-4", "6-1"], ends={"L": 4, "R": 1}, table=ones)
    assert choose("partner", obs, [play("6-4@L"), play("6-1@R")]) == play("6-1@R")
