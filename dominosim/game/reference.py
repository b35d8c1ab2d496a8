"""The reference engine: one game at a time, plain Python, every rule in the order RULES.md states it.

This module is the executable specification. It is slow on purpose and must stay obvious; the
batch engine is checked against it move by move.

Usage::

    rules = make_rules("kozel", 4)
    match = play_match(rules, seed=7, match_id=0, strategies=[get("random")] * 4)
    match.hands[0].events     # the deal, every action, every score event, the hand end

A strategy here is any object with ``choose_one(obs, legal, key) -> action`` (see
:mod:`dominosim.strategy`). The engine asks it only when a decision has two or more legal
actions; a single legal action is taken without asking. ``key`` is the addressed random value
``seeding.strategy_key(seed, match, hand, decision, seat)``, where ``decision`` counts the
questions asked so far in the hand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dominosim.base import debug
from dominosim.base.errors import StrategyError
from dominosim.base.signals import FAULTS, is_interruption
from dominosim.game import actions, seeding, tiles
from dominosim.game.layout import Layout
from dominosim.game.observe import Observation, public_history
from dominosim.game.rules import MAX_HANDS_PER_MATCH, Rules
from dominosim.game.variants import match_too_long


def round5(x: int) -> int:
    """RULES §1.13: 5·⌊(x + 2)/5⌋."""
    return 5 * ((x + 2) // 5)


# --------------------------------------------------------------------------------------------
# Records
# --------------------------------------------------------------------------------------------


@dataclass
class HandRecord:
    """One hand, as the statistics of RULES §1.15 define it, with its event list."""

    match_id: int
    hand_index: int
    leader: int = -1
    end_reason: str = ""  # domino | blocked | target
    blocked: bool = False
    fish_maker: int | None = None
    winner: int | None = None  # side
    went_out: int | None = None  # seat
    hand_length: int = 0
    turns: int = 0
    draws: int = 0
    passes: int = 0
    points: list[int] = field(default_factory=list)  # per side (charges in kozel)
    pips: list[int] = field(default_factory=list)  # per side, at the end of the hand
    values: list[int] = field(default_factory=list)  # per side: kozel's §14.12 hand values
    lot: int | None = None  # the seat drawn by lot, where a lot decided the leader
    penalties: list[int] = field(default_factory=list)  # per seat, this hand's penalty ledger
    redeals: int = 0
    events: list[dict] = field(default_factory=list)


@dataclass
class MatchRecord:
    match_id: int
    winner: int | None = None
    scores: list[int] = field(default_factory=list)  # final totals per side (kozel: written)
    hands: list[HandRecord] = field(default_factory=list)
    losers: list[int] = field(default_factory=list)  # kozel goats
    dry: bool = False  # kozel.dry_goat: the goat lost dry

    @property
    def length(self) -> int:
        return len(self.hands)


@dataclass
class PrevHand:
    """What later-hand lead rules need to know about the previous hand."""

    leader: int
    winner: int | None
    went_out: int | None
    fish_maker: int | None
    blocked: bool
    seat_pips: list[int]


# --------------------------------------------------------------------------------------------
# Kozel's written scores (RULES §14.13, §14.14)
# --------------------------------------------------------------------------------------------


@dataclass
class KozelBook:
    sides: int
    written: list = field(default_factory=list)  # None while empty
    pending: list = field(default_factory=list)
    pot: int = 0
    egg_streak: int = 0

    def __post_init__(self):
        self.written = [None] * self.sides
        self.pending = [0] * self.sides

    def charge(self, side: int, amount: int) -> None:
        """Write a charge under the 13-point rule (§14.13)."""
        if self.written[side] is None:
            self.pending[side] += amount
            if self.pending[side] >= 13:
                self.written[side] = self.pending[side]
                self.pending[side] = 0
        else:
            self.written[side] += amount

    def totals(self) -> list[int]:
        return [w or 0 for w in self.written]


# --------------------------------------------------------------------------------------------
# One hand
# --------------------------------------------------------------------------------------------


class MatchOver(Exception):
    """Raised inside a hand when a score event ends the match (§1.14)."""


@dataclass(frozen=True)
class HandSetting:
    """Where a :class:`Hand` stands besides its tiles: the scores before it, its match and
    index, the run's seed, the seats' strategies and kozel's book."""

    scores: list[int] | None = None
    match_id: int = 0
    hand_index: int = 0
    seed: int = 0
    strategies: Sequence[object] | None = None
    kozel: KozelBook | None = None
    watch: Callable | None = None  # called with (hand, seat, obs, legal) before each question


@dataclass(frozen=True)
class Position:
    """A position built by hand for :meth:`Hand.from_position` (tests and searches)."""

    stock: Sequence[int | str] = ()
    layout: Layout | None = None
    to_move: int = 0
    scores: list[int] | None = None
    leader: int = 0
    strategies: Sequence[object] | None = None
    kozel: KozelBook | None = None
    opened: Sequence[int] | None = None
    known: Sequence[Sequence[int]] | None = None


