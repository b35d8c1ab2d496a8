"""RULES §14 (kozel) worked examples, every §15 kozel option, and kozel's match end on the
reference engine. Hands end by the engine's own domino/fish detection from a built position;
the charges come from settle_kozel and are read from the KozelBook and the score events."""

import pytest

from dominosim.game import seeding, tiles
from dominosim.game.reference import (
    Hand,
    HandRecord,
    KozelBook,
    MatchOver,
    MatchRecord,
    PrevHand,
    _match_over,
    choose_leader,
    first_hand_leader,
    play_match,
    settle_kozel,
)
from dominosim.game.variants import make_rules
from dominosim.strategy import get

from helpers import ends_of, events, line, position, scored, t


def finish(hand):
    try:
        for _ in range(200):  # a hand that never ends is a failure, not a hang
            if hand.over:
                break
            hand.play_turn()
        assert hand.over
    except MatchOver:  # pragma: no cover - kozel has no race target
        raise AssertionError("kozel raised MatchOver") from None


def domino(rules, others, book, out_seat=0):
    """Seat ``out_seat`` places its last tile 0-1 on the 0 of [2 | 0] and goes out; the other
    seats hold ``others`` (in seat order, skipping ``out_seat``). Then the hand is charged."""
    hands = list(others)
    hands.insert(out_seat, ["0-1"])
    hand, _ = position(rules, hands, layout=line("[2 | 0]"), to_move=out_seat, kozel=book)
    finish(hand)
    assert hand.record.end_reason == "domino" and hand.record.went_out == out_seat
    settle_kozel(hand, book)
    return hand


def fish(rules, hands, book, maker=0):
    """Seat ``maker`` (holding 1-6 in ``hands``) places 1-6 on the 1 of [6 | 1], leaving
    [6 | 6]; nobody holds a 6 and nothing is drawable -> fish. Then the hand is charged."""
    hand, _ = position(
        rules, hands, layout=line("[6 | 1]"), to_move=maker, moves=["1-6@R"], kozel=book
    )
    finish(hand)
    assert ends_of(hand) == "[6 | 6]"
    assert hand.record.blocked and hand.record.fish_maker == maker
    settle_kozel(hand, book)
    return hand


def match_over(rules, book):
    mrec = MatchRecord(0)
    done = _match_over(rules, HandRecord(0, 0), None, book, mrec, 0)
    return done, mrec


def book_with(sides, written=None, pending=None):
    book = KozelBook(sides)
    if written is not None:
        book.written = list(written)
    if pending is not None:
        book.pending = list(pending)
    return book


# --- worked examples ------------------------------------------------------------------------


def test_14_E1_team_charged_for_both_partners():
    """§14.E1: Teams. A1 goes out; B1 holds 8 and B2 holds 17; B's written score is empty ->
    B is charged 25 and writes 25 (A2's tiles are ignored)."""
    rules = make_rules("kozel", 4)
    book = KozelBook(2)
    hand = domino(rules, [["4-4"], ["5-5"], ["6-6", "2-3"]], book)
    assert hand.record.winner == 0
    assert scored(hand) == [(1, 25, "charge")]
    assert book.written == [None, 25] and book.pending == [0, 0]
    assert hand.record.points == [0, 25]


def test_14_E2_thirteen_point_rule_pending_then_written():
    """§14.E2: B's written score is empty. B is charged 9 -> pending 9, nothing written. In the
    next hand B is charged 6 -> pending 15 >= 13 -> B writes 15."""
    rules = make_rules("kozel", 2)
    book = KozelBook(2)
    h1 = domino(rules, [["4-5"]], book)
    assert scored(h1) == [(1, 9, "charge")]
    assert book.written == [None, None] and book.pending == [0, 9]
    assert book.totals() == [0, 0]  # pending never counts toward 101
    h2 = domino(rules, [["2-4"]], book)
    assert scored(h2) == [(1, 6, "charge")]
    assert book.written == [None, 15] and book.pending == [0, 0]


