"""``bridgebot play``'s session: a person and three bots in one room, four bots in the other.

A team match of the ``team`` format over TCP rooms (:func:`tournament.rooms.play_rooms`, the
match's own machinery): the person's seat of the open room is left to an outside seat, which a
:class:`server.web.human.HumanSeatClient` in this process takes as soon as the room announces its
port, exactly as any program would. The closed room has four bots and no person, so it runs ahead:
when the person's table finishes a board, the page shows it with the other room's auction,
contract and result and the IMPs once the match has scored the board (which it does only when
both rooms have played it). Boards are journaled as a match journals them, so ``--resume``
continues and the outputs (PBN, LIN, ``report.html``) are the match's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from bridgebot.core.stats import mean_stderr
from bridgebot.engine.agent import AgentFactory
from bridgebot.engine.parts import CallReader
from bridgebot.laws.board_sets import load_boards
from bridgebot.server.seat import Alerter
from bridgebot.server.web.human import HumanSeatClient, solve
from bridgebot.server.web.table import FinishedBoard, PersonTable, hands_of_pbn
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.ddmatch import seated_agents
from bridgebot.tournament.journal import Journal
from bridgebot.tournament.outputs import write_outputs
from bridgebot.tournament.records import AgentMarks, BoardResult, MatchSummary
from bridgebot.tournament.rooms import ExternalSeat, Network, play_rooms
from bridgebot.tournament.seatings import seatings
from endplay.types import Player

_log = structlog.get_logger("bridgebot.play")

#: The person's team on the wire, and the bots' (the person's partner is a bot of the person's team).
PERSON_TEAM, BOTS_TEAM = "you", "bots"
#: The room the person sits in (the ``team`` format's open room).
ROOM = "open"


@dataclass
class PlayOptions:
    seat: Player
    agent: str
    out: Path
    boards: int
    seed: int
    deals: Path | None = None
    resume: bool = False
    alerts: bool = True
    fresh_seed: bool = False
    """The seed was drawn for this session (the command says which, to deal the boards again)."""
    make_agent: AgentFactory = field(kw_only=True)
    agent_marks: Callable[[str], AgentMarks] | None = field(default=None, kw_only=True)
    """What identifies the bots' agent, for the journal (``MatchConfig``'s)."""

    def config(self) -> MatchConfig:
        """The match this session is (its journal header, its network and its rooms)."""
        ns = self.seat in (Player.north, Player.south)
        net = Network(
            wait_external=None,
            reconnect_timeout=None,
            remind_every=3600.0,
            us_name=PERSON_TEAM if ns else BOTS_TEAM,
            them_name=BOTS_TEAM if ns else PERSON_TEAM,
        )
        return MatchConfig(
            us=self.agent,
            them=self.agent,
            out=self.out,
            boards=self.boards,
            deals=self.deals,
            seed=self.seed,
            fmt="team",
            scoring="play",
            resume=self.resume,
            rooms="tcp",
            external=(ExternalSeat(ROOM, self.seat),),
            net=net,
            make_agent=self.make_agent,
            agent_marks=self.agent_marks,
        )

    def title(self) -> str:
        """The reports' title: it names the person, on the side whose IMPs the report counts
        (the match's ``us``, North-South of the open room)."""
        person = f"you ({self.seat.name.capitalize()}) and {self.agent}"
        return (
            f"{person} against {self.agent}" if self.sign > 0 else f"{self.agent} against {person}"
        )

    @property
    def sign(self) -> int:
        """+1 when the person's side is the match's ``us`` (North-South of the open room)."""
        return 1 if self.seat in (Player.north, Player.south) else -1


def other_room(board: BoardResult, sign: int) -> dict[str, Any]:
    """What the page shows of the other room's board, with the IMPs for the person's side."""
    other = board.room("closed")
    return {
        "auction": list(other.auction),
        "contract": None if other.contract is None else f"{other.contract}{other.declarer}",
        "result": other.contract_result_text(),
        "score_ns": other.score_ns,
        "imps": sign * board.imps,
        "seats": list(other.seats or ()),
    }


class PlaySession:
    """One ``bridgebot play`` session on the running loop: rooms, the person's seat, the journal.

    ``say`` gets a line per finished board (the command prints it on stderr).
    """

    def __init__(self, options: PlayOptions, table: PersonTable, say: Callable[[str], None]):
        self.options = options
        self.table = table
        self.say = say
        self.cfg = options.config()
        self.results: dict[int, BoardResult] = {}
        self.human: asyncio.Task[Any] | None = None
        self._seat_started = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ scoring

    def _scored(self, board: BoardResult) -> None:
        """A board both rooms have played: journaled by the caller; show it with the person's."""
        self.results[board.board] = board
        for done in self.table.finished:
            if done.final.number == board.board:
                self._complete(done)
        imps = self.options.sign * board.imps
        mine = board.room(ROOM).contract_result_text()
        self.say(
            f"board {board.board}: your table {mine}, other room "
            f"{board.room('closed').contract_result_text()}: {imps:+d} IMPs"
        )

    def _complete(self, done: FinishedBoard) -> None:
        board = self.results.get(done.final.number)
        if board is None or done.complete:
            return
        done.hands = hands_of_pbn(board.room(ROOM).deal)
        done.other = other_room(board, self.options.sign)
        done.complete = True
        self.table.changed()
        if done.dd is None:  # the seat solves what the play showed; a passed-out board: here
            task = asyncio.get_running_loop().create_task(solve(self.table, done))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    # ------------------------------------------------------------------ the person's seat

    def _announced(self, text: str) -> None:
        """The room says where its outside seat connects: the person's seat goes there."""
        try:
            where = json.loads(text)["external"]
        except (ValueError, KeyError, TypeError):
            return
        if self.human is not None:
            return
        client = HumanSeatClient(
            where["host"],
            int(where["port"]),
            self.options.seat,
            where["team"],
            self.table,
            on_finished=self._complete,
            connect_retries=20,
            retry_delay=0.25,
        )
        self.human = asyncio.get_running_loop().create_task(client.run())
        self._seat_started.set()

    # ------------------------------------------------------------------ the session

    async def run(self) -> MatchSummary:
        """Play every board not yet journaled; write the match outputs; return the summary."""
        cfg = self.cfg
        deals = load_boards(
            deals=cfg.deals,
            seed=self.options.seed,
            boards=self.options.boards,
            default=self.options.boards,
        )
        cfg.out.mkdir(parents=True, exist_ok=True)
        header = cfg.header()
        with Journal(cfg.out / "journal.jsonl", header, resume=cfg.resume) as journal:
            results = list(journal.done)
            done = {b.board for b in results}
            todo = [d for d in deals if d.number not in done]

            def finish(board: BoardResult) -> None:
                journal.write(board)
                results.append(board)
                self._scored(board)

            if todo:
                await self._play(todo, finish)
        loop = asyncio.get_running_loop()
        summary = await loop.run_in_executor(
            None, write_outputs, cfg.out, header, results, cfg.make_agent, self.options.title()
        )
        self.table.summary = self.summary(results)
        self.table.ended = True
        self.table.changed()
        return summary

    def summary(self, results: list[BoardResult]) -> dict[str, Any]:
        swings = [self.options.sign * b.imps for b in sorted(results, key=lambda b: b.board)]
        mean, se = mean_stderr(swings) if swings else (0.0, float("nan"))
        return {
            "boards": len(swings),
            "imps": sum(swings),
            "imps_per_board": mean,
            "stderr": se if len(swings) > 1 else None,
            "report": "/report.html",
            "out": str(self.cfg.out),
        }

    async def _play(self, todo: list[Any], finish: Callable[[BoardResult], None]) -> None:
        cfg = self.cfg
        opts = self.options
        with seated_agents(
            cfg.make_agent, cfg.us, cfg.them, seatings(cfg.fmt), opts.seed
        ) as agents:
            alerters: dict[str, list[Alerter | None]] = {}
            if opts.alerts:
                alerters[ROOM] = [
                    None if p == opts.seat else _alerter(agents[ROOM][p.value]) for p in Player
                ]
            rooms = asyncio.get_running_loop().create_task(
                play_rooms(
                    todo,
                    cfg.fmt,
                    seatings(cfg.fmt),
                    {"us": cfg.us, "them": cfg.them},
                    agents,
                    cfg.scoring,
                    cfg.out / "rooms",
                    finish,
                    external=cfg.external,
                    announce=lambda text: _log.debug("room", text=text),
                    net=cfg.net,
                    announce_json=self._announced,
                    kept=cfg.out / "rooms-kept.jsonl",
                    alerters=alerters,
                )
            )
            try:
                await self._until_done(rooms)
            finally:
                for task in (rooms, self.human):
                    if task is not None and not task.done():
                        task.cancel()
                        with contextlib.suppress(BaseException):
                            await task

    async def _until_done(self, rooms: asyncio.Task[None]) -> None:
        """Wait for the rooms; a failure of the person's seat ends them too."""
        started = asyncio.get_running_loop().create_task(self._seat_started.wait())
        await asyncio.wait({rooms, started}, return_when=asyncio.FIRST_COMPLETED)
        if rooms.done():
            started.cancel()
            rooms.result()
            return
        assert self.human is not None
        await asyncio.wait({rooms, self.human}, return_when=asyncio.FIRST_COMPLETED)
        if self.human.done() and not rooms.done():
            self.human.result()  # the person's seat failed: say why
            await rooms  # it ended cleanly (End of session): the rooms finish
        await rooms
        await self.human


def _alerter(agent: object) -> Alerter | None:
    """Alerts from the bot's reader of its own calls (``bridgebot seat``'s, a little cheaper)."""
    from bridgebot.engine.explain import reader_of

    reader = reader_of(agent, max_hands=2048, target=200)
    return None if reader is None else reader.alert_for


def reader_for(agent: str, make_agent: AgentFactory) -> CallReader | None:
    """The reader that explains calls on the page: the bots' own (the agent stays open for the
    session: its parts are in use), else the shipped agent's (bfg and random say nothing)."""
    from bridgebot.engine.explain import reader_of
    from bridgebot.server.web.human import shipped_reader

    bot = make_agent(agent, 0)
    reader = reader_of(bot, max_hands=8192)
    if reader is None:
        bot.close()
        return shipped_reader(make_agent)()
    return reader
