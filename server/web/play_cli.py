"""``bridgebot play``: a person plays a duplicate against the bots in a browser (docs/web.md)."""

from __future__ import annotations

import argparse
import asyncio
import secrets
import sys
import webbrowser
from pathlib import Path
from typing import TYPE_CHECKING

from bridgebot.server.logs import add_log_level_argument, configure_logging
from bridgebot.server.seat_cli import web_port

if TYPE_CHECKING:
    from bridgebot.server.web.app import WebServer
    from bridgebot.server.web.table import PersonTable

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

_SEATS = ("north", "east", "south", "west")


class UserError(ValueError):
    """A mistake in what the person asked for: one line on stderr, exit status 2."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seat",
        default="south",
        type=str.lower,
        choices=_SEATS,
        metavar="SEAT",
        help="your seat: North, East, South or West (default South)",
    )
    parser.add_argument("--boards", type=int, default=8, help="number of boards (default 8)")
    deals = parser.add_mutually_exclusive_group()
    deals.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the deal stream and the bots' seed (default: a fresh one, printed; with --resume "
        "the journal's)",
    )
    deals.add_argument(
        "--deals", type=Path, help="deal file: PBN, LIN, or a double-dummy .npz (ddgen)"
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
        help="keep the journal, PBN, LIN and report.html here (default: a new temporary folder)",
    )
    parser.add_argument(
        "--resume", action="store_true", help="continue the session journaled in --out"
    )
    parser.add_argument(
        "--no-alerts", action="store_true", help="the bots do not alert their artificial calls"
    )
    parser.add_argument("--web-port", type=web_port, default=0, metavar="PORT",
                        help="serve the page on this port (default 0: a free one, printed)")  # fmt: skip
    parser.add_argument("--web-host", default="127.0.0.1",
                        help="address the page listens on (default %(default)s: this machine only)")  # fmt: skip
    parser.add_argument("--no-browser", action="store_true",
                        help="do not open the page in a browser")  # fmt: skip
    add_log_level_argument(parser, "warning", "log level (stderr)")


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except UserError as exc:
        print(f"bridgebot play: {exc}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    from bridgebot.engine.agent import AgentFactory, AgentSpecError
    from bridgebot.server.journal import JournalError
    from bridgebot.tournament.deals import DealSourceError
    from bridgebot.tournament.journal import read_journal
    from endplay.types import Player

    configure_logging(args.log_level)
    if args.boards < 1:
        raise UserError(f"--boards must be at least 1, not {args.boards}")
    if args.resume and args.out is None:
        raise UserError("--resume needs --out DIR (the folder of the session to continue)")
    make_agent: AgentFactory = args.make_agent
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
    from bridgebot.server.web.play import PlayOptions
    from bridgebot.tournament.deals import load_deals

    journal = out / "journal.jsonl"
    if journal.exists() and not args.resume:
        raise UserError(f"{journal}: a session is already there; pass --resume or another --out")
    try:
        load_deals(deals=args.deals, seed=seed, boards=args.boards)  # a bad file stops us here
        out.mkdir(parents=True, exist_ok=True)
    except DealSourceError as exc:
        raise UserError(str(exc)) from exc
    except OSError as exc:
        raise UserError(f"--out {out}: cannot create the folder ({exc.strerror or exc})") from exc
    try:
        make_agent(args.agent, 0).close()  # a spec or model that cannot work stops us here
    except AgentSpecError as exc:
        raise UserError(f"--agent {args.agent!r}: {exc}") from exc
    fresh = args.seed is None and args.deals is None and not args.resume
    options = PlayOptions(
        seat=Player.find(args.seat),
        agent=args.agent,
        out=out,
        boards=args.boards,
        seed=seed,
        deals=args.deals,
        resume=args.resume,
        alerts=not args.no_alerts,
        fresh_seed=fresh,
        make_agent=make_agent,
    )
    status: dict[str, bool] = {}
    try:
        return asyncio.run(_session(args, options, status))
    except (DealSourceError, JournalError) as exc:
        raise UserError(str(exc)) from exc
    except KeyboardInterrupt:
        if status.get("done"):
            return 0  # the session was over: Ctrl-C stops serving the page
        print(
            f"stopped; the finished boards are in {out / 'journal.jsonl'}: "
            f"bridgebot play --out {out} --resume continues",
            file=sys.stderr,
        )
        return 130


async def serve_page(args: argparse.Namespace, table: PersonTable) -> WebServer:
    """Start the page, say where it is (stdout, flushed at once) and open a browser if asked."""
    from bridgebot.server.web.app import start_web

    try:
        web = await start_web(table, args.web_host, args.web_port)
    except OSError as exc:
        raise UserError(
            f"--web-port {args.web_port}: cannot listen on {args.web_host}: {exc.strerror or exc}"
        ) from None
    print(f"open {web.url} to play", flush=True)
    if not args.no_browser:
        await asyncio.get_running_loop().run_in_executor(None, webbrowser.open, web.url)
    return web


def policy_for(agent: str) -> Path:
    """The policy that explains calls on the page: the agent's own, else the shipped one."""
    from bridgebot.engine.policy import DEFAULT_MODEL_DIR

    from bridgebot.explain import policy_dir

    try:
        return policy_dir(agent)
    except ValueError:
        return DEFAULT_MODEL_DIR


