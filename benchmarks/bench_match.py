"""Boards per second of a duplicate match, against a baseline measured in the same run.

All figures come from ``tournament.match.run_match`` on the same deals (a DD npz file, so no solver
time), with the same two agent specs (random against random by default):

* ``inprocess``: bidding only, double-dummy scored, one process: the baseline.
* ``inprocess x2``: the same with two worker processes (board streams).
* ``tcp rooms``: every board in two real table managers with four seat clients each over TCP on
  127.0.0.1, cards played and then ignored (``--scoring dd``), as ``--rooms tcp`` runs it.
* ``batch`` (only when ``--us`` names a ``BatchBidder``, e.g. ``policy:DIR``): the
  in-process match with that agent's batch path switched off, to show what batching buys.

Printed as boards/s and as ratios to the baseline, so a change can be judged on any machine.
Usage: ``python benchmarks/bench_match.py [--deals data/dd.npz] [--boards 256]``.
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridgebot.engine.agent import BatchBidder
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.match import run_match

from bridgebot.agents import make_agent
from bridgebot.options import deal_file


def boards_per_second(**kwargs: object) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        cfg = MatchConfig(make_agent=make_agent, out=Path(tmp), **kwargs)  # type: ignore[arg-type]
        start = time.perf_counter()
        run_match(cfg, progress=lambda b: None)
        return cfg.boards / (time.perf_counter() - start)


def main() -> None:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--deals", type=Path, default=Path("data/dd.npz"),
                   help="DD deal file (default %(default)s)")  # fmt: skip
    p.add_argument("--boards", type=int, default=256)
    p.add_argument("--tcp-boards", type=int, default=32, help="boards for the (slower) TCP figure")
    p.add_argument("--us", default="random")
    p.add_argument("--them", default="random")
    args = p.parse_args()
    deal_file(args.deals)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    common = dict(us=args.us, them=args.them, deals=args.deals, seed=1)

    base = boards_per_second(boards=args.boards, **common)
    print(f"inprocess      {base:9.1f} boards/s  (baseline, {args.boards} boards)")
    two = boards_per_second(boards=args.boards, workers=2, chunk=16, **common)
    print(f"inprocess x2   {two:9.1f} boards/s  ratio {two / base:.2f}")
    tcp = boards_per_second(boards=args.tcp_boards, rooms="tcp", **common)
    print(f"tcp rooms      {tcp:9.1f} boards/s  ratio {tcp / base:.3f} ({args.tcp_boards} boards)")

    with make_agent(args.us, 0) as probe:
        batching = isinstance(probe, BatchBidder)
    if batching:
        import bridgebot.tournament.ddmatch as ddmatch

        original = ddmatch.BatchBidder
        try:
            # A protocol nothing satisfies: every agent goes through the per-call path.
            ddmatch.BatchBidder = type("NoBatch", (), {})  # type: ignore[misc,assignment]
            single = boards_per_second(boards=args.boards, **common)
        finally:
            ddmatch.BatchBidder = original  # type: ignore[misc]
        print(f"per-call bids  {single:9.1f} boards/s  batch speed-up {base / single:.2f}")


if __name__ == "__main__":
    main()
