"""RULES §11 (muggins): worked examples §11.E1–§11.E9, the §15 options of muggins (except the
spinner options), the leads of §11.4 / §11.5, drawing UNTIL_PLAYABLE with reserve 2 (§11.7)
and the match end of §1.14, on the reference engine."""

import pytest

from dominosim.game import reference, seeding
from dominosim.game.reference import Hand, MatchOver, MatchRecord, choose_leader
from dominosim.game.variants import make_rules

from helpers import ends_of, events, line, position, scored, scripted_match, t

# undealt tiles: more than the 2 reserved ones, so no block can happen in counting examples
SPARE = ["3-3", "1-6", "1-5"]
# exactly the 2 reserved tiles: nothing is drawable (§11.3)
RESERVED = ["0-2", "1-2"]


def muggins(players=2, **opts):
    return make_rules("muggins", players, **opts)


def lead(hand, prev=None):
    """The engine's own lead rule (§11.4 / §11.5), then the lead turn."""
    leader, tile = choose_leader(hand, prev)
    hand.record.leader = leader
    hand.lead(leader, tile)
    return leader


# --------------------------------------------------------------------------------------------
# worked examples §11.E1–§11.E4: counting
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "a_hand, b_hand, pts",
    [
        (["6-4", "0-1"], ["5-3", "0-2"], 10),  # no double dealt: the highest tile, 6-4, leads
        (["5-5", "0-1"], ["4-4", "6-3"], 10),  # the highest double dealt, 5-5, leads
        (["5-0", "0-1"], ["1-2", "0-4"], 5),  # 5-0 (5 pips) outranks 0-4 (4 pips) (§1.2)
        (["4-1", "0-3"], ["2-3", "1-2"], 5),  # 4-1 (5, high 4) outranks 2-3 (5, high 3)
        (["3-2", "0-1"], ["0-4", "1-2"], 5),  # 3-2 (5, 3) outranks 0-4 (4, 4)
    ],
)
def test_11_E1_leads_score_like_any_placement(a_hand, b_hand, pts):
    """§11.E1: Leads 6-4, 5-5, 5-0, 4-1 and 3-2 -> +10, +10, +5, +5 and +5 respectively. The
    leader is A by §11.4 (highest double, else highest tile); the lead scores as any
    placement (c = a + b, §1.11 rule 1)."""
    hand, script = position(muggins(2), [a_hand, b_hand], stock=SPARE)
    assert lead(hand) == 0
    assert script.asked == []
    assert events(hand, "place")[0]["tile"] == t(a_hand[0])
    assert scored(hand) == [(0, pts, "count")]


def test_11_E2_sequence_of_counts():
    """§11.E2: Lead 5-5 -> +10. 5-0 on one side -> [0 | 5x], c = 10 -> +10. 0-0 on the 0 ->
    [0x | 5x], c = 10 -> +10. 5-6 on the 5-5 -> [0x | 6], c = 6 -> 0. 0-4 on the 0-0 ->
    [4 | 6], c = 10 -> +10."""
    hand, _ = position(
        muggins(2),
        [["5-5", "0-0", "0-4", "2-3"], ["5-0", "5-6", "1-2"]],
        stock=SPARE,
        moves=["0-5@L", "0-0@L"],
    )
    assert lead(hand) == 0  # A holds the highest double dealt
    seen = [(ends_of(hand), scored(hand)[-1][1])]
    for _ in range(4):
        n = len(scored(hand))
        hand.play_turn()
        seen.append((ends_of(hand), scored(hand)[-1][1] if len(scored(hand)) > n else 0))
    assert seen == [
        ("[5x | 5x]", 10),
        ("[0 | 5x]", 10),
        ("[0x | 5x]", 10),
        ("[0x | 6]", 0),
        ("[4 | 6]", 10),
    ]
    assert [s for s, _, _ in scored(hand)] == [0, 1, 0, 0]
    assert hand.scores == [30, 10]


def test_11_E3_ends_4x_6x_score_20():
    """§11.E3: Ends [4x | 6x] -> +20."""
    hand, _ = position(muggins(2), [["6-6", "0-1"], ["3-2"]], layout=line("[4x | 6]"), stock=SPARE)
    hand.play_turn()
    assert ends_of(hand) == "[4x | 6x]"
    assert scored(hand) == [(0, 20, "count")]


