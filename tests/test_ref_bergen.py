"""RULES §4 (bergen): worked examples §4.E1–§4.E14, the §15 options of bergen, the lead rule of
§4.4, drawing ONE with reserve 2 (§4.7) and the match end of §1.14, on the reference engine."""

import pytest

from dominosim.game import reference
from dominosim.game.reference import MatchOver, MatchRecord, choose_leader
from dominosim.game.variants import make_rules

from helpers import ends_of, events, line, position, scored, t

# undealt tiles: more than the 2 reserved ones, so no block can happen in header examples
SPARE = ["2-6", "0-4", "3-5"]
# exactly the 2 reserved tiles: nothing is drawable (§4.3, §4.9)
RESERVED = ["0-5", "1-5"]


def bergen(players=2, **opts):
    return make_rules("bergen", players, **opts)


def lead(hand, prev=None):
    """The engine's own lead rule (§4.4 / §4.5), then the lead turn."""
    leader, tile = choose_leader(hand, prev)
    hand.record.leader = leader
    hand.lead(leader, tile)
    return leader


def turn(hand) -> bool:
    """One turn; True if a score event ended the match (§1.14)."""
    try:
        hand.play_turn()
    except MatchOver:
        return True
    return False


# --------------------------------------------------------------------------------------------
# worked examples §4.E1–§4.E8: headers and leads
# --------------------------------------------------------------------------------------------


def test_4_E1_lead_3_3_scores_2():
    """§4.E1: Lead 3-3 -> +2. A holds the lowest double dealt and must lead it (§4.4)."""
    hand, _ = position(bergen(), [["3-3", "6-5"], ["4-4", "6-6"]], stock=SPARE)
    assert lead(hand) == 0
    place = events(hand, "place")[0]
    assert place["lead"] and place["tile"] == t("3-3")
    assert scored(hand) == [(0, 2, "header")]


def test_4_E2_double_header_scores_2():
    """§4.E2: Ends [4 | 2]; 2-4 is placed on the 2, giving [4 | 4] -> +2."""
    hand, script = position(
        bergen(), [["2-4", "6-6"], ["5-5"]], layout=line("[4 | 2]"), moves=["2-4@R"], stock=SPARE
    )
    hand.play_turn()
    assert script.asked == [(0, ["4-2@L", "4-2@R"])]
    assert ends_of(hand) == "[4 | 4]"
    assert scored(hand) == [(0, 2, "header")]


def test_4_E3_triple_header_scores_3():
    """§4.E3: Ends [4x | 6]; 6-4 is placed on the 6, giving [4x | 4] -> +3."""
    hand, _ = position(
        bergen(), [["6-4", "1-1"], ["5-5"]], layout=line("[4x | 6]"), moves=["6-4@R"], stock=SPARE
    )
    hand.play_turn()
    assert ends_of(hand) == "[4x | 4]"
    assert scored(hand) == [(0, 3, "header")]


@pytest.mark.parametrize("pos, ends", [("L", "[5x | 5]"), ("R", "[5 | 5x]")])
def test_4_E4_double_on_matching_end_is_triple_header(pos, ends):
    """§4.E4: Ends [5 | 5]; 5-5 is placed on either end, giving [5x | 5] -> +3."""
    hand, script = position(
        bergen(),
        [["5-5", "1-1"], ["6-6"]],
        layout=line("[5 | 5]"),
        moves=[f"5-5@{pos}"],
        stock=SPARE,
    )
    hand.play_turn()
    assert script.asked == [(0, ["5-5@L", "5-5@R"])]
    assert ends_of(hand) == ends
    assert scored(hand) == [(0, 3, "header")]


def test_4_E5_unequal_ends_score_nothing():
    """§4.E5: Ends [2 | 3]; 3-1 is placed on the 3, giving [2 | 1] -> 0."""
    hand, _ = position(bergen(), [["3-1", "6-6"], ["5-5"]], layout=line("[2 | 3]"), stock=SPARE)
    hand.play_turn()
    assert ends_of(hand) == "[2 | 1]"
    assert scored(hand) == [] and hand.scores == [0, 0]


