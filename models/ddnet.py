"""Train the learned double-dummy estimator and export it to ONNX (``bridgebot train ddnet``).

The network is an MLP over :func:`engine.ddestimate.encode_rows` (one row per deal, declarer and
strain, seen from the declarer's chair with trumps first) with 14 outputs, one per trick count,
trained by cross-entropy on the double-dummy tables of a DD file (docs/data.md) minus the
last 2,000 deals, which are everyone's held-out evaluation set and never trained on. Sharing one
set of weights across the 20 cells of a table and shuffling the three (or four, at notrump)
non-trump suits each epoch multiplies the data the net sees without a single extra solver call.

The export writes the ONNX graph directly from the weights (Gemm + Relu nodes) instead of tracing,
so it needs only the ``onnx`` package, and then checks onnxruntime against torch on real rows.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from bridgebot.engine.ddestimate import (
    CANONICAL_SUIT_ORDER,
    DEFAULT_DIR,
    FEATURE_VERSION,
    N_FEATURES,
    N_TRICKS,
    encode_rows,
    full_table_rows,
)
from bridgebot.models.data import load_dd
from bridgebot.models.provenance import git_commit

HELD_OUT = 2000
DEFAULT_DATA = "data/dd.npz"


@dataclass(frozen=True)
class DDNetConfig:
    hidden: tuple[int, ...] = (256, 256, 128)


def build_net(config: DDNetConfig, inputs: int = N_FEATURES, outputs: int = N_TRICKS) -> Any:
    """A Linear/ReLU stack ``inputs`` -> hidden widths -> ``outputs`` (the belief net's too)."""
    from torch import nn

    layers: list[nn.Module] = []
    width = inputs
    for h in config.hidden:
        layers += [nn.Linear(width, h), nn.ReLU()]
        width = h
    layers.append(nn.Linear(width, outputs))
    return nn.Sequential(*layers)


def shuffled_suit_order(
    strain: npt.NDArray[np.int64], rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """Canonical order with the non-trump suits (all four at notrump) randomly permuted."""
    order = CANONICAL_SUIT_ORDER[strain].copy()
    keys = rng.random(order.shape)
    keys[strain < 4, 0] = -1.0  # the trump suit stays first
    idx = np.argsort(keys, axis=1)
    return np.take_along_axis(order, idx, axis=1)


def load_split(path: str, held_out: int = HELD_OUT) -> tuple[dict[str, Any], dict[str, Any]]:
    """(train, held-out) dicts with ``owners`` and ``dd``; held-out = the last ``held_out`` deals.

    The split is :meth:`models.data.DDSet.split`, the one every trainer and benchmark uses.
    """
    data = load_dd(path)
    train_idx, held_idx = data.split(held_out)
    return (
        {"owners": data.owners[train_idx], "dd": data.dd[train_idx]},
        {"owners": data.owners[held_idx], "dd": data.dd[held_idx]},
    )


def accuracy(pred: npt.NDArray[np.integer], truth: npt.NDArray[np.integer]) -> dict[str, Any]:
    """Exact and within-one-trick accuracy, overall and per strain (tables [N, 4, 5])."""
    diff = np.abs(pred.astype(np.int64) - truth.astype(np.int64))
    strains = ["C", "D", "H", "S", "NT"]
    return {
        "exact": float((diff == 0).mean()),
        "within1": float((diff <= 1).mean()),
        "mae": float(diff.mean()),
        "per_strain": {
            s: {
                "exact": float((diff[:, :, i] == 0).mean()),
                "within1": float((diff[:, :, i] <= 1).mean()),
            }
            for i, s in enumerate(strains)
        },
    }


def predict_tables(net: Any, owners: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    import torch

    deal, declarer, strain = full_table_rows(owners)
    x = torch.from_numpy(encode_rows(owners[deal], declarer, strain))
    with torch.no_grad():
        out = net(x).argmax(dim=1).numpy()
    return np.asarray(out, dtype=np.uint8).reshape(-1, 4, 5)


def train(
    data: str = DEFAULT_DATA,
    epochs: int = 8,
    batch: int = 1024,
    lr: float = 2e-3,
    config: DDNetConfig | None = None,
    seed: int = 0,
    threads: int = 2,
    max_deals: int | None = None,
    log: Any = print,
    held_out: int = HELD_OUT,
) -> tuple[Any, dict[str, Any]]:
    """Train on ``data`` minus its last ``held_out`` deals; return the net and held-out metrics."""
    import torch

    config = config or DDNetConfig()
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    tr, ho = load_split(data, held_out)
    owners, dd = tr["owners"], tr["dd"]
    if max_deals is not None:
        owners, dd = owners[:max_deals], dd[:max_deals]
    deal, declarer, strain = full_table_rows(owners)
    target = dd[deal, declarer, strain].astype(np.int64)
    n = deal.shape[0]
    net = build_net(config)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    steps = epochs * ((n + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    loss_fn = torch.nn.CrossEntropyLoss()
    start = time.monotonic()
    losses: list[float] = []
    for epoch in range(epochs):
        perm = rng.permutation(n)
        total = 0.0
        for i in range(0, n, batch):
            idx = perm[i : i + batch]
            order = shuffled_suit_order(strain[idx], rng)
            x = torch.from_numpy(encode_rows(owners[deal[idx]], declarer[idx], strain[idx], order))
            y = torch.from_numpy(target[idx])
            loss = loss_fn(net(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / n)
        held = accuracy(predict_tables(net, ho["owners"][:500]), ho["dd"][:500])
        log(
            f"epoch {epoch + 1}/{epochs} loss {total / n:.4f} held-out(500) exact "
            f"{held['exact']:.3f} within1 {held['within1']:.3f} "
            f"({time.monotonic() - start:.0f} s)"
        )
    metrics = accuracy(predict_tables(net, ho["owners"]), ho["dd"])
    metrics["held_out_deals"] = int(ho["owners"].shape[0])
    metrics["train_deals"] = int(owners.shape[0])
    metrics["train_seconds"] = round(time.monotonic() - start, 1)
    metrics["epoch_loss"] = [round(x, 4) for x in losses]
    return net, metrics


def to_onnx(
    net: Any, inputs: int = N_FEATURES, outputs: int = N_TRICKS, name: str = "ddnet"
) -> bytes:
    """The MLP as an ONNX graph: input ``rows`` float32 [B, 209] -> ``logits`` float32 [B, 14].

    ``inputs``/``outputs``/``name`` let another Linear/ReLU stack (the belief net) reuse it.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from torch import nn

    linears = [m for m in net if isinstance(m, nn.Linear)]
    nodes = []
    inits = []
    current = "rows"
    for i, lin in enumerate(linears):
        w = lin.weight.detach().numpy().astype(np.float32)
        b = lin.bias.detach().numpy().astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        out = "logits" if i == len(linears) - 1 else f"h{i}"
        gemm_out = out if i == len(linears) - 1 else f"g{i}"
        nodes.append(helper.make_node("Gemm", [current, f"w{i}", f"b{i}"], [gemm_out], transB=1))
        if i < len(linears) - 1:
            nodes.append(helper.make_node("Relu", [gemm_out], [out]))
        current = out
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, ["batch", inputs])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", outputs])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return bytes(model.SerializeToString())


def write_mlp(
    net: Any,
    out_dir: str | Path,
    filename: str,
    x: npt.NDArray[np.float32],
    versions: dict[str, str],
    meta: dict[str, Any],
) -> float:
    """Write ``net`` (a Linear/ReLU stack) as ONNX ``filename`` + ``model.json`` in ``out_dir``.

    The ONNX logits are first checked against torch on the real rows ``x``; the sidecar holds
    ``versions``, the shapes, the parity gap (returned) and ``meta``. The belief net uses it too.
    """
    import onnxruntime as ort
    import torch

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        ref = net(torch.from_numpy(x)).numpy()
    blob = to_onnx(net, x.shape[1], ref.shape[1], filename.split(".")[0])
    sess = ort.InferenceSession(blob, providers=["CPUExecutionProvider"])
    got = sess.run(None, {"rows": x})[0]
    gap = float(np.abs(got - ref).max())
    if gap > 1e-3:
        raise RuntimeError(f"{filename}: ONNX export disagrees with torch by {gap:g} on real rows")
    (out / filename).write_bytes(blob)
    full = {
        **versions,
        "inputs": {"rows": ["batch", int(x.shape[1])]},
        "outputs": {"logits": ["batch", int(ref.shape[1])]},
        "parity_max_abs": gap,
        **meta,
    }
    (out / "model.json").write_text(json.dumps(full, indent=2) + "\n")
    return gap


def export(
    net: Any, out_dir: str | Path, meta: dict[str, Any], parity_owners: npt.NDArray[np.uint8]
) -> float:
    """Write ``ddnet.onnx`` + ``model.json``; return the max |onnx - torch| logit gap on real rows."""
    deal, declarer, strain = full_table_rows(parity_owners)
    x = encode_rows(parity_owners[deal], declarer, strain)
    return write_mlp(net, out_dir, "ddnet.onnx", x, {"feature_version": FEATURE_VERSION}, meta)


# -- command line (wired as `bridgebot train ddnet`) ----------------------------------------------

HELP = "train the learned double-dummy estimator and export it to ONNX"
EXAMPLES = """examples:
  bridgebot train ddnet --out models/ddnet
  bridgebot train ddnet --data dd.npz --epochs 4 --out runs/ddnet-small
"""


def add_training_arguments(
    parser: argparse.ArgumentParser, *, data_help: str, epochs: int, hidden: str, threads: int
) -> None:
    """The options every supervised MLP trainer here takes (DD estimator, belief net)."""
    parser.add_argument("--data", default=DEFAULT_DATA, help=data_help)
    parser.add_argument("--out", default=str(DEFAULT_DIR), help="model directory to write")
    parser.add_argument("--epochs", type=int, default=epochs)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--hidden", default=hidden, help="hidden widths, comma separated")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=threads)
    parser.add_argument("--max-deals", type=int, default=None, help="train on at most N deals")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_training_arguments(
        parser,
        data_help="DD npz (owners, dd); last 2,000 held out",
        epochs=8,
        hidden="256,256,128",
        threads=2,
    )


def run(args: argparse.Namespace) -> int:
    import sys

    config = DDNetConfig(hidden=tuple(int(h) for h in str(args.hidden).split(",")))

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    net, metrics = train(
        data=args.data,
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        config=config,
        seed=args.seed,
        threads=args.threads,
        max_deals=args.max_deals,
        log=log,
    )
    _, ho = load_split(args.data)
    meta = {
        "config": asdict(config),
        "command": "bridgebot " + " ".join(sys.argv[1:]),
        "data": str(args.data),
        "held_out": f"last {HELD_OUT} deals (not trained on)",
        "seed": args.seed,
        "git_commit": git_commit(),
        "metrics": metrics,
    }
    gap = export(net, args.out, meta, ho["owners"][:64])
    print(
        f"wrote {args.out}: held-out exact {metrics['exact']:.3f} "
        f"within1 {metrics['within1']:.3f} (onnx parity {gap:.1e})"
    )
    return 0
