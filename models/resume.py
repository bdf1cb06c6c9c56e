"""A policy trainer's checkpoint, as ``imitation`` and ``selfplay`` keep it: the network, its Adam
optimiser, the wall time spent and the trainer's own counters, in one ``ckpt.pt`` written whole
(:func:`models.net.save_checkpoint`), so a killed run resumes from its last save.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import torch
from bridgebot.models.net import PolicyNet, load_checkpoint, save_checkpoint


def resumed(
    path: Path, device: torch.device, lr: float, fresh: Callable[[], PolicyNet]
) -> tuple[PolicyNet, torch.optim.Adam, dict[str, object]]:
    """The network on ``device`` and its Adam optimiser (learning rate ``lr``) of the run whose
    checkpoint is ``path``, with the checkpoint's other entries (the trainer's counters,
    ``elapsed``, ``meta``); where there is no checkpoint, ``fresh()``, a new optimiser and no
    entries. Raises what :func:`torch.load` raises for a file that is not a checkpoint."""
    if path.exists():
        net, state = load_checkpoint(str(path))
        net.to(device)
        opt = torch.optim.Adam(net.parameters(), lr=lr)
        opt.load_state_dict(state["opt"])  # type: ignore[arg-type]
        return net, opt, state
    net = fresh().to(device)
    return net, torch.optim.Adam(net.parameters(), lr=lr), {}


def save_run(
    path: Path,
    net: PolicyNet,
    opt: torch.optim.Optimizer,
    start: float,
    meta: dict[str, object],
    **counters: object,
) -> None:
    """Write the checkpoint :func:`resumed` reads: the network, the optimiser's state, the
    trainer's ``counters``, the seconds since ``start`` (a ``time.perf_counter`` reading, moved
    back by the time earlier runs spent) as ``elapsed``, and ``meta``."""
    extra = {
        "opt": opt.state_dict(),
        **counters,
        "elapsed": time.perf_counter() - start,
        "meta": meta,
    }
    save_checkpoint(str(path), net, extra)
