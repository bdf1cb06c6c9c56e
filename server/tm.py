"""The asyncio table manager: sockets, timers, records and logs around ``protocol.table``.

One process serves one or more tables on one listening port (the seat and team come from the
``Connecting`` line; a connection goes to the first table that can seat it), optionally also on the
classic four ports of one table, one per seat. Everything the protocol decides lives in
:class:`protocol.table.TableMachine` (legality included, through ``bridgebot.laws``); this module
only moves lines, keeps time, and writes what happened:

* every line in and out is logged once (structlog, debug, bound ``table`` and ``seat``) and
  written to ``DIR/transcript-<table>.txt`` in docs/protocol.md's section 6 format, so a session can be
  replayed by the scripted peers of ``server.testing``;
* each finished board goes to the table manager's records (by default ``DIR/boards.pbn`` and
  ``DIR/journal.jsonl`` through :class:`server.records.RecordWriter`, fsynced), then to the
  ``on_board`` hook, both before the next board starts.

Three hooks let a caller (a match of several rooms, a test, the live tables of
``server.web.spectator``) follow the session without reaching inside: ``records`` replaces the
record writer (:class:`BoardRecorder`), ``on_board(table, result)`` is called with each finished
board, in order, once it is durably recorded, and ``observer(table, event)`` is told each seat that
comes or goes, each board started, call relayed and card played, each board finished (after
``on_board``) and the end of the session (:mod:`server.table_events`; an observer that raises is logged,
never lets the table down). Every timer
(handshake, per-board timeout, reconnection, closing) runs on the running event loop's clock
(``loop.time()``), so a test loop with a virtual clock (:mod:`server.testing`) drives them all; only
the Timing line's thinking time reads the injected ``clock``.

Bad input from a seat is logged with the seat and counted against a per-board junk budget. A line
that is not a message at all is not answered (several clients, bridge-player and Ben, stop on a
line they do not know); a message the machine refuses (a call or card out of turn, a message in
another seat's name) is answered at once with one ``Error: <Seat>: <reason>`` line, and the seat's
queue goes on (docs/protocol.md 3.1, "the one rule"). ``max_junk`` bad lines in one board drop the
connection (the seat is held for the same team; the board restarts when it is back). Refusals
before a seat is given (taken seat, team name rules, not a ``Connecting`` line) are answered with
an error line, then the socket is closed, as the spec says. Every error line is written to the
transcript and the line log like any other line.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

import structlog
from bridgebot.laws.calls import seat_of_call
from bridgebot.laws.notation import call_text, card_text, contract_text, vul_text
from bridgebot.protocol.codec import Direction, parse, render
from bridgebot.protocol.dialect import DEFAULT_DIALECT, Dialect
from bridgebot.protocol.errors import LineTooLong, ParseError, ProtocolError, RemoteProtocolError
from bridgebot.protocol.framing import LineBuffer, encode_line
from bridgebot.protocol.messages import (
    CallMsg,
    Connect,
    ErrorText,
    IllegalBid,
    IllegalCard,
    Message,
    PlayMsg,
    Teams,
)
from bridgebot.protocol.table import SEATS, Phase, SeatState, TableBoard, TableMachine, TableResult
from bridgebot.server import table_events
from bridgebot.server.guard import DEFAULT_LIMITS, ConnectionGuard, Limits
from bridgebot.server.records import RecordWriter, SessionHeader, table_record
from endplay.types import Player

#: What a peer gets when its first line is not a ``Connecting`` line (ComputerBridge's text).
EXPECTED_CONNECT = "Expected 'Connecting .... as ... using protocol version ..'"


def seat_name(p: Player) -> str:
    return p.name.capitalize()


class BoardRecorder(Protocol):
    """Where finished boards go: :class:`server.records.RecordWriter` unless the caller gives
    another. ``write`` must be durable when it returns (the next board starts right after)."""

    def write(self, result: TableResult, table: int) -> object: ...

    def close(self) -> None: ...


#: ``on_board(table, result)``: called with each finished board, in order, after it is recorded.
OnBoard = Callable[[int, TableResult], None]


@dataclass(frozen=True)
class TableOptions:
    """Per-table policy. ``timeout`` (seconds) bounds how long the table waits without progress
    in a board before it aborts the board (None: wait for ever, the spec's behaviour).
    ``relay_alerts`` False relays every call bare: ComputerBridge sends alert text only to v19
    opponents, and a v18 client that splits the line on spaces may not expect it."""

    dialect: Dialect = DEFAULT_DIALECT
    timeout: float | None = None
    max_illegal: int = 3
    max_junk: int = 20
    max_line: int = 4096
    scoring: str | None = None
    relay_alerts: bool = True


class _Conn:
    """One accepted socket; ``seat`` is set once the table manager seats it."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        limits: Limits = DEFAULT_LIMITS,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.limits = limits
        self.overflowed = False
        peer = writer.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.host = str(peer[0]) if isinstance(peer, tuple) else ""
        self.opened = asyncio.get_running_loop().time()
        self.seat: Player | None = None
        self.seated = self.opened
        """When the seated line was sent (``ready for teams`` is owed from then)."""
        self.closed = False

    def write(self, text: str) -> None:
        if not self.closed and not self.writer.is_closing():
            self.writer.write(encode_line(text))
            if self.writer.transport.get_write_buffer_size() > self.limits.max_write_buffer:
                # A peer that does not read what we send (server.guard): drop it rather than
                # hold an ever-growing buffer; its reader sees the end of the stream.
                self.overflowed = True
                self.closed = True
                self.writer.transport.abort()

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(ConnectionError, OSError, RuntimeError):
            if not self.writer.is_closing():
                try:  # a peer that never reads must not hold the close up (server.guard)
                    await asyncio.wait_for(self.writer.drain(), self.limits.close_timeout)
                except TimeoutError:
                    self.writer.transport.abort()
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), self.limits.close_timeout)