def test_4_E6_last_tile_triple_header_then_domino_bonus():
    """§4.E6: Ends [4x | 6]; B, more than 3 points short of the target, places his last tile,
    6-4, on the 6 -> +3, then domino +2, so B +5."""
    hand, _ = position(
        bergen(),
        [["5-5", "1-1"], ["6-4"]],
        layout=line("[4x | 6]"),
        moves=["6-4@R"],
        to_move=1,
        scores=[0, 5],
        stock=SPARE,
    )
    hand.play_turn()
    rec = hand.record
    assert scored(hand) == [(1, 3, "header"), (1, 2, "domino")]
    assert rec.end_reason == "domino" and rec.went_out == 1 and rec.winner == 1
    assert hand.scores == [0, 10]


def test_4_E7_lowest_dealt_double_leads_undealt_0_0_ignored():
    """§4.E7: 3 players, hand 1. A holds 3-3; B holds 1-1 and 5-5; C holds no double; 0-0 is
    undealt -> B leads 1-1 and scores +2."""
    hands = [["3-3", "6-4", "2-0"], ["1-1", "5-5", "6-2"], ["6-5", "4-3", "2-1"]]
    hand, script = position(bergen(3), hands, stock=["0-0", "0-4", "3-5"])
    assert lead(hand) == 1
    assert script.asked == []  # the leader has no choice of tile
    assert events(hand, "place")[0]["tile"] == t("1-1")
    assert scored(hand) == [(1, 2, "header")]
    assert hand.to_move == 2


def test_4_E8_no_double_dealt_lowest_tile_leads():
    """§4.E8: No double is dealt. A holds 1-2, C holds 0-3, and 0-1 and 0-2 are undealt -> A
    leads 1-2 and scores 0. (1-2 and 0-3 both have 3 pips; 1-2 has the smaller high half.)"""
    hands = [["1-2", "6-5"], ["3-4", "2-5"], ["0-3", "6-4"]]
    hand, _ = position(bergen(3), hands, stock=["0-1", "0-2", "1-4"])
    assert lead(hand) == 0
    assert events(hand, "place")[0]["tile"] == t("1-2")
    assert scored(hand) == []


def test_4_E8_tie_break_by_high_half_whatever_the_seat():
    """§4.E8 with A and C's tiles swapped: C holds 1-2 and leads it, not A's 0-3 (§1.2)."""
    hands = [["0-3", "6-5"], ["3-4", "2-5"], ["1-2", "6-4"]]
    hand, _ = position(bergen(3), hands, stock=["0-1", "0-2", "1-4"])
    assert lead(hand) == 2
    assert events(hand, "place")[0]["tile"] == t("1-2")


def test_4_4_later_hands_lead_as_hand_1():
    """§4.5: every hand is led as §4.4, whoever won the previous hand."""
    hand, _ = position(bergen(2), [["6-6", "5-4"], ["2-2", "1-0"]], stock=SPARE)
    prev = reference.PrevHand(
        leader=1, winner=0, went_out=0, fish_maker=None, blocked=False, seat_pips=[0, 9]
    )
    assert lead(hand, prev) == 1
    assert events(hand, "place")[0]["tile"] == t("2-2")


# --------------------------------------------------------------------------------------------
# worked examples §4.E9–§4.E12: block settlement
# --------------------------------------------------------------------------------------------


def test_4_E9_only_players_without_double_compete_lowest_pips_scores():
    """§4.E9: Block. A {6-6}; B {1-2, 0-3} = 6; C {4-5} = 9 -> B and C hold no double -> B +2.

    These hands hold every value 0-6, so no layout blocks them: the block position is built
    and the engine's hand end (settlement) is run on it."""
    hand, _ = position(
        bergen(3), [["6-6"], ["1-2", "0-3"], ["4-5"]], layout=line("[0 | 6]"), stock=RESERVED
    )
    hand.finish("blocked", fish_maker=2)
    assert scored(hand) == [(1, 2, "block")]
    assert hand.record.winner == 1


