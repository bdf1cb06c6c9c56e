"""Rooms over TCP: one real table manager per room, four seats per table.

Our agents join as :class:`server.seat.SeatClient` tasks in this process; a seat named in
``external`` is left free for another program (WBridge5, Ben, ``bridgebot seat``, perhaps on
another machine). The match says where to connect, as a sentence and as machine-readable JSON
(:class:`Network`), reminds every ``remind_every`` seconds while a seat is missing, and waits
``wait_external`` seconds in all; an outside seat that leaves mid-match has ``reconnect_timeout``
seconds to come back. Either limit ends the match cleanly (:class:`MatchStopped`) with every
finished board already journaled, so ``--resume`` continues. Every room's table manager serves all
the boards of the run in one session, so an external program connects once.

A board is finished when every room has finished it; then it is scored (real play or the
double-dummy tricks of the final contract) and handed to ``on_board`` (which journals it) before
anything else happens. The table managers' own records (PBN, journal, transcript) go to
``rooms_dir/ROOM/``, useful for replaying a room with the scripted peers.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import ipaddress
import json
import socket
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridgebot.engine.agent import Agent
from bridgebot.laws.boards import BoardDeal
from bridgebot.laws.notation import NotationError, parse_seat, vul_text
from bridgebot.laws.scoring import dd_tricks, ns_score
from bridgebot.protocol.table import TableResult
from bridgebot.server.guard import Limits
from bridgebot.server.guard import Network as AddressNetwork
from bridgebot.server.journal import JournalWriter, read_lines
from bridgebot.server.records import TableRecord, table_record
from bridgebot.server.seat import Alerter, SeatClient
from bridgebot.server.table_events import Observer
from bridgebot.server.tm import TableManager
from bridgebot.tournament.ddcost import CostError, with_costs
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import US, Seating, board_imps
from endplay.types import Player
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationInfo, model_validator

#: Wire team names of our two sides by default (``--us-name``/``--them-name`` change them).
US_NAME, THEM_NAME = "bridgebot", "opponents"
#: Addresses that mean "every interface": our own seats then connect to the loopback address.
_WILDCARDS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


@dataclass(frozen=True)
class Network:
    """Where the rooms listen and whom they admit (the ``match`` options of the same names)."""

    host: str = "127.0.0.1"
    ports: Mapping[str, int] = field(default_factory=dict)
    """Room name -> fixed port (a room not named gets a free port)."""
    allow_addresses: tuple[AddressNetwork, ...] | None = None
    """Outside seats only from these (our own seats connect from ``host`` and are admitted)."""
    allow_teams: frozenset[str] | None = None
    """Outside seats only with these team names (our own team names are admitted)."""
    wait_external: float | None = 3600.0
    """Seconds to wait in all for every outside seat to connect (None: for ever)."""
    remind_every: float = 60.0
    reconnect_timeout: float | None = 300.0
    """Seconds an outside seat that left has to come back (None: for ever)."""
    us_name: str = US_NAME
    them_name: str = THEM_NAME
    announce_file: Path | None = None
    """Where the JSON list of outside seats and their addresses is written."""

    @property
    def local(self) -> str:
        """The address our own seats connect to and from."""
        return _WILDCARDS.get(self.host, self.host)

    def reachable(self) -> str:
        """An address another machine can use: ``host``, or this machine's outward address when
        ``host`` is every interface."""
        if self.host not in _WILDCARDS:
            return self.host
        family = socket.AF_INET6 if self.host == "::" else socket.AF_INET
        probe = "2001:db8::1" if family == socket.AF_INET6 else "192.0.2.1"  # documentation nets
        try:
            with socket.socket(family, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))  # UDP: picks the outward interface, sends nothing
                return str(s.getsockname()[0])
        except OSError:
            try:
                return socket.gethostbyname(socket.gethostname())
            except OSError:
                return self.local


def wire_teams(seating: Seating, net: Network) -> tuple[str, str]:
    """Team names of North-South and East-West in one room: each partnership takes the name of
    its side (``us`` wherever our bot sits in it); two partnerships of one side (the reference
    room of the compatible format) are told apart by a ``-ns``/``-ew`` suffix, since the Blue Chip
    handshake wants two different names."""
    names = []
    for d in (0, 1):
        us = US in (seating.teams[d], seating.teams[d + 2])
        names.append(net.us_name if us else net.them_name)
    if names[0] == names[1]:
        return f"{names[0]}-ns", f"{names[1]}-ew"
    return names[0], names[1]


class MatchStopped(RuntimeError):
    """The match ended early and cleanly: an outside seat never came, or left and did not come
    back. Every board finished by all rooms is journaled; ``--resume`` plays the rest."""


class RoomError(RuntimeError):
    """A room could not finish a board (aborted by its table manager); names room and board."""


@dataclass(frozen=True)
class ExternalSeat:
    """A seat played by a program outside this process: ``room`` and ``seat``."""

    room: str
    seat: Player

    @classmethod
    def parse(cls, text: str) -> ExternalSeat:
        """``open:North`` or ``closed:E`` (room name, colon, seat name or letter)."""
        room, sep, seat = text.partition(":")
        if not sep or not room or not seat:
            raise ValueError(f"external seat {text!r} is not ROOM:SEAT, e.g. open:North")
        try:
            player = parse_seat(seat)
        except NotationError as exc:
            raise ValueError(f"external seat {text!r}: {exc}") from None
        return cls(room.strip(), player)


def room_result(
    deal: BoardDeal, seating: Seating, names: Sequence[str], result: TableResult, scoring: str
) -> TableRecord:
    """Score one room's board: by the tricks actually taken, or double-dummy. The record is the
    table manager's, named by room and seats, without the thinking times (which differ from run
    to run, while the match journal is the same for the same agents and deals)."""
    if result.aborted is not None:
        raise RoomError(f"board {deal.number}, room {seating.room}: aborted ({result.aborted})")
    contract = result.contract
    tricks: int | None = None
    if contract is not None:
        if scoring == "dd":
            if deal.dd is None:
                raise RoomError(f"board {deal.number} has no double-dummy table")
            tricks = dd_tricks(contract, deal.dd)
        else:
            tricks = result.declarer_tricks
    score = 0 if contract is None or tricks is None else ns_score(contract, tricks, deal.vul)
    return table_record(result).model_copy(
        update={
            "room": seating.room,
            "seats": (names[0], names[1], names[2], names[3]),
            "tricks": tricks,
            "score_ns": score,
            "ns_seconds": None,
            "ew_seconds": None,
        }
    )


async def play_rooms(
    deals: Sequence[BoardDeal],
    fmt: str,
    rooms: Sequence[Seating],
    names: Mapping[str, str],
    agents: Mapping[str, Sequence[Agent]],
    scoring: str,
    rooms_dir: Path,
    on_board: Callable[[BoardResult], None],
    external: Sequence[ExternalSeat] = (),
    announce: Callable[[str], None] = print,
    timeout: float | None = None,
    net: Network | None = None,
    announce_json: Callable[[str], None] = print,
    kept: Path | None = None,
    alerters: Mapping[str, Sequence[Alerter | None]] | None = None,
    observe: Callable[[str], Observer] | None = None,
    dd_cost: bool = False,
) -> None:
    """Play ``deals`` in every room over TCP; call ``on_board`` as each board is complete.

    ``names`` maps ``us``/``them`` to the agent specs recorded in the results (an outside seat is
    recorded by the team name it connected with); ``agents`` holds the four agents of each room
    (N, E, S, W), unused at external seats. ``announce`` gets sentences (where to connect,
    reminders), ``announce_json`` one JSON object per outside seat. ``kept`` (a file) holds each
    room's result of a board the other rooms have not finished yet, so a resumed match does not
    play it again in that room (a room with nothing left is not opened).
    ``alerters`` (by room, N, E, S, W) alert our seats' artificial calls, for a person who
    reads them (``bridgebot play``); a match of bots alerts nothing. ``observe(room)``, if given,
    is the observer of that room's table manager (:mod:`server.table_events`: the live tables).
    ``dd_cost``: each complete board's cards are costed double-dummy before ``on_board``
    (:func:`tournament.ddcost.with_costs`: a solve per card) on a thread of its own, so that the
    tables go on playing while the solver works (the solver releases the interpreter and is
    serialised by its lock); boards reach ``on_board`` in the order they were completed, and
    every board being costed reaches it before this returns or raises, the match stopped or not.
    Raises :class:`MatchStopped` when an outside seat does not come (back) in time, or a
    complete board cannot be costed (its rooms stay kept, so a resume completes it).
    """
    net = net or Network()
    by_number = {d.number: d for d in deals}
    teams = {s.room: wire_teams(s, net) for s in rooms}
    pending = KeptRooms.load(kept, by_number)
    stop = asyncio.Event()
    stopped: list[str] = []

    def end(reason: str) -> None:
        if not stopped:
            stopped.append(reason)
        stop.set()

    managers: dict[str, TableManager] = {}

    def seat_names(s: Seating, result: TableResult) -> tuple[str, str, str, str]:
        """Who played each seat: the agent spec, or the team an outside seat connected with."""
        played = (result.ns_team, result.ew_team)
        out = [
            played[p.value % 2] or teams[s.room][p.value % 2]
            if ExternalSeat(s.room, p) in external
            else names[s.teams[p.value]]
            for p in Player
        ]
        return out[0], out[1], out[2], out[3]

    def finished(room: str, _table: int, result: TableResult) -> None:
        if result.aborted is not None:
            end(f"room {room}, board {result.board.number} abandoned: {result.aborted}")
            return
        number = result.board.number
        deal = by_number[number]
        seating = next(s for s in rooms if s.room == room)
        try:
            scored = room_result(deal, seating, seat_names(seating, result), result, scoring)
        except RoomError as exc:
            end(str(exc))
            return
        got = pending.add(number, scored)
        if len(got) == len(rooms):
            complete(number, got)

    costing: list[asyncio.Task[None]] = []  # boards with the solver, in order of completion
    coster = (
        concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="dd-cost") if dd_cost else None
    )

    async def costed(board: BoardResult, before: asyncio.Task[None] | None) -> None:
        assert coster is not None
        try:
            board = await asyncio.get_running_loop().run_in_executor(coster, with_costs, board)
        except Exception as exc:  # a CostError, or a solver's failure: the rooms stay kept
            why = str(exc) if isinstance(exc, CostError) else repr(exc)
            end(f"board {board.board}: cannot cost its play: {why}")
            return
        finally:
            if before is not None:  # journaled in the order completed (one thread: no wait)
                await asyncio.gather(before, return_exceptions=True)
        on_board(board)

    def complete(number: int, got: Mapping[str, TableRecord]) -> None:
        results = tuple(got[s.room] for s in rooms)
        board = BoardResult(
            rooms=results, imps=board_imps(fmt, {r.room: r.score() for r in results})
        )
        if coster is None:
            on_board(board)
            return
        costing.append(asyncio.create_task(costed(board, costing[-1] if costing else None)))

    ours = {net.us_name, net.them_name, *(t for pair in teams.values() for t in pair)}
    allowed = net.allow_addresses
    if allowed is not None:
        allowed = (*allowed, ipaddress.ip_network(net.local))
    limits = Limits(
        handshake_timeout=None,  # the match bounds the wait for outside seats itself
        allow_teams=None if net.allow_teams is None else frozenset(net.allow_teams | ours),
        allow_addresses=allowed,
        reconnect_timeout=net.reconnect_timeout if external else None,
    )
    table_boards = list(deals)  # the one board type: the table plays them as they are
    for number, got in sorted(pending.results.items()):
        if len(got) == len(rooms):  # killed after keeping the last room, before the journal
            complete(number, got)
    rooms_open = [s for s in rooms if len(pending.done(s.room)) < len(deals)]
    for s in rooms_open:
        managers[s.room] = TableManager(
            table_boards, rooms_dir / s.room, host=net.host, port=net.ports.get(s.room, 0),
            limits=limits, skip={1: pending.done(s.room)},
            on_board=functools.partial(finished, s.room),  # each board once it is journaled
            observer=None if observe is None else observe(s.room),
        )  # fmt: skip
    tasks: list[asyncio.Task[Any]] = []
    everything: asyncio.Future[Any] | None = None
    try:
        wanted: list[dict[str, Any]] = []
        for s in rooms_open:
            tm = managers[s.room]
            try:
                _, port = await tm.start()
            except OSError as exc:
                raise RoomError(f"room {s.room}: cannot listen on {net.host} port "
                                f"{net.ports.get(s.room, 0)}: {exc.strerror or exc}") from None  # fmt: skip
            tasks.append(asyncio.create_task(tm.serve()))
            for p in Player:
                team = teams[s.room][p.value % 2]
                if ExternalSeat(s.room, p) in external:
                    wanted.append({"room": s.room, "seat": p.name.capitalize(),
                                   "host": net.reachable(), "port": port, "team": team})  # fmt: skip
                    continue
                alerter = None if alerters is None else alerters.get(s.room, [None] * 4)[p.value]
                client = SeatClient(
                    net.local, port, p, team, agents[s.room][p.value], idle_timeout=timeout,
                    local_host=net.local, alerter=alerter,
                )  # fmt: skip
                tasks.append(asyncio.create_task(client.run()))
        everything = asyncio.gather(*tasks)
        if wanted:
            _announce(wanted, net, announce, announce_json)
            tasks.append(asyncio.create_task(_watch(wanted, managers, net, announce, end)))
        stopper: asyncio.Future[Any] = asyncio.create_task(stop.wait())
        await asyncio.wait({everything, stopper}, return_when=asyncio.FIRST_COMPLETED)
        stopper.cancel()
        if everything.done():
            everything.result()  # our own seats' or table managers' failure, as it is
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        # a finished board is never lost: those with the solver are journaled before we return
        costs = await asyncio.gather(*costing, return_exceptions=True)
        if coster is not None:
            coster.shutdown(wait=False)
        if everything is not None and everything.done():
            with contextlib.suppress(BaseException):
                everything.exception()  # retrieved: the tasks' fate was handled above
        for tm in managers.values():
            await tm.close()
    for failed in costs:  # a board its callback could not take (the journal's disk full)
        if isinstance(failed, BaseException):
            raise failed
    if stopped:
        raise MatchStopped(stopped[0])


class KeptRoom(BaseModel):
    """A line of ``rooms-kept.jsonl``: one room's result of a board the other rooms have not
    finished yet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    board: int
    room: TableRecord

    @model_validator(mode="before")
    @classmethod
    def _room_before_records(cls, data: Any, info: ValidationInfo) -> Any:
        """Lines written before :class:`TableRecord` held the room without the board's deal,
        dealer and vulnerability: they come from the match's deal set (the validation context)."""
        deals: Mapping[int, BoardDeal] = (info.context or {}).get("deals", {})
        if not isinstance(data, Mapping) or not isinstance(data.get("room"), Mapping):
            return data
        number = data.get("board")
        deal = deals.get(number) if isinstance(number, int) else None
        if "deal" in data["room"] or deal is None:
            return data
        board = {"board": deal.number, "dealer": deal.dealer.abbr, "vul": vul_text(deal.vul),
                 "deal": deal.pbn}  # fmt: skip
        return {**data, "room": {**board, **data["room"]}}


