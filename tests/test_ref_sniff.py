"""RULES §7 (sniff), the SPINNER layout (§1.9) and its end count (§1.11 rule 3), the §15 sniff
options and muggins.first_double_spinner with its two dependants, on the reference engine."""

import pytest

from dominosim.base.errors import RulesError
from dominosim.game import actions, tiles
from dominosim.game.reference import Hand, MatchOver
from dominosim.game.variants import make_rules

from helpers import ends_of, events, line, position, scored, t


def lead(hand, seat=0):
    try:
        hand.lead(seat, None)
    except MatchOver:
        pass


def turn(hand):
    try:
        hand.play_turn()
    except MatchOver:
        pass


# §7.E1–§7.E6 with the spinner 5-5: A leads 5-5, B 5-0 on E, A 5-6 on W, B 5-3 on N, A 5-1 on S.
SEQ_HANDS = [["5-5", "6-5", "1-5", "4-4", "2-4"], ["0-5", "3-5", "2-2", "4-1"]]
SEQ_MOVES = ["5-5@L", "5-0@E", "6-5@W", "5-3@N"]  # A's 5-1 on S is his only legal placement


def spinner_sequence(rules):
    """Play §7.E1-§7.E6 step by step; yields (example, hand) after each placement."""
    hand, script = position(rules, SEQ_HANDS, moves=SEQ_MOVES)
    lead(hand, 0)
    yield "E1", hand
    for ex in ("E2", "E4", "E5", "E6"):
        turn(hand)
        yield ex, hand
    assert script.moves == []


def test_7_E1_to_E6_default_counting():
    """§7.E1 lead 5-5 (the sniff) -> c = 10 -> +2. §7.E2 5-0 on E -> k = 1, s = 10, E arm ends
    in 0 -> c = 10 -> +2. §7.E4 5-6 on W -> k = 2, s = 0 -> c = 6 -> 0. §7.E5 5-3 on N -> c = 9
    -> 0. §7.E6 5-1 on S -> c = 10 -> +2."""
    rules = make_rules("sniff", 2)
    expect = {
        "E1": (10, set(), [(0, 2)]),
        "E2": (10, {"E"}, [(1, 2)]),
        "E4": (6, {"E", "W"}, []),
        "E5": (9, {"E", "W", "N"}, []),
        "E6": (10, {"E", "W", "N", "S"}, [(0, 2)]),
    }
    n = 0
    for ex, hand in spinner_sequence(rules):
        c, covered, pts = expect[ex]
        assert hand.layout.spinner == 5, ex
        assert hand.layout.covered == covered, ex
        assert hand.layout.end_count() == c, ex
        got = [(s, p) for s, p, r in scored(hand)]
        assert got[n:] == pts, ex
        assert all(r == "count" for _, _, r in scored(hand))
        n = len(got)
    assert hand.scores == [4, 2]
    assert dict(hand.layout.positions()) == {"W": 6, "E": 0, "N": 3, "S": 1}


def test_7_E1_lead_double_is_spinner_with_four_uncovered_sides():
    """§7.E1 / §1.9: the led 5-5 becomes the spinner with all four sides uncovered; only W and E
    are playable positions (N and S closed until W and E are covered)."""
    rules = make_rules("sniff", 2)
    hand, _ = position(rules, SEQ_HANDS, moves=["5-5@L"])
    lead(hand)
    lay = hand.layout
    assert lay.spinner == 5 and lay.covered == set()
    assert lay.positions() == [("W", 5), ("E", 5)]
    assert events(hand, "place")[0]["lead"] is True
    assert scored(hand) == [(0, 2, "count")]


