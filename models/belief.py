"""Train the belief network and export it to ONNX (``bridgebot train belief``).

The belief net (seeds file 004, Qiu et al. 2024) maps the bidding observation of the player to call
(the policy's 480 features) to 156 sigmoid outputs: for each of the three other seats and each
card, the probability that the seat holds it (layout in :mod:`engine.belief`). The search deals its
particles from it instead of uniformly.

Training data is what the search will meet: the auctions the shipped policy bids itself (greedy,
all four seats, :func:`models.data.run_auctions`) on the deals of a DD file (docs/data.md)
minus the last 2,000, which are everyone's held-out evaluation set. Every decision point of every
auction gives one example (observation -> owners of the hidden cards relative to the observer).
The loss is binary cross-entropy, as in the paper. The held-out report renormalises the three
sigmoids of each unseen card into a distribution over the seats (what the sampler uses) and gives
the mean log-likelihood of the true owner and the accuracy of the most likely owner, against the
uniform baseline (log 1/3, 1/3).

The export reuses :func:`models.ddnet.to_onnx` (a Linear/ReLU stack written straight to ONNX);
the sigmoid is applied by :class:`engine.belief.BeliefNet`.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from bridgebot.engine.belief import DEFAULT_DIR, N_OUTPUTS, OUTPUT_VERSION
from bridgebot.engine.features import FEATURE_VERSION, N_FEATURES
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.models.data import HOLDOUT, load_dd, observe, run_auctions

DEFAULT_DATA = "data/dd.npz"
DEFAULT_POLICY = "models/default"


@dataclass(frozen=True)
class BeliefConfig:
    hidden: tuple[int, ...] = (256, 256, 256)


def build_net(config: BeliefConfig) -> Any:
    from bridgebot.models.ddnet import DDNetConfig
    from bridgebot.models.ddnet import build_net as build_mlp

    return build_mlp(DDNetConfig(hidden=config.hidden), N_FEATURES, N_OUTPUTS)


def decision_examples(
    owners: npt.NDArray[np.uint8], policy_dir: str | Path, threads: int = 1, chunk: int = 4096
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """(features uint8 [M, 480], targets uint8 [M, 156], call position [M]) for every decision.

    Deal ``i`` is bid as board ``i + 1`` (dealer and vulnerability of the 16-board cycle) by the
    policy in ``policy_dir``, greedily at all four seats.
    """
    from bridgebot.engine.policy import Policy

    policy = Policy(policy_dir, threads=threads)

    def greedy(
        rows: npt.NDArray[np.int64], x: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int64]:
        logits = policy.logits(x)
        return np.asarray(np.where(mask, logits, -1e9).argmax(axis=1), dtype=np.int64)

    xs, ys, ps = [], [], []
    for start in range(0, owners.shape[0], chunk):
        own = owners[start : start + chunk]
        n = own.shape[0]
        dealer, vul = dealer_vul_arrays(np.arange(start, start + n) + 1)
        auctions = run_auctions(own, dealer, vul, np.zeros((n, 4), dtype=np.int64), [greedy])
        lengths = (auctions >= 0).sum(axis=1)
        deal = np.repeat(np.arange(n), lengths)
        pos = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        x, _ = observe(own[deal], dealer[deal], vul[deal], auctions[deal], pos)
        seat = (dealer[deal] + pos) % 4
        rel = (own[deal].astype(np.int64) - seat[:, None]) % 4  # 0 = the observer
        y = rel[:, None, :] == np.arange(1, 4)[None, :, None]  # [M, 3, 52]
        xs.append(x.astype(np.uint8))
        ys.append(y.reshape(-1, N_OUTPUTS).astype(np.uint8))
        ps.append(pos.astype(np.int64))
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ps)


def quality(
    probs: npt.NDArray[np.floating], targets: npt.NDArray[np.uint8], pos: npt.NDArray[np.int64]
) -> dict[str, Any]:
    """Owner log-likelihood and accuracy on the unseen cards, against the uniform 1/3 baseline.

    ``probs`` [M, 156] sigmoids; per unseen card they are renormalised over the three seats (with
    the sampler's floor), which is the distribution particles are dealt from.
    """
    from bridgebot.engine.belief import FLOOR

    p = np.maximum(np.asarray(probs, dtype=np.float64).reshape(-1, 3, 52), FLOOR)
    p = p / p.sum(axis=1, keepdims=True)
    y = targets.reshape(-1, 3, 52).astype(bool)
    unseen = y.any(axis=1)  # [M, 52]: cards some other seat holds
    ll = np.log(np.where(unseen, (p * y).sum(axis=1), 1.0))[unseen]
    correct = (p.argmax(axis=1) == y.argmax(axis=1))[unseen]
    first = np.repeat(pos < 4, 39)  # the first round: little has been said yet
    later = ~first
    return {
        "decisions": int(p.shape[0]),
        "owner_loglik_per_card": round(float(ll.mean()), 4),
        "uniform_loglik_per_card": round(math.log(1 / 3), 4),
        "owner_accuracy": round(float(correct.mean()), 4),
        "uniform_accuracy": round(1 / 3, 4),
        "first_round": {
            "loglik": round(float(ll[first].mean()), 4),
            "accuracy": round(float(correct[first].mean()), 4),
        },
        "later_rounds": {
            "loglik": round(float(ll[later].mean()), 4) if later.any() else None,
            "accuracy": round(float(correct[later].mean()), 4) if later.any() else None,
        },
    }


def predict(net: Any, x: npt.NDArray[np.uint8], batch: int = 8192) -> npt.NDArray[np.float32]:
    import torch

    out = []
    with torch.no_grad():
        for i in range(0, x.shape[0], batch):
            out.append(torch.sigmoid(net(torch.from_numpy(x[i : i + batch].astype(np.float32)))))
    return torch.cat(out).numpy() if out else np.zeros((0, N_OUTPUTS), np.float32)


def train(
    data: str = DEFAULT_DATA,
    policy_dir: str = DEFAULT_POLICY,
    epochs: int = 4,
    batch: int = 1024,
    lr: float = 2e-3,
    config: BeliefConfig | None = None,
    seed: int = 0,
    threads: int = 1,
    max_deals: int | None = None,
    held_out: int = HOLDOUT,
    log: Any = print,
) -> tuple[Any, dict[str, Any], npt.NDArray[np.uint8]]:
    """Train on the policy's auctions of ``data`` minus its last ``held_out`` deals.

    Returns the net, held-out metrics and some held-out observations (for the export's parity).
    """
    import torch

    config = config or BeliefConfig()
    torch.manual_seed(seed)
    torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    dd = load_dd(data)
    train_idx, test_idx = dd.split(held_out)
    if max_deals is not None:
        train_idx = train_idx[:max_deals]
    start = time.monotonic()
    x, y, _ = decision_examples(dd.owners[train_idx], policy_dir, threads)
    xt, yt, pt = decision_examples(dd.owners[test_idx], policy_dir, threads)
    log(
        f"examples: {x.shape[0]} training, {xt.shape[0]} held-out ({time.monotonic() - start:.0f} s)"
    )
    net = build_net(config)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    n = x.shape[0]
    steps = max(1, epochs * ((n + batch - 1) // batch))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    losses: list[float] = []
    for epoch in range(epochs):
        perm = rng.permutation(n)
        total = 0.0
        for i in range(0, n, batch):
            idx = perm[i : i + batch]
            xb = torch.from_numpy(x[idx].astype(np.float32))
            yb = torch.from_numpy(y[idx].astype(np.float32))
            loss = loss_fn(net(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        losses.append(total / n)
        q = quality(predict(net, xt[:20000]), yt[:20000], pt[:20000])
        log(
            f"epoch {epoch + 1}/{epochs} loss {total / n:.4f} held-out loglik/card "
            f"{q['owner_loglik_per_card']:.4f} (uniform {q['uniform_loglik_per_card']}) "
            f"accuracy {q['owner_accuracy']:.3f} ({time.monotonic() - start:.0f} s)"
        )
    metrics = quality(predict(net, xt), yt, pt)
    metrics["held_out_deals"] = int(test_idx.size)
    metrics["train_deals"] = int(train_idx.size)
    metrics["train_decisions"] = int(n)
    metrics["train_seconds"] = round(time.monotonic() - start, 1)
    metrics["epoch_loss"] = [round(v, 4) for v in losses]
    return net, metrics, xt[:256]


def export(
    net: Any, out_dir: str | Path, meta: dict[str, Any], parity_x: npt.NDArray[np.uint8]
) -> float:
    """Write ``belief.onnx`` + ``model.json``; return the max |onnx - torch| logit gap."""
    from bridgebot.models.ddnet import write_mlp

    versions = {"feature_version": FEATURE_VERSION, "output_version": OUTPUT_VERSION}
    return write_mlp(net, out_dir, "belief.onnx", parity_x.astype(np.float32), versions, meta)


# -- command line (wired as `bridgebot train belief`) ---------------------------------------------

HELP = "train the belief network (hidden cards from the auction) and export it to ONNX"
EXAMPLES = """examples:
  bridgebot train belief --out models/belief
  bridgebot train belief --max-deals 2000 --epochs 1 --out runs/belief-small
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bridgebot.models.ddnet import add_training_arguments

    add_training_arguments(
        parser,
        data_help="DD npz (owners); the last 2,000 deals held out",
        epochs=4,
        hidden="256,256,256",
        threads=1,
    )
    parser.set_defaults(out=str(DEFAULT_DIR), data=DEFAULT_DATA)
    parser.add_argument("--policy", default=DEFAULT_POLICY, help="policy model directory")


def run(args: argparse.Namespace) -> int:
    from bridgebot.models.data import DataError
    from bridgebot.models.provenance import git_commit

    config = BeliefConfig(hidden=tuple(int(h) for h in str(args.hidden).split(",")))

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    try:
        net, metrics, parity_x = train(
            data=args.data,
            policy_dir=args.policy,
            epochs=args.epochs,
            batch=args.batch,
            lr=args.lr,
            config=config,
            seed=args.seed,
            threads=args.threads,
            max_deals=args.max_deals,
            log=log,
        )
    except (DataError, FileNotFoundError) as e:
        print(f"train belief failed: {e}", file=sys.stderr)
        return 1
    meta = {
        "config": asdict(config),
        "command": "bridgebot " + " ".join(sys.argv[1:]),
        "data": str(args.data),
        "policy": str(args.policy),
        "held_out": f"last {HOLDOUT} deals (not trained on)",
        "seed": args.seed,
        "git_commit": git_commit(),
        "metrics": metrics,
    }
    gap = export(net, args.out, meta, parity_x)
    print(
        f"wrote {args.out}: held-out owner log-likelihood/card "
        f"{metrics['owner_loglik_per_card']:.4f} (uniform {metrics['uniform_loglik_per_card']}), "
        f"accuracy {metrics['owner_accuracy']:.3f} (onnx parity {gap:.1e})"
    )
    return 0
