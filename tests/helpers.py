"""Helpers to drive the reference engine from positions built by hand, as RULES.md writes them."""

from __future__ import annotations

import sys

from dominosim.game import actions, seeding, tiles
from dominosim.game.layout import End, Layout
from dominosim.game.reference import Hand, MatchOver, MatchRecord, PrevHand, play_match
from dominosim.game.variants import make_rules
from dominosim.strategy import Strategy, get

# a one-file strategy whose choose_one is ``body`` (tests write it into a strategy folder; sys
# and numpy are there for bodies that use them)
BOT = """import sys

import numpy as np

from dominosim.strategy import Strategy, register


@register
class Bot(Strategy):
    name = "{name}"

    def choose_one(self, obs, legal, key):
        {body}
"""


class Script(Strategy):
    """Plays a fixed list of actions, written as ``"6-5@R"``, ``"draw"``, ``"pass"``, ``"stop"``
    (shared by all seats, consumed in order). Fails the test on an illegal scripted move or when
    the engine asks for more decisions than scripted."""

    name = "script"
    params = {}

    def __init__(self, moves=()):
        super().__init__()
        self.moves = [actions.parse(m) if isinstance(m, str) else m for m in moves]
        self.asked = []  # (seat, legal actions as text) for every question

    def choose_one(self, obs, legal, key):
        self.asked.append((obs.seat, [actions.describe(a) for a in legal]))
        assert self.moves, (
            f"engine asked seat {obs.seat} beyond the script; legal: {self.asked[-1]}"
        )
        a = self.moves.pop(0)
        assert a in legal, f"scripted {actions.describe(a)} not legal; legal: {self.asked[-1][1]}"
        return a


def line(text: str, table: int = 2) -> Layout:
    """``"[4x | 6]"`` -> a LINE layout with ends L=4 (formed by a double) and R=6."""
    left, right = text.strip("[] ").split("|")
    ends = {}
    for pid, part in (("L", left.strip()), ("R", right.strip())):
        ends[pid] = End(int(part.rstrip("x")), part.endswith("x"))
    return Layout.from_ends("line", ends, table=[-1] * table)


def ends_of(hand: Hand) -> str:
    """The layout's ends written as RULES.md does: ``[4x | 6]``."""
    snap = hand.layout.snapshot()
    return "[" + " | ".join(f"{v}{'x' if d else ''}" for v, d in snap.values()) + "]"


def position(rules, hands, moves=(), **kw) -> tuple[Hand, Script]:
    """A Hand at a built position whose every seat plays ``moves`` in order."""
    script = Script(moves)
    hand = Hand.from_position(rules, hands, strategies=[script] * rules.players, **kw)
    hand.record.points = [0] * (rules.players if rules.match_end == "one_hand" else rules.sides)
    return hand, script


def events(hand: Hand, kind: str) -> list[dict]:
    return [e for e in hand.record.events if e["type"] == kind]


def scored(hand: Hand) -> list[tuple[int, int, str]]:
    """Score events as (side, points, reason)."""
    return [(e["side"], e["points"], e["reason"]) for e in events(hand, "score")]


def t(s: str) -> int:
    return tiles.parse(s)


def recorder() -> Strategy:
    """A strategy that always takes the first legal action and keeps every question it was asked
    as ``(seat, legal actions as text, Observation)`` in ``.asked``: for whole hands played from
    a deal, where only some decisions matter to the test."""

    class Recorder(Strategy):
        name = "recorder"
        params = {}

        def __init__(self):
            super().__init__()
            self.asked = []

        def choose_one(self, obs, legal, key):
            self.asked.append((obs.seat, [actions.describe(a) for a in legal], obs))
            return legal[0]

    return Recorder()


