"""Sockets for the kit: one connection per seat, every line read into one inbox.

Both commands move lines the same way: a reader task per connection splits bytes into lines
(:class:`bridgebot.protocol.framing.LineBuffer`, the project's low-level framing) and puts
``(seat, line)`` on a shared queue, ``(seat, None)`` when the peer closes. The driver takes from
that one queue with a timeout, so a silent program costs at most ``--answer-timeout`` per wait,
and every run has a deadline: nothing in the kit waits without a bound.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable

from bridgebot.conform.report import Recorder, Transcript
from bridgebot.protocol.errors import LineTooLong
from bridgebot.protocol.framing import LineBuffer, encode_line


class Abort(Exception):
    """The run cannot go on (silence, a closed connection, the deadline); already recorded."""


class CannotListen(Exception):
    """The kit's table manager cannot listen where it was asked (the port taken, an address not
    this machine's): the user's mistake, said in one line before anything is played."""

    def __init__(self, host: str, port: int, exc: OSError) -> None:
        super().__init__(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


Inbox = asyncio.Queue[tuple[str, str | None]]


class Conn:
    """One TCP connection of the kit, labelled with its seat.

    ``written`` counts the lines the kit has written on it; ``arrived`` holds, for each line
    put in the inbox and not yet taken, what ``written`` was when that line arrived, so that a
    line is judged by what the peer could have read before sending it (the consumer pops one
    per line it takes, see :meth:`arrival`)."""

    def __init__(
        self, label: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, inbox: Inbox
    ) -> None:
        self.label = label
        self.reader = reader
        self.writer = writer
        self.closed = False
        self.written = 0
        self.arrived: deque[int] = deque()
        self.task = asyncio.create_task(self._read(inbox))

    def arrival(self) -> int:
        """How many lines the kit had written on this connection when the line now taken
        from the inbox arrived (every line the reader puts is taken in order)."""
        return self.arrived.popleft() if self.arrived else self.written

    async def _read(self, inbox: Inbox) -> None:
        buf = LineBuffer(4096)
        try:
            while True:
                data = await self.reader.read(65536)
                if not data:
                    for line in buf.close():
                        self.arrived.append(self.written)
                        await inbox.put((self.label, line))
                    break
                try:
                    lines = buf.feed(data)
                except LineTooLong as exc:
                    lines = [f"<line over 4096 bytes: {exc}>", *buf.feed(b"")]
                for line in lines:
                    self.arrived.append(self.written)
                    await inbox.put((self.label, line))
        except (ConnectionError, OSError):
            pass
        finally:
            self.closed = True
            await inbox.put((self.label, None))

    def send(self, text: str) -> None:
        self.written += 1
        if not self.writer.is_closing():
            self.writer.write(encode_line(text))

    async def close(self) -> None:
        self.task.cancel()
        with contextlib.suppress(BaseException):
            await self.task
        self.writer.close()
        with contextlib.suppress(BaseException):
            await asyncio.wait_for(self.writer.wait_closed(), 2)


class Pump:
    """Takes lines from the inbox until a condition holds, within the answer timeout."""

    def __init__(
        self,
        record: Recorder,
        transcript: Transcript,
        answer_timeout: float,
        deadline: float,
        peer: str,
        answer_rule: str,
        deliver: Callable[[str, str], None],
    ) -> None:
        self.r = record
        self.transcript = transcript
        self.timeout = answer_timeout
        self.deadline = deadline
        self.peer = peer
        self.answer_rule = answer_rule
        self.unexpected_rule = answer_rule.split(".")[0] + ".unexpected"
        self.deliver = deliver
        self.inbox: Inbox = asyncio.Queue()
        self.closed: set[str] = set()
        self.on_close: Callable[[str], None] = lambda label: None
        self.ignore: set[str] = set()
        self.waiting_for: tuple[tuple[str, ...], str] = ((), "")
        """The rules and the line of the wait in progress (a closed connection fails them)."""

    async def until(
        self,
        cond: Callable[[], bool],
        rules: tuple[str, ...],
        what: str,
        *,
        required: bool = True,
        timeout: float | None = None,
    ) -> bool:
        """Deliver lines until ``cond()``; on silence fail ``answer_rule`` and ``rules``
        (and :class:`Abort` if ``required``)."""
        loop = asyncio.get_running_loop()
        end = min(loop.time() + (self.timeout if timeout is None else timeout), self.deadline)
        self.waiting_for = (rules, what)
        while not cond():
            remaining = end - loop.time()
            if remaining <= 0:
                late = end >= self.deadline
                why = (
                    "the run's time limit (boards x 60 s + 4 x --answer-timeout) ran out"
                    if late
                    else f"no answer within {self.timeout:g} s"
                )
                self.r.fail(self.answer_rule, f"{why}, waiting for {what}", expected=what)
                for rule in rules:
                    self.r.fail(rule, f"{why}, waiting for {what}", expected=what)
                if required or late:
                    raise Abort(what)
                return False
            try:
                label, line = await asyncio.wait_for(self.inbox.get(), remaining)
            except TimeoutError:
                continue
            if label in self.ignore:
                continue
            if line is None:
                self.closed.add(label)
                self.transcript.comment(f"{label}: connection closed by the {self.peer}")
                self.on_close(label)
                continue
            self._deliver(label, line)
        self.r.ok(self.answer_rule)
        return True

    def _deliver(self, label: str, line: str) -> None:
        """Hand a line to the checker; a line the kit cannot follow at all ends the run as the
        peer's failure to stay within the protocol, never as a crash or a hang."""
        try:
            self.deliver(label, line)
        except Abort:
            raise
        except Exception as exc:
            self.r.fail(
                self.unexpected_rule,
                f"the kit cannot follow the {self.peer} after this "
                f"line to or from {label} ({type(exc).__name__}: {exc})",
                line,
            )
            raise Abort("lost") from exc

    async def drain(self, seconds: float) -> None:
        """Deliver whatever comes within ``seconds`` (lines after the last expected one)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        while (remaining := end - loop.time()) > 0:
            try:
                label, line = await asyncio.wait_for(self.inbox.get(), remaining)
            except TimeoutError:
                return
            if label in self.ignore:
                continue
            if line is None:  # as in until: a close is the peer's to explain
                self.closed.add(label)
                self.transcript.comment(f"{label}: connection closed by the {self.peer}")
                self.on_close(label)
                continue
            self._deliver(label, line)