_KEPT_LINE = TypeAdapter(KeptRoom)


class KeptRooms:
    """Each room's scored result of the boards not yet finished in every room, also appended to
    a file (fsynced; a torn last line is ignored) so that ``--resume`` keeps them."""

    def __init__(self, path: Path | None, results: dict[int, dict[str, TableRecord]]) -> None:
        self.path = path
        self.results = results

    @classmethod
    def load(cls, path: Path | None, deals: Mapping[int, BoardDeal]) -> KeptRooms:
        results: dict[int, dict[str, TableRecord]] = {b: {} for b in deals}
        if path is not None:
            lines = read_lines(path, _KEPT_LINE, context={"deals": deals})
            for _, kept in lines.records:
                if kept.board in results:
                    results[kept.board][kept.room.room] = kept.room
            if lines.torn:  # a kill inside the last write: appending goes after the last line
                JournalWriter(path, keep_bytes=lines.good_bytes).close()
        return cls(path, results)

    def done(self, room: str) -> set[int]:
        return {b for b, got in self.results.items() if room in got}

    def add(self, board: int, result: TableRecord) -> dict[str, TableRecord]:
        """Keep ``result``; return every room's result of ``board`` so far."""
        got = self.results[board]
        got[result.room] = result
        if self.path is not None:
            writer = JournalWriter(self.path)
            try:
                writer.append(KeptRoom(board=board, room=result))
            finally:
                writer.close()
        return got


