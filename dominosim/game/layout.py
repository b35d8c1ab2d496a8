"""The table: positions, placement and the end count of RULES §1.8–§1.11.

One class serves the three layouts. A LINE has ends ``L`` and ``R``. A SPINNER is a line until
the first double, which becomes the spinner with sides ``W``, ``E``, ``N``, ``S`` (§1.9). A
SINGLE_END (ladder) offers ``L`` and ``R`` of the starting tile until the first placement and
then the single end ``R`` (§1.10).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dominosim.game import tiles

SIDES = ("W", "E", "N", "S")


@dataclass
class End:
    """One open end: the value it shows; ``double`` while its outermost tile is a double;
    ``along`` if that double was laid along under ``inline_double_counts_single``."""

    value: int
    double: bool = False
    along: bool = False

    def count(self) -> int:
        """Contribution to the end count (§1.11 rules 2 and 4)."""
        return 2 * self.value if self.double and not self.along else self.value


class Layout:
    """The tiles on the table and the open positions."""

    def __init__(self, kind: str, open_all_four: bool = False, us_counting: bool = False):
        self.kind = kind
        self.open_all_four = open_all_four
        self.us_counting = us_counting
        self.tiles: list[int] = []  # every tile on the table, in arrival order
        self.ends: dict[str, End] = {}  # LINE / SINGLE_END ends, or the spinner's arm ends
        self.spinner: int | None = None  # the spinner's value once it exists
        self.covered: set[str] = set()  # spinner sides with a tile attached
        self.started = False  # ladder: a placement has been made onto the starting tile

    # --- building ---------------------------------------------------------------------------
    def start_with(self, tile: int) -> None:
        """Put a tile on the empty table that is not a placement (ladder's starting tile, the
        3-player leftover tile of blind ``all_tiles``); written low half first (§1.8)."""
        lo, hi = tiles.halves(tile)
        self.tiles.append(tile)
        d = lo == hi
        self.ends = {"L": End(lo, d), "R": End(hi, d)}

    @classmethod
    def from_ends(cls, kind: str, ends: dict, table: list[int] | None = None, **kw: Any) -> Layout:
        """A position built by hand (tests, searches): ``ends`` maps ids to ``End`` or ints."""
        lay = cls(kind, **kw)
        lay.ends = {k: (v if isinstance(v, End) else End(v)) for k, v in ends.items()}
        lay.tiles = list(table) if table is not None else [-1, -1]
        lay.started = kind == "single_end" and set(ends) == {"R"}
        return lay

    # --- queries ------------------------------------------------------------------------------
    @property
    def empty(self) -> bool:
        return not self.tiles

    def positions(self) -> list[tuple[str, int]]:
        """The open positions as (id, value), in id order L, R, W, E, N, S (§1.6)."""
        if self.empty:
            return []
        if self.spinner is None:
            return [(k, self.ends[k].value) for k in ("L", "R") if k in self.ends]
        out = []
        we_covered = "W" in self.covered and "E" in self.covered
        for side in SIDES:
            if side in self.covered:
                out.append((side, self.ends[side].value))
            elif side in ("W", "E") or self.open_all_four or we_covered:
                out.append((side, self.spinner))
        return out

    def values(self) -> set[int]:
        return {v for _, v in self.positions()}

    def fits_any(self, tile: int) -> bool:
        return any(tiles.fits(tile, v) for _, v in self.positions())

    def end_count(self) -> int:
        """The end count c of §1.11."""
        if len(self.tiles) == 1:
            lo, hi = tiles.halves(self.tiles[0])
            return lo + hi
        if self.spinner is None:
            return sum(e.count() for e in self.ends.values())
        c = sum(self.ends[s].count() for s in self.covered)
        k = len(self.covered)
        v = self.spinner
        if self.us_counting:
            c += 2 * v if k <= 2 else (v if k == 3 else 0)
        else:
            c += 2 * v if k <= 1 else 0
        return c

    def snapshot(self) -> dict[str, list]:
        """Open positions for records: id -> [value, formed by a double]."""
        out = {}
        for pid, v in self.positions():
            e = self.ends.get(pid) if (self.spinner is None or pid in self.covered) else None
            out[pid] = [v, bool(e.double) if e else True]
        return out

    # --- placement --------------------------------------------------------------------------
    def place(self, tile: int, pos: str | None, along: bool = False, spinners: bool = False) -> int:
        """Place ``tile`` on position ``pos`` (the lead when the table is empty).

        ``spinners``: the first double placed becomes the spinner (SPINNER layout).
        """
        d = tiles.is_double(tile)
        if self.empty:
            lo, hi = tiles.halves(tile)
            self.tiles.append(tile)
            if spinners and d:
                self.spinner = lo
                self.ends = {}
            else:
                self.ends = {"L": End(lo, d, along and d), "R": End(hi, d, along and d)}
            return
        values = dict(self.positions())
        if pos not in values or not tiles.fits(tile, values[pos]):
            raise ValueError(f"{tiles.name(tile)} does not fit position {pos}")
        v = values[pos]
        new = End(tiles.other_half(tile, v), d, along and d)
        self.tiles.append(tile)
        if self.kind == "single_end":
            self.ends = {"R": new}
            self.started = True
            return
        if self.spinner is None:
            if spinners and d:
                # the first double becomes the spinner, attached by its W side (§1.9)
                other = "R" if pos == "L" else "L"
                self.spinner = v
                self.covered = {"W"}
                self.ends = {"W": self.ends[other]}
            else:
                self.ends[pos] = new
            return
        self.covered.add(pos)
        self.ends[pos] = new