def scripted_match(monkeypatch, rules, deals, moves=(), seed=0) -> MatchRecord:
    """``play_match`` whose hand k is dealt ``deals[k]`` = (hands, stock) instead of a shuffle;
    every seat plays the shared script."""
    script = Script(moves)

    def fake_deal(cls, rules, seed, match_id, hand_index, **kw):
        hands, stock = deals[hand_index]
        hand = cls(
            rules,
            [[t(x) for x in h] for h in hands],
            [t(x) for x in stock],
            match_id=match_id,
            hand_index=hand_index,
            seed=seed,
            **kw,
        )
        hand.attempt = 0
        return hand

    monkeypatch.setattr(Hand, "deal", classmethod(fake_deal))
    match = play_match(rules, seed, 0, [script] * rules.players)
    assert script.moves == [], "script not consumed"
    return match


def events_of(rec, kind):
    return [e for e in rec.events if e["type"] == kind]


def highest_double_holder(deal_hands):
    held = [x for h in deal_hands for x in h]
    doubles = [d for d in reversed(tiles.DOUBLES) if d in held]
    best = doubles[0] if doubles else max(held, key=tiles.nondouble_key)
    return next(s for s, h in enumerate(deal_hands) if best in h), best


def lead_event(hand):
    first = events(hand, "place")[0]
    assert first["lead"]
    return first["seat"], first["tile"]


def run(hand):
    """Play turns until the hand ends; the MatchOver raised by a score event, or None."""
    try:
        for _ in range(200):  # a hand that never ends is a failure, not a hang
            if hand.over:
                break
            hand.play_turn()
        assert hand.over
    except MatchOver as exc:
        return exc
    return None


def prev_of(hand) -> PrevHand:
    """What the next hand's lead rules see about ``hand`` (as play_match builds it)."""
    rec = hand.record
    return PrevHand(
        rec.leader,
        rec.winner,
        rec.went_out,
        rec.fish_maker,
        rec.blocked,
        [hand.seat_pips(s) for s in range(hand.P)],
    )


def seed_with_lot(players, seat, hand_index=0):
    """A seed whose lot for (match 0, hand ``hand_index``) is ``seat`` (§1.3)."""
    return next(s for s in range(1000) if seeding.lot(s, players, 0, hand_index) == seat)


def pimc_module():
    """The module of the built-in ``pimc`` (strategies/pimc.py), as the registry loaded it."""
    return sys.modules[type(get("pimc")).__module__]


class GreedySeen(Strategy):
    """Plays ``greedy`` and keeps every decision with two or more legal actions."""

    name = "seen"

    def __init__(self):
        super().__init__()
        self.seen = []
        self.inner = get("greedy")

    def choose_one(self, obs, legal, key):
        if len(legal) >= 2:
            self.seen.append((obs, list(legal), key))
        return self.inner.choose_one(obs, legal, key)


def greedy_decisions(variant: str, matches: int, players: int = 2) -> list:
    """(Observation, legal, key) of every decision with a choice in the first hands of
    ``matches`` match ids (seed 12) that ``greedy`` plays at every seat."""
    w = GreedySeen()
    for m in range(matches):
        play_match(make_rules(variant, players), 12, m, [w] * players, unit="hand")
    return w.seen


def hands_by_batch(make, batches, games: int, variant: str = "block") -> list:
    """The winner and points of each hand of ``games`` hands at 2 players, ``make()`` (a new
    instance each time) against greedy, played once per batch size of ``batches``: a
    decision that depends on its batch shows as lists that differ. Each entry is
    ``(outcomes, instance)``, so a test can ask what the instance did."""
    import numpy as np

    from dominosim.engine import BatchEngine

    rules = make_rules(variant, 2)
    played = []
    for batch in batches:
        spec = make()
        hands, _ = BatchEngine(
            rules, 5, [spec, get("greedy")], range(games), unit="hand", batch_size=batch
        ).run()
        order = np.argsort(hands["match_id"])
        played.append(
            ({k: np.asarray(hands[k])[order].tolist() for k in ("winner", "points")}, spec)
        )
    return played
