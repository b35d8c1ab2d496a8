"""RULES §5 (fives): worked examples §5.E1–§5.E8, the §15 options of fives, the end count of
§1.11 (rules 1, 2, 4 on a LINE) and the match end of §1.14, on the reference engine."""

import pytest

from dominosim.game import reference, tiles
from dominosim.game.reference import MatchOver, MatchRecord, choose_leader
from dominosim.game.variants import make_rules

from helpers import ends_of, events, line, position, scored, scripted_match, seed_with_lot, t

# --------------------------------------------------------------------------------------------
# local drivers
# --------------------------------------------------------------------------------------------


def lead(hand, prev=None):
    """The engine's own lead rule (§n.4 / §n.5), then the lead turn."""
    leader, tile = choose_leader(hand, prev)
    hand.record.leader = leader
    hand.lead(leader, tile)
    return leader


# undealt tiles left in the stock so that no block can happen in examples about counting
SPARE = ["4-4", "3-3", "2-0"]


def fives(players=2, **opts):
    return make_rules("fives", players, **opts)


# --------------------------------------------------------------------------------------------
# worked examples §5.E1–§5.E8
# --------------------------------------------------------------------------------------------


def test_5_E1_lead_4_1_counts_5_scores_1():
    """§5.E1: Lead 4-1 -> c = 5 -> +1 (§1.11 rule 1: a lone tile counts a + b)."""
    hand, _ = position(fives(), [["4-1", "6-6"], ["3-2"]], moves=["4-1@L"], stock=SPARE)
    hand.lead(0, None)
    assert events(hand, "place")[0]["lead"] is True
    assert scored(hand) == [(0, 1, "count")]
    assert hand.scores == [1, 0]


def test_5_E2_lead_5_5_counts_10_scores_2():
    """§5.E2: Lead 5-5 -> c = 10 -> +2 (§1.11 rule 1: a lone double counts 2v)."""
    hand, _ = position(fives(), [["5-5", "6-6"], ["3-2"]], moves=["5-5@L"], stock=SPARE)
    hand.lead(0, None)
    assert ends_of(hand) == "[5x | 5x]"
    assert scored(hand) == [(0, 2, "count")]


def test_5_E3_ends_5_and_5x_count_15_scores_3():
    """§5.E3: Ends [5 | 5x] -> c = 15 -> +3 (§1.11 rule 2: a double end counts both halves)."""
    hand, script = position(
        fives(), [["5-5", "0-1"], ["3-2"]], layout=line("[5 | 5]"), moves=["5-5@R"], stock=SPARE
    )
    hand.play_turn()
    assert script.asked == [(0, ["5-5@L", "5-5@R"])]
    assert ends_of(hand) == "[5 | 5x]"
    assert scored(hand) == [(0, 3, "count")]


def test_5_E4_ends_4x_6x_count_20_scores_4():
    """§5.E4: Ends [4x | 6x] -> c = 20 -> +4, the most a fives placement can score (§5.8)."""
    hand, _ = position(fives(), [["6-6", "0-1"], ["3-2"]], layout=line("[4x | 6]"), stock=SPARE)
    hand.play_turn()
    assert ends_of(hand) == "[4x | 6x]"
    assert scored(hand) == [(0, 4, "count")]


def test_5_E5_ends_6_3_count_9_scores_nothing():
    """§5.E5: Ends [6 | 3] -> c = 9 -> 0: points only on multiples of 5 (§5.8)."""
    hand, _ = position(fives(), [["1-3", "0-0"], ["2-2"]], layout=line("[6 | 1]"), stock=SPARE)
    hand.play_turn()
    assert ends_of(hand) == "[6 | 3]"
    assert scored(hand) == []
    assert hand.scores == [0, 0]


def test_5_E6_lead_0_0_counts_0_scores_nothing():
    """§5.E6: Lead 0-0 -> c = 0 -> 0 (c > 0 is required, although 0 mod 5 = 0)."""
    hand, _ = position(fives(), [["0-0", "6-6"], ["3-2"]], moves=["0-0@L"], stock=SPARE)
    hand.lead(0, None)
    assert scored(hand) == []


@pytest.mark.parametrize(
    "c_hand, expect, winner",
    [
        (["5-5", "1-1"], [(1, 1, "block")], 1),  # A 7, B 3, C 12 -> B +1
        (["0-3"], [], None),  # A 7, B 3, C 3 -> tie for lowest, no score (§5.10a)
    ],
)
def test_5_E7_block_lowest_pip_total_scores_1_tie_scores_nothing(c_hand, expect, winner):
    """§5.E7: Block. A 7, B 3, C 12 -> B +1. Block. A 7, B 3, C 3 -> no score.

    A's last placement 1-6 on the 1 leaves [6 | 6]; nobody holds a 6 and the stock is empty,
    so the engine finds the block itself (§1.12, §5.9)."""
    rules = fives(3)
    hand, _ = position(
        rules, [["1-6", "3-4"], ["1-2"], c_hand], layout=line("[6 | 1]"), moves=["1-6@R"]
    )
    hand.play_turn()
    rec = hand.record
    assert ends_of(hand) == "[6 | 6]"
    assert rec.end_reason == "blocked" and rec.fish_maker == 0
    assert rec.pips == [7, 3, tiles.hand_pips([t(x) for x in c_hand])]
    assert scored(hand) == expect  # c = 12 scored nothing in play
    assert rec.winner == winner


