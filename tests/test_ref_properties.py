"""Property tests: random matches of every variant, replayed by an independent rule checker.

Hypothesis plays matches of all twelve variants (2-4 players, partnership and a set of §15
option combinations, small targets) with the uniformly random strategy, and :class:`Replay`
walks every hand's event list with its own model of RULES.md: its own layout (§1.8-§1.10), end
count (§1.11), drawing modes (§1.7), forced play (§1.6), blind turns (§3.7), block test (§1.12),
in-play scoring (§4.8, §5.8, §6.8, §7.8, §11.8), settlement (§n.10, §14.10-§14.14) and match end
(§1.14, §9.11, §14.11). The checker never calls the engine's layout, settlement or scoring code:
at every decision it works out the legal set itself and checks that the event the engine
recorded is in it, so forced play, illegal passes, late or early blocks and wrong awards all fail.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dominosim import seeding, tiles
from dominosim.errors import RulesError
from dominosim.reference import play_match
from dominosim.strategy import get
from dominosim.variants import VARIANTS, make_rules, with_target

# --------------------------------------------------------------------------------------------
# Small independent rule tables (RULES §2, §n.2, §n.11)
# --------------------------------------------------------------------------------------------

DEAL = {
    "blind": (7, 5, 5),
    "bergen": (6, 6, 5),
    "fives": (6, 6, 5),
    "threes": (6, 6, 5),
    "sniff": (7, 5, 5),
    "basic": (7, 5, 5),
    "two-lane": (5, 5, 6),
    "ladder": (5, 5, 5),
    "muggins": (7, 5, 5),
    "block": (7, 5, 5),
    "classic": (7, 7, 7),
    "kozel": (7, 7, 7),
}
TARGET = {
    "blind": (100, 100, 100),
    "bergen": (15, 10, 10),
    "fives": (25, 20, 20),
    "threes": (33, 22, 22),
    "sniff": (61, 61, 61),
    "basic": (100, 100, 100),
    "muggins": (100, 100, 100),
    "block": (50, 50, 50),
    "classic": (100, 100, 100),
    "kozel": (101, 101, 101),
}
INF = 10**9


def lo_hi(t: int) -> tuple[int, int]:
    return tiles.halves(t)


def fits(t: int, v: int) -> bool:
    return v in lo_hi(t)


def pips(t: int) -> int:
    return sum(lo_hi(t))


def dbl(t: int) -> bool:
    a, b = lo_hi(t)
    return a == b


def D(v: int) -> int:
    return tiles.tile_index(v, v)


def rank(t: int) -> tuple[int, int]:
    """§1.2 non-double order: pip sum, then the larger half."""
    a, b = lo_hi(t)
    return (a + b, max(a, b))


def round5(x: int) -> int:
    return 5 * ((x + 2) // 5)


def unique_min(values: dict) -> int | None:
    lo = min(values.values())
    best = [k for k, v in values.items() if v == lo]
    return best[0] if len(best) == 1 else None


class Spec:
    """The rules of one configuration, derived from the variant name and its §15 options only."""

    def __init__(self, rules):
        v, P, o = rules.variant, rules.players, dict(rules.options)
        self.v, self.P, self.o = v, P, o
        h = DEAL[v][P - 2]
        if v == "blind" and o.get("blind_deal") == "all_tiles":
            h = (14, 9, 7)[P - 2]
        if v == "sniff" and self.on("sniff_pagat_deal"):
            h = (7, 6, 5)[P - 2]
        if (v == "muggins" and self.on("muggins_deal_7_all")) or (
            v == "block" and self.on("block_deal_7_all")
        ):
            h = 7
        self.h = h
        self.partner = self.on("partnership") or (
            v == "kozel" and P == 4 and not self.on("kozel_individual_4p")
        )
        self.sides = 2 if self.partner else P
        spinner = v == "sniff" or (v == "muggins" and self.on("first_double_spinner"))
        self.layout = "spinner" if spinner else ("single" if v == "ladder" else "line")
        self.all_four = self.on("spinner_open_all_four_immediately")
        self.us = self.on("us_sniff_counting")
        self.inline = self.on("inline_double_counts_single")
        # drawing mode (§n.7), limit per turn, reserve (§1.5)
        mode, reserve = "until", 0
        if v == "bergen":
            mode, reserve = ("until" if self.on("bergen_draw_until_playable") else "one"), 2
        elif v in ("fives", "threes", "two-lane", "ladder"):
            mode, reserve = "one", o.get("reserve_k", 0)
        elif v == "sniff":
            reserve = o.get("reserve_k", 0)
        elif v == "muggins":
            reserve = o.get("reserve_k", 2)
        elif v == "block":
            mode = "none"
        elif v == "kozel":
            mode, reserve = ("none" if P == 4 else "until"), o.get("reserve_k", 0)
        elif v == "blind":
            mode = "blind"
        self.mode, self.reserve = mode, reserve
        self.limit = 1 if mode == "one" else (o.get("max_draws_per_turn", 0) or INF)
        self.kind = "race"
        if v in ("two-lane", "ladder"):
            self.kind = "one_hand"
        elif v == "kozel":
            self.kind = "kozel"
        if self.kind == "race":
            default = TARGET[v][P - 2]
            if v == "sniff" and self.on("sniff_book_endgame"):
                default = (25, 20, 20)[P - 2]
            self.target = o.get("target", default)
        elif self.kind == "kozel":
            self.target = o.get("kozel_target", 101)
        self.check_end = self.on("check_only_at_hand_end")
        self.hands_per_match = o.get("cumulative_hands", 0) or 1

    def on(self, name: str) -> bool:
        return bool(self.o.get(name, False))

    def side(self, seat: int) -> int:
        return seat % 2 if self.partner else seat

    def seats(self, side: int) -> list[int]:
        return [side, side + 2] if self.partner else [side]


# --------------------------------------------------------------------------------------------
# An independent table model (§1.8-§1.11)
# --------------------------------------------------------------------------------------------


class Table:
    def __init__(self, spec: Spec):
        self.spec = spec
        self.tiles: list[int] = []
        self.ends: dict[str, tuple[int, bool, bool]] = {}  # id -> (value, by a double, along)
        self.spin: int | None = None
        self.covered: set[str] = set()

    def positions(self) -> list[tuple[str, int]]:
        if not self.tiles:
            return []
        if self.spin is None:
            return [(k, self.ends[k][0]) for k in ("L", "R") if k in self.ends]
        out = []
        for side in "WENS":
            if side in self.covered:
                out.append((side, self.ends[side][0]))
            elif side in "WE" or self.spec.all_four or {"W", "E"} <= self.covered:
                out.append((side, self.spin))  # §1.9: N/S only once W and E are covered
        return out

    def snapshot(self) -> dict:
        out = {}
        for pid, v in self.positions():
            if self.spin is not None and pid not in self.covered:
                out[pid] = [v, True]
            else:
                out[pid] = [v, self.ends[pid][1]]
        return out

    def start(self, t: int) -> None:
        a, b = lo_hi(t)
        self.tiles.append(t)
        self.ends = {"L": (a, a == b, False), "R": (b, a == b, False)}

    def lead(self, t: int, along: bool) -> None:
        a, b = lo_hi(t)
        self.tiles.append(t)
        if self.spec.layout == "spinner" and a == b:
            self.spin = a  # a lead double is the spinner, all four sides uncovered
            return
        self.ends = {"L": (a, a == b, along), "R": (b, a == b, along)}

    def place(self, t: int, pid: str, along: bool) -> None:
        v = dict(self.positions())[pid]
        a, b = lo_hi(t)
        new = (b if a == v else a, a == b, along)
        self.tiles.append(t)
        if self.spec.layout == "single":
            self.ends = {"R": new}  # §1.10: one open end, R, whichever half was built on
        elif self.spin is None:
            if self.spec.layout == "spinner" and a == b:
                other = "R" if pid == "L" else "L"
                self.spin, self.covered, self.ends = v, {"W"}, {"W": self.ends[other]}
            else:
                self.ends[pid] = new
        else:
            self.covered.add(pid)
            self.ends[pid] = new

    def count(self) -> int:
        """End count c (§1.11)."""
        if len(self.tiles) == 1:
            return pips(self.tiles[0])

        def end(e):
            v, d, along = e
            return 2 * v if d and not along else v

        if self.spin is None:
            return sum(end(e) for e in self.ends.values())
        c = sum(end(self.ends[s]) for s in self.covered)
        k, v = len(self.covered), self.spin
        if self.spec.us:
            return c + (2 * v if k <= 2 else v if k == 3 else 0)
        return c + (2 * v if k <= 1 else 0)


# --------------------------------------------------------------------------------------------
# Match state and the replay of one hand
# --------------------------------------------------------------------------------------------


class Stop(Exception):
    """A score event reached the target (§1.14); the checker stops the hand like the engine."""


class Book:
    """Kozel's written scores, pending amounts and egg pot (§14.13, §14.14)."""

    def __init__(self, n):
        self.written = [None] * n
        self.pending = [0] * n
        self.pot = 0
        self.streak = 0

    def charge(self, s, amount):
        if self.written[s] is None:
            self.pending[s] += amount
            if self.pending[s] >= 13:
                self.written[s], self.pending[s] = self.pending[s], 0
        else:
            self.written[s] += amount


