"""RULES §13 (classic) worked examples, §15 classic options and the §1 rules classic exercises
(forced play, UNTIL_PLAYABLE drawing, team leads), on the reference engine."""

import pytest

from dominosim.game import actions, tiles
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

from helpers import ends_of, events, lead_event, line, position, prev_of, run, scored, t

# --- worked examples ------------------------------------------------------------------------

# §13.E1: the settlements of §12.E1-§12.E3 apply unchanged (fish: stock empty, [6 | 6] left).
# fmt: off
E1_CASES = [
    # 12.E1: 2 players; A goes out; B {6-5, 2-0} -> A +13 (a stock remains: no matter)
    (2, [["3-4"], ["6-5", "2-0"]], "[3 | 1]", [], ["6-6", "0-0"], "domino", 0, [(0, 13, "domino")]),
    # 12.E2: fish, A 5, B 9, C 14 -> A +18
    (3, [["1-6", "0-5"], ["4-5"], ["5-5", "0-4"]], "[6 | 1]", ["1-6@R"], [], "blocked", 0,
     [(0, 18, "block")]),
    # 12.E3: fish, A 5, B 5, C 20 -> no score, hand winner none
    (3, [["1-6", "0-5"], ["1-4"], ["5-5", "4-4", "1-1"]], "[6 | 1]", ["1-6@R"], [], "blocked",
     None, []),
]
# fmt: on


@pytest.mark.parametrize("players, hands, ends, moves, stock, reason, winner, expect", E1_CASES)
def test_13_E1_settlements_of_12_E1_to_E3(
    players, hands, ends, moves, stock, reason, winner, expect
):
    """§13.E1: The settlements of §12.E1-§12.E3 apply unchanged."""
    rules = make_rules("classic", players)
    hand, _ = position(rules, hands, layout=line(ends), moves=moves, stock=stock)
    assert run(hand) is None
    rec = hand.record
    assert rec.end_reason == reason and rec.winner == winner
    assert scored(hand) == expect
    if reason == "blocked":
        assert rec.fish_maker == 0


def test_13_E1_no_block_while_stock_drawable():
    """§1.12(b)/§13.9: the [6 | 6] position of §12.E2 is no fish in classic while the stock
    holds tiles: the next player draws instead."""
    rules = make_rules("classic", 3)
    hands = [["1-6", "0-5"], ["4-5"], ["5-5", "0-4"]]
    hand, _ = position(
        rules, hands, layout=line("[6 | 1]"), moves=["1-6@R", "6-3@R"], stock=["0-1", "6-3"]
    )
    hand.play_turn()
    assert not hand.over
    hand.play_turn()  # B draws 0-1 (keeps it), then 6-3, and places it
    assert [e["tile"] for e in events(hand, "draw")] == [t("0-1"), t("6-3")]
    assert events(hand, "place")[-1]["seat"] == 1 and events(hand, "place")[-1]["tile"] == t("6-3")


