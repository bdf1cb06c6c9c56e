"""``bridgebot tm`` as a user runs it: a subprocess that prints ``listening on HOST:PORT``, plays
our seat clients, writes its records and exits 0; bad arguments exit 2 naming the cause."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import endplay.parsers.pbn as pbn
import pytest
from bridgebot.server.records import read_journal
from bridgebot.server.seat import SeatClient
from endplay.types import Player

from bridgebot.agents import make_agent
from bridgebot.cli import main

TEAMS = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}
BRIDGEBOT = [sys.executable, "-m", "bridgebot"]


@pytest.mark.parametrize("fmt", ["console", "json"])
async def test_tm_subprocess_plays_and_exits_zero(fmt: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = await asyncio.create_subprocess_exec(
        *BRIDGEBOT, "tm", "--port", "0", "--seed", "7", "--boards", "2", "--out", str(out),
        "--log-format", fmt, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
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
    if fmt == "json":  # issue 44: the end-of-session line was plain text among JSON lines
        records = [json.loads(line) for line in err.decode().splitlines()]
        end = records[-1]
        assert (end["event"], end["level"], end["played"], end["aborted"]) == (
            "end of session", "info", 2, 0)  # fmt: skip
        assert end["records"] == str(out) and end["timestamp"].endswith("Z")
    else:
        assert "2 boards played, 0 aborted" in err.decode()
    entries = read_journal(out / "journal.jsonl").records
    assert [e.board for e in entries] == [1, 2]
    assert len(pbn.loads((out / "boards.pbn").read_text())) == 2
    assert (out / "transcript-1.txt").read_text().count("End of session") == 4


def test_tm_help_and_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # In process (the dispatcher's main), so the test does not pay three interpreter starts.
    with pytest.raises(SystemExit) as stop:
        main(["tm", "--help"])
    assert stop.value.code == 0
    help_text = capsys.readouterr().out
    assert "examples:" in help_text and "--seat-ports" in help_text
    missing = tmp_path / "nope.pbn"
    assert main(["tm", "--deals", str(missing), "--out", str(tmp_path / "o")]) == 2
    assert str(missing) in capsys.readouterr().err
    bad = tmp_path / "bad.pbn"
    bad.write_text('[Board "1"]\n[Deal "N:AKQ.. ... ... ..."]\n')
    assert main(["tm", "--deals", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "bad.pbn" in err and "board 1" in err
