"""scripts/demo, the README's first command: a TM and four random seats as separate processes."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from bridgebot.server.records import read_journal

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_demo_plays_four_boards(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    run = subprocess.run(
        [str(ROOT / "scripts" / "demo"), str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    for seat in ("North", "East", "South", "West"):
        assert f"{seat} (Random " in run.stdout and "4 board(s) played" in run.stdout
    assert f"boards (PBN):   {out}/boards.pbn" in run.stdout
    journal = read_journal(out / "journal.jsonl").records
    assert [b.board for b in journal] == [1, 2, 3, 4]
    assert (out / "boards.pbn").read_text().count("[Board ") == 4
