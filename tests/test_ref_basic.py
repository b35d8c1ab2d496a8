"""RULES §8 (basic) worked examples and §15 basic options on the reference engine."""

from dominosim.game import seeding
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

from helpers import events, events_of, highest_double_holder, line, position, run, scored, t

# --- worked examples ------------------------------------------------------------------------


def test_8_E1_domino_out_sum():
    """§8.E1: A goes out; B 13, C 8 -> A +21."""
    rules = make_rules("basic", 3)
    hand, _ = position(
        rules, [["3-4"], ["6-5", "2-0"], ["4-4"]], layout=line("[3 | 1]"), stock=["6-6", "0-0"]
    )
    assert run(hand) is None
    rec = hand.record
    assert rec.end_reason == "domino" and rec.winner == 0 and rec.went_out == 0
    assert scored(hand) == [(0, 21, "domino")]


def block_hand(hands, **opts):
    """A places 1-6 on the 1 of [6 | 1], leaving [6 | 6]; nobody holds a 6; stock empty."""
    rules = make_rules("basic", 3, **opts)
    hands = [["1-6"] + hands[0], hands[1], hands[2]]
    hand, _ = position(rules, hands, layout=line("[6 | 1]"), moves=["1-6@R"])
    assert run(hand) is None
    assert hand.record.blocked and hand.record.fish_maker == 0
    return hand


def test_8_E2_block_lowest_scores_difference():
    """§8.E2: Block. A 9, B 4, C 15 -> B +20."""
    hand = block_hand([["4-5"], ["0-4"], ["5-5", "0-5"]])
    assert hand.record.pips == [9, 4, 15]
    assert hand.record.winner == 1
    assert scored(hand) == [(1, 20, "block")]


def test_8_E3_block_tie_for_lowest_no_score():
    """§8.E3: Block. A 4, B 4, C 15 -> no score; hand winner none."""
    hand = block_hand([["0-4"], ["1-3"], ["5-5", "0-5"]])
    assert hand.record.pips == [4, 4, 15]
    assert hand.record.winner is None and scored(hand) == []


def test_8_9_no_block_while_stock_drawable():
    """§8.9: the position of §8.E2 does not block while the stock holds a tile."""
    rules = make_rules("basic", 3)
    hands = [["1-6", "4-5"], ["0-4"], ["5-5", "0-5"]]
    hand, _ = position(rules, hands, layout=line("[6 | 1]"), moves=["1-6@R"], stock=["2-3"])
    hand.play_turn()
    assert not hand.over
    hand.play_turn()  # B draws 2-3 (the last tile), keeps it and passes
    assert [e["tile"] for e in events(hand, "draw")] == [t("2-3")]
    assert hand.over and hand.record.blocked and hand.record.fish_maker == 0
    # B passed with 4 + 5 = 9 -> A 9, B 9, C 15: tie for lowest, no score
    assert hand.record.pips == [9, 9, 15] and scored(hand) == []


def e4_hand(**opts):
    """Turns: C pass, A pass, B 4-5 on the right, C pass, A 5-1 -> [4 | 1], blocked.
    Penalties A 10, B 0, C 20; pips A 3, B 9, C 2."""
    rules = make_rules("basic", 3, **opts)
    hands = [["0-3", "5-1"], ["4-5", "3-6"], ["0-2"]]
    hand, _ = position(rules, hands, layout=line("[4 | 4]"), to_move=2, moves=["4-5@R"])
    assert run(hand) is None
    rec = hand.record
    assert rec.blocked and rec.fish_maker == 0
    assert [e["seat"] for e in events(hand, "pass")] == [2, 0, 2]
    assert rec.pips == [3, 9, 2]
    return hand


