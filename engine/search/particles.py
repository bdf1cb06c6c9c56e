"""The prior's candidates and the particles: uniform deals of the unseen cards and resampling. The
filter's likelihood of the auction under the rollout policy is :mod:`engine.likelihood`'s (card
play weighs its worlds by it too)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray, IntArray, U8Array

# -- the prior's candidates ------------------------------------------------------------------------


def candidates_from_prior(prior: FloatArray, k: int, p_min: float) -> list[int]:
    """Top-``k`` calls with probability >= ``p_min``; the top call always qualifies."""
    order = np.argsort(-prior, kind="stable")
    chosen = [int(order[0])]
    for c in order[1:k]:
        if prior[c] >= p_min and prior[c] > 0:
            chosen.append(int(c))
    return chosen


# -- particles -------------------------------------------------------------------------------------


def deal_uniform(seat: int, hand: U8Array, n: int, rng: np.random.Generator) -> U8Array:
    """``n`` deals (owners uint8 [n, 52]) giving ``hand`` to ``seat`` and the rest at random."""
    hand = np.asarray(hand)
    if int(hand.sum()) != 13:
        raise ValueError(f"deal_uniform: our hand has {int(hand.sum())} cards, not 13")
    unseen = np.flatnonzero(hand == 0)
    others = np.array([(seat + j) % 4 for j in (1, 2, 3)], dtype=np.uint8)
    pos = rng.random((n, 39)).argsort(axis=1).argsort(axis=1)  # rank of each unseen card
    owners = np.full((n, 52), seat, dtype=np.uint8)
    owners[:, unseen] = others[pos // 13]
    return owners


def resample(weights: npt.NDArray[np.float64], n: int, rng: np.random.Generator) -> IntArray:
    """Systematic resampling: ``n`` indices drawn in proportion to ``weights`` (low variance)."""
    w = np.asarray(weights, dtype=np.float64)
    total = w.sum()
    if not np.isfinite(total) or total <= 0:
        raise ValueError("resample: weights must have a positive finite sum")
    cdf = np.cumsum(w / total)
    cdf[-1] = 1.0
    points = (rng.random() + np.arange(n)) / n
    return np.searchsorted(cdf, points, side="right").astype(np.int64)
