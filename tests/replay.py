"""A standalone replayer for dominosim traces (docs/trace.md), written from RULES.md alone.

It imports nothing from ``dominosim``, only the standard library, so it checks the engine rather
than repeating it. Given a JSON Lines trace it rebuilds the hands, the stock and the layout (LINE
§1.8, SPINNER §1.9, SINGLE_END §1.10, blind rows §3.2/§3.7) and checks that:

* every placement is legal: the tile is held (in blind's blind phase: the front tile just looked
  at, or the tile just drawn), the position is open, the tile fits its value (§1.6);
* the open positions recorded after each placement equal its own, spinner included;
* every draw takes the next stock tile, only when drawing is allowed (§1.5, §1.7, forced play);
* every pass is allowed (nothing playable, drawing exhausted) and turns go round in seat order;
* in-play scores (fives, threes, sniff, muggins end count §1.11 with both spinner countings;
  bergen headers §4.8) and failed-turn penalties (§9.8) equal the recorded score events;
* the hand ends exactly when RULES say (domino, block §1.12, target §1.14), with the recorded
  reason, fish-maker, pip totals and hand winner;
* the settlement of every variant (§n.10, kozel §14.10–§14.14) and the match result; a
  settlement that scores nothing has its ``no_score`` line, and no other has one;
* a leader drawn by lot (``deal.lot``) is the leader, and no lot is recorded where RULES name
  the leader or fix the lead tile.

Usage: ``python tests/replay.py trace.jsonl`` (prints ``ok: ...`` or the first mismatch), or
``replay(lines)`` from Python, which raises :class:`ReplayError`.
"""

from __future__ import annotations

import json
import sys

# --------------------------------------------------------------------------------------------
# tiles (RULES §1.1, §1.2)


def tile(s: str) -> tuple[int, int]:
    """``"6-5"`` -> (5, 6): the tile as (low, high)."""
    a, b = (int(x) for x in s.split("-"))
    return (min(a, b), max(a, b))


def index(t: tuple[int, int]) -> int:
    return t[1] * (t[1] + 1) // 2 + t[0]


def name(t: tuple[int, int]) -> str:
    return f"{t[1]}-{t[0]}"


def pips(ts) -> int:
    return sum(a + b for a, b in ts)


def fits(t, v: int) -> bool:
    return v in t


def is_double(t) -> bool:
    return t[0] == t[1]


def nondouble_key(t):
    return (t[0] + t[1], t[1])


