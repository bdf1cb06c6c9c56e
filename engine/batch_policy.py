"""What a bidding policy is to the parts that read it: one protocol for the logits of a batch,
and the capability of tiling many hands over a few positions.

Everything that reads a policy's logits takes a :class:`BatchPolicy`: the search's prior and
rollouts (:mod:`engine.search`), the particle filter and the worlds of card play
(:mod:`engine.likelihood`, :mod:`engine.worlds`), the parts an agent says it plays
(:mod:`engine.parts`). :class:`engine.policy.Policy` is the ONNX one. A policy that can also
score many hands at a few positions with the auction part computed once per position is a
:class:`TiledPolicy`; code that can use that asks ``isinstance(policy, TiledPolicy)``.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray


@runtime_checkable
class BatchPolicy(Protocol):
    """A bidding policy that scores many observations at once."""

    def logits(self, x: FloatArray) -> FloatArray:
        """Logits float32 [B, 38] over :data:`laws.calls.ALL_CALLS` for observations ``x``
        [B, 480]."""
        ...


@runtime_checkable
class TiledPolicy(BatchPolicy, Protocol):
    """A :class:`BatchPolicy` that also scores many hands at a few positions
    (:meth:`engine.policy.Policy.tiled_logits`)."""

    def tiled_logits(self, base: FloatArray, hands: npt.NDArray[np.integer]) -> FloatArray:
        """Logits [T * M, 38] for ``hands`` [T, M, 52] (0/1, data-file order) at the ``M``
        positions whose observations ``base`` [M, 480] has (their hand blocks ignored): row
        ``t * M + j`` is :meth:`logits` of position ``j`` holding hand ``t, j``."""
        ...
