"""Tiny policies for tests: ONNX model directories in the shipped format whose calls a test can
predict, so that a test of the parts around a policy (the explainer, alerts, search, the seat
client) does not depend on what the shipped policy happens to bid."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from bridgebot.engine.features import (
    DATA_TO_OPENSPIEL,
    FEATURE_VERSION,
    HAND,
    N_CALLS,
    N_FEATURES,
)
from bridgebot.engine.modelcard import Export, ModelCard, Tensor, Training
from bridgebot.laws.calls import FIRST_BID
from onnx import TensorProto, helper, numpy_helper

from bridgebot.agents import AgentSpec


def write_gemm(
    directory: Path,
    onnx_name: str,
    input_name: str,
    weight: np.ndarray,
    bias: np.ndarray,
    training: Training,
    output_version: str | None = None,
) -> Path:
    """A model directory of one Gemm layer, ``input_name`` [batch, in] -> ``logits`` [batch, out]
    for ``weight`` [out, in], saved as ``onnx_name`` with its model card: the format every served
    net of ``engine`` reads."""
    n_out, n_in = weight.shape
    directory.mkdir(parents=True, exist_ok=True)
    graph = helper.make_graph(
        [helper.make_node("Gemm", [input_name, "w", "b"], ["logits"], transB=1)],
        Path(onnx_name).stem,
        [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, ["batch", n_in])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", n_out])],
        [
            numpy_helper.from_array(weight.astype(np.float32), "w"),
            numpy_helper.from_array(bias.astype(np.float32), "b"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, directory / onnx_name)
    ModelCard(
        onnx=onnx_name,
        feature_version=FEATURE_VERSION,
        output_version=output_version,
        input=Tensor(name=input_name, shape=("batch", n_in)),
        output=Tensor(name="logits", shape=("batch", n_out)),
        training=training,
        export=Export(),
    ).write(directory)
    return directory


def write_linear_policy(
    directory: Path, weight: np.ndarray, bias: np.ndarray, name: str = "policy"
) -> Path:
    """A model directory (policy.onnx + model.json, engine.policy's format) of one Gemm layer."""
    assert weight.shape == (N_CALLS, N_FEATURES)
    return write_gemm(
        directory, "policy.onnx", "features", weight, bias,
        Training(kind="test", command=f"tests: one Gemm layer ({name})"),
    )  # fmt: skip


def raise_policy(directory: Path) -> Path:
    """Passes, except that it bids 2S over 1S holding three or more hearts (any strength, any
    spades): a raise most of whose hands hold fewer than four spades and that shows hearts, which
    the explainer calls artificial."""
    two_s = FIRST_BID + 5 + 3
    w = np.zeros((N_CALLS, N_FEATURES))
    b = np.full(N_CALLS, -40.0)
    b[0] = 0.0
    b[two_s] = -25.0  # 2S wins with 3+ hearts (3 x 10 - 25 > 0), loses with fewer
    for card in range(13, 26):  # the hearts, in the data-file order (S, H, D, C)
        w[two_s, HAND + DATA_TO_OPENSPIEL[card]] = 10.0
    return write_linear_policy(directory, w, b, "raise")


#: The shipped ``default`` before issue 43 (run 10's policy, with the slam estimator and the
#: control estimator in its ``slam/``): the tests of the layers around a policy (the slam layer,
#: control asking, their alerts and explanations) bid with it. Since issue 43 the shipped
#: ``default`` is a policy alone, whose slam bidding is its own (the layers, fitted to this
#: policy's auctions, cost it 0.3 IMPs/board against the field: docs/evaluation.md, run 19).
LAYERED = Path(__file__).resolve().parent / "layered_default"


def layered(spec: str) -> str:
    """``spec`` (``default``, ``search``, with options) bidding with :data:`LAYERED`:
    ``default,controls=on`` -> ``default:LAYERED,controls=on``."""
    return str(AgentSpec.parse(spec).with_path(LAYERED))
