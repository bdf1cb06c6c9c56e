"""``bridgebot match``: a duplicate match between two agents, scored in IMPs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from server.logs import add_log_level_argument, configure_logging

HELP = "play a duplicate match between two agents and report IMPs per board"
EXAMPLES = """examples:
  bridgebot match --out out/match
      our default agent against bfg, 64 seeded boards, double-dummy scoring
  bridgebot match --us default --them bfg --deals ../shared/data/dd_2026.npz --boards 1000 \\
                  --workers 2 --out out/dd1000
      1000 boards whose double-dummy tables come with the deal file (no solver time)
  bridgebot match --us random --them random --seed 7 --boards 16 --format compatible --out out/c
      compatible play: our bot replaces one member of the reference pair, in each seat
  bridgebot match --us default --them bfg --boards 1000 --backend ray --ray-address HOST:6379 \
                  --workers 32 --out out/ray1000
      the boards sharded over 32 board streams of a Ray cluster (pip install -e .[distributed])
  bridgebot match --out out/match --resume
      finish a match that was interrupted; finished boards are kept from the journal
  bridgebot match --us default --them default --scoring play --external open:East \\
                  --external open:West --out out/wb5
      real play; two seats of the open room are left for WBridge5 (the match prints the port)

outputs in --out: journal.jsonl (one line per finished board), summary.json, room-NAME.pbn and
room-NAME.lin per room, report.md (summary, histogram, running mean, largest swings with our
explanations, every board) and report.html (the same as one self-contained page to browse).
"""


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--us", default="default", help="agent spec of our team (default: default)")
    p.add_argument("--them", default="bfg", help="agent spec of the opponents (default: bfg)")
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--deals",
        type=Path,
        help="deal file: PBN, LIN, or a double-dummy .npz as in ../shared/data",
    )
    src.add_argument("--seed", type=int, help="generate random deals from this seed (default 1)")
    p.add_argument("--boards", type=int, default=64, help="number of boards (default 64)")
    p.add_argument("--scoring", choices=("dd", "play"), default="dd", help="default: dd")
    p.add_argument("--format", dest="fmt", choices=("team", "compatible"), default="team")
    p.add_argument("--out", type=Path, required=True, help="output directory")
    p.add_argument("--resume", action="store_true", help="continue from DIR/journal.jsonl")
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="board streams in parallel (processes, or Ray actors with --backend ray)",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local (default): worker processes on this machine; ray: shard the boards across a "
        "Ray cluster (the distributed extra), the journal is still written here",
    )
    p.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="with --backend ray: the cluster to join (HOST:PORT of a head started with "
        "'ray start --head', or 'auto'); default: start a local one for this match",
    )
    p.add_argument(
        "--rooms",
        choices=("auto", "tcp", "inprocess"),
        default="auto",
        help="tcp: real table managers and seat clients on 127.0.0.1; inprocess: bidding only, "
        "for --scoring dd; auto (default): inprocess unless scoring by play or external seats",
    )
    p.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="ROOM:SEAT",
        help="leave this seat to an outside program (e.g. open:North); the match prints the port "
        "to connect to and waits; repeat for more seats",
    )
    add_log_level_argument(p, "warning", "log level of the rooms' table managers and seats")
    p.add_argument(
        "--seat-timeout",
        type=float,
        default=None,
        help="seconds a seat client of ours waits for a line before giving up (default: no limit)",
    )


def run(args: argparse.Namespace) -> int:
    # Table managers and seat clients log every wire line at debug; a match shows warnings only.
    configure_logging(args.log_level)
    from engine.agents import AgentSpecError, make_agent
    from tournament.deals import DealSourceError
    from tournament.journal import JournalError
    from tournament.match import MatchConfig, MatchError, run_match
    from tournament.rooms import ExternalSeat

    try:
        for who, spec in (("--us", args.us), ("--them", args.them)):
            try:
                make_agent(spec, 0)
            except AgentSpecError as exc:
                raise MatchError(f"{who}: {exc}") from exc
        try:
            external = tuple(ExternalSeat.parse(e) for e in args.external)
        except ValueError as exc:
            raise MatchError(f"--external: {exc}") from exc
        cfg = MatchConfig(
            us=args.us,
            them=args.them,
            out=args.out,
            boards=args.boards,
            deals=args.deals,
            seed=args.seed if args.seed is not None else 1,
            fmt=args.fmt,
            scoring=args.scoring,
            resume=args.resume,
            workers=args.workers,
            rooms=args.rooms,
            external=external,
            seat_timeout=args.seat_timeout,
            backend=args.backend,
            ray_address=args.ray_address,
        )
        summary = run_match(cfg)
    except (MatchError, DealSourceError, JournalError) as exc:
        print(f"bridgebot match: {exc}", file=sys.stderr)
        return 2
    print(
        f"{summary['us']} v {summary['them']}: {summary['imps_per_board']:+.2f} IMPs/board "
        f"± {summary['stderr'] or 0:.2f} over {summary['boards']} boards "
        f"(95% interval {summary['ci95'][0]:+.2f} to {summary['ci95'][1]:+.2f})"
    )
    print(f"report: {args.out / 'report.md'} and {args.out / 'report.html'}")
    return 0