def test_11_E4_ends_2_3_score_5():
    """§11.E4: Ends [2 | 4]; 4-3 is placed on the 4, giving [2 | 3] -> +5."""
    hand, _ = position(muggins(2), [["4-3", "6-6"], ["5-5"]], layout=line("[2 | 4]"), stock=SPARE)
    hand.play_turn()
    assert ends_of(hand) == "[2 | 3]"
    assert scored(hand) == [(0, 5, "count")]


def test_11_4_highest_tile_tie_break_by_high_half():
    """§11.4 / §1.2: with no double dealt, of 3-2 (A) and 4-1 (B), both 5 pips, 4-1 ranks
    higher (larger high half): B leads it and scores +5."""
    hand, _ = position(muggins(2), [["3-2", "0-1"], ["4-1", "0-2"]], stock=SPARE)
    assert lead(hand) == 1
    assert events(hand, "place")[0]["tile"] == t("4-1")
    assert scored(hand) == [(1, 5, "count")]


def test_11_8_points_only_on_multiples_of_5():
    """§11.8: c = 7 scores nothing (no rounding of c, no partial credit)."""
    hand, _ = position(muggins(2), [["4-5", "6-6"], ["5-5"]], layout=line("[2 | 4]"), stock=SPARE)
    hand.play_turn()
    assert ends_of(hand) == "[2 | 5]" and scored(hand) == []


# --------------------------------------------------------------------------------------------
# worked examples §11.E5–§11.E9: settlement
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "b_hand, pts",
    [(["6-6", "6-5", "4-0"], 25), (["6-6", "6-5", "4-1"], 30)],
)
def test_11_E5_domino_rounds_loser_hand_to_fives(b_hand, pts):
    """§11.E5: 2 players; A goes out. B 27 -> A +25. B 28 -> A +30. (A's last tile 2-3 on the
    2 leaves [1 | 3], c = 4: nothing in play.)"""
    hand, _ = position(muggins(2), [["2-3"], b_hand], layout=line("[1 | 2]"), stock=SPARE)
    hand.play_turn()
    rec = hand.record
    assert rec.end_reason == "domino" and rec.went_out == 0 and rec.winner == 0
    assert scored(hand) == [(0, pts, "domino")]


def test_11_E6_domino_rounds_each_side_separately():
    """§11.E6: 3 players; A goes out; B 13, C 13 -> A +30 (15 + 15, not round5(26) = 25)."""
    hand, _ = position(
        muggins(3), [["2-3"], ["6-6", "1-0"], ["6-5", "2-0"]], layout=line("[1 | 2]"), stock=SPARE
    )
    hand.play_turn()
    assert hand.record.pips == [0, 13, 13]
    assert scored(hand) == [(0, 30, "domino")]


# §11.E7: A 7, B 19, C 12. C plays 2-5 on the 5: [0 | 2]; nobody holds a 0 or a 2; only the 2
# reserved tiles remain -> the engine blocks the hand; C is the fish-maker.
E7_HANDS = [["3-4"], ["6-6", "6-1"], ["2-5", "5-5", "1-1"]]


def e7_block(**opts):
    hand, script = position(
        muggins(3, **opts),
        E7_HANDS,
        layout=line("[0 | 5]"),
        to_move=2,
        moves=["2-5@R"],
        stock=RESERVED,
    )
    hand.play_turn()
    rec = hand.record
    assert script.asked == [(2, ["5-2@R", "5-5@R"])]
    assert ends_of(hand) == "[0 | 2]"
    assert rec.end_reason == "blocked" and rec.fish_maker == 2 and rec.pips == [7, 19, 12]
    return hand


def test_11_E7_block_lowest_scores_rounded_difference():
    """§11.E7: Block. A 7, B 19, C 12 -> A +round5(24) = +25."""
    hand = e7_block()
    assert scored(hand) == [(0, 25, "block")] and hand.record.winner == 0


def test_11_E8_no_rounding_block_difference():
    """§11.E8: `muggins_no_rounding`. 11.E7 -> A +24."""
    hand = e7_block(muggins_no_rounding=True)
    assert scored(hand) == [(0, 24, "block")]


def test_option_no_rounding_domino():
    """muggins_no_rounding at a domino: §11.E5 with B 27 -> A +27 (default +25)."""
    hand, _ = position(
        muggins(2, muggins_no_rounding=True),
        [["2-3"], ["6-6", "6-5", "4-0"]],
        layout=line("[1 | 2]"),
        stock=SPARE,
    )
    hand.play_turn()
    assert scored(hand) == [(0, 27, "domino")]


