"""``bridgebot train distill``: the search's calls into the policy (expert iteration, one round).

The search is the improvement operator and the policy its apprentice: ``scripts/search_teach.py``
has the search (over the policy) bid one side of each board against EPBot's training cards and
saves its calls (or, with its ``--follow``, the calls it would make at the positions another agent
reaches: the file's ``labels``); this fine-tunes the policy's checkpoint on them. Loss per call of the search's
side (``--target hard``, the default): cross-entropy on the search's call plus ``--beta`` times
KL(start || net), the starting policy frozen as an anchor so that the calls the search never
changed stay where they were. ``soft`` trains on the search's improved policy (its prior with
the searched candidates' share divided as its posterior) where it searched; ``both`` on that
where there is one and the hard loss elsewhere (run 21 in docs/evaluation.md: hard labels gained
+0.08 IMPs/board on every field row, soft ones half that). ``--changed-weight W`` counts the hard
loss W times on the calls the search changed (its call is not the starting policy's best), the
few (4%) that carry what the search adds. ``--grow 4x512`` first grows the starting network to
that shape computing the same calls (:func:`models.net.grown`), so the fine-tune has more room
(run 23: no gain at 4x512); the anchor stays the starting policy.

A tenth of the auctions (``--holdout``) is held out: the log says how often the net's best call
is the search's there, overall and on the calls the search changed, next to the starting
policy's figure. The result is a ``.pt`` that ``bridgebot export`` reads, its record naming the
command, the init's record, the data files (each with the command that remakes it), and every
teacher and opponent down the init's chain. Deterministic for a seed on one thread. torch is
imported inside the functions (the ``train`` extra).
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from bridgebot.core.argtypes import (
    nonnegative_float,
    positive_float,
    positive_int,
    seed_number,
    share,
)

HELP = "fine-tune a policy on the search's calls (expert iteration; scripts/search_teach.py data)"
EXAMPLES = """examples:
  python scripts/search_teach.py --deals data/dd.npz --first 10000 --boards 12000 \\
      --out data/distill_a.npz          # the search's calls against EPBot's training cards
  bridgebot train distill --init runs/field_avg.pt --data data/distill_a.npz --out runs/distill.pt
  bridgebot export --checkpoint runs/distill.pt --deals data/dd_2026b.npz --out models/mine
