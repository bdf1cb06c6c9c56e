"""``bridgebot tm`` as a user runs it: a subprocess that prints ``listening on HOST:PORT``, plays
our seat clients, writes its records and exits 0; bad arguments exit 2 naming the cause."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import endplay.parsers.pbn as pbn
from endplay.types import Player

from engine.agents import make_agent
from server.seat import SeatClient

TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}
BRIDGEBOT = [sys.executable, "-m", "bridgebot"]


async def test_tm_subprocess_plays_and_exits_zero(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = await asyncio.create_subprocess_exec(
        *BRIDGEBOT, "tm", "--port", "0", "--seed", "7", "--count", "2", "--out", str(out),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    first = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()
    assert first.startswith("listening on 127.0.0.1:"), first
    port = int(first.strip().rsplit(":", 1)[1])
    clients = [
        SeatClient("127.0.0.1", port, p, TEAMS[p], make_agent("random", p.value)) for p in Player
    ]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 60)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    assert "2 boards played, 0 aborted" in err.decode()
    entries = [json.loads(x) for x in (out / "journal.jsonl").read_text().splitlines()]
    assert [e["board"] for e in entries] == [1, 2]
    assert len(pbn.loads((out / "boards.pbn").read_text())) == 2
    assert (out / "transcript-1.txt").read_text().count("End of session") == 4


def test_tm_help_and_bad_arguments(tmp_path: Path) -> None:
    help_text = subprocess.run(
        [*BRIDGEBOT, "tm", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "examples:" in help_text and "--seat-ports" in help_text
    missing = tmp_path / "nope.pbn"
    r = subprocess.run(
        [*BRIDGEBOT, "tm", "--boards", str(missing), "--out", str(tmp_path / "o")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 2 and str(missing) in r.stderr
    bad = tmp_path / "bad.pbn"
    bad.write_text('[Board "1"]\n[Deal "N:AKQ.. ... ... ..."]\n')
    r = subprocess.run(
        [*BRIDGEBOT, "tm", "--boards", str(bad), "--out", str(tmp_path / "o")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert r.returncode == 2 and "bad.pbn" in r.stderr and "board 1" in r.stderr
