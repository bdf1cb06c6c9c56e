"""``bridgebot conform``: check a Blue Chip table manager or seat program against the protocol.

``conform tm`` plays scripted seats at a table manager under test; ``conform seat`` hosts a
scripted table manager for a seat program under test. Both print one line per rule (``pass``,
``warn`` or ``fail``, docs/conformance.md), write the whole exchange to a transcript and, with
``--report``, the same findings as JSON. Exit 0 when nothing failed, 1 when something did (an
unreachable or silent program included), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from bridgebot.core.argtypes import seed_number
from bridgebot.core.logs import configure_logging

HELP = "check a table manager or a seat program against the Blue Chip protocol"

EXAMPLES = """\
examples:
  bridgebot conform tm --port 2000                       (4 boards, all four seats scripted)
  bridgebot conform tm --port 2000 --style bridge-player --boards 2 --report tm.json
  bridgebot conform tm --host 10.0.0.5 --port 2000 --seats North,South   (the TM seats E/W bots)
  bridgebot conform seat --port 0 --seats South          (prints 'listening on HOST:PORT';
      start the program under test at South of that port)
  bridgebot conform seat --port 2001 --seats North,South --answer-timeout 10 --report seat.json
"""

TM_EXAMPLES = """\
examples:
  bridgebot conform tm --port 2000
  bridgebot conform tm --port 2000 --style wbridge5 --boards 2 --transcript tm.txt
  bridgebot conform tm --port 2000 --seats East,West --teams Kit,Bots --report tm.json
"""

SEAT_EXAMPLES = """\
examples:
  bridgebot conform seat --port 0 --seats North
      then: bridgebot seat --port PORT --seat North --team Bots --agent default
  bridgebot conform seat --port 2001 --seats North,South --boards 4 --report seat.json
