"""The slam layer: a learned estimate of what our side's cards make, read where slams are decided.

The league's policy bids few slams (4-8% of the deals where its side makes one double dummy): a
slam is rare in training, decided in one or two calls, and reinforcement learning finds such calls
slowly. What the policy's auction does carry, after a game is reached, is most of the
information a slam decision needs; what it lacks is the arithmetic. The layer supplies it:

- **The slam estimator** (the model directory ``slam/`` inside the policy's, ``slam.onnx`` and its
  card, trained by ``bridgebot train slamnet``, :mod:`models.slamnet`): from the observation the policy sees (our
  hand, the auction, vulnerability: the 480 features), the distribution of the tricks our side
  takes double dummy in each strain, in three classes (11 or fewer, 12, 13), played by the
  player of our side who would declare it (the first of us to name the strain, else the one to
  call). Trained on the policy's own auctions, so it reads partner's calls as partner means them.
- **The rule** (:func:`slam_calls`): where the policy's call leaves our side in a contract at the
  three to five level (a game bid, a pass of partner's game: the calls where slams are missed),
  the layer bids 6 of the strain most likely to make 12 tricks when that chance reaches
  ``small`` (7 when 13 tricks reach ``grand``); at the six level it may still bid the grand. Where
  the policy bids a slam itself, the layer keeps it only if the estimate gives it at least
  ``keep``; else the policy's best call below the slam stands. Nothing else is touched.

The thresholds are the estimator's, chosen on validation deals (never the test deals) and recorded
in the model card; a double-dummy slam that makes 12 tricks 75% of the time is the break-even a
real declarer needs, and the default thresholds sit there. No torch here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray, IntArray
from bridgebot.engine.features import (
    FEATURE_VERSION,
    N_FEATURES,
    decode_bids,
    standing_contract,
    without_their_doubles,
)
from bridgebot.engine.modelcard import Expected, ModelError, cpu_session, load_model
from bridgebot.engine.pipeline import Amending, Step
from bridgebot.laws.calls import FIRST_BID, call_index

#: Trick classes of the estimator's output, per strain: 11 or fewer, 12, 13.
N_CLASSES = 3
#: Outputs: 5 strains (C, D, H, S, NT) x :data:`N_CLASSES`.
N_OUTPUTS = 5 * N_CLASSES
SLAM_ONNX = "slam.onnx"
#: The estimator's directory inside a policy's model directory.
SLAM_DIR = "slam"
#: The card's ``output_version`` for this output layout.
OUTPUT_VERSION = "slam-tricks3-v1"

#: What the slam layer needs of a model directory (the card's ``slam`` entry names the file).
SLAM_MODEL = Expected(
    onnx=SLAM_ONNX,
    feature_versions=frozenset({FEATURE_VERSION}),
    inputs=N_FEATURES,
    outputs=N_OUTPUTS,
    remedy="retrain it with 'bridgebot train slamnet' or upgrade",
    output_version=OUTPUT_VERSION,
)


@dataclass(frozen=True)
class Thresholds:
    """Where the layer acts; see the module docstring."""

    small: float = 0.75
    """Least chance of 12+ tricks for a small slam bid over the policy's game."""
    grand: float = 0.8
    """Least chance of 13 tricks for a grand."""
    keep: float = 0.5
    """Least chance of making that keeps a slam the policy bids itself."""
    low: int = 3
    """The lowest level of our side's contract, after the policy's call, at which the layer
    bids a slam over it."""


def declarer_rel(x: FloatArray) -> IntArray:
    """[B, 5]: per strain, who of our side declares it if we end there (0 us, 2 partner): the
    first of us to have named the strain, else the player to call (observation rows)."""
    made = decode_bids(x)[:, :, 0, :]  # [B, 35, 4] bid made by relative seat
    out = np.zeros((len(x), 5), dtype=np.int64)
    for strain in range(5):
        cols = np.arange(strain, made.shape[1], 5)
        ours = made[:, cols][:, :, [0, 2]]  # [B, 7 levels, us/partner]
        named = np.asarray(ours.any(axis=1), dtype=np.bool_)  # [B, 2]
        first = np.where(named, np.argmax(ours, axis=1), 99)  # the lowest level each named it
        out[:, strain] = np.where(named[:, 1] & (first[:, 1] < first[:, 0]), 2, 0)
    return out


