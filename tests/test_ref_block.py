"""RULES §12 (block) worked examples and §15 block options on the reference engine."""

import pytest

from dominosim.game.reference import (
    Hand,
    MatchOver,
    MatchRecord,
    PrevHand,
    _match_over,
    choose_leader,
    first_hand_leader,
    play_match,
)
from dominosim.game.variants import make_rules
from dominosim.strategy import get

from helpers import (
    ends_of,
    events,
    events_of,
    highest_double_holder,
    lead_event,
    line,
    position,
    prev_of,
    run,
    scored,
    t,
)

# --- worked examples ------------------------------------------------------------------------


def test_12_E1_domino_out_sum():
    """§12.E1: 2 players; A goes out; B {6-5, 2-0} -> A +13."""
    rules = make_rules("block", 2)
    hand, _ = position(rules, [["3-4"], ["6-5", "2-0"]], layout=line("[3 | 1]"), to_move=0)
    assert run(hand) is None
    rec = hand.record
    assert rec.end_reason == "domino" and rec.went_out == 0 and rec.winner == 0
    assert scored(hand) == [(0, 13, "domino")]


# §12.E2 fish: A places 1-6 on the 1 leaving [6 | 6]; nobody holds a 6.
# A {0-5} = 5, B {4-5} = 9, C {5-5, 0-4} = 14.
E2_HANDS = [["1-6", "0-5"], ["4-5"], ["5-5", "0-4"]]


def fish_e2(**opts):
    rules = make_rules("block", 3, **opts)
    hand, _ = position(rules, E2_HANDS, layout=line("[6 | 1]"), to_move=0, moves=["1-6@R"])
    assert run(hand) is None
    assert ends_of(hand) == "[6 | 6]"
    assert hand.record.end_reason == "blocked" and hand.record.fish_maker == 0
    assert hand.record.pips == [5, 9, 14]
    return hand


def test_12_E2_fish_lowest_scores_block_diff():
    """§12.E2: Fish. A 5, B 9, C 14 -> A +18 (23 - 5)."""
    hand = fish_e2()
    assert hand.record.winner == 0
    assert scored(hand) == [(0, 18, "block")]


def test_12_E3_fish_tie_for_lowest_scores_nothing():
    """§12.E3: Fish. A 5, B 5, C 20 -> no score; hand winner none."""
    rules = make_rules("block", 3)
    hands = [["1-6", "0-5"], ["1-4"], ["5-5", "4-4", "1-1"]]
    hand, _ = position(rules, hands, layout=line("[6 | 1]"), to_move=0, moves=["1-6@R"])
    assert run(hand) is None
    rec = hand.record
    assert rec.blocked and rec.pips == [5, 5, 20]
    assert rec.winner is None and scored(hand) == []
    assert events(hand, "hand_end")[0]["winner"] is None


def test_12_E4_no_double_dealt_highest_tile_leads():
    """§12.E4: 2 players, no double dealt. A holds 5-4, B holds 6-3, and 6-5 and 6-4 are
    undealt -> B leads 6-3."""
    rules = make_rules("block", 2)
    hands = [["5-4", "0-1", "0-2"], ["6-3", "1-2", "0-3"]]
    hand = Hand.from_position(rules, hands, stock=["6-5", "6-4"], strategies=[get("random")] * 2)
    assert first_hand_leader(hand) == (1, t("6-3"))
    hand.play(None)
    assert hand.record.leader == 1
    assert lead_event(hand) == (1, t("6-3"))


def test_12_4_highest_double_leads_in_every_hand():
    """§12.4/§12.5: the holder of the highest double leads it, in later hands too (even when
    the previous hand had a winner)."""
    rules = make_rules("block", 3)
    hands = [["2-2", "0-1"], ["5-5", "0-2"], ["4-4", "6-5"]]
    hand = Hand.from_position(rules, hands, strategies=[get("random")] * 3)
    prev = PrevHand(
        leader=0, winner=2, went_out=2, fish_maker=None, blocked=False, seat_pips=[0, 0, 0]
    )
    assert choose_leader(hand, prev) == (1, t("5-5"))
    hand.play(prev)
    assert lead_event(hand) == (1, t("5-5"))