class MatchState:
    def __init__(self, spec: Spec):
        self.scores = [0] * (spec.P if spec.kind == "one_hand" else spec.sides)
        self.book = Book(spec.sides) if spec.kind == "kozel" else None
        self.prev = None  # dict describing the previous hand


def needs_redeal(hands) -> bool:
    for h in hands:
        if sum(dbl(t) for t in h) >= 5:
            return True
        if any(sum(fits(t, v) for t in h) >= 6 for v in range(7)):
            return True
    return False


class Replay:
    """Walks one hand's events; every ``take`` checks tile conservation first."""

    def __init__(self, spec: Spec, m: MatchState, seed: int, match_id: int, k: int, rec):
        self.s, self.m, self.seed, self.match_id, self.k, self.rec = spec, m, seed, match_id, k, rec
        self.ev = rec.events
        self.i = 0
        P = spec.P
        self.hands: list[list[int]] = [[] for _ in range(P)]
        self.stock: list[int] = []
        self.limbo: list[int] = []  # blind: the drawn tile before it is placed or sent back
        self.table = Table(spec)
        self.opened = [spec.mode != "blind"] * P
        self.points = [0] * len(m.scores) if spec.kind != "kozel" else [0] * spec.sides
        self.penalties = [0] * P
        self.over = False
        self.last_placer = None
        self.turns = self.placed = self.draws = self.passes = 0
        self.end_event = None
        self.winner = None
        self.target_side = None

    # --- cursor -----------------------------------------------------------------------------
    def where(self) -> str:
        e = self.ev[self.i] if self.i < len(self.ev) else "<end>"
        return f"match {self.match_id} hand {self.k} event {self.i}: {e}"

    def peek(self, typ: str, seat: int | None = None) -> bool:
        if self.i >= len(self.ev):
            return False
        e = self.ev[self.i]
        return e["type"] == typ and (seat is None or e.get("seat") == seat)

    def take(self, typ: str, **fields) -> dict:
        self.conserve()
        assert self.i < len(self.ev), f"expected {typ} {fields}, events ended; {self.where()}"
        e = self.ev[self.i]
        assert e["type"] == typ, f"expected {typ} {fields}; {self.where()}"
        for key, val in fields.items():
            assert e[key] == val, f"expected {typ} {key}={val!r}; {self.where()}"
        self.i += 1
        return e

    def conserve(self) -> None:
        """All 28 tiles are in hands, stock (out of play in block), table or in hand (limbo)."""
        every = [t for h in self.hands for t in h] + self.stock + self.table.tiles + self.limbo
        if self.i > 0:
            assert sorted(every) == list(range(28)), f"tiles not conserved; {self.where()}"

    # --- helpers ----------------------------------------------------------------------------
    def drawable(self) -> int:
        if self.s.mode == "none":
            return 0
        return max(0, len(self.stock) - self.s.reserve)

    def legal(self, seat: int, only=None) -> set[tuple[int, str]]:
        cands = self.hands[seat] if only is None else only
        return {(t, pid) for t in cands for pid, v in self.table.positions() if fits(t, v)}

    def blocked(self) -> bool:
        """§1.12 (a) and (b); §3.9a for blind."""
        pos = self.table.positions()
        if any(fits(t, v) for h in self.hands for t in h for _, v in pos):
            return False
        if self.s.mode == "blind":
            return not self.stock or self.s.on("blind_draw_optional")
        return self.drawable() == 0

    def side_pips(self) -> list[int]:
        out = [0] * self.s.sides
        for seat, h in enumerate(self.hands):
            out[self.s.side(seat)] += sum(pips(t) for t in h)
        return out

    def lot(self) -> int:
        return seeding.lot(self.seed, self.s.P, self.match_id, self.k, self.redeals)

    # --- the hand ---------------------------------------------------------------------------
    def run(self) -> bool:
        """Replay the hand; returns True if the match ended in it."""
        s = self.s
        self.check_deal(self.take("deal"))
        try:
            leader, fixed = self.expected_lead()
            assert self.rec.leader == leader, f"leader {self.rec.leader} != {leader} (§n.4/§n.5)"
            if s.layout == "single" or (
                s.v == "blind" and s.o.get("blind_deal") == "all_tiles" and s.P == 3
            ):
                e = self.take("start_tile", tile=self.stock[0])
                self.table.start(self.stock.pop(0))
                assert e["open"] == self.table.snapshot()
                seat = leader
            else:
                self.lead(leader, fixed)
                seat = (leader + 1) % s.P
            while not self.over:
                self.turns += 1
                self.turn(seat)
                seat = (seat + 1) % s.P
        except Stop:
            pass
        return self.finish_hand()

    def check_deal(self, e: dict) -> None:
        s = self.s
        self.redeals = e["redeals"]
        assert self.redeals == 0 or s.on("kozel_redeal")
        for a in range(self.redeals + 1):
            order = seeding.shuffle(self.seed, s.P, self.match_id, self.k, a)
            hands = [order[i * s.h : (i + 1) * s.h] for i in range(s.P)]
            redo = s.on("kozel_redeal") and needs_redeal(hands)
            assert redo == (a < self.redeals), "kozel_redeal: redeal exactly while §14.2 holds"
        assert e["hands"] == hands and e["stock"] == order[s.P * s.h :], "deal in blocks (§1.5)"
        self.hands = [list(h) for h in hands]
        self.stock = list(e["stock"])
        self.conserve()

    def turn(self, seat: int) -> None:
        if self.s.mode == "blind":
            if self.opened[seat]:
                self.open_turn(seat)
            else:
                self.blind_turn(seat)
        else:
            self.draw_turn(seat)

    # --- leads (§n.4, §n.5) -------------------------------------------------------------------
    def by_double(self, highest: bool) -> tuple[int, int]:
        order = [D(v) for v in (range(6, -1, -1) if highest else range(7))]
        return self.holder_of_first(order, highest)

    def holder_of_first(self, doubles, highest) -> tuple[int, int]:
        for d in doubles:
            for seat, h in enumerate(self.hands):
                if d in h:
                    return seat, d
        held = [t for h in self.hands for t in h]
        t = (max if highest else min)(held, key=rank)
        return next(seat for seat, h in enumerate(self.hands) if t in h), t

    def winner_seat(self) -> int | None:
        """§1.4 team leads: through the partner who went out, else the lower pips, else the
        first after the fish-maker."""
        prev = self.m.prev
        if prev["winner"] is None:
            return None
        if prev["went_out"] is not None:
            return prev["went_out"]
        seats = self.s.seats(prev["winner"])
        if len(seats) == 1:
            return seats[0]
        a, b = seats
        pa, pb = prev["seat_pips"][a], prev["seat_pips"][b]
        if pa != pb:
            return a if pa < pb else b
        start = (prev["fish_maker"] + 1) % self.s.P
        return next((start + i) % self.s.P for i in range(4) if (start + i) % self.s.P in seats)

    def expected_lead(self) -> tuple[int, int | None]:
        s, k, prev = self.s, self.k, self.m.prev
        v, P = s.v, s.P
        if v == "blind":
            seat = self.lot() if k == 0 else (prev["leader"] + 1) % P
            return seat, self.hands[seat][0]
        if v == "bergen":
            return self.by_double(highest=s.on("bergen_highest_double_leads"))
        if v in ("fives", "threes"):
            if k == 0:
                return self.lot(), None
            ws = self.winner_seat() if s.on("lead_winner_of_previous_hand") else None
            return (ws if ws is not None else (prev["leader"] + 1) % P), None
        if v == "sniff":
            if k == 0 or prev["went_out"] is None:
                return self.lot(), None
            return prev["went_out"], None
        if v == "basic":
            if s.on("lead_highest_double"):
                return self.by_double(highest=True)
            ws = self.winner_seat() if k else None
            return (ws if ws is not None else self.lot()), None
        if v in ("two-lane", "ladder"):
            return self.lot(), None
        if v == "muggins":
            if s.on("lead_by_lot"):
                return self.lot(), None
            ws = self.winner_seat() if k else None
            return (ws, None) if ws is not None else self.by_double(highest=True)
        if v in ("block", "classic"):
            ws = self.winner_seat() if k and s.on("lead_winner_of_previous_hand") else None
            return (ws, None) if ws is not None else self.by_double(highest=True)
        assert v == "kozel"
        if k:
            w = prev["went_out"] if prev["went_out"] is not None else prev["fish_maker"]
            return w, None
        if P == 4:
            return self.holder_of_first([D(1)], True)
        order = [D(0)] * s.on("kozel_zero_double_lowest") + [D(x) for x in range(1, 7)]
        if not s.on("kozel_zero_double_lowest"):
            order.append(D(0))
        return self.holder_of_first(order, True)

    def lead(self, seat: int, fixed: int | None) -> None:
        self.turns += 1
        e = self.take("place", seat=seat, lead=True, pos="L")
        t = e["tile"]
        assert t in self.hands[seat], f"lead tile not held; {self.where()}"
        if fixed is not None:
            assert t == fixed, f"lead must be {tiles.name(fixed)}; {self.where()}"
        assert not e["along"] or (self.s.inline and dbl(t))
        self.hands[seat].remove(t)
        self.table.lead(t, e["along"])
        self.after_place(seat, e, lead=True)

    # --- placements, passes, draws ------------------------------------------------------------
    def place_from(self, seat: int, legal: set) -> None:
        e = self.take("place", seat=seat, lead=False)
        t, pid = e["tile"], e["pos"]
        assert (t, pid) in legal, f"illegal or not allowed here: {tiles.name(t)}@{pid}; " + (
            f"allowed {sorted((tiles.name(a), b) for a, b in legal)}; {self.where()}"
        )
        assert not e["along"] or (self.s.inline and dbl(t)), f"bad along; {self.where()}"
        if t in self.limbo:
            self.limbo.remove(t)
        else:
            assert t in self.hands[seat], f"placed tile not in hand; {self.where()}"
            self.hands[seat].remove(t)
        self.table.place(t, pid, e["along"])
        self.after_place(seat, e, lead=False)

    def after_place(self, seat: int, e: dict, lead: bool) -> None:
        s = self.s
        self.placed += 1
        self.last_placer = seat
        assert e["open"] == self.table.snapshot(), f"positions differ (§1.6-§1.10); {self.where()}"
        if s.mode == "blind" and not self.opened[seat] and len(self.hands[seat]) <= 3:
            self.take("open", seat=seat)  # §3.7b
            self.opened[seat] = True
        pts, reason = self.in_play(seat, lead)
        if pts:
            self.take("score", side=s.side(seat), points=pts, reason=reason)
            self.add(s.side(seat), pts, in_play=True)
        if not self.hands[seat]:
            self.end("domino", went_out=seat)  # §1.12 domino (either partner, §1.4)
        elif self.blocked():
            self.end("blocked", fish_maker=seat)

    def in_play(self, seat: int, lead: bool) -> tuple[int, str]:
        s = self.s
        if s.v in ("fives", "sniff", "threes", "muggins"):
            c = self.table.count()
            m = 3 if s.v == "threes" else 5
            if c > 0 and c % m == 0:
                return (c if s.v == "muggins" else c // m), "count"
            return 0, ""
        if s.v != "bergen":
            return 0, ""
        if lead:
            pts = 2 if dbl(self.table.tiles[0]) else 0  # §4.8
        else:
            (v1, d1, _), (v2, d2, _) = self.table.ends["L"], self.table.ends["R"]
            pts = 0 if v1 != v2 else (3 if d1 or d2 else 2)
        if pts and s.on("bergen_near_target_cap"):
            need = s.target - self.m.scores[s.side(seat)]
            pts = 1 if need <= 2 else (min(pts, 2) if need == 3 else pts)
        return pts, "header"

    def add(self, side: int, pts: int, in_play: bool) -> None:
        s = self.s
        self.m.scores[side] += pts
        self.points[side] += pts
        if s.kind == "race" and not s.check_end and self.m.scores[side] >= s.target:
            self.target_side = side
            if in_play:  # §1.14: the match ends at once, end reason target
                self.end_event = self.take(
                    "hand_end", reason="target", winner=side, went_out=None, fish_maker=None
                )
                assert self.end_event["pips"] == self.side_pips()
                self.over = True
                self.winner = side
            raise Stop

    def do_draw(self, seat: int) -> int:
        assert self.drawable() > 0, f"draw with nothing drawable; {self.where()}"
        self.take("draw", seat=seat, tile=self.stock[0])
        t = self.stock.pop(0)
        self.hands[seat].append(t)
        self.draws += 1
        return t

    def do_pass(self, seat: int) -> None:
        s = self.s
        self.take("pass", seat=seat)
        self.passes += 1
        if s.v in ("two-lane", "ladder"):  # §9.8: +10 per failed turn
            self.take("score", side=seat, points=10, reason="failed_turn")
            self.penalties[seat] += 10
            self.points[seat] += 10
        elif s.on("penalty_per_miss"):  # §8.10 option
            self.take("penalty", seat=seat, points=10)
            self.penalties[seat] += 10
        if self.blocked():
            self.end("blocked", fish_maker=self.last_placer)

    # --- turns ----------------------------------------------------------------------------
    def draw_turn(self, seat: int) -> None:
        """§1.6 forced play and §1.7 drawing modes, with the voluntary options of §15."""
        s = self.s
        legal = self.legal(seat)
        voluntary = (s.on("may_draw_when_able") or s.on("bergen_voluntary")) and self.drawable()
        if legal and not voluntary:
            self.place_from(seat, legal)
        elif legal and s.on("may_draw_when_able"):
            while self.peek("draw", seat):
                self.do_draw(seat)
            self.place_from(seat, self.legal(seat))
        elif legal:  # bergen_voluntary: decline, draw one, then place any playable tile or pass
            if self.peek("draw", seat):
                self.do_draw(seat)
                if self.peek("pass", seat):
                    self.do_pass(seat)
                else:
                    self.place_from(seat, self.legal(seat))
            else:
                self.place_from(seat, legal)
        else:
            drawn = 0
            while s.mode != "none" and drawn < s.limit and self.drawable() > 0:
                t = self.do_draw(seat)
                drawn += 1
                options = self.legal(seat, only=[t])
                if options:  # a fitting drawn tile must be placed
                    self.place_from(seat, options)
                    return
            self.do_pass(seat)

    def blind_turn(self, seat: int) -> None:
        """§3.7a: the blind phase."""
        s = self.s
        row = self.hands[seat]
        front = row[0]
        self.take("look", seat=seat, tile=front)
        options = self.legal(seat, only=[front])
        declined = False
        if options:
            if s.on("blind_play_optional") and self.stock and self.peek("to_back", seat):
                declined = True
            else:
                self.place_from(seat, options)
                return
        self.take("to_back", seat=seat, tile=front)
        row.append(row.pop(0))
        if not self.stock:
            self.do_pass(seat)
            return
        if s.on("blind_draw_optional") and not declined and self.peek("pass", seat):
            self.do_pass(seat)
            return
        self.take("draw", seat=seat, tile=self.stock[0])
        t = self.stock.pop(0)
        self.limbo.append(t)
        self.draws += 1
        options = self.legal(seat, only=[t])
        if options and not (s.on("blind_play_optional") and self.peek("to_back", seat)):
            self.place_from(seat, options)
            return
        self.take("to_back", seat=seat, tile=t)
        self.limbo.remove(t)
        row.append(t)
        self.do_pass(seat)

    def open_turn(self, seat: int) -> None:
        """§3.7b-§3.7c: the open phase, several placements and ``stop``."""
        s = self.s
        legal = self.legal(seat)
        if not legal:
            if not self.stock or (s.on("blind_draw_optional") and self.peek("pass", seat)):
                self.do_pass(seat)
                return
            self.take("draw", seat=seat, tile=self.stock[0])
            t = self.stock.pop(0)
            self.hands[seat].append(t)
            self.draws += 1
            legal = self.legal(seat, only=[t])
            if not legal:
                self.do_pass(seat)
                return
        self.place_from(seat, legal)
        while not self.over:
            legal = self.legal(seat)
            if not legal:
                break
            if self.peek("stop", seat):
                self.take("stop", seat=seat)
                break
            self.place_from(seat, legal)

    # --- hand end and settlement ------------------------------------------------------------
    def end(self, reason: str, went_out=None, fish_maker=None) -> None:
        self.end_event = self.take(
            "hand_end", reason=reason, went_out=went_out, fish_maker=fish_maker
        )
        assert self.end_event["pips"] == self.side_pips(), f"pips; {self.where()}"
        self.over = True
        if self.s.kind == "kozel":
            self.settle_kozel()
        else:
            self.winner, awards = self.settlement(went_out)
            for side, pts, why in awards:
                if pts > 0:
                    self.take("score", side=side, points=pts, reason=why)
                    self.add(side, pts, in_play=False)

    def penalty_winner(self, went_out) -> int | None:
        if went_out is not None:
            return went_out
        pen = self.penalties
        tied = [s for s in range(self.s.P) if pen[s] == min(pen)]
        if len(tied) == 1:
            return tied[0]
        return unique_min({s: sum(pips(t) for t in self.hands[s]) for s in tied})

    def settlement(self, went_out) -> tuple[int | None, list]:
        """The expected hand winner and award events (§n.10), from the final position."""
        s = self.s
        v = s.v
        p = self.side_pips()
        sides = range(s.sides)
        out = s.side(went_out) if went_out is not None else None

        def others(w):
            return sum(p[o] for o in sides if o != w)

        if v in ("two-lane", "ladder"):
            return self.penalty_winner(went_out), []
        if v == "basic" and s.on("penalty_per_miss"):
            w = self.penalty_winner(went_out)
            if w is None:
                return None, []
            pen = self.penalties
            return w, [(w, max(0, sum(pen) - 2 * pen[w]), "penalties")]
        if v in ("blind", "basic", "block", "classic"):
            if out is not None:
                return out, [(out, others(out), "domino")]
            if s.on("block_winner_fewest_tiles"):
                w = unique_min({x: len(self.hands[x]) for x in sides})
                return w, ([] if w is None else [(w, others(w), "block")])
            w = unique_min({x: p[x] for x in sides})
            if w is None:
                return None, []
            if s.on("fish_score_sum_only"):
                pts = others(w)
            elif s.on("fish_difference_per_opponent"):
                pts = sum(p[o] - p[w] for o in sides if o != w)
            else:
                pts = max(0, others(w) - p[w])
            return w, [(w, pts, "block")]
        if v in ("fives", "threes") or (v == "sniff" and s.on("sniff_book_endgame")):
            if out is not None:
                return out, [(out, 2, "domino")]
            w = unique_min({x: p[x] for x in sides})
            return w, ([] if w is None else [(w, 1, "block")])
        if v == "sniff":
            if out is not None:
                return out, [(out, round5(others(out)) // 5, "domino")]
            w = unique_min({x: p[x] for x in sides})
            return w, ([] if w is None else [(w, round5(others(w) - p[w]) // 5, "block")])
        if v == "muggins":
            rnd = (lambda x: x) if s.on("muggins_no_rounding") else round5
            if out is not None:
                return out, [(out, sum(rnd(p[o]) for o in sides if o != out), "domino")]
            w = unique_min({x: p[x] for x in sides})
            if s.on("muggins_block_difference_per_opponent"):
                start = (self.last_placer + 1) % s.P
                order = [s.side((start + i) % s.P) for i in range(s.P)]
                ranked = sorted(sides, key=lambda x: (p[x], order.index(x)))
                awards = [
                    (x, sum(rnd(p[o] - p[x]) for o in sides if p[o] > p[x]), "block")
                    for x in ranked
                ]
                return w, awards
            return w, ([] if w is None else [(w, rnd(others(w) - p[w]), "block")])
        assert v == "bergen"
        if out is not None:
            return out, [(out, s.o.get("bergen_domino_bonus", 2), "domino")]
        held = [[t for seat in s.seats(x) for t in self.hands[seat]] for x in sides]
        no_double = [x for x in sides if not any(dbl(t) for t in held[x])]
        if s.on("bergen_block_lowest_hand_1pt"):
            cands = no_double or list(sides)
            w = unique_min({x: sum(pips(t) for t in held[x] if not dbl(t)) for x in cands})
            return w, ([] if w is None else [(w, 1, "block")])
        if len(no_double) == 1:
            w = no_double[0]
        elif no_double:
            w = unique_min({x: p[x] for x in no_double})
        else:
            w = unique_min({x: min(t for t in held[x] if dbl(t)) for x in sides})
        return w, ([] if w is None else [(w, 2, "block")])

    def settle_kozel(self) -> None:
        """§14.10-§14.14 with the book of the match."""
        s, book = self.s, self.m.book
        vals = [0] * s.sides
        for seat, h in enumerate(self.hands):
            if h == [D(0)]:
                val = s.o.get("lone_00_value", 10)
            elif h == [D(6)] and s.o.get("lone_66_value", 0):
                val = s.o["lone_66_value"]
            else:
                val = sum(pips(t) for t in h)
            vals[s.side(seat)] += val
        went_out = self.end_event["went_out"]
        if went_out is not None:
            w = s.side(went_out)
            self.winner, winners = w, [w]
            charges = {x: vals[x] for x in range(s.sides) if x != w}
        else:
            lowest = [x for x in range(s.sides) if vals[x] == min(vals)]
            if len(lowest) == s.sides:  # eggs
                self.winner = None
                if s.on("eggs_double_next"):
                    book.streak += 1
                else:
                    book.pot += sum(vals)
                self.take("eggs", pot=book.pot, streak=book.streak)
                return
            self.winner = lowest[0] if len(lowest) == 1 else None
            winners = lowest
            fm = s.side(self.end_event["fish_maker"])
            if s.on("fish_maker_takes_all") and fm not in lowest:
                charges = {fm: sum(vals)}
            else:
                charges = {x: vals[x] for x in range(s.sides) if x not in lowest}
        mult = 2**book.streak if s.on("eggs_double_next") else 1
        book.streak = 0
        pot, book.pot = book.pot, 0
        if s.on("kozel_positive_scoring"):
            total = sum(c * mult for c in charges.values())
            paid = [(x, total + pot, "credit") for x in winners]
        else:
            paid = [(x, c * mult + pot, "charge") for x, c in sorted(charges.items())]
        for x, amount, why in paid:
            self.take("score", side=x, points=amount, reason=why)
            self.points[x] += amount
            book.charge(x, amount)
        self.take("written", written=book.written, pending=book.pending)

    # --- after the hand -----------------------------------------------------------------------
    def finish_hand(self) -> bool:
        s, m, rec = self.s, self.m, self.rec
        assert self.over, f"hand stopped before its end; {self.where()}"
        assert self.end_event["winner"] == self.winner, f"hand winner; {self.where()}"
        assert rec.winner == self.winner
        assert rec.points == self.points, "record points = the hand's score events"
        assert (rec.hand_length, rec.draws, rec.passes, rec.turns) == (
            self.placed,
            self.draws,
            self.passes,
            self.turns,
        ), "hand statistics (§1.15)"
        ended, winner, losers, dry = False, None, [], False
        if s.kind == "race":
            if self.target_side is not None:
                ended, winner = True, self.target_side
            elif s.check_end:
                top = max(m.scores)
                leaders = [x for x, v in enumerate(m.scores) if v == top]
                ended = top >= s.target and len(leaders) == 1
                winner = leaders[0] if ended else None
            else:
                assert max(m.scores) < s.target
            scores = list(m.scores)
        elif s.kind == "one_hand":
            for seat in range(s.P):
                m.scores[seat] += self.penalties[seat]
            ended = self.k + 1 >= s.hands_per_match
            if s.hands_per_match == 1:
                winner = self.winner
            else:
                winner = unique_min(dict(enumerate(m.scores)))
            scores = list(m.scores)
        else:
            book = m.book
            scores = [w or 0 for w in book.written]
            ended = any(w is not None and w >= s.target for w in book.written)
            if s.on("kozel_positive_scoring"):
                best = [x for x, v in enumerate(scores) if v == max(scores)]
                winner = best[0] if len(best) == 1 else None
                losers = None
            else:
                losers = [x for x, v in enumerate(scores) if v >= s.target]
                rest = {x: v for x, v in enumerate(scores) if x not in losers}
                winner = unique_min(rest) if rest else None
                dry = s.on("dry_goat") and any(
                    all(book.written[o] is None for o in range(s.sides) if o != g) for g in losers
                )
        if ended:
            e = self.take("match_end", winner=winner, scores=scores, dry=dry)
            if losers is not None:
                assert e["losers"] == losers
        assert self.i == len(self.ev), f"events after the end; {self.where()}"
        m.prev = dict(
            leader=rec.leader,
            winner=self.winner,
            went_out=self.end_event["went_out"],
            fish_maker=self.end_event["fish_maker"],
            seat_pips=[sum(pips(t) for t in h) for h in self.hands],
        )
        return ended


def check_match(rules, seed: int, match_id: int, mrec) -> None:
    spec = Spec(rules)
    m = MatchState(spec)
    assert mrec.hands, "a match has at least one hand"
    for k, rec in enumerate(mrec.hands):
        ended = Replay(spec, m, seed, match_id, k, rec).run()
        assert ended == (k == len(mrec.hands) - 1), f"match end at hand {k} (§1.14)"
    assert mrec.scores == ([w or 0 for w in m.book.written] if m.book else m.scores), (
        "match totals = the sum of the score events"
    )


# --------------------------------------------------------------------------------------------
# Configurations
# --------------------------------------------------------------------------------------------

OPTION_SETS = {
    "blind": [
        {},
        {"blind_deal": "all_tiles"},
        {"blind_draw_optional": True},
        {"blind_play_optional": True},
        {"blind_play_optional": True, "blind_draw_optional": True},
        {"blind_unplayable_double_face_up": True, "block_winner_fewest_tiles": True},
        {"check_only_at_hand_end": True},
    ],
    "bergen": [
        {},
        {"partnership": True},
        {"bergen_voluntary": True},
        {"bergen_draw_until_playable": True},
        {"bergen_highest_double_leads": True, "bergen_domino_bonus": 1},
        {"bergen_block_lowest_hand_1pt": True},
        {"bergen_near_target_cap": True},
        {"bergen_near_target_cap": True, "check_only_at_hand_end": True},
    ],
    "fives": [
        {},
        {"partnership": True},
        {"reserve_k": 2},
        {"inline_double_counts_single": True},
        {"lead_winner_of_previous_hand": True},
        {"lead_winner_of_previous_hand": True, "partnership": True},
        {"check_only_at_hand_end": True},
    ],
    "threes": [
        {},
        {"partnership": True},
        {"reserve_k": 2, "inline_double_counts_single": True},
        {"lead_winner_of_previous_hand": True},
        {"check_only_at_hand_end": True},
    ],
    "sniff": [
        {},
        {"partnership": True},
        {"sniff_pagat_deal": True},
        {"reserve_k": 2},
        {"max_draws_per_turn": 2},
        {"spinner_open_all_four_immediately": True},
        {"us_sniff_counting": True},
        {"sniff_book_endgame": True},
        {"check_only_at_hand_end": True},
    ],
    "basic": [
        {},
        {"lead_highest_double": True},
        {"penalty_per_miss": True},
        {"check_only_at_hand_end": True},
    ],
    "two-lane": [{}, {"cumulative_hands": 3}],
    "ladder": [{}, {"cumulative_hands": 3}],
    "muggins": [
        {},
        {"partnership": True},
        {"muggins_deal_7_all": True},
        {"lead_by_lot": True},
        {"first_double_spinner": True},
        {
            "first_double_spinner": True,
            "spinner_open_all_four_immediately": True,
            "us_sniff_counting": True,
        },
        {"reserve_k": 0},
        {"may_draw_when_able": True},
        {"muggins_no_rounding": True},
        {"muggins_block_difference_per_opponent": True},
        {"muggins_block_difference_per_opponent": True, "partnership": True},
        {"check_only_at_hand_end": True},
    ],
    "block": [
        {},
        {"partnership": True},
        {"block_deal_7_all": True},
        {"lead_winner_of_previous_hand": True},
        {"lead_winner_of_previous_hand": True, "partnership": True},
        {"fish_score_sum_only": True},
        {"fish_difference_per_opponent": True},
        {"check_only_at_hand_end": True},
    ],
    "classic": [
        {},
        {"partnership": True},
        {"lead_winner_of_previous_hand": True},
        {"check_only_at_hand_end": True},
    ],
    "kozel": [
        {},
        {"kozel_individual_4p": True},
        {"kozel_redeal": True},
        {"kozel_zero_double_lowest": True},
        {"reserve_k": 1},
        {"lone_00_value": 25, "lone_66_value": 50},
        {"eggs_double_next": True},
        {"fish_maker_takes_all": True},
        {"dry_goat": True},
        {"kozel_positive_scoring": True},
    ],
}


def configs(variant: str, players: int) -> list[dict]:
    out = []
    for opts in OPTION_SETS[variant]:
        try:
            make_rules(variant, players, **opts)
        except RulesError:
            continue
        out.append(opts)
    return out


RANDOM = get("random")


def play_and_check(rules, seed: int, match_id: int):
    mrec = play_match(rules, seed, match_id, [RANDOM] * rules.players)
    check_match(rules, seed, match_id, mrec)
    return mrec


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", VARIANTS)
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_matches_follow_the_rules(variant, data):
    """Every hand of a random match replays under the independent rule checker."""
    players = data.draw(st.integers(2, 4), label="players")
    opts = data.draw(st.sampled_from(configs(variant, players)), label="options")
    rules = make_rules(variant, players, **opts)
    if variant not in ("two-lane", "ladder") and not opts.get("sniff_book_endgame"):
        default = Spec(rules).target
        target = data.draw(st.one_of(st.none(), st.integers(1, default)), label="target")
        if target is not None:
            rules = with_target(rules, target)
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    match_id = data.draw(st.integers(0, 10**6), label="match_id")
    play_and_check(rules, seed, match_id)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_option_set_and_player_count_replays(variant):
    """A fixed sweep so that every listed option set meets the checker at every player count."""
    n = 0
    for players in (2, 3, 4):
        for i, opts in enumerate(configs(variant, players)):
            rules = make_rules(variant, players, **opts)
            for match_id in range(2):
                play_and_check(rules, 1000 + i, match_id)
                n += 1
    assert n >= 6


def _first(mrec, typ):
    for h in mrec.hands:
        for i, e in enumerate(h.events):
            if e["type"] == typ:
                return h, i
    return None, None


def test_checker_rejects_a_tampered_placement():
    """The checker is not vacuous: moving a placement to another end fails the position check."""
    rules = make_rules("block", 2)
    mrec = play_match(rules, 3, 0, [RANDOM] * 2)
    check_match(rules, 3, 0, mrec)
    e = next(x for x in mrec.hands[0].events if x["type"] == "place" and not x["lead"])
    e["pos"] = "R" if e["pos"] == "L" else "L"
    with pytest.raises(AssertionError):
        check_match(rules, 3, 0, mrec)


def test_checker_rejects_a_changed_award():
    """Changing the points of a settlement award fails the settlement check."""
    rules = make_rules("basic", 2)
    for seed in range(20):
        mrec = play_match(rules, seed, 0, [RANDOM] * 2)
        h, i = _first(mrec, "hand_end")
        if i + 1 < len(h.events) and h.events[i + 1]["type"] == "score":
            h.events[i + 1]["points"] += 1
            with pytest.raises(AssertionError):
                check_match(rules, seed, 0, mrec)
            return
    pytest.fail("no settled hand found")


def test_checker_rejects_a_dropped_pass():
    """Removing a pass (so a seat seems to skip its turn) fails the turn-order check."""
    rules = make_rules("classic", 3)
    for seed in range(50):
        mrec = play_match(rules, seed, 0, [RANDOM] * 3)
        h, i = _first(mrec, "pass")
        if h is not None:
            del h.events[i]
            with pytest.raises(AssertionError):
                check_match(rules, seed, 0, mrec)
            return
    pytest.fail("no pass found")
