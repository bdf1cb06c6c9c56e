"""What the slam decision needs to know: the slam estimator's precision with more of partner's hand.

The slam layer (``engine/slams.py``) decides at the calls that leave our side in a contract at the
three level or higher (``engine.search.slam_zone``), from the policy's observation alone; its slams make about 60% of the time,
and issue 24 asks for 75% at 30% of the slam chances. This benchmark asks whether the limit is
the estimator or the auction. It trains the layer's estimator (the 480-256-256-15 net of
``bridgebot train slamnet``, on the policy's own self-play auctions) once on the observation
alone, the baseline, and once for each row with some fact of partner's hand appended, as if the
auction had told it (``--rows``):

- ``hcp``: partner's high-card points; ``hcp3``, ``hcp5``: the same in bands of 3 or 5 points;
- ``controls``: partner's controls (ace 2, king 1); ``controls4``: the same in the four steps one
  answer to an asking bid could show (0-3, 4-5, 6-7, 8 or more); ``csteps``: in the seven steps
  of control asking's answer (0-1, 2, ..., 6, 7 or more; ``engine.control_ask``); ``aces``: partner's
  aces, what Blackwood shows;
- ``shape``: partner's four suit lengths;
- ``estimate``: partner's own slam estimate (the policy's slam estimator, ``slam/``, on partner's
  observation at its last call: the chance of 12+ tricks per strain), what a partner could
  tell of its hand as it judges it; ``estimate7``: its best strain's chance in seven bands (cut
  at 0.05, 0.1, 0.2, 0.3, 0.45, 0.6), what one seven-step answer to an ask could carry.

On the evaluation deals (``--deals``: every call of the policy's self-play auctions that leaves
our side at the three level or higher; a *slam* where our side takes 12+ tricks DD in some strain,
played by whoever of our side would declare it), it ranks the decision points by the
estimator's best chance of 12 tricks and prints, per row, the precision (the share that are
slams, with its standard error) among the top-ranked points at a recall of 20-50% of the slams,
and the recall reached at 75% precision, and the AUC (the chance that a slam ranks above a
non-slam), which unlike the precision does not depend on how many of the points are slams. A row that is no better than the baseline is a fact the
auction need not carry; the gap between the baseline and a row is what the policy's bidding
would have to tell partner before the slam layer could bid slams that make.

    python benchmarks/bench_slam_information.py --train-deals data/dd_2026.npz \\
        --deals data/val_9001.npz --rows "hcp;controls;hcp3+controls;hcp+controls+shape"
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script from anywhere

import argparse
import json
import math
import time
from typing import Any

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray
from bridgebot.engine.explain import hcp, suit_lengths
from bridgebot.engine.policy import Policy
from bridgebot.engine.search import slam_zone
from bridgebot.engine.slams import SlamEstimator, estimator_dir, slam_probs
from bridgebot.models.data import DataError
from bridgebot.models.slamnet_data import self_play_calls, slam_rich
from bridgebot.models.slamnet_fit import fit

from bridgebot.options import benchmark_args, deal_file
from bridgebot.shipped import shipped_model

#: Controls of each card index (laws.cards: suit * 13, ace first): ace 2, king 1.
CONTROLS = np.tile(np.array([2, 1] + [0] * 11, dtype=np.int64), 4)
#: Aces of each card index.
ACES = np.tile(np.array([1] + [0] * 12, dtype=np.int64), 4)

#: Each fact of partner's hand a row may add, as features (scaled to about 0..1).
FACTS = (
    "hcp", "hcp3", "hcp5", "controls", "controls4", "csteps", "aces", "shape",
    "estimate", "estimate7",
)  # fmt: skip
#: The facts that need the policy's slam estimator.
ESTIMATES = ("estimate", "estimate7")
#: Where ``estimate7`` cuts partner's best chance of 12+ tricks.
ESTIMATE_BANDS = (0.05, 0.1, 0.2, 0.3, 0.45, 0.6)


def states(
    policy: Policy,
    owners: npt.NDArray[np.uint8],
    dd: npt.NDArray[np.uint8],
    seed: int,
    auctions: int = 1,
    weights: npt.NDArray[np.float64] | None = None,
    estimator: SlamEstimator | None = None,
) -> dict[str, Any]:
    """Every call of the policy's self-play auctions (``models.slamnet_data.self_play_calls``, as the
    estimator is trained, ``auctions`` per deal): observation, trick classes, partner's facts,
    whether it is a decision point of the slam layer, and its deal's weight (default 1). The
    ``estimate`` facts need the slam ``estimator`` (zeros without it)."""
    xs, ys, zones, ws = [], [], [], []
    facts: dict[str, list[FloatArray]] = {f: [] for f in FACTS}
    rng = np.random.default_rng(seed)
    # Each position's estimates, by position, for the auctions of the current batch: partner's
    # last call was two positions back, on a superset of the same deals (both sorted).
    earlier: dict[int, tuple[npt.NDArray[np.int64], FloatArray]] = {}
    for c in self_play_calls(policy, owners, dd, rng, auctions=auctions):
        if c.pos == 0:
            earlier = {}
        estimate = np.zeros((len(c.deal), 5), dtype=np.float32)
        if estimator is not None:
            earlier[c.pos] = (c.deal, slam_probs(estimator.logits(c.x.astype(np.float32)))[0])
            if c.pos >= 2:
                deals, chances = earlier.pop(c.pos - 2)
                estimate = chances[np.searchsorted(deals, c.deal)]
        facts["estimate"].append(estimate)
        facts["estimate7"].append(
            (np.digitize(estimate.max(axis=1), ESTIMATE_BANDS) / len(ESTIMATE_BANDS))[:, None]
        )
        ws.append(np.ones(len(c.deal)) if weights is None else weights[c.deal])
        partner = c.owners == ((c.seat + 2) % 4)[:, None]
        points, controls = hcp(partner), partner.astype(np.int64) @ CONTROLS
        facts["hcp"].append(points[:, None] / 10)
        facts["hcp3"].append((points // 3)[:, None] / 4)
        facts["hcp5"].append((points // 5)[:, None] / 3)
        facts["controls"].append(controls[:, None] / 6)
        facts["controls4"].append(np.digitize(controls, [4, 6, 8])[:, None] / 3)
        facts["csteps"].append(np.clip(controls, 1, 7)[:, None] / 6)
        facts["aces"].append((partner.astype(np.int64) @ ACES)[:, None] / 4)
        facts["shape"].append(suit_lengths(partner) / 6)
        xs.append(c.x.astype(np.uint8))
        ys.append(c.classes)
        zones.append(
            np.array(
                [
                    slam_zone(a[: c.pos], int(s), int(dealer), int(a[c.pos]))
                    for a, s, dealer in zip(c.auctions, c.seat, c.dealer, strict=True)
                ]
            )
        )
    out: dict[str, Any] = {f: np.concatenate(v) for f, v in facts.items()}
    out.update(
        x=np.concatenate(xs), y=np.concatenate(ys), zone=np.concatenate(zones), w=np.concatenate(ws)
    )
    return out


def inputs(data: dict[str, Any], facts: list[str]) -> FloatArray:
    """The observation with the row's facts appended."""
    parts = [data["x"], *(data[f] for f in facts)]
    return np.concatenate([p.astype(np.float32) for p in parts], axis=1)