def test_7_E3_N_and_S_closed_until_W_and_E_covered():
    """§7.E3: after 5-5 and 5-0 on E, 5-2 may go only on W: N and S stay closed until W and E
    are both covered."""
    rules = make_rules("sniff", 2)
    seq = spinner_sequence(rules)
    next(seq)
    _, hand = next(seq)  # after §7.E2
    assert hand.layout.positions() == [("W", 5), ("E", 0)]
    assert [actions.describe(a) for a in hand.placements(0, only=[t("5-2")])] == ["5-2@W"]
    _, hand = next(seq)  # after §7.E4: W and E covered -> N and S open
    assert hand.layout.positions() == [("W", 6), ("E", 0), ("N", 5), ("S", 5)]
    assert sorted(actions.describe(a) for a in hand.placements(0, only=[t("5-2")])) == [
        "5-2@N",
        "5-2@S",
    ]


def test_7_E3_spinner_open_all_four_immediately():
    """§7.E3 with sniff.spinner_open_all_four_immediately: 5-2 may also go on N or S."""
    rules = make_rules("sniff", 2, spinner_open_all_four_immediately="on")
    hand, script = position(rules, SEQ_HANDS, moves=["5-5@L", "5-0@E"])
    lead(hand)
    assert hand.layout.positions() == [("W", 5), ("E", 5), ("N", 5), ("S", 5)]
    turn(hand)
    seat, legal = script.asked[1]
    assert seat == 1 and sorted(legal) == [
        "5-0@E",
        "5-0@N",
        "5-0@S",
        "5-0@W",
        "5-3@E",
        "5-3@N",
        "5-3@S",
        "5-3@W",
    ]
    assert hand.layout.positions() == [("W", 5), ("E", 0), ("N", 5), ("S", 5)]
    assert sorted(actions.describe(a) for a in hand.placements(0, only=[t("5-2")])) == [
        "5-2@N",
        "5-2@S",
        "5-2@W",
    ]


def test_7_E7_us_sniff_counting():
    """§7.E7 us_sniff_counting, same sequence: E1 +2; E2 +2; E4 c = 16 -> 0; E5 c = 14 (s = 5)
    -> 0; E6 c = 10 (s = 0) -> +2."""
    rules = make_rules("sniff", 2, us_sniff_counting="on")
    expect = {
        "E1": (10, [(0, 2)]),
        "E2": (10, [(1, 2)]),
        "E4": (16, []),
        "E5": (14, []),
        "E6": (10, [(0, 2)]),
    }
    n = 0
    for ex, hand in spinner_sequence(rules):
        c, pts = expect[ex]
        assert hand.layout.end_count() == c, ex
        got = [(s, p) for s, p, _ in scored(hand)]
        assert got[n:] == pts, ex
        n = len(got)


def e8_play(rules):
    """§7.E8: A leads 4-4; B 6-4 on one side (W); A 1-4 on the other (E)."""
    hand, script = position(
        rules, [["4-4", "1-4", "2-3"], ["6-4", "2-0", "3-6"]], moves=["4-4@L", "6-4@W"]
    )
    counts = []
    lead(hand)
    counts.append(hand.layout.end_count())
    turn(hand)
    counts.append(hand.layout.end_count())
    turn(hand)  # A's only placement: 1-4 on E
    counts.append(hand.layout.end_count())
    assert script.moves == []
    assert events(hand, "place")[-1]["pos"] == "E"
    return hand, counts


def test_7_E8_default_counting():
    """§7.E8: lead 4-4 -> c = 8; 6-4 on one side -> c = 14; 1-4 on the other -> c = 7, so 0."""
    hand, counts = e8_play(make_rules("sniff", 2))
    assert counts == [8, 14, 7]
    assert scored(hand) == []


def test_7_E8_us_sniff_counting():
    """§7.E8 us_sniff_counting: ... 1-4 on the other side -> c = 15, so +3."""
    hand, counts = e8_play(make_rules("sniff", 2, us_sniff_counting="on"))
    assert counts == [8, 14, 15]
    assert scored(hand) == [(0, 3, "count")]


