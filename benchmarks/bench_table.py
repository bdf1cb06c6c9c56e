"""Boards per second of our table manager, against baselines measured in the same run.

Three figures, all with random agents (``bridgebot.agents.make_agent("random", seed)``):

* ``machine``: the sans-IO :class:`protocol.table.TableMachine` alone, replaying the golden board
  of docs/protocol.md 6.1 in process (parse, machine, render; no sockets, no seats): the ceiling.
* ``tcp x1``: one table of four of our seat clients against our table manager over TCP on
  127.0.0.1, as ``bridgebot tm`` + four ``bridgebot seat`` would run (in one process here).
* ``tcp x4``: four such tables served concurrently by one table manager process.

Printed as boards/s and as ratios (tcp x1 / machine, tcp x4 / tcp x1), so a change can be judged
on any machine. Usage: ``python benchmarks/bench_table.py [--boards 16] [--repeat 200]``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
import tempfile
import time
from pathlib import Path

import structlog
from endplay.types import Player

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bridgebot.laws.board_sets import generate
from bridgebot.server.seat import SeatClient
from bridgebot.server.tm import TableManager

from bridgebot.agents import make_agent

TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}


def machine_boards_per_second(repeat: int) -> float:
    from tests.protocol.test_table import (
        GOLDEN_BOARD,
        Driver,
        FakeClock,
        make_machine,
        transcript_events,
    )

    events = transcript_events()
    start = time.perf_counter()
    for _ in range(repeat):
        d = Driver(make_machine(FakeClock()))
        started = False
        for direction, seat, text in events:
            if direction == "in":
                d.line(seat, text)
                if d.m.phase.value == "idle" and not started:
                    started = True
                    d.take(d.m.start_board(GOLDEN_BOARD))
    return repeat / (time.perf_counter() - start)


async def tcp_boards_per_second(boards: int, tables: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        tm = TableManager(generate(1, boards), tmp, tables=tables)
        host, port = await tm.start()
        start = time.perf_counter()
        serving = asyncio.create_task(tm.serve())
        clients = [
            SeatClient(host, port, p, TEAMS[p], make_agent("random", 10 * t + p.value))
            for t in range(tables)
            for p in Player
        ]
        await asyncio.gather(*(c.run() for c in clients))
        await serving
        return boards * tables / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--boards", type=int, default=16, help="boards per table (default 16)")
    ap.add_argument("--repeat", type=int, default=200, help="golden boards for the machine figure")
    args = ap.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    machine = machine_boards_per_second(args.repeat)
    one = asyncio.run(tcp_boards_per_second(args.boards, 1))
    four = asyncio.run(tcp_boards_per_second(args.boards, 4))
    print(f"machine (in process, golden board): {machine:8.1f} boards/s")
    print(
        f"tcp x1 (1 table, 4 seat clients):   {one:8.1f} boards/s  = {one / machine:.3f} x machine"
    )
    print(f"tcp x4 (4 tables, 16 seat clients): {four:8.1f} boards/s  = {four / one:.2f} x tcp x1")


if __name__ == "__main__":
    main()
