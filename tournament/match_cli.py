"""``bridgebot match``: a duplicate match between two agents, scored in IMPs."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from bridgebot.core.argtypes import port_number
from bridgebot.core.logs import configure_logging
from bridgebot.server.guard import parse_networks
from bridgebot.tournament.rooms import THEM_NAME, US_NAME, Network
from bridgebot.tournament.seatings import seatings

if TYPE_CHECKING:
    from bridgebot.engine.agent import AgentFactory
    from bridgebot.tournament.config import MatchConfig
    from bridgebot.tournament.records import AgentMarks, MatchSummary

HELP = "play a duplicate match between two agents and report IMPs per board"
EXAMPLES = """examples:
  bridgebot match --out out/match
      our default agent against bfg, 64 seeded boards, double-dummy scoring
  bridgebot match --us default --them bfg --deals data/dd.npz --boards 1000 \\
                  --workers 2 --out out/dd1000
      1000 boards whose double-dummy tables come with the deal file (no solver time)
  bridgebot match --us random --them random --seed 7 --boards 16 --format compatible --out out/c
      compatible play: our bot replaces one member of the reference pair, in each seat
  bridgebot match --us default --them bfg --boards 1000 --backend ray --ray-address HOST:6379 \\
                  --workers 32 --out out/ray1000
      the boards sharded over 32 board streams of a Ray cluster (pip install -e .[distributed])
  bridgebot match --out out/match --resume
      finish a match that was interrupted; finished boards are kept from the journal
  bridgebot match --us default --them default --scoring play --external open:East \\
                  --external open:West --out out/wb5
      real play; two seats of the open room are left for WBridge5 (the match prints the port)

  bridgebot match --us default --scoring play --external open:East --external open:West \\
                  --external closed:North --external closed:South --host 0.0.0.0 --port 2000 \\
                  --them-name WBridge5 --allow-address 192.168.1.30 --out out/wb5
      WBridge5 on another machine plays the other team (README: step by step)
  bridgebot match --us default --them bfg --scoring play --boards 16 --web-port 8080 --out out/live
      watch it live: open http://127.0.0.1:8080/ (every room's table, the running IMPs)
  bridgebot match --us default --them default --scoring play --boards 16 --dd-cost --out out/dd
      real play, each side's cards costed double-dummy by role in summary.json and report.html

outputs in --out: journal.jsonl (one line per finished board), summary.json, room-NAME.pbn and
room-NAME.lin per room, report.md (summary, histogram, running mean, largest swings with our
explanations, every board), running_mean.svg (the plot report.md shows), report.html (the same as
one self-contained page to browse) and dd_cache.npz (the double-dummy tables it solved); with
TCP rooms also rooms/ROOM/ (each table manager's records), rooms-kept.jsonl (a room's boards that
the other rooms had not finished: --resume does not replay them) and, with outside seats,
external.json.
exit status: 0 done, 2 a bad option or file, 3 stopped early (outside seats): run --resume.
"""


class MatchServices(Protocol):
    """What ``match``, ``tournament`` and ``play`` read of the services the composition root
    hands them (``bridgebot.services.Services``)."""

    @property
    def make_agent(self) -> AgentFactory:
        """Builds the agent a spec names."""

    @property
    def agent_marks(self) -> Callable[[str], AgentMarks]:
        """What identifies the agent a spec builds, for the journal's header."""