class Hand:
    """The state of one hand and the procedures that play it.

    Build it with :meth:`deal` (from the addressed shuffle) or :meth:`from_position` (a position
    built by hand, for tests and searches), then call :meth:`play`, or :meth:`play_turn` one
    turn at a time.
    """

    def __init__(
        self, rules: Rules, hands: list[list[int]], stock: list[int], **setting: Any
    ) -> None:
        """``setting``: the keywords of :class:`HandSetting`."""
        s = HandSetting(**setting)
        self.rules = rules
        P = rules.players
        self.P = P
        self.hands = [list(h) for h in hands]  # [P] lists; in blind, rows front to back
        self.stock = list(stock)  # draw order, next tile first
        self.scores = list(s.scores) if s.scores is not None else [0] * rules.sides
        self.seed = s.seed
        self.strategies = s.strategies
        self.kozel = s.kozel
        self.watch = s.watch
        match_id, hand_index = s.match_id, s.hand_index
        spinners = rules.layout == "spinner"
        self.spinners = spinners
        self.layout = Layout(
            rules.layout, rules.spinner_open_all_four_immediately, rules.us_sniff_counting
        )
        self.record = HandRecord(match_id, hand_index, penalties=[0] * P)
        self.to_move = 0
        self.decision = 0
        self.last_placer: int | None = None
        self.over = False
        self.voids = [set() for _ in range(P)]
        self.known = [set() for _ in range(P)]  # blind: row tiles each owner has looked at
        self.opened = [rules.draw_mode != "blind"] * P  # blind open phase (§3.7b)
        self.face_up: set[int] = set()
        if rules.draw_mode != "blind":
            for s in range(P):
                self.known[s] = set(self.hands[s])

    # --- construction ---------------------------------------------------------------------
    @classmethod
    def deal(cls, rules: Rules, seed: int, match_id: int, hand_index: int, **kw: Any) -> Hand:
        """Deal hand ``hand_index`` of match ``match_id`` from the addressed shuffle (§1.5)."""
        attempt = 0
        while True:
            order = seeding.shuffle(seed, rules.players, match_id, hand_index, attempt)
            h = rules.hand_size
            hands = [order[s * h : (s + 1) * h] for s in range(rules.players)]
            stock = order[rules.players * h :]
            if not (rules.kozel_redeal and _kozel_needs_redeal(hands)):
                break
            attempt += 1
        hand = cls(rules, hands, stock, match_id=match_id, hand_index=hand_index, seed=seed, **kw)
        hand.attempt = attempt
        hand.record.redeals = attempt
        return hand

    @classmethod
    def from_position(
        cls, rules: Rules, hands: Sequence[Sequence[int | str]], **position: Any
    ) -> Hand:
        """A hand in a position built by hand: ``hands`` as lists of tiles (``"6-5"`` or
        indices); ``position`` the keywords of :class:`Position` (an optional ``layout``,
        ``Layout.from_ends``; the seat ``to_move``; ...)."""
        p = Position(**position)
        hands = [[tiles.parse(t) if isinstance(t, str) else t for t in h] for h in hands]
        stock = [tiles.parse(t) if isinstance(t, str) else t for t in p.stock]
        hand = cls(rules, hands, stock, scores=p.scores, strategies=p.strategies, kozel=p.kozel)
        if p.layout is not None:
            hand.layout = p.layout
        hand.to_move = p.to_move
        hand.record.leader = p.leader
        hand.attempt = 0
        if p.opened is not None:
            hand.opened = list(p.opened)
        if p.known is not None:
            hand.known = [set(k) for k in p.known]
        return hand

    # --- public helpers ---------------------------------------------------------------------
    def drawable(self) -> int:
        """Tiles that may still be drawn (§1.5 reserve, §12.3 no stock)."""
        r = self.rules
        if not r.stock_in_play or r.draw_mode == "none":
            return 0
        return max(0, len(self.stock) - r.reserve_k)

    def seat_pips(self, seat: int) -> int:
        return tiles.hand_pips(self.hands[seat])

    def side_pips(self) -> list[int]:
        """Pip total per side (§1.4: partners' hands summed)."""
        out = [0] * self.rules.sides
        for s in range(self.P):
            out[self.rules.side_of(s)] += self.seat_pips(s)
        return out

    def placements(self, seat: int, only: list[int] | None = None) -> list[int]:
        """Legal placement actions for ``seat`` (of the tiles ``only`` if given), §1.6."""
        r = self.rules
        cands = self.hands[seat] if only is None else only
        out = []
        if self.layout.empty:
            out = [actions.place(t, "L") for t in sorted(cands)]
            if r.inline_double_counts_single:
                out += [
                    actions.place(t, "L", along=True) for t in sorted(cands) if tiles.is_double(t)
                ]
            return out
        # canonical order: position (L R W E N S), then across before along, then tile
        for pid, v in self.layout.positions():
            fitting = [t for t in sorted(cands) if tiles.fits(t, v)]
            out.extend(actions.place(t, pid) for t in fitting)
            if r.inline_double_counts_single:
                out.extend(actions.place(t, pid, along=True) for t in fitting if tiles.is_double(t))
        return out

    def _holder(self, t: int) -> int:
        return next(s for s, h in enumerate(self.hands) if t in h)

    def observe(self, seat: int, phase: str = "play") -> Observation:
        r = self.rules
        blind = r.draw_mode == "blind"
        row = None
        if blind:
            row = tuple(
                t if (t in self.known[seat] or self.opened[seat]) else None
                for t in self.hands[seat]
            )
            own = tuple(t for t in row if t is not None)
        else:
            own = tuple(sorted(self.hands[seat]))
        return Observation(
            rules=r,
            seat=seat,
            partner=(seat + 2) % 4 if r.partnership else None,
            hand=own,
            row=row,
            positions=tuple(self.layout.positions()),
            table=tuple(sorted(t for t in self.layout.tiles if t >= 0)),
            counts=tuple(len(h) for h in self.hands),
            voids=tuple(frozenset(v) for v in self.voids),
            face_up=tuple(sorted(self.face_up)),
            face_up_seats=tuple(self._holder(t) for t in sorted(self.face_up)),
            opened=tuple(self.opened) if blind else (),
            stock_size=len(self.stock),
            drawable=self.drawable(),
            scores=tuple(self.scores),
            penalties=tuple(self.record.penalties),
            leader=self.record.leader,
            match_id=self.record.match_id,
            hand_index=self.record.hand_index,
            decision=self.decision,
            phase=phase,
            history=public_history(r, self.record.events, seat),
            **self._layout_view(),
        )

    def _layout_view(self) -> dict:
        lay = self.layout
        doubles, along = [], []
        for pid, _ in lay.positions():
            end = lay.ends.get(pid) if (lay.spinner is None or pid in lay.covered) else None
            doubles.append(bool(end.double) if end else True)
            along.append(bool(end.along) if end else False)
        return dict(
            doubles=tuple(doubles),
            spinner=lay.spinner,
            covered=tuple(s for s in ("W", "E", "N", "S") if s in lay.covered),
            along=tuple(along),
        )

    # --- decisions ----------------------------------------------------------------------------
    def ask(self, seat: int, legal: list[int], phase: str = "play") -> int:
        """The seat's choice among ``legal`` (asked only when there is a choice)."""
        if len(legal) == 1:
            return legal[0]
        strat = self.strategies[seat]
        key = seeding.strategy_key(
            self.seed, self.record.match_id, self.record.hand_index, self.decision, seat
        )
        obs = self.observe(seat, phase)
        if self.watch is not None:  # (trace --decision stops here: dominosim.trace)
            self.watch(self, seat, obs, legal)
        self.decision += 1
        name = getattr(strat, "name", type(strat).__name__)
        try:
            a = strat.choose_one(obs, legal, key)
        except StrategyError:  # (its own, or one a stand-in gives: runner.isolated)
            raise
        except FAULTS as exc:  # a user strategy failing is a user error
            if is_interruption(exc):
                raise
            err = debug.raised(name, exc, debug.strategy_file(strat))
            at = (self.record.match_id, self.record.hand_index, obs.decision, seat)
            raise debug.attach(
                err, debug.Decision(self.rules, self.seed, *at, self.strategies)
            ) from exc
        if isinstance(a, bool) or not hasattr(a, "__index__"):  # 3.0 or '3': not an action
            raise StrategyError(actions.action_type_message(name, a))
        if a not in legal:
            raise StrategyError(
                f"strategy '{name}' returned an illegal action {a!r} at seat {seat}; "
                f"legal were {[actions.describe(x) for x in legal]}; fix the strategy"
            )
        return int(a)

    def event(self, **ev: object) -> dict:
        self.record.events.append(ev)
        return ev

    # --- scoring ------------------------------------------------------------------------------
    def score(self, side: int, points: int, reason: str, in_play: bool) -> None:
        """Add points to a side's match total, event by event (§1.14)."""
        if points <= 0:
            return
        r = self.rules
        self.scores[side] += points
        self.record.points[side] += points
        self.event(type="score", side=side, points=points, reason=reason)
        if r.match_end == "race" and not r.check_only_at_hand_end:
            if self.scores[side] >= r.target:
                if in_play:
                    self.finish("target", winner=side)
                raise MatchOver(side)

    def in_play_points(self, seat: int, lead: bool) -> None:
        """Score the placement just made (§1.11, §4.8, §5.8, §6.8, §7.8, §11.8)."""
        r = self.rules
        side = r.side_of(seat)
        if r.scoring in ("fives", "threes", "muggins"):
            c = self.layout.end_count()
            m = 3 if r.scoring == "threes" else 5
            if c > 0 and c % m == 0:
                pts = c if r.scoring == "muggins" else c // m
                self.score(side, pts, "count", in_play=True)
        elif r.scoring == "bergen":
            pts = self.bergen_header(lead)
            if pts and r.bergen_near_target_cap:
                need = r.target - self.scores[side]
                if need <= 2:
                    pts = 1
                elif need == 3:
                    pts = min(pts, 2)
            self.score(side, pts, "header", in_play=True)

    def bergen_header(self, lead: bool) -> int:
        """Bergen's headers (§4.8)."""
        if lead:
            return 2 if tiles.is_double(self.layout.tiles[0]) else 0
        e1, e2 = self.layout.ends["L"], self.layout.ends["R"]
        if e1.value != e2.value:
            return 0
        return 3 if (e1.double or e2.double) else 2

    # --- the turn -----------------------------------------------------------------------------
    def place(self, seat: int, action: int, lead: bool = False) -> None:
        """Apply a placement: layout, in-play points, domino, block test (§1.12, §1.14)."""
        t = actions.tile_of(action)
        pos = None if lead else actions.pos_of(action)
        self.hands[seat].remove(t)
        self.known[seat].discard(t)
        self.face_up.discard(t)
        self.layout.place(t, pos, actions.is_along(action), self.spinners)
        self.record.hand_length += 1
        self.last_placer = seat
        self.event(
            type="place",
            seat=seat,
            tile=t,
            pos="L" if lead else pos,
            along=actions.is_along(action),
            lead=lead,
            open=self.layout.snapshot(),
        )
        if self.rules.draw_mode == "blind" and not self.opened[seat] and len(self.hands[seat]) <= 3:
            self.opened[seat] = True  # §3.7b: the row is turned up for its owner
            self.event(type="open", seat=seat)
        self.in_play_points(seat, lead)
        if not self.hands[seat]:
            self.finish("domino", went_out=seat)
            return
        self.block_test()

    def draw(self, seat: int) -> int:
        t = self.stock.pop(0)
        self.hands[seat].append(t)
        self.known[seat].add(t)
        self.record.draws += 1
        self.event(type="draw", seat=seat, tile=t)
        return t

    def do_pass(self, seat: int) -> None:
        r = self.rules
        self.record.passes += 1
        self.event(type="pass", seat=seat)
        if r.failed_turn_penalty:
            self.record.penalties[seat] += r.failed_turn_penalty
            self.record.points[seat] += r.failed_turn_penalty
            self.event(type="score", side=seat, points=r.failed_turn_penalty, reason="failed_turn")
        elif r.penalty_per_miss:
            self.record.penalties[seat] += 10
            self.event(type="penalty", seat=seat, points=10)
        self.block_test()

    def block_test(self) -> None:
        """§1.12: blocked if no player holds a fitting tile and nothing can be drawn."""
        if self.over:
            return
        r = self.rules
        if any(self.layout.fits_any(t) for h in self.hands for t in h):
            return
        drawing_open = self.drawable() > 0
        if r.draw_mode == "blind":
            drawing_open = bool(self.stock) and not r.blind_draw_optional
        if drawing_open:
            return
        self.finish("blocked", fish_maker=self.last_placer)

    def reveal_void(self, seat: int, vals: set[int], kept: bool) -> None:
        """A forced pass or draw reveals that ``seat`` lacked every open value ``vals`` (§1.3).

        Tiles it drew and kept lack ``vals`` too, but may carry values of older voids, which
        are then forgotten.
        """
        if kept:
            self.voids[seat] = set(vals)
        else:
            self.voids[seat] |= vals

    def play_turn(self) -> None:
        """One turn of the seat to move, then the turn passes to the next seat."""
        seat = self.to_move
        self.record.turns += 1
        if self.rules.draw_mode == "blind":
            placed = self.blind_turn(seat) if not self.opened[seat] else self.open_turn(seat)
        else:
            placed = self.draw_game_turn(seat)
        if not placed and not self.over:
            self.do_pass(seat)
        self.to_move = (seat + 1) % self.P

    def draw_game_turn(self, seat: int) -> bool:
        """A turn under drawing modes NONE / ONE / UNTIL_PLAYABLE (§1.6, §1.7). Returns True if
        a tile was placed."""
        r = self.rules
        legal = self.placements(seat)
        if legal:
            voluntary = (r.may_draw_when_able or r.bergen_voluntary) and self.drawable() > 0
            if not voluntary:
                self.place(seat, self.ask(seat, legal))
                return True
            # §11.7 may_draw_when_able: draw one at a time while drawable, then place.
            if r.may_draw_when_able:
                while self.drawable() > 0:
                    a = self.ask(seat, self.placements(seat) + [actions.DRAW])
                    if a != actions.DRAW:
                        self.place(seat, a)
                        return True
                    self.draw(seat)
                self.place(seat, self.ask(seat, self.placements(seat)))
                return True
            # §15 bergen_voluntary: decline, draw one, then place any playable tile or pass.
            a = self.ask(seat, legal + [actions.DRAW])
            if a != actions.DRAW:
                self.place(seat, a)
                return True
            self.draw(seat)
            a = self.ask(seat, self.placements(seat) + [actions.PASS], "after_draw")
            if a == actions.PASS:
                return False
            self.place(seat, a)
            return True
        # nothing playable: the drawing mode applies
        vals = self.layout.values()
        mode = r.draw_mode
        limit = 1 if mode == "one" else (r.max_draws or 10**9)
        drawn = 0
        while mode != "none" and drawn < limit and self.drawable() > 0:
            t = self.draw(seat)
            drawn += 1
            options = self.placements(seat, only=[t])
            if options:
                self.reveal_void(seat, vals, kept=drawn > 1)
                self.place(seat, self.ask(seat, options))
                return True
        self.reveal_void(seat, vals, kept=drawn > 0)
        return False

    # --- blind domino (§3.7) ----------------------------------------------------------------
    def to_back(self, seat: int, t: int) -> None:
        self.hands[seat].append(t)
        if self.rules.blind_unplayable_double_face_up and tiles.is_double(t):
            self.face_up.add(t)
        self.event(type="to_back", seat=seat, tile=t)

    def blind_turn(self, seat: int) -> bool:
        """§3.7a: the blind phase."""
        r = self.rules
        row = self.hands[seat]
        front = row[0]
        self.known[seat].add(front)
        self.event(type="look", seat=seat, tile=front)
        options = self.placements(seat, only=[front])
        declined = False
        if options:
            if r.blind_play_optional and self.stock:
                a = self.ask(seat, options + [actions.DRAW], "blind_front")
                declined = a == actions.DRAW
            else:
                a = self.ask(seat, options)
            if not declined:
                self.place(seat, a)
                return True
        row.pop(0)
        self.to_back(seat, front)
        if not self.stock:
            return False
        if r.blind_draw_optional and not declined:
            if self.ask(seat, [actions.DRAW, actions.PASS]) == actions.PASS:
                return False
        t = self.stock.pop(0)
        self.known[seat].add(t)
        self.record.draws += 1
        self.event(type="draw", seat=seat, tile=t)
        options = self.placements(seat, only=[t])
        if options:
            legal = options + [actions.PASS] if r.blind_play_optional else options
            a = self.ask(seat, legal, "blind_drawn")
            if a != actions.PASS:
                # the drawn tile is placed straight from the hand; it never joins the row
                self.hands[seat].append(t)
                self.place(seat, a)
                return True
        self.to_back(seat, t)
        return False

    def open_turn(self, seat: int) -> bool:
        """§3.7b–§3.7c: the open phase, with multi-tile turns and ``stop``."""
        r = self.rules
        legal = self.placements(seat)
        if not legal:
            vals = self.layout.values()
            if not self.stock or (
                r.blind_draw_optional
                and self.ask(seat, [actions.DRAW, actions.PASS]) == actions.PASS
            ):
                self.reveal_void(seat, vals, kept=False)
                return False
            t = self.draw(seat)
            legal = self.placements(seat, only=[t])
            self.reveal_void(seat, vals, kept=not legal)
            if not legal:
                return False
        self.place(seat, self.ask(seat, legal))
        while not self.over:
            legal = self.placements(seat)
            if not legal:
                break
            a = self.ask(seat, legal + [actions.STOP], "continue")
            if a == actions.STOP:
                self.event(type="stop", seat=seat)
                break
            self.place(seat, a)
        return True

    # --- hand end -----------------------------------------------------------------------------
    def finish(
        self,
        reason: str,
        went_out: int | None = None,
        fish_maker: int | None = None,
        winner: int | None = None,
    ) -> None:
        rec = self.record
        self.over = True
        rec.end_reason = reason
        rec.blocked = reason == "blocked"
        rec.went_out = went_out
        rec.fish_maker = fish_maker if reason == "blocked" else None
        rec.pips = self.side_pips()
        rec.values = list(rec.pips)  # (kozel's settlement writes its §14.12 values)
        if reason == "target":
            rec.winner = winner
            self.event(
                type="hand_end",
                reason=reason,
                winner=winner,
                pips=rec.pips,
                fish_maker=None,
                went_out=went_out,
            )
            return
        self.end_event = self.event(
            type="hand_end",
            reason=reason,
            winner=None,
            pips=rec.pips,
            fish_maker=rec.fish_maker,
            went_out=went_out,
        )
        try:
            settle(self)
        finally:
            self.end_event["winner"] = rec.winner

    # --- the hand from start to end -------------------------------------------------------
    def play(self, prev: PrevHand | None = None) -> HandRecord:
        """Deal event, lead, turns until the hand ends (or the match ends in it)."""
        r = self.rules
        rec = self.record
        rec.points = [0] * r.score_columns
        self.event(
            type="deal",
            hands=[list(h) for h in self.hands],
            stock=list(self.stock),
            redeals=rec.redeals,
        )
        try:
            leader, lead_tile = choose_leader(self, prev)
            rec.leader = leader
            if r.layout == "single_end" or (
                r.draw_mode == "blind" and r.blind_deal == "all_tiles" and self.P == 3
            ):
                start = self.stock.pop(0)
                self.layout.start_with(start)
                self.event(type="start_tile", tile=start, open=self.layout.snapshot())
                self.to_move = leader
            else:
                self.lead(leader, lead_tile)
            while not self.over:
                self.play_turn()
        except MatchOver:
            pass
        return rec

    def lead(self, seat: int, tile: int | None) -> None:
        """The lead (§1.6): a fixed tile, the blind front tile, or any tile by choice."""
        self.record.turns += 1
        if tile is None:
            action = self.ask(seat, self.placements(seat))
        else:
            options = self.placements(seat, only=[tile])
            action = self.ask(seat, options)
        if self.rules.draw_mode == "blind":
            self.known[seat].add(actions.tile_of(action))
        self.place(seat, action, lead=True)
        self.to_move = (seat + 1) % self.P