@pytest.mark.parametrize(
    "option, points",
    [("fish_score_sum_only", 23), ("fish_difference_per_opponent", 13)],
)
def test_12_E5_fish_score_options(option, points):
    """§12.E5: fish_score_sum_only: 12.E2 -> A +23. fish_difference_per_opponent: 12.E2 -> A +13
    ((9 - 5) + (14 - 5))."""
    hand = fish_e2(**{option: True})
    assert hand.record.winner == 0
    assert scored(hand) == [(0, points, "block")]


def test_12_E5_difference_per_opponent_differs_from_block_diff_with_two_opponents():
    """fish_difference_per_opponent subtracts the winner's total once per opponent: with A 5,
    B 9, C 14 that is 13, where the default subtracts it once (18)."""
    assert scored(fish_e2())[0][1] - scored(fish_e2(fish_difference_per_opponent=True))[0][1] == 5


def test_12_E6_block_detected_at_once_fish_maker_A_no_passes():
    """§12.E6: A placement by A leaves ends [3 | 3] and no hand holds a 3 -> blocked at once."""
    rules = make_rules("block", 2)
    hand, _ = position(
        rules, [["5-3", "6-6"], ["1-1", "0-2"]], layout=line("[3 | 5]"), to_move=0, moves=["5-3@R"]
    )
    try:
        hand.play_turn()
    except MatchOver:
        pass
    assert ends_of(hand) == "[3 | 3]"
    rec = hand.record
    assert rec.end_reason == "blocked" and rec.blocked
    assert rec.fish_maker == 0
    assert rec.passes == 0 and events(hand, "pass") == []
    # lowest-hand rule: A 12, B 4 -> B scores 12 - 4 = 8 (§12.10)
    assert scored(hand) == [(1, 8, "block")]


# --- §12.7 turn: forced play, no drawing ------------------------------------------------------


