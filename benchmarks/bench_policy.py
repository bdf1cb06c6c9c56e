"""Policy latency through onnxruntime: batch 1 (the seat client's case), batch 256 (evaluation)
and the particle filter's case (``--particles`` hands at each of 8 positions).

States are real: positions met while the model itself bids deals of a DD file. Prints median and
p99 per call, and ratios against baselines measured in the same run (per-state cost at batch 1;
the bare session call under the full ``PolicyAgent.bid`` path; ``Policy.tiled_logits``, the
first layer split into hand and auction parts, against the plain graph on the full observations).

    python benchmarks/bench_policy.py --model models/default --deals data/dd.npz
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from bridgebot.options import benchmark_args, deal_file
from bridgebot.shipped import shipped_model

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.cardplay import BaselinePlayer
from bridgebot.engine.features import tile_hands
from bridgebot.engine.policy import Policy, PolicyAgent
from bridgebot.laws.boards import dealer_vul_arrays
from bridgebot.laws.calls import ALL_CALLS, legal_calls
from bridgebot.laws.cards import owners_pbn
from bridgebot.models.data import load_dd, run_auctions
from endplay.types import Player, Vul


def collect_states(
    policy: Policy, dd_path: str, deals: int
) -> tuple[np.ndarray, list[BiddingView]]:
    """Features of every position the model meets bidding ``deals`` deals, and matching views."""
    from endplay.types import Deal

    data = load_dd(dd_path)
    idx = np.arange(deals)
    dealer, vul = dealer_vul_arrays(idx + 1)
    xs: list[np.ndarray] = []

    def choose(rows: np.ndarray, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        xs.append(x)
        return policy.choose(x, mask)

    auctions = run_auctions(data.owners[idx], dealer, vul, np.zeros((deals, 4), int), [choose])
    views = []
    for i in range(min(deals, 200)):
        deal = Deal(owners_pbn(data.owners[i]))
        calls = tuple(ALL_CALLS[c] for c in auctions[i] if c >= 0)
        d, v = Player(int(dealer[i])), Vul(int(vul[i]))
        for k in range(len(calls)):
            seat = Player((d.value + k) % 4)
            views.append(
                BiddingView(seat, d, v, deal[seat], calls[:k], i + 1, legal_calls(d, calls[:k]))
            )
    return np.concatenate(xs), views


def timings(fn, reps: int) -> np.ndarray:  # type: ignore[no-untyped-def]
    out = np.empty(reps)
    for r in range(reps):
        t = time.perf_counter()
        fn(r)
        out[r] = time.perf_counter() - t
    return out


def summary(t: np.ndarray) -> dict[str, float]:
    return {"median_us": float(np.median(t) * 1e6), "p99_us": float(np.quantile(t, 0.99) * 1e6)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--model", default=str(shipped_model("default")))
    ap.add_argument("--deals", default="data/dd.npz", help="DD deal file (default %(default)s)")
    ap.add_argument(
        "--boards", type=int, default=600, help="deals the model bids for states (default 600)"
    )
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument(
        "--particles", type=int, default=2048, help="hands per position, filter case (2048)"
    )
    ap.add_argument("--json", default=None, help="also write the figures here")
    args = benchmark_args(ap, "bench_policy")
    deal_file(args.deals)
    policy = Policy(args.model, threads=args.threads)
    x, views = collect_states(policy, args.deals, args.boards)
    n = len(x)
    rng = np.random.default_rng(0)
    order = rng.integers(0, n, size=(args.reps,))
    for r in range(min(50, args.reps)):  # warm-up
        policy.logits(x[order[r] : order[r] + 1])
    b1 = timings(lambda r: policy.logits(x[order[r] : order[r] + 1]), args.reps)
    # Batches of 256 states (all of them when fewer: the CI smoke run's tiny sizes).
    starts = rng.integers(0, max(n - 256, 1), size=(max(args.reps // 10, 50),))
    b256 = timings(lambda r: policy.logits(x[starts[r] : starts[r] + 256]), len(starts))
    agent = PolicyAgent(policy, BaselinePlayer())
    vorder = rng.integers(0, len(views), size=(min(args.reps, 1000),))
    full = timings(lambda r: agent.bid(views[vorder[r]]), len(vorder))
    # The particle filter's case: many hands at a few positions (8 real ones, hand blocks zero).
    base = x[rng.integers(0, n, size=8)].copy()
    hands = np.zeros((args.particles, 8, 52), np.uint8)
    cards = rng.random((args.particles, 8, 52)).argsort(axis=2)[:, :, :13]
    np.put_along_axis(hands, cards, 1, axis=2)
    tiled_reps = max(min(args.reps // 100, 30), 3)
    policy.tiled_logits(base, hands)  # warm-up: builds the split graph
    split = timings(lambda r: policy.tiled_logits(base, hands), tiled_reps)
    plain = timings(lambda r: policy.logits(tile_hands(base, hands)), tiled_reps)
    res = {
        "model": args.model,
        "threads": args.threads,
        "states": n,
        "batch1_session": summary(b1),
        "batch256_session": summary(b256),
        "batch256_per_state_us": float(np.median(b256) / 256 * 1e6),
        "agent_bid_batch1": summary(full),
        "ratio_per_state_batch1_over_batch256": float(np.median(b1) / (np.median(b256) / 256)),
        "ratio_agent_bid_over_session": float(np.median(full) / np.median(b1)),
        "filter_rows": int(args.particles * 8),
        "filter_split_graph": policy._split is not False,
        "filter_tiled_ms": float(np.median(split) * 1e3),
        "filter_plain_ms": float(np.median(plain) * 1e3),
        "ratio_filter_plain_over_tiled": float(np.median(plain) / np.median(split)),
    }
    print(f"policy latency ({args.model}, {args.threads} thread(s), {n} real states)")
    print(
        f"  batch 1   session.run   median {res['batch1_session']['median_us']:8.1f} us  "
        f"p99 {res['batch1_session']['p99_us']:8.1f} us"
    )
    print(
        f"  batch 256 session.run   median {res['batch256_session']['median_us']:8.1f} us  "
        f"p99 {res['batch256_session']['p99_us']:8.1f} us  "
        f"({res['batch256_per_state_us']:.2f} us/state)"
    )
    print(
        f"  agent.bid (encode+run)  median {res['agent_bid_batch1']['median_us']:8.1f} us  "
        f"p99 {res['agent_bid_batch1']['p99_us']:8.1f} us"
    )
    print(
        f"  ratio: per-state cost batch 1 / batch 256 = "
        f"{res['ratio_per_state_batch1_over_batch256']:.1f}x"
    )
    print(f"  ratio: agent.bid / bare session call = {res['ratio_agent_bid_over_session']:.2f}x")
    print(
        f"  filter case ({res['filter_rows']} rows, 8 positions): tiled_logits median "
        f"{res['filter_tiled_ms']:.1f} ms (split graph: {res['filter_split_graph']}), plain graph "
        f"on the full observations {res['filter_plain_ms']:.1f} ms; "
        f"ratio plain / tiled = {res['ratio_filter_plain_over_tiled']:.2f}x"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(res, indent=2) + "\n")


if __name__ == "__main__":
    main()
