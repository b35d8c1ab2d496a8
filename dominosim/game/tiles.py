"""Tiles of the double-six set: indices, halves, pips and the tile order of RULES §1.1–§1.2.

A tile is an index 0..27. Tile ``a-b`` with ``a <= b`` has index ``b*(b+1)//2 + a``, so the
doubles are 0, 2, 5, 9, 14, 20, 27. Everything else in the package (engines, records, traces)
uses these indices.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

T = 28  # tiles in the set
MAX_PIP = 6


def tile_index(a: int, b: int) -> int:
    """Index of tile ``a-b`` (order of the halves does not matter)."""
    lo, hi = (a, b) if a <= b else (b, a)
    if not 0 <= lo <= hi <= MAX_PIP:
        raise ValueError(f"no tile {a}-{b} in the double-six set")
    return hi * (hi + 1) // 2 + lo


LOW = np.zeros(T, dtype=np.int8)  # [T] low half
HIGH = np.zeros(T, dtype=np.int8)  # [T] high half
for _hi in range(MAX_PIP + 1):
    for _lo in range(_hi + 1):
        LOW[tile_index(_lo, _hi)] = _lo
        HIGH[tile_index(_lo, _hi)] = _hi
PIPS = (LOW + HIGH).astype(np.int16)  # [T]
IS_DOUBLE = LOW == HIGH  # [T] bool
DOUBLES = tuple(int(t) for t in np.flatnonzero(IS_DOUBLE))  # 0-0 .. 6-6 in value order
# SUIT_MASK[v]: 28-bit mask of the tiles that carry value v
SUIT_MASK = tuple(
    sum(1 << t for t in range(T) if LOW[t] == v or HIGH[t] == v) for v in range(MAX_PIP + 1)
)


def halves(t: int) -> tuple[int, int]:
    """The two halves of tile ``t``, low first."""
    return int(LOW[t]), int(HIGH[t])


def pips(t: int) -> int:
    """Pip count of tile ``t`` (RULES §1.1)."""
    return int(PIPS[t])


def is_double(t: int) -> bool:
    return bool(IS_DOUBLE[t])


def fits(t: int, v: int) -> bool:
    """True if tile ``t`` can be placed on a position of value ``v`` (RULES §1.6)."""
    return int(LOW[t]) == v or int(HIGH[t]) == v


def other_half(t: int, v: int) -> int:
    """The half of ``t`` that faces outward when it is placed on value ``v``."""
    lo, hi = halves(t)
    if lo == v:
        return hi
    if hi == v:
        return lo
    raise ValueError(f"tile {name(t)} does not fit {v}")


def name(t: int) -> str:
    """Tile as written in RULES.md, high half first: ``6-5``."""
    lo, hi = halves(t)
    return f"{hi}-{lo}"


def parse(s: str) -> int:
    """Parse ``"6-5"`` (either order) into a tile index."""
    a, b = s.strip().split("-")
    return tile_index(int(a), int(b))


def nondouble_key(t: int) -> tuple[int, int]:
    """Rank key of a non-double (RULES §1.2): pip sum first, then the larger high half."""
    return (pips(t), int(HIGH[t]))


def hand_pips(tiles: Iterable[int]) -> int:
    return sum(pips(t) for t in tiles)


def to_mask(tiles: Iterable[int]) -> int:
    """28-bit mask of a tile collection."""
    m = 0
    for t in tiles:
        m |= 1 << t
    return m


def from_mask(mask: int) -> list[int]:
    return [t for t in range(T) if mask >> t & 1]