#: The shared flags (``bridgebot/options.py`` adds them): --deals, --seed, --boards, the match
#: options shared with ``tournament``, --reconnect-timeout, --log-level.
SHARED_OPTIONS = {
    "deals": True,
    "seed": 1,
    "seed_also": "; it also seeds the agents",
    "boards": 64,
    "match": True,
    "workers_help": "board streams in parallel (processes, or Ray actors with --backend ray)",
    "reconnect_timeout": True,
    "log_level": "warning",
    "log_level_help": "log level of the rooms' table managers and seats",
}


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--us", default="default", help="agent spec of our team (default: default)")
    p.add_argument("--them", default="bfg", help="agent spec of the opponents (default: bfg)")
    p.add_argument(
        "--format",
        dest="fmt",
        choices=("team", "compatible"),
        default="team",
        help="team: each board in two rooms with the pairs swapped (default); compatible: our "
        "bot replaces one member of the reference pair",
    )
    p.add_argument(
        "--external",
        action="append",
        default=[],
        metavar="ROOM:SEAT",
        help="leave this seat to an outside program (e.g. open:North); the match prints where "
        "to connect (a sentence on stderr, a JSON line on stdout, DIR/external.json) and waits; "
        "repeat for more seats",
    )
    p.add_argument(
        "--dd-cost",
        action="store_true",
        help="with --scoring play: cost every card played double-dummy and add each side's "
        "cost per role (declarer, defence, opening lead) to the summary and report.html; it "
        "costs a solve per card (off by default)",
    )
    add_network_arguments(p)
    from bridgebot.server.tm_cli import add_web_arguments

    add_web_arguments(p, people=False)


def add_network_arguments(p: argparse.ArgumentParser) -> None:
    """Where TCP rooms listen and whom they admit; how long the match waits for outside seats."""
    g = p.add_argument_group("rooms over TCP and outside programs")
    g.add_argument("--host", default="127.0.0.1",
                   help="address the rooms listen on; 0.0.0.0 for other machines (default "
                   "%(default)s)")  # fmt: skip
    g.add_argument("--port", type=port_number, default=None, metavar="PORT",
                   help="fixed ports: the first room listens on PORT, the next on PORT+1, ... "
                   "(default: free ports, announced)")  # fmt: skip
    g.add_argument("--room-port", action="append", default=[], metavar="ROOM=PORT",
                   help="fixed port of one room, e.g. open=2000 (repeat)")  # fmt: skip
    g.add_argument("--allow-address", action="append", metavar="NET",
                   help="outside seats only from these addresses or networks, e.g. 10.0.0.7 or "
                   "10.0.0.0/8 (repeat; default: any; our own seats are always let in)")  # fmt: skip
    g.add_argument("--allow-team", action="append", metavar="NAME",
                   help="outside seats only with these team names (repeat; default: any)")  # fmt: skip
    g.add_argument("--us-name", default=US_NAME,
                   help="our team's name on the wire and in results (default %(default)s)")  # fmt: skip
    g.add_argument("--them-name", default=THEM_NAME,
                   help="the opponents' team name on the wire; an outside program must connect "
                   "with it, and results name outside seats by it (default %(default)s)")  # fmt: skip
    g.add_argument("--wait-external", type=float, default=3600.0, metavar="SECONDS",
                   help="how long to wait for every outside seat to connect; 0: for ever "
                   "(default %(default)g)")  # fmt: skip
    g.add_argument("--remind-every", type=float, default=60.0, metavar="SECONDS",
                   help="repeat where to connect this often while a seat is missing "
                   "(default %(default)g)")  # fmt: skip


def network_from_args(args: argparse.Namespace) -> Network:
    """:class:`tournament.rooms.Network` from the options above; ``ValueError`` names a bad one."""
    rooms = [s.room for s in seatings(args.fmt)]
    ports: dict[str, int] = {}
    if args.port is not None:
        ports = {room: args.port + i for i, room in enumerate(rooms)}
    for spec in args.room_port:
        room, eq, port = spec.partition("=")
        if not eq or room not in rooms or not port.strip().isdigit():
            raise ValueError(f"--room-port {spec!r}: expected ROOM=PORT, ROOM one of "
                             f"{', '.join(rooms)}")  # fmt: skip
        ports[room] = int(port)
    for room, port in ports.items():
        if not 1 <= port <= 65535:
            raise ValueError(f"port {port} of room {room} is not 1..65535")
    for name in ("wait_external", "remind_every"):
        if getattr(args, name) < 0 or (name == "remind_every" and args.remind_every == 0):
            raise ValueError(f"--{name.replace('_', '-')} must be positive")
    if args.us_name == args.them_name:
        raise ValueError(f"--us-name and --them-name must differ (both {args.us_name!r})")
    return Network(
        host=args.host,
        ports=ports,
        allow_addresses=parse_networks(args.allow_address) if args.allow_address else None,
        allow_teams=frozenset(args.allow_team) if args.allow_team else None,
        wait_external=args.wait_external or None,
        remind_every=args.remind_every,
        reconnect_timeout=args.reconnect_timeout,
        us_name=args.us_name,
        them_name=args.them_name,
        announce_file=args.out / "external.json" if args.external else None,
    )


