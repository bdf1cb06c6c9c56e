"""The league's deals: the files, the held-out evaluation deals, the slam-rich and strong deals
of the curriculum, and each iteration's draw (also the deals :mod:`models.slamnet` trains on)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from bridgebot.models.config import LeagueConfig
from bridgebot.models.data import IntArray, load_dd, load_dd_files
from bridgebot.models.league.mix import LeagueError
from bridgebot.models.slam import strong_deals


@dataclass
class LeagueData:
    """The league's deals: every file's (``cfg.dd``, then ``cfg.slam_dd``) owners and tables, and
    the indices of the training, evaluation, slam-file and strong deals."""

    owners: npt.NDArray[np.uint8]
    dd: npt.NDArray[np.uint8]
    train: IntArray
    val: IntArray
    slam: IntArray
    strong: IntArray

    @classmethod
    def load(cls, cfg: LeagueConfig) -> LeagueData:
        owners, dd, train_idx, val_idx = league_data(cfg.dd, cfg.eval_deals)
        owners, dd, slam_idx, strong_idx = curriculum(owners, dd, train_idx, cfg)
        return cls(owners, dd, train_idx, val_idx, slam_idx, strong_idx)


def league_data(
    paths: Sequence[str], eval_deals: int
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], IntArray, IntArray]:
    """All files concatenated; the last file's last 2,000 deals held out, ``eval_deals`` before
    them kept for evaluation; (owners, dd, training indices, evaluation indices)."""
    data, train, _held = load_dd_files(paths)
    n_train = len(train)
    return (
        data.owners,
        data.dd,
        np.arange(n_train - eval_deals),
        np.arange(n_train - eval_deals, n_train),
    )


def curriculum(
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    train_idx: IntArray,
    cfg: LeagueConfig,
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], IntArray, IntArray]:
    """The deals with ``cfg.slam_dd`` appended; (owners, dd, slam indices, strong indices).

    The slam files' deals come after every other deal, so indices into the league's data keep
    their meaning (evaluation deals included); the strong deals are the training deals where one
    side holds 26+ HCP (:func:`models.slam.strong_deals`).
    """
    strong = train_idx[strong_deals(owners[train_idx])]
    if cfg.strong_frac > 0 and not len(strong):
        raise LeagueError("--strong-frac: no training deal has a side with 26+ HCP")
    if not cfg.slam_dd:
        if cfg.slam_frac > 0:
            raise LeagueError("--slam-frac needs --slam-deals (a slam-rich deal file)")
        return owners, dd, np.zeros(0, np.int64), strong
    sets = [load_dd(p) for p in cfg.slam_dd]
    extra_o = np.concatenate([s.owners for s in sets])
    extra_d = np.concatenate([s.dd for s in sets])
    slam = np.arange(len(owners), len(owners) + len(extra_o))
    return np.concatenate([owners, extra_o]), np.concatenate([dd, extra_d]), slam, strong


def learner_deals(
    rng: np.random.Generator,
    cfg: LeagueConfig,
    train_idx: IntArray,
    slam_idx: IntArray,
    strong_idx: IntArray,
) -> IntArray:
    """One iteration's deals: ``slam_frac`` from the slam files, ``strong_frac`` from the strong
    training deals, the rest from all training deals (each drawn with replacement)."""
    n = cfg.deals_per_iter
    n_slam = round(n * cfg.slam_frac) if len(slam_idx) else 0
    n_strong = min(round(n * cfg.strong_frac), n - n_slam)
    parts = [
        rng.choice(train_idx, size=n - n_slam - n_strong, replace=True),
        rng.choice(slam_idx, size=n_slam, replace=True) if n_slam else slam_idx[:0],
        rng.choice(strong_idx, size=n_strong, replace=True) if n_strong else strong_idx[:0],
    ]
    return np.concatenate(parts).astype(np.int64)
