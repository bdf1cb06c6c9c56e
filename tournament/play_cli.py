"""``bridgebot play``: a person plays a duplicate against the bots in a browser (docs/web.md)."""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bridgebot.core.logs import configure_logging
from bridgebot.laws.notation import seat_arg
from bridgebot.server.web.cli import UserError, add_web_arguments, serve_page, stop_on_signals

if TYPE_CHECKING:
    from bridgebot.tournament.match_cli import MatchServices

HELP = (
    "play a duplicate against the bots in your browser (you and three bots; four in the other room)"
)

EXAMPLES = """\
examples:
  bridgebot play
      eight fresh boards, you South; opens the page in your browser
  bridgebot play --seat North --boards 4 --seed 7 --out out/me
      four seeded boards; journal, PBN, LIN and report.html in out/me
  bridgebot play --deals tournament/examples/deals.pbn --web-port 8080 --no-browser
      the boards of a deal file; open http://127.0.0.1:8080/ yourself
  bridgebot play --out out/me --resume
      come back to a session you stopped (Ctrl-C): the finished boards are kept

The other room plays the same boards with four bots (--agent in every seat); after each board the
page shows its auction, contract and result and the IMPs your side won or lost. At the end: IMPs
per board with its standard error, and report.html as `bridgebot match` writes it. The page is
still served after the session until Ctrl-C.
exit status: 0 done (Ctrl-C after the session), 2 a bad option or file, 130 stopped mid-session
(--resume continues).
"""

#: The shared flags (``bridgebot/options.py`` adds them): --deals FILE or --seed N, --boards N,
#: --log-level.
SHARED_OPTIONS = {
    "deals": True,
    "seed": None,
    "seed_also": "; it also seeds the bots (default: a fresh one, printed; with --resume the "
    "journal's)",
    "boards": 8,
    "log_level": "warning",
    "log_level_help": "log level (stderr)",
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seat",
        default="south",
        type=seat_arg,
        metavar="SEAT",
        help="your seat: North, East, South or West, or its initial (default South)",
    )
    parser.add_argument(
        "--agent",
        default="default",
        help="the bots' agent spec, every seat of both rooms (default %(default)s)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep the journal, PBN, LIN and report.html here (default: a new temporary folder)",
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue the session journaled in --out"
    )
    parser.add_argument(
        "--no-alerts", action="store_true", help="the bots do not alert their artificial calls"
    )
    add_web_arguments(parser)


def run(args: argparse.Namespace, services: MatchServices) -> int:
    try:
        return _run(args, services)
    except UserError as exc:
        print(f"bridgebot play: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace, services: MatchServices) -> int:
    from bridgebot.engine.agent import AgentSpecError
    from bridgebot.server.journal import JournalError
    from bridgebot.tournament.journal import read_journal

    configure_logging(args.log_level)
    if args.deals is not None and args.seed is not None:
        raise UserError("--deals and --seed: give one (a deal file's boards, or seeded ones)")
    if args.resume and args.out is None:
        raise UserError("--resume needs --out DIR (the folder of the session to continue)")
    make_agent = services.make_agent
    out: Path = args.out
    if out is None:
        import tempfile

        out = Path(tempfile.mkdtemp(prefix="bridgebot-play-"))
    seed = args.seed
    if seed is None and args.resume and (out / "journal.jsonl").exists():
        try:
            header = read_journal(out / "journal.jsonl").header
        except JournalError as exc:
            raise UserError(str(exc)) from exc
        seed = None if header is None else header.seed
    if seed is None:
        seed = 1 if args.deals is not None else secrets.randbelow(1_000_000)
    from bridgebot.laws.board_sets import load_boards
    from bridgebot.tournament.play import PlayOptions

    journal = out / "journal.jsonl"
    if journal.exists() and not args.resume:
        raise UserError(f"{journal}: a session is already there; pass --resume or another --out")
    # A bad file stops us here (one line, exit 2); the count fixes how many boards are played.
    boards = load_boards(deals=args.deals, seed=seed, boards=args.boards, default=8)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from exc
    try:
        make_agent(args.agent, 0).close()  # a spec or model that cannot work stops us here
    except AgentSpecError as exc:
        raise UserError(f"--agent {args.agent!r}: {exc}") from exc
    fresh = args.seed is None and args.deals is None and not args.resume
    options = PlayOptions(
        seat=args.seat,
        agent=args.agent,
        out=out,
        boards=len(boards),
        seed=seed,
        deals=Path(args.deals) if args.deals is not None else None,
        resume=args.resume,
        alerts=not args.no_alerts,
        fresh_seed=fresh,
        make_agent=make_agent,
        agent_marks=services.agent_marks,
    )
    status: dict[str, bool] = {}
    try:
        return asyncio.run(_session(args, options, status))
    except JournalError as exc:
        raise UserError(str(exc)) from exc
    except (KeyboardInterrupt, asyncio.CancelledError):
        if status.get("done"):
            return 0  # the session was over: Ctrl-C stops serving the page
        print(
            f"stopped; the finished boards are in {out / 'journal.jsonl'}: "
            f"bridgebot play --out {out} --resume continues",
            file=sys.stderr,
        )
        return 130


async def _session(args: argparse.Namespace, options: object, status: dict[str, bool]) -> int:
    from bridgebot.server.web.human import explainer
    from bridgebot.server.web.table import PersonTable
    from bridgebot.tournament.play import PlayOptions, PlaySession, reader_for
    from bridgebot.tournament.report import boards_text

    assert isinstance(options, PlayOptions)
    stop_on_signals()
    table = PersonTable(expect_other=True, note="dealing the cards\u2026")
    table.explain = explainer(table, lambda: reader_for(options.agent, options.make_agent))
    web = await serve_page(args, table)
    if options.fresh_seed:
        print(
            f"seed {options.seed} (--seed {options.seed} deals these boards again)", file=sys.stderr
        )
    try:
        table.note = ""
        session = PlaySession(options, table, lambda line: print(line, file=sys.stderr))
        summary = await session.run()
        status["done"] = True
        web.set_report(options.out / "report.html")
        shown = table.summary or {}
        se, played = shown.get("stderr"), boards_text(shown.get("boards", 0))
        print(
            f"{played}: {shown.get('imps_per_board', 0.0):+.2f} IMPs/board"
            + ("" if se is None else f" ± {se:.2f}")
            + f" (total {shown.get('imps', 0):+d} IMPs)",
            flush=True,
        )
        print(f"report: {options.out / 'report.html'} ({boards_text(summary.boards)})", flush=True)
        print(f"still serving {web.url}; Ctrl-C to stop", flush=True)
        await asyncio.Event().wait()  # until Ctrl-C
    finally:
        await web.close()
    return 0