def test_7_E9_spinner_placed_later():
    """§7.E9: lead 3-5 -> c = 8 -> 0; 5-5 on the 5 becomes the sniff with W covered (k = 1) ->
    c = 3 + 10 = 13 -> 0; 5-2 on E -> k = 2 -> c = 3 + 2 = 5 -> +1; N and S are now open."""
    rules = make_rules("sniff", 2)
    hand, script = position(rules, [["5-3", "2-5", "1-1"], ["5-5", "0-1"]], moves=["5-3@L"])
    lead(hand)
    assert ends_of(hand) == "[3 | 5]" and hand.layout.end_count() == 8
    assert hand.layout.spinner is None
    turn(hand)  # B: 5-5 on the 5 (R), his only placement
    lay = hand.layout
    assert lay.spinner == 5 and lay.covered == {"W"}
    assert lay.positions() == [("W", 3), ("E", 5)]  # N and S closed: E still uncovered
    assert lay.end_count() == 13
    turn(hand)  # A: 5-2 on E, his only placement
    assert events(hand, "place")[-1]["pos"] == "E"
    assert lay.covered == {"W", "E"} and lay.end_count() == 5
    assert lay.positions() == [("W", 3), ("E", 2), ("N", 5), ("S", 5)]
    assert scored(hand) == [(0, 1, "count")]
    assert script.moves == []


def test_later_doubles_are_not_spinners_and_count_both_halves():
    """§7.6: later doubles lie across, are not spinners, and count both halves while they form an
    end: after 7.E9, 2-2 on E -> c = 3 + 4 = 7; the spinner stays 5 and 2-2 opens nothing."""
    rules = make_rules("sniff", 2)
    hand, script = position(rules, [["5-3", "2-5", "1-1"], ["5-5", "2-2", "0-1"]], moves=["5-3@L"])
    lead(hand)
    turn(hand)  # B: 5-5 on the 5 (the sniff)
    turn(hand)  # A: 5-2 on E
    turn(hand)  # B: 2-2 on E, his only placement
    assert events(hand, "place")[-1]["tile"] == t("2-2") and script.moves == []
    lay = hand.layout
    assert lay.spinner == 5
    assert dict(lay.positions()) == {"W": 3, "E": 2, "N": 5, "S": 5}
    assert hand.layout.snapshot()["E"] == [2, True]
    assert lay.end_count() == 3 + 4


def test_7_E10_domino_settlement():
    """§7.E10: A goes out; B 12, C 9 -> round5(21) = 20 -> A +4."""
    rules = make_rules("sniff", 3)
    hand, _ = position(rules, [["3-1"], ["6-4", "2-0"], ["4-5"]], layout=line("[3 | 5]"))
    turn(hand)
    assert hand.record.end_reason == "domino" and hand.record.pips == [0, 12, 9]
    assert scored(hand) == [(0, 4, "domino")]  # in play: c = 1 + 5 = 6, nothing
    assert hand.record.winner == 0


def test_7_E11_block_settlement():
    """§7.E11: Block. A 6, B 10, C 13 -> A wins; round5(23 - 6) = round5(17) = 15 -> A +3."""
    rules = make_rules("sniff", 3)
    hand, _ = position(rules, [["6-2", "3-3"], ["5-5"], ["6-3", "1-3"]], layout=line("[6 | 0]"))
    turn(hand)  # A: 6-2 on the 6 -> [2 | 0] (c = 2), nobody holds a 2 or a 0, stock empty
    rec = hand.record
    assert rec.blocked and rec.fish_maker == 0 and rec.pips == [6, 10, 13]
    assert scored(hand) == [(0, 3, "block")]
    assert rec.winner == 0


def test_sniff_block_tie_for_lowest_scores_nothing():
    """§7.10: a tie for lowest at a block means that nobody scores."""
    rules = make_rules("sniff", 3)
    hand, _ = position(rules, [["6-2", "3-3"], ["5-1"], ["6-3", "1-3"]], layout=line("[6 | 0]"))
    turn(hand)
    assert hand.record.blocked and hand.record.pips == [6, 6, 13]
    assert scored(hand) == [] and hand.record.winner is None


