"""``bridgebot teach``: teacher auctions (bfg in all four seats) for imitation learning."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HELP = "generate teacher auctions: bfg bids all four seats on random deals (or a DD file's deals)"
EXAMPLES = """examples:
  bridgebot teach --count 200000 --out data/teach_200k.npz --seed 1
  bridgebot teach --count 200000 --out data/teach_200k.npz --seed 1   # resumes / extends
  bridgebot teach --deals data/dd.npz --out data/teach_dd.npz

Deal k is board k+1: dealer and vulnerability follow the 16-board cycle. Random deals depend
only on --seed and k, so the result does not depend on --workers, and rerunning the same
command after an interruption continues the file where its last checkpoint left it.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write or extend")
    parser.add_argument(
        "--count", type=int, default=None, help="deals wanted in --out (default: all of --deals)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random-deal stream (default 0)")
    parser.add_argument(
        "--deals", type=Path, default=None, help="take the deals from this DD npz instead"
    )
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="worker processes (default: CPUs)"
    )
    parser.add_argument("--checkpoint", type=int, default=10_000, help="save every N new deals")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def run(args: argparse.Namespace) -> int:
    from bridgebot.models.data import DataError
    from bridgebot.models.teach import TeachError, generate, load_deal_owners

    count = args.count
    try:
        if count is None:
            if args.deals is None:
                print(
                    "teach: give --count (or --deals to bid every deal of a file)", file=sys.stderr
                )
                return 2
            count = len(load_deal_owners(args.deals))
        if count < 0 or args.workers < 1:
            print("teach: --count must be >= 0 and --workers >= 1", file=sys.stderr)
            return 2
        t0 = time.monotonic()
        teach = generate(
            args.out,
            count,
            seed=args.seed,
            workers=args.workers,
            deals=args.deals,
            checkpoint_every=args.checkpoint,
            progress=not args.quiet,
        )
    except (TeachError, DataError) as exc:
        print(f"teach: {exc}", file=sys.stderr)
        return 1
    m = teach.meta
    print(
        f"{args.out}: {len(teach)} deals ({time.monotonic() - t0:.0f} s this run); bfg calls "
        f"{m.calls}, errors {m.errors}, illegal answers {m.fallbacks}"
    )
    return 0
