"""Statistics on hand-checked numbers."""

from __future__ import annotations

import math

import pytest
from bridgebot.core.stats import bootstrap_ci, mean_stderr, running_mean, summarize


def test_mean_and_standard_error() -> None:
    mean, se = mean_stderr([2, 4, 4, 4, 5, 5, 7, 9])
    # sample variance 32/7; standard error sqrt(32/7/8)
    assert mean == 5.0
    assert se == pytest.approx(math.sqrt(32 / 7 / 8))
    assert math.isnan(mean_stderr([3])[1])


def test_bootstrap_interval_brackets_the_mean_and_is_reproducible() -> None:
    data = [-12, -3, 0, 0, 1, 2, 5, 6, 10, 13, -1, 4]
    low, high = bootstrap_ci(data, resamples=2000, seed=1)
    assert low < sum(data) / len(data) < high
    assert (low, high) == bootstrap_ci(data, resamples=2000, seed=1)
    assert bootstrap_ci([3, 3, 3]) == (3.0, 3.0)
    s = summarize(data)
    assert s.ci_low < s.imps_per_board < s.ci_high and s.total_imps == sum(data)
    # Roughly mean +- 2 standard errors for a sample this size.
    assert s.ci_high - s.ci_low == pytest.approx(4 * s.stderr, rel=0.35)


def test_running_mean() -> None:
    mean, se = running_mean([4, 0, 2])
    assert mean == [4.0, 2.0, 2.0]
    assert math.isnan(se[0])
    assert se[1] == pytest.approx(math.sqrt(8 / 2))
    assert se[2] == pytest.approx(math.sqrt(4 / 3))
