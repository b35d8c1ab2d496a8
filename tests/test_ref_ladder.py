"""RULES §10 (ladder): the SINGLE_END layout (§1.10), the starting tile, the first player as
leader even on a failed turn, hand length without the starting tile (§1.15), failed turns, block
settlement (§9.10) and the §15 option cumulative_hands, on the reference engine."""

import pytest

from dominosim.game import actions, seeding, tiles
from dominosim.game.layout import End, Layout
from dominosim.game.reference import Hand, play_match
from dominosim.game.variants import make_rules
from dominosim.strategy import get

from helpers import Script, events, position, recorder, scored, t


def started(tile: str) -> Layout:
    """A SINGLE_END layout holding only the starting tile ``tile`` (written a-b: L = a, R = b)."""
    lay = Layout("single_end")
    a, b = tile.split("-")
    lay.start_with(t(tile))
    assert dict(lay.positions()) == {"L": min(int(a), int(b)), "R": max(int(a), int(b))}
    return lay


def dealt(rules, seed, first_player_hand, other_hands, stock):
    """A Hand as dealt, whose seat chosen by lot (the first player) holds ``first_player_hand``
    and the following seats ``other_hands`` in order; the stock's first tile is the starting
    tile."""
    P = rules.players
    lot = seeding.lot(seed, P, 0, 0)
    hands = [None] * P
    hands[lot] = [t(x) for x in first_player_hand]
    for i, h in enumerate(other_hands, start=1):
        hands[(lot + i) % P] = [t(x) for x in h]
    used = {x for h in hands for x in h} | {t(x) for x in stock}
    rest = [x for x in range(28) if x not in used]
    return lot, hands, [t(x) for x in stock] + rest


def test_10_E1_first_placement_fixes_the_direction():
    """§10.E1: Starting tile 2-5. The first player places 5-1 on the 5 -> only the end 1 is open,
    and a 2-x tile can never be placed on the 2."""
    rules = make_rules("ladder", 2)
    hand, script = position(
        rules,
        [["5-1", "2-3", "6-6"], ["2-4", "1-0", "2-6"]],
        layout=started("2-5"),
        stock=["3-3", "4-4"],
        moves=["1-5@R"],
    )
    hand.play_turn()
    assert sorted(script.asked[0][1]) == ["3-2@L", "5-1@R"]  # either half before the first move
    assert hand.layout.positions() == [("R", 1)]
    place = events(hand, "place")[0]
    assert place["pos"] == "R" and place["open"] == {"R": [1, False]}
    # B's 2-4 and 2-6 never fit the closed 2; only 1-0 on the 1
    assert [actions.describe(a) for a in hand.placements(1)] == ["1-0@R"]
    assert hand.placements(1, only=[t("2-4"), t("2-6")]) == []


def test_10_4a_first_player_may_build_toward_either_half():
    """§10.4a: building on the 2 instead makes R (now showing 3) the only open end; the 5 is
    closed for the rest of the hand."""
    rules = make_rules("ladder", 2)
    hand, _ = position(
        rules,
        [["5-1", "2-3", "6-6"], ["5-4", "3-0", "5-6"]],
        layout=started("2-5"),
        stock=["3-3", "4-4"],
        moves=["3-2@L"],
    )
    hand.play_turn()
    assert hand.layout.positions() == [("R", 3)]
    assert hand.placements(1, only=[t("5-4"), t("5-6")]) == []
    assert [actions.describe(a) for a in hand.placements(1)] == ["3-0@R"]


def test_10_starting_tile_double_two_positions():
    """§1.6/§1.10: a double starting tile offers both halves as separate positions L and R."""
    rules = make_rules("ladder", 2)
    hand, script = position(
        rules, [["4-1", "0-0"], ["2-2", "1-3"]], layout=started("4-4"), moves=["4-1@L"]
    )
    hand.play_turn()
    assert sorted(script.asked[0][1]) == ["4-1@L", "4-1@R"]
    assert hand.layout.positions() == [("R", 1)]