def _kozel_needs_redeal(hands) -> bool:
    """§15 kozel_redeal: a hand with 5+ doubles or 6+ tiles bearing one number."""
    for h in hands:
        if sum(tiles.is_double(t) for t in h) >= 5:
            return True
        for v in range(7):
            if sum(tiles.fits(t, v) for t in h) >= 6:
                return True
    return False


# --------------------------------------------------------------------------------------------
# Leads (§n.4, §n.5)
# --------------------------------------------------------------------------------------------


def _holder(hands, tile) -> int | None:
    for s, h in enumerate(hands):
        if tile in h:
            return s
    return None


def lead_by_double(
    hands: Sequence[Sequence[int]], highest: bool, order: Sequence[int] | None = None
) -> tuple[int, int]:
    """The holder of the lowest/highest double leads it; with no double dealt, the holder of
    the lowest/highest non-double (§1.2, §4.4, §12.4, §14.4a)."""
    doubles = list(order or tiles.DOUBLES)
    if highest:
        doubles.reverse()
    for d in doubles:
        s = _holder(hands, d)
        if s is not None:
            return s, d
    held = [t for h in hands for t in h]
    t = (max if highest else min)(held, key=tiles.nondouble_key)
    return _holder(hands, t), t


def _lot(hand: Hand) -> int:
    """The seat drawn by lot (called only where the lot decides the leader; recorded)."""
    rec = hand.record
    rec.lot = seeding.lot(
        hand.seed, hand.P, rec.match_id, rec.hand_index, getattr(hand, "attempt", 0)
    )
    return rec.lot


