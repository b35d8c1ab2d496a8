"""Lookup tables of the batch engine, built once (docs/design.md, "The batch engine").

A hand is one 64-bit packed mask in which tile a-b sets bits ``8a+b`` and ``8b+a``, so byte v
of the hand lists, as a 7-bit mask of other halves, the tiles that fit an open end showing v:
``(hand >> 8*v) & 0x7F``. Within one value, the order of other halves is the order of tile
indices, which is why the canonical action order (docs/design.md, "Action encoding") can be
read off byte masks.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from dominosim.game import tiles

U64 = np.uint64
T = tiles.T

PACK = np.zeros(T, dtype=np.uint64)  # [T] packed bits of each tile
for _t in range(T):
    _a, _b = tiles.halves(_t)
    PACK[_t] = U64((1 << (8 * _a + _b)) | (1 << (8 * _b + _a)))
TILE_AT = np.zeros((7, 7), dtype=np.int64)  # [v, w] tile index of v-w
for _v in range(7):
    for _w in range(7):
        TILE_AT[_v, _w] = tiles.tile_index(_v, _w)
POPC7 = np.array([bin(m).count("1") for m in range(128)], dtype=np.int64)  # [128]
SELECT7 = np.full((128, 7), -1, dtype=np.int64)  # [m, k] k-th set bit of m
for _m in range(128):
    _bits = [w for w in range(7) if _m >> w & 1]
    for _k, _w in enumerate(_bits):
        SELECT7[_m, _k] = _w
SELECT7_FLAT = np.full(128 * 8, -1, dtype=np.int64)  # [m * 8 + k] k-th set bit of m (k < 8)
SELECT7_FLAT.reshape(128, 8)[:, :7] = SELECT7
BYTES_OF = np.zeros(128, dtype=np.uint64)  # [valmask] bytes v of every v in valmask
for _m in range(128):
    BYTES_OF[_m] = U64(sum(0x7F << (8 * v) for v in range(7) if _m >> v & 1))
DOUBLE_BITS = U64(sum(1 << (9 * v) for v in range(7)))
LOW_SHIFT = np.array([8 * v for v in range(7)], dtype=np.uint64)
# TILES_OF[v, m]: 28-bit mask of the tiles v-w, w in m, w >= v (each tile once per hand)
TILES_OF = np.zeros((7, 128), dtype=np.int64)
PIPS_BYTE = np.zeros((7, 128), dtype=np.int64)  # sum over w in m of (v + w)
for _v in range(7):
    for _m in range(128):
        TILES_OF[_v, _m] = sum(1 << tiles.tile_index(_v, w) for w in range(_v, 7) if _m >> w & 1)
        PIPS_BYTE[_v, _m] = sum(_v + w for w in range(7) if _m >> w & 1)
# ACT_AT_FLAT[(v * 8 + w) * 2 + p]: action code of tile v-w placed at slot p (0 or 1)
ACT_AT_FLAT = np.zeros(7 * 8 * 2, dtype=np.int64)
for _v in range(7):
    for _w in range(7):
        for _p in range(2):
            ACT_AT_FLAT[(_v * 8 + _w) * 2 + _p] = tiles.tile_index(_v, _w) * 6 + _p
# FIT28[vm]: 28-bit mask of the tiles carrying a value of the 7-bit value mask vm
FIT28 = np.array(
    [
        sum(
            1 << t
            for t in range(T)
            if (m >> int(tiles.LOW[t]) & 1) or (m >> int(tiles.HIGH[t]) & 1)
        )
        for m in range(128)
    ],
    dtype=np.int64,
)
# indexed by an open value v in -1..6 (-1: closed, read as the always-empty byte 7)
SHIFT_OF = np.array([8 * v for v in range(8)], dtype=np.uint64)
VBIT_OF = np.array([1 << v for v in range(7)] + [0], dtype=np.int64)
PACK_X = np.append(PACK, np.uint64(0))  # PACK_X[-1] == 0 (no tile)
TBIT = np.array([1 << t for t in range(T)], dtype=np.int64)
# per action code: tile, position, along (placements only; -1/0 for the others)
_NA = 339
ACT_TILE = np.full(_NA, -1, dtype=np.int64)
ACT_POS = np.full(_NA, -1, dtype=np.int64)
ACT_ALONG = np.zeros(_NA, dtype=bool)
for _a in range(2 * T * 6):
    ACT_TILE[_a] = (_a % (T * 6)) // 6
    ACT_POS[_a] = (_a % (T * 6)) % 6
    ACT_ALONG[_a] = _a >= T * 6
# OTHER_HALF[t * 8 + v]: the other half of tile t given one half v; 7 if t lacks v (or v = 7)
OTHER_HALF = np.full(T * 8, 7, dtype=np.int64)
for _t in range(T):
    _a, _b = tiles.halves(_t)
    OTHER_HALF[_t * 8 + _a] = _b
    OTHER_HALF[_t * 8 + _b] = _a
HI_MASK = np.array([sum(1 << w for w in range(v, 7)) for v in range(7)], dtype=np.uint64)
TILE_LOW = tiles.LOW.astype(np.int64)
TILE_HIGH = tiles.HIGH.astype(np.int64)
TILE_PIPS = tiles.PIPS.astype(np.int64)
IS_DOUBLE = tiles.IS_DOUBLE
SEL28 = None  # unused placeholder removed below
del SEL28

_SH8 = [np.uint64(8 * v) for v in range(7)]
_7F = np.uint64(0x7F)


def byte(hand: np.ndarray, v: int | np.ndarray) -> np.ndarray:
    """7-bit mask of the other halves of the tiles in ``hand`` that carry value ``v`` ([n])."""
    return ((hand >> (np.asarray(v, dtype=np.uint64) * U64(8))) & _7F).astype(np.int64)


def pack(tile_lists: Iterable[Iterable[int]]) -> np.ndarray:
    out = np.zeros(len(tile_lists), dtype=np.uint64)
    for i, ts in enumerate(tile_lists):
        for t in ts:
            out[i] |= PACK[t]
    return out


def pips_of(hand: np.ndarray) -> np.ndarray:
    """Pip totals of packed hands (any shape)."""
    s = np.zeros(hand.shape, dtype=np.int64)
    d = np.zeros(hand.shape, dtype=np.int64)
    for v in range(7):
        m = ((hand >> _SH8[v]) & _7F).astype(np.int64)
        s += PIPS_BYTE[v][m]
        d += ((m >> v) & 1) * 2 * v
    return (s + d) // 2


def count_of(hand: np.ndarray) -> np.ndarray:
    """Number of tiles in packed hands."""
    return (np.bitwise_count(hand).astype(np.int64) + np.bitwise_count(hand & DOUBLE_BITS)) // 2


def mask28_of(hand: np.ndarray) -> np.ndarray:
    """28-bit tile masks of packed hands."""
    out = np.zeros(hand.shape, dtype=np.int64)
    for v in range(7):
        m = ((hand >> _SH8[v]) & _7F).astype(np.int64)
        out |= TILES_OF[v][m & int(HI_MASK[v])]
    return out


def tiles_of(hand: int) -> list[int]:
    """Tile indices of one packed hand (scalar, for records and tests)."""
    m = int(mask28_of(np.array([hand], dtype=np.uint64))[0])
    return [t for t in range(T) if m >> t & 1]


def select28(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Index of the k-th set bit of 28-bit masks (k < popcount; -1 otherwise)."""
    mask = np.asarray(mask, dtype=np.int64)
    k = np.asarray(k, dtype=np.int64)
    c0 = POPC7[mask & 0x7F]
    c1 = c0 + POPC7[(mask >> 7) & 0x7F]
    c2 = c1 + POPC7[(mask >> 14) & 0x7F]
    part = (k >= c0).astype(np.int64)
    part += k >= c1
    part += k >= c2
    below = np.where(part == 0, 0, np.where(part == 1, c0, np.where(part == 2, c1, c2)))
    m = (mask >> (7 * part)) & 0x7F
    kk = np.clip(k - below, 0, 7)
    w = SELECT7_FLAT[m * 8 + kk]
    return np.where((w >= 0) & (k >= 0), 7 * part + w, -1)


ALL28 = (1 << T) - 1


def _pack_chunks() -> np.ndarray:
    """``[4, 128]``: the packed hand of the tiles ``7 c .. 7 c + 6`` set in a 7-bit value."""
    out = np.zeros((4, 128), dtype=np.uint64)
    for c in range(4):
        for m in range(128):
            for b in range(7):
                if m >> b & 1:
                    out[c, m] |= PACK[7 * c + b]
    return out


_PACK7 = _pack_chunks()


def pack28(mask: np.ndarray) -> np.ndarray:
    """Packed 64-bit hands of 28-bit tile masks (four lookups of 7 bits each)."""
    m = np.asarray(mask, dtype=np.int64)
    out = _PACK7[0][m & 0x7F] | _PACK7[1][m >> 7 & 0x7F]
    return out | _PACK7[2][m >> 14 & 0x7F] | _PACK7[3][m >> 21 & 0x7F]
