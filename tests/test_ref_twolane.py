"""RULES §9 (two-lane): worked examples, failed turns, block settlement by penalties then pips,
and the §15 option cumulative_hands, on the reference engine."""

import pytest

from dominosim.game import seeding, tiles
from dominosim.game.reference import MatchRecord, _match_over, play_match
from dominosim.game.variants import make_rules
from dominosim.strategy import get

from helpers import ends_of, events, line, position, scored


def blocked_position(rules, hands, penalties):
    """Ends [1 | 4], empty stock; C (seat 2) holds nothing playable and is to move, with the
    hand's penalties so far."""
    hand, _ = position(rules, hands, layout=line("[1 | 4]"), to_move=2)
    hand.record.penalties[:] = penalties
    return hand


def test_9_E1_failed_turn_after_one_draw():
    """§9.E1: Ends [1 | 4]. A has no playable tile and draws 3-5, which does not fit -> A +10
    penalty; pass. He draws once per turn (§9.7), though the next stock tile 1-6 would fit."""
    rules = make_rules("two-lane", 2)
    hand, _ = position(
        rules, [["6-6", "2-0"], ["1-2", "3-3"]], layout=line("[1 | 4]"), stock=["3-5", "1-6"]
    )
    hand.play_turn()
    evs = [(e["type"], e.get("seat", e.get("side"))) for e in hand.record.events]
    assert evs == [("draw", 0), ("pass", 0), ("score", 0)]
    assert events(hand, "draw")[0]["tile"] == tiles.parse("3-5")
    assert scored(hand) == [(0, 10, "failed_turn")]
    assert hand.record.penalties == [10, 0] and hand.record.points == [10, 0]
    assert ends_of(hand) == "[1 | 4]" and hand.stock == [tiles.parse("1-6")]
    assert sorted(tiles.name(x) for x in hand.hands[0]) == ["2-0", "5-3", "6-6"]


def test_9_7_forced_play_no_draw_when_able():
    """§9.7: a player holding a playable tile must place it; no draw, no penalty."""
    rules = make_rules("two-lane", 2)
    hand, _ = position(
        rules, [["6-6", "2-1"], ["1-2", "3-3"]], layout=line("[1 | 4]"), stock=["3-5"]
    )
    hand.play_turn()
    assert events(hand, "draw") == [] and scored(hand) == []
    assert ends_of(hand) == "[2 | 4]"


def test_9_8a_failed_turn_with_empty_stock():
    """§9.8a: a player who can neither play nor draw has a failed turn: +10, and he passes."""
    rules = make_rules("two-lane", 2)
    hand, _ = position(rules, [["6-6", "2-0"], ["1-2", "3-3"]], layout=line("[1 | 4]"))
    hand.play_turn()
    assert events(hand, "draw") == []
    assert [e["seat"] for e in events(hand, "pass")] == [0]
    assert scored(hand) == [(0, 10, "failed_turn")] and hand.record.penalties == [10, 0]
    assert not hand.over  # B holds 1-2


def test_9_E2_out_wins_whatever_his_penalties():
    """§9.E2: A goes out holding 20 penalty points; B has 0 -> A wins (hand and match, §9.11)."""
    rules = make_rules("two-lane", 2)
    hand, _ = position(rules, [["1-3"], ["6-6", "2-0"]], layout=line("[1 | 4]"))
    hand.record.penalties[:] = [20, 0]
    hand.play_turn()
    rec = hand.record
    assert rec.end_reason == "domino" and rec.went_out == 0
    assert rec.winner == 0 and events(hand, "hand_end")[0]["winner"] == 0
    mrec = MatchRecord(0)
    assert _match_over(rules, rec, [20, 0], None, mrec, 0)
    assert mrec.winner == 0


def test_9_E3_block_fewest_penalties_wins():
    """§9.E3: Block. Penalties A 20, B 10, C 30 -> B wins. (C's failed turn with an empty stock
    takes him from 20 to 30 and the hand is blocked after that pass.)"""
    rules = make_rules("two-lane", 3)
    hand = blocked_position(rules, [["6-6"], ["5-2"], ["3-3"]], [20, 10, 20])
    hand.play_turn()
    rec = hand.record
    assert scored(hand) == [(2, 10, "failed_turn")]
    assert rec.penalties == [20, 10, 30]
    assert rec.blocked and rec.end_reason == "blocked"
    assert rec.winner == 1 and events(hand, "hand_end")[0]["winner"] == 1