def trick_classes(
    x: FloatArray, seat: IntArray, dd: npt.NDArray[np.integer]
) -> npt.NDArray[np.int8]:
    """[B, 5] the estimator's label of each observation ``x`` of absolute seat ``seat``: per
    strain, 0 (11 tricks or fewer), 1 (12) or 2 (13) double dummy for our would-be declarer
    (:func:`declarer_rel`); ``dd`` [B, 4, 5] each row's table (declarer, strain)."""
    decl = (np.asarray(seat, np.int64)[:, None] + declarer_rel(x)) % 4
    tricks = dd[np.arange(len(x))[:, None], decl, np.arange(5)[None, :]].astype(np.int64)
    classes: npt.NDArray[np.int8] = np.clip(tricks - 11, 0, 2).astype(np.int8)
    return classes


def slam_probs(logits: FloatArray) -> tuple[FloatArray, FloatArray]:
    """(P(12+ tricks), P(13 tricks)) per strain, [B, 5] each, from the estimator's logits."""
    z = logits.reshape(-1, 5, N_CLASSES).astype(np.float64)
    z -= z.max(axis=2, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=2, keepdims=True)
    return (p[:, :, 1] + p[:, :, 2]).astype(np.float32), p[:, :, 2].astype(np.float32)


def _bid(level: int | IntArray, strain: int | IntArray) -> IntArray:
    return call_index(np.asarray(level, np.int64), np.asarray(strain, np.int64))