def test_11_E9_block_difference_per_opponent():
    """§11.E9: `muggins_block_difference_per_opponent`. 11.E7 -> first A +15
    (round5(12) + round5(5) = 10 + 5), then C +5 (round5(19 - 12) = 5); B scores 0."""
    hand = e7_block(muggins_block_difference_per_opponent=True)
    assert scored(hand) == [(0, 15, "block"), (2, 5, "block")]
    assert hand.record.winner == 0


def test_option_block_difference_per_opponent_ties_in_seat_order_after_fish_maker():
    """muggins_block_difference_per_opponent: sides score in ascending order of pip total;
    equal totals score in seat order starting after the fish-maker. 4 players: seat 2 plays
    5-0 on the 5: [0 | 0] (c = 0), and blocks the hand. Pips: seat 0 = 5, seat 1 = 20,
    seat 2 = 14, seat 3 = 5. Seats 3 and 0 tie at 5: seat 3 (right after the fish-maker)
    scores first, round5(15) + round5(9) = 15 + 10 = 25, then seat 0 the same, then seat 2
    round5(6) = 5; seat 1 scores nothing. Nobody wins the hand (tie for lowest)."""
    hands = [["1-4"], ["6-6", "4-4"], ["5-0", "6-1", "4-3"], ["2-3"]]
    hand, _ = position(
        muggins(4, muggins_block_difference_per_opponent=True),
        hands,
        layout=line("[0 | 5]"),
        to_move=2,
        moves=["0-5@R"],
        stock=RESERVED,
    )
    hand.play_turn()
    rec = hand.record
    assert ends_of(hand) == "[0 | 0]"
    assert rec.end_reason == "blocked" and rec.fish_maker == 2 and rec.pips == [5, 20, 14, 5]
    assert scored(hand) == [(3, 25, "block"), (0, 25, "block"), (2, 5, "block")]
    assert rec.winner is None


def test_option_block_difference_per_opponent_stops_when_target_reached():
    """§1.14: awards are added event by event; the first one that reaches the target ends the
    match, and the later ones are not made. §11.E9 with target 15: A +15 ends it; C gets
    nothing; the end reason stays `blocked`."""
    hand, script = position(
        muggins(3, muggins_block_difference_per_opponent=True, target=15),
        E7_HANDS,
        layout=line("[0 | 5]"),
        to_move=2,
        moves=["2-5@R"],
        stock=RESERVED,
    )
    with pytest.raises(MatchOver):
        hand.play_turn()
    assert scored(hand) == [(0, 15, "block")]
    assert hand.record.end_reason == "blocked"


# --------------------------------------------------------------------------------------------
# §11.4 / §11.5 leads, §11.7 drawing
# --------------------------------------------------------------------------------------------


def test_11_5_winner_leads_any_tile_after_no_winner_11_4(monkeypatch):
    """§11.4 / §11.5, 3 players, target 10.
    Hand 1: A holds the highest double dealt (6-6) and leads it (c = 12); B goes out with 6-1:
    [6x | 1], c = 13; domino: round5(A 3) + round5(C 2) = 5 + 0 -> B +5.
    Hand 2: B, the winner, leads any tile (1-3, although A holds 5-5 and C 4-4); nobody holds
    a 1 or a 3 -> blocked; A 10, B 10, C 10 -> no winner.
    Hand 3: no winner, so §11.4: C holds the highest double (5-5) and leads it: +10 -> C 10,
    the match ends (end reason `target`)."""
    deals = [
        ([["6-6", "1-2"], ["6-1"], ["0-2"]], []),
        ([["5-5"], ["1-3", "6-4"], ["4-4", "2-0"]], []),
        ([["2-2", "6-5"], ["1-2"], ["5-5", "0-1"]], []),
    ]
    m = scripted_match(monkeypatch, muggins(3, target=10), deals, moves=["1-6@R", "1-3@L"])
    h1, h2, h3 = m.hands
    assert [h.leader for h in m.hands] == [0, 1, 2]
    assert h1.end_reason == "domino" and h1.points == [0, 5, 0]
    assert h2.end_reason == "blocked" and h2.winner is None and h2.pips == [10, 10, 10]
    assert h2.events[1]["tile"] == t("1-3")
    assert h3.end_reason == "target" and h3.points == [0, 0, 10]
    assert m.winner == 2 and m.scores == [0, 5, 10]