def test_4_E10_every_player_holds_a_double_lowest_double_scores():
    """§4.E10: Block. A {2-2, 6-5}, B {5-5}, C {3-3, 0-1} -> every player holds a double; the
    lowest is 2-2 -> A +2.

    B plays 1-4 on the 1: [4 | 4] (a header, +2); nobody holds a 4 and only the 2 reserved
    tiles remain, so the engine blocks the hand (§4.9)."""
    hand, script = position(
        bergen(3),
        [["2-2", "6-5"], ["5-5", "1-4"], ["3-3", "0-1"]],
        layout=line("[4 | 1]"),
        to_move=1,
        moves=["4-1@R"],
        stock=RESERVED,
    )
    hand.play_turn()
    rec = hand.record
    assert ends_of(hand) == "[4 | 4]"
    assert rec.end_reason == "blocked" and rec.fish_maker == 1
    assert scored(hand) == [(1, 2, "header"), (0, 2, "block")]
    assert rec.winner == 0


def test_4_10_rule_1_the_only_player_without_a_double_scores_whatever_his_pips():
    """§4.10 (1): if exactly one player holds no double, he scores +2, here C with 18 pips
    against A 2 and B 0. A plays 4-2 on the 4: [2 | 2] (a header, +2); nobody holds a 2."""
    hand, _ = position(
        bergen(3),
        [["4-2", "1-1"], ["0-0"], ["6-5", "4-3"]],
        layout=line("[2 | 4]"),
        moves=["4-2@R"],
        stock=RESERVED,
    )
    hand.play_turn()
    rec = hand.record
    assert rec.end_reason == "blocked" and rec.pips == [2, 0, 18]
    assert scored(hand) == [(0, 2, "header"), (2, 2, "block")]
    assert rec.winner == 2


def test_4_E11_no_double_pip_tie_scores_nothing():
    """§4.E11: Block, no player holds a double. A 7, B 7, C 10 -> tie; no score; hand winner
    none. C plays 1-6 on the 6: [0 | 1]; nobody holds a 0 or a 1."""
    hand, _ = position(
        bergen(3),
        [["3-4"], ["2-5"], ["1-6", "4-6"]],
        layout=line("[0 | 6]"),
        to_move=2,
        moves=["1-6@R"],
        stock=RESERVED,
    )
    hand.play_turn()
    rec = hand.record
    assert ends_of(hand) == "[0 | 1]"
    assert rec.end_reason == "blocked" and rec.pips == [7, 7, 10]
    assert scored(hand) == [] and rec.winner is None
    assert events(hand, "hand_end")[0]["winner"] is None


def test_4_E12_block_lowest_hand_1pt_ignores_double_pips():
    """§4.E12: `bergen_block_lowest_hand_1pt`. Block. A {6-6, 0-1}, B {1-1, 2-3}, C {0-0, 3-4}
    -> every player holds a double, so the doubles' pips are not counted: A 1, B 5, C 7 -> A +1.
    By default the lowest double (0-0) wins: C +2.

    B plays 2-5 on the 2: [5 | 5] (a header, +2); nobody holds a 5 -> blocked."""
    hands = [["6-6", "0-1"], ["1-1", "2-3", "2-5"], ["0-0", "3-4"]]
    for opts, award in (({"bergen_block_lowest_hand_1pt": True}, (0, 1)), ({}, (2, 2))):
        hand, script = position(
            bergen(3, **opts),
            hands,
            layout=line("[5 | 2]"),
            to_move=1,
            moves=["5-2@R"],
            stock=RESERVED,
        )
        hand.play_turn()
        assert script.asked == [(1, ["5-2@L", "3-2@R", "5-2@R"])]
        assert hand.record.end_reason == "blocked"
        assert scored(hand) == [(1, 2, "header"), (*award, "block")]


def test_option_block_lowest_hand_1pt_candidates_hold_no_double():
    """bergen_block_lowest_hand_1pt with §4.E9's hands: the candidates are B and C (no double):
    B 6 < C 9 -> B +1 (the default gives B +2)."""
    for opts, pts in (({"bergen_block_lowest_hand_1pt": True}, 1), ({}, 2)):
        hand, _ = position(
            bergen(3, **opts),
            [["6-6"], ["1-2", "0-3"], ["4-5"]],
            layout=line("[0 | 6]"),
            stock=RESERVED,
        )
        hand.finish("blocked", fish_maker=2)
        assert scored(hand) == [(1, pts, "block")]


