"""Scripted peers shipped with the package, so every test layer (and users debugging a bot against
a transcript) reuses the same fakes: a scripted table manager, a scripted seat, proxies that
tamper with one seat's lines or bytes, and honest seats (our seat client with a random agent).

A scripted peer stands in for the *other* side only; the code under test is always real and talks
to it over real TCP on 127.0.0.1. The style follows python-chess's mock engine: a script of lines
to send and lines to expect, every expected line asserted in order, and ``assert_done`` failing if
anything was left over on either side.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bridgebot.engine.agent import BiddingView, PlayView
from bridgebot.engine.random_agent import RandomAgent
from bridgebot.laws.calls import same_call
from bridgebot.server.seat import SeatClient
from endplay.types import Bid, Card, Player

#: The team names of the honest seats: ``NS`` for North-South, ``EW`` for East-West.
TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}

# ------------------------------------------------------------------ scripted table manager


class ScriptMismatch(AssertionError):
    """The client under test said something other than the script expected (or nothing)."""


@dataclass(frozen=True)
class ScriptStep:
    """``send``: the fake table manager writes ``line``; ``expect``: the client must write it."""

    kind: Literal["send", "expect"]
    line: str
    where: str = ""
    """Where the step came from (transcript file and line), for failure messages."""


_TRANSCRIPT_LINE = re.compile(r"^(?P<src>[^:]+?)\s*->\s*(?P<dst>[^:]+?)\s*:\s(?P<text>.*)$")


def _who(label: str) -> str:
    """``WBridge5(East)`` -> ``east``; ``North`` -> ``north``; ``TM`` -> ``tm``."""
    inner = re.search(r"\((\w+)\)", label)
    return (inner.group(1) if inner else label).strip().lower()


def seat_script(transcript: str | Path, seat: Player) -> list[ScriptStep]:
    """One seat's side of a transcript in the docs/protocol.md section 6 format.

    Lines ``X -> TM : text`` from ``seat`` become ``expect`` steps (raw text, as that peer wrote
    it); lines ``TM -> X : text`` to ``seat`` become ``send`` steps; comments (``--``), blank
    lines and other seats' traffic are dropped. The text after the first ``" : "`` is kept
    verbatim except for trailing whitespace (the transcripts pad ``Alert. `` with a space).
    """
    path = Path(transcript)
    name = seat.name.lower()
    steps: list[ScriptStep] = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        m = _TRANSCRIPT_LINE.match(raw)
        if m is None or raw.lstrip().startswith("--"):
            continue
        src, dst, text = _who(m["src"]), _who(m["dst"]), m["text"].rstrip()
        where = f"{path.name}:{number}"
        if src == name and dst == "tm":
            steps.append(ScriptStep("expect", text, where))
        elif src == "tm" and dst == name:
            steps.append(ScriptStep("send", text, where))
    return steps


class ScriptedTableManager:
    """A fake table manager that accepts one seat client and plays a script line by line.

    Use as an async context manager; ``port`` is known once entered. ``await tm.assert_done()``
    waits for the script to finish and raises :class:`ScriptMismatch` with the first difference,
    or if the client wrote anything after the script's last expected line before closing.
    ``port`` 0 picks a free port.
    ``timeout`` bounds every wait for a client line, so a silent client fails instead of hanging.
    """

    def __init__(
        self,
        steps: Iterable[ScriptStep],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        timeout: float = 10.0,
    ) -> None:
        self.steps: list[ScriptStep] = list(steps)
        self.host = host
        self.timeout = timeout
        self.port = port
        self.received: list[str] = []
        """Every line the client wrote, in order (CRLF stripped)."""
        self.terminators: list[bytes] = []
        """The terminator of each received line, so tests can check for CR LF."""
        self._server: asyncio.Server | None = None
        self._done: asyncio.Future[None] | None = None
        self._accepted = False

    def expect(self, line: str) -> ScriptedTableManager:
        self.steps.append(ScriptStep("expect", line))
        return self

    def send(self, line: str) -> ScriptedTableManager:
        self.steps.append(ScriptStep("send", line))
        return self

    async def __aenter__(self) -> ScriptedTableManager:
        self._done = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self._done is not None and self._accepted and not self._done.done():
            await asyncio.wait({self._done}, timeout=self.timeout)  # let the script finish
        if self._done is not None and self._done.done() and not self._done.cancelled():
            # A test that expected the client to fail need not call assert_done(); mark the
            # outcome as seen so asyncio does not log "exception was never retrieved" at GC time.
            self._done.exception()

    async def assert_done(self) -> None:
        assert self._done is not None, "use ScriptedTableManager as 'async with'"
        await asyncio.wait_for(asyncio.shield(self._done), self.timeout * 3)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        assert self._done is not None
        if self._done.done() or self._server is None:
            writer.close()
            return
        self._server.close()  # one client per script
        self._accepted = True
        try:
            await self._play(reader, writer)
        except BaseException as exc:  # report every failure through assert_done
            if not self._done.done():
                self._done.set_exception(exc)
        else:
            if not self._done.done():
                self._done.set_result(None)
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _readline(self, reader: asyncio.StreamReader) -> str | None:
        raw = await asyncio.wait_for(reader.readline(), self.timeout)
        if not raw:
            return None
        body = raw.rstrip(b"\r\n")
        self.terminators.append(raw[len(body) :])
        line = body.decode("ascii")
        self.received.append(line)
        return line

    async def _play(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for i, step in enumerate(self.steps):
            if step.kind == "send":
                writer.write(step.line.encode("ascii") + b"\r\n")
                await writer.drain()
                continue
            try:
                got = await self._readline(reader)
            except TimeoutError:
                raise ScriptMismatch(
                    f"step {i} ({step.where}): client silent for {self.timeout}s, "
                    f"expected {step.line!r}; it said {self.received[-3:]!r} last"
                ) from None
            if got is None:
                raise ScriptMismatch(
                    f"step {i} ({step.where}): client closed, expected {step.line!r}"
                )
            if got != step.line:
                raise ScriptMismatch(
                    f"step {i} ({step.where}): expected {step.line!r}, client sent {got!r}"
                )
        # Nothing may be left over: the client must close without another word.
        try:
            extra = await self._readline(reader)
        except TimeoutError:
            raise ScriptMismatch("script done but the client neither closed nor spoke") from None
        if extra is not None:
            raise ScriptMismatch(f"script done but the client also sent {extra!r}")


def canonical_client_script(steps: Sequence[ScriptStep]) -> list[ScriptStep]:
    """``steps`` with every ``expect`` line re-rendered in our canonical form.

    Real peers' wire forms differ from ours in case (WBridge5's ``EAST``, ``plays 9s``) and in
    details such as ``ANYPL``; parsing their line and rendering it with :mod:`protocol.codec` gives
    the line our client must send in the same situation.
    """
    from bridgebot.protocol.codec import Direction, parse, render

    out: list[ScriptStep] = []
    for step in steps:
        if step.kind == "expect":
            step = ScriptStep("expect", render(parse(step.line, Direction.TO_TM)), step.where)
        out.append(step)
    return out


class ScriptedAgent:
    """An agent that replays a fixed list of calls and cards (a fake decision maker on the
    *peer's* behalf, e.g. WBridge5's choices in a transcript) and checks each against the view's
    ``legal``, so a wrongly built view fails the test instead of passing silently."""

    name = "scripted"

    def __init__(self, calls: Iterable[Bid], cards: Iterable[Card]) -> None:
        self.calls = list(calls)
        self.cards = list(cards)
        self.resets: list[int] = []
        self.views: list[BiddingView | PlayView] = []

    def reset(self, board: int) -> None:
        self.resets.append(board)

    def bid(self, view: BiddingView) -> Bid:
        self.views.append(view)
        if not self.calls:
            raise ScriptMismatch(f"asked for a call after the script ran out: {view}")
        call = self.calls.pop(0)
        if not any(same_call(call, c) for c in view.legal):
            raise ScriptMismatch(f"scripted call {call} is not in view.legal {view.legal}")
        return call

    def play(self, view: PlayView) -> Card:
        self.views.append(view)
        if not self.cards:
            raise ScriptMismatch(f"asked for a card after the script ran out: {view}")
        card = self.cards.pop(0)
        if card not in view.legal:
            raise ScriptMismatch(f"scripted card {card} is not in view.legal {view.legal}")
        return card


def agent_script(steps: Iterable[ScriptStep]) -> ScriptedAgent:
    """The calls and cards among ``steps``' expected client lines (raw peer forms are fine), as a
    :class:`ScriptedAgent`; an alert on a call comes back as an alertable ``Bid``."""
    from bridgebot.protocol.codec import Direction, parse
    from bridgebot.protocol.messages import CallMsg, PlayMsg

    calls: list[Bid] = []
    cards: list[Card] = []
    for step in steps:
        if step.kind != "expect":
            continue
        msg = parse(step.line, Direction.TO_TM)
        if isinstance(msg, CallMsg):
            call = copy.copy(msg.call)
            if msg.alert is not None:
                call.alertable = True
                call.announcement = msg.alert or None
            calls.append(call)
        elif isinstance(msg, PlayMsg):
            cards.append(msg.card)
    return ScriptedAgent(calls, cards)


# ------------------------------------------------------------------ scripted seat (for the TM)


class ScriptedSeat:
    """A fake seat that connects to a table manager over TCP and plays a script line by line.

    ``steps`` are written from the table manager's side, exactly as :func:`seat_script` returns
    them for this seat: an ``expect`` step (the TM expects the client to say it) is a line this
    seat writes; a ``send`` step (the TM sends it) is a line this seat must read next, verbatim.
    ``before`` maps a line to write to a callable run just before it is written (tests advance
    an injected clock there). ``run`` raises :class:`ScriptMismatch` at the first difference; when
    ``expect_close`` is set, the TM must then close the connection without another line.
    ``timeout`` bounds each wait, so a silent table manager fails the test instead of hanging it.
    """

    def __init__(
        self,
        host: str,
        port: int,
        steps: Iterable[ScriptStep] = (),
        *,
        name: str = "seat",
        timeout: float = 10.0,
        before: dict[str, Callable[[], object]] | None = None,
        expect_close: bool = True,
    ) -> None:
        self.host = host
        self.port = port
        self.steps: list[ScriptStep] = list(steps)
        self.name = name
        self.timeout = timeout
        self.before = dict(before or {})
        self.expect_close = expect_close
        self.received: list[str] = []
        """Every line the table manager wrote to this seat, in order."""
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    def says(self, line: str) -> ScriptedSeat:
        """Append a line this seat writes."""
        self.steps.append(ScriptStep("expect", line))
        return self

    def hears(self, line: str) -> ScriptedSeat:
        """Append a line this seat must read next."""
        self.steps.append(ScriptStep("send", line))
        return self

    async def connect(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port)

    async def write_raw(self, data: bytes) -> None:
        """Write bytes as they are (junk, over-long lines, bare LF) for bad-input tests."""
        if self._writer is None:
            await self.connect()
        assert self._writer is not None
        self._writer.write(data)
        await self._writer.drain()

    async def read_line(self) -> str | None:
        """The next line from the table manager (None when it closed); bounded by ``timeout``."""
        if self._reader is None:
            await self.connect()
        assert self._reader is not None
        raw = await asyncio.wait_for(self._reader.readline(), self.timeout)
        if not raw:
            return None
        line = raw.rstrip(b"\r\n").decode("ascii")
        self.received.append(line)
        return line

    async def run(self) -> None:
        """Play the whole script; raise :class:`ScriptMismatch` on the first difference."""
        if self._writer is None:
            await self.connect()
        assert self._writer is not None
        for i, step in enumerate(self.steps):
            if step.kind == "expect":
                hook = self.before.get(step.line)
                if hook is not None:
                    hook()
                self._writer.write(step.line.encode("ascii") + b"\r\n")
                await self._writer.drain()
                continue
            try:
                got = await self.read_line()
            except TimeoutError:
                raise ScriptMismatch(
                    f"{self.name} step {i} ({step.where}): table manager silent for "
                    f"{self.timeout}s, expected {step.line!r}; last lines {self.received[-3:]!r}"
                ) from None
            if got != step.line:
                raise ScriptMismatch(
                    f"{self.name} step {i} ({step.where}): expected {step.line!r}, "
                    f"table manager sent {got!r}"
                )
        if self.expect_close:
            await self.assert_done()

    async def assert_done(self) -> None:
        """The table manager must close the connection without another line."""
        try:
            extra = await self.read_line()
        except TimeoutError:
            raise ScriptMismatch(f"{self.name}: script done but the TM did not close") from None
        if extra is not None:
            raise ScriptMismatch(f"{self.name}: script done but the TM also sent {extra!r}")
        await self.close()

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await self._writer.wait_closed()


class LineProxy:
    """A man in the middle between one seat client and a table manager, for TM tests.

    Every line the seat writes goes through ``to_tm(line)``, which returns the lines actually sent
    to the table manager (inject an illegal call before the real one, swallow a call to make the
    seat look silent); every line the table manager writes goes through ``to_seat(line)`` likewise
    (swallow the ``Illegal bid`` the seat should not see). A hook may call :meth:`cut` to drop both
    connections, as a network failure would. The proxy stands in for part of a *peer*; the table
    manager under test sees only ordinary TCP traffic.
    """

    def __init__(
        self,
        tm_host: str,
        tm_port: int,
        *,
        to_tm: Callable[[str], list[str]] | None = None,
        to_seat: Callable[[str], list[str]] | None = None,
    ) -> None:
        self.tm_host = tm_host
        self.tm_port = tm_port
        self.to_tm = to_tm or (lambda line: [line])
        self.to_seat = to_seat or (lambda line: [line])
        self.port = 0
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    def cut(self) -> None:
        """Close both sides now (the seat and the table manager see the connection drop)."""
        if self._server is not None:
            self._server.close()
        for w in self._writers:
            w.close()

    async def close(self) -> None:
        self.cut()
        for t in list(self._tasks):
            t.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError, OSError):
                await t

    async def _handle(self, s_reader: asyncio.StreamReader, s_writer: asyncio.StreamWriter) -> None:
        t_reader, t_writer = await asyncio.open_connection(self.tm_host, self.tm_port)
        self._writers += [s_writer, t_writer]
        pumps = [
            asyncio.ensure_future(self._pump(s_reader, t_writer, self.to_tm)),
            asyncio.ensure_future(self._pump(t_reader, s_writer, self.to_seat)),
        ]
        self._tasks.update(pumps)
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        self.cut()

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        hook: Callable[[str], list[str]],
    ) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while True:
                raw = await reader.readline()
                if not raw:
                    return
                for line in hook(raw.rstrip(b"\r\n").decode("ascii")):
                    if writer.is_closing():
                        return
                    writer.write(line.encode("ascii") + b"\r\n")
                await writer.drain()


class RawProxy:
    """A byte-level man in the middle in front of one seat client, for bad-input tests.

    ``before(line)`` is called with each line the client writes and returns raw bytes to send to
    the table manager ahead of it (binary junk, invalid UTF-8, floods); ``after(line)`` returns
    bytes to send right behind it, in the same write. Everything from the table manager goes back
    to the client unchanged; when either side closes, both are closed.
    """

    def __init__(
        self,
        tm_port: int,
        before: Callable[[str], bytes],
        after: Callable[[str], bytes] | None = None,
        *,
        tm_host: str = "127.0.0.1",
    ) -> None:
        self.tm_host = tm_host
        self.tm_port = tm_port
        self.before = before
        self.after = after
        self._server: asyncio.Server | None = None
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for t in self._tasks:
            t.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError, OSError):
                await t

    async def _handle(self, s_reader: asyncio.StreamReader, s_writer: asyncio.StreamWriter) -> None:
        t_reader, t_writer = await asyncio.open_connection(self.tm_host, self.tm_port)

        async def up() -> None:
            while raw := await s_reader.readline():
                line = raw.rstrip(b"\r\n").decode("ascii")
                tail = self.after(line) if self.after is not None else b""
                t_writer.write(self.before(line) + raw + tail)
                await t_writer.drain()

        async def down() -> None:
            while data := await t_reader.read(65536):
                s_writer.write(data)
                await s_writer.drain()

        tasks = [asyncio.ensure_future(up()), asyncio.ensure_future(down())]
        self._tasks += tasks
        with contextlib.suppress(ConnectionError, OSError):
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for w in (s_writer, t_writer):
            w.close()


# ------------------------------------------------------------------ honest seats


def connecting(seat: Player) -> bytes:
    """The ``Connecting`` line of an honest seat, as bytes on the wire (for raw-socket peers)."""
    return f'Connecting "{TEAMS[seat]}" as {seat.name.capitalize()} using protocol version 18\r\n'.encode()


def random_seat(port: int, seat: Player, seed: int = 0, host: str = "127.0.0.1") -> SeatClient:
    """Our own seat client with a random agent (seeded by ``seed`` and the seat), team ``TEAMS``:
    the honest seats around a table manager under test."""
    return SeatClient(host, port, seat, TEAMS[seat], RandomAgent(seed=seed + seat.value))