@pytest.mark.parametrize(
    "stock, drew, placed",
    [
        (["4-4", "3-3", "6-2", "0-0", "5-5"], ["4-4", "3-3", "6-2"], True),
        (["4-4", "3-3", "6-2", "0-0"], ["4-4", "3-3"], False),
    ],
)
def test_11_7_until_playable_with_reserve_2(stock, drew, placed):
    """§11.7: a player who cannot play draws one tile at a time until one fits, then places it;
    the last 2 stock tiles are never drawn, and when the drawable tiles run out he passes."""
    hand, _ = position(
        muggins(2),
        [["1-1"], ["6-5", "5-0"]],
        layout=line("[6 | 2]"),
        stock=stock,
        moves=["6-2@R"] if placed else [],
    )
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t(x) for x in drew]
    assert len(hand.stock) == len(stock) - len(drew)
    if placed:
        assert events(hand, "place")[0]["tile"] == t("6-2") and ends_of(hand) == "[6 | 6]"
    else:
        assert [e["seat"] for e in events(hand, "pass")] == [0] and not hand.over


# --------------------------------------------------------------------------------------------
# §15 options
# --------------------------------------------------------------------------------------------


def test_option_partnership_domino_scores_round5_of_the_team_total():
    """muggins.partnership: A2 (seat 2) goes out; B1 13 + B2 13 = team B 26 -> team A
    +round5(26) = +25 (A1's tiles are his own team's). Individually seat 2 would score
    round5(0) + round5(13) + round5(13) = 30."""
    hands = [["0-0"], ["6-6", "1-0"], ["2-3"], ["6-5", "2-0"]]
    for part, expect in ((True, [(0, 25, "domino")]), (False, [(2, 30, "domino")])):
        hand, _ = position(
            muggins(4, partnership=part), hands, layout=line("[1 | 2]"), to_move=2, stock=SPARE
        )
        hand.play_turn()
        assert hand.record.end_reason == "domino" and hand.record.went_out == 2
        assert scored(hand) == expect


def test_option_partnership_count_goes_to_team():
    """muggins.partnership: B2 (seat 3) makes [4x | 6x] -> team B (side 1) +20."""
    hand, _ = position(
        muggins(4, partnership=True),
        [["0-1"], ["2-3"], ["5-5"], ["6-6", "1-2"]],
        layout=line("[4x | 6]"),
        to_move=3,
        stock=SPARE,
    )
    hand.play_turn()
    assert scored(hand) == [(1, 20, "count")] and hand.scores == [0, 20]


def test_option_deal_7_all():
    """muggins_deal_7_all: 7 each for every player count; with 4 players there is no stock
    (default 5 each and a stock of 8)."""
    for opts, size, stock in (({"muggins_deal_7_all": True}, 7, 0), ({}, 5, 8)):
        rules = muggins(4, **opts)
        hand = Hand.deal(rules, seed=3, match_id=0, hand_index=0)
        assert [len(h) for h in hand.hands] == [size] * 4 and len(hand.stock) == stock
    hand = Hand.deal(muggins(3, muggins_deal_7_all=True), seed=3, match_id=0, hand_index=0)
    assert [len(h) for h in hand.hands] == [7] * 3 and len(hand.stock) == 7


def test_option_lead_by_lot():
    """muggins.lead_by_lot: the seat chosen by lot (B here) leads any tile of his choice, even
    though A holds 6-6; later hands too, whoever won. By default A leads 6-6."""
    seed = next(s for s in range(1000) if seeding.lot(s, 2, 0, 0) == 1)
    hands = [["6-6", "0-2"], ["1-4", "3-5"]]
    hand, script = position(muggins(2, lead_by_lot=True), hands, stock=SPARE, moves=["1-4@L"])
    hand.seed = seed
    assert lead(hand) == 1
    assert script.asked == [(1, ["4-1@L", "5-3@L"])]
    assert scored(hand) == [(1, 5, "count")]
    # a later hand: still by lot, not the previous winner
    prev = reference.PrevHand(
        leader=1, winner=0, went_out=0, fish_maker=None, blocked=False, seat_pips=[0, 9]
    )
    hand, _ = position(muggins(2, lead_by_lot=True), hands, stock=SPARE)
    hand.seed = seed
    assert choose_leader(hand, prev) == (1, None)
    hand, script = position(muggins(2), hands, stock=SPARE)
    hand.seed = seed
    assert lead(hand) == 0 and script.asked == []
    assert events(hand, "place")[0]["tile"] == t("6-6")


