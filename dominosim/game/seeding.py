"""Random numbers addressed by coordinates (docs/design.md, "Randomness").

Every random choice is a pure function of its coordinates:

* deal of hand ``k`` of match ``m`` (attempt ``a`` counts kozel redeals): a Fisher–Yates
  shuffle of the 28 tiles whose swap j (27 .. 1) is drawn from ``key(seed, DEAL, players, m,
  k, a, j)`` (splitmix64);
* lot (a seat chosen by lot): ``key(seed, LOT, players, m, k, a)`` (splitmix64);
* a strategy's key at decision ``d`` of hand ``k`` of match ``m`` by ``seat``:
  ``splitmix64(seat_key ^ d)``, where ``seat_key`` is SipHash-2-4, keyed by 128 bits derived
  from the seed, of ``(m, k, seat)`` (:func:`strategy_key`): a one-way keyed function, so the
  keys a strategy sees reveal neither the seed, nor a deal, nor another seat's keys.

So deals never depend on strategies, targets, options, batch size, chunk size or workers.
The scalar functions (Python ints) and the vectorized ones (numpy uint64) give the same values.
"""

from __future__ import annotations

import functools
import numbers
import secrets
import struct

import numpy as np

from dominosim.base.errors import ConfigError

M64 = (1 << 64) - 1
#: the seeds (and a seed's match ids) as messages and help name them: 0 to :data:`M64`
SEED_SPAN = "0 to 2**64-1"
GOLDEN = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB

# A drawn seed is never below DRAWN_LOW: a strategy that tries the seeds below 2**32 against
# its keys (about a minute for all of them) never finds a drawn one; the 2**64 - 2**32 left
# are out of reach (docs/strategies.md, "What a strategy can and cannot see").
DRAWN_LOW = 1 << 32


def draw_seed() -> int:
    """A seed from the system's random source, uniform in ``[2**32, 2**64)``."""
    return DRAWN_LOW + secrets.randbelow((1 << 64) - DRAWN_LOW)


def in_range(seed: int) -> bool:
    """Whether the integer ``seed`` is a seed (or a match id): from 0 to :data:`M64`, never
    reduced mod 2**64 (two seeds would give one run, two ids one match)."""
    return 0 <= seed <= M64


def check_in_range(seed: int, where: str) -> None:
    """A one-line :class:`ConfigError` naming ``where`` (the flag or keyword) unless the integer
    ``seed`` is :func:`in_range`."""
    if not in_range(seed):
        raise ConfigError(f"{where} must be an integer from {SEED_SPAN}, not {seed}")