def _winner_seat(hand: Hand, prev: PrevHand) -> int | None:
    """The seat through which the previous hand's winning side leads (§1.4 team leads)."""
    r = hand.rules
    if prev.winner is None:
        return None
    if prev.went_out is not None:
        return prev.went_out
    seats = r.seats_of(prev.winner)
    if len(seats) == 1:
        return seats[0]
    a, b = seats
    if prev.seat_pips[a] != prev.seat_pips[b]:
        return a if prev.seat_pips[a] < prev.seat_pips[b] else b
    start = (prev.fish_maker + 1) % hand.P if prev.fish_maker is not None else 0
    for i in range(hand.P):
        if (start + i) % hand.P in seats:
            return (start + i) % hand.P
    return a


def first_hand_leader(hand: Hand) -> tuple[int, int | None]:
    r = hand.rules
    hands = hand.hands
    kind = r.lead_first
    if kind == "lowest_double":
        return lead_by_double(hands, highest=False)
    if kind == "highest_double":
        return lead_by_double(hands, highest=True)
    if kind == "kozel":
        if r.players == 4:
            one = tiles.tile_index(1, 1)
            return _holder(hands, one), one
        order = list(tiles.DOUBLES) if r.kozel_zero_double_lowest else list(tiles.DOUBLES[1:]) + [0]
        for d in order:
            s = _holder(hands, d)
            if s is not None:
                return s, d
        held = [t for h in hands for t in h]
        t = max(held, key=tiles.nondouble_key)
        return _holder(hands, t), t
    seat = _lot(hand)
    if kind == "blind_front":
        return seat, hands[seat][0]
    return seat, None  # lot_any, ladder


