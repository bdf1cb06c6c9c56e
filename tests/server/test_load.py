"""Load in the suite (issue 7), small enough for CI: one table manager serving eight tables of
four of our seat clients at once over TCP on 127.0.0.1; every board of every table is played
and recorded exactly once. The 32-table, hundreds-of-boards run with throughput, relay latency
and memory figures is ``benchmarks/bench_load.py``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import endplay.parsers.pbn as pbn
from bridgebot.laws.board_sets import generate
from bridgebot.server.seat import SeatClient
from bridgebot.server.tm import TableManager
from endplay.types import Player

from bridgebot.agents import make_agent

TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}
TABLES, BOARDS = 8, 4


async def test_eight_tables_at_once_every_board_recorded_once(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    tm = TableManager(generate(21, BOARDS), tmp_path, tables=TABLES)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    clients = [
        SeatClient(host, port, p, TEAMS[p], make_agent("random", 100 * t + p.value))
        for t in range(TABLES)
        for p in Player
    ]
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    results = await asyncio.wait_for(serving, 20)
    assert [s.boards for s in summaries] == [BOARDS] * (TABLES * 4)
    assert [[r.aborted for r in table] for table in results] == [[None] * BOARDS] * TABLES
    assert [e for e in logs if e["log_level"] in ("warning", "error")] == []
    entries = [json.loads(x) for x in (tmp_path / "journal.jsonl").read_text().splitlines()]
    keys = sorted((e["table"], e["board"]) for e in entries)
    assert keys == [(t, b) for t in range(1, TABLES + 1) for b in range(1, BOARDS + 1)]
    records = pbn.loads((tmp_path / "boards.pbn").read_text())
    assert sorted((int(r.info["Table"]), r.board_num) for r in records) == keys
    # The same deals at every table, played differently by different random seats.
    assert len({e["deal"] for e in entries}) == BOARDS
    assert tm.guard.open == 0


async def test_without_kept_results_nothing_per_board_stays_in_memory(tmp_path: Path) -> None:
    """``bridgebot tm`` runs with ``keep_results=False``: the journal is the record, and the
    table manager holds no finished board (what made its memory grow ~10 KiB a board)."""
    tm = TableManager(generate(22, 6), tmp_path, tables=2, keep_results=False)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    clients = [
        SeatClient(host, port, p, TEAMS[p], make_agent("random", 10 * t + p.value))
        for t in range(2)
        for p in Player
    ]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    assert await asyncio.wait_for(serving, 20) == [[], []]
    assert [(t.played, t.aborted, len(t.machine.finished)) for t in tm.tables] == [(6, 0, 1)] * 2
    lines = (tmp_path / "journal.jsonl").read_text().splitlines()
    assert sorted((json.loads(x)["table"], json.loads(x)["board"]) for x in lines) == [
        (t, b) for t in (1, 2) for b in range(1, 7)
    ]