def test_sniff_draw_until_playable_whole_stock():
    """§7.7: UNTIL_PLAYABLE; the whole stock is drawable (default reserve 0)."""
    rules = make_rules("sniff", 2)
    hand, _ = position(
        rules, [["5-6"], ["1-2"]], layout=line("[3 | 5]"), to_move=1, stock=["0-4", "0-2", "3-1"]
    )
    turn(hand)
    assert [tiles.name(e["tile"]) for e in events(hand, "draw")] == ["4-0", "2-0", "3-1"]
    assert events(hand, "place")[0]["tile"] == t("3-1") and ends_of(hand) == "[1 | 5]"


# --- §15 sniff options ---------------------------------------------------------------------------


def test_option_sniff_partnership_points_go_to_the_team():
    """§15 sniff.partnership (§1.4): A2 (seat 2) leads 5-5 (+2) for team A (side 0); default:
    seat 2 scores for itself."""
    hands = [["0-1", "2-3"], ["1-4", "0-3"], ["5-5", "1-2"], ["2-4", "0-5"]]
    hand, _ = position(make_rules("sniff", 4), hands, moves=["5-5@L"])
    lead(hand, 2)
    assert scored(hand) == [(2, 2, "count")]
    hand, _ = position(make_rules("sniff", 4, partnership="on"), hands, moves=["5-5@L"])
    lead(hand, 2)
    assert scored(hand) == [(0, 2, "count")] and hand.scores == [2, 0]


def test_option_sniff_partnership_settlement_team_pips():
    """§15 sniff.partnership: A1 goes out; team B holds 12 + 9 = 21 -> round5(21)/5 = +4 for team
    A; A2's own tiles do not count. Default (4 sides): seat 0 scores round5(12+12+9)/5 = 7."""
    hands = [["3-1"], ["6-4", "2-0"], ["6-6"], ["4-5"]]
    hand, _ = position(make_rules("sniff", 4, partnership="on"), hands, layout=line("[3 | 5]"))
    turn(hand)
    assert hand.record.pips == [12 + 0, 12 + 9]
    assert scored(hand) == [(0, 4, "domino")]
    hand, _ = position(make_rules("sniff", 4), hands, layout=line("[3 | 5]"))
    turn(hand)
    assert scored(hand) == [(0, 7, "domino")]


@pytest.mark.parametrize("players,size", [(2, 7), (3, 6), (4, 5)])
def test_option_sniff_pagat_deal(players, size):
    """§15 sniff.sniff_pagat_deal: 7 / 6 / 5 each (default 7 / 5 / 5)."""
    default = Hand.deal(make_rules("sniff", players), 2, 0, 0)
    assert [len(h) for h in default.hands] == [(7, 5, 5)[players - 2]] * players
    hand = Hand.deal(make_rules("sniff", players, sniff_pagat_deal="on"), 2, 0, 0)
    assert [len(h) for h in hand.hands] == [size] * players
    assert len(hand.stock) == 28 - players * size


def test_option_sniff_reserve_k():
    """§15 sniff.reserve_k = 2 (2 players): the last 2 stock tiles are never drawn. B draws 0-4
    only and passes; default: B draws 0-4 and 3-1 and places 3-1."""
    hands = [["5-6"], ["1-2"]]
    stock = ["0-4", "3-1", "2-6"]
    hand, _ = position(
        make_rules("sniff", 2), hands, layout=line("[3 | 5]"), to_move=1, stock=stock
    )
    turn(hand)
    assert [tiles.name(e["tile"]) for e in events(hand, "draw")] == ["4-0", "3-1"]
    assert events(hand, "place")[0]["tile"] == t("3-1")
    rules = make_rules("sniff", 2, reserve_k=2)
    hand, _ = position(rules, hands, layout=line("[3 | 5]"), to_move=1, stock=stock)
    assert hand.drawable() == 1
    turn(hand)
    assert [tiles.name(e["tile"]) for e in events(hand, "draw")] == ["4-0"]
    assert events(hand, "place") == [] and len(events(hand, "pass")) == 1
    assert hand.stock == [t("3-1"), t("2-6")] and hand.drawable() == 0
    with pytest.raises(RulesError):
        make_rules("sniff", 3, reserve_k=2)