def round5(x: int) -> int:
    return 5 * ((x + 2) // 5)


class ReplayError(AssertionError):
    """The trace disagrees with RULES.md (or is malformed)."""


# --------------------------------------------------------------------------------------------
# the rules of a variant, from RULES §2–§15 (not from the engine's presets)

# fmt: off
DEAL = {
    "blind": (7, 5, 5), "bergen": (6, 6, 5), "fives": (6, 6, 5), "threes": (6, 6, 5),
    "sniff": (7, 5, 5), "basic": (7, 5, 5), "two-lane": (5, 5, 6), "ladder": (5, 5, 5),
    "muggins": (7, 5, 5), "block": (7, 5, 5), "classic": (7, 7, 7), "kozel": (7, 7, 7),
}
# fmt: on
# fmt: off
TARGET = {
    "blind": (100, 100, 100), "bergen": (15, 10, 10), "fives": (25, 20, 20),
    "threes": (33, 22, 22), "sniff": (61, 61, 61), "basic": (100, 100, 100),
    "muggins": (100, 100, 100), "block": (50, 50, 50), "classic": (100, 100, 100),
}
# fmt: on


class Cfg:
    def __init__(self, head: dict):
        v = self.variant = head["variant"]
        P = self.P = head["players"]
        o = self.o = dict(head["options"])
        self.partnership = bool(o.get("partnership")) or (
            v == "kozel" and P == 4 and not o.get("kozel_individual_4p")
        )
        self.sides = 2 if self.partnership else P
        h = DEAL[v][P - 2]
        if v == "blind" and o.get("blind_deal") == "all_tiles":
            h = (14, 9, 7)[P - 2]
        if v == "sniff" and o.get("sniff_pagat_deal"):
            h = (7, 6, 5)[P - 2]
        if (v == "muggins" and o.get("muggins_deal_7_all")) or (
            v == "block" and o.get("block_deal_7_all")
        ):
            h = 7
        self.hand_size = h
        spinner = v == "sniff" or (v == "muggins" and o.get("first_double_spinner"))
        self.layout = "spinner" if spinner else ("single_end" if v == "ladder" else "line")
        self.open_all_four = bool(o.get("spinner_open_all_four_immediately"))
        self.us_counting = bool(o.get("us_sniff_counting"))
        self.inline = bool(o.get("inline_double_counts_single"))
        self.max_draws = 0
        if v == "blind":
            self.draw = "blind"
        elif v in ("fives", "threes", "two-lane", "ladder"):
            self.draw = "one"
        elif v == "bergen":
            self.draw = "until" if o.get("bergen_draw_until_playable") else "one"
        elif v == "block" or (v == "kozel" and P == 4):
            self.draw = "none"
        else:
            self.draw = "until"
            if v == "sniff":
                self.max_draws = o.get("max_draws_per_turn", 0)
        self.reserve = {"bergen": 2, "muggins": o.get("reserve_k", 2)}.get(v, o.get("reserve_k", 0))
        self.scoring = {
            "bergen": "header",
            "fives": 5,
            "threes": 3,
            "sniff": 5,
            "muggins": "face",
        }.get(v)
        self.voluntary = bool(o.get("bergen_voluntary") or o.get("may_draw_when_able"))
        self.match = {"two-lane": "one_hand", "ladder": "one_hand", "kozel": "kozel"}.get(v, "race")
        self.hands_per_match = o.get("cumulative_hands", 0) or 1
        if self.match == "race":
            self.target = o.get("target", TARGET[v][P - 2])
            if v == "sniff" and o.get("sniff_book_endgame"):
                self.target = (25, 20, 20)[P - 2]
        else:
            self.target = o.get("kozel_target", 101)
        self.check_only = bool(o.get("check_only_at_hand_end"))

    def side(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def seats_of(self, side: int) -> list[int]:
        return [s for s in range(self.P) if self.side(s) == side]


# --------------------------------------------------------------------------------------------
# the table (RULES §1.8–§1.11)


class Table:
    def __init__(self, cfg: Cfg):
        self.kind = cfg.layout
        self.open_all_four = cfg.open_all_four
        self.us = cfg.us_counting
        self.n = 0  # tiles on the table
        self.lone = None  # the only tile while n == 1
        self.ends: dict[str, list] = {}  # id -> [value, formed by a double, laid along]
        self.spinner = None
        self.covered: list[str] = []

    def positions(self) -> list[tuple[str, int, bool, bool]]:
        """(id, value, formed by a double, uncovered spinner side) in id order."""
        if self.n == 0:
            return []
        if self.spinner is None:
            return [
                (k, self.ends[k][0], self.ends[k][1], False) for k in ("L", "R") if k in self.ends
            ]
        out = []
        we = "W" in self.covered and "E" in self.covered
        for side in ("W", "E", "N", "S"):
            if side in self.covered:
                out.append((side, self.ends[side][0], self.ends[side][1], False))
            elif side in ("W", "E") or self.open_all_four or we:
                out.append((side, self.spinner, True, True))
        return out

    def start(self, t) -> None:
        """A tile that is not a placement, written low half first (§1.8, §1.10)."""
        self.n, self.lone = 1, t
        d = is_double(t)
        self.ends = {"L": [t[0], d, False], "R": [t[1], d, False]}

    def place(self, t, pos: str, along: bool, lead: bool) -> None:
        d = is_double(t)
        if lead:
            if self.n:
                raise ReplayError("a lead onto a table that is not empty")
            self.n, self.lone = 1, t
            if self.kind == "spinner" and d:
                self.spinner, self.ends = t[0], {}  # the first double is the spinner (§1.9)
            else:
                self.ends = {"L": [t[0], d, along and d], "R": [t[1], d, along and d]}
            return
        vals = {p[0]: p[1] for p in self.positions()}
        if pos not in vals:
            raise ReplayError(f"position {pos} is not open; open: {sorted(vals)}")
        v = vals[pos]
        if not fits(t, v):
            raise ReplayError(f"{name(t)} does not fit {pos} showing {v}")
        new = [t[1] if t[0] == v else t[0], d, along and d]
        self.n += 1
        if self.kind == "single_end":
            self.ends = {"R": new}  # one direction of growth from now on (§1.10)
        elif self.spinner is None:
            if self.kind == "spinner" and d:
                other = "R" if pos == "L" else "L"
                self.spinner, self.covered = v, ["W"]
                self.ends = {"W": self.ends[other]}
            else:
                self.ends[pos] = new
        else:
            if pos not in self.covered:
                self.covered.append(pos)  # a side is covered by its first tile (§1.9)
            self.ends[pos] = new

    def count(self) -> int:
        """The end count c (§1.11)."""
        if self.n == 1:
            return self.lone[0] + self.lone[1]

        def end(e):
            return 2 * e[0] if e[1] and not e[2] else e[0]

        if self.spinner is None:
            return sum(end(e) for e in self.ends.values())
        c = sum(end(self.ends[s]) for s in self.covered)
        k, v = len(self.covered), self.spinner
        if self.us:
            return c + (2 * v if k <= 2 else (v if k == 3 else 0))
        return c + (2 * v if k <= 1 else 0)

    def values(self) -> set[int]:
        return {p[1] for p in self.positions()}


# --------------------------------------------------------------------------------------------
# the replayer


def lead_by_double(hands, highest: bool, order=None):
    doubles = order or [(v, v) for v in range(7)]
    if highest:
        doubles = list(reversed(doubles))
    for d in doubles:
        if any(d in h for h in hands):
            return d
    held = [t for h in hands for t in h]
    return (max if highest else min)(held, key=nondouble_key)


class Replayer:
    def __init__(self):
        self.cfg: Cfg | None = None
        self.lines = 0
        self.hands_seen = 0
        self.match_ended = False
        self.prev = None  # (leader, winner, went_out, fish_maker) of the previous hand

    # --- helpers ------------------------------------------------------------------------
    def fail(self, msg: str):
        raise ReplayError(f"line {self.lines}: {msg}")

    def check(self, cond, msg: str):
        if not cond:
            self.fail(msg)

    def expect(self, kind: str, **fields):
        self.queue.append((kind, fields))

    def score_expect(self, side: int, points: int, reason: str, in_play: bool, force=False):
        if points > 0 or force:
            self.expect("score", side=side, points=points, reason=reason, in_play=in_play)

    def side_pips(self) -> list[int]:
        out = [0] * self.cfg.sides
        for s in range(self.cfg.P):
            out[self.cfg.side(s)] += pips(self.hands[s])
        return out

    def playable(self, seat: int) -> bool:
        vals = self.table.values()
        return any(fits(t, v) for t in self.hands[seat] for v in vals)

    def drawable(self) -> int:
        c = self.cfg
        if c.draw == "none":
            return 0
        if c.draw == "blind":
            return len(self.stock)
        return max(0, len(self.stock) - c.reserve)

    def blocked(self) -> bool:
        """§1.12 block test."""
        if any(self.playable(s) for s in range(self.cfg.P)):
            return False
        if self.cfg.draw == "blind":
            return not self.stock or bool(self.cfg.o.get("blind_draw_optional"))
        return self.drawable() == 0

    # --- entry ----------------------------------------------------------------------------
    def run(self, records) -> dict:
        for rec in records:
            self.lines += 1
            if isinstance(rec, str):
                if not rec.strip():
                    continue
                rec = json.loads(rec)
            kind = rec.get("type")
            if self.lines == 1:
                self.check(kind == "header", "the first line must be the header")
                self.header(rec)
                continue
            if self.cfg is None:
                self.fail("no header")
            self.check(not self.match_ended, f"{kind} after the match ended")
            if kind in ("score", "open", "penalty", "eggs", "written", "no_score") and self.queue:
                self.pop(kind, rec)
                continue
            if self.queue:
                self.fail(f"expected {self.queue[0][0]} {self.queue[0][1]}, got {kind}")
            handler = getattr(self, "ev_" + kind, None)
            if handler is None:
                self.fail(f"unexpected line type {kind!r}")
            handler(rec)
        if self.hands_seen:
            self.check(not self.queue, f"trace ends while expecting {self.queue[:1]}")
            self.check(self.state in ("after_hand",), "trace ends in the middle of a hand")
            if self.head["scope"] == "match" or self.match_over_now():
                self.check(self.match_ended, "the match is over, but there is no match_end")
        return {"hands": self.hands_seen, "lines": self.lines, "match_ended": self.match_ended}

    def header(self, h):
        self.head = h
        self.cfg = Cfg(h)
        c = self.cfg
        self.check(len(h["strategies"]) == c.P, "one strategy per seat")
        self.check(h["partnership"] == c.partnership, "partnership flag")
        self.queue = []
        self.state = "start"
        n = c.P if c.match == "one_hand" else c.sides
        self.totals = [0] * n
        self.written = [None] * c.sides
        self.pending = [0] * c.sides
        self.pot = 0
        self.streak = 0

    # --- pops of expected events ---------------------------------------------------------
    def pop(self, kind, rec):
        want_kind, want = self.queue.pop(0)
        self.check(want_kind == kind, f"expected {want_kind} {want}, got {kind} {rec}")
        c = self.cfg
        if kind == "open":
            self.check(rec["seat"] == want["seat"], "open: seat")
            self.check([tile(x) for x in rec["row"]] == self.hands[rec["seat"]], "open: row")
            return
        if kind == "penalty":
            s = want["seat"]
            self.check(rec["seat"] == s and rec["points"] == 10, f"penalty {rec}")
            self.ledger[s] += 10
            self.check(rec["ledger"] == self.ledger, f"penalty ledger {rec['ledger']}")
            return
        if kind == "eggs":
            self.check(
                (rec["pot"], rec["streak"]) == (want["pot"], want["streak"]),
                f"eggs: recorded pot {rec['pot']} streak {rec['streak']}, own {want}",
            )
            return
        if kind == "no_score":
            self.check(rec["points"] == 0, f"no_score with points {rec['points']}")
            return
        if kind == "written":
            self.check(
                rec["written"] == self.written and rec["pending"] == self.pending,
                f"written scores {rec} != own {self.written} {self.pending}",
            )
            self.pot, self.streak = 0, 0
            return
        got = (rec["side"], rec["points"], rec["reason"])
        exp = (want["side"], want["points"], want["reason"])
        self.check(got == exp, f"score event {got} != recomputed {exp}")
        side, pts = got[:2]
        if c.match == "kozel":
            self.charge(side, pts)
            self.check(
                rec["written"] == self.written and rec["pending"] == self.pending,
                f"kozel written after charge {rec['written']} != {self.written}",
            )
            self.check(rec["totals"] == [w or 0 for w in self.written], "kozel totals")
            return
        self.totals[side] += pts
        self.hand_points[side] += pts
        self.check(rec["totals"] == self.totals, f"totals {rec['totals']} != own {self.totals}")
        if c.match == "race" and not c.check_only and self.totals[side] >= c.target:
            # §1.14: the match ends at once; no block test, no (further) settlement
            self.queue.clear()
            if want["in_play"]:
                self.must_end = "target"
                self.match_winner = side
            else:
                self.match_over = True

    def charge(self, side: int, amount: int):
        """§14.13 the 13-point rule."""
        if self.written[side] is None:
            self.pending[side] += amount
            if self.pending[side] >= 13:
                self.written[side], self.pending[side] = self.pending[side], 0
        else:
            self.written[side] += amount

    # --- the hand ---------------------------------------------------------------------------
    def ev_deal(self, d):
        c = self.cfg
        self.check(self.state in ("start", "after_hand"), "deal in the middle of a hand")
        if self.state == "after_hand":
            self.check(not self.match_over_now(), "a new hand after the match should have ended")
        self.check(not self.match_ended, "deal after match_end")
        first_in_trace = self.hands_seen == 0
        if first_in_trace:
            want = 0 if self.head["scope"] == "match" else self.head["hand"]
            self.check(d["hand"] == want, f"first hand {d['hand']}, expected {want}")
        else:
            self.check(d["hand"] == self.k + 1, "hands follow each other")
        self.hands_seen += 1
        self.k = d["hand"]
        if first_in_trace:
            # a trace may start at hand K: adopt the recorded state at its start
            self.totals = list(d["scores"])
            if c.match == "kozel":
                kz = d["kozel"]
                self.written, self.pending = list(kz["written"]), list(kz["pending"])
                self.pot, self.streak = kz["pot"], kz["egg_streak"]
        else:
            self.check(
                d["scores"]
                == (self.totals if c.match != "kozel" else [w or 0 for w in self.written]),
                f"scores at start {d['scores']} != own {self.totals}",
            )
            if c.match == "kozel":
                kz = d["kozel"]
                self.check(
                    [kz["written"], kz["pending"], kz["pot"], kz["egg_streak"]]
                    == [self.written, self.pending, self.pot, self.streak],
                    "kozel book at start",
                )
        self.hands = [[tile(x) for x in h] for h in d["hands"]]
        self.stock = [tile(x) for x in d["stock"]]
        self.check(len(self.hands) == c.P, "one hand per seat")
        for h in self.hands:
            self.check(len(h) == c.hand_size, f"{len(h)} tiles dealt, RULES say {c.hand_size}")
        every = [t for h in self.hands for t in h] + self.stock
        self.check(
            sorted(every) == sorted((a, b) for b in range(7) for a in range(b + 1)),
            "the deal and the stock must hold the 28 tiles once each",
        )
        if c.variant == "block":
            self.stock = []  # out of play (§12.3)
        self.table = Table(c)
        self.leader = d["leader"]
        self.to_move = self.leader
        self.turn_seat = None
        self.turn_draws = 0
        self.turn_placed = 0
        self.last_drawn = None
        self.blind_front = None  # blind: the front tile looked at this turn
        self.blind_drawn = None  # blind: the tile drawn this turn, not yet in the row
        self.opened = [c.draw != "blind"] * c.P
        self.stopped = False
        self.last_placer = None
        self.placed = 0
        self.turns = 0
        self.must_end = None
        self.went_out = None
        self.match_winner = None
        self.match_over = False
        self.ledger = [0] * c.P
        self.hand_points = [0] * len(self.totals)
        self.state = "play"
        self.check_leader(d)

    def check_leader(self, d):
        """Leaders and lead tiles that RULES fix (§n.4, §n.5); lots cannot be checked."""
        c, o, k, prev = self.cfg, self.cfg.o, self.k, self.prev
        v = c.variant
        self.lead_tile = None
        if v == "blind":
            self.lead_tile = self.hands[self.leader][0]
        elif v == "bergen":
            self.lead_tile = lead_by_double(self.hands, bool(o.get("bergen_highest_double_leads")))
        elif v in ("block", "classic") and (k == 0 or not o.get("lead_winner_of_previous_hand")):
            self.lead_tile = lead_by_double(self.hands, True)
        elif v == "basic" and o.get("lead_highest_double"):
            self.lead_tile = lead_by_double(self.hands, True)
        elif v == "muggins" and k == 0 and not o.get("lead_by_lot"):
            self.lead_tile = lead_by_double(self.hands, True)
        elif v == "kozel" and k == 0:
            if c.P == 4:
                self.lead_tile = (1, 1)
            else:
                order = [(i, i) for i in range(7)]
                if not o.get("kozel_zero_double_lowest"):
                    order = order[1:] + order[:1]
                for dd in order:
                    if any(dd in h for h in self.hands):
                        self.lead_tile = dd
                        break
                else:
                    held = [t for h in self.hands for t in h]
                    self.lead_tile = max(held, key=nondouble_key)
        lot = d["lot"]
        self.check(lot is None or lot == self.leader, f"lot drew seat {lot}, leader {self.leader}")
        self.check(
            lot is None or self.lead_tile is None or v == "blind",
            f"a lot (seat {lot}) where RULES fix the lead tile {self.lead_tile}",
        )
        if self.lead_tile is not None:
            self.check(
                self.lead_tile in self.hands[self.leader],
                f"leader {self.leader} does not hold {name(self.lead_tile)}, "
                f"which RULES make the lead",
            )
        if prev is None or prev[0] != k - 1:
            return
        _, p_leader, p_winner, p_out, p_fish = prev
        want = None
        if v == "blind" or (v in ("fives", "threes") and not o.get("lead_winner_of_previous_hand")):
            want = (p_leader + 1) % c.P  # §3.5, §5.5
        elif v == "kozel":
            want = p_out if p_out is not None else p_fish  # §14.5
        elif v in ("sniff", "basic") and p_out is not None and not o.get("lead_highest_double"):
            want = p_out  # §7.5, §8.5
        if want is not None:
            self.check(self.leader == want, f"leader {self.leader}, RULES name seat {want}")
            self.check(lot is None, f"a lot (seat {lot}) where RULES name the leader")

    def ev_start_tile(self, e):
        c = self.cfg
        self.check(self.table.n == 0 and self.state == "play", "start tile on a started table")
        ok = c.variant == "ladder" or (
            c.variant == "blind" and c.P == 3 and c.o.get("blind_deal") == "all_tiles"
        )
        self.check(ok, "a starting tile only in ladder and blind all_tiles with 3 players")
        t = tile(e["tile"])
        self.check(self.stock and self.stock[0] == t, "the starting tile is the first stock tile")
        self.stock.pop(0)
        self.table.start(t)
        self.compare_positions(e)

    def compare_positions(self, e):
        mine = [
            {"id": i, "value": v, "double": d, "spinner_side": s}
            for i, v, d, s in self.table.positions()
        ]
        self.check(e["positions"] == mine, f"open positions {e['positions']} != own {mine}")

    # --- turns ------------------------------------------------------------------------------
    def act(self, seat: int):
        """An action by ``seat``: it must be the seat to move; a new turn starts if needed."""
        self.check(self.state == "play", "an action outside a hand")
        self.check(self.must_end is None, f"the hand should have ended ({self.must_end})")
        if self.turn_seat is None:
            self.check(seat == self.to_move, f"seat {seat} acts, seat {self.to_move} is to move")
            self.turn_seat = seat
            self.turns += 1
            self.turn_draws = self.turn_placed = 0
            self.last_drawn = self.blind_front = self.blind_drawn = None
            self.stopped = False
        else:
            self.check(seat == self.turn_seat, f"seat {seat} acts in seat {self.turn_seat}'s turn")

    def end_turn(self):
        self.turn_seat = None
        self.to_move = (self.to_move + 1) % self.cfg.P

    def maybe_end_open_turn(self, seat):
        """Blind open phase: after a placement the turn goes on only while a tile fits."""
        if self.turn_seat is not None and not self.playable(seat):
            self.end_turn()

    def ev_place(self, e):
        c = self.cfg
        seat = e["seat"]
        self.act(seat)
        t = tile(e["tile"])
        self.check(index(t) == e["tile_index"], "tile_index does not match tile")
        blind_phase = c.draw == "blind" and not self.opened[seat]
        lead = self.table.n == 0
        self.check(e["lead"] == lead, "lead flag")
        if lead:
            self.check(seat == self.leader, "the leader leads")
            if self.lead_tile is not None:
                self.check(t == self.lead_tile, f"lead {name(t)}, RULES fix {name(self.lead_tile)}")
            self.check(t in self.hands[seat], f"seat {seat} does not hold {name(t)}")
            self.hands[seat].remove(t)
        elif blind_phase:
            self.check(
                t in (self.blind_front, self.blind_drawn),
                f"blind phase: {name(t)} is neither the front tile nor the drawn tile",
            )
            if t == self.blind_drawn:
                self.blind_drawn = None
            else:
                self.check(self.hands[seat][0] == t, "blind: the front tile is placed")
                self.hands[seat].pop(0)
        else:
            self.check(t in self.hands[seat], f"seat {seat} does not hold {name(t)}")
            if self.turn_draws and not c.voluntary and c.draw != "blind":
                self.check(t == self.last_drawn, "after drawing, the drawn tile is placed (§1.7)")
            self.hands[seat].remove(t)
        if e["along"]:
            self.check(
                c.inline and is_double(t),
                "along only for doubles under inline_double_counts_single",
            )
        self.table.place(t, e["pos"], e["along"], lead)
        if lead:
            self.check(e["pos"] == "L", "the lead is written as position L")
        self.compare_positions(e)
        sp = None
        if self.table.spinner is not None:
            sp = {
                "value": self.table.spinner,
                "covered": [s for s in ("W", "E", "N", "S") if s in self.table.covered],
            }
        self.check(e["spinner"] == sp, f"spinner {e['spinner']} != own {sp}")
        if c.draw == "blind":
            self.check([tile(x) for x in e["row"]] == self.hands[seat], "blind row after placing")
        self.placed += 1
        self.turn_placed += 1
        self.last_placer = seat
        if blind_phase and len(self.hands[seat]) <= 3:
            self.opened[seat] = True
            self.expect("open", seat=seat)  # §3.7b
        side = c.side(seat)
        if c.scoring in (3, 5, "face"):
            cnt = self.table.count()
            self.check(e.get("count") == cnt, f"end count {e.get('count')} != own {cnt}")
            m = 3 if c.scoring == 3 else 5
            if cnt > 0 and cnt % m == 0:
                self.score_expect(side, cnt if c.scoring == "face" else cnt // m, "count", True)
        elif c.scoring == "header":
            if lead:
                pts = 2 if is_double(t) else 0
            else:
                (v1, d1, _), (v2, d2, _) = self.table.ends["L"], self.table.ends["R"]
                pts = 0 if v1 != v2 else (3 if d1 or d2 else 2)
            if pts and c.o.get("bergen_near_target_cap"):
                need = c.target - self.totals[side]
                pts = 1 if need <= 2 else (min(pts, 2) if need == 3 else pts)
            self.score_expect(side, pts, "header", True)
        if not self.hands[seat]:
            self.must_end = "domino"
            self.went_out = seat
        elif self.blocked():
            self.must_end = "blocked"
        if c.draw == "blind" and not lead and not blind_phase:
            self.maybe_end_open_turn(seat)  # §3.7b: he may go on while a tile fits
        else:
            self.end_turn()

    def ev_draw(self, e):
        c = self.cfg
        seat = e["seat"]
        self.act(seat)
        t = tile(e["tile"])
        self.check(index(t) == e["tile_index"], "tile_index does not match tile")
        self.check(self.drawable() > 0, "a draw with nothing drawable (stock/reserve §1.5)")
        self.check(
            self.stock[0] == t, f"draws {name(t)}, the next stock tile is {name(self.stock[0])}"
        )
        if c.draw == "blind":
            if not self.opened[seat]:
                self.check(
                    self.blind_front is not None and self.hands[seat][-1] == self.blind_front,
                    "blind: the front tile goes to the back before the draw",
                )
                self.check(self.blind_drawn is None and self.turn_draws == 0, "one draw a turn")
                self.stock.pop(0)
                self.blind_drawn = t
            else:
                self.check(
                    not self.playable(seat) and self.turn_draws == 0 and self.turn_placed == 0,
                    "open phase: draws only with nothing playable",
                )
                self.stock.pop(0)
                self.hands[seat].append(t)
                self.check([tile(x) for x in e["row"]] == self.hands[seat], "row after draw")
        else:
            self.check(c.draw != "none", "no drawing in this variant")
            if not (c.voluntary and self.turn_draws == 0) and not c.o.get("may_draw_when_able"):
                self.check(not self.playable(seat), f"seat {seat} draws holding a playable tile")
            limit = 1 if c.draw == "one" else (c.max_draws or 10**9)
            if c.o.get("may_draw_when_able"):
                limit = 10**9
            self.check(self.turn_draws < limit, f"more than {limit} draw(s) in one turn")
            self.stock.pop(0)
            self.hands[seat].append(t)
        self.turn_draws += 1
        self.last_drawn = t

    def ev_look(self, e):
        seat = e["seat"]
        self.act(seat)
        self.check(self.cfg.draw == "blind" and not self.opened[seat], "look: blind phase only")
        self.check(self.blind_front is None, "one look a turn")
        t = tile(e["tile"])
        self.check(
            self.hands[seat][0] == t,
            f"looks at {name(t)}, the front is {name(self.hands[seat][0])}",
        )
        self.blind_front = t

    def ev_to_back(self, e):
        c = self.cfg
        seat = e["seat"]
        self.act(seat)
        t = tile(e["tile"])
        row = self.hands[seat]
        optional = bool(c.o.get("blind_play_optional"))
        if t == self.blind_drawn:
            self.check(
                optional or not any(fits(t, v) for v in self.table.values()),
                f"the drawn tile {name(t)} fits, so it must be placed (§3.7a)",
            )
            self.blind_drawn = None
            row.append(t)
        else:
            self.check(
                t == self.blind_front and row and row[0] == t,
                "to_back: only the front tile looked at or the drawn tile",
            )
            self.check(
                not any(fits(t, v) for v in self.table.values()) or (optional and self.stock),
                f"the front tile {name(t)} fits, so it must be placed",
            )
            row.append(row.pop(0))
        self.check(
            e["face_up"] == (bool(c.o.get("blind_unplayable_double_face_up")) and is_double(t)),
            "face_up flag",
        )
        self.check([tile(x) for x in e["row"]] == row, "row after to_back")

    def ev_pass(self, e):
        c = self.cfg
        seat = e["seat"]
        self.act(seat)
        if c.draw == "blind":
            if not self.opened[seat]:
                self.check(
                    self.blind_front is not None and self.blind_drawn is None,
                    "blind pass: the front tile (and the drawn one) went to the back",
                )
                self.check(
                    self.turn_draws == 1 or not self.stock or c.o.get("blind_draw_optional"),
                    "blind pass without the forced draw",
                )
            else:
                self.check(
                    self.turn_placed == 0 and not self.playable(seat),
                    "open phase: a pass holding a playable tile",
                )
                self.check(
                    self.turn_draws == 1 or not self.stock or c.o.get("blind_draw_optional"),
                    "open phase: pass without drawing",
                )
        else:
            if not (c.o.get("bergen_voluntary") and self.turn_draws == 1):
                self.check(not self.playable(seat), f"seat {seat} passes holding a playable tile")
                limit = 1 if c.draw == "one" else (c.max_draws or 10**9)
                self.check(
                    self.drawable() == 0 or self.turn_draws >= limit,
                    "a pass while drawing is still required (§1.7)",
                )
        if c.variant in ("two-lane", "ladder"):
            self.score_expect(seat, 10, "failed_turn", True)  # §9.8, §9.8a, §10.8
        elif c.variant == "basic" and c.o.get("penalty_per_miss"):
            self.expect("penalty", seat=seat)
        self.end_turn()
        if self.blocked():
            self.must_end = "blocked"

    def ev_stop(self, e):
        seat = e["seat"]
        self.act(seat)
        self.check(
            self.cfg.draw == "blind" and self.opened[seat] and self.turn_placed > 0,
            "stop: only in blind's open phase after a placement",
        )
        self.check(self.playable(seat), "stop is recorded only when a further placement is open")
        self.end_turn()

    # --- the end of the hand ------------------------------------------------------------------
    def ev_hand_end(self, e):
        c = self.cfg
        self.check(self.state == "play", "hand_end outside a hand")
        if self.turn_seat is not None:  # blind open phase: the hand ended within the turn
            self.turn_seat = None
        self.check(
            e["reason"] == self.must_end,
            f"hand end {e['reason']!r}, RULES say {self.must_end or 'the hand goes on'}",
        )
        out = self.went_out if e["reason"] == "domino" else None
        self.check(e["went_out"] == out, f"went_out {e['went_out']} != {out}")
        fm = self.last_placer if e["reason"] == "blocked" else None
        self.check(e["fish_maker"] == fm, f"fish-maker {e['fish_maker']} != {fm} (§1.12)")
        sp = self.side_pips()
        self.check(e["pips"] == sp, f"pip totals {e['pips']} != own {sp}")
        self.check(e["seat_pips"] == [pips(h) for h in self.hands], "seat pips")
        self.check(
            sorted(map(tile, sum(e["hands"], []))) == sorted(sum(self.hands, [])),
            "tiles left in hand",
        )
        self.check(
            e["hand_length"] == self.placed, f"hand length {e['hand_length']} != {self.placed}"
        )
        self.check(e["turns"] == self.turns, f"turns {e['turns']} != {self.turns}")
        self.state = "after_hand"
        if e["reason"] == "target":
            winner = self.match_winner
            self.match_over = True
        elif c.match == "kozel":
            winner = self.settle_kozel(out, fm, e)
        else:
            winner = self.settle(out, fm, sp)
        self.check(e["winner"] == winner, f"hand winner {e['winner']} != own {winner}")
        if e["reason"] != "target" and not any(k in ("score", "eggs") for k, _ in self.queue):
            self.queue.insert(0, ("no_score", {}))  # a settlement of nothing is a record too
        self.prev = (self.k, self.leader, winner, out, fm)

    def settle(self, out, fm, sp) -> int | None:
        """Settlement of §n.10; queues the score events it expects, returns the hand winner."""
        c, o, v = self.cfg, self.cfg.o, self.cfg.variant
        n = c.sides
        out_side = c.side(out) if out is not None else None

        def others(w):
            return [sp[s] for s in range(n) if s != w]

        def unique_min(vals: dict):
            lo = min(vals.values())
            best = [k for k, x in vals.items() if x == lo]
            return best[0] if len(best) == 1 else None

        def award(side, pts, reason):
            self.score_expect(side, pts, reason, False)

        if v in ("two-lane", "ladder") or (v == "basic" and o.get("penalty_per_miss")):
            w = out
            if w is None:  # §9.10: fewest penalties, then fewest pips, else none
                pen = self.ledger if v == "basic" else self.hand_points
                lo = min(pen)
                tied = [s for s in range(c.P) if pen[s] == lo]
                w = (
                    tied[0]
                    if len(tied) == 1
                    else unique_min({s: pips(self.hands[s]) for s in tied})
                )
            if v == "basic" and w is not None:  # §15 basic.penalty_per_miss
                pen = self.ledger
                award(w, max(0, sum(pen[s] for s in range(c.P) if s != w) - pen[w]), "penalties")
            return w
        if v in ("fives", "threes") or (v == "sniff" and o.get("sniff_book_endgame")):
            if out_side is not None:
                award(out_side, 2, "domino")  # §5.10
                return out_side
            w = unique_min(dict(enumerate(sp)))
            if w is not None:
                award(w, 1, "block")
            return w
        if v == "sniff":  # §7.10
            if out_side is not None:
                award(out_side, round5(sum(others(out_side))) // 5, "domino")
                return out_side
            w = unique_min(dict(enumerate(sp)))
            if w is not None:
                award(w, round5(sum(others(w)) - sp[w]) // 5, "block")
            return w
        if v == "muggins":  # §11.10, §11.10a
            rnd = (lambda x: x) if o.get("muggins_no_rounding") else round5
            if out_side is not None:
                award(out_side, sum(rnd(x) for x in others(out_side)), "domino")
                return out_side
            w = unique_min(dict(enumerate(sp)))
            if o.get("muggins_block_difference_per_opponent"):
                rank = {}
                for i in range(c.P):
                    rank.setdefault(c.side((fm + 1 + i) % c.P if fm is not None else i), i)
                for s in sorted(range(n), key=lambda s: (sp[s], rank[s])):
                    award(s, sum(rnd(sp[x] - sp[s]) for x in range(n) if sp[x] > sp[s]), "block")
            elif w is not None:
                award(w, rnd(sum(others(w)) - sp[w]), "block")
            return w
        if v == "bergen":  # §4.10, §4.10a
            if out_side is not None:
                award(out_side, o.get("bergen_domino_bonus", 2), "domino")
                return out_side
            side_tiles = [[t for s in c.seats_of(x) for t in self.hands[s]] for x in range(n)]
            no_double = [x for x in range(n) if not any(is_double(t) for t in side_tiles[x])]
            if o.get("bergen_block_lowest_hand_1pt"):
                cands = no_double or list(range(n))
                w = unique_min(
                    {x: pips(t for t in side_tiles[x] if not is_double(t)) for x in cands}
                )
                pts = 1
            elif len(no_double) == 1:
                w, pts = no_double[0], 2
            elif no_double:
                w, pts = unique_min({x: pips(side_tiles[x]) for x in no_double}), 2
            else:
                w = unique_min({x: min(t for t in side_tiles[x] if is_double(t)) for x in range(n)})
                pts = 2
            if w is not None:
                award(w, pts, "block")
            return w
        # blind, basic, block, classic: OUT-SUM / BLOCK-DIFF (§1.13, §3.10, §8.10, §12.10)
        if out_side is not None:
            award(out_side, sum(others(out_side)), "domino")
            return out_side
        if v == "blind" and o.get("block_winner_fewest_tiles"):
            w = unique_min({x: sum(len(self.hands[s]) for s in c.seats_of(x)) for x in range(n)})
            if w is not None:
                award(w, sum(others(w)), "block")
            return w
        w = unique_min(dict(enumerate(sp)))
        if w is None:
            return None
        if o.get("fish_score_sum_only"):
            pts = sum(others(w))
        elif o.get("fish_difference_per_opponent"):
            pts = sum(x - sp[w] for x in others(w))
        else:
            pts = max(0, sum(others(w)) - sp[w])
        award(w, pts, "block")
        return w

    def settle_kozel(self, out, fm, e) -> int | None:
        """§14.10–§14.14: charges, the egg pot and the 13-point rule."""
        c, o = self.cfg, self.cfg.o
        n = c.sides
        vals = [0] * n
        for s in range(c.P):
            h = self.hands[s]
            if h == [(0, 0)]:
                x = o.get("lone_00_value", 10)
            elif h == [(6, 6)] and o.get("lone_66_value"):
                x = o["lone_66_value"]
            else:
                x = pips(h)
            vals[c.side(s)] += x
        self.check(e["values"] == vals, f"kozel hand values {e['values']} != own {vals}")
        if out is not None:
            w = c.side(out)
            charges = {s: vals[s] for s in range(n) if s != w}
            winners = [w]
        else:
            lo = min(vals)
            lowest = [s for s in range(n) if vals[s] == lo]
            if len(lowest) == n:  # eggs
                if o.get("eggs_double_next"):
                    self.streak += 1
                else:
                    self.pot += sum(vals)
                self.expect("eggs", pot=self.pot, streak=self.streak)
                return None
            w = lowest[0] if len(lowest) == 1 else None
            winners = lowest
            fm_side = c.side(fm) if fm is not None else None
            if o.get("fish_maker_takes_all") and fm_side is not None and fm_side not in lowest:
                charges = {fm_side: sum(vals)}
            else:
                charges = {s: vals[s] for s in range(n) if s not in lowest}
        mult = 2**self.streak if o.get("eggs_double_next") else 1
        charges = {s: x * mult for s, x in charges.items()}
        if o.get("kozel_positive_scoring"):
            total = sum(charges.values())
            for s in winners:
                self.score_expect(s, total + self.pot, "credit", False, force=True)
        else:
            for s in sorted(charges):
                self.score_expect(s, charges[s] + self.pot, "charge", False, force=True)
        self.expect("written")
        return w

    def match_over_now(self) -> bool:
        """Whether the match ends after the hand just settled."""
        c = self.cfg
        if c.match == "race":
            if self.match_over or (not c.check_only and max(self.totals) >= c.target):
                return True
            if c.check_only:
                top = max(self.totals)
                return top >= c.target and self.totals.count(top) == 1
            return False
        if c.match == "one_hand":
            return self.k + 1 >= c.hands_per_match
        return any(w is not None and w >= c.target for w in self.written)

    def ev_match_end(self, e):
        c = self.cfg
        self.check(
            self.state == "after_hand" and self.match_over_now(),
            "match_end, but RULES say the match goes on",
        )
        n = len(self.totals)
        losers, dry = [], False
        if c.match == "race":
            scores = list(self.totals)
            if self.match_winner is not None:
                winner = self.match_winner
            else:
                top = max(scores)
                winner = scores.index(top)
        elif c.match == "one_hand":
            scores = list(self.totals)
            if c.hands_per_match == 1:
                winner = self.prev[2]
            else:
                lo = min(scores)
                winner = scores.index(lo) if scores.count(lo) == 1 else None
        else:
            scores = [w or 0 for w in self.written]
            n = c.sides
            if c.o.get("kozel_positive_scoring"):
                top = max(scores)
                best = [s for s in range(n) if scores[s] == top]
                winner = best[0] if len(best) == 1 else None
                losers = [s for s in range(n) if s not in best]
            else:
                losers = [s for s in range(n) if scores[s] >= c.target]
                rest = [s for s in range(n) if s not in losers]
                lo = min((scores[s] for s in rest), default=None)
                best = [s for s in rest if scores[s] == lo]
                winner = best[0] if len(best) == 1 else None
                if c.o.get("dry_goat"):
                    dry = any(
                        all(self.written[x] is None for x in range(n) if x != g) for g in losers
                    )
        got = (e["winner"], e["scores"], e["losers"], e["dry"])
        self.check(
            got == (winner, scores, losers, dry),
            f"match result {got} != own {(winner, scores, losers, dry)}",
        )
        self.match_ended = True

    # the blind open event and score events arrive only through the queue
    def ev_score(self, e):
        self.fail(f"unexpected score event {e}: RULES give no points here")

    def ev_open(self, e):
        self.fail("unexpected open event")

    def ev_penalty(self, e):
        self.fail("unexpected penalty event")

    def ev_eggs(self, e):
        self.fail("unexpected eggs event")

    def ev_written(self, e):
        self.fail("unexpected written event")

    def ev_no_score(self, e):
        self.fail("unexpected no_score: the settlement scores (or the hand ended by target)")


def replay(lines) -> dict:
    """Replay a trace (JSON Lines strings or parsed dicts); raises ReplayError on a mismatch."""
    return Replayer().run(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python tests/replay.py TRACE.jsonl  (- for stdin)", file=sys.stderr)
        return 2
    f = sys.stdin if argv[0] == "-" else open(argv[0], encoding="utf-8")
    with f:
        try:
            info = replay(f)
        except ReplayError as exc:
            print(f"mismatch: {exc}")
            return 1
    print(f"ok: {info['hands']} hand(s), {info['lines']} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
