"""Statistics on integer aggregates: intervals, histogram summaries, paired differences.

Everything here takes counts and sums (the integer aggregates of ``docs/results.md``) and
returns floats, so a report can be recomputed exactly from ``aggregates.parquet`` without the
per-hand records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

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


def ratio_ci(
    o: float, n: float, o2: float, on: float, n2: float, m: int, z: float = Z95
) -> tuple[float, float, float]:
    """A share ``o / n`` pooled over ``m`` clusters (e.g. the decisions of a hand) and its
    normal interval by the ratio estimator's cluster-robust variance, from the sums over the
    clusters of n_i², o_i·n_i and o_i² (their items need not be independent within a cluster).
    Returns ``(share, low, high)``, clipped to [0, 1]; the interval is nan for ``m < 2``."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = o / n
    if m < 2:
        return (p, math.nan, math.nan)
    var = max(0.0, o2 - 2 * p * on + p * p * n2) / (n * n) * m / (m - 1)
    half = z * math.sqrt(var)
    return (p, max(0.0, p - half), min(1.0, p + half))


def finite(x: float | None) -> float | None:
    """A float for JSON: nan and infinities become None; rounding is left to the
    presentation."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) or math.isinf(x) else x


def interval(lo_hi: Sequence[float | None]) -> list:
    """An interval ``(lo, hi)`` as a JSON pair of :func:`finite` floats."""
    lo, hi = lo_hi
    return [finite(lo), finite(hi)]


# ---------------------------------------------------------------------------------------------
# Bradley–Terry (the ratings of dominosim compare)

ELO = 400 / math.log(10)  # rating points per unit of log-strength


def _strongly_connected(W: np.ndarray) -> bool:
    """Whether the directed graph i -> j (i beat j at least once) is strongly connected."""
    K = len(W)
    A = (W > 0) | np.eye(K, dtype=bool)
    R = A.copy()
    for k in range(K):  # transitive closure (Floyd–Warshall on booleans)
        R |= R[:, [k]] & R[[k], :]
    return bool(R.all())


def bradley_terry(
    wins: np.ndarray | Sequence[Sequence[int]],
    z: float = Z95,
    tol: float = 1e-12,
    max_iter: int = 100_000,
) -> dict:
    """Fit Bradley–Terry strengths to pairwise win counts.

    Model: ``P(i beats j) = p_i / (p_i + p_j)`` with ``theta = log p`` centred (mean 0). The
    maximum-likelihood fit uses Hunter's MM iterations
    ``p_i <- W_i / sum_j n_ij / (p_i + p_j)``; the covariance of ``theta`` is the
    Moore–Penrose inverse of the observed information (a weighted graph Laplacian,
    ``I_ij = -n_ij q_ij (1 - q_ij)``), which is the covariance under the sum-zero constraint.
    When the maximum does not exist (some set of strategies never beat the rest), half a win
    is added to both directions of every compared pair and ``regularized`` is true.

    Args:
        wins: ``[K, K]`` counts, ``wins[i, j]`` = times i beat j.

    Returns:
        ``{"theta", "se", "ci", "rating", "rating_ci", "regularized", "iterations"}``:
        ``rating`` is ``theta`` in Elo points (``400 / ln 10`` per unit).
    """
    W = np.asarray(wins, dtype=float)
    K = W.shape[0]
    np.fill_diagonal(W, 0)
    regularized = K > 1 and not _strongly_connected(W)
    if regularized:
        W = W + 0.5 * ((W + W.T) > 0)
    N = W + W.T
    won = W.sum(axis=1)
    p = np.ones(K)
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        den = (N / (p[:, None] + p[None, :])).sum(axis=1)
        new = np.where(den > 0, won / np.where(den > 0, den, 1), 1.0)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(p))) < tol
        p = new
        if done:
            break
    theta = np.log(p)
    theta -= theta.mean()
    q = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
    off = N * q * (1 - q)
    info = np.diag(off.sum(axis=1)) - off
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    se = np.where(off.sum(axis=1) > 0, se, np.inf)
    lo, hi = theta - z * se, theta + z * se
    return {
        "theta": theta.tolist(),
        "se": se.tolist(),
        "ci": np.stack([lo, hi], axis=1).tolist(),
        "rating": (ELO * theta).tolist(),
        "rating_ci": np.stack([ELO * lo, ELO * hi], axis=1).tolist(),
        "regularized": bool(regularized),
        "iterations": int(it),
    }


# ---------------------------------------------------------------------------------------------
# strengths from paired differences (the points ratings of dominosim compare)


def paired_strengths(k: int, pairs: Sequence[tuple], z: float = Z95) -> dict:
    """Strengths ``s`` (mean 0) of ``k`` players from paired differences: the model
    ``E[d_ab] = s_a - s_b``, fitted by weighted least squares (weights ``1 / se²``) to
    ``pairs`` of ``(a, b, d_ab, se_ab)`` (a pair without a finite difference is left out;
    a standard error of 0 weighs as 1e-6). The covariance of ``s`` is the Moore–Penrose
    inverse of the weighted Laplacian ``L`` (the covariance under the sum-zero constraint),
    the fit ``s = L⁺ b`` with ``b_a = Σ_b w_ab d_ab``. With two players ``s_a - s_b`` is
    ``d_ab`` and its interval ``d_ab ± z·se``.

    Returns ``{"strength", "se", "ci"}``; a player in no pair gets nan.
    """
    L = np.zeros((k, k))
    b = np.zeros(k)
    for i, j, d, se in pairs:
        if d is None or not math.isfinite(d) or se is None or not math.isfinite(se):
            continue
        w = 1 / max(se, 1e-6) ** 2
        L[i, i] += w
        L[j, j] += w
        L[i, j] -= w
        L[j, i] -= w
        b[i] += w * d
        b[j] -= w * d
    cov = np.linalg.pinv(L)
    s = cov @ b
    s -= s.mean()
    se = np.sqrt(np.maximum(np.diag(cov), 0))
    seen = np.diag(L) > 0
    s = np.where(seen, s, np.nan)
    se = np.where(seen, se, np.nan)
    return {
        "strength": s.tolist(),
        "se": se.tolist(),
        "ci": np.stack([s - z * se, s + z * se], axis=1).tolist(),
    }