@pytest.mark.parametrize("seed", [0, 5, 8])
def test_10_E2_failed_first_turn_next_seat_chooses_direction_leader_is_first_player(seed):
    """§10.E2: Starting tile 2-5. The first player holds no 2 and no 5, and draws 4-4 -> it does
    not fit; he gets +10 and the next seat chooses the direction. §10.4b: the first player, chosen
    by lot, is the hand's leader even though his first turn is a failed turn."""
    rules = make_rules("ladder", 2)
    lot, hands, stock = dealt(
        rules,
        seed,
        ["0-1", "3-4", "6-6", "0-0", "1-3"],
        [["2-6", "5-1", "1-1", "3-3", "0-6"]],
        ["2-5", "4-4"],
    )
    strat = recorder()
    hand = Hand(rules, hands, stock, seed=seed, strategies=[strat] * 2)
    rec = hand.play()
    start = events(hand, "start_tile")[0]
    assert start["tile"] == t("2-5") and start["open"] == {"L": [2, False], "R": [5, False]}
    first = rec.events[2:5]
    assert [(e["type"], e.get("seat", e.get("side"))) for e in first] == [
        ("draw", lot),
        ("pass", lot),
        ("score", lot),
    ]
    assert first[0]["tile"] == t("4-4") and first[2]["points"] == 10
    assert first[2]["reason"] == "failed_turn"
    assert rec.leader == lot
    seat, legal, obs = strat.asked[0]
    assert seat == 1 - lot and sorted(legal) == ["5-1@R", "6-2@L"]
    assert obs.positions == (("L", 2), ("R", 5))
    assert rec.hand_length == len(events(hand, "place")) == len(hand.layout.tiles) - 1


@pytest.mark.parametrize("seed", [0, 2])
def test_10_E3_hand_length_excludes_starting_tile(seed):
    """§10.E3 / §1.15: a hand with the starting tile and 4 placed tiles -> hand length 4."""
    rules = make_rules("ladder", 2)
    lot, hands, stock = dealt(rules, seed, ["5-1", "3-4", "2-2"], [["1-3", "4-6"]], ["2-5"])
    script = Script(["1-5@R"])
    hand = Hand(rules, hands, stock, seed=seed, strategies=[script] * 2)
    rec = hand.play()
    assert script.moves == [] and len(script.asked) == 1
    assert [tiles.name(e["tile"]) for e in events(hand, "place")] == ["5-1", "3-1", "4-3", "6-4"]
    assert len(hand.layout.tiles) == 5
    assert rec.hand_length == 4 and rec.turns == 4
    assert rec.end_reason == "domino" and rec.went_out == 1 - lot and rec.winner == 1 - lot
    assert rec.leader == lot


def test_10_9_block_before_first_placement():
    """§10.9: nobody can play on either half and the stock is empty -> after the first player's
    failed turn (+10, §9.8a) the hand is blocked; the fewest penalties wins (§10.10)."""
    rules = make_rules("ladder", 2)
    seed = 1
    lot = seeding.lot(seed, 2, 0, 0)
    hands = [None, None]
    hands[lot], hands[1 - lot] = [t("0-1")], [t("3-4")]
    hand = Hand(rules, hands, [t("2-5")], seed=seed, strategies=[recorder()] * 2)
    rec = hand.play()
    assert rec.leader == lot and rec.turns == 1 and rec.passes == 1
    assert events(hand, "draw") == []
    assert rec.blocked and rec.hand_length == 0 and rec.fish_maker is None
    assert rec.penalties == [10 if s == lot else 0 for s in range(2)]
    assert rec.winner == 1 - lot


def test_10_7_failed_turn_with_empty_stock():
    """§10.7 (as §9.8a): he can neither play nor draw: +10, pass, no draw."""
    rules = make_rules("ladder", 3)
    lay = Layout.from_ends("single_end", {"R": End(3)}, table=[-1, -1, -1])
    hand, _ = position(rules, [["6-6", "0-1"], ["3-2"], ["4-4"]], layout=lay)
    hand.play_turn()
    assert events(hand, "draw") == [] and scored(hand) == [(0, 10, "failed_turn")]
    assert not hand.over


