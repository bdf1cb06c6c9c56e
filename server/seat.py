"""The asyncio seat client: TCP, line framing, logging and the bot, around :mod:`protocol.seat`.

The protocol decisions all live in the sans-IO :class:`protocol.seat.SeatMachine`; this shell only
moves lines between the socket and the machine and turns the machine's requests into
``BiddingView``/``PlayView`` for the :class:`engine.agent.Agent`, which runs in an executor so the
event loop keeps reading while the bot thinks (a mid-board ``Start of board`` then voids the
pending decision instead of being answered late).

Failures say whose they were: :class:`TableConnectionError` (could not connect, or the table
manager went away before ``End of session``), ``RemoteProtocolError`` (the table manager broke
the protocol), :class:`AgentError` (our bot failed or answered something illegal).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
from bridgebot.engine import agent as views
from bridgebot.engine.agent import Agent, BiddingView, PlayView
from bridgebot.laws.calls import same_call
from bridgebot.laws.notation import call_text
from bridgebot.laws.notation import result_text as notation_result_text
from bridgebot.protocol.codec import render
from bridgebot.protocol.dialect import DEFAULT_DIALECT, Dialect
from bridgebot.protocol.errors import LineTooLong, LocalProtocolError, RemoteProtocolError
from bridgebot.protocol.framing import LineBuffer, encode_line
from bridgebot.protocol.messages import Message
from bridgebot.protocol.seat import (
    BoardFinished,
    BoardStarted,
    DummyForm,
    Event,
    Ignored,
    NeedCall,
    NeedCard,
    SeatMachine,
    Send,
    SessionEnded,
    TableError,
)
from endplay.types import Bid, Card, Player


class TableConnectionError(ConnectionError):
    """The table manager could not be reached, or closed the connection before the session ended."""


class AgentError(RuntimeError):
    """Our own bot failed: it raised, or it chose a call or card outside ``view.legal``."""


@dataclass(frozen=True)
class SessionSummary:
    """What a finished session did, for the CLI and the tournament."""

    seat: Player
    team: str
    boards: int
    """Boards played to the end (passed-out boards included, restarted ones not)."""
    board_numbers: tuple[int, ...]
    lines_in: int
    lines_out: int


_EOF = object()


class SeatClient:
    """One bot at one seat of a Blue Chip table manager.

    ``seat`` None connects ``as ANYPL`` and takes the seat the table manager assigns.
    ``executor`` runs the agent (default: a private single thread, so agent calls never overlap).
    ``connect_retries`` extra attempts, ``retry_delay`` seconds apart, cover a table manager that
    is still starting (ComputerBridge's client retries 30 times, 2 s apart). ``idle_timeout``
    (seconds, None = wait for ever, as the spec defines no timeouts) bounds each wait for a line.
    """

    def __init__(
        self,
        host: str,
        port: int,
        seat: Player | None,
        team: str,
        agent: Agent,
        *,
        dialect: Dialect = DEFAULT_DIALECT,
        dummy_form: DummyForm = "self",
        connect_retries: int = 10,
        retry_delay: float = 0.5,
        idle_timeout: float | None = None,
        max_line: int = 4096,
        version: int = 18,
        extra: str = "",
        executor: concurrent.futures.Executor | None = None,
        alerter: Alerter | None = None,
        local_host: str | None = None,
    ) -> None:
        self.host = host
        self.local_host = local_host
        """Source address to connect from (None: the system's choice); a match binds its own
        seats to the address it serves, so an allow-list of outside addresses admits them."""
        self.port = port
        self.agent = agent
        self.alerter = alerter
        self.dialect = dialect
        self.connect_retries = connect_retries
        self.retry_delay = retry_delay
        self.idle_timeout = idle_timeout
        self.machine = SeatMachine(
            team, seat, dialect=dialect, dummy_form=dummy_form, version=version, extra=extra
        )
        self._buffer = LineBuffer(max_line)
        # One worker by default: calls to the agent never overlap, even when a restarted board
        # leaves a stale decision running while the new board's reset() and bid() arrive.
        self._own_executor = executor is None
        self._executor = executor or concurrent.futures.ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="seat-agent"
        )
        self._lines: asyncio.Queue[str | BaseException | object] = asyncio.Queue()
        self._writer: asyncio.StreamWriter | None = None
        self._lines_in = 0
        self._lines_out = 0
        self._boards: list[int] = []
        self._log: Any = structlog.get_logger("bridgebot.seat").bind(
            role="seat",
            seat="ANYPL" if seat is None else seat.name.capitalize(),
            table=f"{host}:{port}",
        )

    # ------------------------------------------------------------------ public

    async def run(self) -> SessionSummary:
        """Connect, play until ``End of session``, close; return what was played."""
        reader, writer = await self._connect()
        self._writer = writer
        pump = asyncio.create_task(self._pump(reader))
        try:
            await self._emit(self.machine.connect())
            while not self.machine.ended:
                line = await self._next_line()
                await self._emit(self.machine.receive_line(line))
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
            if self._own_executor:
                self._executor.shutdown(wait=False, cancel_futures=True)
        return SessionSummary(
            seat=self.machine.seat,
            team=self.machine.team,
            boards=self.machine.boards_finished,
            board_numbers=tuple(self._boards),
            lines_in=self._lines_in,
            lines_out=self._lines_out,
        )

    # ------------------------------------------------------------------ transport

    async def _connect(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        attempts = self.connect_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                local = None if self.local_host is None else (self.local_host, 0)
                return await asyncio.open_connection(self.host, self.port, local_addr=local)
            except OSError as exc:
                if attempt == attempts:
                    raise TableConnectionError(
                        f"cannot connect to the table manager at {self.host}:{self.port} "
                        f"after {attempts} attempt(s): {exc.strerror or exc}"
                    ) from exc
                self._log.info("connect retry", attempt=attempt, error=str(exc))
                await asyncio.sleep(self.retry_delay)
        raise AssertionError("unreachable")

    async def _pump(self, reader: asyncio.StreamReader) -> None:
        """Split the byte stream into lines (bounded) and queue them; EOF and errors too."""
        try:
            while True:
                data = await reader.read(4096)
                if not data:
                    for line in self._buffer.close():
                        self._lines.put_nowait(line)
                    self._lines.put_nowait(_EOF)
                    return
                try:
                    lines = self._buffer.feed(data)
                except LineTooLong as exc:
                    self._lines.put_nowait(
                        RemoteProtocolError(
                            f"table manager sent a line over {self._buffer.max_line} bytes",
                            line=exc.line,
                        )
                    )
                    return
                for line in lines:
                    self._lines.put_nowait(line)
        except OSError as exc:
            self._lines.put_nowait(exc)

    async def _next_line(self) -> str:
        try:
            item = await asyncio.wait_for(self._lines.get(), self.idle_timeout)
        except TimeoutError:
            raise TableConnectionError(
                f"no line from the table manager at {self.host}:{self.port} for "
                f"{self.idle_timeout}s ({self._where()})"
            ) from None
        if isinstance(item, str):
            self._lines_in += 1
            self._log.debug("line", dir="in", line=item)
            return item
        if isinstance(item, RemoteProtocolError):
            raise item
        reason = "closed the connection" if item is _EOF else f"connection failed: {item}"
        if self.machine.last_error is not None:  # the table manager said why before closing
            reason += f" after saying {self.machine.last_error!r}"
        raise TableConnectionError(
            f"table manager at {self.host}:{self.port} {reason} before End of session "
            f"({self._where()})"
        )

    async def _write(self, msg: Message) -> None:
        assert self._writer is not None
        text = render(msg, self.dialect)
        self._log.debug("line", dir="out", line=text)
        try:
            self._writer.write(encode_line(text))
            await self._writer.drain()
        except OSError as exc:
            raise TableConnectionError(
                f"lost the table manager at {self.host}:{self.port} while sending "
                f"{text!r} ({self._where()}): {exc}"
            ) from exc
        self._lines_out += 1

    def _where(self) -> str:
        board = self.machine.board
        at = self.machine.phase.value.replace("_", " ")
        return at if board is None else f"board {board.number}, {at}"

    # ------------------------------------------------------------------ events

    async def _emit(self, events: list[Event]) -> None:
        """Carry out the machine's events; a request may produce more events, handled in turn."""
        queue = list(events)
        while queue:
            event = queue.pop(0)
            await self._notice(event)
            if isinstance(event, Send):
                await self._write(event.message)
            elif isinstance(event, BoardStarted):
                seat = self.machine.seat.name.capitalize()
                self._log = self._log.bind(seat=seat, board=event.number)
                await asyncio.get_running_loop().run_in_executor(
                    self._executor, self.agent.reset, event.number
                )
            elif isinstance(event, NeedCall | NeedCard):
                queue = (await self._decide(event)) + queue
            elif isinstance(event, BoardFinished):
                self._boards.append(event.number)
                self._log.info("board finished", contract=result_text(event))
            elif isinstance(event, Ignored):
                self._log.debug("ignored", message=type(event.message).__name__)
            elif isinstance(event, SessionEnded):
                self._log.info("end of session", boards=event.boards)
            elif isinstance(event, TableError):
                self._log.warning("table manager error", text=event.text)

    async def _notice(self, event: Event) -> None:
        """Called with every event, in order, before it is carried out: a hook for subclasses
        (the person's seat shows finished boards); the bot's seat has nothing to add."""

    async def _decide(self, request: NeedCall | NeedCard) -> list[Event]:
        """Ask the agent in the executor while still reading lines; return the machine's events.

        A line that arrives while the bot thinks goes to the machine at once: ``Timing`` is
        ignored, but ``Start of board`` voids the request and ``End of session`` ends it all.
        """
        loop = asyncio.get_running_loop()
        decision: asyncio.Future[Bid | Card] = loop.run_in_executor(
            self._executor, self._ask_agent, request
        )
        try:
            return await self._await_decision(request, decision)
        except BaseException:
            decision.add_done_callback(_discard)
            raise

    async def _await_decision(
        self, request: NeedCall | NeedCard, decision: asyncio.Future[Bid | Card]
    ) -> list[Event]:
        events: list[Event] = []
        while True:
            getter = asyncio.ensure_future(self._next_line())
            racing: set[asyncio.Future[Any]] = {decision, getter}
            try:
                done, _ = await asyncio.wait(racing, return_when=asyncio.FIRST_COMPLETED)
            except BaseException:  # cancelled while deciding: the read goes too, unread
                getter.cancel()
                raise
            if getter in done:
                events += self.machine.receive_line(getter.result())
                if self.machine.pending is not request:
                    decision.add_done_callback(_discard)
                    return events
                if decision not in done:
                    continue
            else:
                getter.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await getter
            answer = decision.result()
            if isinstance(request, NeedCall):
                assert isinstance(answer, Bid)
                return events + self.machine.answer_call(answer)
            assert isinstance(answer, Card)
            return events + self.machine.answer_card(answer)

    def _ask_agent(self, request: NeedCall | NeedCard) -> Bid | Card:
        """Build the view, ask the agent, check the answer (runs in the executor); an artificial
        call gets its ``Alert.`` text from the alerter."""
        answer = decide(self.agent, request)
        if self.alerter is None or not isinstance(request, NeedCall):
            return answer
        assert isinstance(answer, Bid)
        try:
            text = self.alerter(bidding_view(request), answer)
        except Exception:  # an explanation must never cost the call itself
            self._log.warning("alert_failed", board=request.board, exc_info=True)
            return answer
        return answer if text is None else alerted(answer, text)


#: ``(view, call) -> Alert. text or None``: what to tell the opponents about our call.
Alerter = Callable[[BiddingView, Bid], str | None]


def alerted(call: Bid, text: str) -> Bid:
    """A fresh copy of ``call`` marked alertable with ``text`` (calls like ``laws.calls.PASS``
    are shared constants: never mark those in place)."""
    copy = Bid(call_text(call))
    copy.alertable = True
    copy.announcement = text
    return copy


def bidding_view(request: NeedCall) -> BiddingView:
    """The agent's view of a call request, less the calls the TM already refused this turn."""
    return views.bidding_view(
        request.dealer, request.vul, request.hand, request.auction, request.board, request.rejected
    )


def play_view(request: NeedCard) -> PlayView:
    """The agent's view of a card request (``seat`` is whose card, ``controller`` who decides),
    less the cards the TM already refused this turn."""
    return views.play_view(
        seat=request.player,
        controller=request.controller,
        dealer=request.dealer,
        vul=request.vul,
        auction=request.auction,
        contract=request.contract,
        hand=request.hand,
        dummy=request.dummy,
        played=request.played,
        board=request.board,
        refused=request.rejected,
    )


def decide(agent: Agent, request: NeedCall | NeedCard) -> Bid | Card:
    """Ask ``agent`` for the call or card ``request`` wants; ``AgentError`` if it fails or
    answers outside ``view.legal``. Synchronous: the seat client runs it in its executor."""
    name = getattr(agent, "name", type(agent).__name__)
    if isinstance(request, NeedCall):
        view = bidding_view(request)
        try:
            call = agent.bid(view)
        except Exception as exc:
            raise AgentError(f"agent {name} failed to call on board {view.board}") from exc
        if not any(same_call(call, c) for c in view.legal):
            raise AgentError(f"agent {name} chose {call}, not a legal call here")
        return call
    pview = play_view(request)
    try:
        card = agent.play(pview)
    except Exception as exc:
        raise AgentError(
            f"agent {name} failed to play {request.player.name}'s card on board {pview.board}"
        ) from exc
    if card not in pview.legal:
        raise AgentError(f"agent {name} chose {card} for {request.player.name}, not legal")
    return card


def failure_line(label: str, exc: Exception) -> str:
    """The one line for a session that failed: whose fault (the connection, the table manager,
    or our own code) and why."""
    if isinstance(exc, ConnectionError):
        return f"bridgebot seat {label}: connection: {exc}"
    who = "our own code" if isinstance(exc, LocalProtocolError) else "table manager"
    return f"bridgebot seat {label}: protocol error ({who}): {exc}"


def _discard(future: asyncio.Future[Any]) -> None:
    """Consume the result of a decision nobody waits for any more (a restarted board)."""
    if not future.cancelled():
        future.exception()


def result_text(event: BoardFinished) -> str:
    """The board's result as records write it: ``4HS=``, ``3NTN-2``, ``2SXE+1``, ``passed out``
    (:func:`laws.notation.result_text`, the pages' and reports' notation too; endplay's
    ``Contract`` prints every contract as made when its result is not set)."""
    return notation_result_text(event.contract, event.declarer_tricks)
