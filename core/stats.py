"""Match statistics: IMPs per board with standard error, a bootstrap interval, the running mean.

About 6 IMPs of standard deviation per board means a few hundred boards are needed before a
difference of half an IMP per board is real; the report shows these numbers so nobody reads noise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Summary:
    boards: int
    imps_per_board: float
    stderr: float
    ci_low: float
    ci_high: float
    """Percentile bootstrap interval of the mean at level ``confidence``."""
    confidence: float
    total_imps: int


def finite(x: float) -> float | None:
    """``x`` rounded for a record, or None for nan (JSON has no nan)."""
    return None if math.isnan(x) else round(x, 4)


def mean_stderr(values: Sequence[float]) -> tuple[float, float]:
    """Mean and its standard error (sample standard deviation over sqrt(n)); nan below 2 values."""
    n = len(values)
    if n == 0:
        return float("nan"), float("nan")
    mean = float(np.mean(values))
    if n < 2:
        return mean, float("nan")
    return mean, float(np.std(values, ddof=1)) / math.sqrt(n)


def bootstrap_ci(
    values: Sequence[float], confidence: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval for the mean, seeded so a report is reproducible."""
    if len(values) == 0:
        return float("nan"), float("nan")
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(data), size=(resamples, len(data)))
    means = data[idx].mean(axis=1)
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def summarize(imps: Sequence[int], confidence: float = 0.95) -> Summary:
    mean, se = mean_stderr(imps)
    low, high = bootstrap_ci(imps, confidence)
    return Summary(
        boards=len(imps),
        imps_per_board=mean,
        stderr=se,
        ci_low=low,
        ci_high=high,
        confidence=confidence,
        total_imps=int(sum(imps)),
    )


def running_mean(values: Sequence[float]) -> tuple[list[float], list[float]]:
    """Running mean after each board and its standard error (nan for the first board)."""
    data = np.asarray(values, dtype=np.float64)
    n = np.arange(1, len(data) + 1)
    mean = np.cumsum(data) / n
    sq = np.cumsum(data**2)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (sq - n * mean**2) / (n - 1)
        se = np.sqrt(np.maximum(var, 0.0) / n)
    se[:1] = float("nan")
    return mean.tolist(), se.tolist()
