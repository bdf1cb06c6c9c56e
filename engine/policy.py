"""The learned bidding policy at run time: an ONNX model served by onnxruntime, no torch.

A model directory holds ``policy.onnx`` and its card ``model.json`` (written by
``bridgebot export``), read by :func:`engine.modelcard.load_model`, which refuses a model whose
feature version this build does not know (:data:`POLICY_MODEL` says what the policy needs).

:class:`Policy` runs batches of observations; :class:`PolicyAgent` is the ``Agent`` for one seat
(agents ``policy:PATH`` and ``default``), bidding greedily or by sampling over the legal calls, and
is a :class:`engine.agent.BatchBidder`, so that evaluation loops (``tournament.ddmatch``) run one
ONNX call for many boards. The layers around the policy and the card player are given to the
constructor by the composition root (``bridgebot.learned``, ``bridgebot.card_players``): bidding
imports nothing of card play.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import BiddingView, CardPlayer
from bridgebot.engine.features import (
    DATA_TO_OPENSPIEL,
    FEATURE_VERSION,
    HAND,
    N_CALLS,
    N_FEATURES,
    check_tiles,
    tile_hands,
)
from bridgebot.engine.layered_agent import BatchLayeredAgent
from bridgebot.engine.modelcard import (
    Expected,
    cpu_session,
    cpu_session_bytes,
    load_model,
    read_model_file,
)
from bridgebot.engine.onnx_stack import gemm_relu_stack
from bridgebot.engine.pipeline import Layer, LayeredBidder, Proposal
from bridgebot.engine.tendencies import DoubleRate, Reading, TheirDoubles, policy_input

#: Feature layouts this build can compute. A model trained on any other is refused.
KNOWN_FEATURE_VERSIONS: frozenset[str] = frozenset({FEATURE_VERSION})


#: What the policy reader needs of a model directory (``engine.modelcard`` checks it).
POLICY_MODEL = Expected(
    onnx="policy.onnx",
    feature_versions=KNOWN_FEATURE_VERSIONS,
    inputs=N_FEATURES,
    outputs=N_CALLS,
    remedy="re-export the model with 'bridgebot export' or upgrade",
)


def hand_split_graph(onnx_path: Path) -> bytes | None:
    """The policy graph of ``onnx_path`` rewritten for many hands at a few positions, as ONNX
    bytes, or None for a graph that is not the plain Gemm/Relu stack every shipped network is
    (:func:`engine.onnx_stack.gemm_relu_stack`).

    The first Gemm (the network's first linear map) is split into its 52 hand columns and the
    rest: inputs ``base`` [M, 480] (the positions' observations with the hand block zero) and
    ``hands`` [T, M, 52] (0/1 in the data-file order), output ``logits`` [T * M, 38], row ``t * M + j`` the policy's logits for
    hand ``t, j`` at position ``j``. The auction part of the first Gemm is then computed M
    times instead of T * M: at the particle filter's 2,048 particles, 42% of the multiply-adds
    of a 3x256 policy. The same function as the policy's own graph; floats may differ in the
    last bits (the first Gemm's sum is taken in two parts)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load_model_from_string(read_model_file(onnx_path).data)
    g = model.graph
    inits = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    nodes = list(g.node)
    gemms = nodes[0::2]
    plain = (
        len(nodes) % 2 == 1
        and all(n.op_type == "Gemm" for n in gemms)
        and all(n.op_type == "Relu" for n in nodes[1::2])
        and all(
            {a.name: helper.get_attribute_value(a) for a in n.attribute} == {"transB": 1}
            for n in gemms
        )
        and len(g.input) == 1
        and nodes[0].input[0] == g.input[0].name
        and all(name in inits for n in gemms for name in n.input[1:])
    )
    if not plain or inits[nodes[0].input[1]].shape[1] != N_FEATURES:
        return None
    w0, b0 = inits[nodes[0].input[1]], inits[nodes[0].input[2]]
    w_hand = np.ascontiguousarray(w0[:, HAND + DATA_TO_OPENSPIEL].T)  # [52, H]
    width = w0.shape[0]
    new_inits = [
        numpy_helper.from_array(w0, "w0"),
        numpy_helper.from_array(b0, "b0"),
        numpy_helper.from_array(w_hand.astype(np.float32), "w0_hand"),
        numpy_helper.from_array(np.array([-1, width], np.int64), "flat"),
    ]
    new_nodes = [
        helper.make_node("Gemm", ["base", "w0", "b0"], ["pre"], transB=1),
        helper.make_node("MatMul", ["hands", "w0_hand"], ["hh"]),
        helper.make_node("Add", ["hh", "pre"], ["h0_3d"]),
    ]
    if len(gemms) == 1:  # one Gemm: its sum is the logits
        new_nodes.append(helper.make_node("Reshape", ["h0_3d", "flat"], ["logits"]))
    else:  # the ReLU, then the other Gemms as the policy's own graph has them
        tail_nodes, tail_inits = gemm_relu_stack(
            [(inits[n.input[1]], inits[n.input[2]]) for n in gemms[1:]], "r0", "logits", first=1
        )
        new_nodes += [
            helper.make_node("Relu", ["h0_3d"], ["r0_3d"]),
            helper.make_node("Reshape", ["r0_3d", "flat"], ["r0"]),
            *tail_nodes,
        ]
        new_inits += tail_inits
    graph = helper.make_graph(
        new_nodes,
        "policy_hand_split",
        [
            helper.make_tensor_value_info("base", TensorProto.FLOAT, ["m", N_FEATURES]),
            helper.make_tensor_value_info("hands", TensorProto.FLOAT, ["t", "m", 52]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["rows", N_CALLS])],
        new_inits,
    )
    split = helper.make_model(graph, opset_imports=list(model.opset_import))
    split.ir_version = model.ir_version
    onnx.checker.check_model(split)
    return bytes(split.SerializeToString())


class Policy:
    """Batch inference: features [B, 480] -> logits [B, 38], on CPU with ``threads`` threads;
    :meth:`tiled_logits` for many hands at a few positions (the particle filter's case)."""

    def __init__(self, path: str | Path, threads: int = 1) -> None:
        self.model = load_model(path, POLICY_MODEL)
        self.session = cpu_session(self.model.onnx_path, threads)
        self._threads = threads
        self._split: Any = None  # the hand-split session, made on first use (False: none)

    def tiled_logits(
        self, base: npt.NDArray[np.float32], hands: npt.NDArray[np.integer]
    ) -> npt.NDArray[np.float32]:
        """Logits [T * M, 38] for ``hands`` [T, M, 52] (0/1, data-file order) at the ``M``
        positions whose observations ``base`` [M, 480] has (their hand blocks are ignored): row
        ``t * M + j`` is :meth:`logits` of position ``j`` holding hand ``t, j``. Through
        :func:`hand_split_graph` where the graph allows it, else the plain graph on the full
        observations. Raises ``ValueError`` for mismatched shapes."""
        if self._split is None:
            graph = hand_split_graph(self.model.onnx_path)
            self._split = False if graph is None else cpu_session_bytes(graph, self._threads)
        b, h = check_tiles(base, hands, "tiled_logits")
        if self._split is False:
            return self.logits(tile_hands(b, h))
        zeroed = b.copy()
        zeroed[:, HAND : HAND + 52] = 0.0
        h = np.ascontiguousarray(h, dtype=np.float32)
        (out,) = self._split.run(["logits"], {"base": zeroed, "hands": h})
        return np.asarray(out, dtype=np.float32)

    def logits(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        feats = np.ascontiguousarray(x, dtype=np.float32).reshape(-1, N_FEATURES)
        card = self.model.card
        (out,) = self.session.run([card.output.name], {card.input.name: feats})
        return np.asarray(out, dtype=np.float32)

    def probabilities(
        self,
        x: npt.NDArray[np.float32],
        mask: npt.NDArray[np.bool_],
        temperature: float = 1.0,
        logits: npt.NDArray[np.float32] | None = None,
    ) -> npt.NDArray[np.float64]:
        """Softmax over the legal calls only (illegal calls get probability 0); ``logits``, when
        the caller has them already, saves running the network again."""
        z = (self.logits(x) if logits is None else logits).astype(np.float64)
        z /= max(temperature, 1e-6)
        z = np.where(mask, z, -np.inf)
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        probs: npt.NDArray[np.float64] = e / e.sum(axis=1, keepdims=True)
        return probs

    def choose(
        self,
        x: npt.NDArray[np.float32],
        mask: npt.NDArray[np.bool_],
        greedy: bool = True,
        rng: np.random.Generator | None = None,
        temperature: float = 1.0,
        logits: npt.NDArray[np.float32] | None = None,
    ) -> npt.NDArray[np.int64]:
        """Index into ``ALL_CALLS`` per row: the best legal call, or a sample from the policy
        (``logits``: as in :meth:`probabilities`)."""
        m = np.asarray(mask, dtype=np.bool_).reshape(-1, N_CALLS)
        if not m.any(axis=1).all():
            raise ValueError("choose: a row has no legal call (is its auction over?)")
        if logits is None:
            logits = self.logits(x)
        if greedy:
            z = np.where(m, logits, -np.inf)
            return np.asarray(z.argmax(axis=1), dtype=np.int64)
        p = self.probabilities(x, m, temperature, logits)
        g = rng or np.random.default_rng()
        u = g.random((p.shape[0], 1))
        picks = (p.cumsum(axis=1) < u).sum(axis=1)
        # Rounding can leave u above the last cumulative sum: fall back to the likeliest call.
        picks = np.where(m[np.arange(len(picks)), np.minimum(picks, N_CALLS - 1)], picks, -1)
        return np.where(picks >= 0, picks, p.argmax(axis=1)).astype(np.int64)


class PolicyBase:
    """The policy as the base of the pipeline (:class:`engine.pipeline.Base`): greedy, or
    sampling with ``temperature`` from a generator seeded per board (``reset``), so a board
    replays the same. ``policy_doubles`` is what it makes of the opponents' doubles (the spec key
    of that name, :mod:`engine.tendencies`); with ``auto``, :meth:`see` counts the opponents'
    calls and doubles in :attr:`double_rate`, across boards: the one piece of state bidding
    keeps. The layers read the logits the policy read (the opponents' doubles stripped where it
    ignores them)."""

    name = "policy"

    def __init__(
        self,
        policy: Policy,
        seed: int = 0,
        greedy: bool = True,
        temperature: float = 1.0,
        policy_doubles: Reading = "read",
        double_rate: DoubleRate | None = None,
    ) -> None:
        self.policy = policy
        self.seed = seed
        self.greedy = greedy
        self.temperature = temperature
        self.doubles = TheirDoubles(policy_doubles, double_rate)
        self._rng = np.random.default_rng([seed, 0])

    def see(self, views: Sequence[BiddingView]) -> None:
        self.doubles.see(v.auction for v in views)

    def propose(
        self,
        views: Sequence[BiddingView],
        x: npt.NDArray[np.float32],
        mask: npt.NDArray[np.bool_],
        rows: npt.NDArray[np.int64],
    ) -> Proposal:
        logits = self.policy.logits(policy_input(x, self.doubles.ignored))
        picks = self.policy.choose(x, mask, self.greedy, self._rng, self.temperature, logits)
        return Proposal(picks, logits)

    def reset(self, board: int) -> None:
        self._rng = np.random.default_rng([self.seed, board])


class PolicyAgent(BatchLayeredAgent):
    """Bids with a :class:`Policy` (:class:`PolicyBase`) and ``layers`` around it, in the one
    pipeline (:class:`engine.pipeline.LayeredBidder`); plays with ``card_player``.

    Greedy by default (deterministic, the setting of every reported figure); ``greedy=False``
    samples with ``temperature``. ``layers`` are the pipeline's, in its order (the composition
    root builds them from the agent's options: the slam layer of :mod:`engine.slams`, control
    asking of :mod:`engine.control_layer`, the penalty doubles of :mod:`engine.doubles`).
    ``policy_doubles`` and ``double_rate``: see :class:`PolicyBase`. A batch counts all its views
    before it decides any, so every view of a batch is read the same way and one ONNX run still
    serves it.
    """

    def __init__(
        self,
        policy: Policy,
        card_player: CardPlayer,
        layers: Sequence[Layer] = (),
        seed: int = 0,
        greedy: bool = True,
        temperature: float = 1.0,
        name: str = "policy",
        policy_doubles: Reading = "read",
        double_rate: DoubleRate | None = None,
    ) -> None:
        self.base = PolicyBase(policy, seed, greedy, temperature, policy_doubles, double_rate)
        super().__init__(LayeredBidder(self.base, layers), card_player, name)

    @property
    def policy(self) -> Policy:
        return self.base.policy

    @property
    def ignores_their_doubles(self) -> bool:
        """Whether the policy now reads the opponents' doubles as passes
        (:attr:`engine.tendencies.TheirDoubles.ignored`)."""
        return self.base.doubles.ignored
