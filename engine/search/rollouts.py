"""Rollouts: every (candidate, particle) row's auction finished by the policy, one batched call
a step; the final contracts and their scores for our side."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from bridgebot.engine.features import (
    encode_arrays,
    legal_masks_arrays,
    vul_flags,
)
from bridgebot.engine.likelihood import masked_softmax
from bridgebot.engine.search.protocols import (
    N_TRICKS,
    NEG_INF,
    BatchPolicy,
    FloatArray,
    IntArray,
    U8Array,
)
from bridgebot.laws.boards import side_vulnerable_arrays
from bridgebot.laws.calls import ALL_CALLS, final_contracts_array
from bridgebot.laws.scoring import imps_array, score_array

# -- rollouts and contracts -----------------------------------------------------------------------


def split_logits(
    ours: BatchPolicy, theirs: BatchPolicy, features: FloatArray, is_theirs: npt.NDArray[np.bool_]
) -> FloatArray:
    """Logits for rows whose bidder is ours (``ours``) or an opponent (``theirs``): one call each."""
    out = np.empty((features.shape[0], len(ALL_CALLS)), dtype=np.float32)
    mine = ~is_theirs
    if mine.any():
        out[mine] = ours.logits(features[mine])
    if is_theirs.any():
        out[is_theirs] = theirs.logits(features[is_theirs])
    return out


def auction_over_arrays(auctions: IntArray, n: IntArray) -> npt.NDArray[np.bool_]:
    """Rows whose auction (``n`` calls, -1 padded) has ended: >= 4 calls, last three passes."""
    b = auctions.shape[0]
    if auctions.shape[1] < 3:
        return np.zeros(b, dtype=np.bool_)
    idx = np.clip(n[:, None] - np.arange(1, 4)[None, :], 0, None)
    last3 = np.take_along_axis(auctions, idx, axis=1)
    over: npt.NDArray[np.bool_] = (n >= 4) & (last3 == 0).all(axis=1)
    return over


def rollout(
    policy: BatchPolicy,
    owners: U8Array,
    dealer: int,
    vul: int,
    auctions: IntArray,
    n: IntArray,
    *,
    greedy: bool = True,
    rng: np.random.Generator | None = None,
    max_calls: int = 48,
    opponent: BatchPolicy | None = None,
    our_seat: int = 0,
) -> tuple[IntArray, IntArray]:
    """Finish every row's auction with ``policy`` for all four seats; all rows step together.

    ``owners`` [B, 52] is each row's deal, ``auctions`` [B, L] (-1 padded) and ``n`` [B] the calls
    so far. Returns the finished (auctions, n). A row still open after ``max_calls`` more calls is
    closed with passes (a bound for a pathological policy; greedy trained policies end far sooner).
    With ``opponent``, the two seats not on ``our_seat``'s side bid with it instead (a model of
    how the real opponents bid); our side, partner included, stays ``policy``.
    """
    b = owners.shape[0]
    width = auctions.shape[1] + max_calls + 3
    a = np.full((b, width), -1, dtype=np.int64)
    a[:, : auctions.shape[1]] = auctions
    n = n.astype(np.int64).copy()
    for _ in range(max_calls):
        active = np.flatnonzero(~auction_over_arrays(a, n))
        if active.size == 0:
            break
        na = n[active]
        seat = (dealer + na) % 4
        hands = (owners[active] == seat[:, None]).astype(np.uint8)
        vus, vth = vul_flags(np.full(active.size, vul), seat)
        cur = a[active, : int(na.max()) + 1]
        masks = legal_masks_arrays(cur)
        feats = encode_arrays(hands, na % 4, vus, vth, cur)
        if opponent is None:
            logits = policy.logits(feats)
        else:
            logits = split_logits(policy, opponent, feats, (seat % 2) != (our_seat % 2))
        if greedy or rng is None:
            call = np.where(masks, logits, NEG_INF).argmax(axis=1)
        else:
            probs = masked_softmax(logits, masks).astype(np.float64)
            u = rng.random((active.size, 1))
            call = (probs.cumsum(axis=1) < u).sum(axis=1)
            call = np.minimum(call, probs.shape[1] - 1)
            call = np.where(masks[np.arange(active.size), call], call, probs.argmax(axis=1))
        a[active, na] = call
        n[active] = na + 1
    # Close any row still open with passes.
    for _ in range(3):
        still = np.flatnonzero(~auction_over_arrays(a, n))
        if still.size == 0:
            break
        a[still, n[still]] = 0
        n[still] += 1
    return a, n


@dataclass(frozen=True)
class Contracts:
    """Final contracts of a batch of auctions; ``level`` 0 = passed out."""

    level: IntArray
    strain: IntArray
    penalty: IntArray
    declarer: IntArray


def final_contracts(auctions: IntArray, dealer: int) -> Contracts:
    """Vectorised :func:`laws.calls.final_contract` over -1-padded rows of ALL_CALLS indices."""
    return Contracts(*final_contracts_array(auctions, dealer))


def score_for_side(
    contracts: Contracts, tricks: IntArray, vul: int, our_seat: int
) -> npt.NDArray[np.int64]:
    """Duplicate score of each contract for ``our_seat``'s side (0 when passed out)."""
    vul_decl = side_vulnerable_arrays(vul, contracts.declarer)
    raw = score_array(
        contracts.level,
        contracts.strain,
        contracts.penalty,
        vul_decl,
        np.where(contracts.level > 0, tricks, 0),
    )
    ours = (contracts.declarer % 2) == (our_seat % 2)
    out: npt.NDArray[np.int64] = np.where(ours, raw, -raw).astype(np.int64)
    return out


def punished(
    contracts: Contracts, probs: npt.NDArray[np.float64], our_seat: int, down: int
) -> Contracts:
    """The contracts after punishing opponents have had their say: every undoubled contract of
    ``our_seat``'s side that goes down ``down`` tricks or more (more likely than not, under the
    trick distribution ``probs`` [B, 14]) is doubled. A model of opponents who double what
    fails badly, written from the double-dummy tricks, not from any bot's doubling code."""
    need = contracts.level + 6
    counts = np.arange(N_TRICKS)[None, :]
    p_fail = (probs * (counts <= (need - down)[:, None])).sum(axis=1)
    ours = (contracts.declarer % 2) == (our_seat % 2)
    hit = (contracts.level > 0) & (contracts.penalty == 0) & ours & (p_fail > 0.5)
    return replace(contracts, penalty=np.where(hit, 1, contracts.penalty).astype(np.int64))


def expected_imps(
    probs: npt.NDArray[np.float64], scores: npt.NDArray[np.float64], key: IntArray
) -> npt.NDArray[np.float64]:
    """Expected IMPs of each candidate's row over candidate 0's on the same particle: [c, u].

    ``probs`` and ``scores`` [c, u, 14] are each row's trick distribution and our score for each
    trick count; ``key`` [c, u] names the row's (declarer, strain). Two rows with the same key
    take the same double-dummy tricks, so their trick counts are one variable; otherwise the two
    distributions are taken as independent.
    """
    ref_p, ref_s = probs[0], scores[0]  # [u, 14]
    same = key == key[0][None, :]  # [c, u]
    shared = (probs * imps_array(scores - ref_s[None]).astype(np.float64)).sum(axis=2)
    diff = imps_array(scores[:, :, :, None] - ref_s[None, :, None, :]).astype(np.float64)
    apart = np.einsum("cut,cutv,uv->cu", probs, diff, ref_p)
    out: npt.NDArray[np.float64] = np.where(same, shared, apart)
    return out
