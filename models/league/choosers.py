"""The league's players as choosers (:data:`models.data.Chooser`): the learner, a frozen network
with the layers of the agent it plays and the penalty doubles or the double-dummy oracle, and bfg
(which :mod:`models.slamnet` reuses for its auctions)."""

from __future__ import annotations

import copy

import numpy as np
import numpy.typing as npt
import torch
from bridgebot.engine.doubles import DoublesModel, PenaltyDoublesLayer, apply_doubles
from bridgebot.engine.features import HAND, auction_from_observation, standing_contract
from bridgebot.engine.tendencies import policy_input
from bridgebot.laws.cards import RANKS, SUITS
from bridgebot.models.convention import Layers, layered, net_logits
from bridgebot.models.data import Chooser, IntArray
from bridgebot.models.doubles_fit import OPENSPIEL_TO_DATA, observer_seats
from bridgebot.models.net import PolicyNet, load_checkpoint
from bridgebot.models.selfplay import Recorder, net_chooser


def load_policy(path: str) -> PolicyNet:
    """A network from a training checkpoint (``.pt``) or an exported model directory (ONNX)."""
    if path.endswith(".pt"):
        net, _ = load_checkpoint(path)
        return net
    from bridgebot.models.onnx_mlp import policy_from_onnx

    return policy_from_onnx(path)


def frozen(net: PolicyNet) -> PolicyNet:
    """A detached, evaluation-mode copy (an opponent's weights never change under it)."""
    c = copy.deepcopy(net).eval()
    for p in c.parameters():
        p.requires_grad_(False)
    return c


def learner_chooser(
    net: PolicyNet, device: torch.device, gen: torch.Generator, rec: Recorder, floor: float
) -> Chooser:
    """The learner: samples its calls, with a probability floor on the legal double/redouble."""
    return net_chooser(net, device, False, gen, rec, floor)


def bfg_chooser(doubles: DoublesModel | None = None) -> Chooser:
    """bfg as a chooser (one Python call per row), with the penalty-double layer of the model
    ``doubles`` where one is given."""
    from bridgebot.engine.bfg import BfgBidder

    bidder = BfgBidder()
    names = [RANKS[i % 13] + SUITS[i // 13] for i in OPENSPIEL_TO_DATA]

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        calls = np.zeros(len(rows), dtype=np.int64)
        for i in range(len(rows)):
            cards = [names[j] for j in np.flatnonzero(x[i, HAND:] > 0)]
            calls[i] = bidder.call(cards, auction_from_observation(x[i]))
        return apply_doubles(calls, x, mask, doubles) if doubles is not None else calls

    return choose


def oracle_doubles(
    calls: IntArray,
    rows: IntArray,
    x: npt.NDArray[np.float32],
    mask: npt.NDArray[np.bool_],
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
) -> IntArray:
    """Passes turned into doubles wherever the standing contract goes down double-dummy."""
    c = np.asarray(calls, dtype=np.int64).copy()
    idx = np.nonzero((c == 0) & mask[:, 1])[0]
    if idx.size:
        con = standing_contract(x[idx])
        seat = observer_seats(owners[rows[idx]], x[idx])
        declarer = (seat + con.declarer_rel) % 4
        tricks = dd[rows[idx], declarer, con.strain].astype(np.int64)
        c[idx[tricks < con.level + 6]] = 1
    return c


def opponent_chooser(
    net: PolicyNet,
    device: torch.device,
    doubles: str = "none",
    owners2: npt.NDArray[np.uint8] | None = None,
    dd2: npt.NDArray[np.uint8] | None = None,
    ignore_their_doubles: bool = False,
    layers: Layers | None = None,
    layer_model: DoublesModel | None = None,
) -> Chooser:
    """A greedy frozen network, optionally with the penalty doubles (``doubles="layer"``, the
    model ``layer_model``: the last layer of its pipeline, as ``doubles=on`` plays them) or the
    DD oracle (``doubles="oracle"``).

    ``owners2``/``dd2`` are the deals of the batch as ``run_auctions`` rows see them (both tables),
    needed by the oracle only. With ``ignore_their_doubles`` the network reads the auction as if
    its opponents had passed where they doubled, our contract doubled excepted
    (:func:`engine.tendencies.policy_input`, the agents' ``policy_doubles``). With ``layers``
    the agent's layers (the slam layer and the asking convention) play on top of the network
    (:mod:`models.convention`), before the doubles.
    """
    if doubles == "layer" and layer_model is None:
        raise ValueError("the penalty-double layer needs its model (layer_model)")
    base = net_chooser(net, device, True)

    def plain(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        return base(rows, policy_input(x, ignore_their_doubles), mask)

    stack = list(layers.layers) if layers is not None else []
    if doubles == "layer":
        assert layer_model is not None  # checked above
        stack.append(PenaltyDoublesLayer(layer_model))
    inner = layered(stack, plain, net_logits(net, device, ignore_their_doubles)) if stack else plain

    def choose(rows: IntArray, x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> IntArray:
        calls = inner(rows, x, mask)
        if doubles == "oracle":
            assert owners2 is not None and dd2 is not None
            return oracle_doubles(calls, rows, x, mask, owners2, dd2)
        return calls

    return choose
