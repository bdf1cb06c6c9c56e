"""Distil the search into the policy (expert iteration, experiment): fine-tune a policy checkpoint
on the search's calls of ``scripts/search_teach.py`` files.

Loss per decision of the search's side: cross-entropy on the search's call plus ``--beta`` times
KL(init || net), the starting policy frozen as an anchor so the calls the search never saw stay
where they were. The last ``--holdout`` share of auctions is held out: the log reports how often
the net's best call is the search's there, next to the starting policy's figure (their difference
is what the distillation learned that generalises). Writes a ``.pt`` that ``bridgebot export``
reads, with a record (command, init, data, teachers, opponents) like the trainers'.

    python scripts/distill_train.py --init data/runs/imfield1_avg9_19.pt \\
        --data data/distill/st_a.npz --out data/runs/distill1.pt
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import argparse
import json
import math
import shlex
import time

import numpy as np


def main(argv: list[str] | None = None) -> int:
    import torch
    import torch.nn.functional as F
    from bridgebot.engine.modelcard import DataSet
    from bridgebot.models.average import resolved
    from bridgebot.models.data import observe
    from bridgebot.models.net import load_checkpoint, masked_logits, save_checkpoint
    from bridgebot.models.provenance import file_sha256

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--init", required=True, help="the policy checkpoint (.pt) to start from")
    ap.add_argument("--data", action="append", required=True, help="a search_teach .npz")
    ap.add_argument("--out", required=True, help="the checkpoint to write (.pt)")
    ap.add_argument("--epochs", type=float, default=4.0)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--beta", type=float, default=1.0, help="weight of KL(init || net)")
    ap.add_argument("--holdout", type=float, default=0.1)
    ap.add_argument(
        "--target",
        choices=("hard", "soft"),
        default="hard",
        help="hard: the search's call (+ --beta KL to the start); soft: the search's improved "
        "policy where it searched (files with soft_*), the starting policy elsewhere",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)

    xs, ms, ys, groups, soft_targets = [], [], [], [], []
    metas, sizes = [], []
    for path in args.data:
        with np.load(path, allow_pickle=False) as z:
            owners, dealer, vul = (
                z["owners"],
                z["dealer"].astype(np.int64),
                z["vul"].astype(np.int64),
            )
            auctions, side = z["auctions"].astype(np.int64), z["our_side"].astype(np.int64)
            metas.append(json.loads(str(z["meta"])))
            sizes.append(len(z["owners"]))
            searched = (
                (z["soft_row"].astype(np.int64), z["soft_pos"].astype(np.int64), z["soft_target"])
                if "soft_row" in z.files
                else None
            )
        lengths = (auctions >= 0).sum(axis=1)
        deal = np.repeat(np.arange(len(owners)), lengths)
        pos = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        ours = ((dealer[deal] + pos) % 4) % 2 == side[deal]
        deal, pos = deal[ours], pos[ours]
        x, m = observe(owners[deal], dealer[deal], vul[deal], auctions[deal], pos)
        xs.append(x.astype(np.float32))
        ms.append(m)
        ys.append(auctions[deal, pos])
        # The search's target where it searched and its posterior's best call is the call it
        # made (its safety rules can keep the policy's call): NaN rows elsewhere.
        t = np.full((len(deal), 38), np.nan, np.float32)
        if searched is not None:
            where = {
                (r, q): i for i, (r, q) in enumerate(zip(deal.tolist(), pos.tolist(), strict=True))
            }
            for r, q, target in zip(*searched, strict=True):
                i = where.get((int(r), int(q)))
                if i is not None and int(np.argmax(target)) == auctions[r, q]:
                    t[i] = target.astype(np.float32) / float(target.astype(np.float32).sum())
        soft_targets.append(t)
        groups.append(deal + 10**7 * len(groups))  # one id per auction, across files
    x = torch.from_numpy(np.concatenate(xs))
    m = torch.from_numpy(np.concatenate(ms))
    y = torch.from_numpy(np.concatenate(ys))
    group = np.concatenate(groups)
    soft = torch.from_numpy(np.concatenate(soft_targets))
    has_soft = ~torch.isnan(soft[:, 0])
    uniq = np.unique(group)
    held_groups = np.random.default_rng(args.seed).choice(
        uniq, int(len(uniq) * args.holdout), replace=False
    )
    held = np.isin(group, held_groups)
    tr, ho = np.flatnonzero(~held), np.flatnonzero(held)

    net, blob = load_checkpoint(args.init)
    ref, _ = load_checkpoint(args.init)
    ref.eval()
    with torch.no_grad():
        ref_logp = torch.cat(
            [
                F.log_softmax(masked_logits(ref(x[i : i + 8192]), m[i : i + 8192]), dim=1)
                for i in range(0, len(y), 8192)
            ]
        )
    changed = ref_logp.argmax(dim=1) != y

    def acc(idx: np.ndarray) -> float:
        net.eval()
        with torch.no_grad():
            hit = sum(
                int(
                    (
                        masked_logits(net(x[idx[i : i + 8192]]), m[idx[i : i + 8192]]).argmax(1)
                        == y[idx[i : i + 8192]]
                    ).sum()
                )
                for i in range(0, len(idx), 8192)
            )
        net.train()
        return hit / max(len(idx), 1)

    ho_t = torch.from_numpy(ho)
    report: dict[str, object] = {
        "decisions": len(y),
        "training": len(tr),
        "held_out": len(ho),
        "search_changed_share": round(float(changed.float().mean()), 4),
        "held_out_changed": int(changed[ho_t].sum()),
        "soft_targets": int(has_soft.sum()),
        "init_agreement_held_out": round(acc(ho), 4),
    }
    print(json.dumps(report), file=sys.stderr, flush=True)
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    steps_per_epoch = math.ceil(len(tr) / args.batch)
    total = max(1, int(args.epochs * steps_per_epoch))
    rng = np.random.default_rng(args.seed)
    step, t0 = 0, time.perf_counter()
    net.train()
    while step < total:
        perm = tr[rng.permutation(len(tr))]
        for s in range(steps_per_epoch):
            if step >= total:
                break
            idx = torch.from_numpy(perm[s * args.batch : (s + 1) * args.batch])
            for g in opt.param_groups:
                g["lr"] = args.lr * 0.5 * (1 + math.cos(math.pi * step / total))
            logp = F.log_softmax(masked_logits(net(x[idx]), m[idx]), dim=1)
            rp = ref_logp[idx]
            kl = (rp.exp() * (rp - logp)).sum(dim=1).mean()
            if args.target == "hard":
                ce = F.nll_loss(logp, y[idx])
                loss = ce + args.beta * kl
            else:  # soft: the search's target where it has one, the starting policy elsewhere
                target = torch.where(has_soft[idx, None], soft[idx], rp.exp())
                ce = -(target * logp.clamp_min(-1e4)).sum(dim=1).mean()
                loss = ce
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
        print(
            json.dumps(
                {
                    "step": step,
                    "epoch": round(step / steps_per_epoch, 2),
                    "ce": round(float(ce.detach()), 4),
                    "kl": round(float(kl.detach()), 4),
                    "agreement_held_out": round(acc(ho), 4),
                    "agreement_held_out_changed": round(acc(ho[changed[ho_t].numpy()]), 4),
                    "seconds": round(time.perf_counter() - t0),
                }
            ),
            file=sys.stderr,
            flush=True,
        )
    init_meta = blob.get("meta")
    cards = sorted({c for md in metas for c in md["cards"]})
    meta = {
        "kind": "distill",
        "command": shlex.join([sys.executable, *sys.argv]),
        "init": {"path": args.init, **resolved(init_meta)}
        if isinstance(init_meta, dict)
        else args.init,
        "data": [
            DataSet(
                name=p,
                deals=n,
                regenerate=md["command"],
                sha256=file_sha256(Path(p)),
                note=f"search-labelled auctions (scripts/search_teach.py): {json.dumps(md)}",
            ).model_dump(mode="json")
            for p, md, n in zip(args.data, metas, sizes, strict=True)
        ],
        "teachers": sorted({md["spec"] for md in metas}),
        "opponents": [f"epbot:{c}" for c in cards],
        "seed": args.seed,
        "config": {k: v for k, v in vars(args).items() if k not in ("data",)},
        "report": report,
    }
    save_checkpoint(args.out, net, {"meta": meta})
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