async def _session(args: argparse.Namespace, options: object, status: dict[str, bool]) -> int:
    from bridgebot.server.web.play import PlayOptions, PlaySession, explainer
    from bridgebot.server.web.table import PersonTable

    assert isinstance(options, PlayOptions)
    table = PersonTable(expect_other=True, note="dealing the cards\u2026")
    table.explain = explainer(table, policy_for(options.agent))
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
        se = shown.get("stderr")
        print(
            f"{shown.get('boards', 0)} boards: {shown.get('imps_per_board', 0.0):+.2f} IMPs/board"
            + ("" if se is None else f" ± {se:.2f}")
            + f" (total {shown.get('imps', 0):+d} IMPs)",
            flush=True,
        )
        print(f"report: {options.out / 'report.html'} ({summary.boards} boards)", flush=True)
        print(f"still serving {web.url}; Ctrl-C to stop", flush=True)
        await asyncio.Event().wait()  # until Ctrl-C
    finally:
        await web.close()
    return 0


def run_human_seat(args: argparse.Namespace, seat: object, label: str) -> int:
    """``bridgebot seat --agent human``: the seat client with a person deciding in the page."""
    from bridgebot.protocol.errors import ProtocolError
    from bridgebot.server.seat import TableConnectionError

    status: dict[str, bool] = {}
    try:
        return asyncio.run(_human_seat(args, seat, status))
    except UserError as exc:
        print(f"bridgebot seat: {exc}", file=sys.stderr)
        return 2
    except TableConnectionError as exc:
        print(f"bridgebot seat {label}: connection: {exc}", file=sys.stderr)
        return 1
    except ProtocolError as exc:
        who = "our own code" if type(exc).__name__ == "LocalProtocolError" else "table manager"
        print(f"bridgebot seat {label}: protocol error ({who}): {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0 if status.get("done") else 130


async def _human_seat(args: argparse.Namespace, seat: object, status: dict[str, bool]) -> int:
    from bridgebot.protocol.dialect import Dialect
    from bridgebot.server.web.human import HumanSeatClient
    from bridgebot.server.web.play import explainer
    from bridgebot.server.web.table import PersonTable
    from endplay.types import Player

    assert seat is None or isinstance(seat, Player)
    table = PersonTable(note=f"connecting to the table manager at {args.host}:{args.port}\u2026")
    table.explain = explainer(table, policy_for("default"))
    web = await serve_page(args, table)
    try:
        client = HumanSeatClient(
            args.host, args.port, seat, args.team, table,
            dialect=Dialect(early_dummy=args.early_dummy), dummy_form=args.dummy_form,
            connect_retries=max(0, args.retries), retry_delay=args.retry_delay,
            idle_timeout=args.idle_timeout,
        )  # fmt: skip
        table.note = ""
        summary = await client.run()
        status["done"] = True
        print(
            f"{summary.seat.name.capitalize()} ({summary.team}): {summary.boards} board(s) "
            "played, End of session",
            flush=True,
        )
        print(f"still serving {web.url}; Ctrl-C to stop", flush=True)
        await asyncio.Event().wait()  # until Ctrl-C
    finally:
        await web.close()
    return 0