def test_13_E2_draw_until_playable():
    """§13.E2: 2 players. Ends [3 | 5]; B holds {6-6}; the stock order is 1-2, 0-4, 5-1, ... ->
    B draws 1-2 and 0-4 and keeps them, then draws 5-1 and places it on the 5. Ends [3 | 1]; B
    holds {6-6, 1-2, 0-4}, and all three tiles count against him at the end of the hand."""
    rules = make_rules("classic", 2)
    hand, script = position(
        rules,
        [["1-1"], ["6-6"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=["1-2", "0-4", "5-1", "6-0"],
    )
    hand.play_turn()
    assert [(e["seat"], e["tile"]) for e in events(hand, "draw")] == [
        (1, t("1-2")),
        (1, t("0-4")),
        (1, t("5-1")),
    ]
    place = events(hand, "place")[-1]
    assert (place["seat"], place["tile"], place["pos"]) == (1, t("5-1"), "R")
    assert ends_of(hand) == "[3 | 1]"
    assert sorted(hand.hands[1]) == sorted([t("6-6"), t("1-2"), t("0-4")])
    assert hand.stock == [t("6-0")] and hand.record.passes == 0
    assert script.asked == []
    # A then goes out with 1-1: B's three tiles (12 + 3 + 4) count against him.
    assert run(hand) is None
    assert hand.record.went_out == 0
    assert scored(hand) == [(0, 19, "domino")]


def test_13_7_until_playable_stock_runs_out_then_pass():
    """§1.7 UNTIL_PLAYABLE: if the drawable tiles run out first, he passes and keeps them."""
    rules = make_rules("classic", 2)
    hand, _ = position(
        rules, [["3-3"], ["6-6"]], layout=line("[3 | 5]"), to_move=1, stock=["1-2", "0-4"]
    )
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t("1-2"), t("0-4")]
    assert events(hand, "pass") == [{"type": "pass", "seat": 1}]
    assert sorted(hand.hands[1]) == sorted([t("6-6"), t("1-2"), t("0-4")])
    assert hand.stock == [] and not hand.over


def test_13_7_drawn_tile_fitting_both_ends_player_chooses_position():
    """§1.7: the drawn playable tile is his only playable tile, but he still chooses the end;
    he is never offered a pass."""
    rules = make_rules("classic", 2)
    hand, script = position(
        rules,
        [["1-1"], ["6-6"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=["2-4", "3-5"],
        moves=["5-3@L"],
    )
    hand.play_turn()
    assert script.asked == [(1, ["5-3@L", "5-3@R"])]
    assert ends_of(hand) == "[5 | 5]"


def test_13_7_forced_play_no_draw_when_able():
    """§1.6/§13.7 forced play: holding a playable tile, B places it; he may not draw instead,
    though the stock holds tiles; with two placements he is asked among placements only."""
    rules = make_rules("classic", 2)
    hand, script = position(
        rules,
        [["1-1"], ["6-6", "5-2", "3-0"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=["4-4", "6-1"],
        moves=["5-2@R"],
    )
    hand.play_turn()
    assert script.asked == [(1, ["3-0@L", "5-2@R"])]
    assert hand.record.draws == 0 and len(hand.stock) == 2


def test_forced_play_over_random_matches(monkeypatch):
    """§1.6: in whole random matches, no seat ever draws or passes while holding a playable
    tile, and no question offers draw/pass beside a placement."""
    orig_draw, orig_pass = Hand.draw, Hand.do_pass
    seen = {"draw": 0, "pass": 0}

    def draw(self, seat):
        # a draw is taken only when nothing in the hand fits (UNTIL_PLAYABLE stops at a fit)
        assert self.placements(seat) == []
        seen["draw"] += 1
        return orig_draw(self, seat)

    def do_pass(self, seat):
        assert self.placements(seat) == []
        assert self.drawable() == 0  # a pass comes only when nothing is drawable
        seen["pass"] += 1
        return orig_pass(self, seat)

    monkeypatch.setattr(Hand, "draw", draw)
    monkeypatch.setattr(Hand, "do_pass", do_pass)

    class Checked:
        name = "checked"

        def choose_one(self, obs, legal, key):
            assert not any(a in (actions.DRAW, actions.PASS) for a in legal)
            return get("random").choose_one(obs, legal, key)

    for players in (2, 3):
        rules = make_rules("classic", players)
        for seed in range(3):
            play_match(rules, seed, 0, [Checked()] * players)
    assert seen["draw"] > 0 and seen["pass"] > 0


# --- leads (§13.4, §13.5) -------------------------------------------------------------------


def test_13_4_highest_double_leads():
    """§13.4 (as §12.4): the holder of the highest double leads it; undealt tiles are ignored."""
    rules = make_rules("classic", 2)
    hands = [
        ["5-5", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
        ["4-4", "1-2", "1-3", "1-4", "1-5", "1-6", "2-3"],
    ]
    stock = ["6-6"] + [
        tiles.name(x) for x in range(28) if x not in {t(s) for h in hands for s in h} | {t("6-6")}
    ]
    hand = Hand.from_position(rules, hands, stock=stock, strategies=[get("random")] * 2)
    assert first_hand_leader(hand) == (0, t("5-5"))
    hand.play(None)
    assert lead_event(hand) == (0, t("5-5"))


def test_option_lead_winner_of_previous_hand():
    """classic.lead_winner_of_previous_hand: the previous hand's winner leads any tile (he is
    asked); after a hand without a winner, §12.4 applies. Default: §12.4 in every hand."""
    hands = [["2-2", "0-1"], ["5-5", "0-2"], ["4-4", "6-5"]]
    prev = PrevHand(
        leader=1, winner=0, went_out=0, fish_maker=None, blocked=False, seat_pips=[0, 9, 4]
    )
    rules = make_rules("classic", 3, lead_winner_of_previous_hand=True)
    hand, script = position(rules, hands, moves=["1-0@L"])
    assert choose_leader(hand, prev) == (0, None)
    hand.lead(0, None)
    assert script.asked == [(0, ["1-0@L", "2-2@L"])]
    assert lead_event(hand) == (0, t("0-1"))
    assert choose_leader(hand, PrevHand(1, None, None, 2, True, [4, 4, 9])) == (1, t("5-5"))
    default = Hand.from_position(make_rules("classic", 3), hands)
    assert choose_leader(default, prev) == (1, t("5-5"))


# --- partnership (§1.4) ---------------------------------------------------------------------


def partnership_fish(maker, b2="0-4", **opts):
    """Fish by ``maker`` leaving [6 | 6]: A1 3, B1 5, A2 10, B2 4 (or 5 with b2 = 1-4)."""
    rules = make_rules("classic", 4, **opts)
    hands = [["0-3"], ["0-5"], ["5-5"], [b2]]
    hands[maker] = hands[maker] + ["1-6"]
    hand, _ = position(rules, hands, layout=line("[6 | 1]"), to_move=maker, moves=["1-6@R"])
    assert run(hand) is None
    assert hand.record.blocked and hand.record.fish_maker == maker
    return hand


def test_option_partnership_fish_team_totals():
    """classic.partnership: A1 3, B1 5, A2 10, B2 4. Individually A1 scores 19 - 3 = 16; as
    teams (A 13, B 9) team B scores 13 - 9 = 4."""
    assert scored(partnership_fish(0)) == [(0, 16, "block")]
    hand = partnership_fish(0, partnership=True)
    assert hand.record.pips == [13, 9] and hand.record.winner == 1
    assert scored(hand) == [(1, 4, "block")]


def test_option_partnership_domino_ignores_partner_tiles():
    """classic.partnership: A2 goes out; B1 {6-5} and B2 {2-0} count, A1's {4-4} does not."""
    hands = [["4-4"], ["6-5"], ["3-4"], ["2-0"]]
    for opts, expect in (({}, [(2, 21, "domino")]), ({"partnership": True}, [(0, 13, "domino")])):
        rules = make_rules("classic", 4, **opts)
        hand, _ = position(rules, hands, layout=line("[3 | 1]"), to_move=2)
        assert run(hand) is None
        assert scored(hand) == expect


@pytest.mark.parametrize("maker, b2, leader", [(0, "0-4", 3), (0, "1-4", 1), (2, "1-4", 3)])
def test_1_4_team_leads_after_a_block(maker, b2, leader):
    """§1.4: after a block the winning team leads through the partner with the lower pip
    total; if the partners tie, through the first of them after the fish-maker."""
    opts = dict(partnership=True, lead_winner_of_previous_hand=True)
    prev = prev_of(partnership_fish(maker, b2, **opts))
    rules = make_rules("classic", 4, **opts)
    hands = [["6-6", "0-1"], ["5-5", "0-2"], ["4-4", "1-2"], ["3-3", "1-3"]]
    hand = Hand.from_position(rules, hands, strategies=[get("random")] * 4)
    assert choose_leader(hand, prev) == (leader, None)
    hand.play(prev)
    assert lead_event(hand)[0] == leader


def test_1_4_team_leads_through_partner_who_went_out():
    """§1.4: a team that won by domino leads through the partner who went out (A2, seat 2)."""
    opts = dict(partnership=True, lead_winner_of_previous_hand=True)
    rules = make_rules("classic", 4, **opts)
    h0, _ = position(rules, [["4-4"], ["6-5"], ["3-4"], ["2-0"]], layout=line("[3 | 1]"), to_move=2)
    assert run(h0) is None and h0.record.winner == 0
    hand = Hand.from_position(rules, [["6-6"], ["5-5"], ["4-4"], ["3-3"]])
    assert choose_leader(hand, prev_of(h0)) == (2, None)


# --- target and match end (§1.14) -------------------------------------------------------------


def test_option_target():
    """classic.target: A has 90 and scores 13 -> 103 >= 100 ends the match by default; with
    target 150 or 104 it does not."""
    hands = [["3-4"], ["6-5", "2-0"]]
    results = {}
    for opts in ({}, {"target": 150}, {"target": 104}):
        rules = make_rules("classic", 2, **opts)
        hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[90, 0])
        over = run(hand)
        results[opts.get("target", 100)] = over is not None
        assert hand.record.end_reason == "domino" and hand.scores == [103, 0]
    assert results == {100: True, 150: False, 104: False}


def test_option_check_only_at_hand_end():
    """classic.check_only_at_hand_end (§1.14): A 87, B 100; A goes out +13 -> 100 : 100, a tie
    at the top -> another hand. By default A reaching 100 ends the match at once."""
    hands = [["3-4"], ["6-5", "2-0"]]
    rules = make_rules("classic", 2)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[87, 0])
    over = run(hand)
    assert isinstance(over, MatchOver) and over.args == (0,)
    rules = make_rules("classic", 2, check_only_at_hand_end=True)
    hand, _ = position(rules, hands, layout=line("[3 | 1]"), scores=[87, 100])
    assert run(hand) is None and hand.scores == [100, 100]
    assert _match_over(rules, hand.record, hand.scores, None, MatchRecord(0), 0) is False
    mrec = MatchRecord(0)
    assert _match_over(rules, hand.record, [113, 100], None, mrec, 0) is True
    assert mrec.winner == 0
