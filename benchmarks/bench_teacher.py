"""Cost of the data pipeline's parts, each as a ratio against a baseline timed in the same run.

* bfg (``engine.bfg.BfgAgent.bid``) per call, against the random agent's ``bid`` on the same
  views: what the teacher costs over a bidder that does no thinking.
* teacher deals per second and CPU (``models.teach.teach_chunk``, one process).
* the batch feature encoder (``encode_arrays``) per state, against the scalar ``encode``.
* double-dummy tables: ``calc_all_tables`` in batches (what ``ddgen`` does, one DDS thread)
  against ``calc_dd_table`` per deal.

The views are the decision points of bfg's own auctions on random deals (seed 99).

Usage: ``python benchmarks/bench_teacher.py [--boards 200] [--solver-boards 32]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from endplay.types import Hand, Player

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridgebot.engine.agent import BiddingView
from bridgebot.engine.bfg import BfgAgent
from bridgebot.engine.dds import dd_tables
from bridgebot.engine.features import encode, encode_arrays, hand_to_array, vul_flags
from bridgebot.engine.random_agent import RandomAgent
from bridgebot.laws.boards import dealer_of, vul_of
from bridgebot.laws.calls import ALL_CALLS, legal_calls
from bridgebot.laws.cards import owners_pbn as pbn
from bridgebot.laws.deals import random_owners
from bridgebot.models.teach import teach_chunk
from bridgebot.models.teach_epbot import BFG

from bridgebot.options import benchmark_args


def per_item(fn: object, items: list[object], repeats: int = 3) -> float:
    """Best-of-``repeats`` seconds per item of calling ``fn(item)`` over ``items``."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        for item in items:
            fn(item)  # type: ignore[operator]
        best = min(best, (time.perf_counter() - t) / len(items))
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=200, help="random deals bid by bfg (default 200)")
    ap.add_argument(
        "--solver-boards", type=int, default=32, help="deals for the DD comparison (default 32)"
    )
    args = benchmark_args(ap, "bench_teacher")

    t = time.perf_counter()
    cpu = time.process_time()
    chunk = teach_chunk((99, 0, args.boards, None, (BFG,)))
    wall, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(
        f"teacher: {args.boards / wall:.1f} deals/s wall, {args.boards / cpu:.1f} deals/s per CPU"
    )

    views: list[BiddingView] = []
    for k, auction in enumerate(chunk.auctions):
        dealer, vul = dealer_of(k + 1), vul_of(k + 1)
        for i in range(len(auction)):
            seat = Player((dealer.value + i) % 4)
            hand = Hand(pbn(chunk.owners[k]).split(":")[1].split()[seat.value])
            calls = tuple(ALL_CALLS[c] for c in auction[:i])
            views.append(
                BiddingView(seat, dealer, vul, hand, calls, k + 1, legal_calls(dealer, calls))
            )
    bfg, rnd = BfgAgent(), RandomAgent(seed=1)
    c = time.process_time()
    t_bfg = per_item(bfg.bid, views)  # type: ignore[arg-type]
    c_bfg = (time.process_time() - c) / (3 * len(views))
    t_rnd = per_item(rnd.bid, views)  # type: ignore[arg-type]
    print(
        f"bfg bid: {1e3 * t_bfg:.3f} ms/call (best of 3, wall; mean CPU {1e3 * c_bfg:.3f} ms) "
        f"over {len(views)} calls; random agent "
        f"{1e3 * t_rnd:.3f} ms/call; ratio {t_bfg / t_rnd:.1f}x; "
        f"errors {bfg.stats.errors}, illegal answers {bfg.stats.fallbacks}"
    )

    t_enc = per_item(encode, views)  # type: ignore[arg-type]
    length = max(len(v.auction) for v in views)
    auctions = np.full((len(views), max(length, 1)), -1, dtype=np.int16)
    for i, v in enumerate(views):
        auctions[i, : len(v.auction)] = [ALL_CALLS.index(c) for c in v.auction]
    hands = np.stack([hand_to_array(v.hand) for v in views])
    seats = np.array([v.seat.value for v in views])
    rel = np.array([(v.seat.value - v.dealer.value) % 4 for v in views])
    vul_us, vul_them = vul_flags(np.array([v.vul.value for v in views]), seats)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        encode_arrays(hands, rel, vul_us, vul_them, auctions)
        times.append((time.perf_counter() - t) / len(views))
    t_batch = min(times)
    print(
        f"features: encode {1e6 * t_enc:.1f} us/state, encode_arrays {1e6 * t_batch:.2f} "
        f"us/state (batch {len(views)}); ratio {t_enc / t_batch:.0f}x"
    )

    from bridgebot.engine.dds import one_solver_thread
    from endplay.dds import calc_dd_table  # measured against the batch call of engine.dds
    from endplay.types import Deal

    one_solver_thread()
    owners = np.stack([random_owners(98, k) for k in range(args.solver_boards)])
    t, c = time.perf_counter(), time.process_time()
    for row in owners:
        calc_dd_table(Deal(pbn(row)))
    t_single = (time.perf_counter() - t) / args.solver_boards
    c_single = (time.process_time() - c) / args.solver_boards
    t, c = time.perf_counter(), time.process_time()
    dd_tables(owners)
    t_all = (time.perf_counter() - t) / args.solver_boards
    c_all = (time.process_time() - c) / args.solver_boards
    print(
        f"dd tables (1 DDS thread): calc_dd_table {t_single:.3f} s/deal wall, {c_single:.3f} CPU; "
        f"calc_all_tables batch {t_all:.3f} s/deal wall, {c_all:.3f} CPU; "
        f"ratio (CPU) {c_single / c_all:.2f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
