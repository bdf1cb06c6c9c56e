"""``bridgebot seat``: one bot at one seat of a Blue Chip table manager (docs/design.md, command line).

Exit 0 after ``End of session``; on a connection or protocol failure, exit 1 with one line on
stderr naming who broke what (the table manager, the connection, or our own agent).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Protocol

from bridgebot.core.argtypes import port_number
from bridgebot.core.logs import configure_logging
from bridgebot.server.dialect_options import add_dialect_arguments

if TYPE_CHECKING:
    from bridgebot.engine.agent import AgentFactory
    from bridgebot.server.seat import Alerter
    from endplay.types import Player

HELP = "sit one bot at a Blue Chip table manager and play until End of session"

EXAMPLES = """\
examples:
  bridgebot seat --host 127.0.0.1 --port 2000 --seat North --team Bots --agent default
  bridgebot seat --port 2000 --seat East --team Randoms --agent random --agent-seed 3
  bridgebot seat --port 2000 --seat ANYPL --team Bots --agent random   (the TM picks the seat)
  bridgebot seat --port 2000 --seat South --team Bots --agent random \\
      --dummy-form all --early-dummy --log-level debug   (bridge-player's habits, every line logged)
  bridgebot seat --port 2000 --seat South --team People --agent human --web-port 8080
      a person plays South in a browser at http://127.0.0.1:8080/ (docs/web.md)
"""


def _seat_or_anypl(text: str) -> Player | None:
    """argparse type of ``--seat``: a seat (:func:`bridgebot.laws.notation.seat_arg`), or None
    for ``ANYPL`` (any case), the seat the table manager assigns."""
    from bridgebot.laws.notation import seat_arg

    return None if text.strip().lower() == "anypl" else seat_arg(text)


class SeatServices(Protocol):
    """What ``seat`` reads of the services the composition root hands it
    (``bridgebot.services.Services``)."""

    @property
    def make_agent(self) -> AgentFactory:
        """Builds the agent a spec names."""


#: The shared flags (``bridgebot/options.py`` adds them): --log-level.
SHARED_OPTIONS = {"log_level_help": "stderr log level; debug logs every line in and out"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="table manager host (default %(default)s)"
    )
    parser.add_argument("--port", type=port_number, required=True, help="table manager port")
    parser.add_argument(
        "--seat",
        required=True,
        type=_seat_or_anypl,
        metavar="SEAT",
        help="North, East, South, West (or the initial), or ANYPL to take the seat the table "
        "manager assigns",
    )
    parser.add_argument("--team", required=True, help="team name (no double quotes)")
    parser.add_argument(
        "--agent",
        default="default",
        help="agent spec: random, bfg, default, policy:PATH, search[:PATH], or human (a person "
        "in a browser page, see --web-port) (default %(default)s)",
    )
    parser.add_argument(
        "--agent-seed",
        type=int,
        default=0,
        metavar="N",
        help="the agent's seed (its random choices; no deals here; default %(default)s)",
    )
    add_dialect_arguments(parser, "seat")
    parser.add_argument(
        "--retries",
        type=int,
        default=10,
        help="extra connection attempts while the table manager starts (default %(default)s)",
    )
    parser.add_argument(
        "--retry-delay",
        type=float,
        default=0.5,
        help="seconds between connection attempts (default %(default)s)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=float,
        default=None,
        help="give up after this many seconds without a line from the table manager "
        "(default: wait for ever, as the protocol defines no timeouts)",
    )
    parser.add_argument(
        "--no-alerts",
        action="store_true",
        help="never alert our calls (default: an artificial call of a learned policy goes out "
        "with 'Alert.' and its meaning, e.g. '8 to 13 total points, 3+ cards in spades.')",
    )
    parser.add_argument(
        "--alert-hands",
        type=int,
        default=8192,
        help="most hands sampled to explain one call (the work budget per call; "
        "default %(default)s)",
    )
    from bridgebot.server.web.cli import add_web_arguments

    add_web_arguments(parser.add_argument_group("a person at the seat (--agent human)"))


def run(args: argparse.Namespace, services: SeatServices) -> int:
    """Play a session, with the agent ``services.make_agent`` builds."""
    from bridgebot.engine.agent import AgentSpecError
    from bridgebot.protocol.dialect import Dialect
    from bridgebot.protocol.errors import ProtocolError
    from bridgebot.server.seat import AgentError, SeatClient, TableConnectionError, failure_line

    if '"' in args.team or not args.team.strip():
        print(
            f"bridgebot seat: --team {args.team!r}: must be non-empty, without '\"'",
            file=sys.stderr,
        )
        return 2
    configure_logging(args.log_level)
    seat: Player | None = args.seat
    label = "Anypl" if seat is None else seat.name.capitalize()
    if args.agent.strip().lower() == "human":
        from bridgebot.server.web.cli import run_human_seat

        return run_human_seat(args, seat, label, services.make_agent)
    try:
        with services.make_agent(args.agent, seed=args.agent_seed) as agent:
            alerter = None if args.no_alerts else _alerter(agent, args.alert_hands)
            client = SeatClient(
                args.host,
                args.port,
                seat,
                args.team,
                agent,
                dialect=Dialect(early_dummy=args.early_dummy),
                dummy_form=args.dummy_form,
                connect_retries=max(0, args.retries),
                retry_delay=args.retry_delay,
                idle_timeout=args.idle_timeout,
                alerter=alerter,
            )
            summary = asyncio.run(client.run())
    except AgentSpecError as exc:
        print(f"bridgebot seat: --agent {args.agent!r}: {exc}", file=sys.stderr)
        return 2
    except (TableConnectionError, ProtocolError) as exc:
        print(failure_line(label, exc), file=sys.stderr)
        return 1
    except AgentError as exc:
        cause = f": {exc.__cause__!r}" if exc.__cause__ else ""
        print(f"bridgebot seat {label}: agent: {exc}{cause}", file=sys.stderr)
        return 1
    print(
        f"{summary.seat.name.capitalize()} ({summary.team}): {summary.boards} board(s) played, "
        "End of session"
    )
    return 0


def _alerter(agent: object, hands: int) -> Alerter | None:
    """Alerts from the agent's reader of its own calls (:func:`engine.explain.reader_of`: an
    outside bidder's own meaning, or the sampling explainer over the learned policy with its
    asking convention); agents that say nothing (bfg, random) never alert."""
    from bridgebot.engine.explain import reader_of

    reader = reader_of(agent, max_hands=max(1024, hands), target=200)
    return None if reader is None else reader.alert_for