def test_14_E3_written_score_takes_every_charge():
    """§14.E3: B has 20 written and is charged 4 -> 24."""
    rules = make_rules("kozel", 2)
    book = book_with(2, written=[None, 20])
    domino(rules, [["0-4"]], book)
    assert book.written == [None, 24]


@pytest.mark.parametrize(
    "b1, opts, charge",
    [
        (["0-0"], {}, 17),  # lone 0-0 counts 10: 10 + 7
        (["0-0"], {"lone_00_value": 25}, 32),  # 25 + 7
        (["0-0", "0-2"], {}, 9),  # 0-0 with another tile counts its pips: 0 + 2 + 7
        (["0-0", "0-2"], {"lone_00_value": 25}, 9),
    ],
)
def test_14_E4_lone_double_zero(b1, opts, charge):
    """§14.E4: Team B loses. B1's hand is exactly {0-0} and B2 holds {3-4} -> B is charged
    10 + 7 = 17 (32 with lone_00_value = 25)."""
    rules = make_rules("kozel", 4, **opts)
    book = KozelBook(2)
    hand = domino(rules, [b1, ["6-6"], ["3-4"]], book)
    assert scored(hand) == [(1, charge, "charge")]
    assert hand.record.values[1] == charge  # the hand value (§14.12) ...
    assert hand.record.pips[1] == 7 + 2 * (len(b1) > 1)  # ... and the pips (0-0 has none)


# Teams fish at A 14 : B 14 (A1 {0-4} 4 + A2 {5-5} 10; B1 {4-5} 9 + B2 {0-5} 5).
TEAM_EGGS = [["1-6", "0-4"], ["4-5"], ["5-5"], ["0-5"]]


def test_14_E5_eggs_pot_added_to_next_charge():
    """§14.E5: Teams, fish with A 14 and B 14 -> eggs: nobody is charged; pot 28. In the next
    hand A goes out and B holds 11 -> B is charged 11 + 28 = 39 (the 13-point rule applies to
    39); the pot is emptied."""
    rules = make_rules("kozel", 4)
    book = KozelBook(2)
    eggs = fish(rules, TEAM_EGGS, book)
    assert eggs.record.values == [14, 14]
    assert scored(eggs) == [] and eggs.record.winner is None
    assert events(eggs, "eggs")[0]["pot"] == 28 and book.pot == 28
    assert book.written == [None, None] and book.pending == [0, 0]
    nxt = domino(rules, [["5-4"], ["6-6"], ["0-2"]], book)
    assert scored(nxt) == [(1, 39, "charge")]
    assert book.written == [None, 39] and book.pot == 0


def test_14_E6_goat_two_sides():
    """§14.E6: 2 sides. B has 95 written and is charged 7 -> 102 >= 101 -> B is the goat; A
    wins; the match ends. (Charged 5 instead, B stands at 100 and play goes on.)"""
    rules = make_rules("kozel", 2)
    book = book_with(2, written=[None, 95])
    domino(rules, [["3-4"]], book)
    assert book.written == [None, 102]
    done, mrec = match_over(rules, book)
    assert done and mrec.losers == [1] and mrec.winner == 0 and mrec.scores == [0, 102]
    book = book_with(2, written=[None, 95])
    domino(rules, [["2-3"]], book)
    assert book.written == [None, 100]
    assert match_over(rules, book)[0] is False


# 2 players, fish: A {4-5, 0-2} = 11, B {5-5, 4-4, 1-1} = 20.
@pytest.mark.parametrize(
    "maker, opts, charge",
    [
        (1, {}, 20),
        (0, {}, 20),
        (1, {"fish_maker_takes_all": True}, 31),  # B made the fish: B pays everything
        (0, {"fish_maker_takes_all": True}, 20),  # A made it but A is lowest: 14.10 applies
    ],
)
def test_14_E7_fish_and_fish_maker_takes_all(maker, opts, charge):
    """§14.E7: 2 players, fish with A 11 and B 20 -> B is charged 20. With fish_maker_takes_all:
    if B made the fish, B is charged 31; if A made it, B is charged 20."""
    rules = make_rules("kozel", 2, **opts)
    hands = [["4-5", "0-2"], ["5-5", "4-4", "1-1"]]
    hands[maker] = ["1-6"] + hands[maker]
    book = KozelBook(2)
    hand = fish(rules, hands, book, maker=maker)
    assert hand.record.values == [11, 20] and hand.record.winner == 0
    assert scored(hand) == [(1, charge, "charge")]
    assert book.written == [None, charge]


