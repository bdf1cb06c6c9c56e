"""Imitation learning: cross-entropy on the teacher's calls (Lockhart et al. 2020, section 3.2).

Every call of every teacher auction is one example: the caller's 480-feature observation and the
call it made. The last ``holdout`` deals of the file are never trained on; accuracy on their
decisions (argmax over the legal calls equals the teacher's call) is the number the paper reports
(93.9% against WBridge5). Features are encoded once, bit-packed (60 bytes per decision instead of
1,920), and unpacked per minibatch, so two million decisions fit comfortably in memory.

Training checkpoints every ``save_every`` steps and resumes from ``OUT/ckpt.pt``: the minibatch
order of epoch e is a permutation drawn from (seed, e), so a resumed run continues the same order.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import structlog
import torch
import torch.nn.functional as F
from bridgebot.core.logs import progress_bar
from bridgebot.engine.epbot_cards import training_cards
from bridgebot.models.config import ImitationConfig
from bridgebot.models.data import DataError, TeachSet, load_teach, observe
from bridgebot.models.datameta import teachers_of
from bridgebot.models.net import NetConfig, PolicyNet, append_jsonl, masked_logits, save_checkpoint
from bridgebot.models.provenance import data_record
from bridgebot.models.resume import resumed, save_run

log = structlog.get_logger(__name__)


@dataclass
class Encoded:
    """Bit-packed features, packed legal masks and teacher targets of a set of decisions."""

    x: npt.NDArray[np.uint8]
    mask: npt.NDArray[np.uint8]
    y: npt.NDArray[np.int64]

    def __len__(self) -> int:
        return int(self.y.shape[0])

    def batch(
        self, idx: npt.NDArray[np.int64], device: torch.device
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = np.unpackbits(self.x[idx], axis=1, count=480).astype(np.float32)
        m = np.unpackbits(self.mask[idx], axis=1, count=38).astype(np.bool_)
        return (
            torch.from_numpy(x).to(device),
            torch.from_numpy(m).to(device),
            torch.from_numpy(self.y[idx]).to(device),
        )


def encode_decisions(teach: TeachSet, deals: npt.NDArray[np.int64], chunk: int = 65536) -> Encoded:
    """Encode every teacher call of ``deals``; a call illegal in its position is a data error."""
    deal, pos = teach.decisions(deals)
    xs, ms = [], []
    for i in range(0, len(deal), chunk):
        d, p = deal[i : i + chunk], pos[i : i + chunk]
        x, m = observe(teach.owners[d], teach.dealer[d], teach.vul[d], teach.auctions[d], p)
        xs.append(np.packbits(x.astype(np.uint8), axis=1))
        ms.append(np.packbits(m, axis=1))
    y = teach.auctions[deal, pos].astype(np.int64)
    enc = Encoded(x=np.concatenate(xs), mask=np.concatenate(ms), y=y)
    legal = np.unpackbits(enc.mask, axis=1, count=38)[np.arange(len(y)), y]
    if not legal.all():
        bad = int(deal[np.argmin(legal)])
        raise DataError(f"{teach.path}: deal {bad} has an illegal call in its auction")
    return enc


def accuracy(net: PolicyNet, data: Encoded, device: torch.device, batch: int = 8192) -> float:
    """Share of decisions where the network's best legal call is the teacher's."""
    net.eval()
    hits = 0
    with torch.no_grad():
        for i in range(0, len(data), batch):
            x, m, y = data.batch(np.arange(i, min(i + batch, len(data))), device)
            hits += int((masked_logits(net(x), m).argmax(dim=1) == y).sum())
    net.train()
    return hits / max(len(data), 1)


def train_imitation(
    cfg: ImitationConfig, command: str = "", progress: bool = True
) -> dict[str, object]:
    """Train (or resume); writes ``OUT/ckpt.pt``, ``OUT/policy.pt``, ``OUT/log.jsonl``.

    ``command`` is recorded as the run's command line; ``progress`` shows a bar on a terminal.
    """
    torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    teach = load_teach(cfg.data)
    teachers = training_cards(teachers_of(cfg.data), f"{cfg.data}: its teachers")
    n = len(teach)
    holdout = min(cfg.holdout, n // 5)
    t0 = time.perf_counter()
    train = encode_decisions(teach, np.arange(n - holdout, dtype=np.int64))
    held = encode_decisions(teach, np.arange(n - holdout, n, dtype=np.int64))
    log.info(
        "decisions encoded",
        training=len(train),
        training_deals=n - holdout,
        held_out=len(held),
        held_out_deals=holdout,
        seconds=round(time.perf_counter() - t0),
    )
    steps_per_epoch = math.ceil(len(train) / cfg.batch)
    total = max(1, int(cfg.epochs * steps_per_epoch))
    ckpt = out / "ckpt.pt"
    net, opt, state = resumed(
        ckpt, device, cfg.lr, lambda: PolicyNet(NetConfig(hidden=cfg.hidden, layers=cfg.layers))
    )
    step = int(state.get("step", 0))  # type: ignore[call-overload]
    elapsed = float(state.get("elapsed", 0.0))  # type: ignore[arg-type]
    if state:
        log.info("resuming", checkpoint=str(ckpt), step=step, steps=total)
    meta: dict[str, object] = {
        "kind": "imitation",
        "command": command,
        "data": [data_record(cfg.data).model_dump(mode="json")],
        "teachers": list(teachers),
        "seed": cfg.seed,
        "config": cfg.model_dump(mode="json"),
    }
    log_path = out / "log.jsonl"
    start = time.perf_counter() - elapsed
    seen_since, loss_sum, t_mark = 0, 0.0, time.perf_counter()

    def save() -> None:
        save_run(ckpt, net, opt, start, meta, step=step)

    net.train()
    stopped_early = False
    bar = progress_bar(total, "step", "train imitation", initial=step, show=progress)
    while step < total:
        epoch, within = divmod(step, steps_per_epoch)
        perm = np.random.default_rng([cfg.seed, epoch]).permutation(len(train))
        for s in range(within, steps_per_epoch):
            if step >= total:
                break
            x, m, y = train.batch(perm[s * cfg.batch : (s + 1) * cfg.batch], device)
            for group in opt.param_groups:  # cosine decay, a pure function of the step
                group["lr"] = cfg.lr * 0.5 * (1 + math.cos(math.pi * step / total))
            loss = F.cross_entropy(masked_logits(net(x), m), y)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            step += 1
            bar.update(1)
            seen_since += len(y)
            loss_sum += float(loss.detach()) * len(y)
            if step % cfg.save_every == 0 or step == total:
                entry = {
                    "step": step,
                    "epoch": step / steps_per_epoch,
                    "loss": loss_sum / max(seen_since, 1),
                    "examples_per_s": seen_since / (time.perf_counter() - t_mark),
                    "lr": opt.param_groups[0]["lr"],
                }
                append_jsonl(log_path, entry)
                bar.set_postfix(epoch=f"{entry['epoch']:.2f}", loss=f"{entry['loss']:.4f}")
                seen_since, loss_sum, t_mark = 0, 0.0, time.perf_counter()
                save()
            if cfg.max_minutes and time.perf_counter() - start > cfg.max_minutes * 60:
                stopped_early = True
                break
        if stopped_early:
            log.warning("time budget reached, stopping", step=step, max_minutes=cfg.max_minutes)
            break
    bar.close()
    acc_held = accuracy(net, held, device)
    sub = np.random.default_rng(0).choice(
        len(train), size=min(len(train), len(held)), replace=False
    )
    acc_train = accuracy(net, Encoded(x=train.x[sub], mask=train.mask[sub], y=train.y[sub]), device)
    wall = time.perf_counter() - start
    metrics: dict[str, object] = {
        "heldout_accuracy": acc_held,
        "train_accuracy_sample": acc_train,
        "heldout_decisions": len(held),
        "heldout_deals": holdout,
        "train_decisions": len(train),
        "steps": step,
        "epochs": step / steps_per_epoch,
        "wall_s": wall,
        "complete": step >= total,
    }
    meta["metrics"] = metrics
    save()
    save_checkpoint(str(out / "policy.pt"), net, {"meta": meta})
    (out / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    return metrics
