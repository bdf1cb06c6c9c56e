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
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import structlog
from bridgebot.core.logs import progress_bar
from bridgebot.engine.ddestimate import (
    CANONICAL_SUIT_ORDER,
    FEATURE_VERSION,
    N_FEATURES,
    N_TRICKS,
    encode_rows,
    full_table_rows,
)
from bridgebot.engine.modelcard import Export, ModelCard, Tensor, Training
from bridgebot.models.config import DDNetConfig, add_config_arguments, config_from_args
from bridgebot.models.data import load_dd_files
from bridgebot.models.provenance import data_record, git_commit
from pydantic import JsonValue

log = structlog.get_logger(__name__)

HELD_OUT = 2000


def build_net(hidden: tuple[int, ...], inputs: int = N_FEATURES, outputs: int = N_TRICKS) -> Any:
    """A Linear/ReLU stack ``inputs`` -> ``hidden`` widths -> ``outputs`` (the belief net's too)."""
    from torch import nn

    layers: list[nn.Module] = []
    width = inputs
    for h in hidden:
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


def load_split(
    paths: str | Sequence[str], held_out: int = HELD_OUT
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(train, held-out) dicts with ``owners`` and ``dd`` of one DD file or several, read in
    order; held-out = the last ``held_out`` deals of the last file, every other deal trains
    (:func:`models.data.load_dd_files`, the split of every trainer of several files)."""
    data, train_idx, held_idx = load_dd_files(
        [paths] if isinstance(paths, str) else paths, held_out
    )
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
    cfg: DDNetConfig, held_out: int = HELD_OUT, progress: bool = True
) -> tuple[Any, dict[str, Any]]:
    """Train on ``cfg.data`` minus the last file's last ``held_out`` deals; return the net and
    held-out metrics."""
    import torch

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    rng = np.random.default_rng(cfg.seed)
    tr, ho = load_split(cfg.data, held_out)
    owners, dd = tr["owners"], tr["dd"]
    if cfg.max_deals is not None:
        owners, dd = owners[: cfg.max_deals], dd[: cfg.max_deals]
    deal, declarer, strain = full_table_rows(owners)
    target = dd[deal, declarer, strain].astype(np.int64)
    n = deal.shape[0]
    net = build_net(cfg.hidden)
    loss_fn = torch.nn.CrossEntropyLoss()
    start = time.monotonic()

    def batch_loss(idx: npt.NDArray[np.int64]) -> Any:
        order = shuffled_suit_order(strain[idx], rng)
        x = encode_rows(owners[deal[idx]], declarer[idx], strain[idx], order)
        return loss_fn(net(torch.from_numpy(x)), torch.from_numpy(target[idx]))

    def held_out_500() -> dict[str, float]:
        held = accuracy(predict_tables(net, ho["owners"][:500]), ho["dd"][:500])
        return {"held_out_500_exact": held["exact"], "held_out_500_within1": held["within1"]}

    losses = fit(net, n, cfg, rng, batch_loss, held_out_500, "ddnet", progress)
    metrics = accuracy(predict_tables(net, ho["owners"]), ho["dd"])
    metrics["held_out_deals"] = int(ho["owners"].shape[0])
    metrics["train_deals"] = int(owners.shape[0])
    metrics["train_seconds"] = round(time.monotonic() - start, 1)
    metrics["epoch_loss"] = [round(x, 4) for x in losses]
    return net, metrics


class FitConfig(Protocol):
    """What :func:`fit` reads of a trainer's configuration (``DDNetConfig``, ``BeliefConfig``)."""

    @property
    def lr(self) -> float: ...
    @property
    def epochs(self) -> int: ...
    @property
    def batch(self) -> int: ...


def fit(
    net: Any,
    n: int,
    cfg: FitConfig,
    rng: np.random.Generator,
    batch_loss: Callable[[npt.NDArray[np.int64]], Any],
    held_out: Callable[[], dict[str, float]],
    name: str,
    progress: bool = True,
) -> list[float]:
    """Train ``net`` on ``n`` examples, the one loop of the ddnet and belief trainers: AdamW
    (weight decay 1e-4) under a one-cycle schedule peaking at ``cfg.lr``, ``cfg.epochs`` epochs
    of minibatches of ``cfg.batch`` in an order ``rng`` draws anew each epoch; ``batch_loss``
    gives the loss of the examples it is handed. After each epoch ``held_out``'s figures are
    shown and logged. Returns each epoch's mean training loss."""
    import torch

    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    steps = max(1, cfg.epochs * ((n + cfg.batch - 1) // cfg.batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=cfg.lr, total_steps=steps)
    start = time.monotonic()
    losses: list[float] = []
    with progress_bar(steps, "step", f"train {name}", show=progress) as bar:
        for epoch in range(cfg.epochs):
            perm = rng.permutation(n)
            total = 0.0
            for i in range(0, n, cfg.batch):
                idx = perm[i : i + cfg.batch]
                loss = batch_loss(idx)
                opt.zero_grad()
                loss.backward()
                opt.step()
                sched.step()
                total += float(loss.detach()) * len(idx)
                bar.update(1)
            losses.append(total / n)
            figures = {k: round(v, 4) for k, v in held_out().items()}
            bar.set_postfix(loss=f"{total / n:.4f}", **{k: f"{v:.4f}" for k, v in figures.items()})
            log.info(
                "epoch done",
                epoch=epoch + 1,
                loss=round(total / n, 4),
                **figures,
                seconds=round(time.monotonic() - start),
            )
    return losses


def to_onnx(net: Any, name: str) -> bytes:
    """The MLP as ONNX: input ``rows`` float32 [B, inputs] -> ``logits`` float32 [B, outputs]."""
    from bridgebot.models.onnx_mlp import mlp_graph
    from torch import nn

    linears = [m for m in net if isinstance(m, nn.Linear)]
    return bytes(mlp_graph(linears, "rows", "logits", name).SerializeToString())


def write_mlp(
    net: Any,
    out_dir: str | Path,
    filename: str,
    x: npt.NDArray[np.float32],
    card: dict[str, Any],
) -> ModelCard:
    """Write ``net`` (a Linear/ReLU stack) as ONNX ``filename`` + its card in ``out_dir``.

    The ONNX logits are first checked against torch on the real rows ``x``; ``card`` gives the
    card's fields other than the file, tensors and export (the belief net's exporter uses it too).
    """
    import onnxruntime as ort
    import torch

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        ref = net(torch.from_numpy(x)).numpy()
    blob = to_onnx(net, filename.split(".")[0])
    sess = ort.InferenceSession(blob, providers=["CPUExecutionProvider"])
    got = sess.run(None, {"rows": x})[0]
    gap = float(np.abs(got - ref).max())
    if gap > 1e-3:
        raise RuntimeError(f"{filename}: ONNX export disagrees with torch by {gap:g} on real rows")
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    hidden: list[JsonValue] = [int(m.out_features) for m in linears[:-1]]
    written = ModelCard(
        onnx=filename,
        input=Tensor(name="rows", shape=("batch", int(x.shape[1]))),
        output=Tensor(name="logits", shape=("batch", int(ref.shape[1]))),
        network={"type": "mlp-relu", "hidden": hidden},
        export=Export(
            command=card["training"].command,
            git_commit=git_commit(),
            torch=torch.__version__,
            onnxruntime=ort.__version__,
            parity_states=int(x.shape[0]),
            parity_max_abs_diff=gap,
        ),
        **card,
    )
    (out / filename).write_bytes(blob)
    written.write(out)
    return written


def export(
    net: Any,
    out_dir: str | Path,
    training: Training,
    metrics: dict[str, Any],
    parity_owners: npt.NDArray[np.uint8],
) -> ModelCard:
    """Write ``ddnet.onnx`` + ``model.json``, checked against torch on the rows of real deals."""
    deal, declarer, strain = full_table_rows(parity_owners)
    x = encode_rows(parity_owners[deal], declarer, strain)
    card = {
        "feature_version": FEATURE_VERSION,
        "training": training,
        "metrics": metrics,
        "notes": {"held_out": f"last {HELD_OUT} deals (not trained on)"},
    }
    return write_mlp(net, out_dir, "ddnet.onnx", x, card)


# -- command line (wired as `bridgebot train ddnet`) ----------------------------------------------

HELP = "train the learned double-dummy estimator and export it to ONNX"
EXAMPLES = """examples:
  bridgebot ddgen --boards 42336 --seed 20261123 --out data/dd_2026b.npz
  bridgebot train ddnet --deals data/dd_2026.npz --deals data/dd_2026b.npz --out models/ddnet
  bridgebot train ddnet --deals data/dd_2026b.npz --epochs 4 --out runs/ddnet-small
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser, DDNetConfig)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, command: str) -> int:
    cfg = config_from_args(DDNetConfig, args)
    net, metrics = train(cfg, progress=not args.quiet)
    _, ho = load_split(cfg.data)
    training = Training(
        kind="ddnet",
        command=command,
        seed=cfg.seed,
        data=tuple(data_record(p) for p in cfg.data),
        config=cfg.model_dump(mode="json"),
    )
    card = export(net, cfg.out, training, metrics, ho["owners"][:64])
    print(
        f"wrote {cfg.out}: held-out exact {metrics['exact']:.3f} "
        f"within1 {metrics['within1']:.3f} (onnx parity {card.export.parity_max_abs_diff:.1e})"
    )
    return 0
