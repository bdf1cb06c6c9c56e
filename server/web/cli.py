"""The person's page on the command line: where it is served, and ``bridgebot seat --agent human``
(the seat client with a person deciding in the page; docs/web.md)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
import webbrowser
from typing import TYPE_CHECKING

from bridgebot.core.argtypes import listening_port
from bridgebot.core.errors import UserError

if TYPE_CHECKING:
    from bridgebot.engine.agent import AgentFactory
    from bridgebot.server.web.app import WebServer
    from bridgebot.server.web.table import PersonTable


__all__ = ["UserError"]  # a person's mistake: the project's one UserError (one line, exit 2)


def add_web_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--web-port``, ``--web-host``, ``--no-browser``: where the person's page is served."""
    parser.add_argument("--web-port", type=listening_port, default=0, metavar="PORT",
                        help="serve the page on this port (default 0: a free one, printed)")  # fmt: skip
    parser.add_argument("--web-host", default="127.0.0.1",
                        help="address the page listens on (default %(default)s: this machine only)")  # fmt: skip
    parser.add_argument("--no-browser", action="store_true",
                        help="do not open the page in a browser")  # fmt: skip


def stop_on_signals() -> None:
    """SIGTERM (and SIGINT, even where a shell started us ignoring it) cancels the running main
    task, so that ``kill`` stops the page as cleanly as Ctrl-C; the command reads the
    cancellation as a Ctrl-C."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, task.cancel)


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


def run_human_seat(
    args: argparse.Namespace, seat: object, label: str, make_agent: AgentFactory
) -> int:
    """``bridgebot seat --agent human``: the seat client with a person deciding in the page
    (``make_agent`` builds the shipped agent whose reader explains the calls)."""
    from bridgebot.protocol.errors import ProtocolError
    from bridgebot.server.seat import TableConnectionError, failure_line

    status: dict[str, bool] = {}
    try:
        return asyncio.run(_human_seat(args, seat, status, make_agent))
    except UserError as exc:
        print(f"bridgebot seat: {exc}", file=sys.stderr)
        return 2
    except (TableConnectionError, ProtocolError) as exc:
        print(failure_line(label, exc), file=sys.stderr)
        return 1
    except (KeyboardInterrupt, asyncio.CancelledError):
        return 0 if status.get("done") else 130


async def _human_seat(
    args: argparse.Namespace, seat: object, status: dict[str, bool], make_agent: AgentFactory
) -> int:
    from bridgebot.protocol.dialect import Dialect
    from bridgebot.server.web.human import HumanSeatClient, explainer, shipped_reader
    from bridgebot.server.web.table import PersonTable
    from endplay.types import Player

    assert seat is None or isinstance(seat, Player)
    stop_on_signals()
    table = PersonTable(note=f"connecting to the table manager at {args.host}:{args.port}\u2026")
    table.explain = explainer(table, shipped_reader(make_agent))
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
