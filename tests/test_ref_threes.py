"""RULES §6 (threes): worked examples §6.E1–§6.E6 and the §15 options of threes, on the
reference engine. Threes is fives (§5) with rows 6.8 (c / 3) and 6.11 (targets) changed."""

import pytest

from dominosim.game import reference
from dominosim.game.reference import MatchOver, MatchRecord
from dominosim.game.variants import make_rules

from helpers import ends_of, events, line, position, scored, scripted_match, seed_with_lot, t

# undealt tiles left in the stock so that no block can happen in examples about counting
SPARE = ["4-4", "1-1", "2-0"]


def threes(players=2, **opts):
    return make_rules("threes", players, **opts)


# --------------------------------------------------------------------------------------------
# worked examples §6.E1–§6.E6
# --------------------------------------------------------------------------------------------


def test_6_E1_ends_6x_3x_count_18_scores_6():
    """§6.E1: Ends [6x | 3x] -> c = 18 -> +6 (both doubles count both halves)."""
    hand, _ = position(threes(), [["3-3", "0-1"], ["5-2"]], layout=line("[6x | 3]"), stock=SPARE)
    hand.play_turn()
    assert ends_of(hand) == "[6x | 3x]"
    assert scored(hand) == [(0, 6, "count")]


def test_6_E2_lead_2_1_counts_3_scores_1():
    """§6.E2: Lead 2-1 -> c = 3 -> +1."""
    hand, _ = position(threes(), [["2-1", "6-6"], ["5-5"]], moves=["2-1@L"], stock=SPARE)
    hand.lead(0, None)
    assert events(hand, "place")[0]["lead"] is True
    assert scored(hand) == [(0, 1, "count")]


def test_6_E3_ends_6_6_count_12_scores_4():
    """§6.E3: Ends [6 | 6] -> c = 12 -> +4 (fives would score nothing for 12)."""
    hand, script = position(
        threes(), [["2-6", "0-1"], ["5-3"]], layout=line("[6 | 2]"), moves=["2-6@R"], stock=SPARE
    )
    hand.play_turn()
    assert script.asked == [(0, ["6-2@L", "6-2@R"])]
    assert ends_of(hand) == "[6 | 6]"
    assert scored(hand) == [(0, 4, "count")]


def test_6_E4_ends_5_5x_count_15_scores_5():
    """§6.E4: Ends [5 | 5x] -> c = 15 -> +5."""
    hand, _ = position(
        threes(), [["5-5", "0-1"], ["6-3"]], layout=line("[5 | 5]"), moves=["5-5@R"], stock=SPARE
    )
    hand.play_turn()
    assert ends_of(hand) == "[5 | 5x]"
    assert scored(hand) == [(0, 5, "count")]


def test_6_E5_ends_4_4_count_8_scores_nothing():
    """§6.E5: Ends [4 | 4] -> c = 8 -> 0: points only on multiples of 3."""
    hand, _ = position(
        threes(), [["1-4", "0-0"], ["6-3"]], layout=line("[4 | 1]"), moves=["1-4@R"], stock=SPARE
    )
    hand.play_turn()
    assert ends_of(hand) == "[4 | 4]"
    assert scored(hand) == [] and hand.scores == [0, 0]


def test_6_E6_lead_0_0_counts_0_scores_nothing():
    """§6.E6: Lead 0-0 -> c = 0 -> 0."""
    hand, _ = position(threes(), [["0-0", "6-6"], ["5-3"]], moves=["0-0@L"], stock=SPARE)
    hand.lead(0, None)
    assert scored(hand) == []


def test_6_10_domino_2_and_block_lowest_1():
    """§6.10 (as §5.10): a player going out scores +2 after the in-play points of his last
    tile ([3 | 6], c = 9 -> +3, then +2); at a block the lowest pip total scores +1."""
    hand, _ = position(threes(), [["1-6"], ["5-5"]], layout=line("[3 | 1]"), stock=SPARE)
    hand.play_turn()
    assert scored(hand) == [(0, 3, "count"), (0, 2, "domino")]
    assert hand.record.end_reason == "domino" and hand.record.winner == 0
    # A plays 1-6: [3 | 6]; B holds 5-5 and the stock is empty -> blocked: A 4 < B 10
    hand, _ = position(threes(), [["1-6", "0-4"], ["5-5"]], layout=line("[3 | 1]"))
    hand.play_turn()
    assert hand.record.end_reason == "blocked"
    assert scored(hand) == [(0, 3, "count"), (0, 1, "block")]


# --------------------------------------------------------------------------------------------
# §15 options
# --------------------------------------------------------------------------------------------


def test_option_partnership_points_go_to_teams():
    """threes.partnership (§1.4): A2 (seat 2) leads 2-1 -> team A +1; B2 (seat 3) then places
    1-5 on the 1: [5 | 2], c = 7, nothing; A1 (seat 0) places 2-4 on the 2: [5 | 4], c = 9 ->
    team A +3. Individually the points go to seats 2 and 0."""
    hands = [["2-4", "6-6"], ["6-5"], ["2-1", "0-0"], ["1-5", "3-3"]]
    for part, sides in ((True, [0, 0]), (False, [2, 0])):
        hand, _ = position(threes(4, partnership=part), hands, stock=SPARE, moves=["2-1@L"])
        hand.lead(2, None)
        hand.play_turn()  # seat 3
        hand.play_turn()  # seat 0
        assert ends_of(hand) == "[5 | 4]"
        assert scored(hand) == [(sides[0], 1, "count"), (sides[1], 3, "count")]
    assert hand.scores == [3, 0, 1, 0]


