"""Random numbers addressed by coordinates (docs/design.md, "Randomness").

Every random choice is a pure function of its coordinates, hashed with splitmix64:

* deal of hand ``k`` of match ``m`` (attempt ``a`` counts kozel redeals): a Fisher–Yates
  shuffle of the 28 tiles whose swap j (27 .. 1) is drawn from ``key(seed, DEAL, players, m,
  k, a, j)``;
* lot (a seat chosen by lot): ``key(seed, LOT, players, m, k, a)``;
* a strategy's draw at decision ``d`` of hand ``k`` of match ``m`` by ``seat``:
  ``key(seed, STRATEGY, m, k, d, seat)``.

So deals never depend on strategies, targets, options, batch size, chunk size or workers.
The scalar functions (Python ints) and the vectorized ones (numpy uint64) give the same values.
"""

from __future__ import annotations

import numpy as np

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MUL1 = 0xBF58476D1CE4E5B9
MUL2 = 0x94D049BB133111EB

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


def strategy_key(seed: int, match: int, hand: int, decision: int, seat: int) -> int:
    """The 64-bit random value a strategy gets for one decision."""
    return key(seed, STRATEGY, match, hand, decision, seat)
