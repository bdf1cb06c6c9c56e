"""Linear/ReLU stacks to ONNX and back: the graphs (and the policy's card) of every shipped network.

The networks are plain MLPs, so the graph is built from the weights with ``onnx.helper`` (a Gemm
per layer, a Relu between) rather than traced by ``torch.onnx.export``: the graph is then exactly
what we mean, with no exporter deprecations, and each exporter checks onnxruntime against torch
on real inputs before anything is written. Layer ``i`` keeps its weights in the initializers
``w{i}`` and ``b{i}``, which is how :func:`policy_from_onnx` reads a shipped policy back.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from bridgebot.engine.features import FEATURE_VERSION, N_CALLS, N_FEATURES
from bridgebot.engine.modelcard import Export, ModelCard, Tensor, Training
from bridgebot.engine.onnx_stack import gemm_relu_stack
from bridgebot.models.net import NetConfig, PolicyNet

#: The policy graph's tensor names (``engine.policy`` reads them from the model card).
POLICY_INPUT = "features"
POLICY_OUTPUT = "logits"
#: ONNX opset and IR version: readable by every onnxruntime >= 1.17 (pyproject's floor).
OPSET = 17
IR_VERSION = 8


class OnnxGraphError(ValueError):
    """An ONNX file that is not a graph written here (the message names the file)."""


def mlp_graph(
    linears: Sequence[torch.nn.Linear], input_name: str, output_name: str, name: str
) -> Any:
    """``linears`` applied in order with a ReLU between each two, as a checked ``onnx.ModelProto``."""
    import onnx
    from onnx import TensorProto, helper

    nodes, inits = gemm_relu_stack(
        [
            (
                layer.weight.detach().cpu().numpy().astype(np.float32),
                layer.bias.detach().cpu().numpy().astype(np.float32),
            )
            for layer in linears
        ],
        input_name,
        output_name,
    )
    width_in, width_out = linears[0].in_features, linears[-1].out_features
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info(input_name, TensorProto.FLOAT, ["batch", width_in])],
        [helper.make_tensor_value_info(output_name, TensorProto.FLOAT, ["batch", width_out])],
        inits,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="bridgebot"
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def policy_linears(net: PolicyNet) -> list[torch.nn.Linear]:
    """The policy path of ``net``: the trunk's layers and the policy head (not the value head)."""
    return [m for m in net.trunk if isinstance(m, torch.nn.Linear)] + [net.policy]


def policy_graph(net: PolicyNet) -> Any:
    """The policy path of ``net`` (features [batch, 480] -> logits [batch, 38]) as ONNX."""
    return mlp_graph(policy_linears(net), POLICY_INPUT, POLICY_OUTPUT, "bridgebot_policy")


def policy_card(
    net: PolicyNet, training: Training, metrics: dict[str, Any], export: Export
) -> ModelCard:
    """The card of a policy network (also what a temporary serving directory needs)."""
    return ModelCard(
        onnx="policy.onnx",
        feature_version=FEATURE_VERSION,
        input=Tensor(name=POLICY_INPUT, shape=("batch", N_FEATURES)),
        output=Tensor(name=POLICY_OUTPUT, shape=("batch", N_CALLS)),
        network={"type": "mlp-relu", **net.config.to_dict()},
        training=training,
        metrics=metrics,
        export=export,
        notes={"calls": "laws.calls.ALL_CALLS order: pass, X, XX, 1C, 1D, 1H, 1S, 1NT, ..., 7NT"},
    )


def _weights(path: Path, what: str) -> dict[str, npt.NDArray[np.float32]]:
    """The initializers ``w{i}``/``b{i}`` of a graph written by :func:`mlp_graph`, checked."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    n = sum(1 for k in weights if k.startswith("w"))
    if n < 2 or any(f"w{i}" not in weights or f"b{i}" not in weights for i in range(n)):
        raise OnnxGraphError(f"{path}: not {what} (w0/b0 ...)")
    return weights


def _load_linears(linears: Sequence[torch.nn.Linear], weights: dict[str, Any]) -> None:
    with torch.no_grad():
        for i, layer in enumerate(linears):
            layer.weight.copy_(torch.from_numpy(weights[f"w{i}"].copy()))
            layer.bias.copy_(torch.from_numpy(weights[f"b{i}"].copy()))


def policy_from_onnx(path: str | Path) -> PolicyNet:
    """The inverse of :func:`policy_graph`: a model directory's ``policy.onnx`` as a torch network.

    The value head is not exported, so it comes back zero (self-play starts it there anyway).
    Lets training start from a shipped model whose checkpoint is not in the repository.
    """
    p = Path(path)
    weights = _weights(
        p / "policy.onnx" if p.is_dir() else p, "a policy graph written by bridgebot export"
    )
    n = sum(1 for k in weights if k.startswith("w"))
    net = PolicyNet(NetConfig(hidden=int(weights["w0"].shape[0]), layers=n - 1))
    _load_linears(policy_linears(net), weights)
    with torch.no_grad():
        net.value.weight.zero_()
        net.value.bias.zero_()
    return net


def mlp_from_onnx(path: str | Path) -> torch.nn.Sequential:
    """The inverse of :func:`mlp_graph`: the Linear/ReLU stack of an ONNX file (the slam layer's
    estimators, the trick and belief nets)."""
    weights = _weights(Path(path), "a graph written by mlp_graph")
    n = sum(1 for k in weights if k.startswith("w"))
    linears = [torch.nn.Linear(*weights[f"w{i}"].shape[::-1]) for i in range(n)]
    _load_linears(linears, weights)
    layers: list[torch.nn.Module] = []
    for i, layer in enumerate(linears):
        layers += [layer] if i == n - 1 else [layer, torch.nn.ReLU()]
    return torch.nn.Sequential(*layers)
