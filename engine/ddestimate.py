"""A learned double-dummy estimator: tricks per (declarer, strain) from the four hands, via ONNX.

Why: the search in ``engine.search`` scores every rollout's final contract double-dummy, and the
solver costs 0.15-0.3 s per full table on this machine (Qiu et al. 2024, docs/papers.md, name it
as the reason their search takes 1-2 minutes a decision). A small network answers a table in tens
of microseconds, exact on most deals and within one trick on nearly all (see
``benchmarks/bench_ddnet.py``), which is what a search averaging over many particles needs.

One row per (deal, declarer, strain), so all 20 cells of a table share one set of weights and the
network sees the game from the declarer's chair:

- the hands are rotated so that block 0 is the declarer, 1 the left-hand opponent (the opening
  leader), 2 dummy, 3 the right-hand opponent;
- the suits are reordered so that the trump suit comes first (notrump keeps S, H, D, C), the other
  suits following in their usual order; training also shuffles those other suits, an exact
  symmetry of the game, so the net learns that their order carries no meaning;
- features: 4 blocks x 52 cards (1 where that hand holds the card, card index = suit*13 + rank,
  ranks A..2), then one flag for notrump: 209 floats.

The output is 14 logits (0..13 tricks). :func:`encode_rows` is the one encoder: the trainer in
``models/ddnet.py`` imports it, so what is trained is what is served.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
from bridgebot.engine.modelcard import Expected, cpu_session, load_model

FEATURE_VERSION = "ddnet-rows209-v1"
N_FEATURES = 209
N_TRICKS = 14
#: What the estimator needs of a model directory (``engine.modelcard`` checks it).
DDNET_MODEL = Expected(
    onnx="ddnet.onnx",
    feature_versions={FEATURE_VERSION},
    inputs=N_FEATURES,
    outputs=N_TRICKS,
    remedy="retrain with 'bridgebot train ddnet'",
)

#: For DD strain index s (0 C, 1 D, 2 H, 3 S, 4 NT): the card-suit order (card suits are S, H, D, C
#: = 0..3 in the ``owners`` layout) that puts the trump suit first.
CANONICAL_SUIT_ORDER: npt.NDArray[np.int64] = np.array(
    [[3, 0, 1, 2], [2, 0, 1, 3], [1, 0, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]], dtype=np.int64
)


def encode_rows(
    owners: npt.NDArray[np.integer],
    declarer: npt.NDArray[np.integer],
    strain: npt.NDArray[np.integer],
    suit_order: npt.NDArray[np.integer] | None = None,
) -> npt.NDArray[np.float32]:
    """Features for rows (deal, declarer, strain): float32 [B, 209].

    ``owners`` uint8 [B, 52] (seat 0..3 = N, E, S, W holding each card), ``declarer`` [B] seat,
    ``strain`` [B] DD strain index. ``suit_order`` [B, 4] overrides the card-suit order (training
    uses it to shuffle the non-trump suits); by default :data:`CANONICAL_SUIT_ORDER`.
    """
    owners = np.asarray(owners)
    b = owners.shape[0]
    declarer = np.asarray(declarer, dtype=np.int64).reshape(b)
    strain = np.asarray(strain, dtype=np.int64).reshape(b)
    order = CANONICAL_SUIT_ORDER[strain] if suit_order is None else np.asarray(suit_order)
    cols = (order[:, :, None] * 13 + np.arange(13)[None, None, :]).reshape(b, 52)
    rel = (np.take_along_axis(owners.astype(np.int64), cols, axis=1) - declarer[:, None]) % 4
    out = np.zeros((b, N_FEATURES), dtype=np.float32)
    onehot = rel[:, None, :] == np.arange(4)[None, :, None]  # [B, 4, 52]
    out[:, :208] = onehot.reshape(b, 208)
    out[:, 208] = strain == 4
    return out


def full_table_rows(
    owners: npt.NDArray[np.integer],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Row indices (deal, declarer, strain) covering every cell of every table, deal-major."""
    n = np.asarray(owners).shape[0]
    deal = np.repeat(np.arange(n), 20)
    declarer = np.tile(np.repeat(np.arange(4), 5), n)
    strain = np.tile(np.arange(5), 4 * n)
    return deal, declarer, strain


class DDEstimator:
    """Serves a ddnet ONNX model; refuses a card (``model.json``) of an unknown feature version."""

    def __init__(self, path: str | Path, threads: int = 1) -> None:
        self.model = load_model(path, DDNET_MODEL)
        self._session = cpu_session(self.model.onnx_path, threads)
        self._input = self._session.get_inputs()[0].name

    def logits_rows(self, features: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Raw logits [B, 14] for already encoded rows."""
        if features.shape[0] == 0:
            return np.zeros((0, N_TRICKS), dtype=np.float32)
        out = self._session.run(None, {self._input: np.ascontiguousarray(features)})[0]
        return np.asarray(out, dtype=np.float32)

    def logits(
        self,
        owners: npt.NDArray[np.integer],
        declarer: npt.NDArray[np.integer],
        strain: npt.NDArray[np.integer],
    ) -> npt.NDArray[np.float32]:
        """Logits [B, 14] for rows (deal ``owners`` [B, 52], declarer seat, DD strain index)."""
        return self.logits_rows(encode_rows(owners, declarer, strain))

    def trick_probs(
        self,
        owners: npt.NDArray[np.integer],
        declarer: npt.NDArray[np.integer],
        strain: npt.NDArray[np.integer],
    ) -> npt.NDArray[np.float32]:
        """Probability of each trick count 0..13 for each row: float32 [B, 14]."""
        logits = self.logits(owners, declarer, strain)
        z = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs: npt.NDArray[np.float32] = (z / z.sum(axis=1, keepdims=True)).astype(np.float32)
        return probs

    def tricks(
        self,
        owners: npt.NDArray[np.integer],
        declarer: npt.NDArray[np.integer],
        strain: npt.NDArray[np.integer],
    ) -> npt.NDArray[np.uint8]:
        """Most likely double-dummy trick count for each row: uint8 [B]."""
        logits = self.logits(owners, declarer, strain)
        return np.asarray(logits.argmax(axis=1), dtype=np.uint8)

    def tables(self, owners: npt.NDArray[np.integer]) -> npt.NDArray[np.uint8]:
        """Full estimated tables, uint8 [N, 4, 5] in the layout of docs/data.md."""
        owners = np.asarray(owners)
        deal, declarer, strain = full_table_rows(owners)
        return self.tricks(owners[deal], declarer, strain).reshape(-1, 4, 5)