def test_9_E4_block_penalty_tie_fewest_pips():
    """§9.E4: Block. Penalties A 20, B 10, C 10; pips B 7, C 12 -> B wins."""
    rules = make_rules("two-lane", 3)
    hand = blocked_position(rules, [["3-3"], ["5-2"], ["6-6"]], [20, 10, 0])
    hand.play_turn()
    rec = hand.record
    assert rec.blocked and rec.penalties == [20, 10, 10] and rec.pips == [6, 7, 12]
    assert rec.winner == 1


def test_9_E5_block_penalty_and_pip_tie_no_winner():
    """§9.E5: Block. Penalties A 20, B 10, C 10; pips B 7, C 7 -> no winner."""
    rules = make_rules("two-lane", 3)
    hand = blocked_position(rules, [["3-3"], ["5-2"], ["3-2", "2-0"]], [20, 10, 0])
    hand.play_turn()
    rec = hand.record
    assert rec.blocked and rec.penalties == [20, 10, 10] and rec.pips == [6, 7, 7]
    assert rec.winner is None
    mrec = MatchRecord(0)
    assert _match_over(rules, rec, list(rec.penalties), None, mrec, 0)
    assert mrec.winner is None


def test_9_10_fewest_pips_ignored_when_penalties_differ():
    """§9.10: pips only break a penalty tie: B (10 penalties, 12 pips) beats C (20, 0-0)."""
    rules = make_rules("two-lane", 3)
    hand = blocked_position(rules, [["3-3"], ["6-6"], ["0-0"]], [30, 10, 10])
    hand.play_turn()
    assert hand.record.penalties == [30, 10, 20] and hand.record.winner == 1


def test_9_6_nothing_counted():
    """§9.6: nothing is counted: a placement leaving [5 | 5] (c = 10 elsewhere) scores nothing."""
    rules = make_rules("two-lane", 2)
    hand, _ = position(
        rules,
        [["5-4", "6-6"], ["0-0", "1-1"]],
        layout=line("[4 | 5]"),
        stock=["2-2"],
        moves=["5-4@L"],
    )
    hand.play_turn()
    assert ends_of(hand) == "[5 | 5]" and scored(hand) == []


@pytest.mark.parametrize("seed", [3, 11])
def test_9_4a_leader_by_lot_any_tile(seed):
    """§9.4, §9.4a: the leader, chosen by lot, places any tile."""
    rules = make_rules("two-lane", 3)
    mrec = play_match(rules, seed, 0, [get("random")] * 3)
    rec = mrec.hands[0]
    assert rec.leader == seeding.lot(seed, 3, 0, 0)
    first = [e for e in rec.events if e["type"] == "place"][0]
    assert first["lead"] and first["seat"] == rec.leader


@pytest.mark.parametrize("players", [2, 3, 4])
def test_option_cumulative_hands(players):
    """§15 two-lane.cumulative_hands = K: K hands, each leader by lot; each player's penalties
    are summed and the lowest total wins (a tie: no winner). Default: one hand, whose winner is
    the match winner (§9.11)."""
    seed = 21
    strategies = [get("random")] * players
    one = play_match(make_rules("two-lane", players), seed, 0, strategies)
    assert one.length == 1 and one.winner == one.hands[0].winner
    assert one.scores == one.hands[0].penalties
    for k in (2, 3):
        rules = make_rules("two-lane", players, cumulative_hands=k)
        mrec = play_match(rules, seed, 0, strategies)
        assert mrec.length == k
        assert [h.hand_index for h in mrec.hands] == list(range(k))
        assert [h.leader for h in mrec.hands] == [
            seeding.lot(seed, players, 0, i) for i in range(k)
        ]
        totals = [sum(h.penalties[s] for h in mrec.hands) for s in range(players)]
        for h in mrec.hands:
            assert h.penalties == [
                10 * sum(1 for e in h.events if e["type"] == "pass" and e["seat"] == s)
                for s in range(players)
            ]
        assert mrec.scores == totals
        low = min(totals)
        best = [s for s in range(players) if totals[s] == low]
        assert mrec.winner == (best[0] if len(best) == 1 else None)
        # the first hand is the same deal and play as the default one-hand match
        assert mrec.hands[0].events[: len(one.hands[0].events) - 1] == one.hands[0].events[:-1]
