"""Statistics on integer aggregates: intervals, histogram summaries, paired differences.

Everything here takes counts and sums (the integer aggregates of ``docs/results.md``) and
returns floats, so a report can be recomputed exactly from ``aggregates.parquet`` without the
per-hand records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion of ``k`` successes in ``n`` trials.

    Args:
        k: successes, ``0 <= k <= n``.
        n: trials; ``n == 0`` gives ``(nan, nan)``.
        z: the normal quantile (1.96 for 95%).

    Returns:
        ``(low, high)``, both in ``[0, 1]``.
    """
    if n <= 0:
        return (math.nan, math.nan)
    if k < 0 or k > n:
        raise ValueError(f"wilson: need 0 <= k <= n, got k={k}, n={n}")
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(k: int, n: int) -> float:
    """``k / n``, or nan when ``n == 0``."""
    return k / n if n else math.nan


def hist_total(hist: Sequence[int]) -> int:
    return int(sum(hist))


def hist_mean(hist: Sequence[int], offset: int = 0) -> float:
    """Mean of a histogram whose bin ``i`` counts the value ``i + offset``."""
    n = hist_total(hist)
    if not n:
        return math.nan
    return sum((i + offset) * c for i, c in enumerate(hist)) / n


def hist_quantile(hist: Sequence[int], q: float, offset: int = 0) -> float:
    """The ``q`` quantile of a histogram: the smallest value whose cumulative count reaches
    ``q * total`` (the lower inverse of the distribution function). nan when empty."""
    n = hist_total(hist)
    if not n:
        return math.nan
    need = q * n
    acc = 0
    for i, c in enumerate(hist):
        acc += c
        if c and acc >= need:
            return float(i + offset)
    return float(len(hist) - 1 + offset)


def mean_ci(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """Mean and normal-approximation interval from a sum, a sum of squares and a count.

    Returns ``(mean, low, high)``; the interval is nan for ``n < 2``.
    """
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    if n < 2:
        return (mean, math.nan, math.nan)
    var = max(0.0, (total_sq - total * total / n) / (n - 1))
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def finite(x) -> float | None:
    """A float for JSON: nan and infinities become None; rounding is left to the
    presentation."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def interval(lo_hi) -> list:
    """An interval ``(lo, hi)`` as a JSON pair of :func:`finite` floats."""
    lo, hi = lo_hi
    return [finite(lo), finite(hi)]