def test_option_lead_winner_of_previous_hand(monkeypatch):
    """threes.lead_winner_of_previous_hand, target 5: hand 1 (A leads, lot) is won by C, who
    goes out; C leads hand 2 (by default B, the seat after the leader, would)."""
    deals = [
        # A leads 1-2 (c = 3, +1); B passes; C goes out with 2-4: [1 | 4], c = 5, then +2
        ([["1-2", "6-6"], ["5-5"], ["2-4"]], []),
        # C leads 6-3: c = 9, +3 -> C 5, target in play. B would lead 6-6: +4, domino +2 -> 6
        ([["0-0"], ["6-6"], ["6-3"]], []),
    ]
    seed = seed_with_lot(3, 0)
    m = scripted_match(
        monkeypatch,
        threes(3, target=5, lead_winner_of_previous_hand=True),
        deals,
        moves=["1-2@L"],
        seed=seed,
    )
    assert m.hands[0].winner == 2 and m.hands[0].points == [1, 0, 2]
    assert m.hands[1].leader == 2 and m.hands[1].end_reason == "target"
    assert m.winner == 2 and m.scores == [1, 0, 5]
    m = scripted_match(monkeypatch, threes(3, target=5), deals, moves=["1-2@L"], seed=seed)
    assert m.hands[1].leader == 1 and m.hands[1].end_reason == "domino"
    assert m.winner == 1 and m.scores == [1, 6, 2]


def test_option_reserve_k_2_last_two_stock_tiles_are_never_drawn():
    """threes.reserve_k = 2: with 2 stock tiles nothing is drawable, so A passes; with 3, A
    draws the first (6-3, which fits) and places it. By default A draws from 2 tiles too."""
    for opts, stock, drew in (
        ({"reserve_k": 2}, ["6-3", "0-0"], []),
        ({"reserve_k": 2}, ["6-3", "0-0", "5-5"], ["6-3"]),
        ({}, ["6-3", "0-0"], ["6-3"]),
    ):
        hand, _ = position(
            threes(2, **opts), [["1-2"], ["0-6"]], layout=line("[6 | 4]"), stock=stock
        )
        hand.play_turn()
        assert [e["tile"] for e in events(hand, "draw")] == [t(x) for x in drew]
        assert len(events(hand, "pass")) == (0 if drew else 1)
        assert len(hand.stock) == len(stock) - len(drew)


def test_option_inline_double_counts_single_along_and_across_are_separate_actions():
    """threes.inline_double_counts_single (§1.11 rule 4): ends [0 | 3]; 3-3 across on the 3 ->
    [0 | 3x], c = 6 -> +2; along -> c = 3 -> +1. Both are offered as separate actions."""
    rules = threes(2, inline_double_counts_single=True)
    for move, pts in (("3-3@R", 2), ("3-3@R/along", 1)):
        hand, script = position(
            rules, [["3-3", "6-6"], ["5-5"]], layout=line("[0 | 3]"), moves=[move], stock=SPARE
        )
        hand.play_turn()
        assert script.asked == [(0, ["3-3@R", "3-3@R/along"])]
        assert scored(hand) == [(0, pts, "count")]
        assert events(hand, "place")[0]["along"] is move.endswith("/along")


def test_option_target_ends_match_in_play():
    """threes.target = 5: A at 0 makes [6x | 3x] (+6 >= 5) -> match over at once, end reason
    `target`; under the default 33 the hand goes on."""
    for opts, over in (({"target": 5}, True), ({}, False)):
        rules = threes(2, **opts)
        hand, _ = position(rules, [["3-3", "0-1"], ["5-2"]], layout=line("[6x | 3]"), stock=SPARE)
        if over:
            with pytest.raises(MatchOver):
                hand.play_turn()
            assert hand.record.end_reason == "target" and hand.record.winner == 0
        else:
            hand.play_turn()
            assert rules.target == 33 and not hand.over
        assert hand.scores == [6, 0]


def test_option_check_only_at_hand_end_plays_the_hand_out():
    """threes.check_only_at_hand_end, target 5: A's last tile makes [6x | 3x] (+6); the hand is
    not stopped: domino +2 -> 8, end reason `domino`, and A wins at the hand end. Without the
    option: end reason `target`, no domino award."""
    for opts, reason, pts in (
        ({"check_only_at_hand_end": True}, "domino", [(0, 6, "count"), (0, 2, "domino")]),
        ({}, "target", [(0, 6, "count")]),
    ):
        rules = threes(2, target=5, **opts)
        hand, _ = position(rules, [["3-3"], ["5-2"]], layout=line("[6x | 3]"))
        try:
            hand.play_turn()
        except MatchOver:
            assert reason == "target"
        rec = hand.record
        assert rec.end_reason == reason and scored(hand) == pts
        mrec = MatchRecord(0)
        assert reference._match_over(rules, rec, hand.scores, None, mrec, 0)
        assert mrec.winner == 0
