"""The league's reads of a network: greedy against greedy on fixed deals, in IMPs, with the
doubled contracts and slams counted."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import torch
from bridgebot.engine.doubles import DoublesModel
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.models.convention import Layers
from bridgebot.models.data import IntArray
from bridgebot.models.league.choosers import opponent_chooser
from bridgebot.models.league.rl import doubled_stats
from bridgebot.models.net import PolicyNet
from bridgebot.models.selfplay import duplicate_imps, imp_summary
from bridgebot.models.slam import slam_counts


def evaluate_pair(
    a: PolicyNet,
    b: PolicyNet,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    idx: IntArray,
    device: torch.device,
    b_doubles: str = "none",
    a_layers: Layers | None = None,
    b_layers: Layers | None = None,
    layer_model: DoublesModel | None = None,
) -> dict[str, float]:
    """Greedy ``a`` against greedy ``b`` (optionally with the penalty-double layer of
    ``layer_model``) on fixed deals; each with the slam layer and asking convention where its
    ``layers`` are set."""
    dealer, vul = dealer_vul_arrays(idx + 1)
    imps, auctions, _ = duplicate_imps(
        owners[idx], dd[idx], dealer, vul,
        opponent_chooser(a, device, layers=a_layers),
        opponent_chooser(b, device, b_doubles, layers=b_layers, layer_model=layer_model),
    )  # fmt: skip
    res = imp_summary(imps)
    res.update(
        {f"doubled_{k}": v for k, v in doubled_stats(auctions, dealer, dd[idx], imps).items()}
    )
    res.update({f"slams_{k}": v for k, v in slam_counts(auctions, dealer, dd[idx]).items()})
    return res