class Table:
    """One table: its machine, its four connections, its boards, its transcript."""

    def __init__(
        self,
        number: int,
        boards: Sequence[TableBoard],
        records: BoardRecorder,
        transcript: IO[str] | None,
        options: TableOptions,
        clock: Callable[[], float],
        limits: Limits = DEFAULT_LIMITS,
        keep_results: bool = True,
        on_board: OnBoard | None = None,
        observer: table_events.Observer | None = None,
    ) -> None:
        self.number = number
        self.boards = list(boards)
        self.options = options
        self.limits = limits
        self.keep_results = keep_results
        self.played = 0
        self.aborted = 0
        self.machine = TableMachine(
            clock=clock, max_illegal=options.max_illegal, scoring=options.scoring
        )
        self.records = records
        self.on_board = on_board
        self.observer = observer
        self._told: tuple[int, int] | None = None
        """Calls and cards of the board in play the observer has been told of (None between
        boards)."""
        self.transcript = transcript
        self.conns: dict[Player, _Conn] = {}
        self.results: list[TableResult] = []
        self.log: Any = structlog.get_logger("bridgebot.tm").bind(table=number)
        self._changed = asyncio.Event()
        self.boards_started = 0
        """Boards begun so far (a restart is not a new board); the junk budget is per board."""
        self.teams_sent: dict[Player, float] = {}
        """When each seat was last sent the Teams line (its ``ready to start`` is owed since)."""
        self.stopping = False
        """Set when the table manager shuts down (its ``close``): the seats that go then are
        closed by us, not lost, and are held for no one."""

    # ------------------------------------------------------------------ lines

    def _trace(self, src: str, dst: str, text: str) -> None:
        if self.transcript is not None:
            self.transcript.write(f"{src} -> {dst} : {text}\n")

    def send(self, out: Sequence[tuple[Player, Message]]) -> None:
        """Render and write the machine's output, logging each line once."""
        for seat, msg in out:
            if not self.options.relay_alerts and isinstance(msg, CallMsg):
                msg = CallMsg(seat=msg.seat, call=msg.call)
            text = render(msg, self.options.dialect)
            if isinstance(msg, Teams):
                self.teams_sent[seat] = asyncio.get_running_loop().time()
            self.log.debug("line", seat=seat.name, dir="out", text=text)
            self._trace("TM", seat_name(seat), text)
            conn = self.conns.get(seat)
            if conn is not None and not conn.overflowed:
                conn.write(text)
                if conn.overflowed:  # it does not read what we send (server.guard)
                    self.log.warning("dropping seat", seat=seat.name, reason=f"{seat_name(seat)} "
                                     f"left {conn.limits.max_write_buffer} bytes unread")  # fmt: skip
        if self.transcript is not None:
            self.transcript.flush()

    def tell(self, to: Player | str, conn: _Conn | None, text: str) -> None:
        """Send a free-text line (an ``Error:`` refusal) to one connection, logged and written
        to the transcript like every other line (issue 11: refusals were invisible there)."""
        name = seat_name(to) if isinstance(to, Player) else to
        self.log.debug("line", seat=to.name if isinstance(to, Player) else to, dir="out",
                       text=text)  # fmt: skip
        self._trace("TM", name, text)
        if self.transcript is not None:
            self.transcript.flush()
        if conn is not None:
            conn.write(text)

    def refuse(self, seat: Player, exc: RemoteProtocolError) -> None:
        """Answer a refused message with one error line naming the seat (the early-message
        rule of ``protocol.table``: refused at once, and the seat is told)."""
        who = exc.seat if exc.seat is not None else seat
        self.tell(who, self.conns.get(who), render(ErrorText(f"Error: {seat_name(who)}: "
                                                             f"{exc.message}")))  # fmt: skip

    def received(self, seat: Player, text: str) -> None:
        self.log.debug("line", seat=seat.name, dir="in", text=text)
        self._trace(seat_name(seat), "TM", text)

    def feed(self, seat: Player, msg: Message) -> None:
        """One parsed message from ``seat``: through the machine, out to the seats."""
        try:
            out = self.machine.receive(seat, msg)
        finally:
            self._changed.set()
        self.send(out)
        self._tell_progress()
        for to, reply in out:
            if isinstance(reply, IllegalBid | IllegalCard):
                what = "call" if isinstance(reply, IllegalBid) else "card"
                self.log.warning(f"illegal {what}", seat=to.name, message=repr(msg))
        for err in self.machine.take_errors():
            self.log.warning("protocol error", seat=err.seat.name if err.seat is not None else None,
                             error=str(err))  # fmt: skip
            self.refuse(err.seat if err.seat is not None else seat, err)

    def attach(self, seat: Player, conn: _Conn, team: str) -> None:
        conn.seat = seat
        conn.seated = asyncio.get_running_loop().time()
        self.teams_sent.pop(seat, None)
        self.conns[seat] = conn
        self.send(self.machine.seat(seat, team))
        self.log.info("seated", seat=seat.name, team=team, peer=conn.peer)
        self._observe(table_events.SeatJoined(seat.abbr, team))
        self._changed.set()

    def detach(self, seat: Player, conn: _Conn) -> None:
        if self.conns.get(seat) is not conn:
            return
        del self.conns[seat]
        if self.machine.phase is not Phase.ENDED:
            self.machine.disconnect(seat)
            if self.stopping:  # Ctrl-C or SIGTERM: we close the seats, nothing waits for them
                self.log.info("seat closed; the table manager is stopping", seat=seat.name,
                              phase=self.machine.phase.value)  # fmt: skip
            else:
                self.log.warning("seat disconnected; held for its team", seat=seat.name,
                                 phase=self.machine.phase.value)  # fmt: skip
        self._observe(table_events.SeatLeft(seat.abbr))
        self._changed.set()

    # ------------------------------------------------------------------ the observer

    def _observe(self, event: table_events.TableEvent) -> None:
        """Tell the observer. Its failure goes no further: it is logged once and the observer
        is told nothing more of this table, which plays on."""
        if self.observer is None:
            return
        try:
            self.observer(self.number, event)
        except Exception:
            self.observer = None
            self.log.exception("observer failed; it is told nothing more of this table",
                               what=type(event).__name__)  # fmt: skip

    def _board_started(self, board: TableBoard, restart: bool = False) -> None:
        self._told = (0, 0)
        if self.observer is not None:
            self._observe(table_events.BoardStarted(board.number, board.dealer.abbr, vul_text(board.vul),
                                              board.deal.to_pbn(), restart))  # fmt: skip

    def _tell_progress(self) -> None:
        """Tell the observer the calls relayed and cards played since it was last told: read
        from the board in play, or from the board that has just ended in the same step."""
        m = self.machine
        if self.observer is None:
            return
        if m.current is not None:
            board = m.current.board
            auction, alerts = m.current.auction, m.current.alerts
            plays = [] if m.current.play is None else m.current.play.plays
        elif self._told is not None and m.finished:
            last = m.finished[-1]
            board, auction, alerts, plays = last.board, last.auction, last.alerts, last.play
        else:
            return
        calls, cards = self._told or (0, 0)
        for i in range(calls, len(auction)):
            seat = seat_of_call(board.dealer, i)
            self._observe(table_events.CallMade(board.number, i, seat.abbr, call_text(auction[i]),
                                          alerts.get(i)))  # fmt: skip
        for i in range(cards, len(plays)):
            seat, card = plays[i]
            self._observe(table_events.CardPlayed(board.number, i, seat.abbr, card_text(card)))
        # Once the board has ended, nothing more is told of it until the next one starts.
        self._told = (len(auction), len(plays)) if m.current is not None else None

    # ------------------------------------------------------------------ the session

    async def _wait(self, done: Callable[[], bool], timeout: float | None = None) -> bool:
        """Wait until ``done()``; False if ``timeout`` seconds pass with no progress at all."""
        while not done():
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except TimeoutError:
                return done()
        return True

    async def _wait_for(self, done: Callable[[], bool], seconds: float | None) -> bool:
        """Wait until ``done()``; False once ``seconds`` have passed in all (None: for ever)."""
        loop = asyncio.get_running_loop()
        deadline = None if seconds is None else loop.time() + seconds
        while not done():
            left = None if deadline is None else deadline - loop.time()
            if left is not None and left <= 0:
                return False
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)
        return True

    def _absent(self) -> list[str]:
        return [seat_name(p) for p in SEATS if p not in self.conns]

    async def run(self) -> list[TableResult]:
        """Seat, play every board, journal each, send ``End of session``; return the results."""
        m = self.machine
        await self._wait(lambda: m.phase is Phase.IDLE)
        for i, board in enumerate(self.boards):
            if not await self._wait_for(lambda: m.all_ready, self.limits.reconnect_timeout):
                self.log.warning("session ended: seats did not come back", missing=self._absent(),
                                 unplayed=[b.number for b in self.boards[i:]])  # fmt: skip
                break
            self.log.info("board start", board=board.number)
            self.boards_started += 1
            self.send(m.start_board(board))
            self._board_started(board)
            await self._play_board()
            result = m.finished[-1]
            self.records.write(result, self.number)  # durable before anything else happens
            if self.on_board is not None:
                self.on_board(self.number, result)
            if self.observer is not None:
                self._observe(table_events.BoardFinished(table_record(result, self.number)))
            self.played += result.aborted is None
            self.aborted += result.aborted is not None
            if self.keep_results:
                self.results.append(result)
            else:  # the journal is the record: hold nothing per board (memory flat, issue 7)
                del m.finished[:-1]
            contract = result.contract
            self.log.info("board done", board=board.number,
                          contract=None if contract is None else contract_text(contract),
                          declarer=None if contract is None else seat_name(contract.declarer),
                          tricks=result.declarer_tricks, aborted=result.aborted)  # fmt: skip
        self.send(m.end_session())
        self._observe(table_events.SessionEnded())
        for conn in list(self.conns.values()):
            await conn.close()
        return self.results

    async def _play_board(self) -> None:
        """Wait for the board to end; restart it when a lost seat is back; abort it when
        ``timeout`` seconds pass without a single line from any seat."""
        m = self.machine
        while m.phase is not Phase.IDLE:
            if m.phase is Phase.SUSPENDED and m.all_ready:
                self.log.info("board restart", board=m.board.number if m.board else None)
                self.send(m.restart_board())
                if m.board is not None:
                    self._board_started(m.board, restart=True)
                continue
            if m.phase is Phase.SUSPENDED:  # bounded by Limits.reconnect_timeout (server.guard)
                back = lambda: m.all_ready or m.phase is not Phase.SUSPENDED  # noqa: E731
                if not await self._wait_for(back, self.limits.reconnect_timeout):
                    reason = (f"{', '.join(self._absent())} did not come back within "
                              f"{self.limits.reconnect_timeout:g} s")  # fmt: skip
                    self.log.warning("board aborted", reason=reason)
                    self.send(m.abort_board(reason))
                continue
            self._changed.clear()
            timeout = self.options.timeout
            try:
                await asyncio.wait_for(self._changed.wait(), timeout)
            except TimeoutError:
                reason = f"timeout: no line for {timeout:g} s in {m.describe()}"
                self.log.warning("board aborted", reason=reason)
                self.send(m.abort_board(reason))