def test_12_7_no_drawing_player_who_cannot_play_passes():
    """§12.7/§12.3: a player who cannot play passes; undealt tiles are never drawn."""
    rules = make_rules("block", 2)
    hand, _ = position(
        rules,
        [["3-3", "3-0"], ["6-6", "4-4"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=["5-1", "3-2"],
    )
    hand.play_turn()
    assert events(hand, "pass") == [{"type": "pass", "seat": 1}]
    assert events(hand, "draw") == [] and hand.record.draws == 0
    assert len(hand.stock) == 2 and not hand.over


def test_12_7_forced_play_offers_only_placements():
    """§1.6 forced play: a player holding a playable tile is asked only among placements."""
    rules = make_rules("block", 2)
    hand, script = position(
        rules,
        [["3-1", "5-2", "6-6"], ["1-1", "0-0"]],
        layout=line("[3 | 5]"),
        to_move=0,
        moves=["5-2@R"],
    )
    hand.play_turn()
    assert script.asked == [(0, ["3-1@L", "5-2@R"])]
    assert hand.record.passes == 0


def test_12_no_draw_events_in_dealt_matches():
    """§12.3: with 14 tiles undealt (2 players), a whole match never draws."""
    rules = make_rules("block", 2)
    for seed in range(3):
        m = play_match(rules, seed, 0, [get("random")] * 2)
        for rec in m.hands:
            assert rec.draws == 0
            assert all(e["type"] != "draw" for e in rec.events)


# --- §15 options ---------------------------------------------------------------------------


def test_option_partnership_domino_scores_opponents_only():
    """block.partnership (§1.4): A1 goes out; B1 11, A2 8, B2 2 -> team A +13 (the partner's
    tiles do not count); individually A would score 21."""
    hands = [["3-4"], ["6-5"], ["4-4"], ["2-0"]]
    for opts, expect in (({}, [(0, 21, "domino")]), ({"partnership": True}, [(0, 13, "domino")])):
        rules = make_rules("block", 4, **opts)
        hand, _ = position(rules, hands, layout=line("[3 | 1]"), to_move=0)
        assert run(hand) is None
        assert scored(hand) == expect


def test_option_partnership_either_partner_going_out_ends_hand():
    """§1.4: the hand ends when either partner goes out; A2 (seat 2) out -> team A scores."""
    rules = make_rules("block", 4, partnership=True)
    hands = [["6-5", "0-0"], ["2-0"], ["3-4"], ["1-1"]]
    hand, _ = position(rules, hands, layout=line("[3 | 6]"), to_move=2)
    assert run(hand) is None
    rec = hand.record
    assert rec.went_out == 2 and rec.winner == 0
    assert scored(hand) == [(0, 2 + 2, "domino")]


# Fish by seat ``maker`` leaving [6 | 6]: A1 3, B1 5, A2 10, B2 4 (teams A 13, B 9).
def partnership_fish(maker, b2="0-4", **opts):
    rules = make_rules("block", 4, **opts)
    hands = [["0-3"], ["0-5"], ["5-5"], [b2]]
    hands[maker] = hands[maker] + ["1-6"]
    hand, _ = position(rules, hands, layout=line("[6 | 1]"), to_move=maker, moves=["1-6@R"])
    assert run(hand) is None
    assert hand.record.blocked and hand.record.fish_maker == maker
    return hand


def test_option_partnership_fish_compares_team_totals():
    """block.partnership: fish with A1 3, B1 5, A2 10, B2 4. Individually A1 is lowest and
    scores 19 - 3 = 16; as teams B 9 < A 13, so team B scores 13 - 9 = +4."""
    assert scored(partnership_fish(0)) == [(0, 16, "block")]
    hand = partnership_fish(0, partnership=True)
    assert hand.record.pips == [13, 9]
    assert hand.record.winner == 1
    assert scored(hand) == [(1, 4, "block")]


@pytest.mark.parametrize(
    "maker, b2, leader",
    [
        (0, "0-4", 3),  # B2 4 < B1 5: the partner with the lower pip total
        (0, "1-4", 1),  # B1 5 = B2 5: first of them after the fish-maker (seat 0) -> seat 1
        (2, "1-4", 3),  # tie, fish-maker seat 2 -> seat 3
    ],
)
def test_1_4_team_leads_after_a_block(maker, b2, leader):
    """§1.4 team leads with block.partnership + lead_winner_of_previous_hand: after a block the
    winning team leads through the partner with the lower pip total; on a tie, the first of
    them in seat order after the fish-maker."""
    opts = dict(partnership=True, lead_winner_of_previous_hand=True)
    prev_hand = partnership_fish(maker, b2, **opts)
    assert prev_hand.record.winner == 1
    rules = make_rules("block", 4, **opts)
    hands = [["6-6", "0-1"], ["5-5", "0-2"], ["4-4", "1-2"], ["3-3", "1-3"]]
    hand = Hand.from_position(rules, hands, strategies=[get("random")] * 4)
    prev = prev_of(prev_hand)
    assert choose_leader(hand, prev) == (leader, None)
    hand.play(prev)
    assert lead_event(hand)[0] == leader


def test_option_block_deal_7_all():
    """block.block_deal_7_all: 7 each for every player count; with 4 players the whole set is
    dealt (default 5 each)."""
    for opts, size in (({}, 5), ({"block_deal_7_all": True}, 7)):
        for players in (3, 4):
            rules = make_rules("block", players, **opts)
            m = play_match(rules, 1, 0, [get("random")] * players, unit="hand")
            deal = events_of(m.hands[0], "deal")[0]
            assert [len(h) for h in deal["hands"]] == [size] * players
            assert len(deal["stock"]) == 28 - size * players


def test_option_lead_winner_of_previous_hand_built_position():
    """block.lead_winner_of_previous_hand: the previous hand's winner (C, who went out) leads
    any tile of his choice; by default the holder of the highest double (B, 5-5) leads it."""
    hands = [["2-2", "0-1"], ["5-5", "0-2"], ["4-4", "6-5"]]
    prev = PrevHand(
        leader=0, winner=2, went_out=2, fish_maker=None, blocked=False, seat_pips=[3, 7, 0]
    )
    rules = make_rules("block", 3, lead_winner_of_previous_hand=True)
    hand, _ = position(rules, hands, moves=["6-5@L"])
    assert choose_leader(hand, prev) == (2, None)
    hand.lead(2, None)
    assert lead_event(hand) == (2, t("6-5"))
    # after a hand without a winner, §12.4 applies
    nowin = PrevHand(0, None, None, 1, True, [3, 3, 9])
    assert choose_leader(hand, nowin) == (1, t("5-5"))
    default = Hand.from_position(make_rules("block", 3), hands)
    assert choose_leader(default, prev) == (1, t("5-5"))


def test_option_lead_winner_of_previous_hand_in_matches():
    """Records of whole matches: by default every hand's lead is the highest double (or highest
    tile) dealt (§12.5); with the option, every hand after one with a winner is led by the seat
    that went out, or through the team rule after a fish."""
    checked = 0
    for opts in ({}, {"lead_winner_of_previous_hand": True}):
        rules = make_rules("block", 3, target=120, **opts)
        differs = 0
        for seed in range(4):
            m = play_match(rules, seed, 0, [get("random")] * 3)
            for k, rec in enumerate(m.hands):
                deal = events_of(rec, "deal")[0]["hands"]
                lead = next(e for e in rec.events if e["type"] == "place")
                seat, tile = highest_double_holder(deal)
                prev = m.hands[k - 1] if k else None
                if opts and prev is not None and prev.winner is not None:
                    exp = prev.went_out
                    if exp is None:  # fish: the only seat of the winning side
                        exp = prev.winner
                    assert rec.leader == lead["seat"] == exp
                    differs += (lead["seat"], lead["tile"]) != (seat, tile)
                else:
                    assert (rec.leader, lead["seat"], lead["tile"]) == (seat, seat, tile)
                checked += 1
        if opts:
            assert differs > 0
    assert checked > 8


def test_option_target_award_reaching_target_ends_match():
    """block.target (§1.14): A has 40 and scores 13 by going out -> 53 >= 50 ends the match
    at once (end reason stays domino); with target 60 it does not."""
    hands = [["3-4"], ["6-5", "2-0"]]
    rules = make_rules("block", 2)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[40, 0])
    over = run(hand)
    assert isinstance(over, MatchOver) and over.args == (0,)
    assert hand.record.end_reason == "domino" and hand.scores == [53, 0]
    rules = make_rules("block", 2, target=60)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[40, 0])
    assert run(hand) is None and hand.scores == [53, 0]
    assert _match_over(rules, hand.record, hand.scores, None, MatchRecord(0), 0) is False