@pytest.mark.parametrize("m", [2, 3])
def test_option_sniff_max_draws_per_turn(m):
    """§15 sniff.max_draws_per_turn = m: UNTIL_PLAYABLE(m). The first playable stock tile is the
    4th: B draws m tiles and passes; default: he draws 4 and places the 4th."""
    hands = [["5-6"], ["1-2"]]
    stock = ["0-4", "0-2", "6-6", "3-1", "4-4"]
    hand, _ = position(
        make_rules("sniff", 2), hands, layout=line("[3 | 5]"), to_move=1, stock=stock
    )
    turn(hand)
    assert len(events(hand, "draw")) == 4 and events(hand, "place")[0]["tile"] == t("3-1")
    rules = make_rules("sniff", 2, max_draws_per_turn=m)
    hand, _ = position(rules, hands, layout=line("[3 | 5]"), to_move=1, stock=stock)
    turn(hand)
    assert len(events(hand, "draw")) == m
    assert events(hand, "place") == [] and len(events(hand, "pass")) == 1
    assert len(hand.hands[1]) == 1 + m


def test_option_sniff_target():
    """§15 sniff.target: at 59, a +2 lead reaches the default 61 and ends the match in mid-hand
    (end reason target); with target 121 the hand goes on."""
    hand, _ = position(make_rules("sniff", 2), SEQ_HANDS, moves=["5-5@L"], scores=[59, 0])
    with pytest.raises(MatchOver):
        hand.lead(0, None)
    assert hand.record.end_reason == "target" and hand.record.winner == 0
    assert events(hand, "hand_end")[0]["reason"] == "target"
    rules = make_rules("sniff", 2, target=121)
    hand, _ = position(rules, SEQ_HANDS, moves=["5-5@L"], scores=[59, 0])
    hand.lead(0, None)
    assert hand.scores == [61, 0] and not hand.over


def test_option_sniff_book_endgame():
    """§15 sniff.sniff_book_endgame: settlement as fives (domino +2; block, lowest +1) and target
    20 with 3 players. §7.E10 -> A +2 (not +4); §7.E11 -> A +1 (not +3)."""
    rules = make_rules("sniff", 3, sniff_book_endgame="on")
    assert rules.target == 20 and make_rules("sniff", 3).target == 61
    assert make_rules("sniff", 2, sniff_book_endgame="on").target == 25
    hand, _ = position(rules, [["3-1"], ["6-4", "2-0"], ["4-5"]], layout=line("[3 | 5]"))
    turn(hand)
    assert scored(hand) == [(0, 2, "domino")]
    hand, _ = position(rules, [["6-2", "3-3"], ["5-5"], ["6-3", "1-3"]], layout=line("[6 | 0]"))
    turn(hand)
    assert scored(hand) == [(0, 1, "block")]
    hand, _ = position(rules, [["6-2", "3-3"], ["5-1"], ["6-3", "1-3"]], layout=line("[6 | 0]"))
    turn(hand)
    assert scored(hand) == [] and hand.record.winner is None
    with pytest.raises(RulesError):
        make_rules("sniff", 3, sniff_book_endgame="on", target=61)


def test_option_sniff_check_only_at_hand_end():
    """§15 sniff.check_only_at_hand_end: in-play points never stop a hand and the end reason is
    never target (default: the +2 lead at 59 ends the match, reason target)."""
    rules = make_rules("sniff", 2, check_only_at_hand_end="on")
    hand, _ = position(rules, SEQ_HANDS, moves=["5-5@L", "5-0@E"], scores=[59, 0])
    hand.lead(0, None)
    hand.play_turn()
    assert hand.scores == [61, 2] and not hand.over
    assert hand.record.end_reason == ""


