"""Export a trained policy to ONNX with its model card ``model.json``, and prove they agree.

The exported graph is the policy head only (features [batch, 480] -> logits [batch, 38]); the
runtime (``engine.policy``) masks illegal calls itself. Before anything is written in place, the
ONNX model is run by onnxruntime on a batch of real bidding states (auctions bid by the network on
deals from a DD file) and compared with torch; a disagreement above ``tol`` per unit of the
largest logit (at least 1) aborts the export, so a model directory on disk always holds a model
that computes what was trained.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog
import torch
from bridgebot.engine.modelcard import Export, ModelCard, Training
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.models.data import load_dd, run_auctions
from bridgebot.models.net import PolicyNet, load_checkpoint
from bridgebot.models.onnx_mlp import POLICY_INPUT, POLICY_OUTPUT, policy_card, policy_graph
from bridgebot.models.provenance import git_commit
from bridgebot.models.selfplay import Recorder, net_chooser

log = structlog.get_logger(__name__)


class ExportError(RuntimeError):
    """Export refused: parity failed or the checkpoint is unusable."""


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
) -> ModelCard:
    """Write ``OUT_DIR/policy.onnx`` and ``OUT_DIR/model.json``; return the card.

    Raises :class:`ExportError` where ONNX and torch differ on the parity states by more than
    ``tol`` times the largest |logit| (at least 1); nothing is written then."""
    import onnx
    import onnxruntime as ort

    net, blob = load_checkpoint(checkpoint)
    net.eval()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    x = real_states(net, dd_path, states, seed)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        tmp_onnx = Path(tmp) / "policy.onnx"
        onnx.save(policy_graph(net), str(tmp_onnx))
        sess = ort.InferenceSession(str(tmp_onnx), providers=["CPUExecutionProvider"])
        (got,) = sess.run([POLICY_OUTPUT], {POLICY_INPUT: x})
        with torch.no_grad():
            want = net(torch.from_numpy(x)).numpy()
        diff = float(np.abs(np.asarray(got) - want).max())
        same_choice = float((np.asarray(got).argmax(1) == want.argmax(1)).mean())
        # float32 rounding grows with the logits: a policy trained long by RL has logits in the
        # tens, where 1e-4 is a few units in the last place. The bound scales with them.
        scale = max(1.0, float(np.abs(want).max()))
        if not diff <= tol * scale:
            raise ExportError(
                f"{checkpoint}: ONNX and torch differ by {diff:.3g} on logits up to {scale:.3g} "
                f"(> {tol} x {scale:.3g}; --tol sets the bound per unit of logit)"
            )
        meta: dict[str, Any] = dict(blob.get("meta") or {})  # type: ignore[call-overload]
        training = Training.model_validate(
            {k: meta[k] for k in Training.model_fields if meta.get(k) is not None}
        )
        card = policy_card(
            net,
            training,
            {**(meta.get("metrics") or {}), **(extra_metrics or {})},
            Export(
                command=command,
                checkpoint=checkpoint,
                git_commit=git_commit(),
                torch=torch.__version__,
                onnxruntime=ort.__version__,
                parity_states=len(x),
                parity_max_abs_diff=diff,
                parity_same_argmax=same_choice,
                parity_states_from=dd_path,
            ),
        )
        os.replace(tmp_onnx, out / "policy.onnx")
        card.write(out)
    log.info("exported", model=str(out / "policy.onnx"), parity_max_abs_diff=diff, states=len(x))
    return card
