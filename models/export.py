"""Export a trained policy to ONNX with its sidecar ``model.json``, and prove they agree.

The exported graph is the policy head only (features [batch, 480] -> logits [batch, 38]); the
runtime (``engine.policy``) masks illegal calls itself. Before anything is written in place, the
ONNX model is run by onnxruntime on a batch of real bidding states (auctions bid by the network on
deals from a DD file) and compared with torch; a disagreement above ``tol`` aborts the export, so
a model directory on disk always holds a model that computes what was trained.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import torch
from bridgebot.engine.features import FEATURE_VERSION, N_CALLS, N_FEATURES
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.models.data import load_dd, run_auctions
from bridgebot.models.net import PolicyNet, load_checkpoint
from bridgebot.models.provenance import git_commit
from bridgebot.models.selfplay import Recorder, net_chooser

INPUT_NAME = "features"
OUTPUT_NAME = "logits"
FORMAT_VERSION = 1


class ExportError(RuntimeError):
    """Export refused: parity failed or the checkpoint is unusable."""


def onnx_graph(net: PolicyNet) -> Any:
    """The policy path of ``net`` as an ONNX model: Gemm + Relu per trunk layer, Gemm head.

    Built from the weights with ``onnx.helper`` rather than ``torch.onnx.export``: the network is
    a plain MLP, the graph is then exactly what we mean (no tracing surprises, no exporter
    deprecations), and the parity check below proves it computes what torch computes.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    linears = [m for m in net.trunk if isinstance(m, torch.nn.Linear)] + [net.policy]
    nodes, inits = [], []
    current = INPUT_NAME
    for i, layer in enumerate(linears):
        w = layer.weight.detach().cpu().numpy().astype(np.float32)
        b = layer.bias.detach().cpu().numpy().astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        last = i == len(linears) - 1
        out = OUTPUT_NAME if last else f"h{i}"
        nodes.append(helper.make_node("Gemm", [current, f"w{i}", f"b{i}"], [out], transB=1))
        if not last:
            nodes.append(helper.make_node("Relu", [out], [f"r{i}"]))
            out = f"r{i}"
        current = out
    graph = helper.make_graph(
        nodes,
        "bridgebot_policy",
        [helper.make_tensor_value_info(INPUT_NAME, TensorProto.FLOAT, ["batch", N_FEATURES])],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, ["batch", N_CALLS])],
        inits,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="bridgebot"
    )
    model.ir_version = 8  # readable by every onnxruntime >= 1.17 (pyproject's floor)
    onnx.checker.check_model(model)
    return model


def real_states(net: PolicyNet, dd_path: str, count: int, seed: int) -> npt.NDArray[np.float32]:
    """Observations met while ``net`` bids all four seats on ``count`` deals of a DD file."""
    data = load_dd(dd_path)
    rng = np.random.default_rng(seed)
    deals = rng.choice(len(data), size=min(count, len(data)), replace=False)
    dealer, vul = dealer_vul_arrays(deals + 1)
    rec = Recorder()
    chooser = net_chooser(net, torch.device("cpu"), True, recorder=rec)
    who = np.zeros((len(deals), 4), dtype=np.int64)
    run_auctions(data.owners[deals], dealer, vul, who, [chooser])
    states = np.concatenate(rec.x)
    return states[rng.permutation(len(states))[: max(count, 1)]]


def export(
    checkpoint: str,
    out_dir: str,
    dd_path: str,
    states: int = 512,
    seed: int = 0,
    tol: float = 1e-4,
    command: str = "",
    extra_metrics: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write ``OUT_DIR/policy.onnx`` and ``OUT_DIR/model.json``; return the sidecar."""
    import onnxruntime as ort

    net, blob = load_checkpoint(checkpoint)
    net.eval()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    x = real_states(net, dd_path, states, seed)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        tmp_onnx = Path(tmp) / "policy.onnx"
        import onnx

        onnx.save(onnx_graph(net), str(tmp_onnx))
        sess = ort.InferenceSession(str(tmp_onnx), providers=["CPUExecutionProvider"])
        (got,) = sess.run([OUTPUT_NAME], {INPUT_NAME: x})
        with torch.no_grad():
            want = net(torch.from_numpy(x)).numpy()
        diff = float(np.abs(np.asarray(got) - want).max())
        same_choice = float((np.asarray(got).argmax(1) == want.argmax(1)).mean())
        if not diff <= tol:
            raise ExportError(f"{checkpoint}: ONNX and torch differ by {diff:.3g} (> {tol})")
        meta: dict[str, Any] = dict(blob.get("meta") or {})  # type: ignore[call-overload]
        sidecar: dict[str, Any] = {
            "format": FORMAT_VERSION,
            "feature_version": FEATURE_VERSION,
            "inputs": [{"name": INPUT_NAME, "shape": ["batch", N_FEATURES], "dtype": "float32"}],
            "outputs": [{"name": OUTPUT_NAME, "shape": ["batch", N_CALLS], "dtype": "float32"}],
            "calls": "laws.calls.ALL_CALLS order: pass, X, XX, 1C, 1D, 1H, 1S, 1NT, ..., 7NT",
            "network": {"type": "mlp-relu", **net.config.to_dict()},
            "training": {
                "kind": meta.get("kind"),
                "command": meta.get("command"),
                "data": meta.get("data"),
                "seed": meta.get("seed"),
                "init": meta.get("init"),
                "config": meta.get("config"),
            },
            "metrics": {**(meta.get("metrics") or {}), **(extra_metrics or {})},
            "export": {
                "command": command,
                "checkpoint": checkpoint,
                "git_commit": git_commit(),
                "torch": torch.__version__,
                "onnxruntime": ort.__version__,
                "parity_states": len(x),
                "parity_max_abs_diff": diff,
                "parity_same_argmax": same_choice,
                "parity_states_from": dd_path,
            },
        }
        json_tmp = Path(tmp) / "model.json"
        json_tmp.write_text(json.dumps(sidecar, indent=2, default=str) + "\n")
        os.replace(tmp_onnx, out / "policy.onnx")
        os.replace(json_tmp, out / "model.json")
    print(
        f"export: {out}/policy.onnx, parity max |diff| {diff:.2e} on {len(x)} states",
        file=sys.stderr,
    )
    return sidecar


def net_from_onnx(path: str | Path) -> PolicyNet:
    """The inverse of :func:`onnx_graph`: a model directory's ``policy.onnx`` as a torch network.

    The value head is not exported, so it comes back zero (self-play starts it there anyway).
    Lets training start from a shipped model whose checkpoint is not in the repository.
    """
    import onnx
    from bridgebot.models.net import NetConfig
    from onnx import numpy_helper

    p = Path(path)
    model = onnx.load(str(p / "policy.onnx" if p.is_dir() else p))
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    n = sum(1 for k in weights if k.startswith("w"))
    if n < 2 or any(f"w{i}" not in weights or f"b{i}" not in weights for i in range(n)):
        raise ExportError(f"{p}: not a policy graph written by bridgebot export (w0/b0 ...)")
    hidden = int(weights["w0"].shape[0])
    net = PolicyNet(NetConfig(hidden=hidden, layers=n - 1))
    linears = [m for m in net.trunk if isinstance(m, torch.nn.Linear)] + [net.policy]
    with torch.no_grad():
        for i, layer in enumerate(linears):
            layer.weight.copy_(torch.from_numpy(weights[f"w{i}"].copy()))
            layer.bias.copy_(torch.from_numpy(weights[f"b{i}"].copy()))
        net.value.weight.zero_()
        net.value.bias.zero_()
    return net