def test_8_E4_penalty_per_miss_block():
    """§8.E4: penalty_per_miss. Block with penalties A 10, B 0, C 20 and pips A 3, B 9, C 2 ->
    B wins and scores (10 + 20) - 0 = +30."""
    hand = e4_hand(penalty_per_miss=True)
    rec = hand.record
    assert rec.penalties == [10, 0, 20]
    assert [(e["seat"], e["points"]) for e in events(hand, "penalty")] == [
        (2, 10),
        (0, 10),
        (2, 10),
    ]
    assert rec.winner == 1
    assert scored(hand) == [(1, 30, "penalties")]


def test_8_E4_default_scores_pips():
    """The same hand without penalty_per_miss: C has the lowest pips (2) -> C +10 (3 + 9 - 2)."""
    hand = e4_hand()
    assert hand.record.winner == 2
    assert scored(hand) == [(2, 10, "block")]
    assert events(hand, "penalty") == []


def e5_hand(**opts):
    """A passes once, B twice, C three times; A goes out. B {1-6, 1-5} = 13, C {4-4} = 8."""
    rules = make_rules("basic", 3, **opts)
    hands = [["1-2", "2-3", "3-4"], ["0-1", "1-6", "1-5"], ["4-4"]]
    hand, _ = position(rules, hands, layout=line("[0 | 0]"), to_move=0, moves=["0-1@R"])
    assert run(hand) is None
    rec = hand.record
    assert rec.end_reason == "domino" and rec.went_out == 0
    assert [e["seat"] for e in events(hand, "pass")] == [0, 2, 1, 2, 1, 2]
    return hand


def test_8_E5_penalty_per_miss_domino():
    """§8.E5: penalty_per_miss. A goes out with penalties A 10, B 20, C 30; B holds 13 pips and
    C 8 -> A wins and scores (20 + 30) - 10 = +40; the pips score nothing."""
    hand = e5_hand(penalty_per_miss=True)
    assert hand.record.penalties == [10, 20, 30]
    assert hand.record.pips == [0, 13, 8]
    assert hand.record.winner == 0
    assert scored(hand) == [(0, 40, "penalties")]
    # default: the pips score, A +21
    assert scored(e5_hand()) == [(0, 21, "domino")]


def test_8_E5_penalty_ledger_restarts_every_hand():
    """§8.E5: every penalty ledger restarts at 0 in the next hand: each hand's ledger is
    10 x that hand's passes by the seat, and penalty points are never match points."""
    rules = make_rules("basic", 3, penalty_per_miss=True)
    hands_seen = 0
    for seed in range(3):
        m = play_match(rules, seed, 0, [get("random")] * 3)
        totals = [0, 0, 0]
        for rec in m.hands:
            passes = [sum(1 for e in events_of(rec, "pass") if e["seat"] == s) for s in range(3)]
            assert rec.penalties == [10 * p for p in passes]
            for e in events_of(rec, "score"):
                assert e["reason"] == "penalties"
                totals[e["side"]] += e["points"]
            hands_seen += 1
        assert m.scores == totals
    assert hands_seen > 3


def test_option_penalty_per_miss_block_tie_on_penalties_goes_to_fewer_pips():
    """basic.penalty_per_miss: after a block, fewest penalty points, then fewest pips. With no
    pass at all (penalties 0, 0, 0) the lowest pip total wins and scores 0 (nobody else has
    penalties), where by default it scores the pip difference."""
    hand = block_hand([["4-5"], ["0-4"], ["5-5", "0-5"]], penalty_per_miss=True)
    assert hand.record.penalties == [0, 0, 0]
    assert hand.record.winner == 1
    assert scored(hand) == []


# --- leads (§8.4, §8.5, basic.lead_highest_double) -------------------------------------------


def test_8_4_8_5_leads_lot_then_winner():
    """§8.4: hand 1 is led by a seat chosen by lot; §8.5: later hands by the previous hand's
    winner, or by lot after a hand without a winner. The leader leads any tile (is asked)."""
    for players in (2, 3):
        rules = make_rules("basic", players, target=150)
        for seed in range(3):
            m = play_match(rules, seed, 0, [get("random")] * players)
            assert len(m.hands) > 1
            for k, rec in enumerate(m.hands):
                prev = m.hands[k - 1] if k else None
                if prev is not None and prev.winner is not None:
                    assert rec.leader == prev.winner
                else:
                    assert rec.leader == seeding.lot(seed, players, 0, k)
                lead = events_of(rec, "place")[0]
                assert lead["lead"] and lead["seat"] == rec.leader


