"""The table manager's hooks: ``on_board`` sees each finished board, in order, once it is durably
recorded and before the next board starts; ``records`` replaces the journal/PBN writer."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.protocol.table import TableResult
from bridgebot.server.records import read_journal
from bridgebot.server.testing import random_seat
from bridgebot.server.tm import TableManager
from endplay.types import Player

pytestmark = pytest.mark.virtual_time


async def play(tm: TableManager) -> None:
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    seats = [random_seat(port, p, seed=10 * t) for t in range(len(tm.tables)) for p in Player]
    await asyncio.wait_for(asyncio.gather(*(s.run() for s in seats)), 600)
    await asyncio.wait_for(serving, 10)


async def test_on_board_sees_each_board_in_order_after_its_journal_line(tmp_path: Path) -> None:
    seen: list[tuple[int, int, int, int]] = []  # table, board, journal lines, boards started

    def on_board(table: int, result: TableResult) -> None:
        journaled = len(read_journal(tmp_path / "journal.jsonl").records)
        seen.append((table, result.board.number, journaled, tm.tables[table - 1].boards_started))

    tm = TableManager(generate(4, 3), tmp_path, tables=2, on_board=on_board)
    await play(tm)
    for table in (1, 2):
        mine = [s for s in seen if s[0] == table]
        # In order; each after its own journal line; before the next board starts.
        assert [s[1] for s in mine] == [1, 2, 3]
        assert [s[3] for s in mine] == [1, 2, 3]
    assert [s[2] for s in seen] == list(range(1, 7))  # every call found one more line


class ListRecorder:
    def __init__(self) -> None:
        self.boards: list[tuple[int, int]] = []
        self.closed = False

    def write(self, result: TableResult, table: int) -> None:
        self.boards.append((table, result.board.number))

    def close(self) -> None:
        self.closed = True


async def test_a_records_hook_replaces_the_journal_and_stays_open(tmp_path: Path) -> None:
    recorder = ListRecorder()
    finished: list[int] = []
    tm = TableManager(
        generate(4, 2),
        tmp_path,
        records=recorder,
        on_board=lambda table, result: finished.append(len(recorder.boards)),
    )
    await play(tm)
    assert recorder.boards == [(1, 1), (1, 2)]
    assert finished == [1, 2]  # on_board came after the recorder had the board
    assert not (tmp_path / "journal.jsonl").exists() and not (tmp_path / "boards.pbn").exists()
    assert not recorder.closed  # the caller's to close
    assert (tmp_path / "transcript-1.txt").exists()
    with pytest.raises(ValueError, match="session is written by the default record writer"):
        TableManager(generate(4, 1), tmp_path, records=recorder, session={"seed": 4})
