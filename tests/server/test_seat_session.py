"""Whole sessions of our seat clients against our table manager (real TCP, random agents): every
line the clients emit passes the independent grammar (table-master-parser) except its known
rejections, with each ready-message dialect the client offers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.protocol.dialect import Dialect
from bridgebot.protocol.seat import DummyForm
from bridgebot.server.seat import SeatClient
from bridgebot.server.tm import TableManager
from endplay.types import Player

from bridgebot.agents import make_agent
from tests.grammar_check import known_rejection, unexpected_rejections


async def _session(
    tmp: Path, dummy_form: DummyForm, early: bool, seed: int, logs: list[dict[str, Any]]
) -> list[str]:
    tm = TableManager(generate(seed, 3), tmp)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    clients = [
        SeatClient(
            host,
            port,
            p,
            "Bots" if p in (Player.north, Player.south) else "Others",
            make_agent("random,pass_bias=0.5", seed + p.value),
            dummy_form=dummy_form,
            dialect=Dialect(early_dummy=early),
        )
        for p in Player
    ]
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    await asyncio.wait_for(serving, 10)
    assert [s.boards for s in summaries] == [3, 3, 3, 3]
    assert [e for e in logs if e["log_level"] in ("warning", "error", "critical")] == []
    # Issue 27: each seat's 'board finished' line shows the result the journal records (it once
    # printed every contract as made).
    journal = [json.loads(line) for line in (tmp / "journal.jsonl").read_text().splitlines()]
    expected = [
        "passed out"
        if r["contract"] is None
        else f"{r['contract']}{r['declarer']}"
        + (
            "="
            if r["tricks"] == int(r["contract"][0]) + 6
            else f"{r['tricks'] - int(r['contract'][0]) - 6:+d}"
        )
        for r in journal
        if r.get("type", "board") != "session" and "board" in r
    ]
    finished = [e["contract"] for e in logs if e["event"] == "board finished"]
    assert sorted(finished) == sorted(x for x in expected for _ in range(4)), (finished, expected)
    return [e["line"] for e in logs if e.get("role") == "seat" and e.get("dir") == "out"]


@pytest.mark.parametrize(
    ("dummy_form", "early"), [("self", False), ("all", False), ("never", False), ("all", True)]
)
async def test_every_client_line_passes_the_grammar(
    tmp_path: Path, dummy_form: DummyForm, early: bool, logs: list[dict[str, Any]]
) -> None:
    """``all`` + early dummy is bridge-player's way; our table manager takes it too."""
    sent = await _session(tmp_path, dummy_form, early, seed=11, logs=logs)
    assert len(sent) > 200  # three whole boards from four seats
    assert unexpected_rejections(sent) == []
    known = {k.name for line in sent if (k := known_rejection(line)) is not None}
    assert known == {"ready to start"}  # the parser's own bug, docs/protocol.md 7
    if dummy_form != "never":
        assert any("ready for dummy's card" in line for line in sent)
