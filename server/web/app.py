"""The person's page over HTTP and WebSocket (aiohttp), bound to 127.0.0.1 unless told otherwise.

Routes (docs/web.md):

* ``GET /``: the page; ``GET /static/NAME``: its script, style sheet and icon (``/favicon.ico``
  too): everything the page needs is served here, nothing comes from elsewhere.
* ``GET /ws``: a WebSocket that sends the table (:meth:`PersonTable.view`) after every change and
  takes the person's actions: ``{"action": "call", "call": "1NT"}``, ``{"action": "card",
  "card": "SA"}``, ``{"action": "next"}``; a refused one is answered ``{"refused": REASON}``.
* ``GET /api/state``; ``POST /api/call``, ``/api/card``, ``/api/next`` with the same JSON bodies,
  for scripts: 200 when done, 409 with ``{"error": REASON}`` when refused (not the person's turn,
  or not legal: the server decides, whatever the page shows), 400 for a body that is not JSON.
* ``GET /api/explain?board=B&index=I``: what call ``I`` of board ``B``'s auction means.
* ``GET /report.html``: the match report, once ``bridgebot play`` has written it.

A request that names another site as its ``Origin`` is refused (403), so a page elsewhere cannot
act for the person through their browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import structlog
from aiohttp import WSCloseCode, WSMsgType, web
from bridgebot.server.web.table import PersonTable, Refused

_log = structlog.get_logger("bridgebot.web")

#: The page's files, shipped in the package: name -> content type.
STATIC = {
    "play.js": "text/javascript",
    "play.css": "text/css",
    "favicon.svg": "image/svg+xml",
}

TABLE_KEY = web.AppKey("table", PersonTable)
REPORT_KEY = web.AppKey("report", list)
SOCKETS_KEY = web.AppKey("sockets", set[web.WebSocketResponse])
#: Seconds a request still running when the page stops gets before it is cancelled (the live
#: tables' server allows the same): Ctrl-C never waits on a browser.
SHUTDOWN_SECONDS = 1.0


def _asset(name: str) -> bytes:
    return resources.files("bridgebot.server.web").joinpath("static", name).read_bytes()


def _same_origin(request: web.Request) -> bool:
    """No ``Origin`` (a script, a plain load) or this server's own."""
    origin = request.headers.get("Origin")
    return origin is None or urlsplit(origin).netloc == request.host