"""

#: The options recorded in the result's ``config``.
OPTIONS = (
    "init", "out", "epochs", "lr", "batch", "beta", "holdout", "target", "changed_weight", "seed",
    "threads", "grow", "close_bids", "least_gain",
)  # fmt: skip

#: The largest network ``--grow`` makes (issue 43: at most 4x512, a policy call under 1 ms).
MAX_LAYERS, MAX_HIDDEN = 4, 512


def network_shape(text: str) -> tuple[int, int]:
    """The type of ``--grow``: ``LAYERSxHIDDEN`` (``4x512``) as ``(layers, hidden)``, each at
    least 1 and at most 4 layers of 512; raises ArgumentTypeError with one line otherwise."""
    layers, sep, hidden = text.lower().partition("x")
    if not sep or not layers.isdigit() or not hidden.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not LAYERSxHIDDEN (for example 4x512)")
    shape = (int(layers), int(hidden))
    if not (1 <= shape[0] <= MAX_LAYERS and 1 <= shape[1] <= MAX_HIDDEN):
        raise argparse.ArgumentTypeError(
            f"{text}: at most {MAX_LAYERS}x{MAX_HIDDEN} (a policy call stays under 1 ms)"
        )
    return shape


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--init",
        required=True,
        help="the policy to start from: a checkpoint (.pt) or an exported model directory "
        "(its policy.onnx; its model.json's training record becomes the init's)",
    )
    parser.add_argument(
        "--data", action="append", required=True, metavar="NPZ",
        help="a file of scripts/search_teach.py; repeat for several",
    )  # fmt: skip
    parser.add_argument("--out", required=True, help="the checkpoint to write (.pt)")
    parser.add_argument(
        "--epochs", type=positive_float, default=4.0, help="passes over the data (4)"
    )
    parser.add_argument(
        "--lr", type=positive_float, default=1e-4, help="Adam's rate, cosine-decayed (1e-4)"
    )
    parser.add_argument("--batch", type=positive_int, default=512, help="calls per step (512)")
    parser.add_argument(
        "--beta", type=nonnegative_float, default=1.0, help="weight of KL(start || net) (1)"
    )
    parser.add_argument(
        "--holdout", type=share, default=0.1, help="share of auctions held out (0.1)"
    )
    parser.add_argument(
        "--target",
        choices=("hard", "soft", "both"),
        default="hard",
        help="hard: the search's call (+ --beta KL to the start); soft: the search's improved "
        "policy where it searched, the starting policy elsewhere; both: the improved policy where "
        "there is one, the hard loss elsewhere",
    )
    parser.add_argument(
        "--changed-weight",
        type=positive_float,
        default=1.0,
        help="weight of the hard loss on the calls where the search's call is not the starting "
        "policy's best (1: every call alike)",
    )
    parser.add_argument(
        "--close-bids",
        type=share,
        default=None,
        metavar="P",
        help="a change of the search from the start's best bid to another bid with the start's "
        "prior at least P is not learnt (its label becomes the start's call): those close calls "
        "cost the search IMPs (docs/evaluation.md, run 25); default: every change is learnt",
    )
    parser.add_argument(
        "--least-gain",
        type=float,
        default=None,
        metavar="POINTS",
        help="a change of the search whose estimated gain over the start's best call (the "
        "label file's soft_gain) is under POINTS is not learnt (its label becomes the start's "
        "call): the search's small changes win little at the table (docs/evaluation.md, run "
        "30); needs files that keep soft_gain; default: every change is learnt",
    )
    parser.add_argument(
        "--grow",
        type=network_shape,
        metavar="LAYERSxHIDDEN",
        help="first grow the init to this shape (for example 4x512), computing the same calls: "
        "the new units and layers start at zero and the identity (models.net.grown); "
        "at most 4x512",
    )
    parser.add_argument("--seed", type=seed_number, default=0, help="held-out split and order (0)")
    parser.add_argument("--threads", type=positive_int, default=1, help="torch threads (1)")


def _as_run(command: str) -> str:
    """A recorded command as one runs it from a checkout: ``python`` for the interpreter's path
    (files made before the scripts recorded it so)."""
    head, _, rest = command.partition(" ")
    return f"python {rest}" if head.endswith(("python", "python3")) else command


def _load_init(path: str) -> tuple[Any, object]:
    """The starting network and its training record: a checkpoint's ``meta``, or an exported
    model directory's ``policy.onnx`` with its ``model.json`` ``training`` record (the value head
    is not exported and comes back zero; distillation trains the policy head only)."""
    from bridgebot.models.average import record_of
    from bridgebot.models.net import load_checkpoint
    from bridgebot.models.onnx_mlp import policy_from_onnx

    if Path(path).is_dir():
        return policy_from_onnx(path), record_of(path)
    net, blob = load_checkpoint(path)
    return net, blob.get("meta")


def read_labels(path: Path) -> dict[str, Any]:
    """The decisions of one ``scripts/search_teach.py`` file: a row per call of the search's side.

    Returns ``features`` [D, 480] float32 and ``legal`` [D, 38] (the position as bid), ``calls``
    [D] (the label: the search's call; with the script's ``--follow``, the call it was asked for,
    from the file's ``labels``, while the auction went on with the follower's), ``soft`` [D, 38]
    (the search's target, normalised, where it searched and its best call is the label; NaN
    rows elsewhere), ``gain`` [D] (the search's estimated gain of its call over the policy's
    best, the file's ``soft_gain``, where it searched; NaN elsewhere, and everywhere in a file
    made before it kept them), ``has_gain`` (whether the file keeps them), ``auction`` [D] (the
    row of the auction each call is in), ``auctions`` (the file's number of auctions) and
    ``meta`` (the script's record).

    Raises :class:`models.data.DataError` for a file that is not the script's."""
    from bridgebot.models.data import DataError, observe

    with np.load(path, allow_pickle=False) as z:
        if "our_side" not in z.files or "meta" not in z.files:
            raise DataError(f"{path}: not a file of scripts/search_teach.py (no our_side)")
        owners, dealer, vul = z["owners"], z["dealer"].astype(np.int64), z["vul"].astype(np.int64)
        auctions, side = z["auctions"].astype(np.int64), z["our_side"].astype(np.int64)
        labels = z["labels"].astype(np.int64) if "labels" in z.files else auctions
        meta = json.loads(str(z["meta"]))
        searched = (
            (z["soft_row"].astype(np.int64), z["soft_pos"].astype(np.int64), z["soft_target"])
            if "soft_row" in z.files
            else None
        )
        gains = z["soft_gain"].astype(np.float32) if "soft_gain" in z.files else None
    lengths = (auctions >= 0).sum(axis=1)
    deal = np.repeat(np.arange(len(owners)), lengths)
    pos = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    ours = ((dealer[deal] + pos) % 4) % 2 == side[deal]
    deal, pos = deal[ours], pos[ours]
    features, legal = observe(owners[deal], dealer[deal], vul[deal], auctions[deal], pos)
    # The search's target where it searched and its posterior's best call is the call it made
    # (its safety rules can keep the policy's call): NaN rows elsewhere.
    soft = np.full((len(deal), 38), np.nan, np.float32)
    gain = np.full(len(deal), np.nan, np.float32)
    if searched is not None:
        where = {
            (r, q): i for i, (r, q) in enumerate(zip(deal.tolist(), pos.tolist(), strict=True))
        }
        for k, (r, q, target) in enumerate(zip(*searched, strict=True)):
            i = where.get((int(r), int(q)))
            if i is not None and gains is not None:
                gain[i] = gains[k]
            if i is not None and int(np.argmax(target)) == labels[r, q]:
                soft[i] = target.astype(np.float32) / float(target.astype(np.float32).sum())
    return {
        "features": features.astype(np.float32),
        "legal": legal,
        "calls": labels[deal, pos],
        "soft": soft,
        "gain": gain,
        "has_gain": gains is not None,
        "auction": deal,
        "auctions": len(owners),
        "meta": meta,
    }


def distill(args: argparse.Namespace, command: str) -> dict[str, Any]:
    """Fine-tune ``args.init`` on the search's calls in ``args.data`` and write ``args.out``;
    returns the summary (decisions, held-out agreement). Progress goes to stderr, a JSON line
    per epoch.

    Raises :class:`models.data.DataError` for a data file that is not search_teach's,
    ``FileNotFoundError`` for a missing file."""
    import torch
    import torch.nn.functional as F
    from bridgebot.core.files import file_sha256
    from bridgebot.engine.modelcard import DataSet
    from bridgebot.models.average import gathered, resolved
    from bridgebot.models.data import DataError
    from bridgebot.models.net import grown, masked_logits, save_checkpoint

    if Path(args.init).is_dir() and not (Path(args.init) / "policy.onnx").is_file():
        raise FileNotFoundError(f"{args.init}: a directory without policy.onnx (not a model)")
    for path in (args.init, *args.data):
        if not Path(path).exists():
            raise FileNotFoundError(f"{path}: no such file")
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)

    xs: list[np.ndarray] = []
    ms: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    groups: list[np.ndarray] = []
    soft_targets: list[np.ndarray] = []
    gains: list[np.ndarray] = []
    metas: list[dict[str, Any]] = []
    sizes: list[int] = []
    for path in args.data:
        d = read_labels(Path(path))
        xs.append(d["features"])
        ms.append(d["legal"])
        ys.append(d["calls"])
        soft_targets.append(d["soft"])
        gains.append(d["gain"])
        if args.least_gain is not None and not d["has_gain"]:
            raise DataError(
                f"{path}: no soft_gain (made before search_teach kept the search's estimated "
                "gains): --least-gain cannot tell its clear changes; remake it or drop the option"
            )
        metas.append(d["meta"])
        sizes.append(d["auctions"])
        groups.append(d["auction"] + 10**7 * len(groups))  # one id per auction, across files
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

    net, init_meta = _load_init(args.init)
    ref = copy.deepcopy(net).eval()  # the start, frozen: read once, not loaded twice
    if args.grow:  # the anchor stays the start; the net trained is grown
        layers, hidden = args.grow
        net = grown(net, hidden=hidden, layers=layers, seed=args.seed)
    with torch.no_grad():
        ref_logp = torch.cat(
            [
                F.log_softmax(masked_logits(ref(x[i : i + 8192]), m[i : i + 8192]), dim=1)
                for i in range(0, len(y), 8192)
            ]
        )
    best = ref_logp.argmax(dim=1)
    close = torch.zeros_like(y, dtype=torch.bool)
    if args.close_bids is not None:  # bid to bid, both likely under the start: keep the start's
        from bridgebot.engine.search.borel import close_bid_change  # the search's own rule

        prior_y = ref_logp.gather(1, y[:, None].long())[:, 0].exp()
        close = torch.from_numpy(
            close_bid_change(best.numpy(), y.numpy(), prior_y.numpy(), args.close_bids)
        )
        y = torch.where(close, best.to(y.dtype), y)
    small = torch.zeros_like(y, dtype=torch.bool)
    if args.least_gain is not None:  # a change the search itself barely preferred: the start's
        gain = torch.from_numpy(np.concatenate(gains))
        small = (best != y) & (gain < args.least_gain)  # NaN (no estimate) is never small
        y = torch.where(small, best.to(y.dtype), y)
    changed = best != y
    # --changed-weight: each call's weight in the hard loss (None: every call alike, the plain
    # mean, so a command without the option trains the same bytes as before it existed).
    weight = (
        None if args.changed_weight == 1.0 else 1.0 + (args.changed_weight - 1.0) * changed.float()
    )

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
        "close_bid_changes_kept_as_the_start": int(close.sum()),
        "small_changes_kept_as_the_start": int(small.sum()),
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
            kl_rows = (rp.exp() * (rp - logp)).sum(dim=1)
            kl = kl_rows.mean()
            if args.target == "hard":
                if weight is None:
                    ce = F.nll_loss(logp, y[idx])
                else:
                    w = weight[idx]
                    ce = (F.nll_loss(logp, y[idx], reduction="none") * w).sum() / w.sum()
                loss = ce + args.beta * kl
            elif args.target == "soft":  # the search's target where it has one, else the start
                target = torch.where(has_soft[idx, None], soft[idx], rp.exp())
                ce = -(target * logp.clamp_min(-1e4)).sum(dim=1).mean()
                loss = ce
            else:  # both: the search's target where it has one, else its call and the anchor
                with_soft = has_soft[idx]
                soft_ce = -(torch.nan_to_num(soft[idx]) * logp.clamp_min(-1e4)).sum(dim=1)
                hard = F.nll_loss(logp, y[idx], reduction="none") + args.beta * kl_rows
                ce = torch.where(with_soft, soft_ce, hard).mean()
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
    init_rec = resolved(init_meta) if isinstance(init_meta, dict) else {}
    cards = sorted({c for md in metas for c in md["cards"]})
    meta = {
        "kind": "distill",
        "command": command,
        "init": {"path": args.init, **init_rec} if init_rec else args.init,
        "data": [
            DataSet(
                name=p,
                deals=n,
                regenerate=_as_run(md["command"]),
                sha256=file_sha256(Path(p)),
                note=f"search-labelled auctions: {md['spec']} against EPBot's "
                f"{', '.join(md['cards'])} from row {md['first']} of {md['deals']}",
                settings=md.get("settings"),  # None for a file made before it recorded them
            ).model_dump(mode="json")
            for p, md, n in zip(args.data, metas, sizes, strict=True)
        ],
        # Everyone the weights met, down the init's chain: the search and the cards here, the
        # init's teachers and opponents (a test holds every shipped card free of report cards).
        "teachers": list(
            dict.fromkeys(
                [*sorted({md["spec"] for md in metas}), *gathered([init_rec], "teachers")]
            )
        ),
        "opponents": list(
            dict.fromkeys([*(f"epbot:{c}" for c in cards), *gathered([init_rec], "opponents")])
        ),
        "seed": args.seed,
        "config": {
            **{k: getattr(args, k) for k in OPTIONS},
            "grow": "x".join(map(str, args.grow)) if args.grow else None,  # as the flag spells it
        },
        "report": report,
    }
    save_checkpoint(args.out, net, {"meta": meta})
    return {"out": args.out, "kind": "distill", **report}


def run(args: argparse.Namespace, command: str) -> int:
    """``bridgebot train distill``: :func:`distill`, then its summary as JSON on stdout."""
    print(json.dumps(distill(args, command), indent=2))
    return 0
