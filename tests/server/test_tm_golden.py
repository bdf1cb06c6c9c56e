"""Golden transcript over real TCP: docs/protocol.md section 6.1 against our table manager.

Four scripted seats replay their side of the transcript line by line on 127.0.0.1; each asserts
every line our table manager sends it, in order, with nothing left over (the TM must close after
``End of session``). The table manager gets the transcript's board and an injected clock that the
seats advance (West thinks 8 s over the opening lead, South 14 s over the last card), so the Timing
line must match the transcript to the character.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import endplay.parsers.pbn as pbn
import pytest
from bridgebot.server.testing import (
    GOLDEN_BOARD,
    FakeClock,
    ScriptedSeat,
    ScriptStep,
    seat_script,
    thinking,
)
from bridgebot.server.tm import TableManager, TableOptions
from endplay.types import Player

TRANSCRIPT = Path(__file__).parents[1] / "peers" / "transcript_6_1.txt"
pytestmark = pytest.mark.virtual_time


async def test_transcript_6_1_over_tcp(tmp_path: Path) -> None:
    await play_golden(tmp_path)


async def test_transcript_6_1_without_alert_relay(tmp_path: Path) -> None:
    """--no-alerts: the same board, but East and West get North's double without 'Alert.'."""

    def bare(step: ScriptStep) -> ScriptStep:
        if step.kind == "send" and step.line == "North doubles Alert.":
            return ScriptStep(step.kind, "North doubles", step.where)
        return step

    await play_golden(tmp_path, TableOptions(relay_alerts=False), bare)


async def play_golden(
    tmp_path: Path,
    options: TableOptions | None = None,
    edit: Callable[[ScriptStep], ScriptStep] = lambda step: step,
) -> None:
    clock = FakeClock()
    tm = TableManager([GOLDEN_BOARD], tmp_path, clock=clock, options=options or TableOptions())
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    hooks = thinking(clock)
    seats = [
        ScriptedSeat(
            host,
            port,
            [edit(s) for s in seat_script(TRANSCRIPT, p)],
            name=p.name,
            before=hooks.get(p),
        )
        for p in Player
    ]
    await asyncio.gather(*(s.run() for s in seats))
    results = await asyncio.wait_for(serving, 10)

    (board,) = results[0]
    assert board.declarer_tricks == 10 and board.aborted is None
    # Durable records: one journal line and one PBN record that endplay reads back.
    (entry,) = [json.loads(x) for x in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert entry["contract"] == "3S" and entry["declarer"] == "S" and entry["tricks"] == 10
    assert entry["score_ns"] == 170 and entry["ns_seconds"] == 14 and entry["ew_seconds"] == 8
    (record,) = pbn.loads((tmp_path / "boards.pbn").read_text())
    assert record.contract is not None and record.contract.result == 1
    assert len(record.play) == 52 and str(record.deal) == str(GOLDEN_BOARD.deal)
    # The transcript file uses the section 6 format: replaying it gives the same script.
    ours = tmp_path / "transcript-1.txt"
    for p in Player:
        mine = [(s.kind, s.line) for s in seat_script(ours, p)]
        assert mine == [(s.kind, s.line) for s in map(edit, seat_script(TRANSCRIPT, p))], p