def run(args: argparse.Namespace, services: MatchServices) -> int:
    # Table managers and seat clients log every wire line at debug; a match shows warnings only.
    configure_logging(args.log_level)
    from bridgebot.engine.agent import AgentSpecError
    from bridgebot.server.journal import JournalError
    from bridgebot.tournament.config import MatchConfig, MatchError
    from bridgebot.tournament.rooms import ExternalSeat, MatchStopped, RoomError

    make_agent = services.make_agent  # handed down by the command line
    try:
        for who, spec in (("--us", args.us), ("--them", args.them)):
            try:
                make_agent(spec, 0).close()  # a spec or model that cannot work stops us here
            except AgentSpecError as exc:
                raise MatchError(f"{who}: {exc}") from exc
        try:
            external = tuple(ExternalSeat.parse(e) for e in args.external)
        except ValueError as exc:
            raise MatchError(f"--external: {exc}") from exc
        try:
            net = network_from_args(args)
        except ValueError as exc:
            raise MatchError(str(exc)) from exc
        cfg = MatchConfig(
            us=args.us,
            them=args.them,
            out=args.out,
            boards=args.boards,
            deals=Path(args.deals) if args.deals is not None else None,
            seed=args.seed,
            fmt=args.fmt,
            scoring=args.scoring,
            resume=args.resume,
            workers=args.workers,
            rooms=args.rooms,
            external=external,
            seat_timeout=args.seat_timeout,
            backend=args.backend,
            ray_address=args.ray_address,
            net=net,
            dd_cost=args.dd_cost,
            make_agent=make_agent,
            agent_marks=services.agent_marks,
        )
        summary = _run_watched(args, cfg)
    except MatchStopped as exc:
        print(f"bridgebot match: stopped: {exc}", file=sys.stderr)
        return 3
    except (MatchError, JournalError, RoomError) as exc:
        print(f"bridgebot match: {exc}", file=sys.stderr)
        return 2
    low, high = summary.ci95  # a match has a board at least: only the error may be undefined
    print(
        f"{summary.us} v {summary.them}: {summary.imps_per_board or 0:+.2f} IMPs/board "
        f"± {summary.stderr or 0:.2f} over {summary.boards} boards "
        f"(95% interval {low or 0:+.2f} to {high or 0:+.2f})"
    )
    if summary.dd_cost is not None:
        from bridgebot.tournament.ddcost import cost_lines

        print("\n".join(cost_lines(summary.dd_cost, summary.us, summary.them)))
    print(f"report: {args.out / 'report.md'} and {args.out / 'report.html'}")
    return 0


def _run_watched(args: argparse.Namespace, cfg: MatchConfig) -> MatchSummary:
    """``run_match``, shown live on ``--web-port`` when asked (``server.web.spectator``)."""
    from bridgebot.tournament.config import MatchError
    from bridgebot.tournament.match import run_match

    if args.web_port is None:
        return run_match(cfg)
    from bridgebot.server.web.spectator import SpectatorServer

    web = SpectatorServer(args.web_host, args.web_port, title=f"{cfg.us} v {cfg.them}", match=True)
    try:
        web.start()
    except OSError as exc:
        raise MatchError(f"cannot serve the live tables on {args.web_host}:{args.web_port}: "
                         f"{exc.strerror or exc}") from None  # fmt: skip
    print(f"watch the match at {web.url}", flush=True)
    try:
        return run_match(cfg, watch=web)
    finally:
        web.close()