# --------------------------------------------------------------------------------------------
# worked examples §4.E13–§4.E14: bergen_near_target_cap
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("own, pts", [(13, 1), (12, 2)])
def test_4_E13_near_target_cap_limits_triple_header(own, pts):
    """§4.E13: `bergen_near_target_cap`, 2 players, target 15. A has 13 and makes a triple
    header -> A +1. A has 12 and makes a triple header -> A +2."""
    rules = bergen(2, bergen_near_target_cap=True)
    assert rules.target == 15
    hand, _ = position(
        rules,
        [["6-4", "1-1"], ["5-5"]],
        layout=line("[4x | 6]"),
        moves=["6-4@R"],
        scores=[own, 0],
        stock=SPARE,
    )
    hand.play_turn()
    assert scored(hand) == [(0, pts, "header")]
    assert hand.scores == [own + pts, 0] and not hand.over


def test_option_near_target_cap_need_0_or_less_scores_1_under_check_only():
    """bergen_near_target_cap with check_only_at_hand_end: A already at 15 of 15 (need = 0)
    makes a triple header -> +1, and the hand goes on."""
    rules = bergen(2, bergen_near_target_cap=True, check_only_at_hand_end=True)
    hand, _ = position(
        rules,
        [["6-4", "1-1"], ["5-5"]],
        layout=line("[4x | 6]"),
        moves=["6-4@R"],
        scores=[15, 0],
        stock=SPARE,
    )
    hand.play_turn()
    assert scored(hand) == [(0, 1, "header")] and not hand.over


def test_option_near_target_cap_off_triple_header_reaches_target():
    """Without the cap (§4.E13's position, A 12): +3 -> 15, the match ends at once, end
    reason `target`."""
    hand, _ = position(
        bergen(2),
        [["6-4", "1-1"], ["5-5"]],
        layout=line("[4x | 6]"),
        moves=["6-4@R"],
        scores=[12, 0],
        stock=SPARE,
    )
    assert turn(hand)
    assert scored(hand) == [(0, 3, "header")]
    assert hand.record.end_reason == "target" and hand.record.winner == 0


def test_4_E14_near_target_cap_double_lead_counts_as_header():
    """§4.E14: `bergen_near_target_cap`, 2 players, target 15. A has 13 and leads 3-3 at the
    start of a hand -> need = 2, and a double lead counts as a header -> A +1."""
    hand, _ = position(
        bergen(2, bergen_near_target_cap=True),
        [["3-3", "6-5"], ["4-4"]],
        scores=[13, 0],
        stock=SPARE,
    )
    assert lead(hand) == 0
    assert scored(hand) == [(0, 1, "header")]
    assert hand.scores == [14, 0]


# --------------------------------------------------------------------------------------------
# §4.7: drawing ONE with reserve 2
# --------------------------------------------------------------------------------------------


def test_4_7_no_draw_when_only_the_2_reserved_tiles_remain():
    """§4.7: a player who cannot play draws only if more than 2 tiles remain in the stock.
    With exactly 2, A passes without drawing (B can still play: no block)."""
    hand, _ = position(
        bergen(2), [["2-2", "3-3"], ["6-5"]], layout=line("[6 | 1]"), stock=["6-0", "1-4"]
    )
    hand.play_turn()
    assert events(hand, "draw") == [] and [e["seat"] for e in events(hand, "pass")] == [0]
    assert len(hand.stock) == 2 and not hand.over


@pytest.mark.parametrize(
    "stock, placed",
    [(["6-0", "1-4", "5-5"], True), (["4-4", "6-0", "1-4"], False)],
)
def test_4_7_draw_one_with_three_in_stock_place_if_it_fits(stock, placed):
    """§4.7: with 3 stock tiles A draws one (the next one). If it fits he must place it;
    otherwise he passes and keeps it, even though the next tile would fit."""
    hand, _ = position(bergen(2), [["2-2", "3-3"], ["6-5"]], layout=line("[6 | 1]"), stock=stock)
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t(stock[0])]
    assert len(hand.stock) == 2
    if placed:
        assert events(hand, "place")[0]["tile"] == t("6-0") and ends_of(hand) == "[0 | 1]"
    else:
        assert [e["seat"] for e in events(hand, "pass")] == [0]
        assert t("4-4") in hand.hands[0]


