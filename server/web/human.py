"""A person at a Blue Chip seat: the seat client with the decisions taken from a browser page.

:class:`HumanSeatClient` is :class:`server.seat.SeatClient` with one change: a call or card the
machine asks for goes to :class:`server.web.table.PersonTable` (which the page answers) instead of
an agent in an executor. While the person thinks the client keeps reading lines, exactly as while a
bot thinks, so a restarted board voids the question; no timeout applies to the person (the seat's
``idle_timeout`` is None unless asked, and a table manager's own timeout is its business). Nothing
here assumes which table manager it sits at.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import structlog
from bridgebot.engine.agent import AgentFactory, BiddingView, PlayView
from bridgebot.engine.parts import CallReader
from bridgebot.laws.notation import call_text
from bridgebot.protocol.seat import BoardFinished, Event, NeedCall, NeedCard, SessionEnded
from bridgebot.server.seat import SeatClient
from bridgebot.server.web.table import FinishedBoard, PersonTable, dd_table
from endplay.types import Bid, Card, Player

_log = structlog.get_logger("bridgebot.web")


class NoAgent:
    """The agent slot of a person's seat: the seat client never asks it (decisions go to the
    page); ``reset`` is the only call it gets."""

    name = "human"

    def reset(self, board: int) -> None:
        return None

    def bid(self, view: BiddingView) -> Bid:
        raise RuntimeError("a person's seat has no agent to ask for a call")

    def play(self, view: PlayView) -> Card:
        raise RuntimeError("a person's seat has no agent to ask for a card")

    def close(self) -> None:
        return None

    def __enter__(self) -> NoAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class HumanSeatClient(SeatClient):
    """A seat client whose decisions come from ``table`` (the person's page).

    ``on_finished(board)`` runs after each finished board (``bridgebot play`` fills in the deal and
    the other room there); the double-dummy table is solved here when the play showed every hand.
    """

    def __init__(
        self,
        host: str,
        port: int,
        seat: Player | None,
        team: str,
        table: PersonTable,
        *,
        on_finished: Callable[[FinishedBoard], None] | None = None,
        **options: Any,
    ) -> None:
        super().__init__(host, port, seat, team, NoAgent(), **options)
        self.table = table
        self.on_finished = on_finished
        self._tasks: set[asyncio.Task[None]] = set()
        table.machine = self.machine

    async def _notice(self, event: Event) -> None:
        if isinstance(event, BoardFinished) and event.final is not None:
            done = self.table.board_finished(event.final)
            if done.hands is not None:
                task = asyncio.create_task(solve(self.table, done))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            if self.on_finished is not None:
                self.on_finished(done)
        elif isinstance(event, SessionEnded):
            self.table.session_ended()

    async def _emit(self, events: list[Event]) -> None:
        await super()._emit(events)
        self.table.changed()  # a line may change the table without an event (a relayed card)

    async def _decide(self, request: NeedCall | NeedCard) -> list[Event]:
        """Ask the person; keep reading lines meanwhile (a restart voids the question)."""
        decision = self.table.ask(request)
        try:
            return await self._await_decision(request, decision)
        finally:
            if not decision.done():  # voided by a restart, or the connection went
                self.table.withdraw()


async def solve(table: PersonTable, done: FinishedBoard) -> None:
    """Fill in the double-dummy table of a finished board whose hands are known (in a thread:
    DDS takes a moment), then tell the page."""
    if done.hands is None or done.dd is not None or done.solving:
        return
    done.solving = True
    pbn = "N:" + " ".join(_pbn_hand(done.hands[s]) for s in "NESW")
    try:
        done.dd = await asyncio.get_running_loop().run_in_executor(None, dd_table, pbn)
    except Exception:  # the table is a courtesy: never lose the board over it
        _log.warning("dd_failed", board=done.final.number, exc_info=True)
    table.changed()


def _pbn_hand(cards: list[str]) -> str:
    return ".".join("".join(c[1] for c in cards if c[0] == s) for s in "SHDC")


def explainer(
    table: PersonTable, load: Callable[[], CallReader | None]
) -> Callable[[int, int], str]:
    """``(board, index) -> meaning``: what call ``index`` of a board on the page means. A call
    its bidder alerted means what the alert said (an opponent's call is never read by our
    policy's guess); any other is read by the reader ``load`` gives (the bots' own, called on
    the first question; one question at a time)."""
    lock = threading.Lock()
    built: list[CallReader | None] = []

    def explain(board: int, index: int) -> str:
        state = _board_state(table, board)
        if not 0 <= index < len(state.auction):
            raise IndexError(f"board {board} has {len(state.auction)} calls")
        call = call_text(state.auction[index])
        alert = state.alerts.get(index)
        if alert:
            return f"{call}: {alert} (alerted by its bidder)"
        seat = Player((state.dealer.value + index) % 4)
        with lock:
            if not built:
                built.append(load())
            reader = built[0]
            found = (
                reader.texts(state.dealer, state.vul, state.auction[: index + 1], [seat])
                if reader is not None
                else []
            )
        text = found[index] if found else None
        return text or f"{call}: no explanation (not alerted)"

    return explain


def _board_state(table: PersonTable, board: int) -> Any:
    machine = table.machine
    if machine is not None and machine.board is not None and machine.board.number == board:
        return machine.board.copy()
    for done in reversed(table.finished):
        if done.final.number == board:
            return done.final
    raise KeyError(f"board {board} is not on the table")


def shipped_reader(make_agent: AgentFactory) -> Callable[[], CallReader | None]:
    """A loader of the shipped agent's reader (agent ``default``): what explains calls at a
    person's seat. Built by the agent factory the composition root hands down, since the root
    alone knows where the shipped models are (``bridgebot/shipped.py``)."""

    def load() -> CallReader | None:
        from bridgebot.engine.explain import reader_of

        return reader_of(make_agent("default", 0), max_hands=8192)

    return load
