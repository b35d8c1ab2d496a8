"""RULES §3 (blind domino): worked examples, the blind row, the open phase and the §15 options,
on the reference engine."""

import pytest

from dominosim.game import seeding, tiles
from dominosim.game.reference import Hand, MatchOver, MatchRecord, PrevHand, _match_over
from dominosim.game.variants import make_rules

from helpers import ends_of, events, line, position, recorder, scored, t


def row(hand, seat):
    """A seat's row, front first, written as RULES does."""
    return [tiles.name(x) for x in hand.hands[seat]]


def asked(script):
    """The questions the script was asked, legal actions sorted (their order is not a rule)."""
    return [(seat, sorted(legal)) for seat, legal in script.asked]


def names(ts):
    return [tiles.name(x) for x in ts]


def play_turn(hand):
    try:
        hand.play_turn()
    except MatchOver:
        pass


E4_ROW = ["2-4", "6-6", "1-3", "0-0", "5-5"]


def e4_position(rules, stock, moves=()):
    """§3.E4: ends [3 | 5]; B's row (2-4, 6-6, 1-3, 0-0, 5-5); B (seat 1) to move."""
    return position(
        rules,
        [["6-1", "2-2", "0-1", "1-4", "4-4"], E4_ROW, ["5-6", "2-1", "0-4"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=stock,
        moves=moves,
    )


# --- worked examples ----------------------------------------------------------------------------


def test_3_E1_domino_out_sum():
    """§3.E1: 3 players; A goes out; B {6-5, 2-0} = 13, C {4-4} = 8 -> A +21; winner A."""
    rules = make_rules("blind", 3)
    hand, _ = position(
        rules, [["3-1"], ["6-5", "2-0"], ["4-4"]], layout=line("[3 | 5]"), opened=[True] * 3
    )
    hand.play_turn()
    rec = hand.record
    assert rec.end_reason == "domino" and rec.went_out == 0
    assert rec.pips == [0, 13, 8]
    assert scored(hand) == [(0, 21, "domino")]
    assert rec.winner == 0 and events(hand, "hand_end")[0]["winner"] == 0


def test_3_E2_block_lowest_hand_block_diff():
    """§3.E2: Block; A 9, B 4, C 15 -> B +20 (BLOCK-DIFF 9 + 15 - 4)."""
    rules = make_rules("blind", 3)
    hand, _ = position(
        rules, [["6-2", "4-5"], ["1-3"], ["5-5", "4-1"]], layout=line("[6 | 0]"), opened=[True] * 3
    )
    hand.play_turn()  # A: 6-2 on the 6 -> [2 | 0], nobody holds a 2 or a 0, stock empty
    rec = hand.record
    assert ends_of(hand) == "[2 | 0]"
    assert rec.end_reason == "blocked" and rec.fish_maker == 0
    assert rec.pips == [9, 4, 15]
    assert scored(hand) == [(1, 20, "block")]
    assert rec.winner == 1


def test_3_E3_block_tie_for_lowest_scores_nothing():
    """§3.E3: Block; A 4, B 4, C 15 -> no score; hand winner none."""
    rules = make_rules("blind", 3)
    hand, _ = position(
        rules, [["6-2", "1-3"], ["0-4"], ["6-6", "3-0"]], layout=line("[6 | 5]"), opened=[True] * 3
    )
    hand.play_turn()
    rec = hand.record
    assert rec.end_reason == "blocked" and rec.pips == [4, 4, 15]
    assert scored(hand) == []
    assert rec.winner is None and events(hand, "hand_end")[0]["winner"] is None


def test_3_E4_front_to_back_then_drawn_tile_placed():
    """§3.E4: Ends [3 | 5], B's row (2-4, 6-6, 1-3, 0-0, 5-5), next stock tile 3-6 -> 2-4 goes
    to the back; B draws 3-6 and places it on the 3; ends [6 | 5]; row (6-6, 1-3, 0-0, 5-5, 2-4);
    hand length +1, turns +1."""
    rules = make_rules("blind", 3)
    hand, script = e4_position(rules, stock=["3-6", "0-2"])
    hand.play_turn()
    evs = [(e["type"], tiles.name(e["tile"])) for e in hand.record.events if "tile" in e]
    assert evs == [("look", "4-2"), ("to_back", "4-2"), ("draw", "6-3"), ("place", "6-3")]
    place = events(hand, "place")[0]
    assert place["seat"] == 1 and place["pos"] == "L" and not place["lead"]
    assert ends_of(hand) == "[6 | 5]"
    assert row(hand, 1) == ["6-6", "3-1", "0-0", "5-5", "4-2"]
    assert hand.record.hand_length == 1 and hand.record.turns == 1
    assert events(hand, "pass") == [] and script.asked == []
    assert hand.stock == [t("0-2")]


def test_3_E5_drawn_tile_does_not_fit_goes_behind_pass():
    """§3.E5: As 3.E4, next stock tile 1-1 -> row (6-6, 1-3, 0-0, 5-5, 2-4, 1-1). Pass; ends
    unchanged. A blind-phase pass reveals no void (§3.2)."""
    rules = make_rules("blind", 3)
    hand, _ = e4_position(rules, stock=["1-1", "6-3"])
    hand.play_turn()
    assert row(hand, 1) == ["6-6", "3-1", "0-0", "5-5", "4-2", "1-1"]
    assert ends_of(hand) == "[3 | 5]"
    assert [e["seat"] for e in events(hand, "pass")] == [1]
    assert events(hand, "place") == []
    assert hand.record.hand_length == 0 and hand.record.turns == 1
    assert hand.voids[1] == set()
    assert hand.observe(0).voids[1] == frozenset()
    assert hand.to_move == 2


def test_3_E6_empty_stock_front_to_back_pass():
    """§3.E6: As 3.E4, stock empty -> row (6-6, 1-3, 0-0, 5-5, 2-4). Pass."""
    rules = make_rules("blind", 3)
    hand, _ = e4_position(rules, stock=[])
    hand.play_turn()
    assert row(hand, 1) == ["6-6", "3-1", "0-0", "5-5", "4-2"]
    assert events(hand, "draw") == []
    assert [e["seat"] for e in events(hand, "pass")] == [1]
    assert ends_of(hand) == "[3 | 5]"
    assert hand.voids[1] == set()
    assert not hand.over  # B's row still holds a 5 (5-5) and a 3 (1-3): no block


def test_3_E7_row_of_three_after_placement_is_opened():
    """§3.E7: Ends [4 | 1]; A's row holds 4 tiles, front 4-2 -> A places 4-2 on the 4, ends
    [2 | 1]; his row holds 3 tiles, so it is opened; from his next turn he plays under 3.7b."""
    rules = make_rules("blind", 2)
    hand, _ = position(
        rules,
        [["4-2", "6-6", "3-5", "0-3"], ["5-5", "6-0", "0-0"]],
        layout=line("[4 | 1]"),
        stock=["6-5", "3-3"],
    )
    assert hand.observe(0).row == (None, None, None, None)
    hand.play_turn()
    assert ends_of(hand) == "[2 | 1]"
    assert [e["type"] for e in hand.record.events] == ["look", "place", "open"]
    assert events(hand, "open")[0]["seat"] == 0
    assert hand.opened[0] and not hand.opened[1]
    obs = hand.observe(0)
    assert obs.row == (t("6-6"), t("3-5"), t("0-3"))  # all turned up for their owner
    assert sorted(obs.hand) == sorted([t("6-6"), t("3-5"), t("0-3")])


def test_3_E7_opened_row_plays_open_phase_next_turn():
    """§3.E7 continued: from his next turn on, an opened player no longer looks at a front tile;
    he places a playable tile and may then continue or stop (3.7b)."""
    rules = make_rules("blind", 2)
    hand, script = position(
        rules,
        [["1-1", "5-6", "3-5"], ["5-5", "6-0", "0-0"]],
        layout=line("[2 | 3]"),
        opened=[True, False],
        moves=["stop"],
    )
    hand.play_turn()  # 3-5 is the only playable tile (the front 1-1 is not looked at)
    assert events(hand, "look") == []
    assert [tiles.name(e["tile"]) for e in events(hand, "place")] == ["5-3"]
    assert asked(script) == [(0, sorted(["6-5@R", "stop"]))]
    assert [e["seat"] for e in events(hand, "stop")] == [0]


def test_3_E8_open_phase_single_then_stop():
    """§3.E8: Open phase, ends [2 | 6], A holds {2-3, 3-4, 0-6} -> passing is illegal; 2-3 on
    the 2 and then stop leaves [3 | 6]."""
    rules = make_rules("blind", 2)
    hand, script = position(
        rules,
        [["2-3", "3-4", "0-6"], ["5-5", "1-1", "1-5"]],
        layout=line("[2 | 6]"),
        opened=[True, False],
        stock=["5-0"],
        moves=["3-2@L", "stop"],
    )
    hand.play_turn()
    first = asked(script)[0][1]
    assert first == ["3-2@L", "6-0@R"]  # no pass, no draw, no stop before a placement
    assert "stop" in script.asked[1][1]
    assert ends_of(hand) == "[3 | 6]"
    assert hand.record.hand_length == 1 and hand.record.turns == 1
    assert events(hand, "pass") == [] and not hand.over


def test_3_E8_open_phase_three_tiles_in_one_turn_domino():
    """§3.E8: 2-3, then 3-4, then 0-6 on the 6 ([3 | 6] -> [4 | 6] -> [4 | 0]); A's hand is
    empty: a domino with hand length +3 and turns +1."""
    rules = make_rules("blind", 2)
    hand, script = position(
        rules,
        [["2-3", "3-4", "0-6"], ["5-5", "1-1", "1-5"]],
        layout=line("[2 | 6]"),
        opened=[True, False],
        moves=["3-2@L", "4-3@L", "6-0@R"],
    )
    hand.play_turn()
    opens = [e["open"] for e in events(hand, "place")]
    assert opens == [
        {"L": [3, False], "R": [6, False]},
        {"L": [4, False], "R": [6, False]},
        {"L": [4, False], "R": [0, False]},
    ]
    assert [e["seat"] for e in events(hand, "place")] == [0, 0, 0]
    rec = hand.record
    assert rec.end_reason == "domino" and rec.went_out == 0
    assert rec.hand_length == 3 and rec.turns == 1
    assert scored(hand) == [(0, 10 + 2 + 6, "domino")]
    assert script.moves == []


def test_3_E9_draw_optional_declined():
    """§3.E9: blind_draw_optional. As 3.E4, and B declines to draw -> row
    (6-6, 1-3, 0-0, 5-5, 2-4). Pass."""
    rules = make_rules("blind", 3, blind_draw_optional="on")
    hand, script = e4_position(rules, stock=["3-6"], moves=["pass"])
    hand.play_turn()
    assert asked(script) == [(1, sorted(["draw", "pass"]))]
    assert row(hand, 1) == ["6-6", "3-1", "0-0", "5-5", "4-2"]
    assert hand.stock == [t("3-6")] and events(hand, "draw") == []
    assert [e["seat"] for e in events(hand, "pass")] == [1]


# --- lead, the blind row, the open phase --------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_blind_lead_lot_seat_leads_its_front_tile(players, seed):
    """§3.4: a seat chosen by lot turns up his front tile and leads it, whatever it is."""
    rules = make_rules("blind", players)
    strat = recorder()
    hand = Hand.deal(rules, seed, 0, 0, strategies=[strat] * players)
    rec = hand.play()
    lot = seeding.lot(seed, players, 0, 0)
    dealt = events(hand, "deal")[0]["hands"]
    lead = events(hand, "place")[0]
    assert rec.leader == lot
    assert lead["lead"] and lead["seat"] == lot and lead["tile"] == dealt[lot][0]
    assert rec.hand_length == len(events(hand, "place"))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_blind_later_hand_lead_seat_after_previous_leader(players):
    """§3.5: the seat after the previous hand's leader leads his front tile."""
    rules = make_rules("blind", players)
    for prev_leader in range(players):
        strat = recorder()
        hand = Hand.deal(rules, 5, 0, 1, strategies=[strat] * players)
        prev = PrevHand(prev_leader, 0, 0, None, False, [0] * players)
        rec = hand.play(prev)
        seat = (prev_leader + 1) % players
        lead = events(hand, "place")[0]
        assert rec.leader == seat
        assert lead["seat"] == seat and lead["tile"] == events(hand, "deal")[0]["hands"][seat][0]


def test_blind_observation_row_shows_only_looked_at_tiles():
    """§3.2: nobody knows a row tile before it has been looked at; the owner knows each tile he
    has looked at and its position; obs.row gives the row front to back."""
    rules = make_rules("blind", 3, blind_draw_optional="on")
    hand, script = e4_position(rules, stock=["1-1", "3-3"], moves=["draw"])
    before = hand.observe(1)
    assert before.row == (None,) * 5 and before.hand == ()
    hand.play_turn()  # 2-4 looked at and moved back; then the draw is the seat's choice
    obs = hand.observe(1)
    assert obs.row == (None, None, None, None, t("2-4"), t("1-1"))
    assert sorted(obs.hand) == sorted([t("2-4"), t("1-1")])
    # the other seats see nothing of B's row, only its size
    other = hand.observe(0)
    assert other.counts[1] == 6
    assert t("2-4") not in other.hand and other.row == (None,) * 5
    assert hand.observe(1).face_up == ()


def test_blind_observation_at_decision_time():
    """§3.2: the strategy's Observation at B's draw decision (blind_draw_optional) shows the
    tile he just moved to the back, in its new place, and no unseen tile."""
    rules = make_rules("blind", 3, blind_draw_optional="on")
    strat = recorder()
    hand = Hand.from_position(
        rules,
        [["6-1"], E4_ROW, ["5-6"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=["3-6"],
        strategies=[strat] * 3,
    )
    hand.record.points = [0, 0, 0]
    hand.play_turn()
    seat, legal, obs = strat.asked[0]
    assert seat == 1 and sorted(legal) == ["draw", "pass"]
    assert obs.row == (None, None, None, None, t("2-4"))
    assert obs.hand == (t("2-4"),)


def test_blind_phase_pass_reveals_no_void_but_open_phase_pass_does():
    """§3.2: a blind-phase pass reveals no void; an open-phase pass (§3.7c, stock empty) is a
    forced pass by a player who sees his whole hand, and reveals the open values."""
    rules = make_rules("blind", 3)
    hand, _ = e4_position(rules, stock=[])
    hand.play_turn()
    assert hand.voids[1] == set()
    hand, _ = position(
        rules,
        [["6-1", "0-0"], ["2-4", "1-1"], ["5-6", "3-3"]],
        layout=line("[3 | 5]"),
        to_move=1,
        opened=[True] * 3,
    )
    hand.play_turn()
    assert [e["seat"] for e in events(hand, "pass")] == [1]
    assert hand.voids[1] == {3, 5}


def test_blind_open_phase_nothing_playable_draws_then_places_and_may_continue():
    """§3.7c: open phase, nothing playable: he must draw one tile; it fits, so he places it and
    may continue as in 3.7b."""
    rules = make_rules("blind", 2)
    hand, script = position(
        rules,
        [["1-2", "6-4"], ["6-6", "0-0", "5-5"]],
        layout=line("[3 | 5]"),
        opened=[True, False],
        stock=["3-1", "6-2"],
        moves=["1-2@L"],
    )
    hand.play_turn()
    assert [tiles.name(e["tile"]) for e in events(hand, "draw")] == ["3-1"]
    assert [tiles.name(e["tile"]) for e in events(hand, "place")] == ["3-1", "2-1"]
    # after 3-1 the only playable tile was 1-2 (on the 1): continue or stop was asked
    assert asked(script) == [(0, sorted(["2-1@L", "stop"]))]
    assert hand.record.draws == 1 and hand.record.turns == 1 and hand.record.hand_length == 2


def test_blind_open_phase_draw_does_not_fit_pass():
    """§3.7c: the drawn tile does not fit -> it joins his hand and the turn is a pass; one draw
    only."""
    rules = make_rules("blind", 2)
    hand, _ = position(
        rules,
        [["1-2", "2-4"], ["6-6", "0-0", "5-5"]],
        layout=line("[3 | 5]"),
        opened=[True, False],
        stock=["6-1", "3-0"],
    )
    hand.play_turn()
    assert [tiles.name(e["tile"]) for e in events(hand, "draw")] == ["6-1"]
    assert events(hand, "place") == [] and len(events(hand, "pass")) == 1
    assert sorted(names(hand.hands[0])) == ["2-1", "4-2", "6-1"]


def test_blind_front_fits_must_be_placed_deeper_tiles_do_not_force():
    """§3.7a: only the front tile (and the drawn tile) oblige him; a fitting tile deeper in the
    row (here 3-3) does not stop the pass."""
    rules = make_rules("blind", 2)
    hand, _ = position(
        rules,
        [["0-1", "3-3", "6-6", "4-4"], ["2-2", "0-0", "1-1"]],
        layout=line("[3 | 5]"),
        stock=["0-2"],
    )
    hand.play_turn()
    assert events(hand, "place") == [] and len(events(hand, "pass")) == 1
    assert row(hand, 0) == ["3-3", "6-6", "4-4", "1-0", "2-0"]


# --- §15 options ---------------------------------------------------------------------------------


@pytest.mark.parametrize("players,size", [(2, 14), (3, 9), (4, 7)])
def test_option_blind_deal_all_tiles_sizes(players, size):
    """§15 blind.blind_deal = all_tiles: 14 / 9 / 7 each (default 7 / 5 / 5)."""
    default = Hand.deal(make_rules("blind", players), 3, 0, 0)
    assert [len(h) for h in default.hands] == [(7, 5, 5)[players - 2]] * players
    hand = Hand.deal(make_rules("blind", players, blind_deal="all_tiles"), 3, 0, 0)
    assert [len(h) for h in hand.hands] == [size] * players
    assert len(hand.stock) == 28 - size * players


def _all_tiles_3p(seed, front, leftover):
    """A 3-player all_tiles deal whose lot seat's front tile is ``front`` and whose one undealt
    tile is ``leftover``."""
    lot = seeding.lot(seed, 3, 0, 0)
    rest = [x for x in range(28) if x not in (t(front), t(leftover))]
    hands = [rest[0:9], rest[9:18], rest[18:26]]
    hands[lot], hands[2] = hands[2], hands[lot]
    hands[lot] = [t(front)] + hands[lot]
    return lot, hands, [t(leftover)]


@pytest.mark.parametrize("seed", [0, 1, 4])
def test_option_blind_deal_all_tiles_3p_leftover_starts_layout_lot_seat_leads_even_on_pass(seed):
    """§15 blind_deal = all_tiles, 3 players: the leftover tile is turned up as the first tile
    (not a placement; ends named as §1.8), the seat chosen by lot takes the first turn onto it and
    is the leader even though that turn is a pass; hand length excludes the leftover (§1.15)."""
    rules = make_rules("blind", 3, blind_deal="all_tiles")
    lot, hands, stock = _all_tiles_3p(seed, front="0-1", leftover="6-4")
    strat = recorder()
    hand = Hand(rules, hands, stock, seed=seed, strategies=[strat] * 3)
    rec = hand.play()
    start = events(hand, "start_tile")[0]
    assert start["tile"] == t("6-4") and start["open"] == {"L": [4, False], "R": [6, False]}
    first = [e for e in rec.events if e["type"] not in ("deal", "start_tile")][:3]
    assert [(e["type"], e["seat"]) for e in first] == [
        ("look", lot),
        ("to_back", lot),
        ("pass", lot),
    ]
    assert first[0]["tile"] == t("0-1")
    assert rec.leader == lot
    places = events(hand, "place")
    assert not any(e["lead"] for e in places)
    assert rec.hand_length == len(places) == len(hand.layout.tiles) - 1


def test_option_blind_deal_all_tiles_3p_later_hand_first_turn_seat_after_previous_leader():
    """§15 blind_deal = all_tiles, 3 players, later hands: the seat that 3.5 names takes the first
    turn onto the leftover tile and is the leader."""
    rules = make_rules("blind", 3, blind_deal="all_tiles")
    for prev_leader in range(3):
        hand = Hand.deal(rules, 9, 0, 1, strategies=[recorder()] * 3)
        rec = hand.play(PrevHand(prev_leader, None, None, 1, True, [0, 0, 0]))
        seat = (prev_leader + 1) % 3
        assert rec.leader == seat
        first = [e for e in rec.events if e["type"] not in ("deal", "start_tile")][0]
        assert first["type"] == "look" and first["seat"] == seat
        assert rec.hand_length == len(events(hand, "place")) == len(hand.layout.tiles) - 1


def test_option_blind_draw_optional_block_whatever_the_stock():
    """§15 blind_draw_optional: a hand is also blocked when no player holds a playable tile,
    whatever the stock (default: not blocked while the stock is not empty)."""
    hands = [["6-2", "4-5"], ["1-3"], ["5-5", "4-1"]]
    for opt, blocked in ((False, False), (True, True)):
        rules = make_rules("blind", 3, blind_draw_optional=opt)
        hand, _ = position(
            rules, hands, layout=line("[6 | 0]"), opened=[True] * 3, stock=["0-2", "3-3"]
        )
        hand.play_turn()
        assert hand.record.blocked is blocked
        assert scored(hand) == ([(1, 20, "block")] if blocked else [])


def test_option_blind_draw_optional_open_phase_draw_may_be_declined():
    """§15 blind_draw_optional: the draw of 3.7c is optional too."""
    rules = make_rules("blind", 2, blind_draw_optional="on")
    hand, script = position(
        rules,
        [["1-2", "2-4"], ["6-6", "0-0", "5-5"]],
        layout=line("[3 | 5]"),
        opened=[True, False],
        stock=["3-1"],
        moves=["pass"],
    )
    hand.play_turn()
    assert asked(script) == [(0, sorted(["draw", "pass"]))]
    assert events(hand, "draw") == [] and hand.stock == [t("3-1")]


def test_option_blind_play_optional_decline_fitting_front():
    """§15 blind_play_optional: a fitting front tile may be declined while the stock is not
    empty; he then continues with step 2 (front to the back, draw)."""
    rows = [["6-1"], ["3-4", "6-6", "1-1"], ["5-6"]]
    # default: the fitting front tile must be placed, nobody is asked
    hand, script = position(
        make_rules("blind", 3), rows, layout=line("[3 | 5]"), to_move=1, stock=["0-0"]
    )
    hand.play_turn()
    assert script.asked == [] and events(hand, "place")[0]["tile"] == t("3-4")
    # option on: declined
    rules = make_rules("blind", 3, blind_play_optional="on")
    hand, script = position(
        rules, rows, layout=line("[3 | 5]"), to_move=1, stock=["0-0"], moves=["draw"]
    )
    hand.play_turn()
    assert asked(script) == [(1, sorted(["4-3@L", "draw"]))]
    assert row(hand, 1) == ["6-6", "1-1", "4-3", "0-0"]
    assert events(hand, "place") == [] and len(events(hand, "pass")) == 1


def test_option_blind_play_optional_draw_forced_after_decline_even_with_draw_optional():
    """§15 blind_play_optional: after declining the front tile he must draw, even under
    blind_draw_optional (no draw/pass question)."""
    rules = make_rules("blind", 3, blind_play_optional="on", blind_draw_optional="on")
    hand, script = position(
        rules,
        [["6-1"], ["3-4", "6-6", "1-1"], ["5-6"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=["0-0"],
        moves=["draw"],
    )
    hand.play_turn()
    assert asked(script) == [(1, sorted(["4-3@L", "draw"]))]
    assert [tiles.name(e["tile"]) for e in events(hand, "draw")] == ["0-0"]


def test_option_blind_play_optional_no_choice_with_empty_stock():
    """§15 blind_play_optional: with an empty stock the fitting front tile must be placed."""
    rules = make_rules("blind", 3, blind_play_optional="on")
    hand, script = position(
        rules, [["6-1"], ["3-4", "6-6", "1-1"], ["5-6"]], layout=line("[3 | 5]"), to_move=1
    )
    hand.play_turn()
    assert script.asked == [] and events(hand, "place")[0]["tile"] == t("3-4")


def test_option_blind_play_optional_decline_fitting_drawn_tile():
    """§15 blind_play_optional: a fitting drawn tile may be declined; it goes to the back."""
    rules = make_rules("blind", 3, blind_play_optional="on")
    hand, script = e4_position(rules, stock=["3-6"], moves=["pass"])
    hand.play_turn()
    assert asked(script) == [(1, sorted(["6-3@L", "pass"]))]
    assert row(hand, 1) == ["6-6", "3-1", "0-0", "5-5", "4-2", "6-3"]
    assert events(hand, "place") == [] and ends_of(hand) == "[3 | 5]"


def test_option_blind_unplayable_double_face_up():
    """§15 blind_unplayable_double_face_up: a double that goes back into a row lies face up,
    visible to all (Observation.face_up); a non-double does not; off: nothing is face up."""
    e4_like = ["6-6", "2-4", "1-3", "0-0", "5-5"]
    hands = [["6-1", "2-2", "0-1", "1-4", "4-4"], e4_like, ["5-6", "2-1", "0-4"]]
    for opt in (False, True):
        rules = make_rules("blind", 3, blind_unplayable_double_face_up=opt)
        hand, _ = position(rules, hands, layout=line("[3 | 5]"), to_move=1, stock=["1-1", "2-0"])
        hand.play_turn()  # 6-6 to the back; drawn 1-1 does not fit and goes behind it
        assert row(hand, 1) == ["4-2", "3-1", "0-0", "5-5", "6-6", "1-1"]
        expect = tuple(sorted([t("6-6"), t("1-1")])) if opt else ()
        assert hand.observe(0).face_up == expect
        assert hand.observe(2).face_up == expect
    # a non-double moved back stays face down
    rules = make_rules("blind", 3, blind_unplayable_double_face_up="on")
    hand, _ = e4_position(rules, stock=["0-2"])
    hand.play_turn()
    assert hand.observe(0).face_up == ()


def test_option_block_winner_fewest_tiles():
    """§15 block_winner_fewest_tiles: the block goes to the fewest tiles (A: 1 tile, 8 pips), who
    scores the others' pip sum 3 + 12 = 15; default: lowest pips B (3) scores 8 + 12 - 3 = 17."""
    hands = [["3-5", "4-4"], ["1-1", "0-1"], ["3-3", "4-2", "0-0"]]
    for opt, expect in ((False, [(1, 17, "block")]), (True, [(0, 15, "block")])):
        rules = make_rules("blind", 3, block_winner_fewest_tiles=opt)
        hand, _ = position(rules, hands, layout=line("[3 | 6]"), opened=[True] * 3)
        hand.play_turn()
        assert ends_of(hand) == "[5 | 6]" and hand.record.blocked
        assert scored(hand) == expect
        assert hand.record.winner == expect[0][0]


def test_option_block_winner_fewest_tiles_tie_nobody_wins():
    """§15 block_winner_fewest_tiles: a tie for the fewest tiles means nobody wins."""
    rules = make_rules("blind", 3, block_winner_fewest_tiles="on")
    hand, _ = position(
        rules,
        [["3-5", "4-4"], ["1-1"], ["3-3", "4-2", "0-0"]],
        layout=line("[3 | 6]"),
        opened=[True] * 3,
    )
    hand.play_turn()
    assert hand.record.blocked and scored(hand) == [] and hand.record.winner is None


def test_option_blind_target():
    """§15 blind.target: with target 20, A's +21 (§3.E1) reaches it and ends the match; the hand
    already ended, so its end reason stays domino. Default 100: the match goes on."""
    hands = [["3-1"], ["6-5", "2-0"], ["4-4"]]
    hand, _ = position(make_rules("blind", 3), hands, layout=line("[3 | 5]"), opened=[True] * 3)
    hand.play_turn()  # no MatchOver at 21 < 100
    assert hand.scores == [21, 0, 0]
    rules = make_rules("blind", 3, target=20)
    hand, _ = position(rules, hands, layout=line("[3 | 5]"), opened=[True] * 3)
    with pytest.raises(MatchOver):
        hand.play_turn()
    assert hand.record.end_reason == "domino" and hand.scores == [21, 0, 0]


def test_option_blind_check_only_at_hand_end():
    """§15 blind.check_only_at_hand_end (§1.14): the award never stops play by itself; after the
    hand, a tie for the highest total at or above the target means another hand."""
    hands = [["3-1"], ["6-5", "2-0"], ["4-4"]]
    # default: the award that reaches 100 ends the match at once
    hand, _ = position(
        make_rules("blind", 3),
        hands,
        layout=line("[3 | 5]"),
        opened=[True] * 3,
        scores=[79, 100, 0],
    )
    with pytest.raises(MatchOver):
        hand.play_turn()
    rules = make_rules("blind", 3, check_only_at_hand_end="on")
    hand, _ = position(rules, hands, layout=line("[3 | 5]"), opened=[True] * 3, scores=[79, 100, 0])
    hand.play_turn()  # no MatchOver
    assert hand.scores == [100, 100, 0]
    assert not _match_over(rules, hand.record, hand.scores, None, MatchRecord(0), 0)
    # a unique highest total at or above the target wins
    assert _match_over(rules, hand.record, [100, 99, 0], None, MatchRecord(0), 0)