def _where(w: Mapping[str, Any]) -> str:
    return f"{w['room']}:{w['seat']} (team {w['team']}) at {w['host']} port {w['port']}"


def _announce(
    wanted: list[dict[str, Any]],
    net: Network,
    announce: Callable[[str], None],
    announce_json: Callable[[str], None],
) -> None:
    if net.announce_file is not None:
        tmp = net.announce_file.with_name(net.announce_file.name + ".tmp")
        tmp.write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")
        tmp.replace(net.announce_file)
    for w in wanted:
        announce_json(json.dumps({"external": w}, sort_keys=True))
        announce(
            f"room {w['room']}: waiting for {w['seat']} (team {w['team']}) to connect to "
            f"{w['host']} port {w['port']}"
        )


async def _watch(
    wanted: list[dict[str, Any]],
    managers: Mapping[str, TableManager],
    net: Network,
    announce: Callable[[str], None],
    end: Callable[[str], None],
) -> None:
    """Remind where to connect while an outside seat is missing; stop the match when they have
    not all come within ``wait_external`` seconds."""
    loop = asyncio.get_running_loop()
    start = loop.time()

    seen: set[int] = set()  # seated once: a later absence is the reconnect timeout's business

    def missing() -> list[dict[str, Any]]:
        for i, w in enumerate(wanted):
            if Player.find(w["seat"]) in managers[w["room"]].tables[0].conns:
                seen.add(i)
        return [w for i, w in enumerate(wanted) if i not in seen]

    while missing():
        waited = loop.time() - start
        left = None if net.wait_external is None else net.wait_external - waited
        if left is not None and left <= 0:
            seats = "; ".join(_where(w) for w in missing())
            end(f"outside seats did not connect within {net.wait_external:g} s: {seats}")
            return
        await asyncio.sleep(net.remind_every if left is None else min(net.remind_every, left))
        waited = loop.time() - start
        still = missing()
        if still and (net.wait_external is None or waited < net.wait_external):
            announce(f"still waiting ({waited:.0f} s) for " + "; ".join(_where(w) for w in still))
