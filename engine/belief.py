"""The belief network at run time: who holds the cards we cannot see, and particles dealt from it.

Why: a search that deals the hidden cards uniformly wastes most of its particles on deals that the
auction has already ruled out, and then spends the filter's likelihood on throwing them away.
Qiu et al. 2024 (docs/papers.md) train a network from the bidding observation to the owners of the
hidden cards (3 x 52 sigmoid outputs) and deal particles from it. This module serves such a net
(written by ``bridgebot train belief``, ``models/belief.py``) with onnxruntime, no torch.

Layout: the input is the policy's own 480-feature observation (:mod:`engine.features`) of the
player to call; output ``j * 52 + c`` (``j`` = 0, 1, 2 for the left-hand opponent, partner and
right-hand opponent, ``c`` a card in the data-file order S, H, D, C; A..2) is the logit of "seat
``j + 1`` places clockwise from the observer holds card ``c``".

Sampling (:func:`sample_owners`): the sigmoids are renormalised per unseen card over the three
seats, then each particle deals its 39 unseen cards one by one, the surest first (ties in a
random order of its own), each to a seat drawn in proportion to the belief among the seats that
still have room (13 cards each). The capacities make every particle a legal deal consistent with
our hand, whatever the network says.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray, U8Array
from bridgebot.engine.features import FEATURE_VERSION as POLICY_FEATURE_VERSION
from bridgebot.engine.features import N_FEATURES
from bridgebot.engine.modelcard import Expected, ModelError, cpu_session, load_model

#: The output layout this build understands (see the module docstring).
OUTPUT_VERSION = "belief-rel3x52-v1"
N_OUTPUTS = 156
#: Least probability a seat keeps for a card, so that capacity can always be met.
FLOOR = 1e-4

#: What the belief reader needs of a model directory (``engine.modelcard`` checks it).
BELIEF_MODEL = Expected(
    onnx="belief.onnx",
    feature_versions={POLICY_FEATURE_VERSION},
    inputs=N_FEATURES,
    outputs=N_OUTPUTS,
    output_version=OUTPUT_VERSION,
    remedy="retrain with 'bridgebot train belief'",
)


class BeliefNet:
    """Batch inference: observations [B, 480] -> P(seat holds card) [B, 3, 52]."""

    def __init__(self, path: str | Path, threads: int = 1) -> None:
        self.model = load_model(path, BELIEF_MODEL)
        self.onnx_path = self.model.onnx_path
        self.session = cpu_session(self.onnx_path, threads)
        (inp,) = self.session.get_inputs()
        (out,) = self.session.get_outputs()
        if inp.shape[-1] != N_FEATURES or out.shape[-1] != N_OUTPUTS:
            raise ModelError(
                f"{self.onnx_path}: shapes {inp.shape} -> {out.shape}, expected "
                f"[batch, {N_FEATURES}] -> [batch, {N_OUTPUTS}]"
            )
        self._input, self._output = inp.name, out.name

    def logits(self, features: FloatArray) -> FloatArray:
        x = np.ascontiguousarray(features, dtype=np.float32).reshape(-1, N_FEATURES)
        (out,) = self.session.run([self._output], {self._input: x})
        return np.asarray(out, dtype=np.float32)

    def probabilities(self, features: FloatArray) -> FloatArray:
        """Sigmoid outputs as [B, 3, 52] (seat j + 1 clockwise from the observer, card)."""
        z = self.logits(features).astype(np.float64)
        p: FloatArray = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
        return p.reshape(-1, 3, 52)


def owner_distribution(probs: npt.ArrayLike, hand: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Per unseen card, a distribution over the three other seats ([3, 52]; 0 on our cards)."""
    p = np.maximum(np.asarray(probs, dtype=np.float64).reshape(3, 52), FLOOR)
    unseen = np.asarray(hand).reshape(52) == 0
    p = p / p.sum(axis=0, keepdims=True)
    out: npt.NDArray[np.float64] = np.where(unseen[None, :], p, 0.0)
    return out


def sample_owners(
    dist: npt.ArrayLike, seat: int, hand: npt.ArrayLike, n: int, rng: np.random.Generator
) -> U8Array:
    """``n`` deals (owners uint8 [n, 52]) giving ``hand`` to ``seat``, the rest from ``dist``.

    ``dist`` [3, 52] weighs the seats ``seat + 1 .. seat + 3`` for each card (any non-negative
    numbers; a seat with weight 0 still gets the card when only it has room). Cards are dealt
    in a random order per particle, each to a seat drawn in proportion to its weight among the
    seats with room left, so every particle holds exactly 13 cards a seat. The surest cards
    go first, so that the capacities bend only the guesses.
    """
    h = np.asarray(hand).reshape(52)
    if int((h != 0).sum()) != 13:
        raise ValueError(f"sample_owners: our hand has {int((h != 0).sum())} cards, not 13")
    w = np.asarray(dist, dtype=np.float64).reshape(3, 52)
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_owners: weights must be finite and non-negative")
    unseen = np.flatnonzero(h == 0)
    # The surest cards are dealt first (a seat filled by guesses could not take a card it surely
    # holds); cards of about equal certainty in a random order per particle.
    share = w[:, unseen] / np.maximum(w[:, unseen].sum(axis=0, keepdims=True), 1e-300)
    sureness = np.round(share.max(axis=0), 2)
    order = unseen[np.argsort(rng.random((n, 39)) * 0.01 - sureness[None, :], axis=1)]
    room = np.full((n, 3), 13, dtype=np.int64)
    who = np.empty((n, 39), dtype=np.int64)
    rows = np.arange(n)
    u = rng.random((n, 39))
    for t in range(39):
        card = order[:, t]
        weight = w[:, card].T * (room > 0) + 1e-12 * (room > 0)  # [n, 3]
        cdf = weight.cumsum(axis=1)
        # The first seat whose cumulative weight exceeds u x total: never one without room.
        j = np.minimum((cdf <= u[:, t, None] * cdf[:, -1:]).sum(axis=1), 2)
        who[:, t] = j
        room[rows, j] -= 1
    owners = np.full((n, 52), seat, dtype=np.uint8)
    owners[rows[:, None], order] = ((seat + 1 + who) % 4).astype(np.uint8)
    return owners


class BeliefSampler:
    """Particles for :class:`engine.search.BorelSearch` dealt from a :class:`BeliefNet`."""

    def __init__(self, net: BeliefNet) -> None:
        self.net = net

    def sample(
        self,
        features: FloatArray,
        seat: int,
        hand: U8Array,
        n: int,
        rng: np.random.Generator,
    ) -> U8Array:
        """``n`` deals for the observer whose observation is ``features`` [480]."""
        probs = self.net.probabilities(np.asarray(features).reshape(1, N_FEATURES))[0]
        return sample_owners(owner_distribution(probs, hand), seat, hand, n, rng)