# --- muggins.first_double_spinner and its dependants ---------------------------------------------


MUG_HANDS = [["5-5", "6-5", "4-5", "1-1", "0-3"], ["0-5", "3-1", "2-2"]]


def test_option_muggins_first_double_spinner():
    """§15 muggins.first_double_spinner: the first double is a spinner (§1.9): after 5-5, 5-0 on
    E and 6-5 on W, N and S open; 4-5 on N -> c = 0 + 6 + 4 = 10 -> +10 (muggins scores c).
    Default LINE: after the same tiles the ends are [6 | 0] and 4-5 cannot be placed."""
    rules = make_rules("muggins", 2, first_double_spinner="on")
    hand, script = position(rules, MUG_HANDS, moves=["5-5@L", "5-0@E", "6-5@W", "5-4@N"])
    lead(hand)
    turn(hand)  # B: 5-0 on E
    turn(hand)  # A: 6-5 on W
    assert dict(hand.layout.positions()) == {"W": 6, "E": 0, "N": 5, "S": 5}
    turn(hand)  # B holds nothing playable and nothing is drawable: pass
    assert [e["seat"] for e in events(hand, "pass")] == [1]
    turn(hand)  # A: 4-5 on N
    assert dict(hand.layout.positions()) == {"W": 6, "E": 0, "N": 4, "S": 5}
    assert hand.layout.end_count() == 10
    assert scored(hand) == [(0, 10, "count"), (1, 10, "count"), (0, 10, "count")]
    assert script.moves == []
    # default: LINE, no spinner
    hand, script = position(make_rules("muggins", 2), MUG_HANDS, moves=["5-5@L", "5-0@R", "6-5@L"])
    lead(hand)
    turn(hand)
    turn(hand)
    assert hand.layout.spinner is None
    assert ends_of(hand) == "[6 | 0]"
    assert hand.placements(0, only=[t("4-5")]) == []
    assert scored(hand) == [(0, 10, "count"), (1, 10, "count")]


def test_option_muggins_spinner_open_all_four_immediately():
    """§15 muggins.spinner_open_all_four_immediately (with first_double_spinner): after the 5-5
    lead, 5-0 may go on N: k = 1, s = 10, N arm ends in 0 -> c = 10 -> +10. Without it, N is not
    a position."""
    base = dict(first_double_spinner="on")
    rules = make_rules("muggins", 2, **base)
    hand, _ = position(rules, MUG_HANDS, moves=["5-5@L"])
    lead(hand)
    assert hand.layout.positions() == [("W", 5), ("E", 5)]
    rules = make_rules("muggins", 2, spinner_open_all_four_immediately="on", **base)
    hand, _ = position(rules, MUG_HANDS, moves=["5-5@L", "5-0@N"])
    lead(hand)
    assert hand.layout.positions() == [("W", 5), ("E", 5), ("N", 5), ("S", 5)]
    turn(hand)
    assert hand.layout.covered == {"N"} and hand.layout.end_count() == 10
    assert scored(hand) == [(0, 10, "count"), (1, 10, "count")]
    with pytest.raises(RulesError):
        make_rules("muggins", 2, spinner_open_all_four_immediately="on")


def test_option_muggins_us_sniff_counting():
    """§15 muggins.us_sniff_counting (with first_double_spinner), §7.E8: lead 4-4, 6-4, 1-4 ->
    c = 15 -> +15; default spinner counting: c = 7 -> 0."""
    base = dict(first_double_spinner="on")
    hand, counts = e8_play(make_rules("muggins", 2, **base))
    assert counts == [8, 14, 7] and scored(hand) == []
    hand, counts = e8_play(make_rules("muggins", 2, us_sniff_counting="on", **base))
    assert counts == [8, 14, 15] and scored(hand) == [(0, 15, "count")]
    with pytest.raises(RulesError):
        make_rules("muggins", 2, us_sniff_counting="on")
