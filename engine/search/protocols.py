"""The search's types and the protocols of its parts: the rollout policy
(:class:`engine.batch_policy.BatchPolicy`, the one protocol of a policy's logits), the trick
oracle, the particle samplers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

import numpy as np
from bridgebot.core.arrays import FloatArray, IntArray, U8Array
from bridgebot.engine.batch_policy import BatchPolicy
from bridgebot.engine.likelihood import NEG_INF

__all__ = [
    "NEG_INF",
    "N_TRICKS",
    "BatchPolicy",
    "FloatArray",
    "IntArray",
    "ObservationSampler",
    "ParticleSampler",
    "TrickOracle",
    "U8Array",
]

N_TRICKS = 14  # trick counts 0..13


class TrickOracle(Protocol):
    """Double-dummy trick counts for rows (deal, declarer, strain)."""

    def trick_probs(self, owners: U8Array, declarer: IntArray, strain: IntArray) -> FloatArray:
        """The distribution [B, 14] of the tricks declarer takes in strain (DD index 0 C .. 4 NT)
        on deal ``owners`` [B, 52]: one-hot for an exact oracle."""


#: (seat, our hand [52] 0/1, n) -> owners uint8 [n, 52]: a sampler blind to the auction.
ParticleSampler = Callable[[int, U8Array, int, np.random.Generator], U8Array]


@runtime_checkable
class ObservationSampler(Protocol):
    """A sampler that reads the observation too (the belief net, :mod:`engine.belief`)."""

    def sample(
        self, features: FloatArray, seat: int, hand: U8Array, n: int, rng: np.random.Generator
    ) -> U8Array:
        """``n`` deals (owners uint8 [n, 52]) for the observer of ``features`` [480]."""