def test_5_E8_target_reached_in_play_ends_match():
    """§5.E8: 2 players, target 25; A 24, B 20. Ends [6 | 2]; A places his last tile 2-4 on the 2
    -> [6 | 4], c = 10 -> A +2 -> 26: the match is over at once; end reason `target`; no domino
    bonus and no block test (§1.14)."""
    rules = fives(2)
    assert rules.target == 25
    # B holds no 6 or 4 and the stock is empty: a block test would find a block
    hand, _ = position(rules, [["2-4"], ["1-1"]], layout=line("[6 | 2]"), scores=[24, 20])
    with pytest.raises(MatchOver):
        hand.play_turn()
    rec = hand.record
    assert ends_of(hand) == "[6 | 4]"
    assert scored(hand) == [(0, 2, "count")]
    assert hand.scores == [26, 20]
    assert rec.end_reason == "target" and not rec.blocked
    assert rec.winner == 0 and rec.went_out is None and rec.fish_maker is None
    assert [e["reason"] for e in events(hand, "hand_end")] == ["target"]
    mrec = MatchRecord(0)
    assert reference._match_over(rules, rec, hand.scores, None, mrec, 0)
    assert mrec.winner == 0


def test_5_E8_check_only_at_hand_end_scores_domino_and_wins_at_hand_end():
    """§5.E8 with `check_only_at_hand_end`: A +2, then domino +2 -> 28; end reason `domino`;
    A, the highest at 28 >= 25, wins the match."""
    rules = fives(2, check_only_at_hand_end=True)
    hand, _ = position(rules, [["2-4"], ["1-1"]], layout=line("[6 | 2]"), scores=[24, 20])
    hand.play_turn()  # no MatchOver
    rec = hand.record
    assert scored(hand) == [(0, 2, "count"), (0, 2, "domino")]
    assert hand.scores == [28, 20]
    assert rec.end_reason == "domino" and rec.went_out == 0 and rec.winner == 0
    mrec = MatchRecord(0)
    assert reference._match_over(rules, rec, hand.scores, None, mrec, 0)
    assert mrec.winner == 0 and mrec.scores == [28, 20]


# --------------------------------------------------------------------------------------------
# §1.14 match end, §5.5 leads, §5.7 drawing ONE
# --------------------------------------------------------------------------------------------


def test_1_14_end_of_hand_award_reaching_target_keeps_end_reason_domino():
    """§1.14: an end-of-hand award that reaches the target ends the match; the hand has already
    ended, so its end reason stays `domino`. A 23 of 25 goes out with 1-2 on the 1: [6 | 2],
    c = 8, nothing in play; domino +2 -> 25."""
    hand, _ = position(fives(2), [["1-2"], ["3-3"]], layout=line("[6 | 1]"), scores=[23, 0])
    with pytest.raises(MatchOver):
        hand.play_turn()
    rec = hand.record
    assert scored(hand) == [(0, 2, "domino")]
    assert rec.end_reason == "domino" and rec.went_out == 0 and rec.winner == 0


def test_5_5_lead_by_lot_then_next_after_previous_leader(monkeypatch):
    """§5.4 / §5.5: hand 1 is led by the seat chosen by lot; each later hand by the seat after
    the previous hand's leader. Every seat holds one tile (c not a multiple of 5), so each
    leader goes out on the lead and scores +2; with target 4 the match ends in hand 4, won by
    the first leader."""
    deal = ([["1-2"], ["1-3"], ["2-4"]], [])
    for lot_seat in (0, 1, 2):
        seed = seed_with_lot(3, lot_seat)
        m = scripted_match(monkeypatch, fives(3, target=4), [deal] * 4, seed=seed)
        assert [h.leader for h in m.hands] == [(lot_seat + k) % 3 for k in range(4)]
        assert [h.end_reason for h in m.hands] == ["domino"] * 4
        assert m.winner == lot_seat