# --------------------------------------------------------------------------------------------
# §15 options
# --------------------------------------------------------------------------------------------


def test_option_partnership_headers_and_block_go_to_teams():
    """bergen.partnership (§1.4): B2 (seat 3) plays 3-6 on the 6: [2 | 3]; nobody holds a 2 or
    a 3, only the reserved tiles remain -> block. Team A holds a double (A2's 6-6), team B none
    -> team B +2. Individually A1, B1 and B2 hold no double and A1 has the lowest pips
    (1) -> seat 0 +2."""
    hands = [["0-1"], ["5-4"], ["6-6"], ["6-3", "6-5"]]
    for part, expect in ((True, [(1, 2, "block")]), (False, [(0, 2, "block")])):
        hand, _ = position(
            bergen(4, partnership=part),
            hands,
            layout=line("[2 | 6]"),
            to_move=3,
            moves=["3-6@R"],
            stock=RESERVED,
        )
        hand.play_turn()
        assert hand.record.end_reason == "blocked" and hand.record.fish_maker == 3
        assert scored(hand) == expect
    # a header by A2 (seat 2) goes to team A
    hand, _ = position(
        bergen(4, partnership=True),
        [["1-1"], ["5-5"], ["6-4", "0-0"], ["3-3"]],
        layout=line("[4x | 6]"),
        moves=["6-4@R"],
        to_move=2,
        stock=SPARE,
    )
    hand.play_turn()
    assert scored(hand) == [(0, 3, "header")] and hand.scores == [3, 0]


def test_option_highest_double_leads():
    """bergen_highest_double_leads: the holder of the highest double leads it (B, 5-5) instead
    of the lowest (A, 1-1); with no double dealt, the highest tile (6-5) leads."""
    hands = [["1-1", "6-4"], ["5-5", "2-0"]]
    for opts, seat, tile in (({"bergen_highest_double_leads": True}, 1, "5-5"), ({}, 0, "1-1")):
        hand, _ = position(bergen(2, **opts), hands, stock=SPARE)
        assert lead(hand) == seat and events(hand, "place")[0]["tile"] == t(tile)
    hands = [["1-2", "6-4"], ["6-5", "0-3"]]
    for opts, seat, tile in (({"bergen_highest_double_leads": True}, 1, "6-5"), ({}, 0, "1-2")):
        hand, _ = position(bergen(2, **opts), hands, stock=["5-5", "0-1", "4-4"])
        assert lead(hand) == seat and events(hand, "place")[0]["tile"] == t(tile)


def test_option_voluntary_draw_offered_while_able_then_pass():
    """bergen_voluntary: A can play 1-2 but may decline and draw while a drawable tile exists;
    after the draw he may place any playable tile or pass. By default play is forced (no
    question at all)."""
    rules = bergen(2, bergen_voluntary=True)
    stock = ["4-6", "0-0", "5-5"]
    hand, script = position(
        rules,
        [["1-2", "3-3"], ["6-5"]],
        layout=line("[6 | 1]"),
        stock=stock,
        moves=["draw", "pass"],
    )
    hand.play_turn()
    assert script.asked == [(0, ["2-1@R", "draw"]), (0, ["6-4@L", "2-1@R", "pass"])]
    assert [e["tile"] for e in events(hand, "draw")] == [t("4-6")]
    assert [e["seat"] for e in events(hand, "pass")] == [0] and events(hand, "place") == []
    assert sorted(hand.hands[0]) == sorted(t(x) for x in ["1-2", "3-3", "4-6"])
    assert hand.to_move == 1
    # after the voluntary draw he may place the drawn tile
    hand, _ = position(
        rules,
        [["1-2", "3-3"], ["6-5"]],
        layout=line("[6 | 1]"),
        stock=stock,
        moves=["draw", "6-4@L"],
    )
    hand.play_turn()
    assert ends_of(hand) == "[4 | 1]"
    # default: forced play, the single legal action is taken without a question
    hand, script = position(
        bergen(2), [["1-2", "3-3"], ["6-5"]], layout=line("[6 | 1]"), stock=stock
    )
    hand.play_turn()
    assert script.asked == [] and events(hand, "draw") == [] and ends_of(hand) == "[6 | 2]"