def test_option_target_in_matches_first_to_target_wins():
    """§1.14 / §12.11: a match ends with the first hand whose award brings a side to the
    target; that side wins, and no earlier hand left any side at the target."""
    for target in (20, 50):
        rules = make_rules("block", 2, target=target)
        for seed in range(3):
            m = play_match(rules, seed, 0, [get("random")] * 2)
            totals = [0, 0]
            for k, rec in enumerate(m.hands):
                for e in events_of(rec, "score"):
                    totals[e["side"]] += e["points"]
                if k < len(m.hands) - 1:
                    assert max(totals) < target
            assert max(totals) >= target and m.winner == totals.index(max(totals))
            assert m.scores == totals


def test_option_check_only_at_hand_end_tie_plays_another_hand():
    """block.check_only_at_hand_end (§1.14): A 37, B 50; A goes out +13 -> 50 : 50. By default
    A reaching 50 wins at once; with the option the tie at the top means another hand."""
    hands = [["3-4"], ["6-5", "2-0"]]
    rules = make_rules("block", 2)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[37, 0])
    assert isinstance(run(hand), MatchOver)
    rules = make_rules("block", 2, check_only_at_hand_end=True)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[37, 50])
    assert run(hand) is None and hand.scores == [50, 50]
    assert hand.record.end_reason == "domino"
    assert _match_over(rules, hand.record, hand.scores, None, MatchRecord(0), 0) is False
    # a unique highest total at or above the target wins after the hand
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[45, 49])
    assert run(hand) is None and hand.scores == [58, 49]
    mrec = MatchRecord(0)
    assert _match_over(rules, hand.record, hand.scores, None, mrec, 0) is True
    assert mrec.winner == 0 and mrec.scores == [58, 49]