def test_5_7_draw_one_unplayable_tile_is_kept_and_turn_passes():
    """§5.7 / §1.7 ONE: a player who cannot play draws exactly one tile; if it does not fit he
    keeps it and passes (the next stock tile, which would fit, is not drawn)."""
    hand, _ = position(
        fives(2), [["2-2"], ["6-0", "4-4"]], layout=line("[6 | 1]"), stock=["3-3", "6-5", "0-0"]
    )
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t("3-3")]
    assert [e["seat"] for e in events(hand, "pass")] == [0]
    assert sorted(hand.hands[0]) == sorted([t("2-2"), t("3-3")])
    assert len(hand.stock) == 2 and hand.to_move == 1


# --------------------------------------------------------------------------------------------
# §15 options
# --------------------------------------------------------------------------------------------


def test_option_partnership_points_go_to_teams():
    """fives.partnership (§1.4): A2 (seat 2) leads 5-5, c = 10 -> team A (side 0) +2; then B2
    (seat 3) places 5-0 on the right: [5x | 0], c = 10 -> team B (side 1) +2."""
    rules = fives(4, partnership=True)
    assert rules.sides == 2
    hand, _ = position(
        rules,
        [["6-6"], ["6-1"], ["5-5", "2-2"], ["5-0", "1-1"]],
        moves=["5-5@L", "0-5@R"],
        stock=SPARE,
    )
    hand.lead(2, None)
    hand.play_turn()  # seat 3
    assert scored(hand) == [(0, 2, "count"), (1, 2, "count")]
    assert hand.scores == [2, 2]
    # individually (no partnership) the same placements score for seats 2 and 3
    hand, _ = position(
        fives(4),
        [["6-6"], ["6-1"], ["5-5", "2-2"], ["5-0", "1-1"]],
        moves=["5-5@L", "0-5@R"],
        stock=SPARE,
    )
    hand.lead(2, None)
    hand.play_turn()
    assert scored(hand) == [(2, 2, "count"), (3, 2, "count")]


def test_option_partnership_block_uses_team_pip_totals():
    """fives.partnership: at a block the lowest *team* pip total scores +1 (§1.4). A1 1, B1 3,
    A2 10, B2 4: team A 11, team B 7 -> team B +1 (individually A1, with 1, would score)."""
    hands = [["0-1"], ["1-2"], ["5-5"], ["0-4", "6-3"]]
    for part, expect in ((True, [(1, 1, "block")]), (False, [(0, 1, "block")])):
        rules = fives(4, partnership=part)
        # B2 plays 3-6 on the 3: [6 | 6]; nobody holds a 6; the stock is empty -> blocked
        hand, _ = position(rules, hands, layout=line("[6 | 3]"), to_move=3, moves=["3-6@R"])
        hand.play_turn()
        assert hand.record.end_reason == "blocked" and hand.record.fish_maker == 3
        assert scored(hand) == expect


def test_option_lead_winner_of_previous_hand(monkeypatch):
    """fives.lead_winner_of_previous_hand: hand 2 is led by hand 1's winner (C, who went out),
    not by the seat after the leader (B); after hand 2 ends without a winner (block, tie),
    §5.5 applies: the seat after hand 2's leader, A, leads hand 3."""
    deals = [
        # hand 1: A leads 1-2, B passes, C goes out with 2-3 -> C +2
        ([["1-2", "6-6"], ["5-5"], ["2-3"]], []),
        # hand 2: C (the winner) leads 0-0 -> blocked at once; A 11, B 10, C 10 -> no winner
        # (under the default, B leads 6-4 instead: +2, domino +2 -> B 4 >= 3)
        ([["6-5"], ["6-4"], ["0-0", "5-5"]], []),
        # hand 3: A leads 6-4 -> c = 10, +2; domino +2 -> A 4 >= 3
        ([["6-4"], ["1-1"], ["2-2"]], []),
    ]
    seed = seed_with_lot(3, 0)
    m = scripted_match(
        monkeypatch,
        fives(3, target=3, lead_winner_of_previous_hand=True),
        deals,
        moves=["1-2@L", "0-0@L"],
        seed=seed,
    )
    assert [h.leader for h in m.hands] == [0, 2, 0]
    assert [h.winner for h in m.hands] == [2, None, 0]
    assert m.winner == 0 and m.scores == [4, 0, 2]
    m = scripted_match(monkeypatch, fives(3, target=3), deals, moves=["1-2@L"], seed=seed)
    assert [h.leader for h in m.hands] == [0, 1]
    assert m.winner == 1 and m.scores == [0, 4, 2]


