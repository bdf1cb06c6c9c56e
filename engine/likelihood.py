"""The likelihood of an auction under a bidding policy, for many deals at once.

The particle filter of the bidding search (:mod:`engine.search.particles`) and the worlds of card
play (:mod:`engine.worlds`) weigh their deals by the same product: over the calls the other seats
made, the policy's probability of each call given the caller's hand in that deal and the auction
before it. It lives here, below both, so that neither imports the other's package.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import Float64Array, FloatArray, IntArray, U8Array
from bridgebot.engine.batch_policy import BatchPolicy, TiledPolicy
from bridgebot.engine.features import encode_arrays, legal_masks_arrays, vul_flags

#: The logit of an illegal call: exp() of it is 0 in float32.
NEG_INF = np.float32(-1e9)


def masked_softmax(logits: FloatArray, mask: npt.NDArray[np.bool_]) -> FloatArray:
    """Softmax over the legal entries only (illegal ones get probability 0)."""
    z = np.where(mask, logits, NEG_INF)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z) * mask
    out: FloatArray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def auction_log_likelihood(
    policy: BatchPolicy,
    owners: U8Array,
    dealer: int,
    vul: int,
    history: IntArray,
    skip_seat: int | None,
    only: set[int] | None = None,
    noise: float = 0.0,
) -> Float64Array:
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
    # and tiled over the particles (the same rows, bit for bit, as encoding every row); a
    # TiledPolicy also computes its first Gemm's auction part once per position.
    masks = np.tile(legal_masks_arrays(prefixes), (p, 1))
    if isinstance(policy, TiledPolicy):
        base = encode_arrays(np.zeros((m, 52), np.uint8), rel, vus, vth, prefixes)
        logits = policy.tiled_logits(base, hands.reshape(p, m, 52))
    else:
        logits = policy.logits(encode_arrays(hands, rel, vus, vth, prefixes, tiles=p))
    probs = masked_softmax(logits, masks)
    observed = np.tile(history[positions], p)
    chosen = probs[np.arange(p * m), observed].astype(np.float64)
    if noise > 0:
        chosen = (1.0 - noise) * chosen + noise / masks.sum(axis=1)
    out = np.log(np.maximum(chosen, 1e-12)).reshape(p, m).sum(axis=1)
    return np.asarray(out, dtype=np.float64)
