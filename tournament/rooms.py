"""Rooms over TCP: one real table manager per room, four seats per table on 127.0.0.1.

Our agents join as :class:`server.seat.SeatClient` tasks in this process; a seat named in
``external`` is left free for another program (WBridge5, Ben, ``bridgebot seat``) and the match
says where to connect (``announce``) and waits for it. Every room's table manager serves all the
boards of the run in one session, so an external program connects once.

A board is finished when every room has finished it; then it is scored (real play or the
double-dummy tricks of the final contract) and handed to ``on_board`` (which journals it) before
anything else happens. The table managers' own records (PBN, journal, transcript) go to
``rooms_dir/ROOM/``, useful for replaying a room with the scripted peers.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from endplay.types import Player

from engine.agent import Agent
from engine.scoring import dd_tricks, ns_score
from protocol.table import BoardResult as TableResult
from protocol.table import TableBoard
from server.records import RecordWriter
from server.seat import SeatClient
from server.tm import TableManager
from tournament.deals import BoardDeal
from tournament.formats import Seating, board_imps
from tournament.records import BoardResult, RoomResult, auction_texts, contract_text, vul_text

#: Team names on the wire: the Blue Chip handshake wants different names for the two sides.
TEAM_NAMES = {0: "NS", 1: "EW"}
#: How results name a seat played by an outside program.
EXTERNAL = "external"


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
            player = Player.find(seat.strip())
        except Exception as exc:
            raise ValueError(f"external seat {text!r}: {seat!r} is not a seat") from exc
        return cls(room.strip(), player)


class _NotifyingWriter(RecordWriter):
    """The table manager's record writer, also telling the match about each finished board."""

    def __init__(
        self, out_dir: Path, room: str, notify: Callable[[str, TableResult], None]
    ) -> None:
        super().__init__(out_dir)
        self._room = room
        self._notify = notify

    def write(self, result: TableResult, table: int = 1) -> dict[str, Any]:
        entry = super().write(result, table)
        self._notify(self._room, result)
        return entry


def room_result(
    deal: BoardDeal, seating: Seating, names: Sequence[str], result: TableResult, scoring: str
) -> RoomResult:
    """Score one room's board: by the tricks actually taken, or double-dummy."""
    if result.aborted is not None:
        raise RoomError(f"board {deal.board}, room {seating.room}: aborted ({result.aborted})")
    contract = result.contract
    tricks: int | None = None
    if contract is not None:
        if scoring == "dd":
            if deal.dd is None:
                raise RoomError(f"board {deal.board} has no double-dummy table")
            tricks = dd_tricks(contract, deal.dd)
        else:
            tricks = result.declarer_tricks
    return RoomResult(
        room=seating.room,
        seats=(names[0], names[1], names[2], names[3]),
        auction=auction_texts(result.auction),
        contract=contract_text(contract),
        tricks=tricks,
        ns_score=0 if contract is None or tricks is None else ns_score(contract, tricks, deal.vul),
        play=tuple(f"{c.suit.abbr}{c.rank.abbr}" for _, c in result.play),
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
) -> None:
    """Play ``deals`` in every room over TCP; call ``on_board`` as each board is complete.

    ``names`` maps ``us``/``them`` to the agent specs recorded in the results; ``agents`` holds
    the four agents of each room (N, E, S, W), unused at external seats.
    """
    by_number = {d.board: d for d in deals}
    seat_names = {
        s.room: [
            EXTERNAL if ExternalSeat(s.room, p) in external else names[s.teams[p.value]]
            for p in Player
        ]
        for s in rooms
    }
    pending: dict[int, dict[str, TableResult]] = {d.board: {} for d in deals}
    failures: list[BaseException] = []

    def finished(room: str, result: TableResult) -> None:
        number = result.board.number
        pending[number][room] = result
        if len(pending[number]) < len(rooms) or failures:
            return
        deal = by_number[number]
        got = pending.pop(number)
        try:
            results = tuple(
                room_result(deal, s, seat_names[s.room], got[s.room], scoring) for s in rooms
            )
        except RoomError as exc:
            failures.append(exc)
            raise
        on_board(
            BoardResult(
                board=number,
                dealer=deal.dealer.abbr,
                vul=vul_text(deal.vul),
                deal=deal.pbn,
                rooms=results,
                imps=board_imps(fmt, {r.room: r.ns_score for r in results}),
            )
        )

    table_boards = [TableBoard(d.board, d.dealer, d.vul, d.deal()) for d in deals]
    managers = []
    for s in rooms:
        tm = TableManager(table_boards, rooms_dir / s.room)
        # Swap in a writer that also reports each board to us (same files, same durability).
        writer = _NotifyingWriter(rooms_dir / s.room, s.room, finished)
        tm.records.close()
        tm.records = writer
        for table in tm.tables:
            table.records = writer
        managers.append(tm)
    tasks: list[asyncio.Task[Any]] = []
    try:
        for s, tm in zip(rooms, managers, strict=True):
            host, port = await tm.start()
            tasks.append(asyncio.create_task(tm.serve()))
            for p in Player:
                team = TEAM_NAMES[p.value % 2]
                if ExternalSeat(s.room, p) in external:
                    announce(
                        f"room {s.room}: waiting for {p.name.capitalize()} (team {team}) "
                        f"to connect to {host} port {port}"
                    )
                    continue
                client = SeatClient(
                    host, port, p, team, agents[s.room][p.value], idle_timeout=timeout
                )
                tasks.append(asyncio.create_task(client.run()))
        await asyncio.gather(*tasks)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    if failures:
        raise failures[0]