def test_option_fish_maker_takes_all_three_sides():
    """kozel.fish_maker_takes_all: only the fish-maker's side is charged, the sum of all sides'
    values; the other higher side goes free (A 5 lowest, B 9 made the fish, C 14)."""
    hands = [["0-5"], ["1-6", "4-5"], ["5-5", "0-4"]]
    for opts, expect in (
        ({}, [(1, 9, "charge"), (2, 14, "charge")]),
        ({"fish_maker_takes_all": True}, [(1, 28, "charge")]),
    ):
        hand = fish(make_rules("kozel", 3, **opts), hands, KozelBook(3), maker=1)
        assert scored(hand) == expect


def random_hand(rules, hands, stock):
    return Hand.from_position(rules, hands, stock=stock, strategies=[get("random")] * rules.players)


def rest_of_set(hands):
    used = {t(x) for h in hands for x in h}
    return [tiles.name(x) for x in range(28) if x not in used]


E8_HANDS = [
    ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
    ["3-3", "5-5", "1-2", "1-3", "1-4", "1-5", "1-6"],
    ["4-4", "2-3", "2-4", "2-5", "2-6", "3-4", "3-5"],
]  # 1-1, 2-2 and 6-6 are undealt (in the stock)


@pytest.mark.parametrize(
    "opts, seat, tile", [({}, 1, "3-3"), ({"kozel_zero_double_lowest": True}, 0, "0-0")]
)
def test_14_E8_lowest_double_leads_zero_last(opts, seat, tile):
    """§14.E8: 3 players, hand 1. A holds 0-0; B holds 3-3 and 5-5; C holds 4-4; nobody holds
    1-1 or 2-2 -> B leads 3-3. With kozel_zero_double_lowest -> A leads 0-0."""
    rules = make_rules("kozel", 3, **opts)
    hand = random_hand(rules, E8_HANDS, rest_of_set(E8_HANDS))
    assert first_hand_leader(hand) == (seat, t(tile))
    hand.play(None)
    first = events(hand, "place")[0]
    assert first["lead"] and (first["seat"], first["tile"]) == (seat, t(tile))
    assert hand.record.leader == seat


