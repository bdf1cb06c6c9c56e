"""Train the belief network and export it to ONNX (``bridgebot train belief``).

The belief net (Qiu et al. 2024, docs/papers.md) maps the bidding observation of the player to call
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
import time
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import structlog
from bridgebot.engine.belief import N_OUTPUTS, OUTPUT_VERSION
from bridgebot.engine.features import FEATURE_VERSION, N_FEATURES
from bridgebot.engine.modelcard import ModelCard, Training
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.models.config import BeliefConfig, add_config_arguments, config_from_args
from bridgebot.models.data import HOLDOUT, Chooser, load_dd, observe, run_auctions
from bridgebot.models.ddnet import build_net as build_mlp
from bridgebot.models.ddnet import fit, write_mlp

log = structlog.get_logger(__name__)


def build_net(hidden: tuple[int, ...]) -> Any:
    return build_mlp(hidden, N_FEATURES, N_OUTPUTS)


def opponent_dirs(spec: str) -> tuple[str, ...]:
    """The opponent policy directories of ``--opponents DIR+DIR``, blanks around each name dropped."""
    return tuple(name.strip() for name in spec.split("+") if name.strip())


def seat_assignment(n_deals: int, n_opponents: int) -> npt.NDArray[np.int64]:
    """``who[i, seat]`` for deal ``i``: 0 is the policy, ``k >= 1`` opponent model ``k``.

    Deals take turns: all four seats the policy, then each opponent model against the policy with
    the policy North-South, then with it East-West; so every pairing bids an equal share.
    """
    pairings = [np.zeros(4, dtype=np.int64)]
    for k in range(1, n_opponents + 1):
        pairings.append(np.array([0, k, 0, k], dtype=np.int64))
        pairings.append(np.array([k, 0, k, 0], dtype=np.int64))
    table = np.stack(pairings)
    return table[np.arange(n_deals) % len(table)]


def decision_examples(
    owners: npt.NDArray[np.uint8],
    policy_dir: str | Path,
    threads: int = 1,
    chunk: int = 4096,
    opponents: tuple[str | Path, ...] = (),
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """(features uint8 [M, 480], targets uint8 [M, 156], call position [M]) for every decision.

    Deal ``i`` is bid as board ``i + 1`` (dealer and vulnerability of the 16-board cycle) by the
    policy in ``policy_dir``, greedily at all four seats; with ``opponents`` (policy directories),
    deals take turns between that and each opponent model bidding against the policy
    (:func:`seat_assignment`). Only the policy's own decisions are examples: the belief net is
    what the policy's seat should believe, and the opponents' half of the data teaches it what
    their calls say about their hands.
    """
    from bridgebot.engine.policy import Policy

    def greedy_of(policy: Policy) -> Chooser:
        return lambda rows, x, mask: policy.choose(x, mask)  # greedy

    choosers = [greedy_of(Policy(d, threads=threads)) for d in (policy_dir, *opponents)]
    who_all = seat_assignment(owners.shape[0], len(opponents))
    xs, ys, ps = [], [], []
    for start in range(0, owners.shape[0], chunk):
        own = owners[start : start + chunk]
        n = own.shape[0]
        dealer, vul = dealer_vul_arrays(np.arange(start, start + n) + 1)
        who = who_all[start : start + n]
        auctions = run_auctions(own, dealer, vul, who, choosers)
        lengths = (auctions >= 0).sum(axis=1)
        deal = np.repeat(np.arange(n), lengths)
        pos = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        ours = who[deal, (dealer[deal] + pos) % 4] == 0
        deal, pos = deal[ours], pos[ours]
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
    cfg: BeliefConfig, held_out: int = HOLDOUT, progress: bool = True
) -> tuple[Any, dict[str, Any], npt.NDArray[np.uint8]]:
    """Train on the policy's auctions of ``cfg.data`` minus its last ``held_out`` deals.

    Returns the net, held-out metrics and some held-out observations (for the export's parity).
    """
    import torch

    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.threads)
    rng = np.random.default_rng(cfg.seed)
    dd = load_dd(cfg.data)
    train_idx, test_idx = dd.split(held_out)
    if cfg.max_deals is not None:
        train_idx = train_idx[: cfg.max_deals]
    start = time.monotonic()
    opponents = opponent_dirs(cfg.opponents)
    x, y, _ = decision_examples(dd.owners[train_idx], cfg.policy, cfg.threads, opponents=opponents)
    xt, yt, pt = decision_examples(
        dd.owners[test_idx], cfg.policy, cfg.threads, opponents=opponents
    )
    log.info(
        "examples bid",
        training=x.shape[0],
        held_out=xt.shape[0],
        seconds=round(time.monotonic() - start),
    )
    net = build_net(cfg.hidden)
    loss_fn = torch.nn.BCEWithLogitsLoss()
    n = x.shape[0]

    def batch_loss(idx: npt.NDArray[np.int64]) -> Any:
        xb = torch.from_numpy(x[idx].astype(np.float32))
        yb = torch.from_numpy(y[idx].astype(np.float32))
        return loss_fn(net(xb), yb)

    def held_out_20000() -> dict[str, float]:
        q = quality(predict(net, xt[:20000]), yt[:20000], pt[:20000])
        return {
            "held_out_loglik_per_card": q["owner_loglik_per_card"],
            "uniform_loglik_per_card": q["uniform_loglik_per_card"],
            "held_out_accuracy": q["owner_accuracy"],
        }

    losses = fit(net, n, cfg, rng, batch_loss, held_out_20000, "belief", progress)
    metrics = quality(predict(net, xt), yt, pt)
    metrics["held_out_deals"] = int(test_idx.size)
    metrics["train_deals"] = int(train_idx.size)
    metrics["train_decisions"] = int(n)
    metrics["train_seconds"] = round(time.monotonic() - start, 1)
    metrics["epoch_loss"] = [round(v, 4) for v in losses]
    return net, metrics, xt[:256]


def export(
    net: Any,
    out_dir: str | Path,
    training: Training,
    metrics: dict[str, Any],
    parity_x: npt.NDArray[np.uint8],
) -> ModelCard:
    """Write ``belief.onnx`` + ``model.json``, checked against torch on real observations."""
    card = {
        "feature_version": FEATURE_VERSION,
        "output_version": OUTPUT_VERSION,
        "training": training,
        "metrics": metrics,
        "notes": {"held_out": f"last {HOLDOUT} deals (not trained on)"},
    }
    return write_mlp(net, out_dir, "belief.onnx", parity_x.astype(np.float32), card)


# -- command line (wired as `bridgebot train belief`) ---------------------------------------------

HELP = "train the belief network (hidden cards from the auction) and export it to ONNX"
EXAMPLES = """examples:
  bridgebot ddgen --boards 42336 --seed 20261123 --out data/dd_2026b.npz
  bridgebot train belief --deals data/dd_2026b.npz --out models/belief
  bridgebot train belief --deals data/dd_2026b.npz --max-deals 2000 --epochs 1 --out runs/small
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_config_arguments(parser, BeliefConfig)
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace, command: str) -> int:
    from bridgebot.models.provenance import data_record

    cfg = config_from_args(BeliefConfig, args)
    net, metrics, parity_x = train(cfg, progress=not args.quiet)
    training = Training(
        kind="belief",
        command=command,
        seed=cfg.seed,
        data=(data_record(cfg.data),),
        config=cfg.model_dump(mode="json"),
        init=None,
    )
    card = export(net, cfg.out, training, metrics, parity_x)
    print(
        f"wrote {cfg.out}: held-out owner log-likelihood/card "
        f"{metrics['owner_loglik_per_card']:.4f} (uniform {metrics['uniform_loglik_per_card']}), "
        f"accuracy {metrics['owner_accuracy']:.3f} "
        f"(onnx parity {card.export.parity_max_abs_diff:.1e})"
    )
    return 0
