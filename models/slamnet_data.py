"""The slam estimator's data (``bridgebot train slamnet``, :mod:`models.slamnet`): the policy's
own greedy self-play auctions, one example per call (the observation before it and, from the
deal's DD table, the trick class of each strain's would-be declarer), and the weights that let
slam-rich deals join the uniform ones without bending the odds of a slam.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import Float64Array, IntArray
from bridgebot.engine.control_ask import controls
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import Thresholds, slam_calls, trick_classes
from bridgebot.models.data import Chooser, observe, run_auctions


def policy_chooser(
    policy: Policy,
    slam: Any = None,
    thresholds: Thresholds | None = None,
) -> Chooser:
    """The ONNX policy, greedy, as a chooser of :func:`models.data.run_auctions`; with ``slam``
    (a callable features -> slam logits) and ``thresholds``, the slam layer on top."""

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        logits = policy.logits(x)
        calls = policy.choose(x, mask, logits=logits)
        if slam is None:
            return calls
        out: IntArray = slam_calls(x, mask, logits, calls, slam(x), thresholds or Thresholds())
        return out

    return choose


class SelfPlayCall(NamedTuple):
    """The calls at one position of a batch of the policy's self-play auctions."""

    owners: npt.NDArray[np.uint8]
    """[n, 52] the deals of the auctions still running at ``pos``."""
    dealer: IntArray
    auctions: IntArray
    """[n, MAX_CALLS] the finished auctions (-1 padded)."""
    pos: int
    seat: IntArray
    """The absolute seat calling at ``pos``."""
    x: npt.NDArray[np.float32]
    """The caller's observation before its call."""
    classes: npt.NDArray[np.int8]
    """[n, 5] per strain: 0 (11 or fewer), 1 (12) or 2 (13) tricks DD for our would-be declarer."""
    deal: IntArray
    """[n] the index of each auction's deal in the deals given."""


def self_play_calls(
    policy: Policy,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    rng: np.random.Generator,
    batch: int = 4096,
    auctions: int = 1,
) -> Iterator[SelfPlayCall]:
    """Every call of the policy's greedy self-play auctions on the deals, one position of one
    batch at a time. Each deal is bid ``auctions`` times: the first from a dealer and
    vulnerability drawn at random, each later one from the next dealer round the table, with a
    vulnerability of its own."""
    for start in range(0, len(owners), batch):
        o, d = owners[start : start + batch], dd[start : start + batch]
        b = len(o)
        first = rng.integers(0, 4, size=b)
        vul = rng.integers(0, 4, size=b)
        for k in range(auctions):
            dealer = (first + k) % 4
            if k:
                vul = rng.integers(0, 4, size=b)
            calls = run_auctions(
                o, dealer, vul, np.zeros((b, 4), np.int64), [policy_chooser(policy)]
            )
            length = (calls >= 0).sum(axis=1)
            for pos in range(int(length.max())):
                rows = np.flatnonzero(length > pos)
                x, _ = observe(
                    o[rows], dealer[rows], vul[rows], calls[rows], np.full(len(rows), pos)
                )
                seat = (dealer[rows] + pos) % 4
                classes = trick_classes(x, seat, d[rows])
                yield SelfPlayCall(
                    o[rows], dealer[rows], calls[rows], pos, seat, x, classes, start + rows
                )


class States(NamedTuple):
    """The estimator's examples: one per call of the policy's self-play auctions."""

    x: npt.NDArray[np.uint8]
    """[N, 480] the caller's observation before its call."""
    y: npt.NDArray[np.int8]
    """[N, 5] the trick classes of :attr:`SelfPlayCall.classes`."""
    deal: IntArray
    """[N] the index of the example's deal in the deals given."""
    partner_controls: IntArray
    """[N] the caller's partner's controls (ace 2, king 1: :func:`engine.control_ask.controls`)."""


def self_play_states(
    policy: Policy,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    rng: np.random.Generator,
    batch: int = 4096,
    auctions: int = 1,
) -> States:
    """The examples of every call of the policy's self-play auctions on the deals
    (:func:`self_play_calls`)."""
    xs, ys, deals, partner = [], [], [], []
    for call in self_play_calls(policy, owners, dd, rng, batch, auctions):
        xs.append(call.x.astype(np.uint8))
        ys.append(call.classes)
        deals.append(call.deal)
        partner.append(controls(call.owners == ((call.seat + 2) % 4)[:, None]))
    return States(
        np.concatenate(xs), np.concatenate(ys), np.concatenate(deals), np.concatenate(partner)
    )


def deal_kinds(owners: npt.NDArray[np.uint8], dd: npt.NDArray[np.uint8]) -> IntArray:
    """Each deal's kind, 0-3: 2 if it passes the slam filter (:func:`models.dealfilter.slam_deals`,
    judged from the cards), plus 1 if some side takes 12+ tricks in some strain double dummy."""
    from bridgebot.models.dealfilter import slam_deals

    made = np.asarray(dd).reshape(len(dd), -1).max(axis=1) >= 12
    kinds: IntArray = 2 * slam_deals(owners).astype(np.int64) + made.astype(np.int64)
    return kinds


def kind_shares(uniform: IntArray, extra: IntArray) -> Float64Array:
    """[4] the weight of a deal of each kind (:func:`deal_kinds`) when the added slam-rich deals
    of kinds ``extra`` join the uniform deals of kinds ``uniform``: n_u / (n_u + n_x), n_u and
    n_x that kind's uniform and added deals, so each kind weighs in all what its uniform deals
    did (1 for a kind nothing is added to). A ValueError where an added kind has no uniform deal,
    whose share would then be unknown."""
    n_u = np.bincount(uniform, minlength=4)
    n_x = np.bincount(extra, minlength=4)
    missing = [k for k in range(4) if n_x[k] and not n_u[k]]
    if missing:
        raise ValueError(
            f"--slam-deals: the uniform deals hold no deal of kind {missing[0]} (filter passed: "
            f"{bool(missing[0] & 2)}, slam made: {bool(missing[0] & 1)}), so the added deals "
            "of that kind cannot be weighted; add uniform deals (--deals)"
        )
    shares: Float64Array = np.where(n_x > 0, n_u / np.maximum(n_u + n_x, 1), 1.0)
    return shares


class SlamRich(NamedTuple):
    """Slam-rich deals to add to uniform ones, and the weight of every deal of both."""

    owners: npt.NDArray[np.uint8]
    dd: npt.NDArray[np.uint8]
    uniform_weights: Float64Array
    """[n_u] each uniform deal's weight."""
    weights: Float64Array
    """[n_x] each added deal's weight."""
    shares: Float64Array
    """[4] the weight of a deal of each kind (:func:`kind_shares`)."""


def slam_rich(
    owners: npt.NDArray[np.uint8], dd: npt.NDArray[np.uint8], paths: Sequence[str]
) -> SlamRich:
    """The deals of the slam-rich files ``paths`` and the weights that let them join the uniform
    deals ``owners``, ``dd`` (:func:`kind_shares`; its ValueError where a kind cannot be
    weighted, :func:`models.data.load_dd`'s DataError for a file that is not a DD file)."""
    from bridgebot.models.data import load_dd

    sets = [load_dd(path) for path in paths]
    so = np.concatenate([s.owners for s in sets])
    sd = np.concatenate([s.dd for s in sets])
    kinds_u, kinds_s = deal_kinds(owners, dd), deal_kinds(so, sd)
    shares = kind_shares(kinds_u, kinds_s)
    return SlamRich(so, sd, shares[kinds_u], shares[kinds_s], shares)
