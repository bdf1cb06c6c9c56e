"""Time per call of one ``epbot`` instance, against ``bfg`` on the same positions (issue 43).

The positions are real: every call of the auctions EPBot bids with itself in all four seats on
seeded deals. Each agent then answers every position ``--reps`` times through ``Agent.bid`` (the
seat client's path: view in, call out); the script prints the median time per call of each, their
ratio, and EPBot's illegal calls (each became a pass). Needs EPBot ($BRIDGEBOT_EPBOT); without
it, it says so and exits 0.

    BRIDGEBOT_EPBOT=DIR python benchmarks/bench_epbot.py --boards 100 --card WBridge5-Sayc
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout
from bridgebot.engine.agent import Agent, AgentSpecError, BiddingView, bidding_view
from bridgebot.engine.epbot import EPBotAgent
from bridgebot.laws.boards import dealer_of, vul_of
from bridgebot.laws.calls import auction_over, to_call
from bridgebot.laws.deals import random_deal
from endplay.types import Bid

from bridgebot.agents import make_agent
from bridgebot.options import benchmark_args


def positions(agent: Agent, boards: int, seed: int) -> list[BiddingView]:
    """Every position of ``agent`` bidding ``boards`` seeded deals in all four seats."""
    views = []
    for number in range(1, boards + 1):
        deal, dealer, vul = random_deal(seed, number - 1), dealer_of(number), vul_of(number)
        auction: list[Bid] = []
        while not auction_over(auction):
            view = bidding_view(dealer, vul, deal[to_call(dealer, auction)], auction, number)
            views.append(view)
            auction.append(agent.bid(view))
    return views


def per_call(agent: Agent, views: list[BiddingView], reps: int) -> float:
    """Median over ``reps`` runs of the seconds per call over ``views``."""
    runs = []
    for _ in range(reps):
        start = time.perf_counter()
        for view in views:
            agent.bid(view)
        runs.append((time.perf_counter() - start) / len(views))
    return statistics.median(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--card", default="WBridge5-Sayc", help="EPBot card (default %(default)s)")
    parser.add_argument("--boards", type=int, default=100, help="seeded deals (default 100)")
    parser.add_argument("--seed", type=int, default=1, help="deal stream (default 1)")
    parser.add_argument("--reps", type=int, default=3, help="timed runs per agent (default 3)")
    parser.add_argument("--baseline", default="bfg", help="agent timed alongside (default bfg)")
    args = benchmark_args(parser, "bench_epbot")
    try:
        epbot = make_agent(f"epbot:{args.card}")
    except AgentSpecError as exc:
        print(f"skipped: EPBot is not here ({exc})")
        return 0
    assert isinstance(epbot, EPBotAgent)
    with epbot, make_agent(args.baseline) as baseline:
        views = positions(epbot, args.boards, args.seed)
        ours = per_call(epbot, views, args.reps)
        theirs = per_call(baseline, views, args.reps)
    print(f"{len(views)} positions of {args.boards} boards, median of {args.reps} runs")
    print(f"epbot:{args.card}: {ours * 1e3:.3f} ms per call ({1 / ours:,.0f} calls/s)")
    print(
        f"{args.baseline}: {theirs * 1e3:.3f} ms per call; epbot/{args.baseline} {ours / theirs:.2f}"
    )
    print(f"EPBot illegal calls: {epbot.illegal_calls} of {epbot.calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
