"""The live tables' web server: ``bridgebot tm --web-port P`` and ``bridgebot match --web-port P``.

:class:`SpectatorServer` serves one page (``static/watch.html``, its script and style, a favicon)
and a WebSocket that streams each table's view (:mod:`server.web.spectator_state`) as it changes.
It runs aiohttp on an event loop of its own, in a thread of its own, so that no browser can slow a
table down: the table manager's observer (:meth:`SpectatorServer.observer`) only appends each event
to an inbox (a ``deque``: about 4 µs per event, benchmarks/bench_spectator.py) and returns; the server's loop takes the inbox's
events every :data:`FLUSH_SECONDS`. (Waking that loop for each event, ``call_soon_threadsafe``,
cost the table 0.2 to 0.6 ms per event on a busy two-core machine, the threads handing the GIL
back and forth; the inbox costs it nothing measurable.)

On the web side, nothing waits for a browser either:

* every :data:`FLUSH_SECONDS` the events of the inbox update the state, and the views of the
  tables that changed are built and sent, one text per table, shared by every page;
* each page has a bounded queue; a page whose queue is full, or whose socket takes longer than
  :data:`SEND_SECONDS` to take one message, is dropped (its connection closed); its script
  connects again a little later and gets the whole state afresh;
* the page asks for nothing outside this server (a Content-Security-Policy of ``'self'`` holds it
  to that).

``GET /state.json`` gives the same views in one JSON list, for scripts.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import structlog
from aiohttp import WSMsgType, web
from bridgebot.server import table_events
from bridgebot.server.records import TableRecord
from bridgebot.server.web.spectator_state import LiveTables
from endplay.types import Player

STATIC = Path(__file__).resolve().parent / "static"
#: How often the views of changed tables go out (seconds): a burst of cards is one message.
FLUSH_SECONDS = 0.1
#: Messages a page may have waiting (beyond the first snapshot) before it is dropped as too slow.
QUEUE_LIMIT = 256
#: Seconds a page's socket may take to accept one message before the page is dropped.
SEND_SECONDS = 5.0
#: What every response says: this page loads nothing from anywhere else.
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:",
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
}
_FILES = {
    "/": ("watch.html", "text/html"),
    "/watch.js": ("watch.js", "text/javascript"),
    "/watch.css": ("watch.css", "text/css"),
    "/favicon.svg": ("favicon.svg", "image/svg+xml"),
    "/favicon.ico": ("favicon.svg", "image/svg+xml"),
}


class _Page:
    """One connected page: its queue of texts to send; ``None`` in the queue ends it."""

    def __init__(self, request: web.Request, ws: web.WebSocketResponse, size: int) -> None:
        self.request = request
        self.ws = ws
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=size)
        self.dropped = False

    def offer(self, text: str | None) -> bool:
        """Queue ``text``; False (and the page is dropped) when its queue is full."""
        if self.dropped:
            return False
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop()
            return False
        return True

    def drop(self) -> None:
        """Close a page that does not keep up: no close handshake to wait for."""
        self.dropped = True
        transport = self.request.transport
        if transport is not None:
            transport.abort()


class SpectatorServer:
    """Serves the live tables on ``http://HOST:PORT/`` from its own thread.

    ``match`` True adds the match's running IMPs (:meth:`match_board`); ``people`` names the seats
    (table label, seat) where a person plays: their tables hide the hands while a board is played.
    ``start()`` binds (port 0 picks one) and returns the address; ``close()`` tells every page the
    session is over and stops. Every public method may be called from any thread.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        title: str = "bridgebot: live tables",
        match: bool = False,
        people: Iterable[tuple[str, Player]] = (),
    ) -> None:
        self.host = host
        self.port = port
        self.title = title
        self.match = match
        self.state = LiveTables(people)
        self.address: tuple[str, int] | None = None
        self.dropped = 0
        """Pages dropped for not keeping up (the tests read it)."""
        self.log: Any = structlog.get_logger("bridgebot.web")
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._runner: web.AppRunner | None = None
        self._pages: set[_Page] = set()
        self._dirty: set[str] = set()
        self._match_dirty = False
        self._inbox: collections.deque[tuple[Any, tuple[Any, ...]]] = collections.deque()
        """What the feeding threads handed over, taken by the server's loop (appending to and
        popping from a deque are atomic: no lock)."""
        self._ticker: asyncio.Task[None] | None = None
        self._ended = False

    @property
    def url(self) -> str:
        if self.address is None:
            raise RuntimeError("the spectator server is not started")
        host, port = self.address
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/"

    # ------------------------------------------------------------------ life

    def start(self) -> tuple[str, int]:
        """Bind and serve in a thread; raises ``OSError`` when the address cannot be bound."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._open())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                loop.close()
                return
            ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self._shutdown())
                loop.close()

        self._thread = threading.Thread(target=run, name="bridgebot-web", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            self._thread.join()
            raise failure[0]
        assert self.address is not None
        return self.address

    async def _open(self) -> None:
        app = web.Application()
        app.router.add_get("/ws", self._socket)
        app.router.add_get("/state.json", self._state)
        for route in _FILES:
            app.router.add_get(route, self._file)
        self._runner = web.AppRunner(
            app, access_log=None, handle_signals=False, shutdown_timeout=1.0
        )
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self._ticker = asyncio.create_task(self._tick())
        name = self._runner.addresses[0]
        self.address = (str(name[0]), int(name[1]))

    def close(self, timeout: float = 5.0) -> None:
        """Tell every page the session is over, then stop serving (idempotent)."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None or not thread.is_alive():
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)

    async def _shutdown(self) -> None:
        self._ended = True
        if self._ticker is not None:
            self._ticker.cancel()
        self._take_inbox()
        self._send_dirty()
        end = json.dumps({"type": "end"})
        for page in list(self._pages):
            if page.offer(end):
                page.offer(None)
        with contextlib.suppress(TimeoutError):  # the last views get a moment to go out
            async with asyncio.timeout(1.0):
                while any(not p.queue.empty() and not p.dropped for p in self._pages):
                    await asyncio.sleep(0.02)
        if self._runner is not None:
            await self._runner.cleanup()

    # ------------------------------------------------------------------ feeding (any thread)

    def observer(self, label: str | None = None) -> table_events.Observer:
        """A table manager's ``observer``: its tables are labelled by number, or all by
        ``label`` (a match's room)."""

        def observe(table: int, event: table_events.TableEvent) -> None:
            self.publish(str(table) if label is None else label, event)

        return observe

    def publish(self, label: str, event: table_events.TableEvent) -> None:
        """Hand one event of table ``label`` to the server's loop; returns at once."""
        self._call(self._apply, label, event)

    def mark_person(self, label: str, seat: Player) -> None:
        """A person plays ``seat`` at table ``label`` (see :class:`LiveTables`)."""
        self._call(self._person, label, seat)

    def match_board(self, board: int, imps: int, rooms: Sequence[TableRecord]) -> None:
        """A match's board, finished in every room: the rooms' results and the running IMPs."""
        self._call(self._match_board, board, imps, tuple(rooms))

    def _call(self, fn: Any, *args: Any) -> None:
        if self._loop is None:
            fn(*args)  # not serving yet: the state is kept for the first page
            return
        self._inbox.append((fn, args))

    # ------------------------------------------------------------------ the loop's side

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            self._take_inbox()
            self._send_dirty()

    def _take_inbox(self) -> None:
        while self._inbox:
            fn, args = self._inbox.popleft()
            fn(*args)

    def _apply(self, label: str, event: table_events.TableEvent) -> None:
        self.state.apply(label, event)
        self._dirty.add(label)

    def _person(self, label: str, seat: Player) -> None:
        self.state.mark_person(label, seat)
        self._dirty.add(label)

    def _match_board(self, board: int, imps: int, rooms: tuple[TableRecord, ...]) -> None:
        self.state.match_board(board, imps, rooms)
        self._dirty.update(r.room or "1" for r in rooms)
        self._match_dirty = True

    def _send_dirty(self) -> None:
        dirty, match = self.state.labels(self._dirty), self._match_dirty and self.match
        self._dirty.clear()
        self._match_dirty = False
        if not self._pages:
            return  # nobody is watching: no view is built
        views = [self.state.table_view(label) for label in dirty]
        if match:
            views.append(self.state.match_view())
        for text in (json.dumps(v, separators=(",", ":")) for v in views):
            for page in list(self._pages):
                if not page.offer(text):
                    self._lost(page, "its queue is full")

    def _lost(self, page: _Page, why: str) -> None:
        if page in self._pages:
            self._pages.discard(page)
            self.dropped += 1
            self.log.warning("spectator dropped", peer=page.request.remote, reason=why)

    def _hello(self) -> list[dict[str, Any]]:
        return [
            {"type": "hello", "title": self.title, "match": self.match},
            *self.state.snapshot(self.match),
        ]

    # ------------------------------------------------------------------ handlers

    async def _file(self, request: web.Request) -> web.StreamResponse:
        name, kind = _FILES[request.path]
        return web.Response(
            body=(STATIC / name).read_bytes(),
            content_type=kind,
            charset=None if kind.startswith("image/") else "utf-8",
            headers=HEADERS,
        )

    async def _state(self, request: web.Request) -> web.StreamResponse:
        return web.json_response(self._hello(), headers=HEADERS)

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse(heartbeat=30.0)
        await ws.prepare(request)
        hello = [json.dumps(v, separators=(",", ":")) for v in self._hello()]
        if self._ended:
            hello.append(json.dumps({"type": "end"}))
        page = _Page(request, ws, len(hello) + QUEUE_LIMIT)
        for text in hello:
            page.offer(text)
        self._pages.add(page)
        sender = asyncio.create_task(self._send(page))
        try:
            async for msg in ws:  # the page says nothing; this only notices it leave
                if msg.type is WSMsgType.ERROR:
                    break
        finally:
            self._pages.discard(page)
            sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender
        return ws

    async def _send(self, page: _Page) -> None:
        while True:
            text = await page.queue.get()
            if text is None:
                await page.ws.close()
                return
            try:
                await asyncio.wait_for(page.ws.send_str(text), SEND_SECONDS)
            except TimeoutError:
                self._lost(page, f"a message took over {SEND_SECONDS:g} s")
                page.drop()
                return
            except (ConnectionError, RuntimeError):
                self._lost(page, "its connection closed")
                return
