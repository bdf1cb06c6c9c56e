"""``bridgebot teach``: teacher auctions (bfg, or EPBot's training cards, in all four seats) for
imitation learning."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bridgebot.core.argtypes import add_workers, positive_int
from bridgebot.core.runs import add_run, open_run

HELP = (
    "generate teacher auctions: bfg (or EPBot cards) bid all four seats on random deals or a "
    "deal file's boards"
)
EXAMPLES = """examples:
  bridgebot teach --boards 200000 --out data/teach_200k.npz --seed 1
  bridgebot teach --boards 200000 --out data/teach_200k.npz --seed 1   # resumes / extends
  bridgebot teach --deals data/dd.npz --out data/teach_dd.npz
  bridgebot teach --deals deals.pbn --out data/teach_pbn.npz   # the boards tm and match play
  bridgebot teach --boards 1000000 --seed 3 --teacher epbot:BBA-Sayc,epbot:Acol,epbot:WJ \\
      --out data/teach_epbot_1m.npz   # EPBot's cards: needs $BRIDGEBOT_EPBOT
  bridgebot teach --boards 1000000 --seed 3 --run teach1m --out data/teach_1m.npz
      # state in $BRIDGEBOT_RUNS/teach1m: the same command resumes it in a later session

Random deal k is board k+1: dealer and vulnerability follow the 16-board cycle; a deal file's
boards keep the dealer and vulnerability the file gives them. Random deals depend only on --seed
and k, so the result does not depend on --workers, and rerunning the same command after an
interruption continues the file where its last checkpoint left it. (--count N, the old spelling
of --boards N, still works.) With several teachers, deal k is bid by the k-th modulo their
number; the file records them. WBridge5-Sayc and WBridge5-21GF are the report cards: never a teacher.
"""

#: The shared flags (``bridgebot/options.py`` adds them): --deals FILE, --boards N, --seed N,
#: --log-level.
SHARED_OPTIONS = {"deals": True, "boards": None, "seed": 0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="the .npz to write or extend")
    add_run(parser)
    add_workers(parser)
    parser.add_argument(
        "--checkpoint", type=positive_int, default=10_000, help="save every N new deals"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--teacher",
        action="append",
        default=None,
        metavar="SPEC",
        help="who bids: bfg (the default) or epbot:CARD, EPBot with one of its training cards "
        "(needs $BRIDGEBOT_EPBOT); repeat or comma-separate for several, the deals spread over them",
    )


def run(args: argparse.Namespace) -> int:
    from bridgebot.core.errors import UserError
    from bridgebot.models.teach import generate
    from bridgebot.models.teach_epbot import teacher_specs

    if args.boards is None and args.deals is None:
        raise UserError("give --boards N (or --deals FILE to bid every board of a file)")
    teachers = teacher_specs(args.teacher or ())
    state = open_run(args.run, args.out, sys.stderr)
    t0 = time.monotonic()
    teach = generate(
        state.path,
        args.boards if args.boards is not None else sys.maxsize,  # a file: all its boards
        seed=args.seed,
        workers=args.workers,
        deals=Path(args.deals) if args.deals is not None else None,
        checkpoint_every=args.checkpoint,
        progress=not args.quiet,
        teachers=teachers,
    )
    state.publish()
    m = teach.meta
    print(
        f"{args.out}: {len(teach)} deals ({time.monotonic() - t0:.0f} s this run); teachers "
        f"{', '.join(teachers)}: calls {m.calls}, bfg errors {m.errors}, illegal answers "
        f"{m.fallbacks}"
    )
    return 0