def test_option_voluntary_play_forced_when_nothing_drawable():
    """bergen_voluntary: when nothing is drawable (only the 2 reserved tiles), play is forced."""
    hand, script = position(
        bergen(2, bergen_voluntary=True),
        [["1-2", "3-3"], ["6-5"]],
        layout=line("[6 | 1]"),
        stock=RESERVED,
    )
    hand.play_turn()
    assert script.asked == [] and ends_of(hand) == "[6 | 2]"


def test_option_draw_until_playable_keeps_the_reserve():
    """bergen_draw_until_playable: UNTIL_PLAYABLE with reserve 2. A draws 4-4, 0-0, then 6-3,
    which fits, and places it (default ONE: draws 4-4 only and passes). With 4 stock tiles only
    2 are drawable: A draws 4-4 and 0-0 and passes."""
    rules = bergen(2, bergen_draw_until_playable=True)
    stock = ["4-4", "0-0", "6-3", "2-0", "1-4"]
    hand, _ = position(rules, [["2-2"], ["6-5", "5-5"]], layout=line("[6 | 1]"), stock=stock)
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t("4-4"), t("0-0"), t("6-3")]
    assert ends_of(hand) == "[3 | 1]" and len(hand.stock) == 2
    hand, _ = position(
        rules, [["2-2"], ["6-5", "5-5"]], layout=line("[6 | 1]"), stock=stock[:2] + stock[3:]
    )
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t("4-4"), t("0-0")]
    assert events(hand, "pass") and len(hand.stock) == 2
    hand, _ = position(bergen(2), [["2-2"], ["6-5", "5-5"]], layout=line("[6 | 1]"), stock=stock)
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t("4-4")] and events(hand, "pass")


def test_option_domino_bonus_1():
    """bergen_domino_bonus = 1: §4.E6 gives B +3, then domino +1."""
    hand, _ = position(
        bergen(2, bergen_domino_bonus=1),
        [["5-5", "1-1"], ["6-4"]],
        layout=line("[4x | 6]"),
        moves=["6-4@R"],
        to_move=1,
        stock=SPARE,
    )
    hand.play_turn()
    assert scored(hand) == [(1, 3, "header"), (1, 1, "domino")]


def test_option_target_ends_match_in_play():
    """bergen.target = 5: B at 2 makes a triple header -> 5, the match ends at once (end reason
    `target`); under the default 15 the hand goes on."""
    for opts, over in (({"target": 5}, True), ({}, False)):
        hand, _ = position(
            bergen(2, **opts),
            [["5-5", "1-1"], ["6-4", "0-0"]],
            layout=line("[4x | 6]"),
            moves=["6-4@R"],
            to_move=1,
            scores=[0, 2],
            stock=SPARE,
        )
        assert turn(hand) is over
        assert hand.scores == [0, 5]
        assert hand.record.end_reason == ("target" if over else "")


def test_1_14_target_in_play_on_last_tile_no_domino_bonus():
    """§1.14: B at 13 of 15 places his last tile with a triple header: 16, the match ends at
    once, end reason `target`, no domino award. With `check_only_at_hand_end` the hand is
    played out: +3, domino +2 -> 18, end reason `domino`, and B wins at the hand end."""
    for opts, reason, pts in (
        ({}, "target", [(1, 3, "header")]),
        ({"check_only_at_hand_end": True}, "domino", [(1, 3, "header"), (1, 2, "domino")]),
    ):
        rules = bergen(2, **opts)
        hand, _ = position(
            rules,
            [["5-5", "1-1"], ["6-4"]],
            layout=line("[4x | 6]"),
            moves=["6-4@R"],
            to_move=1,
            scores=[0, 13],
            stock=SPARE,
        )
        assert turn(hand) is (reason == "target")
        rec = hand.record
        assert rec.end_reason == reason and scored(hand) == pts
        assert rec.winner == 1
        mrec = MatchRecord(0)
        assert reference._match_over(rules, rec, hand.scores, None, mrec, 0)
        assert mrec.winner == 1
