"""The slam estimator's network and its fit (``bridgebot train slamnet``, :mod:`models.slamnet`):
an MLP from the observation to three trick classes per strain, trained by weighted
cross-entropy. torch is imported inside the functions (the train extra).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
from bridgebot.engine.features import N_FEATURES
from bridgebot.engine.slams import N_OUTPUTS

if TYPE_CHECKING:
    from torch import nn


def slam_net(hidden: Sequence[int] = (256, 256), inputs: int = N_FEATURES) -> nn.Sequential:
    """MLP: 480 features (or ``inputs``) -> 5 strains x 3 trick classes (logits), ReLU between
    layers."""
    from bridgebot.models.ddnet import build_net

    net: nn.Sequential = build_net(tuple(hidden), inputs, N_OUTPUTS)
    return net


def fit(
    x: npt.NDArray[np.uint8],
    y: npt.NDArray[np.int8],
    hidden: Sequence[int],
    epochs: int,
    lr: float,
    seed: int,
    minibatch: int = 1024,
    progress: Any = None,
    weights: npt.NDArray[np.floating[Any]] | None = None,
) -> nn.Sequential:
    """Cross-entropy over the five strains' classes, Adam, ``epochs`` passes; each example
    weighted by ``weights`` (default: all equal)."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = slam_net(hidden, x.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * (len(x) // minibatch)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, max(steps, 1))
    net.train()
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        total, t0 = 0.0, time.perf_counter()
        for i in range(len(x) // minibatch):
            idx = order[i * minibatch : (i + 1) * minibatch]
            xb = torch.from_numpy(x[idx].astype(np.float32))
            yb = torch.from_numpy(y[idx].astype(np.int64))
            logits = net(xb).reshape(-1, 5, 3)
            each = nn.functional.cross_entropy(
                logits.reshape(-1, 3), yb.reshape(-1), reduction="none"
            ).reshape(-1, 5)
            if weights is None:
                loss = each.mean()
            else:
                wb = torch.from_numpy(weights[idx].astype(np.float32))
                loss = (each.mean(dim=1) * wb).sum() / wb.sum()
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            total += float(loss.detach())
        if progress is not None:
            progress(epoch, total / max(len(x) // minibatch, 1), time.perf_counter() - t0)
    net.eval()
    return net


def torch_logits(net: nn.Module) -> Any:
    """features -> logits, numpy in and out (for choosers before export)."""
    import torch

    def run(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        with torch.no_grad():
            out: npt.NDArray[np.float32] = net(torch.from_numpy(x.astype(np.float32))).numpy()
        return out

    return run