class TableManager:
    """Listens, seats connections at tables, runs the tables; ``serve()`` returns at the end."""

    def __init__(
        self,
        boards: Sequence[TableBoard],
        out_dir: str | Path,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        tables: int = 1,
        seat_ports: bool = False,
        options: TableOptions | Sequence[TableOptions] = TableOptions(),
        clock: Callable[[], float] = time.monotonic,
        limits: Limits = DEFAULT_LIMITS,
        skip: Mapping[int, Collection[int]] | None = None,
        keep_results: bool = True,
        session: SessionHeader | None = None,
        records: BoardRecorder | None = None,
        on_board: OnBoard | None = None,
        observer: table_events.Observer | None = None,
    ) -> None:
        """``records``: where finished boards go (default: a :class:`RecordWriter` on
        ``out_dir``, which the table manager closes; a recorder given here is the caller's to
        close). ``on_board(table, result)``: called with each finished board, in order, after
        ``records`` has it. ``session``: the parameters the default writer puts in the journal's
        header (``server.resume``).
        ``skip``: table number -> board numbers already finished (``server.resume``).
        ``keep_results`` False: ``serve()`` returns empty lists and memory stays flat however
        many boards are played (``Table.played``/``aborted`` count them; the journal has them)."""
        if tables < 1:
            raise ValueError("tables must be at least 1")
        if seat_ports and tables != 1:
            raise ValueError("one port per seat serves a single table")
        opts = [options] * tables if isinstance(options, TableOptions) else list(options)
        if len(opts) != tables:
            raise ValueError(f"{len(opts)} table options for {tables} tables")
        if records is not None and session is not None:
            raise ValueError("session is written by the default record writer; give one or neither")
        self.host = host
        self.port = port
        self.seat_ports = seat_ports
        self.limits = limits
        self.guard = ConnectionGuard(limits, seats=4 * tables)
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._own_records = records is None
        self.records: BoardRecorder = (
            RecordWriter(self.out_dir, session) if records is None else records
        )
        self._transcripts = [
            (self.out_dir / f"transcript-{i}.txt").open("a", encoding="utf-8")
            for i in range(1, tables + 1)
        ]
        self.tables = [
            Table(
                i,
                [b for b in boards if b.number not in (skip or {}).get(i, ())],
                self.records,
                self._transcripts[i - 1],
                opts[i - 1],
                clock,
                limits,
                keep_results,
                on_board,
                observer,
            )
            for i in range(1, tables + 1)
        ]
        self.log: Any = structlog.get_logger("bridgebot.tm")
        self._servers: list[asyncio.Server] = []
        self.address: tuple[str, int] | None = None
        self.seat_addresses: dict[Player, tuple[str, int]] = {}
        self._handlers: set[asyncio.Task[None]] = set()

    async def start(self) -> tuple[str, int]:
        """Open the listening socket(s); returns the main (host, port)."""
        server = await asyncio.start_server(self._accept, self.host, self.port)
        self._servers.append(server)
        sock = server.sockets[0].getsockname()
        self.address = (sock[0], sock[1])
        if self.seat_ports:
            for seat in SEATS:
                s = await asyncio.start_server(
                    lambda r, w, p=seat: self._accept(r, w, p),  # type: ignore[misc]
                    self.host,
                    0,
                )
                self._servers.append(s)
                name = s.sockets[0].getsockname()
                self.seat_addresses[seat] = (name[0], name[1])
        return self.address

    async def serve(self) -> list[list[TableResult]]:
        """Run every table to ``End of session``; close everything; return results per table."""
        if self.address is None:
            await self.start()
        try:
            return list(await asyncio.gather(*(t.run() for t in self.tables)))
        finally:
            await self.close()

    async def close(self) -> None:
        """Stop listening and close every connection (at the end of the session, or when the
        command is stopped); records and transcripts are closed last."""
        for table in self.tables:
            table.stopping = True
        for s in self._servers:
            s.close()
        for table in self.tables:
            for conn in list(table.conns.values()):
                await conn.close()
        for task in list(self._handlers):
            task.cancel()
        for s in self._servers:
            with contextlib.suppress(Exception):
                await s.wait_closed()
        for table in self.tables:
            table.transcript = None  # a handler still running may log a refusal, not write it
        for f in self._transcripts:
            f.close()
        if self._own_records:
            self.records.close()

    # ------------------------------------------------------------------ connections

    async def _accept(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        port_seat: Player | None = None,
    ) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._handlers.add(task)
        conn = _Conn(reader, writer, self.limits)
        refusal = self.guard.admit(conn.host)  # connection limit, address allow-list
        try:
            if refusal is None:
                await self._session(conn, port_seat)
            else:
                await self._refuse(conn, "", refusal)
        except asyncio.CancelledError:
            pass
        except Exception:  # a bug of ours: log it with the peer, keep serving the others
            self.log.exception("connection handler failed", peer=conn.peer)
        finally:
            # A handler task must not end cancelled: asyncio's server callback logs that as an
            # error. Closing is the last thing it does, so a cancel here changes nothing.
            with contextlib.suppress(asyncio.CancelledError):
                await conn.close()
            if refusal is None:
                self.guard.release()
            if task is not None:
                self._handlers.discard(task)

    async def _session(self, conn: _Conn, port_seat: Player | None) -> None:
        lines = _LineReader(conn, self.tables[0].options.max_line)
        try:
            first = await asyncio.wait_for(lines.next(), self.limits.handshake_timeout)
        except TimeoutError:
            limit = self.limits.handshake_timeout
            await self._refuse(conn, "", f"Error: no Connecting line within {limit:g} s")
            return
        except LineTooLong as exc:
            # Say why at once (issue 16: this used to wait for the rest of the line), then read
            # the rest of the flood (bounded) so that closing does not reset the connection
            # before the peer has read the reason.
            reason = "Error: line too long"
            self.log.warning("connection refused", peer=conn.peer, line=(exc.line or "")[:200],
                             reason=reason)  # fmt: skip
            self.tables[0].tell(conn.peer, conn, reason)
            with contextlib.suppress(ConnectionError, OSError, RuntimeError):
                await asyncio.wait_for(conn.writer.drain(), self.limits.close_timeout)
                if conn.writer.can_write_eof():
                    conn.writer.write_eof()
            await lines.skip_line(seconds=self.limits.close_timeout)
            await conn.close()
            return
        if first is None:
            return
        try:
            msg = parse(first, Direction.TO_TM)
        except ProtocolError:
            msg = None
        if not isinstance(msg, Connect):
            await self._refuse(conn, first, EXPECTED_CONNECT)
            return
        if not first.isascii():
            # The codec reads non-ASCII as '?', which would merge two teams (issue 16): refuse.
            await self._refuse(conn, first, "Error: team name must be printable ASCII")
            return
        refusal = self.guard.check_team(msg.team)  # team allow-list (server.guard)
        if refusal is not None:
            await self._refuse(conn, first, refusal)
            return
        try:
            table, seat = self._assign(msg, port_seat)
        except RemoteProtocolError as exc:
            await self._refuse(conn, first, exc.message)
            return
        table.received(seat, first)
        table.attach(seat, conn, msg.team)
        try:
            await self._seated_loop(table, seat, conn, lines)
        finally:
            table.detach(seat, conn)

    async def _refuse(self, conn: _Conn, line: str, reason: str) -> None:
        """Refuse a connection before it has a seat: the error line goes to the peer, the log and
        table 1's transcript (addressed to the peer: no seat is its own yet), then we close."""
        self.log.warning("connection refused", peer=conn.peer, line=line[:200], reason=reason)
        self.tables[0].tell(conn.peer, conn, render(ErrorText(reason)))
        await conn.close()

    def _assign(self, msg: Connect, port_seat: Player | None) -> tuple[Table, Player]:
        """The table and seat for a ``Connecting`` line; tables holding this team come first."""
        open_tables = [t for t in self.tables if t.machine.phase is not Phase.ENDED]
        if port_seat is not None:
            open_tables = self.tables[:1]
        ordered = sorted(open_tables, key=lambda t: msg.team not in t.machine.teams.values())
        first_error: RemoteProtocolError | None = None
        for table in ordered:
            try:
                return table, table.machine.seat_request(msg, port_seat=port_seat)
            except RemoteProtocolError as exc:
                first_error = first_error or exc
        raise first_error or RemoteProtocolError("the session has ended")

    def _owed_since(self, table: Table, seat: Player, conn: _Conn) -> float | None:
        """Since when ``seat`` owes a line of the seating handshake, or None if it owes nothing:
        ``ready for teams`` is owed from the seated line, ``ready to start`` from the Teams line;
        waiting for the other seats is not the seat's fault (issue 11)."""
        state = table.machine.seat_state[seat]
        if state is SeatState.SEATED:
            return conn.seated
        if state is SeatState.TEAMS:
            return table.teams_sent.get(seat)
        return None

    async def _seated_loop(
        self, table: Table, seat: Player, conn: _Conn, lines: _LineReader
    ) -> None:
        junk = 0
        junk_board = table.boards_started
        loop = asyncio.get_running_loop()
        limit = self.limits.handshake_timeout
        while True:
            wait = None  # the seating handshake is bounded (server.guard), the rest is not
            since = self._owed_since(table, seat, conn) if limit is not None else None
            if limit is not None and table.machine.seat_state[seat] is not SeatState.READY:
                # Owing nothing now, look again after ``limit``: the Teams line may come meanwhile.
                wait = limit if since is None else max(0.0, since + limit - loop.time())
            try:
                text = await asyncio.wait_for(lines.next(), wait)
            except TimeoutError:
                since = self._owed_since(table, seat, conn)
                if limit is None or since is None or loop.time() < since + limit:
                    continue
                reason = f"{seat_name(seat)} did not finish seating within {limit:g} s"
                table.log.warning("dropping seat", seat=seat.name, reason=reason)
                table.tell(seat, conn, render(ErrorText(f"Error: {reason}")))
                return
            except LineTooLong as exc:
                junk += 1
                table.log.warning("line too long", seat=seat.name, error=str(exc), junk=junk)
                text = ""
            if table.stopping:  # the table manager is closing the seats: nothing more is read
                return
            if text is None:
                table.log.info("connection closed by peer", seat=seat.name)
                return
            if table.boards_started != junk_board:  # the junk budget is per board (issue 11)
                junk_board, junk = table.boards_started, 0
            if text:
                table.received(seat, text)
                try:
                    msg = parse(text, Direction.TO_TM)
                    if not _from(msg, seat):
                        raise RemoteProtocolError(
                            "message in another seat's name (only the prefix identifies the "
                            "sender)", seat=seat, line=text,
                        )  # fmt: skip
                    table.feed(seat, msg)
                except ParseError as exc:
                    junk += 1  # unreadable: logged, not answered (a line we do not know)
                    table.log.warning("bad line", seat=seat.name, error=str(exc), junk=junk)
                except RemoteProtocolError as exc:
                    junk += 1
                    table.log.warning("bad line", seat=seat.name, error=str(exc), junk=junk)
                    table.refuse(seat, exc)
            if junk >= table.options.max_junk:
                reason = f"{seat_name(seat)} sent {junk} bad lines; disconnected"
                table.log.warning("dropping seat", seat=seat.name, reason=reason)
                table.tell(seat, conn, render(ErrorText(f"ERROR: {reason}")))
                return
            if table.machine.phase is Phase.ENDED:
                return
            with contextlib.suppress(ConnectionError, OSError):
                await conn.writer.drain()


