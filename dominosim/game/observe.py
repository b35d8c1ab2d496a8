"""The Observation a strategy receives: what its seat may know, never the full state.

See docs/design.md ("Observation"). The reference engine builds one per decision; the batch
engine builds the same fields as arrays.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass
from typing import Any, NamedTuple

from dominosim.game import tiles
from dominosim.game.rules import Rules


class Event(NamedTuple):
    """One public event of the current hand (RULES §1.3), as the seat observing it sees it.

    Attributes:
        seat: the seat it happened to; None for the starting tile (§10.3), which is nobody's.
        kind: ``"place"`` (a placement, the lead included), ``"draw"`` (one tile from the
            stock), ``"pass"``, and the variants' other public events: ``"start"`` (the
            starting tile turned up), in blind ``"look"`` (the seat looks at its front tile),
            ``"to_back"`` (a tile goes to the back of its row), ``"open"`` (its row is turned
            up, §3.7b) and ``"stop"`` (a voluntary end of a multi-tile turn).
        tile: the tile placed or turned up; for a draw, a look or a tile sent back, the tile
            only in that seat's own Observation (and a tile sent back that lies face up,
            blind's ``blind_unplayable_double_face_up``, in everyone's), else None.
        pos: where a placement went (``L R W E N S``; the lead is ``L``), else None.
        along: a double laid along (§1.11, ``inline_double_counts_single``).
    """

    seat: int | None
    kind: str
    tile: int | None
    pos: str | None = None
    along: bool = False


class _Lazy:
    """The private slots of an Observation the batch engine builds (engine/batch_observation.py): its
    decision's row of numbers (``_raw``, a ``bytes`` copy of its own), how to read a field
    from it (``_how``) and its points table once ``scoring.placement_points`` has asked
    (``_pts``: None until then); none on one built with its fields (the reference engine's)."""

    __slots__ = ("_raw", "_how", "_pts")


@dataclass(frozen=True, slots=True)
class Observation(_Lazy):
    """Everything the seat to move may know (RULES §1.3).

    Immutable: a field cannot be set or deleted, every field is an int, a str, None, a tuple
    or a frozenset (and ``rules``, itself frozen). The batch engine builds one per decision
    from that decision's own row of numbers (a copy: no engine, no other seat's tiles, no
    other decision) and reads each field from it on first access, so a strategy pays only for
    the fields it reads; it compares, hashes, prints and pickles as one built with its fields.

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
        history: the public events of the current hand so far, in order (:class:`Event`; the
            lead is the first placement, after ladder's starting tile). Earlier hands of a
            match are summed up by ``scores``.
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
    history: tuple[Event, ...] = ()  # the hand's public events so far, in order

    def __getattr__(self, name: str) -> Any:
        # (only for a field not read yet of a lazily built Observation; see _Lazy)
        if name[0] == "_":
            raise AttributeError(name)
        try:
            how = self._how
        except AttributeError:
            raise AttributeError(f"'Observation' object has no attribute '{name}'") from None
        value = how(name, self._raw)
        object.__setattr__(self, name, value)
        return value

    @property
    def variant(self) -> str:
        return self.rules.variant

    @property
    def side(self) -> int:
        return self.rules.side_of(self.seat)


def _frozen_set(self: Observation, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_del(self: Observation, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


# (set after the class is made: dataclass's own raise a TypeError for a name that is no field)
Observation.__setattr__ = _frozen_set  # type: ignore[method-assign]
Observation.__delattr__ = _frozen_del  # type: ignore[method-assign]


#: the kinds of the trace's events (reference.HandRecord.events) that are public, and the
#: history's name of each
PUBLIC_EVENTS = {
    "place": "place",
    "draw": "draw",
    "pass": "pass",
    "look": "look",
    "to_back": "to_back",
    "open": "open",
    "stop": "stop",
    "start_tile": "start",
}
#: the kinds whose tile only their seat sees
PRIVATE_TILE = frozenset({"draw", "look", "to_back"})


def public_history(rules: Rules, events, seat: int) -> tuple[Event, ...]:
    """The public events among a hand's record events (``reference.HandRecord.events``, the
    trace's), as ``seat`` sees them: the history of its Observation."""
    face_up_doubles = rules.blind_unplayable_double_face_up
    out = []
    for ev in events:
        kind = PUBLIC_EVENTS.get(ev["type"])
        if kind is None:
            continue
        who = ev.get("seat")
        tile = ev.get("tile")
        if kind in PRIVATE_TILE and who != seat:
            shown = kind == "to_back" and face_up_doubles and tiles.is_double(tile)
            tile = tile if shown else None
        pos = ev.get("pos") if kind == "place" else None
        out.append(Event(who, kind, tile, pos, bool(ev.get("along", False))))
    return tuple(out)