def test_option_reserve_k_0_whole_stock_drawable():
    """muggins.reserve_k = 0: with 2 stock tiles A draws 4-4, then 6-2, and places it; under
    the default reserve of 2 he draws nothing and passes."""
    stock = ["4-4", "6-2"]
    for opts, drew in (({"reserve_k": 0}, ["4-4", "6-2"]), ({}, [])):
        hand, _ = position(
            muggins(2, **opts),
            [["1-1"], ["6-5", "5-0"]],
            layout=line("[6 | 2]"),
            stock=stock,
            moves=["6-2@R"] if drew else [],
        )
        hand.play_turn()
        assert [e["tile"] for e in events(hand, "draw")] == [t(x) for x in drew]
        assert bool(events(hand, "pass")) is (not drew)


def test_option_may_draw_when_able():
    """muggins.may_draw_when_able: A holds a playable 1-2 but may first draw, one tile at a
    time, while drawable tiles remain (2 of 4, reserve 2); then he must place. By default the
    single legal placement is made without a question."""
    stock = ["4-4", "3-3", "0-0", "5-5"]
    hand, script = position(
        muggins(2, may_draw_when_able=True),
        [["1-2", "0-6"], ["6-5"]],
        layout=line("[5 | 1]"),
        stock=stock,
        moves=["draw", "draw"],
    )
    hand.play_turn()
    assert script.asked == [(0, ["2-1@R", "draw"]), (0, ["2-1@R", "draw"])]
    assert [e["tile"] for e in events(hand, "draw")] == [t("4-4"), t("3-3")]
    assert ends_of(hand) == "[5 | 2]" and len(hand.stock) == 2
    # he may stop drawing and place at any point
    hand, script = position(
        muggins(2, may_draw_when_able=True),
        [["1-2", "0-6"], ["6-5"]],
        layout=line("[5 | 1]"),
        stock=stock,
        moves=["draw", "2-1@R"],
    )
    hand.play_turn()
    assert len(events(hand, "draw")) == 1 and ends_of(hand) == "[5 | 2]"
    hand, script = position(
        muggins(2), [["1-2", "0-6"], ["6-5"]], layout=line("[5 | 1]"), stock=stock
    )
    hand.play_turn()
    assert script.asked == [] and events(hand, "draw") == []


def test_option_target_ends_match_in_play_no_settlement():
    """muggins.target = 20 (§1.14): A at 0 places his last tile 6-6 on [4x | 6]: +20 reaches
    the target: the match ends at once, end reason `target`, no domino award. Under the
    default target 100 the domino award follows (B 5 -> +5)."""
    for opts, reason, pts in (
        ({"target": 20}, "target", [(0, 20, "count")]),
        ({}, "domino", [(0, 20, "count"), (0, 5, "domino")]),
    ):
        hand, _ = position(
            muggins(2, **opts), [["6-6"], ["3-2"]], layout=line("[4x | 6]"), stock=SPARE
        )
        try:
            hand.play_turn()
        except MatchOver:
            assert reason == "target"
        rec = hand.record
        assert rec.end_reason == reason and scored(hand) == pts
        assert [e["reason"] for e in events(hand, "hand_end")] == [reason]


def test_option_check_only_at_hand_end():
    """muggins.check_only_at_hand_end, target 20: the same placement does not stop the hand;
    domino +5 -> 25, end reason `domino`, and A wins at the hand end. If B also stood at 25,
    the tie for the highest total would mean another hand."""
    rules = muggins(2, target=20, check_only_at_hand_end=True)
    hand, _ = position(rules, [["6-6"], ["3-2"]], layout=line("[4x | 6]"), stock=SPARE)
    hand.play_turn()
    rec = hand.record
    assert rec.end_reason == "domino"
    assert scored(hand) == [(0, 20, "count"), (0, 5, "domino")]
    mrec = MatchRecord(0)
    assert reference._match_over(rules, rec, [25, 0], None, mrec, 0) and mrec.winner == 0
    assert not reference._match_over(rules, rec, [25, 25], None, MatchRecord(0), 0)