def test_14_E9_no_double_dealt_highest_tile_leads():
    """§14.E9: 2 players, hand 1, no double dealt. A holds 6-3; B holds 5-4 and 6-2; 6-5 and 6-4
    are undealt -> A leads 6-3."""
    rules = make_rules("kozel", 2)
    hands = [
        ["6-3", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
        ["5-4", "6-2", "1-2", "1-3", "1-4", "1-5", "1-6"],
    ]
    stock = rest_of_set(hands)
    assert {"6-5", "6-4"} <= {tiles.name(t(x)) for x in stock}
    hand = random_hand(rules, hands, stock)
    assert first_hand_leader(hand) == (0, t("6-3"))
    hand.play(None)
    first = events(hand, "place")[0]
    assert first["lead"] and (first["seat"], first["tile"]) == (0, t("6-3"))


def test_14_4_four_players_holder_of_1_1_leads_it():
    """§14.4: with 4 players the holder of 1-1 leads 1-1 (not the lowest double 0-0)."""
    # fmt: off
    hands = [["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6"],
             ["6-6", "1-2", "1-3", "1-4", "1-5", "1-6", "2-3"],
             ["1-1", "2-4", "2-5", "2-6", "3-4", "3-5", "3-6"],
             ["2-2", "3-3", "4-4", "5-5", "4-5", "4-6", "5-6"]]
    # fmt: on
    for opts in ({}, {"kozel_individual_4p": True}):
        hand = random_hand(make_rules("kozel", 4, **opts), hands, [])
        assert first_hand_leader(hand) == (2, t("1-1"))
        hand.play(None)
        first = events(hand, "place")[0]
        assert (first["seat"], first["tile"]) == (2, t("1-1"))


def test_14_E10_three_sides_two_tie_lowest():
    """§14.E10: 3 players, fish with A 5, B 5 and C 12 -> A and B are charged nothing; C is
    charged 12 (with an empty written score, pending becomes 12); hand winner none."""
    rules = make_rules("kozel", 3)
    book = KozelBook(3)
    hand = fish(rules, [["1-6", "0-5"], ["1-4"], ["5-5", "0-2"]], book)
    assert hand.record.values == [5, 5, 12]
    assert hand.record.winner is None
    assert scored(hand) == [(2, 12, "charge")]
    assert book.pending == [0, 0, 12] and book.written == [None, None, None]
    assert book.pot == 0  # only two sides tie: not eggs


def test_14_E11_two_goats_three_sides():
    """§14.E11: 3 players with written scores A 104, B 60, C 101 -> A and C are goats; B wins."""
    rules = make_rules("kozel", 3)
    done, mrec = match_over(rules, book_with(3, written=[104, 60, 101]))
    assert done and mrec.losers == [0, 2] and mrec.winner == 1


def test_14_11a_lowest_written_wins_empty_counts_zero_tie_no_winner():
    """§14.11a: the winner is the lowest written score (empty counts 0); a tie for lowest means
    no winner; nothing at the target means the match goes on."""
    rules = make_rules("kozel", 3)
    done, mrec = match_over(rules, book_with(3, written=[105, None, 10]))
    assert done and mrec.losers == [0] and mrec.winner == 1
    done, mrec = match_over(rules, book_with(3, written=[101, 40, 40]))
    assert done and mrec.losers == [0] and mrec.winner is None
    assert match_over(rules, book_with(3, written=[100, 99, None], pending=[0, 0, 12]))[0] is False


# 2 players, fish at A 14 : B 14.
EGGS_2P = [["1-6", "0-4", "5-5"], ["4-5", "0-5"]]


@pytest.mark.parametrize(
    "opts, written_before, streak, expect_charge, expect_written",
    [
        ({"eggs_double_next": True}, None, 1, 22, 22),  # pending 22 >= 13 -> written 22
        ({"eggs_double_next": True}, 20, 1, 22, 42),
        ({"eggs_double_next": True}, None, 2, 44, 44),  # two egg hands: x 2^2
        ({"eggs_double_next": True}, None, 3, 88, 88),  # three: x 2^3
        ({}, None, 1, 39, 39),  # default pot: 11 + 28
        ({}, None, 2, 67, 67),  # pots add up: 11 + 28 + 28
    ],
)
def test_14_E12_eggs_double_next(opts, written_before, streak, expect_charge, expect_written):
    """§14.E12: eggs_double_next. Fish with A 14 and B 14 -> eggs. In the next hand B is
    charged 11 -> 11 x 2 = 22. The doubling comes before the 13-point rule: if B already has
    a written score, 22 is added to it; if B's written score is empty and nothing is pending,
    pending becomes 22 >= 13, so 22 is written."""
    rules = make_rules("kozel", 2, **opts)
    book = book_with(2, written=[None, written_before])
    for _ in range(streak):
        eggs = fish(rules, EGGS_2P, book)
        assert eggs.record.values == [14, 14] and scored(eggs) == []
    if opts:
        assert book.pot == 0 and book.egg_streak == streak
    else:
        assert book.pot == 28 * streak
    nxt = domino(rules, [["5-6"]], book)
    assert scored(nxt) == [(1, expect_charge, "charge")]
    assert book.written == [None, expect_written] and book.pending == [0, 0]
    assert book.pot == 0 and book.egg_streak == 0


def test_14_E13_pot_added_to_every_charged_side():
    """§14.E13: 3 players. The previous hand was eggs with A, B and C at 7 each, so the pot is
    21. A goes out; B holds 9 and C holds 14 -> B is charged 9 + 21 = 30 and C is charged
    14 + 21 = 35 (every charged side adds the whole pot); the pot is emptied."""
    rules = make_rules("kozel", 3)
    book = KozelBook(3)
    eggs = fish(rules, [["1-6", "3-4"], ["2-5"], ["0-5", "1-1"]], book)
    assert eggs.record.values == [7, 7, 7] and book.pot == 21
    nxt = domino(rules, [["4-5"], ["6-6", "0-2"]], book)
    assert scored(nxt) == [(1, 30, "charge"), (2, 35, "charge")]
    assert book.written == [None, 30, 35] and book.pot == 0


# --- §14.5 later leads, §14.7 drawing -------------------------------------------------------


def test_14_5_later_leads_out_else_fish_maker():
    """§14.5: the player who went out leads any tile; after a block, the fish-maker does."""
    rules = make_rules("kozel", 3)
    hand = Hand.from_position(rules, E8_HANDS)
    assert choose_leader(hand, PrevHand(0, 2, 2, None, False, [5, 5, 0])) == (2, None)
    # fish won by A (lowest), made by C: C leads
    assert choose_leader(hand, PrevHand(0, 0, None, 2, True, [1, 5, 9])) == (2, None)
    for players in (2, 3):
        for seed in range(2):
            m = play_match(make_rules("kozel", players), seed, 0, [get("random")] * players)
            for prev, rec in zip(m.hands, m.hands[1:], strict=False):
                exp = prev.went_out if prev.went_out is not None else prev.fish_maker
                assert rec.leader == exp
                assert [e for e in rec.events if e["type"] == "place"][0]["seat"] == exp


def test_14_7_draw_until_playable_2_players():
    """§14.7: 2-3 players draw until a fitting tile appears; drawn tiles stay in hand."""
    rules = make_rules("kozel", 2)
    hand, _ = position(
        rules,
        [["3-3"], ["6-4"]],
        layout=line("[3 | 5]"),
        to_move=1,
        stock=["1-2", "5-1", "0-0"],
        kozel=KozelBook(2),
    )
    hand.play_turn()
    assert [e["tile"] for e in events(hand, "draw")] == [t("1-2"), t("5-1")]
    assert ends_of(hand) == "[3 | 1]"
    assert sorted(hand.hands[1]) == sorted([t("6-4"), t("1-2")])


def test_option_reserve_k():
    """kozel.reserve_k = 1: the last stock tile is never drawn. B cannot play; stock 1-2, 5-1:
    by default B draws both and places 5-1; with the reserve B draws only 1-2 and knocks, and
    as A cannot play either the hand is a fish although a tile remains in the stock."""
    for opts in ({}, {"reserve_k": 1}):
        rules = make_rules("kozel", 2, **opts)
        hand, _ = position(
            rules,
            [["6-6"], ["6-4"]],
            layout=line("[3 | 5]"),
            to_move=1,
            stock=["1-2", "5-1"],
            kozel=KozelBook(2),
        )
        hand.play_turn()
        drawn = [e["tile"] for e in events(hand, "draw")]
        if opts:
            assert drawn == [t("1-2")] and hand.stock == [t("5-1")]
            assert events(hand, "pass") == [{"type": "pass", "seat": 1}]
            assert hand.over and hand.record.blocked
        else:
            assert drawn == [t("1-2"), t("5-1")] and ends_of(hand) == "[3 | 1]"
            assert not hand.over


def test_14_7_four_players_no_drawing():
    """§14.7: with 4 players the whole set is dealt and nobody ever draws; a player who cannot
    play knocks."""
    rules = make_rules("kozel", 4)
    for seed in range(2):
        m = play_match(rules, seed, 0, [get("random")] * 4)
        for rec in m.hands:
            assert rec.draws == 0
            deal = [e for e in rec.events if e["type"] == "deal"][0]
            assert [len(h) for h in deal["hands"]] == [7] * 4 and deal["stock"] == []


# --- §15 options ----------------------------------------------------------------------------


def test_option_kozel_individual_4p():
    """kozel.kozel_individual_4p: 4 players are 4 sides. A goes out; B 8, C 5, D 17. As teams
    (default) team B (B, D) is charged 25 and C's tiles are ignored; individually B, C, D are
    charged 8, 5 and 17, each under its own 13-point rule."""
    others = [["4-4"], ["2-3"], ["6-6", "1-4"]]
    book = KozelBook(2)
    hand = domino(make_rules("kozel", 4), others, book)
    assert scored(hand) == [(1, 25, "charge")] and book.written == [None, 25]
    rules = make_rules("kozel", 4, kozel_individual_4p=True)
    assert rules.sides == 4
    book = KozelBook(4)
    hand = domino(rules, others, book)
    assert scored(hand) == [(1, 8, "charge"), (2, 5, "charge"), (3, 17, "charge")]
    assert book.written == [None, None, None, 17] and book.pending == [0, 8, 5, 0]
    # §14.11a applies with 4 sides
    done, mrec = match_over(rules, book_with(4, written=[None, 40, 120, 101]))
    assert done and mrec.losers == [2, 3] and mrec.winner == 0


def needs_redeal(hands) -> bool:
    """§15 kozel_redeal, written independently: 5+ doubles or 6+ tiles bearing one number."""
    for h in hands:
        if sum(1 for x in h if tiles.is_double(x)) >= 5:
            return True
        for v in range(7):
            if sum(1 for x in h if v in tiles.halves(x)) >= 6:
                return True
    return False


def split(order, players=4, h=7):
    return [order[s * h : (s + 1) * h] for s in range(players)]


def test_option_kozel_redeal():
    """kozel.kozel_redeal: a deal in which a hand holds 5+ doubles (or 6+ tiles of a number)
    is reshuffled and redealt; the redeal is not a new hand. By default the deal stands."""
    seed = 0
    match = next(m for m in range(5000) if needs_redeal(split(seeding.shuffle(seed, 4, m, 0, 0))))
    plain = Hand.deal(make_rules("kozel", 4), seed, match, 0)
    assert plain.hands == split(seeding.shuffle(seed, 4, match, 0, 0))
    assert plain.record.redeals == 0 and needs_redeal(plain.hands)
    rules = make_rules("kozel", 4, kozel_redeal=True)
    again = Hand.deal(rules, seed, match, 0)
    k = again.record.redeals
    assert k >= 1 and not needs_redeal(again.hands)
    assert again.hands == split(seeding.shuffle(seed, 4, match, 0, k))
    assert all(needs_redeal(split(seeding.shuffle(seed, 4, match, 0, a))) for a in range(k))
    m = play_match(rules, seed, match, [get("random")] * 4, unit="hand")
    assert m.length == 1 and m.hands[0].hand_index == 0 and m.hands[0].redeals == k
    deal = [e for e in m.hands[0].events if e["type"] == "deal"][0]
    assert deal["hands"] == again.hands and deal["redeals"] == k


@pytest.mark.parametrize(
    "b, opts, value",
    [
        (["6-6"], {}, 12),
        (["6-6"], {"lone_66_value": 50}, 50),
        (["6-6", "0-2"], {"lone_66_value": 50}, 14),
    ],
)
def test_option_lone_66_value(b, opts, value):
    """kozel.lone_66_value = 50: a player whose hand is exactly 6-6 counts 50 (default 12)."""
    rules = make_rules("kozel", 2, **opts)
    book = KozelBook(2)
    hand = domino(rules, [b], book)
    assert scored(hand) == [(1, value, "charge")]


def test_option_kozel_target():
    """kozel.kozel_target: B has 45 written and is charged 7 -> 52: the goat with target 50,
    not with the default 101."""
    for opts, done in (({}, False), ({"kozel_target": 50}, True)):
        rules = make_rules("kozel", 2, **opts)
        book = book_with(2, written=[None, 45])
        domino(rules, [["3-4"]], book)
        assert book.written == [None, 52]
        over, mrec = match_over(rules, book)
        assert over is done
        if done:
            assert mrec.losers == [1] and mrec.winner == 0


@pytest.mark.parametrize(
    "opts, a_written, dry",
    [({}, None, False), ({"dry_goat": True}, None, True), ({"dry_goat": True}, 13, False)],
)
def test_option_dry_goat(opts, a_written, dry):
    """kozel.dry_goat: a goat whose opponents all have an empty written score (pending does not
    count) loses dry."""
    rules = make_rules("kozel", 2, **opts)
    book = book_with(2, written=[a_written, 95], pending=[12 if a_written is None else 0, 0])
    domino(rules, [["3-4"]], book)
    done, mrec = match_over(rules, book)
    assert done and mrec.losers == [1] and mrec.winner == 0
    assert mrec.dry is dry


def test_option_kozel_positive_scoring_domino():
    """kozel.kozel_positive_scoring: the charge (B's 20) is credited to the side that went out
    instead, through the 13-point rule on A's side."""
    others = [["5-5", "4-6"]]
    book = KozelBook(2)
    hand = domino(make_rules("kozel", 2), others, book)
    assert scored(hand) == [(1, 20, "charge")] and book.written == [None, 20]
    book = KozelBook(2)
    hand = domino(make_rules("kozel", 2, kozel_positive_scoring=True), others, book)
    assert scored(hand) == [(0, 20, "credit")] and book.written == [20, None]


def test_option_kozel_positive_scoring_fish_each_lowest_credited():
    """kozel_positive_scoring: in a fish each lowest side receives the full amount (§14.E10
    position: A 5, B 5, C 12 -> A and B credited 12 each, pending)."""
    rules = make_rules("kozel", 3, kozel_positive_scoring=True)
    book = KozelBook(3)
    hand = fish(rules, [["1-6", "0-5"], ["1-4"], ["5-5", "0-2"]], book)
    assert scored(hand) == [(0, 12, "credit"), (1, 12, "credit")]
    assert book.pending == [12, 12, 0]


def test_option_kozel_positive_scoring_pot_goes_to_credited_side():
    """kozel_positive_scoring: the egg pot is not added to any charge; the side credited in the
    next non-egg hand receives the whole pot (§14.E5 position: 11 + 28 = 39 to team A)."""
    rules = make_rules("kozel", 4, kozel_positive_scoring=True)
    book = KozelBook(2)
    fish(rules, TEAM_EGGS, book)
    assert book.pot == 28
    nxt = domino(rules, [["5-4"], ["6-6"], ["0-2"]], book)
    assert scored(nxt) == [(0, 39, "credit")]
    assert book.written == [39, None] and book.pot == 0


def test_option_kozel_positive_scoring_match_end():
    """kozel_positive_scoring: at the end of each hand the side with the highest written score
    at or above the target wins; by default the same scores make that side the goat."""
    book = book_with(3, written=[105, 60, None])
    done, mrec = match_over(make_rules("kozel", 3, kozel_positive_scoring=True), book)
    assert done and mrec.winner == 0 and 0 not in mrec.losers
    done, mrec = match_over(make_rules("kozel", 3), book)
    assert done and mrec.losers == [0] and mrec.winner == 2


# --- match end in whole matches (§14.11, §14.11a) ---------------------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_14_11_match_ends_after_first_hand_reaching_target(players):
    """§14.11/§14.11a in records: the written scores (from the 'written' events) stay below 101
    until the last hand; then every side at 101+ loses and the lowest other side wins."""
    rules = make_rules("kozel", players)
    for seed in range(2):
        m = play_match(rules, seed, 0, [get("random")] * players)
        written = [None] * players
        for k, rec in enumerate(m.hands):
            ws = [e for e in rec.events if e["type"] == "written"]
            if ws:
                written = ws[-1]["written"]
            reached = [s for s in range(players) if written[s] is not None and written[s] >= 101]
            if k < m.length - 1:
                assert reached == []
        assert m.losers == reached and reached
        totals = [w or 0 for w in written]
        rest = {s: totals[s] for s in range(players) if s not in reached}
        lo = min(rest.values()) if rest else None
        best = [s for s, v in rest.items() if v == lo]
        assert m.winner == (best[0] if len(best) == 1 else None)
        assert m.scores == totals
