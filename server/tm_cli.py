"""``bridgebot tm``: a Blue Chip table manager (docs/design.md, command line).

Prints ``listening on HOST:PORT`` (flushed) once it accepts connections, plays the boards, sends
``End of session`` and exits 0. Writes ``DIR/boards.pbn``, ``DIR/journal.jsonl`` (one line per
finished board, fsynced before the next board starts) and ``DIR/transcript-N.txt`` per table.
Exit 2 for bad arguments or an unreadable board file, with the reason on stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bridgebot.core.logs import configure_logging, outcome_line
from bridgebot.server.dialect_options import add_dialect_arguments

if TYPE_CHECKING:
    from bridgebot.protocol.table import TableBoard
    from bridgebot.server.guard import Limits
    from bridgebot.server.records import SessionHeader
    from bridgebot.server.resume import Resumed
    from bridgebot.server.tm import TableOptions
    from bridgebot.server.web.spectator import SpectatorServer
    from endplay.types import Player

HELP = "run a Blue Chip table manager: seat four bots per table, play boards, write PBN and journal"

EXAMPLES = """\
examples:
  bridgebot tm --host 127.0.0.1 --port 0 --seed 7 --boards 32 --out runs/t1
  bridgebot tm --port 2000 --deals deals.pbn --out runs/t2 --timeout 60
  bridgebot tm --port 2000 --seed 1 --boards 16 --tables 4 --out runs/t3   (4 tables, one port)
  bridgebot tm --port 2000 --seed 1 --boards 8 --seat-ports --out runs/t4
      (also one port per seat, the spec's layout: each is printed as 'seat North on HOST:PORT')
  bridgebot tm --port 2000 --seed 1 --boards 8 --dialect-seated quoted --out runs/t5
      (for bridge-player, whose parser rejects 'North ("team") seated')
  bridgebot tm --port 2000 --seed 7 --boards 32 --out runs/t1 --resume
      (after a crash or kill: play only the boards not yet in runs/t1/journal.jsonl)
  bridgebot tm --host 0.0.0.0 --port 2000 --seed 7 --allow-address 10.0.0.0/8 --allow-team Bots \\
      --allow-team WBridge5 --reconnect-timeout 120 --out runs/t6   (open to a lab network only)
  bridgebot tm --port 2000 --seed 7 --boards 8 --web-port 8080 --out runs/t7
      (live tables: open http://127.0.0.1:8080/ to watch every table as it plays)
"""


#: The shared flags (``bridgebot/options.py`` adds them): --deals FILE or --seed N, --boards N,
#: --reconnect-timeout, --log-level.
SHARED_OPTIONS = {
    "deals": True,
    "seed": None,
    "boards": 32,
    "source_required": True,
    "reconnect_timeout": True,
    "log_level": "info",
    "log_level_help": "debug logs every line in and out",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default %(default)s: this machine)"
    )
    parser.add_argument(
        "--port", type=int, default=0, help="port to listen on; 0 picks a free one (default)"
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="directory for the records")
    parser.add_argument(
        "--tables", type=int, default=1, help="tables served by this process (default 1)"
    )
    parser.add_argument(
        "--seat-ports",
        action="store_true",
        help="also open one port per seat (the spec's layout; single table only)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="abort a board when no seat says anything for this long (default: wait for ever)",
    )
    parser.add_argument(
        "--max-illegal",
        type=int,
        default=3,
        help="a seat's illegal calls/cards on one board before the board is aborted (default 3)",
    )
    parser.add_argument(
        "--max-junk",
        type=int,
        default=20,
        help="unreadable or refused lines in one board before a seat is disconnected (default 20)",
    )
    add_dialect_arguments(parser, "tm")
    parser.add_argument(
        "--no-alerts",
        action="store_true",
        help="relay calls without their 'Alert.' text (as ComputerBridge does for v18 clients)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the session recorded in --out: boards already in its journal are not "
        "played again (after a crash or a kill; see server/resume.py)",
    )
    from bridgebot.server.guard import add_limit_arguments

    add_limit_arguments(parser)
    add_web_arguments(parser)


def add_web_arguments(parser: argparse.ArgumentParser, people: bool = True) -> None:
    """``--web-port``/``--web-host``: the live tables (``server.web.spectator``); shared by
    ``tm`` and ``match``; ``people``: also ``--human-seat``."""
    g = parser.add_argument_group("live tables in a browser")
    from bridgebot.core.argtypes import listening_port  # the port check of every --web-port

    g.add_argument("--web-port", type=listening_port, default=None, metavar="PORT",
                   help="serve a page of every table, updated live, on this port (0 picks one; "
                   "the address is printed on stdout: 'watch the tables at URL', or the match)")  # fmt: skip
    g.add_argument("--web-host", default="127.0.0.1", metavar="HOST",
                   help="address the page is served on (default %(default)s: this machine only)")  # fmt: skip
    if not people:
        return
    g.add_argument("--human-seat", action="append", default=[], metavar="[TABLE:]SEAT",
                   help="a person plays this seat (e.g. South, or 2:South): that table's page "
                   "shows the hands only once each board is over (repeat)")  # fmt: skip


def human_seats(specs: Sequence[str], tables: int) -> list[tuple[str, Player]]:
    """``--human-seat`` values as (table label, seat); ``ValueError`` names a bad one."""
    from endplay.types import Player

    names = {n: p for p in Player for n in (p.abbr, p.name)}  # N ... W, north ... west
    out = []
    for spec in specs:
        table, sep, seat = spec.rpartition(":")
        table = table.strip() if sep else "1"
        player = names.get(seat.strip().lower()) or names.get(seat.strip().upper())
        if player is None:
            raise ValueError(f"--human-seat {spec!r}: {seat.strip()!r} is not a seat "
                             "(North, East, South, West or N, E, S, W)")  # fmt: skip
        if not table.isdigit() or not 1 <= int(table) <= tables:
            raise ValueError(f"--human-seat {spec!r}: no table {table!r} (1..{tables})")
        out.append((str(int(table)), player))
    return out


def session_of(args: argparse.Namespace, boards: Sequence[TableBoard]) -> SessionHeader:
    """What makes two runs the same session: the deals (source and content) and the tables.
    Written as the journal's header; ``--resume`` refuses a run that differs."""
    from bridgebot.server.records import SessionHeader

    digest = hashlib.sha256()
    for b in boards:
        digest.update(f"{b.number} {b.dealer.name} {b.vul.name} {b.deal.to_pbn()}\n".encode())
    return SessionHeader(
        boards_file=Path(args.deals).name if args.deals is not None else None,
        seed=args.seed,
        count=len(boards),
        deals_sha256=digest.hexdigest(),
        tables=args.tables,
    )


def run(args: argparse.Namespace) -> int:

    from bridgebot.laws.board_sets import BoardSetError, load_boards
    from bridgebot.protocol.dialect import Dialect
    from bridgebot.server.guard import limits_from_args
    from bridgebot.server.resume import (
        ResumeError,
        check_fresh,
        check_session,
        prepare,
        remaining,
    )
    from bridgebot.server.tm import TableOptions

    configure_logging(args.log_level)
    try:  # every deal is checked here, before any seat is seated (laws.board_sets)
        boards = load_boards(
            deals=args.deals, seed=args.seed or 0, boards=args.boards, default=args.boards_default
        )
    except BoardSetError as exc:
        print(f"bridgebot tm: {exc}", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"bridgebot tm: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    for name, value, low in (("--tables", args.tables, 1), ("--max-illegal", args.max_illegal, 1),
                             ("--max-junk", args.max_junk, 1)):  # fmt: skip
        if value < low:
            print(f"bridgebot tm: {name} must be at least {low}, got {value}", file=sys.stderr)
            return 2
    if args.seat_ports and args.tables != 1:
        print("bridgebot tm: --seat-ports serves a single table (--tables 1)", file=sys.stderr)
        return 2
    if args.timeout is not None and args.timeout <= 0:
        print("bridgebot tm: --timeout must be positive", file=sys.stderr)
        return 2
    try:
        people = human_seats(args.human_seat, args.tables)
    except ValueError as exc:
        print(f"bridgebot tm: {exc}", file=sys.stderr)
        return 2
    if people and args.web_port is None:
        print("bridgebot tm: --human-seat is for the live tables: give --web-port too",
              file=sys.stderr)  # fmt: skip
        return 2
    options = TableOptions(
        dialect=Dialect(seated=args.dialect_seated, teams=args.dialect_teams),
        timeout=args.timeout,
        max_illegal=args.max_illegal,
        max_junk=args.max_junk,
        scoring=args.teams_scoring,
        relay_alerts=not args.no_alerts,
    )
    session = session_of(args, boards)
    try:
        limits = limits_from_args(args)
        resumed = prepare(args.out) if args.resume else None
        if resumed is not None:
            check_session(resumed, session, Path(args.out) / "journal.jsonl")
        else:
            check_fresh(args.out)
    except (ValueError, ResumeError, OSError) as exc:
        print(f"bridgebot tm: {exc}", file=sys.stderr)
        return 2
    try:
        Path(args.out).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        print(f"bridgebot tm: cannot create --out {args.out}: {exc.strerror or exc}",
              file=sys.stderr)  # fmt: skip
        return 2
    if resumed is not None and remaining(resumed, (b.number for b in boards), args.tables) == 0:
        print(f"bridgebot tm: the session in {args.out} is complete ({resumed.boards} boards in "
              "the journal); nothing to resume", file=sys.stderr)  # fmt: skip
        return 0
    if resumed is not None:
        print(f"resuming: {resumed.boards} boards already in the journal "
              f"({resumed.torn_lines} torn journal lines and {resumed.orphan_records} unjournaled "
              "PBN records dropped)", file=sys.stderr)  # fmt: skip

    web = None
    if args.web_port is not None:
        from bridgebot.server.web.spectator import SpectatorServer

        web = SpectatorServer(args.web_host, args.web_port, people=people)
        try:
            web.start()
        except OSError as exc:
            print(f"bridgebot tm: cannot serve the live tables on {args.web_host}:"
                  f"{args.web_port}: {exc.strerror or exc}", file=sys.stderr)  # fmt: skip
            return 2
    try:
        return asyncio.run(_serve(args, boards, options, limits, resumed, session, web))
    finally:
        if web is not None:
            web.close()


async def _serve(
    args: argparse.Namespace,
    boards: Sequence[TableBoard],
    options: TableOptions,
    limits: Limits,
    resumed: Resumed | None,
    session: SessionHeader,
    web: SpectatorServer | None,
) -> int:
    """Listen, print where, play the session to its end (``run``'s asynchronous half)."""
    from bridgebot.server.tm import TableManager

    tm = TableManager(
        boards,
        args.out,
        host=args.host,
        port=args.port,
        tables=args.tables,
        seat_ports=args.seat_ports,
        options=options,
        limits=limits,
        skip=resumed.done if resumed is not None else None,
        keep_results=False,  # the journal is the record; memory stays flat
        session=session,
        observer=None if web is None else web.observer(),
    )
    try:
        host, port = await tm.start()
    except OSError as exc:
        print(f"bridgebot tm: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        await tm.close()
        return 2
    print(f"listening on {host}:{port}", flush=True)
    if web is not None:
        print(f"watch the tables at {web.url}", flush=True)
    for seat, (h, p) in tm.seat_addresses.items():
        print(f"seat {seat.name.capitalize()} on {h}:{p}", flush=True)
    await tm.serve()
    played = sum(t.played for t in tm.tables)
    aborted = sum(t.aborted for t in tm.tables)
    text = f"end of session: {played} boards played, {aborted} aborted, records in {args.out}"
    fields: dict[str, object] = {"played": played, "aborted": aborted, "records": str(args.out)}
    if args.tables > 1:  # one deal set at every table: rank them as a pairs event
        from bridgebot.server.ranking import rank_session, summary_lines

        fields["ranking"] = ranking = summary_lines(rank_session(args.out))
        text = "\n".join((text, *ranking))
    outcome_line(text, "end of session", **fields)
    return 0
