"""The Observation a strategy receives: what its seat may know, never the full state.

See docs/design.md ("Observation"). The reference engine builds one per decision; the batch
engine builds the same fields as arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Rules


@dataclass(frozen=True)
class Observation:
    """Everything the seat to move may know (RULES §1.3).

    Attributes:
        rules: the variant's Rules.
        seat: the seat to move; ``partner`` is its partner's seat in partnership play, else None.
        hand: the tiles of its own that the seat knows. In blind, only the row tiles it has
            looked at; ``row`` then gives the row front to back with ``None`` for unseen tiles.
        positions: the open positions as ``(id, value)`` pairs (RULES §1.6).
        table: the tiles on the table, sorted by index (a starting tile included).
        counts: tiles held per seat.
        voids: per seat, the values the rules have revealed it lacks (a forced pass or draw).
        face_up: tiles in hands that lie face up for everyone (blind option); ``face_up_seats``
            gives, per tile, the seat whose row holds it (public: everyone saw it go back).
        stock_size / drawable: tiles in the stock, and how many of them may still be drawn.
        scores: match totals per side (penalties where ``rules.points_sense == "lower"``).
        penalties: this hand's penalty points per seat (two-lane, ladder, basic option).
        leader, match_id, hand_index, decision: where the game stands.
        phase: ``"play"``; ``"continue"`` in blind's open phase after a placement;
            ``"after_draw"`` after a voluntary draw; ``"blind_front"`` / ``"blind_drawn"``
            when a blind-phase tile may be declined.
        doubles / along: per position, formed by a double, and laid along (§1.11 rule 4).
        spinner / covered: the spinner's value and covered sides (§1.9), for end counts.
        opened: in blind, per seat, whether its row is turned up (§3.7b: public, since every
            seat sees a row shrink to 3 tiles); ``()`` elsewhere.
    """

    rules: Rules
    seat: int
    partner: int | None
    hand: tuple[int, ...]
    row: tuple[int | None, ...] | None
    positions: tuple[tuple[str, int], ...]
    table: tuple[int, ...]
    counts: tuple[int, ...]
    voids: tuple[frozenset, ...]
    face_up: tuple[int, ...]
    stock_size: int
    drawable: int
    scores: tuple[int, ...]
    penalties: tuple[int, ...]
    leader: int
    match_id: int
    hand_index: int
    decision: int
    phase: str = "play"
    doubles: tuple[bool, ...] = ()  # per position: formed by a double (counts 2v, §1.11)
    spinner: int | None = None  # the spinner's value once it exists (§1.9)
    covered: tuple[str, ...] = ()  # the spinner's covered sides
    along: tuple[bool, ...] = ()  # per position: a double laid along (counts v)
    opened: tuple[bool, ...] = ()  # blind: per seat, the row turned up (§3.7b)
    face_up_seats: tuple[int, ...] = ()  # blind: per face_up tile, the seat holding it

    @property
    def variant(self) -> str:
        return self.rules.variant

    @property
    def side(self) -> int:
        return self.rules.side_of(self.seat)