def check_seed(seed: object, where: str = "seed") -> int:
    """``seed`` as an int when it is an integer from 0 to 2**64-1 (a bool is not), else a
    one-line :class:`ConfigError` naming ``where`` (the flag or keyword)."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ConfigError(
            f"{where} must be an integer from {SEED_SPAN}, not {seed!r} ({type(seed).__name__})"
        )
    check_in_range(seed, where)
    return int(seed)


# stream tags
DEAL = 1
LOT = 2
STRATEGY = 3


def splitmix64(x: int) -> int:
    """One splitmix64 output for state ``x`` (scalar)."""
    z = (x + GOLDEN) & M64
    z = ((z ^ (z >> 30)) * MUL1) & M64
    z = ((z ^ (z >> 27)) * MUL2) & M64
    return z ^ (z >> 31)


def key(seed: int, *coords: int) -> int:
    """Hash of a seed and integer coordinates to a 64-bit value (scalar)."""
    h = splitmix64(seed & M64)
    for c in coords:
        h = splitmix64(h ^ (int(c) & M64))
    return h


_G = np.uint64(GOLDEN)
_M1 = np.uint64(MUL1)
_M2 = np.uint64(MUL2)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)


def splitmix64_np(x: np.ndarray) -> np.ndarray:
    """Vectorized :func:`splitmix64` over a uint64 array (wrapping arithmetic)."""
    x = np.asarray(x)
    if x.ndim == 0:
        return np.asarray(splitmix64(int(x)), dtype=np.uint64)
    z = x + _G  # array arithmetic wraps silently; only scalars would warn
    t = z >> _S30
    z ^= t
    z *= _M1
    np.right_shift(z, _S27, out=t)
    z ^= t
    z *= _M2
    np.right_shift(z, _S31, out=t)
    z ^= t
    return z


def key_np(seed: int, *coords: int | np.ndarray) -> np.ndarray:
    """Vectorized :func:`key`: each coordinate is a scalar or an integer array (broadcast)."""
    h = splitmix64(seed & M64)
    coords = list(coords)
    while coords and np.ndim(coords[0]) == 0:  # leading scalar coordinates: Python ints
        h = splitmix64(h ^ (int(coords.pop(0)) & M64))
    h = np.asarray(h, dtype=np.uint64)
    for c in coords:
        c = np.asarray(c)
        if c.dtype != np.uint64:
            c = c.astype(np.int64).astype(np.uint64)
        h = splitmix64_np(h ^ c)
    return h


def below(h: int, n: int) -> int:
    """Map a 64-bit hash to an integer in ``[0, n)`` (uses the top 32 bits)."""
    return ((h >> 32) * n) >> 32


def below_np(h: np.ndarray, n: int | np.ndarray) -> np.ndarray:
    return ((h >> np.uint64(32)) * np.asarray(n, dtype=np.uint64)) >> np.uint64(32)


def shuffle(seed: int, players: int, match: int, hand: int, attempt: int = 0) -> list[int]:
    """The shuffled order of the 28 tiles for one deal (RULES §1.5).

    A Fisher–Yates shuffle whose j-th swap (j = 27 .. 1) takes position
    ``below(key(seed, DEAL, players, match, hand, attempt, j), j + 1)``.
    """
    h = key(seed, DEAL, players, match, hand, attempt)
    order = list(range(28))
    for j in range(27, 0, -1):
        r = below(splitmix64(h ^ j), j + 1)
        order[j], order[r] = order[r], order[j]
    return order


def shuffle_np(
    seed: int,
    players: int,
    match: int | np.ndarray,
    hand: int | np.ndarray,
    attempt: int | np.ndarray = 0,
) -> np.ndarray:
    """Vectorized :func:`shuffle`: ``[B, 28]`` tile orders for arrays of coordinates."""
    match = np.atleast_1d(np.asarray(match))
    h = key_np(seed, DEAL, players, match, np.asarray(hand), np.asarray(attempt))
    h = np.broadcast_to(h, match.shape)
    n = len(match)
    order = np.tile(np.arange(28, dtype=np.int64), (n, 1))
    rows = np.arange(n)
    for j in range(27, 0, -1):
        r = below_np(splitmix64_np(h ^ _IDX28[j]), j + 1).astype(np.int64)
        tj = order[:, j].copy()
        order[:, j] = order[rows, r]
        order[rows, r] = tj
    return order


_IDX28 = np.arange(28, dtype=np.uint64)


def lot(seed: int, players: int, match: int, hand: int, attempt: int = 0) -> int:
    """A seat chosen by lot (RULES §1.3)."""
    return below(key(seed, LOT, players, match, hand, attempt), players)


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & M64


def _sip_rounds(v: list[int], n: int) -> None:
    v0, v1, v2, v3 = v
    for _ in range(n):
        v0 = (v0 + v1) & M64
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & M64
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & M64
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & M64
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)
    v[:] = v0, v1, v2, v3


def siphash24(k0: int, k1: int, data: bytes) -> int:
    """SipHash-2-4 of ``data`` under the 128-bit key ``(k0, k1)`` (J.-P. Aumasson and D. J.
    Bernstein, "SipHash: a fast short-input PRF", 2012; the key's bytes are ``k0``'s then
    ``k1``'s, little-endian; the result is the 64-bit value whose little-endian bytes the
    paper's reference code writes). The core's ``core_siphash24`` is the same function."""
    v = [
        k0 ^ 0x736F6D6570736575,
        k1 ^ 0x646F72616E646F6D,
        k0 ^ 0x6C7967656E657261,
        k1 ^ 0x7465646279746573,
    ]
    n = len(data)
    tail = data[n - n % 8 :] + bytes(7 - n % 8) + bytes([n & 0xFF])
    for j in range(0, n - n % 8 + 8, 8):
        m = int.from_bytes(data[j : j + 8] if j < n - n % 8 else tail, "little")
        v[3] ^= m
        _sip_rounds(v, 2)
        v[0] ^= m
    v[2] ^= 0xFF
    _sip_rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


@functools.lru_cache(maxsize=64)
def strategy_secret(seed: int) -> tuple[int, int]:
    """The 128-bit SipHash key of a run's strategy keys, from its seed."""
    return key(seed, STRATEGY, 0), key(seed, STRATEGY, 1)


@functools.lru_cache(maxsize=4096)
def seat_key(seed: int, match: int, hand: int, seat: int) -> int:
    """A seat's secret key for one hand: SipHash-2-4 under :func:`strategy_secret` of the 24
    bytes ``(match, hand, seat)``, each a little-endian uint64 (the core's ``seat_key``)."""
    msg = struct.pack("<3Q", match & M64, hand & M64, seat & M64)
    return siphash24(*strategy_secret(seed), msg)


def strategy_key(seed: int, match: int, hand: int, decision: int, seat: int) -> int:
    """The 64-bit random value a strategy gets for one decision: ``splitmix64(seat_key ^
    decision)``. The seat can invert it to its own hand key, and so compute its own keys of
    that hand, nothing else: the hand key is a PRF output, independent of the seed, the deals
    and every other seat's and hand's keys for whoever does not hold the seed."""
    return splitmix64(seat_key(seed, match, hand, seat) ^ (decision & M64))
