"""What the live tables cost a table: the time a table manager spends in the spectator's
observer per event, with pages connected and reading (docs/web.md, "Live tables").

A real table manager plays ``--boards`` boards on 127.0.0.1 with four random seats; its observer
is a :class:`server.web.spectator.SpectatorServer`'s, timed around each call; ``--pages`` WebSocket
clients read every view. Printed: the events, the microseconds per event in the observer (and,
for scale, in a bare ``list.append``), the session's wall time and the messages each page got.

    python benchmarks/bench_spectator.py --boards 40 --pages 1
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

import aiohttp
import structlog
from bridgebot.laws.board_sets import generate
from bridgebot.server.table_events import Observer, TableEvent
from bridgebot.server.testing import random_seat
from bridgebot.server.tm import TableManager
from bridgebot.server.web.spectator import SpectatorServer
from endplay.types import Player


async def session(observer: Observer, boards: int) -> tuple[int, float, float]:
    """Play ``boards`` boards; return (events, seconds in the observer, wall seconds)."""
    spent = [0.0, 0.0]

    def timed(table: int, event: TableEvent) -> None:
        start = time.perf_counter()
        observer(table, event)
        spent[0] += time.perf_counter() - start
        spent[1] += 1

    with tempfile.TemporaryDirectory() as out:
        tm = TableManager(generate(9, boards), out, observer=timed)
        _, port = await tm.start()
        start = time.perf_counter()
        serving = asyncio.create_task(tm.serve())
        await asyncio.gather(*(random_seat(port, p, seed=1).run() for p in Player))
        await serving
        return int(spent[1]), spent[0], time.perf_counter() - start


async def main(boards: int, pages: int) -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    kept: list[TableEvent] = []
    n, bare, _ = await session(lambda t, e: kept.append(e), boards)
    web = SpectatorServer()
    web.start()
    got = [0] * pages
    async with aiohttp.ClientSession() as client:
        sockets = [await client.ws_connect(web.url.replace("http", "ws") + "ws", max_msg_size=0)
                   for _ in range(pages)]  # fmt: skip

        async def read(i: int) -> None:
            async for _ in sockets[i]:
                got[i] += 1

        readers = [asyncio.create_task(read(i)) for i in range(pages)]
        n, spent, wall = await session(web.observer(), boards)
        await asyncio.sleep(0.5)  # the last views go out
        web.close()
        for r in readers:
            r.cancel()
    print(f"{boards} boards, {n} events: {spent / n * 1e6:.1f} us per event in the spectator's "
          f"observer (list.append: {bare / n * 1e6:.1f} us); session {wall:.2f} s; messages per "
          f"page: {got}")  # fmt: skip


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--boards", type=int, default=40)
    p.add_argument("--pages", type=int, default=1)
    args = p.parse_args()
    asyncio.run(main(args.boards, args.pages))