def test_10_7_one_draw_then_failed_turn():
    """§10.7 (as §9.7): one draw per turn; it does not fit -> +10, though the next stock tile
    would fit."""
    rules = make_rules("ladder", 3)
    lay = Layout.from_ends("single_end", {"R": End(3)}, table=[-1, -1, -1])
    hand, _ = position(rules, [["6-6", "0-1"], ["3-2"], ["4-4"]], layout=lay, stock=["5-5", "3-1"])
    hand.play_turn()
    assert [tiles.name(e["tile"]) for e in events(hand, "draw")] == ["5-5"]
    assert scored(hand) == [(0, 10, "failed_turn")] and hand.record.penalties == [10, 0, 0]


def test_10_7_drawn_tile_fits_must_be_placed():
    """§10.7 (as §9.7): the drawn tile fits, so he must place it; no penalty."""
    rules = make_rules("ladder", 3)
    lay = Layout.from_ends("single_end", {"R": End(3)}, table=[-1, -1, -1])
    hand, _ = position(rules, [["6-6", "0-1"], ["3-2"], ["4-4"]], layout=lay, stock=["3-1"])
    hand.play_turn()
    assert events(hand, "place")[0]["tile"] == t("3-1") and scored(hand) == []
    assert hand.layout.positions() == [("R", 1)]


@pytest.mark.parametrize("pips_c,winner", [(["6-6"], 1), (["4-3"], None), (["2-2"], 2)])
def test_10_10_block_settlement_penalties_then_pips(pips_c, winner):
    """§10.10 (as §9.10): Block. Penalties A 20, B 10, C 10; pips B 7 against C 12 -> B, C 7 ->
    no winner, C 4 -> C."""
    rules = make_rules("ladder", 3)
    lay = Layout.from_ends("single_end", {"R": End(1)}, table=[-1, -1, -1])
    hand, _ = position(rules, [["3-3"], ["5-2"], pips_c], layout=lay, to_move=2)
    hand.record.penalties[:] = [20, 10, 0]
    hand.play_turn()  # C: failed turn, +10 -> blocked
    rec = hand.record
    assert rec.blocked and rec.penalties == [20, 10, 10]
    assert rec.winner == winner
    assert events(hand, "hand_end")[0]["winner"] == winner


def test_10_9_out_wins_whatever_his_penalties():
    """§10.9: the first player out wins the hand, even with the most penalties."""
    rules = make_rules("ladder", 2)
    lay = Layout.from_ends("single_end", {"R": End(1)}, table=[-1, -1])
    hand, _ = position(rules, [["1-6"], ["0-0", "2-2"]], layout=lay)
    hand.record.penalties[:] = [30, 0]
    hand.play_turn()
    assert hand.record.went_out == 0 and hand.record.winner == 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_option_cumulative_hands(players):
    """§15 ladder.cumulative_hands = K: K hands, each first player by lot; penalties summed; the
    lowest total wins, a tie means no winner. Default: one hand; its winner wins the match."""
    seed = 13
    strategies = [get("random")] * players
    one = play_match(make_rules("ladder", players), seed, 0, strategies)
    assert one.length == 1 and one.winner == one.hands[0].winner
    for k in (2, 4):
        mrec = play_match(make_rules("ladder", players, cumulative_hands=k), seed, 0, strategies)
        assert mrec.length == k
        assert [h.leader for h in mrec.hands] == [
            seeding.lot(seed, players, 0, i) for i in range(k)
        ]
        totals = [sum(h.penalties[s] for h in mrec.hands) for s in range(players)]
        assert mrec.scores == totals
        low = min(totals)
        best = [s for s in range(players) if totals[s] == low]
        assert mrec.winner == (best[0] if len(best) == 1 else None)
        for h in mrec.hands:
            assert h.hand_length == sum(1 for e in h.events if e["type"] == "place")
            assert h.penalties == [
                10 * sum(1 for e in h.events if e["type"] == "pass" and e["seat"] == s)
                for s in range(players)
            ]