"""


def _seats(text: str) -> tuple[str, ...]:
    from bridgebot.conform.wire import SEATS

    names = [n.strip().capitalize() for n in text.split(",") if n.strip()]
    bad = [n for n in names if n not in SEATS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"{text!r}: name seats from North, East, South, West, separated by commas"
        )
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"{text!r}: a seat is named twice")
    return tuple(n for n in SEATS if n in names)


def _teams(text: str) -> tuple[str, str]:
    names = [n.strip() for n in text.split(",")]
    if len(names) != 2 or not all(names) or names[0] == names[1]:
        raise argparse.ArgumentTypeError(f"{text!r}: two different team names, NS,EW")
    for n in names:
        if '"' in n or not n.isascii() or not n.isprintable() or len(n) > 64:
            raise argparse.ArgumentTypeError(
                f"{n!r}: a team name is printable ASCII without '\"', at most 64 characters"
            )
    return names[0], names[1]


def _count(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of boards (1 or more)")
    return n


def _seconds(text: str) -> float:
    try:
        s = float(text)
    except ValueError:
        s = 0.0
    if not s > 0 or s != s or s == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds above 0")
    return s


def _port(text: str, allow_zero: bool) -> int:
    try:
        p = int(text)
    except ValueError:
        p = -1
    if not (0 if allow_zero else 1) <= p <= 65535:
        span = "0..65535, 0 picks a free one" if allow_zero else "1..65535"
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number ({span})")
    return p


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--answer-timeout",
        type=_seconds,
        default=30.0,
        metavar="S",
        help="seconds the program under test may take over any line it owes; silence past it "
        "is a failure (default %(default)g)",
    )
    p.add_argument("--report", type=Path, metavar="FILE.json", help="write the findings as JSON")
    p.add_argument(
        "--transcript",
        type=Path,
        metavar="FILE",
        help="where the whole exchange goes (default conform-tm.txt / conform-seat.txt here)",
    )


#: The shared flags (``bridgebot/options.py`` adds them to each of tm and seat): --log-level.
SHARED_OPTIONS = {"log_level_help": "stderr log level"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from bridgebot.conform.voices import STYLES

    sub = parser.add_subparsers(dest="target", metavar="tm|seat", required=True)
    tm = sub.add_parser(
        "tm",
        help="play scripted seats at a table manager under test and check every line it sends",
        description="Scripted seats (all four, or --seats) connect to the table manager at "
        "HOST:PORT, play --boards boards and check every line it sends.",
        epilog=TM_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    tm.add_argument("--host", default="127.0.0.1", help="table manager host (default %(default)s)")
    tm.add_argument(
        "--port", type=lambda t: _port(t, False), required=True, help="table manager port"
    )
    tm.add_argument(
        "--boards",
        type=_count,
        default=4,
        metavar="N",
        help="number of boards to play (default %(default)s)",
    )
    tm.add_argument(
        "--style",
        choices=STYLES,
        default="canonical",
        help="how the scripted seats write their lines (default %(default)s)",
    )
    tm.add_argument(
        "--seats",
        type=_seats,
        default=None,
        metavar="North,...",
        help="only these seats are scripted (for a table manager that seats bots of "
        "its own at the others; default all four)",
    )
    tm.add_argument(
        "--teams",
        type=_teams,
        default=("KitNS", "KitEW"),
        metavar="NS,EW",
        help="team names of the scripted seats (default KitNS,KitEW)",
    )
    tm.add_argument(
        "--no-probes",
        action="store_true",
        help="do not send the illegal, out-of-turn and junk lines the probes use",
    )
    _common(tm)
    seat = sub.add_parser(
        "seat",
        help="host a scripted table manager and check every line a seat program sends",
        description="Hosts a scripted table manager, prints 'listening on HOST:PORT', waits for "
        "the program under test at --seats (the others are scripted) and plays the scenarios "
        "of docs/conformance.md.",
        epilog=SEAT_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    seat.add_argument("--host", default="127.0.0.1", help="address to bind (default %(default)s)")
    seat.add_argument(
        "--port",
        type=lambda t: _port(t, True),
        required=True,
        help="port to listen on; 0 picks a free one",
    )
    seat.add_argument(
        "--seats",
        type=_seats,
        default=("North",),
        metavar="North,...",
        help="the seats the program under test takes (default North)",
    )
    seat.add_argument(
        "--boards",
        type=_count,
        default=None,
        metavar="N",
        help="number of boards (default: the 8 scenarios of docs/conformance.md)",
    )
    seat.add_argument("--seed", type=seed_number, default=0, help="seed of the deals (default 0)")
    _common(seat)


def run(args: argparse.Namespace) -> int:
    from bridgebot.conform.net import CannotListen
    from bridgebot.conform.report import (
        SEAT_RULES,
        TM_RULES,
        ConformReport,
        Recorder,
        Transcript,
        save_report,
        write_output,
    )

    configure_logging(args.log_level)
    target = args.target
    path = args.transcript or Path(f"conform-{target}.txt")
    for option, file in (("--report", args.report), ("--transcript", path)):
        if file is not None and not file.parent.is_dir():
            print(
                f"bridgebot conform {target}: {option} {file}: no directory {file.parent}",
                file=sys.stderr,
            )
            return 2
    transcript = Transcript(path)
    echo_err = _progress
    started = time.monotonic()
    record = Recorder(TM_RULES if target == "tm" else SEAT_RULES, echo=echo_err)
    roles: list[str] = []
    notes: list[str] = []
    ran = True
    try:
        if target == "tm":
            from bridgebot.conform.tm_kit import TmRun, run_tm
            from bridgebot.conform.wire import SEATS

            tm_run = TmRun(
                host=args.host,
                port=args.port,
                boards=args.boards,
                style=args.style,
                seats=args.seats or SEATS,
                teams=args.teams,
                answer_timeout=args.answer_timeout,
                probes=not args.no_probes,
                progress=_progress,
            )
            kit = asyncio.run(run_tm(tm_run, record, transcript))
            boards = kit.run.boards_done
            where = f"{args.host}:{args.port}"
            if boards:
                notes.append(f"dummy won a trick and led the next {kit.run.dummy_leads} time(s)")
        else:
            from bridgebot.conform.seat_kit import SeatRun, run_seat

            seat_run = SeatRun(
                host=args.host,
                port=args.port,
                seats=args.seats,
                boards=args.boards,
                seed=args.seed,
                answer_timeout=args.answer_timeout,
                announce=_announce,
                progress=_progress,
            )
            seat_kit = asyncio.run(run_seat(seat_run, record, transcript))
            boards = seat_kit.boards_done
            roles = seat_kit.roles()
            where = f"{args.host}:{seat_kit.port} seats {','.join(args.seats)}"
    except CannotListen as exc:  # the port taken: one line, and no transcript of nothing
        ran = False
        print(f"bridgebot conform {target}: {exc}", file=sys.stderr)
        return 2
    finally:
        transcript.close(made=ran)
    failed = record.failed
    report = ConformReport(
        command=f"conform {target}",
        target=where,
        status="fail" if failed else "pass",
        exit_status=1 if failed else 0,
        seconds=round(time.monotonic() - started, 2),
        boards=boards,
        roles=roles,
        notes=notes,
        rules=record.results(),
        not_reached=record.not_reached(),
        transcript=str(path),
    )
    write_output(report)
    if args.report is not None:
        save_report(report, args.report)
    return report.exit_status


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _announce(host: str, port: int) -> None:
    print(f"listening on {host}:{port}", flush=True)