def test_option_reserve_k_2_last_two_stock_tiles_are_never_drawn():
    """fives.reserve_k = 2 (§1.5): with 2 stock tiles, nothing is drawable: A passes and, since
    nobody can play, the hand is blocked at once (B 1 < A 3 -> B +1). By default A draws 6-3
    and must place it."""
    hands = [["1-2"], ["0-1"]]
    stock = ["6-3", "0-0"]
    hand, _ = position(fives(2, reserve_k=2), hands, layout=line("[6 | 6]"), stock=stock)
    hand.play_turn()
    assert events(hand, "draw") == []
    assert hand.record.end_reason == "blocked" and hand.record.passes == 1
    assert scored(hand) == [(1, 1, "block")]
    hand, script = position(fives(2), hands, layout=line("[6 | 6]"), stock=stock, moves=["3-6@R"])
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t("6-3")]
    assert script.asked == [(0, ["6-3@L", "6-3@R"])]
    assert ends_of(hand) == "[6 | 3]" and not hand.over


def test_option_inline_double_counts_single_along_and_across_are_separate_actions():
    """fives.inline_double_counts_single (§1.11 rule 4, §1.6): a double is placed across or
    along, two actions. Ends [0 | 5]: 5-5 across on the 5 -> [0 | 5x], c = 10 -> +2; along ->
    c = 0 + 5 = 5 -> +1. Without the option there is a single action, counting 2v."""
    rules = fives(2, inline_double_counts_single=True)
    for move, pts in (("5-5@R", 2), ("5-5@R/along", 1)):
        hand, script = position(
            rules, [["5-5", "6-6"], ["1-1"]], layout=line("[0 | 5]"), moves=[move], stock=SPARE
        )
        hand.play_turn()
        assert script.asked == [(0, ["5-5@R", "5-5@R/along"])]
        assert scored(hand) == [(0, pts, "count")]
    hand, script = position(
        fives(2), [["5-5", "6-6"], ["1-1"]], layout=line("[0 | 5]"), stock=SPARE
    )
    hand.play_turn()
    assert script.asked == [] and scored(hand) == [(0, 2, "count")]


def test_option_inline_double_lead_names_orientation():
    """inline_double_counts_single: the lead double also names its orientation (§1.6). A lone
    double counts 2v either way (§1.11 rule 1): 5-5 along -> +2. Then 5-0 on one side leaves a
    5 formed by a double laid along -> c = 5 + 0 -> +1 (across it would be 10 -> +2)."""
    rules = fives(2, inline_double_counts_single=True)
    for orient, second in (("/along", 1), ("", 2)):
        hand, script = position(
            rules, [["5-5", "6-6"], ["5-0", "1-1"]], moves=["5-5@L" + orient, "0-5@R"], stock=SPARE
        )
        hand.lead(0, None)
        hand.play_turn()
        seat, legal = script.asked[0]
        assert seat == 0 and sorted(legal) == ["5-5@L", "5-5@L/along", "6-6@L", "6-6@L/along"]
        assert scored(hand) == [(0, 2, "count"), (1, second, "count")]


def test_option_target_changes_when_the_match_ends():
    """fives.target = 3: A, at 1, places 6-6 on [4x | 6] -> c = 20, +4 -> 5 >= 3: the match
    ends at once with end reason `target`. Under the default target 25 play goes on."""
    for opts, over in (({"target": 3}, True), ({}, False)):
        hand, _ = position(
            fives(2, **opts),
            [["6-6", "0-1"], ["3-2"]],
            layout=line("[4x | 6]"),
            scores=[1, 0],
            stock=SPARE,
        )
        if over:
            with pytest.raises(MatchOver):
                hand.play_turn()
            assert hand.record.end_reason == "target" and hand.record.winner == 0
        else:
            hand.play_turn()
            assert not hand.over and hand.to_move == 1
        assert hand.scores == [5, 0]


def test_option_check_only_at_hand_end_tie_at_top_plays_another_hand(monkeypatch):
    """fives.check_only_at_hand_end (§1.14), target 2: A leads 5-5 (+2) and B answers 5-0
    (+2), both at the target; the hand is played out (block, A 5 = B 5: no score). The tie for
    the highest total means another hand: B, the seat after the leader, leads 6-4 (+2) and goes
    out (+2) -> B 6 wins. Without the option the match ends at A's lead (end reason
    `target`)."""
    deals = [
        ([["5-5", "2-3"], ["5-0", "1-4"]], []),
        ([["1-1"], ["6-4"]], []),
    ]
    seed = seed_with_lot(2, 0)
    m = scripted_match(
        monkeypatch,
        fives(2, target=2, check_only_at_hand_end=True),
        deals,
        moves=["5-5@L", "0-5@R"],
        seed=seed,
    )
    h1, h2 = m.hands
    assert h1.end_reason == "blocked" and h1.winner is None and h1.points == [2, 2]
    assert h2.leader == 1 and h2.end_reason == "domino" and h2.points == [0, 4]
    assert m.winner == 1 and m.scores == [2, 6]
    m = scripted_match(monkeypatch, fives(2, target=2), deals, moves=["5-5@L"], seed=seed)
    assert len(m.hands) == 1 and m.hands[0].end_reason == "target"
    assert m.winner == 0 and m.scores == [2, 0]
