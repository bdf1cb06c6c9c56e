"""Peers for the conformance kit's tests: the project's real table manager and seat client, and
a man in the middle that breaks one rule of what they say.

The kit is the thing under test here; the programs it checks are its peers. A clean peer is a
real program behind a transparent :class:`Tamper`; a broken peer is the same program behind a
:class:`Tamper` whose hook changes one kind of line, so it differs from the clean one in that
rule alone.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path

from bridgebot.conform.report import SEAT_RULES, TM_RULES, Recorder, Transcript
from bridgebot.conform.seat_kit import SeatKit, SeatRun, run_seat
from bridgebot.conform.tm_kit import TmKit, TmRun, run_tm
from bridgebot.laws.board_sets import generate
from bridgebot.server.tm import TableManager, TableOptions

#: One hook result item: a line to pass on, or seconds to pause first.
Out = str | float


@dataclass
class Link:
    """One proxied connection: the seat it speaks for, and room for a hook's own state."""

    seat: str = ""
    state: dict[str, object] = field(default_factory=dict)
    up: Callable[[str], None] = lambda line: None
    down: Callable[[str], None] = lambda line: None


Hook = Callable[[Link, str], list[Out]]


def same(link: Link, line: str) -> list[Out]:
    return [line]


class Tamper:
    """A line-level man in the middle in front of a server; ``up`` sees the client's lines,
    ``down`` the server's, each returning what to pass on (and may inject the other way
    through ``link.up`` / ``link.down``)."""

    def __init__(self, port: int, up: Hook = same, down: Hook = same) -> None:
        self.target = port
        self.up = up
        self.down = down
        self.port = 0
        self.links: list[Link] = []
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._writers: list[asyncio.StreamWriter] = []

    async def __aenter__(self) -> Tamper:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for w in self._writers:
            w.close()
        for t in list(self._tasks):
            t.cancel()
            with contextlib.suppress(BaseException):
                await t

    async def _handle(self, c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        try:
            s_reader, s_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            c_writer.close()
            return
        self._writers += [c_writer, s_writer]
        link = Link()
        link.up = lambda line: s_writer.write(line.encode() + b"\r\n")
        link.down = lambda line: c_writer.write(line.encode() + b"\r\n")
        self.links.append(link)

        async def pump(
            reader: asyncio.StreamReader, writer: asyncio.StreamWriter, hook: Hook, upward: bool
        ) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while raw := await reader.readline():
                    line = raw.rstrip(b"\r\n").decode("ascii", "replace")
                    if upward and not link.seat and line.lower().startswith("connecting"):
                        link.seat = line.split(" as ")[1].split()[0].capitalize()
                    for item in hook(link, line):
                        if isinstance(item, float):
                            await asyncio.sleep(item)
                        elif not writer.is_closing():
                            writer.write(item.encode() + b"\r\n")
                    await writer.drain()

        tasks = [
            asyncio.ensure_future(pump(c_reader, s_writer, self.up, True)),
            asyncio.ensure_future(pump(s_reader, c_writer, self.down, False)),
        ]
        self._tasks.update(tasks)
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for w in (c_writer, s_writer):
            w.close()


@contextlib.asynccontextmanager
async def our_tm(
    tmp: Path, boards: int = 4, *, seated: str = "paren", max_illegal: int = 3
) -> AsyncIterator[int]:
    """The project's table manager, in process on 127.0.0.1: yields its port."""
    from bridgebot.protocol.dialect import Dialect

    tm = TableManager(
        generate(11, boards),
        tmp / "tm",
        options=TableOptions(dialect=Dialect(seated=seated), max_illegal=max_illegal),
    )
    _, port = await tm.start()
    serving = asyncio.ensure_future(tm.serve())
    try:
        yield port
    finally:
        serving.cancel()
        with contextlib.suppress(BaseException):
            await serving
        await tm.close()


async def conform_tm(port: int, tmp: Path, **kw: object) -> tuple[Recorder, TmKit]:
    record = Recorder(TM_RULES)
    transcript = Transcript(tmp / "conform-tm.txt")
    try:
        kit = await run_tm(TmRun(host="127.0.0.1", port=port, **kw), record, transcript)  # type: ignore[arg-type]
    finally:
        transcript.close()
    return record, kit


async def conform_seat(
    tmp: Path, start: Callable[[int], object], **kw: object
) -> tuple[Recorder, SeatKit]:
    """Run ``conform seat``; ``start(port)`` is called once it listens (start the program)."""
    record = Recorder(SEAT_RULES)
    transcript = Transcript(tmp / "conform-seat.txt")
    ports: list[int] = []
    try:
        run = SeatRun(host="127.0.0.1", port=0, announce=lambda h, p: ports.append(p), **kw)  # type: ignore[arg-type]
        task = asyncio.ensure_future(run_seat(run, record, transcript))
        while not ports and not task.done():
            await asyncio.sleep(0.01)
        if ports:
            started = start(ports[0])
            if asyncio.iscoroutine(started):
                started = asyncio.ensure_future(started)
        kit = await task
    finally:
        transcript.close()
    return record, kit