def choose_leader(hand: Hand, prev: PrevHand | None) -> tuple[int, int | None]:
    """The leader and, where the rules fix it, the lead tile (§n.4, §n.5)."""
    r = hand.rules
    if prev is None or r.lead_later == "as_first":
        return first_hand_leader(hand)
    kind = r.lead_later
    P = hand.P
    if kind == "next_after_leader":
        seat = (prev.leader + 1) % P
        return seat, (hand.hands[seat][0] if r.draw_mode == "blind" else None)
    if kind == "lot":
        return _lot(hand), None
    if kind in ("winner_else_lot", "winner_else_first", "winner_else_next"):
        seat = _winner_seat(hand, prev)
        if seat is not None:
            return seat, None
        if kind == "winner_else_lot":
            return _lot(hand), None
        if kind == "winner_else_first":
            return first_hand_leader(hand)
        return (prev.leader + 1) % P, None
    if kind == "out_else_lot":
        return (prev.went_out, None) if prev.went_out is not None else (_lot(hand), None)
    if kind == "out_else_fishmaker":
        return (prev.went_out if prev.went_out is not None else prev.fish_maker), None
    raise ValueError(kind)


# --------------------------------------------------------------------------------------------
# Settlement (§1.13, §n.10)
# --------------------------------------------------------------------------------------------


def _unique_min(values: dict[int, int]) -> int | None:
    """The key with the strictly lowest value, or None on a tie for lowest."""
    lo = min(values.values())
    best = [k for k, v in values.items() if v == lo]
    return best[0] if len(best) == 1 else None


