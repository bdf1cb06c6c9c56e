"""``bridgebot tm`` on a folder that holds an earlier session (issue 62, a newcomer's fault):
without ``--resume`` it played boards 1.. again and appended them to the first session's journal
(boards 1-13, then 1-5). Like ``match`` and ``play``, it now refuses in one line naming
``--resume``, and leaves the records as they were."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from bridgebot.server.records import read_journal
from bridgebot.server.testing import random_seat as client
from endplay.types import Player

from tests.server.test_faults import BRIDGEBOT, start_tm_process


async def test_a_second_session_in_the_same_folder_is_refused_naming_resume(
    tmp_path: Path,
) -> None:
    proc, port = await start_tm_process(tmp_path, 3)  # a first session, played to its end
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 120)
    assert await asyncio.wait_for(proc.wait(), 60) == 0
    journal = tmp_path / "journal.jsonl"
    assert [r.board for r in read_journal(journal).records] == [1, 2, 3]
    before = (journal.read_bytes(), (tmp_path / "boards.pbn").read_bytes())

    again = subprocess.run(
        [*BRIDGEBOT, "tm", "--port", "0", "--seed", "3", "--boards", "5", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert again.returncode == 2 and again.stdout == "", again.stdout
    assert again.stderr == (
        f"bridgebot tm: {journal}: a session is already there; pass --resume or another --out\n"
    )
    assert (journal.read_bytes(), (tmp_path / "boards.pbn").read_bytes()) == before
