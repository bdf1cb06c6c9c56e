"""The prior's candidates and the particles: uniform deals of the unseen cards, resampling, and
the likelihood of the auction under the rollout policy (the filter)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from bridgebot.engine.features import (
    encode_arrays,
    legal_masks_arrays,
    vul_flags,
)
from bridgebot.engine.search.protocols import NEG_INF, BatchPolicy, FloatArray, IntArray, U8Array

# -- policy helpers ----------------------------------------------------------------------------------


def masked_softmax(logits: FloatArray, mask: npt.NDArray[np.bool_]) -> FloatArray:
    """Softmax over the legal entries only (illegal ones get probability 0)."""
    z = np.where(mask, logits, NEG_INF)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z) * mask
    out: FloatArray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


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


def auction_log_likelihood(
    policy: BatchPolicy,
    owners: U8Array,
    dealer: int,
    vul: int,
    history: IntArray,
    skip_seat: int | None,
    only: set[int] | None = None,
    noise: float = 0.0,
) -> npt.NDArray[np.float64]:
    """Sum over the calls in ``history`` (not those of ``skip_seat``) of log pi(call | particle).

    One batched policy call over (particle x call) rows. ``history`` holds ALL_CALLS indices from
    the dealer's call on; ``dealer``/``vul`` are endplay values. ``only``, when given, keeps only
    the calls of those seats (e.g. the opponents', scored under an opponent model). ``noise``
    mixes the policy with a uniformly random legal call: each call is the policy's with
    probability ``1 - noise``, so a call the policy would never make costs a particle at most a
    factor ``noise / legal calls`` instead of all its weight.
    """
    p = owners.shape[0]
    positions = [
        i
        for i in range(len(history))
        if (dealer + i) % 4 != skip_seat and (only is None or (dealer + i) % 4 in only)
    ]
    out = np.zeros(p, dtype=np.float64)
    if not positions or p == 0:
        return out
    m = len(positions)
    length = max(len(history), 1)
    prefixes = np.full((m, length), -1, dtype=np.int64)
    for j, i in enumerate(positions):
        prefixes[j, :i] = history[:i]
    seats = np.array([(dealer + i) % 4 for i in positions], dtype=np.int64)
    # Rows are particle-major: row = particle * m + j.
    hands = (owners[:, None, :] == seats[None, :, None]).astype(np.uint8).reshape(p * m, 52)
    rel = np.array(positions, dtype=np.int64) % 4
    vus, vth = vul_flags(np.full(m, vul), seats)
    # The auction blocks and legal masks depend on the position alone: made once per position
    # and tiled over the particles (the same rows, bit for bit, as encoding every row); a policy
    # with ``tiled_logits`` also computes its first layer's auction part once per position.
    masks = np.tile(legal_masks_arrays(prefixes), (p, 1))
    tiled = getattr(policy, "tiled_logits", None)
    if tiled is not None:
        base = encode_arrays(np.zeros((m, 52), np.uint8), rel, vus, vth, prefixes)
        logits = tiled(base, hands.reshape(p, m, 52))
    else:
        logits = policy.logits(encode_arrays(hands, rel, vus, vth, prefixes, tiles=p))
    probs = masked_softmax(logits, masks)
    observed = np.tile(history[positions], p)
    chosen = probs[np.arange(p * m), observed].astype(np.float64)
    if noise > 0:
        chosen = (1.0 - noise) * chosen + noise / masks.sum(axis=1)
    out = np.log(np.maximum(chosen, 1e-12)).reshape(p, m).sum(axis=1)
    return np.asarray(out, dtype=np.float64)
