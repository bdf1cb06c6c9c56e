"""``bridgebot tournament``: a round robin (or gauntlet) of team matches, ranked by VPs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bridgebot.core.logs import configure_logging

if TYPE_CHECKING:
    from bridgebot.tournament.match_cli import MatchServices

HELP = "play a round robin or gauntlet of team matches between agents and rank them by VPs"
EXAMPLES = """examples:
  bridgebot tournament --entrant default --entrant search --entrant bfg --entrant random \\
                       --boards 32 --workers 2 --out out/rr
      a double-dummy-scored round robin of four: 3 rounds of 32 boards, 6 matches
  bridgebot tournament --out out/rr --resume --entrant default ... (the same options)
      finish a tournament that was interrupted; finished matches are never replayed
  bridgebot tournament --format gauntlet --entrant default --entrant bfg \\
                       --entrant 'bfg,doubles=on' --entrant search --out out/g
      the first entrant against each of the others, every match on the same boards
  bridgebot tournament --entrant default --external WBridge5 --scoring play --out out/wb
      an outside program as an entrant: each of its matches prints where its seats connect
  bridgebot tournament --entrant v1=policy:models/v1 --entrant v2=policy:models/v2 ...
      NAME=SPEC names an entrant (names must differ)

outputs in --out: standings.json (ranking, matches, every pair of entrants), report.md (standings,
cross-table in IMPs and VPs, pairs view in matchpoints and Butler), tournament.json (what is
being played; --resume checks it), deals/round-RR.pbn (the boards of each round), and per match
matches/rRR-HOME-v-AWAY/ with the journal, PBN and report that 'bridgebot match' writes.
"""


#: The shared flags (``bridgebot/options.py`` adds them): --deals, --seed, the match options
#: shared with ``match``, --log-level. A tournament's size is --boards N, boards in every match
#: (also spelled --boards-per-match).
SHARED_OPTIONS = {
    "deals": True,
    "seed": 1,
    "seed_also": "; it also seeds the agents",
    "match": True,
    "workers_help": "matches played at once (worker processes); with --backend ray, Ray actors "
    "per match",
    "log_level": "warning",
    "log_level_help": "log level of the rooms' table managers and seats",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--entrant",
        action="append",
        default=[],
        metavar="[NAME=]SPEC",
        help="an entrant playing with an agent spec (repeat; at least two entrants in all)",
    )
    p.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="NAME[:N]",
        help="an entrant played by an outside program seated as in 'match --external'; N "
        "instances (sets of four seats) let N of its matches run at once (default 1)",
    )
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("round-robin", "double-round-robin", "gauntlet"),
        default="round-robin",
        help="default: round-robin; gauntlet: the first entrant against each of the others",
    )
    p.add_argument(
        "--boards",
        "--boards-per-match",
        dest="boards_per_match",
        type=int,
        default=32,
        metavar="N",
        help="boards in every match (default 32); with --deals, round R plays the file's boards "
        "(R - 1) * N + 1 to R * N",
    )


def run(args: argparse.Namespace, services: MatchServices) -> int:
    configure_logging(args.log_level)
    from bridgebot.engine.agent import AgentSpecError
    from bridgebot.server.journal import JournalError
    from bridgebot.tournament.config import MatchError
    from bridgebot.tournament.event import TournamentConfig, run_tournament
    from bridgebot.tournament.rooms import RoomError
    from bridgebot.tournament.schedule import Entrant
    from bridgebot.tournament.standings import markdown_standings

    make_agent = services.make_agent  # handed down by the command line
    try:
        entrants = [Entrant.parse(e) for e in args.entrant]
        entrants += [Entrant.parse_external(e) for e in args.external]
        for e in entrants:
            if e.spec is not None:
                try:
                    make_agent(e.spec, 0).close()  # a spec that cannot work stops us here
                except AgentSpecError as exc:
                    raise MatchError(f"--entrant {e.name}: {exc}") from exc
        cfg = TournamentConfig(
            entrants=tuple(entrants),
            out=args.out,
            fmt=args.fmt,
            boards_per_match=args.boards_per_match,
            deals=Path(args.deals) if args.deals is not None else None,
            seed=args.seed if args.seed is not None else 1,
            scoring=args.scoring,
            resume=args.resume,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
            rooms=args.rooms,
            seat_timeout=args.seat_timeout,
            make_agent=make_agent,
            agent_marks=services.agent_marks,
        )
        standings = run_tournament(cfg)
    except (MatchError, JournalError) as exc:
        print(f"bridgebot tournament: {exc}", file=sys.stderr)
        return 2
    except RoomError as exc:  # a room could not finish a board: what was played is kept
        print(f"bridgebot tournament: {exc}; rerun with --resume to continue", file=sys.stderr)
        return 1
    text = markdown_standings(standings)
    print(text.split("\n## ")[0].strip())
    print(f"\nreport: {args.out / 'report.md'}")
    return 0
