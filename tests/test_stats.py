"""dominosim.stats: Wilson intervals (known values), histogram summaries, mean intervals."""

import math

import pytest

from dominosim.analysis.stats import hist_mean, hist_quantile, mean_ci, rate, wilson


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        # statsmodels proportion_confint(k, n, method="wilson") / Wilson (1927)
        (5, 10, 0.2365931, 0.7634069),
        (0, 10, 0.0, 0.2775328),
        (10, 10, 0.7224672, 1.0),
        (1, 10, 0.0178762, 0.4041500),
        (50, 100, 0.4038315, 0.5961685),
    ],
)
def test_wilson_known_values(k, n, lo, hi):
    a, b = wilson(k, n)
    assert a == pytest.approx(lo, abs=1e-6)
    assert b == pytest.approx(hi, abs=1e-6)


def test_wilson_edges():
    assert all(math.isnan(x) for x in wilson(0, 0))
    with pytest.raises(ValueError):
        wilson(3, 2)
    lo, hi = wilson(7, 20, z=1.0)
    assert lo < 7 / 20 < hi


def test_rate():
    assert rate(1, 4) == 0.25
    assert math.isnan(rate(0, 0))


def test_histograms():
    h = [0, 2, 1, 0, 1]  # values 1, 1, 2, 4
    assert hist_mean(h) == pytest.approx(2.0)
    assert hist_quantile(h, 0.5) == 1
    assert hist_quantile(h, 0.9) == 4
    assert hist_quantile(h, 0.75) == 2
    assert hist_mean(h, offset=1) == pytest.approx(3.0)
    assert hist_quantile([0, 0], 0.5) != hist_quantile([0, 0], 0.5)  # nan


def test_mean_ci():
    xs = [1, -1, 2, 0, 3]
    m, lo, hi = mean_ci(sum(xs), sum(x * x for x in xs), len(xs))
    sd = (sum((x - 1) ** 2 for x in xs) / 4) ** 0.5
    assert m == 1
    assert hi - m == pytest.approx(1.959963984540054 * sd / math.sqrt(5))
    assert m - lo == pytest.approx(hi - m)
    assert math.isnan(mean_ci(3, 9, 1)[1])