@web.middleware
async def _guard(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    if not _same_origin(request):
        return web.json_response({"error": "requests from another site are refused"}, status=403)
    response = await handler(request)
    response.headers.setdefault("Cache-Control", "no-store")
    return response


async def _index(request: web.Request) -> web.Response:
    return web.Response(body=_asset("index.html"), content_type="text/html", charset="utf-8")


async def _static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    if name not in STATIC:
        raise web.HTTPNotFound()
    return web.Response(body=_asset(name), content_type=STATIC[name])


async def _favicon(request: web.Request) -> web.Response:
    return web.Response(body=_asset("favicon.svg"), content_type="image/svg+xml")


async def _state(request: web.Request) -> web.Response:
    return web.json_response(request.app[TABLE_KEY].view())


def perform(table: PersonTable, action: str, body: dict[str, Any]) -> None:
    """Carry out one action of the person; :class:`Refused` says why it may not be done."""
    if action == "next":
        table.next_board()
        return
    if action not in ("call", "card"):
        raise Refused(f"unknown action {action!r} (call, card or next)")
    value = body.get(action)
    if not isinstance(value, str):
        raise Refused(f'a {action} needs {{"{action}": TEXT}}')
    table.act(action, value)


def _action(name: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        try:
            body = await request.json() if request.can_read_body else {}
        except json.JSONDecodeError:
            return web.json_response({"error": "the body is not JSON"}, status=400)
        if not isinstance(body, dict):
            return web.json_response({"error": "the body is not a JSON object"}, status=400)
        try:
            perform(request.app[TABLE_KEY], name, body)
        except Refused as exc:
            _log.info("refused", action=name, reason=str(exc))
            return web.json_response({"error": str(exc)}, status=409)
        return web.json_response({"ok": True})

    return handle


async def _explain(request: web.Request) -> web.Response:
    table = request.app[TABLE_KEY]
    if table.explain is None:
        return web.json_response({"error": "no explanations at this seat"})
    try:
        board = int(request.query.get("board", ""))
        index = int(request.query.get("index", ""))
    except ValueError:
        return web.json_response({"error": "board and index must be numbers"}, status=400)
    explain = table.explain
    try:
        text = await asyncio.get_running_loop().run_in_executor(None, explain, board, index)
    except (KeyError, IndexError, ValueError) as exc:
        return web.json_response({"error": f"no such call to explain ({exc})"})
    return web.json_response({"board": board, "index": index, "text": text})


async def _report(request: web.Request) -> web.StreamResponse:
    found = request.app[REPORT_KEY]
    if not found:
        raise web.HTTPNotFound(text="the report is written when the session ends")
    return web.FileResponse(found[0])


async def _socket(request: web.Request) -> web.WebSocketResponse:
    table = request.app[TABLE_KEY]
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    sockets: set[web.WebSocketResponse] = request.app[SOCKETS_KEY]
    sockets.add(ws)
    feed = table.watch()

    async def push() -> None:
        while True:
            await ws.send_json({"view": table.view()})
            await feed.get()

    pusher = asyncio.create_task(push())
    try:
        async for msg in ws:
            if msg.type != WSMsgType.TEXT:
                continue
            try:
                body = json.loads(msg.data)
                if not isinstance(body, dict):
                    raise Refused("a message is a JSON object")
                perform(table, str(body.get("action")), body)
            except (Refused, json.JSONDecodeError) as exc:
                _log.info("refused", reason=str(exc))
                await ws.send_json({"refused": str(exc)})
    finally:
        pusher.cancel()
        with contextlib.suppress(asyncio.CancelledError, ConnectionError):
            await pusher
        table.unwatch(feed)
        sockets.discard(ws)
    return ws


async def _close_sockets(app: web.Application) -> None:
    """On shutdown: close every page's WebSocket ("going away"), so no handler keeps the server
    (and Ctrl-C) waiting; a page that is still open reconnects to nothing and says so."""
    sockets = app[SOCKETS_KEY]
    for ws in list(sockets):
        with contextlib.suppress(Exception):
            async with asyncio.timeout(SHUTDOWN_SECONDS / 2):
                await ws.close(code=WSCloseCode.GOING_AWAY, message=b"the server stops")


def make_app(table: PersonTable) -> web.Application:
    app = web.Application(middlewares=[_guard])
    app[TABLE_KEY] = table
    app[REPORT_KEY] = []
    app[SOCKETS_KEY] = set()
    app.on_shutdown.append(_close_sockets)
    app.router.add_get("/", _index)
    app.router.add_get("/static/{name}", _static)
    app.router.add_get("/favicon.ico", _favicon)
    app.router.add_get("/ws", _socket)
    app.router.add_get("/api/state", _state)
    app.router.add_get("/api/explain", _explain)
    for name in ("call", "card", "next"):
        app.router.add_post(f"/api/{name}", _action(name))
    app.router.add_get("/report.html", _report)
    return app


@dataclass
class WebServer:
    """The running page: its URL, and how to stop it."""

    runner: web.AppRunner
    app: web.Application
    url: str

    def set_report(self, path: Path) -> None:
        self.app[REPORT_KEY][:] = [path]

    async def close(self) -> None:
        await self.runner.cleanup()


async def start_web(table: PersonTable, host: str = "127.0.0.1", port: int = 0) -> WebServer:
    """Serve ``table``'s page on ``host``:``port`` (0: a free port); ``OSError`` if it cannot."""
    app = make_app(table)
    runner = web.AppRunner(
        app, access_log=None, handle_signals=False, shutdown_timeout=SHUTDOWN_SECONDS
    )
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError:
        await runner.cleanup()
        raise
    bound = runner.addresses[0]
    shown = f"[{bound[0]}]" if ":" in bound[0] else bound[0]
    return WebServer(runner, app, f"http://{shown}:{bound[1]}/")