def after_call(
    x: FloatArray, calls: IntArray
) -> tuple[npt.NDArray[np.bool_], IntArray, IntArray, npt.NDArray[np.bool_]]:
    """(is a bid, level, strain, ours) of the contract each row's call leaves standing."""
    std = standing_contract(x)
    is_bid = calls >= FIRST_BID
    level = np.where(is_bid, (calls - FIRST_BID) // 5 + 1, std.level)
    strain = np.where(is_bid, (calls - FIRST_BID) % 5, std.strain)
    ours = is_bid | ((calls == 0) & std.has & (std.declarer_rel % 2 == 0))
    return is_bid, level, strain, ours


def in_reach(x: FloatArray, calls: IntArray, t: Thresholds) -> npt.NDArray[np.bool_]:
    """The rows :func:`slam_calls` may change: the call leaves our side in a contract at level
    ``t.low`` or higher. The others need no estimate."""
    _, level, _, ours = after_call(x, np.asarray(calls, dtype=np.int64))
    reach: npt.NDArray[np.bool_] = ours & (level >= t.low)
    return reach


def slam_calls(
    x: FloatArray,
    mask: npt.NDArray[np.bool_],
    policy_logits: FloatArray,
    calls: IntArray,
    slam_logits: FloatArray,
    t: Thresholds,
) -> IntArray:
    """The layer on a batch: ``calls`` (the policy's, ALL_CALLS indices) with the slam decisions
    of the module docstring made; observations ``x``, legal ``mask`` and both models' logits are
    row for row."""
    out = np.asarray(calls, dtype=np.int64).copy()
    p12, p13 = slam_probs(slam_logits)
    is_bid, level, strain, ours = after_call(x, out)
    rows = np.arange(len(out))
    best = np.argmax(p12, axis=1)
    best13 = np.argmax(p13, axis=1)
    # A grand: from a game or a small slam of ours.
    grand = ours & (level >= t.low) & (level <= 6) & (p13[rows, best13] >= t.grand)
    small = ours & (level >= t.low) & (level <= 5) & ~grand & (p12[rows, best] >= t.small)
    want = np.where(grand, _bid(7, best13), np.where(small, _bid(6, best), -1))
    ok = (want >= 0) & mask[rows, np.clip(want, 0, mask.shape[1] - 1)]
    # Keep a slam the policy bid itself only where it is likely to make.
    slam_bid = is_bid & (level >= 6) & ~ok
    need = np.where(level == 7, p13[rows, strain], p12[rows, strain])
    veto = slam_bid & (need < t.keep)
    out = np.where(ok, want, out)
    for r in np.flatnonzero(veto):
        # The policy's best legal call below the vetoed slam's level (pass, X, XX included).
        out[r] = best_below(mask[r], policy_logits[r], int(level[r]), int(out[r]))
    return out


def best_allowed(allowed: npt.NDArray[np.bool_], logits: FloatArray, call: int) -> int:
    """The policy's best call among ``allowed`` (one row's ``logits``); ``call`` where none is."""
    return int(np.argmax(np.where(allowed, logits, -np.inf))) if allowed.any() else call


def best_below(mask: npt.NDArray[np.bool_], logits: FloatArray, level: int, call: int) -> int:
    """The policy's best legal call (one row's ``mask`` and ``logits``) below a bid at ``level``,
    pass, double and redouble included; ``call`` where there is none."""
    return best_allowed(mask & (np.arange(mask.shape[0]) < _bid(level, 0)), logits, call)


def estimator_dir(policy_dir: str | Path) -> Path | None:
    """The slam estimator's directory beside a policy (``policy_dir/slam``), if it has one."""
    p = Path(policy_dir)
    d = (p.parent if p.is_file() else p) / SLAM_DIR
    return d if (d / SLAM_ONNX).is_file() else None


class SlamEstimator:
    """The slam estimator of a model directory, served by onnxruntime: features [B, 480] ->
    logits [B, 15]; with the thresholds its card's ``notes`` record (else :class:`Thresholds`).

    With ``their_doubles=False`` it estimates as if the opponents had passed where they doubled
    (:func:`engine.features.without_their_doubles`): its training auctions are the policy's own,
    whose doubles show values, and an opponent who doubles at every turn would otherwise talk it
    out of every slam."""

    def __init__(self, path: str | Path, threads: int = 1, their_doubles: bool = True) -> None:
        self.their_doubles = their_doubles
        self.model = load_model(path, SLAM_MODEL)
        raw = self.model.card.notes.get("thresholds")
        try:
            self.thresholds = (
                Thresholds(**{k: int(v) if k == "low" else float(v) for k, v in raw.items()})  # type: ignore[arg-type]
                if isinstance(raw, dict)
                else Thresholds()
            )
        except (TypeError, ValueError) as e:
            raise ModelError(f"{self.model.card_path}: notes.thresholds: {e}") from e
        self.session = cpu_session(self.model.onnx_path, threads)

    def logits(self, x: FloatArray) -> FloatArray:
        rows = x.astype(np.float32) if self.their_doubles else without_their_doubles(x)
        out = self.session.run(None, {self.model.card.input.name: rows})[0]
        return np.asarray(out, dtype=np.float32)


class SlamLayer(Amending):
    """The slam layer, a layer of the pipeline (:class:`engine.pipeline.Layer`): the rule
    (:func:`slam_calls`, with the estimator's thresholds) over an estimator's serving, the
    estimator run only on the rows the rule may change (:func:`in_reach`). It never forces a
    call."""

    name = "slam"

    def __init__(self, estimator: SlamEstimator) -> None:
        self.estimator = estimator

    def apply(self, step: Step) -> IntArray:
        x, mask, out = step.x, step.mask, np.asarray(step.calls, dtype=np.int64).copy()
        t = self.estimator.thresholds
        rows = in_reach(x, out, t)
        if rows.any():
            out[rows] = slam_calls(
                x[rows], mask[rows], step.logits[rows], out[rows], self.estimator.logits(x[rows]),
                t,
            )  # fmt: skip
        return out