def settle(hand: Hand) -> None:
    """End-of-hand awards after a domino or a block; sets the hand winner. One function per
    settlement of RULES (below), chosen by ``rules.settlement``."""
    r = hand.rules
    rec = hand.record
    kind = r.settlement
    if kind == "kozel":
        return  # kozel is settled by the match, which keeps the written scores
    if kind == "penalties":
        rec.winner = _penalty_winner(hand)
        return
    out_side = r.side_of(rec.went_out) if rec.went_out is not None else None
    if kind not in _SETTLEMENTS:
        raise ValueError(kind)
    _SETTLEMENTS[kind](hand, out_side)


def _settle_pips(hand: Hand, out_side: int | None) -> None:
    """The pip count (§3.10, §8.10, §12.10, §13.10): the side that went out scores the
    others' pips; at a block the lowest count scores (§15 options: fewest tiles, the sum only,
    the difference per opponent), or, with penalties per miss, the penalties decide."""
    r = hand.rules
    if r.penalty_per_miss:
        _settle_penalty_per_miss(hand, out_side)
    elif out_side is not None:
        _settle_out_sum(hand, out_side)
    elif r.block_winner_fewest_tiles:
        _settle_block_fewest_tiles(hand)
    else:
        _settle_lowest_hand(hand)


def _others_sum(values: Sequence[int], sides: range, side: int) -> int:
    """The sum of ``values`` over every side but ``side``."""
    return sum(values[s] for s in sides if s != side)


def _settle_penalty_per_miss(hand: Hand, out_side: int | None) -> None:
    """§15 ``basic.penalty_per_miss`` (§8.10, §8.E4, §8.E5): the side that went out, else the
    fewest penalties, then the fewest pips, wins the hand and scores the others' penalty
    points minus its own, never below 0; the pips score nothing."""
    rec, pen = hand.record, hand.record.penalties
    if out_side is None:
        out_side = _penalty_winner(hand)
    rec.winner = out_side
    if out_side is not None:
        others = _others_sum(pen, range(hand.rules.sides), out_side)
        hand.score(out_side, max(0, others - pen[out_side]), "penalties", False)


def _settle_out_sum(hand: Hand, out_side: int) -> None:
    """OUT-SUM (§1.13): the side that went out wins and scores the others' pip totals."""
    rec = hand.record
    rec.winner = out_side
    hand.score(out_side, _others_sum(rec.pips, range(hand.rules.sides), out_side), "domino", False)


def _settle_block_fewest_tiles(hand: Hand) -> None:
    """§15 ``blind.block_winner_fewest_tiles`` (§3.10): a block is won by the side with the
    fewest tiles (a tie: nobody), which scores the others' pip totals."""
    rec, sides = hand.record, range(hand.rules.sides)
    w = _unique_min({s: len(hand.hands[s]) for s in sides})
    rec.winner = w
    if w is not None:
        hand.score(w, _others_sum(rec.pips, sides, w), "block", False)


def _settle_lowest_hand(hand: Hand) -> None:
    """The lowest-hand rule (§1.13, §8.10a, §12.10a): the lowest pip total wins the block (a
    tie: nobody scores) and scores :func:`_fish_points`."""
    rec, pips, sides = hand.record, hand.record.pips, range(hand.rules.sides)
    w = _unique_min({s: pips[s] for s in sides})
    rec.winner = w
    if w is not None:
        others = [pips[s] for s in sides if s != w]
        hand.score(w, _fish_points(hand.rules, others, pips[w]), "block", False)


def _fish_points(r: Rules, others: list[int], own: int) -> int:
    """What the winner of a block scores (§12.10): BLOCK-DIFF (§1.13), never negative; §15
    ``block.fish_score_sum_only``: the others' sum; ``block.fish_difference_per_opponent``:
    the sum of each other side's total minus its own."""
    if r.fish_score_sum_only:
        return sum(others)
    if r.fish_difference_per_opponent:
        return sum(o - own for o in others)
    return max(0, sum(others) - own)


def _settle_book(hand: Hand, out_side: int | None) -> None:
    """Fives and threes (the book): the domino bonus to the side that went out, one point to
    the lowest count at a block."""
    r, rec, award = hand.rules, hand.record, hand.score
    if out_side is not None:
        rec.winner = out_side
        award(out_side, r.domino_bonus, "domino", False)
        return
    w = _unique_min({s: rec.pips[s] for s in range(r.sides)})
    rec.winner = w
    if w is not None:
        award(w, 1, "block", False)