def test_8_5_built_position():
    """§8.5: the previous winner leads any tile; with no winner, the lot decides."""
    rules = make_rules("basic", 3)
    hands = [["2-2", "0-1"], ["5-5", "0-2"], ["4-4", "6-5"]]
    hand, script = position(rules, hands, moves=["6-5@L"])
    prev = PrevHand(0, 2, 2, None, False, [5, 7, 0])
    assert choose_leader(hand, prev) == (2, None)
    hand.lead(2, None)
    assert script.asked == [(2, ["4-4@L", "6-5@L"])]
    nowin = PrevHand(0, None, None, 1, True, [4, 4, 9])
    assert choose_leader(hand, nowin) == (seeding.lot(0, 3, 0, 0), None)


def test_option_lead_highest_double():
    """basic.lead_highest_double: the lead of every hand is determined as in §12.4: the holder
    of the highest double leads it, also after a hand with a winner."""
    hands = [["2-2", "0-1"], ["5-5", "0-2"], ["4-4", "6-5"]]
    prev = PrevHand(0, 2, 2, None, False, [5, 7, 0])
    rules = make_rules("basic", 3, lead_highest_double=True)
    hand = Hand.from_position(rules, hands, strategies=[get("random")] * 3)
    assert first_hand_leader(hand) == (1, t("5-5"))
    assert choose_leader(hand, prev) == (1, t("5-5"))
    hand.play(prev)
    first = events(hand, "place")[0]
    assert (first["seat"], first["tile"]) == (1, t("5-5"))
    default = Hand.from_position(make_rules("basic", 3), hands)
    assert choose_leader(default, prev) == (2, None)
    assert first_hand_leader(default)[1] is None
    # whole matches: every hand's lead is the highest double (or highest tile) dealt
    rules = make_rules("basic", 3, lead_highest_double=True, target=150)
    for seed in range(3):
        m = play_match(rules, seed, 0, [get("random")] * 3)
        for rec in m.hands:
            lead = events_of(rec, "place")[0]
            seat, tile = highest_double_holder(events_of(rec, "deal")[0]["hands"])
            assert (rec.leader, lead["seat"], lead["tile"]) == (seat, seat, tile)


# --- target and match end (§1.14, §8.11) ----------------------------------------------------


def test_option_target():
    """basic.target: A has 80 and scores 21 -> 101 >= 100 ends the match at once by default;
    with target 120 the match goes on."""
    hands = [["3-4"], ["6-5", "2-0"], ["4-4"]]
    for opts, ends in (({}, True), ({"target": 120}, False)):
        rules = make_rules("basic", 3, **opts)
        hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[80, 0, 0])
        over = run(hand)
        assert (over is not None) == ends
        assert hand.scores == [101, 0, 0] and hand.record.end_reason == "domino"
        mrec = MatchRecord(0)
        assert _match_over(rules, hand.record, hand.scores, None, mrec, 0) == ends
        if ends:
            assert mrec.winner == 0


def test_option_check_only_at_hand_end():
    """basic.check_only_at_hand_end: B has 101, A 80; A scores 21 -> 101 : 101 : 0 -> another
    hand. By default A reaching 100 mid-settlement ends the match at once."""
    hands = [["3-4"], ["6-5", "2-0"], ["4-4"]]
    rules = make_rules("basic", 3, check_only_at_hand_end=True)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[80, 101, 0])
    assert run(hand) is None and hand.scores == [101, 101, 0]
    assert _match_over(rules, hand.record, hand.scores, None, MatchRecord(0), 0) is False
    rules = make_rules("basic", 3)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[80, 0, 0])
    over = run(hand)
    assert isinstance(over, MatchOver) and over.args == (0,)