def chance12(net: Any, x: FloatArray) -> FloatArray:
    """The estimator's best chance over the strains of 12+ tricks, per row."""
    import torch

    with torch.no_grad():
        p = net(torch.from_numpy(x)).reshape(-1, 5, 3).softmax(-1).numpy()
    best: FloatArray = (p[:, :, 1] + p[:, :, 2]).max(axis=1)
    return best


def ranking(chance: FloatArray, slam: npt.NDArray[np.bool_]) -> dict[str, Any]:
    """Precision (with its standard error) at recalls of 20-50%, and the recall at 75%."""
    order = np.argsort(-chance, kind="stable")
    hits = np.cumsum(slam[order])
    taken = np.arange(1, len(order) + 1)
    recall, precision = hits / max(int(slam.sum()), 1), hits / taken
    out: dict[str, Any] = {}
    for r in (0.2, 0.3, 0.4, 0.5):
        k = min(int(np.searchsorted(recall, r)), len(order) - 1)
        p = float(precision[k])
        out[f"precision_at_{r}"] = p
        out[f"precision_at_{r}_se"] = math.sqrt(p * (1 - p) / (k + 1))
    ok = np.flatnonzero((precision >= 0.75) & (taken >= 10))
    out["recall_at_0.75"] = float(recall[ok.max()]) if ok.size else 0.0
    # The chance that a slam ranks above a non-slam (ties count half): unlike the precisions,
    # it does not move with the share of slams, so policies with other auctions compare.
    ranks = np.empty(len(chance))
    ranks[np.argsort(chance, kind="stable")] = np.arange(1, len(chance) + 1)
    for value in np.unique(chance):  # mid-ranks for ties
        tied = chance == value
        ranks[tied] = ranks[tied].mean()
    n_pos, n_neg = int(slam.sum()), int((~slam).sum())
    out["auc"] = (
        float((ranks[slam].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
        if n_pos and n_neg
        else float("nan")
    )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--model", default=str(shipped_model("default")), help="the policy's directory")
    ap.add_argument(
        "--train-deals", action="append", required=True, help="DD deal file(s) to train on"
    )
    ap.add_argument("--train-boards", type=int, default=None, help="at most N training deals")
    ap.add_argument("--deals", required=True, help="DD deal file to evaluate on (validation)")
    ap.add_argument("--boards", type=int, default=None, help="at most N evaluation deals")
    ap.add_argument(
        "--rows",
        default="hcp;controls;hcp3;hcp5;hcp+controls;hcp3+controls;hcp+controls+shape",
        help=f"';'-separated rows, each '+'-separated facts of {', '.join(FACTS)}",
    )
    ap.add_argument("--epochs", type=int, default=3, help="training passes (default 3)")
    ap.add_argument(
        "--auctions",
        type=int,
        default=4,
        help="auctions per training deal, the dealer moving round (as 'train slamnet'; default 4)",
    )
    ap.add_argument(
        "--slam-deals",
        dest="slam_dd",
        action="append",
        default=[],
        help="slam-rich DD deal file added to the training deals, weighted as 'train slamnet "
        "--slam-deals' weighs it",
    )
    ap.add_argument("--seed", type=int, default=0, help="deals' dealers, training (default 0)")
    ap.add_argument("--json", default=None, help="also write every figure here")
    args = benchmark_args(ap, "bench_slam_information")
    rows = [[f for f in r.split("+") if f] for r in args.rows.split(";") if r.strip()]
    for facts in rows:
        for f in facts:
            if f not in FACTS:
                sys.exit(f"--rows: unknown fact {f!r} (one of {', '.join(FACTS)})")
    t0 = time.perf_counter()
    policy = Policy(args.model)
    files = [np.load(deal_file(f)) for f in args.train_deals]
    owners = np.concatenate([z["owners"] for z in files])[: args.train_boards]
    dd = np.concatenate([z["dd"] for z in files])[: args.train_boards]
    if args.auctions < 1:
        sys.exit("--auctions: at least 1")
    if args.slam_dd:
        try:
            rich = slam_rich(owners, dd, args.slam_dd)
        except (ValueError, DataError) as e:
            sys.exit(str(e))
        owners, dd = np.concatenate([owners, rich.owners]), np.concatenate([dd, rich.dd])
        weights = np.concatenate([rich.uniform_weights, rich.weights])
    else:
        weights = None
    estimator = None
    if any(f in ESTIMATES for facts in rows for f in facts):
        found = estimator_dir(args.model)
        if found is None:
            sys.exit(f"--rows: the estimate facts need a slam estimator in {args.model}/slam")
        estimator = SlamEstimator(found)
    train = states(policy, owners, dd, args.seed, args.auctions, weights, estimator)
    with np.load(deal_file(args.deals)) as z:
        test = states(
            policy, z["owners"][: args.boards], z["dd"][: args.boards], args.seed + 1,
            estimator=estimator,
        )  # fmt: skip
    zone = test["zone"]
    slam = (test["y"][zone] >= 1).any(axis=1)
    print(
        f"training: {len(owners)} deals, {len(train['x'])} calls; evaluation: {args.deals}, "
        f"{int(zone.sum())} decision points, {int(slam.sum())} of them slams "
        f"({time.perf_counter() - t0:.0f} s)",
        file=sys.stderr,
    )
    results = []
    print(
        f"{'partner facts known':28} "
        + " ".join(f"{f'precision at {int(r * 100)}%':>17}" for r in (0.2, 0.3, 0.4, 0.5))
        + "  recall at 75%    AUC"
    )
    for facts in [[], *rows]:
        net = fit(
            inputs(train, facts), train["y"], (256, 256), args.epochs, 1e-3, args.seed,
            weights=None if weights is None else train["w"],
        )  # fmt: skip
        figures = ranking(chance12(net, inputs(test, facts)[zone]), slam)
        name = "+".join(facts) or "none (the auction alone)"
        results.append({"facts": facts, **figures})
        cells = " ".join(
            f"{figures[f'precision_at_{r}']:>10.2f} ({figures[f'precision_at_{r}_se']:.2f})"
            for r in (0.2, 0.3, 0.4, 0.5)
        )
        print(
            f"{name:28} {cells} {figures['recall_at_0.75']:>14.2f} {figures['auc']:>6.3f}",
            flush=True,
        )
    print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    if args.json:
        summary = {
            "model": args.model,
            "train_deals": args.train_deals,
            "slam_dd": args.slam_dd,
            "auctions": args.auctions,
            "deals": args.deals,
            "decision_points": int(zone.sum()),
            "slams": int(slam.sum()),
            "rows": results,
        }
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