def _from(msg: Message, seat: Player) -> bool:
    """Whether ``msg`` carries the connection's own seat prefix (declarer may name dummy)."""
    prefix = getattr(msg, "seat", seat)
    if isinstance(msg, PlayMsg):
        return True  # declarer plays dummy's card in dummy's name; the machine checks who
    return prefix is None or prefix == seat


class _LineReader:
    """Lines from a socket through a bounded :class:`LineBuffer`; None at end of stream."""

    def __init__(self, conn: _Conn, max_line: int) -> None:
        self.conn = conn
        self.buffer = LineBuffer(max_line)
        self.pending: list[str] = []
        self.eof = False
        self.overflow: LineTooLong | None = None

    async def skip_line(self, limit: int = 1 << 23, seconds: float = 5.0) -> None:
        """After an over-long line: discard input up to its terminator (at most ``limit`` bytes
        or ``seconds``), storing nothing."""
        if self.pending:
            return
        seen = 0
        with contextlib.suppress(TimeoutError, ConnectionError, OSError):
            async with asyncio.timeout(seconds):
                while seen < limit:
                    data = await self.conn.reader.read(65536)
                    if not data or b"\n" in data or b"\r" in data:
                        return
                    seen += len(data)

    async def next(self) -> str | None:
        """The next line; raises ``LineTooLong`` once per over-long line, after the complete
        lines that arrived in the same read."""
        while not self.pending:
            if self.overflow is not None:
                exc, self.overflow = self.overflow, None
                raise exc
            if self.eof:
                return None
            try:
                data = await self.conn.reader.read(65536)
            except (ConnectionError, OSError):
                data = b""
            if not data:
                self.eof = True
                self.pending.extend(self.buffer.close())
                continue
            try:
                self.pending.extend(self.buffer.feed(data))
            except LineTooLong as exc:
                self.overflow = exc
                self.pending.extend(self.buffer.feed(b""))
        return self.pending.pop(0)
