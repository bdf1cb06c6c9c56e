"""One PPO step of the league (:func:`rl_iteration`) for a network being trained
(:class:`Trainee`), and what it records of the learner's doubled contracts."""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from bridgebot.laws.calls import final_contracts_array as final_contracts
from bridgebot.models.config import LeagueConfig
from bridgebot.models.convention import Layers, Listeners, convention_chooser
from bridgebot.models.data import Chooser, IntArray
from bridgebot.models.league.choosers import learner_chooser
from bridgebot.models.net import PolicyNet
from bridgebot.models.selfplay import Recorder, duplicate_imps, ppo_update
from bridgebot.models.slam import slam_counts, slam_shortfall


def doubled_stats(
    auctions: IntArray,
    dealer: IntArray,
    dd: npt.NDArray[np.uint8],
    imps: IntArray,
) -> dict[str, float]:
    """How often the learner's contracts were doubled, how often they failed, their IMP cost.

    Rows 0..B-1 of ``auctions`` have the learner North-South, rows B..2B-1 East-West (as
    :func:`models.selfplay.duplicate_imps` bids them). Costs are IMPs per deal of the batch.
    """
    b = len(imps)
    d2 = np.concatenate([dealer, dealer])
    level, strain, penalty, declarer = final_contracts(auctions, d2)
    tricks = np.concatenate([dd, dd])[np.arange(2 * b), declarer, strain].astype(np.int64)
    learner_side = np.concatenate([np.zeros(b, np.int64), np.ones(b, np.int64)])
    ours = (level > 0) & (declarer % 2 == learner_side)
    theirs = (level > 0) & ~ours
    dbl = penalty > 0
    failed = tricks < level + 6
    ours_fail = (ours & dbl & failed).reshape(2, b).any(axis=0)
    theirs_fail = (theirs & dbl & failed).reshape(2, b).any(axis=0)
    return {
        "ours_declared": float(ours.sum()),
        "ours_doubled": float((ours & dbl).sum()),
        "ours_doubled_failed": float((ours & dbl & failed).sum()),
        "ours_doubled_imps": float(imps[ours_fail].sum()),
        "theirs_doubled": float((theirs & dbl).sum()),
        "theirs_doubled_failed": float((theirs & dbl & failed).sum()),
        "theirs_doubled_imps": float(-imps[theirs_fail].sum()),
        "deals": float(b),
    }


@dataclass
class Trainee:
    """A network being trained, with its optimiser."""

    net: PolicyNet
    opt: torch.optim.Optimizer

    @classmethod
    def start(cls, net: PolicyNet, lr: float, device: torch.device) -> Trainee:
        n = copy.deepcopy(net).to(device).train()
        for p in n.parameters():
            p.requires_grad_(True)
        return cls(n, torch.optim.Adam(n.parameters(), lr=lr))


def rl_iteration(
    trainee: Trainee,
    opponents: Sequence[Chooser],
    weights: npt.NDArray[np.float64],
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    rng: np.random.Generator,
    gen: torch.Generator,
    floor: float,
    cfg: LeagueConfig,
    device: torch.device,
    slam_weight: float = 0.0,
    slam_fail_weight: float = 1.0,
    layers: Layers | None = None,
    listeners: Listeners | None = None,
) -> dict[str, Any]:
    """One PPO iteration of ``trainee`` against the opponents, deal by deal drawn by ``weights``.

    The return of every decision is the deal's duplicate IMPs; with ``slam_weight`` > 0 each
    table's decisions also carry that weight times the table's slam term
    (:func:`models.slam.slam_shortfall`: what the learner's side gave up against a slam its cards
    make). With ``layers`` the learner's pair plays them on top of the network
    (:mod:`models.convention`); only the network's own calls are recorded. With ``listeners``
    (whose layers ``layers`` are) the layers' estimators then learn from the iteration's auctions.
    """
    b = len(owners)
    dealer = rng.integers(0, 4, size=b)
    vul = rng.integers(0, 4, size=b)
    opp = rng.choice(len(opponents), size=b, p=weights / weights.sum())
    rec = Recorder()
    t0 = time.perf_counter()
    trainee.net.eval()
    if layers is None:
        us = learner_chooser(trainee.net, device, gen, rec, floor)
    else:
        us = convention_chooser(layers, trainee.net, device, gen, rec, floor)
    imps, auctions, ns = duplicate_imps(owners, dd, dealer, vul, us, opponents, opp)
    trainee.net.train()
    t1 = time.perf_counter()
    heard = listeners.learn(owners, dd, dealer, vul, auctions, rng) if listeners else None
    shortfall = slam_shortfall(dd, vul, ns, auctions, dealer, slam_fail_weight)
    per_table = np.concatenate([imps, imps]) + slam_weight * shortfall
    reward = (per_table / 24.0).astype(np.float32)
    stats = ppo_update(trainee.net, trainee.opt, rec, reward, cfg, device, rng)
    by_opp = {int(k): float(imps[opp == k].mean()) for k in np.unique(opp)}
    return {
        "imps": float(imps.mean()),
        "double_share": learner_double_share(auctions, dealer),
        "imps_by_opponent": by_opp,
        "doubled": doubled_stats(auctions, dealer, dd, imps),
        "slams": {**slam_counts(auctions, dealer, dd), "shortfall": float(shortfall.mean())},
        "gen_s": t1 - t0,
        "iter_s": time.perf_counter() - t0,
        **({"estimators": heard} if heard is not None else {}),
        **stats,
    }


#: ALL_CALLS index of the double.
DOUBLE_INDEX = 1


def learner_double_share(auctions: IntArray, dealer: IntArray) -> float:
    """The share of doubles among the learner's calls in :func:`models.selfplay.duplicate_imps`'s
    auctions (rows 0..B-1 table 0, the learner North-South; B..2B-1 table 1, East-West)."""
    b = len(dealer)
    pos = np.arange(auctions.shape[1])[None, :]
    side = (np.concatenate([dealer, dealer])[:, None] + pos) % 2
    mine = (side == (np.arange(2 * b) >= b)[:, None]) & (auctions >= 0)
    return float((auctions[mine] == DOUBLE_INDEX).sum() / max(int(mine.sum()), 1))