def _settle_sniff(hand: Hand, out_side: int | None) -> None:
    """Sniff: the others' pips (at a block, the difference) rounded to five, a point a five."""
    r, rec, award = hand.rules, hand.record, hand.score
    pips, sides = rec.pips, range(r.sides)
    if out_side is not None:
        rec.winner = out_side
        others = sum(pips[s] for s in sides if s != out_side)
        award(out_side, round5(others) // 5, "domino", False)
        return
    w = _unique_min({s: pips[s] for s in sides})
    rec.winner = w
    if w is not None:
        diff = sum(pips[s] for s in sides if s != w) - pips[w]
        award(w, round5(diff) // 5, "block", False)


def _settle_muggins(hand: Hand, out_side: int | None) -> None:
    """Muggins: each other side's pips rounded to five; at a block the difference (§15: per
    opponent, sides scoring in ascending pip order from the fish-maker's left)."""
    r, rec, award = hand.rules, hand.record, hand.score
    pips, sides = rec.pips, range(r.sides)
    rnd = (lambda x: x) if r.muggins_no_rounding else round5
    if out_side is not None:
        rec.winner = out_side
        award(out_side, sum(rnd(pips[s]) for s in sides if s != out_side), "domino", False)
        return
    rec.winner = _unique_min({s: pips[s] for s in sides})
    if r.muggins_block_difference_per_opponent:
        start = (rec.fish_maker + 1) % hand.P if rec.fish_maker is not None else 0
        seat_rank = {}
        for i in range(hand.P):
            side = r.side_of((start + i) % hand.P)
            seat_rank.setdefault(side, i)
        for s in sorted(sides, key=lambda s: (pips[s], seat_rank[s])):
            pts = sum(rnd(pips[o] - pips[s]) for o in sides if pips[o] > pips[s])
            award(s, pts, "block", False)
        return
    w = rec.winner
    if w is not None:
        award(w, rnd(sum(pips[s] for s in sides if s != w) - pips[w]), "block", False)


def _settle_bergen(hand: Hand, out_side: int | None) -> None:
    """Bergen: the domino bonus to the side that went out; at a block, bergen's own rule."""
    rec, award = hand.record, hand.score
    if out_side is not None:
        rec.winner = out_side
        award(out_side, hand.rules.domino_bonus, "domino", False)
        return
    w, pts = _bergen_block(hand)
    rec.winner = w
    if w is not None:
        award(w, pts, "block", False)


_SETTLEMENTS = {
    "pips": _settle_pips,
    "book": _settle_book,
    "sniff": _settle_sniff,
    "muggins": _settle_muggins,
    "bergen": _settle_bergen,
}


def _penalty_winner(hand: Hand) -> int | None:
    """Went out; else fewest penalties, then fewest pips among them, else none (§9.10, §8 opt)."""
    rec = hand.record
    if rec.went_out is not None:
        return rec.went_out
    pen = rec.penalties
    lo = min(pen)
    tied = [s for s in range(hand.P) if pen[s] == lo]
    if len(tied) == 1:
        return tied[0]
    return _unique_min({s: hand.seat_pips(s) for s in tied})


def _bergen_block(hand: Hand) -> tuple[int | None, int]:
    """Bergen's block award (§4.10, §4.10a, option bergen_block_lowest_hand_1pt)."""
    r = hand.rules
    side_tiles = [[] for _ in range(r.sides)]
    for s in range(hand.P):
        side_tiles[r.side_of(s)].extend(hand.hands[s])
    has_double = [any(tiles.is_double(t) for t in ts) for ts in side_tiles]
    no_double = [s for s in range(r.sides) if not has_double[s]]
    if r.bergen_block_lowest_hand_1pt:
        cands = no_double or list(range(r.sides))
        vals = {
            s: sum(tiles.pips(t) for t in side_tiles[s] if not tiles.is_double(t)) for s in cands
        }
        return _unique_min(vals), 1
    if len(no_double) == 1:
        return no_double[0], 2
    if len(no_double) >= 2:
        return _unique_min({s: tiles.hand_pips(side_tiles[s]) for s in no_double}), 2
    lowest = {s: min(t for t in side_tiles[s] if tiles.is_double(t)) for s in range(r.sides)}
    return _unique_min(lowest), 2


# --------------------------------------------------------------------------------------------
# Kozel's hand charges (§14.10–§14.14)
# --------------------------------------------------------------------------------------------


def kozel_values(hand: Hand) -> list[int]:
    """Hand value per side (§14.12, lone 0-0 and the lone_66_value option)."""
    r = hand.rules
    out = [0] * r.sides
    for s in range(hand.P):
        h = hand.hands[s]
        if h == [0]:
            v = r.lone_00_value
        elif h == [tiles.tile_index(6, 6)] and r.lone_66_value:
            v = r.lone_66_value
        else:
            v = tiles.hand_pips(h)
        out[r.side_of(s)] += v
    return out


def settle_kozel(hand: Hand, book: KozelBook) -> None:
    """Charge the sides for one kozel hand and write them (§14.10, §14.13, §14.14)."""
    r = hand.rules
    rec = hand.record
    vals = kozel_values(hand)
    n = r.sides
    rec.values = vals
    if rec.went_out is not None:
        w = r.side_of(rec.went_out)
        rec.winner = w
        charges = {s: vals[s] for s in range(n) if s != w}
        winners = [w]
    else:
        lo = min(vals)
        lowest = [s for s in range(n) if vals[s] == lo]
        if len(lowest) == n:  # eggs
            rec.winner = None
            if r.eggs_double_next:
                book.egg_streak += 1
            else:
                book.pot += sum(vals)
            hand.event(type="eggs", pot=book.pot, streak=book.egg_streak)
            return
        rec.winner = lowest[0] if len(lowest) == 1 else None
        winners = lowest
        fm_side = r.side_of(rec.fish_maker) if rec.fish_maker is not None else None
        if r.fish_maker_takes_all and fm_side is not None and fm_side not in lowest:
            charges = {fm_side: sum(vals)}
        else:
            charges = {s: vals[s] for s in range(n) if s not in lowest}
    mult = 2**book.egg_streak if r.eggs_double_next else 1
    book.egg_streak = 0
    charges = {s: c * mult for s, c in charges.items()}
    pot, book.pot = book.pot, 0
    if r.kozel_positive_scoring:
        total = sum(charges.values())
        for s in winners:
            amount = total + pot
            rec.points[s] += amount
            hand.event(type="score", side=s, points=amount, reason="credit")
            book.charge(s, amount)
    else:
        for s, c in charges.items():
            amount = c + pot
            rec.points[s] += amount
            hand.event(type="score", side=s, points=amount, reason="charge")
            book.charge(s, amount)
    hand.event(type="written", written=list(book.written), pending=list(book.pending))


# --------------------------------------------------------------------------------------------
# Matches (§1.14, §9.11, §10.11, §14.11)
# --------------------------------------------------------------------------------------------


def play_match(
    rules: Rules,
    seed: int,
    match_id: int,
    strategies: Sequence[object],
    *,
    unit: str = "match",
    on_hand: Callable[[Hand], None] | None = None,
    watch: Callable | None = None,
) -> MatchRecord:
    """Play match ``match_id`` (or only its first hand with ``unit="hand"``).

    ``strategies`` is one strategy per seat. ``on_hand(hand_record)`` is called after each hand,
    ``watch(hand, seat, obs, legal)`` before each question to a strategy.
    """
    seed = seeding.check_seed(seed, "play_match(): seed")
    if len(strategies) != rules.players:
        raise ValueError(f"{rules.players} strategies needed, got {len(strategies)}")
    mrec = MatchRecord(match_id)
    kozel = KozelBook(rules.sides) if rules.match_end == "kozel" else None
    scores = [0] * rules.score_columns
    prev = None
    for k in range(MAX_HANDS_PER_MATCH):
        if kozel is not None:
            scores = kozel.totals()
        hand = Hand.deal(
            rules, seed, match_id, k, strategies=strategies, kozel=kozel, scores=scores, watch=watch
        )
        rec = hand.play(prev)
        if kozel is not None:
            settle_kozel(hand, kozel)
            hand.end_event["winner"] = rec.winner
        scores = hand.scores
        mrec.hands.append(rec)
        if on_hand is not None:
            on_hand(rec)
        if rules.match_end == "one_hand":
            for s in range(rules.players):
                scores[s] += rec.penalties[s]
        done = _match_over(rules, rec, scores, kozel, mrec, k)
        if done or unit == "hand":
            if not done:
                mrec.winner = rec.winner
                mrec.scores = list(scores) if kozel is None else kozel.totals()
                _event_match_end(rec, mrec)
            break
        prev = PrevHand(
            rec.leader,
            rec.winner,
            rec.went_out,
            rec.fish_maker,
            rec.blocked,
            [hand.seat_pips(s) for s in range(rules.players)],
        )
    else:  # (never a match cut short: an endless one is an error)
        raise match_too_long(rules)
    return mrec


def _match_over(rules, rec, scores, kozel, mrec, k) -> bool:
    """Whether hand ``k`` (its record ``rec``) ends the match, by the match end of
    ``rules.match_end``: the point race (§1.14), one hand or K (§9.11, §10.11), the goat
    (§14.11, §14.11a). If it does, ``mrec`` has the match's winner and scores, and the hand's
    events end with the match end."""
    if rules.match_end == "race":
        over = _race_over(rules, rec, scores, mrec)
    elif rules.match_end == "one_hand":
        over = _hands_over(rules, rec, scores, mrec, k)
    else:
        over = _kozel_over(rules, kozel, mrec)
    if over:
        _event_match_end(rec, mrec)
    return over


def _race_over(rules, rec, scores, mrec) -> bool:
    """The point race (§1.14): the side whose total reaches the target wins, at once (in play
    or by an award); with ``check_only_at_hand_end``, after the hand, the one highest total at
    or above the target (shared: another hand)."""
    if _target_reached(rules, rec, scores):
        mrec.winner = max(range(len(scores)), key=lambda s: scores[s])
    elif rules.check_only_at_hand_end:
        winner = _highest_at_target(rules, scores)
        if winner is None:
            return False
        mrec.winner = winner
    else:
        return False
    mrec.scores = list(scores)
    return True


def _target_reached(rules, rec, scores) -> bool:
    """§1.14: the hand ended by the target in play, or a total at or past the target (not
    with ``check_only_at_hand_end``, which plays every hand out)."""
    if rec.end_reason == "target":
        return True
    return not rules.check_only_at_hand_end and max(scores) >= rules.target


def _highest_at_target(rules, scores) -> int | None:
    """§1.14 ``check_only_at_hand_end``: the side with the highest total if that total is at
    or above the target and no other side shares it, else None."""
    top = max(scores)
    leaders = [s for s in range(len(scores)) if scores[s] == top]
    if top < rules.target or len(leaders) > 1:
        return None
    return leaders[0]


def _hands_over(rules, rec, scores, mrec, k) -> bool:
    """Two-lane and ladder (§9.11, §10.11): one hand, whose winner wins the match; §15
    ``cumulative_hands`` K: after the K-th hand the lowest penalty total wins (a tie: none)."""
    if k + 1 < rules.hands_per_match:
        return False
    if rules.hands_per_match == 1:
        mrec.winner = rec.winner
    else:
        mrec.winner = _unique_min(dict(enumerate(scores)))
    mrec.scores = list(scores)
    return True


def _kozel_over(rules, kozel, mrec) -> bool:
    """Kozel (§14.11, §14.11a): the match ends after the first hand that leaves a side's
    written score at or above the target; who wins and loses: :func:`_kozel_highest_wins`
    with ``kozel_positive_scoring``, else :func:`_kozel_goats_lose`."""
    totals = kozel.totals()
    if not any(w is not None and w >= rules.target for w in kozel.written):
        return False
    if rules.kozel_positive_scoring:
        _kozel_highest_wins(rules.sides, totals, mrec)
    else:
        _kozel_goats_lose(rules, kozel, totals, mrec)
    mrec.scores = totals
    return True


def _kozel_highest_wins(n: int, totals: list[int], mrec) -> None:
    """§15 ``kozel.kozel_positive_scoring`` (§14.11): the side with the highest written score
    wins (a tie for highest: no winner); every other side loses."""
    top = max(totals)
    best = [s for s in range(n) if totals[s] == top]
    mrec.winner = best[0] if len(best) == 1 else None
    mrec.losers = [s for s in range(n) if s not in best]


def _kozel_goats_lose(rules, kozel, totals: list[int], mrec) -> None:
    """§14.11, §14.11a: every side at or above the target is a goat and loses; the lowest of
    the others wins (a tie for lowest, or no other side: no winner); §15 ``kozel.dry_goat``:
    a goat whose opponent sides all have an empty written score loses dry."""
    n = rules.sides
    mrec.losers = [s for s in range(n) if totals[s] >= rules.target]
    mrec.winner = (
        _unique_min({s: totals[s] for s in range(n) if s not in mrec.losers})
        if (len(mrec.losers) < n)
        else None
    )
    if rules.dry_goat:
        mrec.dry = any(
            all(kozel.written[o] is None for o in range(n) if o != g) for g in mrec.losers
        )


def _event_match_end(rec: HandRecord, mrec: MatchRecord) -> None:
    rec.events.append(
        dict(
            type="match_end",
            winner=mrec.winner,
            scores=list(mrec.scores),
            losers=list(mrec.losers),
            dry=mrec.dry,
        )
    )
