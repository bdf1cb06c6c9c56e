"""``bridgebot play`` and ``bridgebot seat --agent human`` as commands: a user's mistake is one
line and exit status 2 before anything is served; a session stopped with Ctrl-C resumes with
``--resume`` and journals every board once; ``seat --agent human`` sits at our table manager over
real TCP, prints where its page is and keeps serving it after the session until Ctrl-C."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.server.seat import SeatClient
from bridgebot.server.tm import TableManager
from endplay.types import Player

from bridgebot.agents import make_agent
from bridgebot.cli import main
from tests.server.web.test_play_browser import post, start_play


def _bridgebot(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bridgebot", *argv], capture_output=True, text=True, timeout=timeout
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--boards", "0"], "--boards: must be at least 1, got 0"),
        (["--resume"], "--resume needs --out"),
        (["--deals", "{tmp}/none.pbn", "--out", "{tmp}/o"], "no such deal file"),
        (["--agent", "nosuch"], "unknown agent 'nosuch'"),
        (["--seat", "middle"], "not a seat"),
        (["--seed", "1", "--deals", "x.pbn"], "--deals and --seed: give one"),
        (["--web-port", "70000"], "not a port number"),
        (["--out", "{tmp}/file"], "cannot create the folder"),
        (["--out", "{tmp}/done"], "a session is already there"),
    ],
)
def test_mistakes_are_one_line_and_exit_2(
    argv: list[str], expected: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "journal.jsonl").write_text("")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    try:
        status = main(["play", "--no-browser", *argv])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    out, err = capsys.readouterr()
    assert status == 2
    lines = err.strip().splitlines()
    assert "Traceback" not in err and expected in lines[-1], err
    assert len(lines) == 1, err  # argparse's own mistakes too (bridgebot/cli.py)
    assert out == ""  # nothing was served


def test_a_busy_web_port_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = str(s.getsockname()[1])
        status = main(["play", "--no-browser", "--web-port", port, "--out", str(tmp_path / "o")])
    assert status == 2
    err = capsys.readouterr().err
    assert "cannot listen" in err and len(err.strip().splitlines()) == 1, err


def _get(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "api/state") as r:
        return dict(json.load(r))


def _play_until(url: str, stop: str, boards_done: int = 99) -> None:
    """Pass every call, play the first legal card, move on; until the state ``stop`` is reached
    (after ``boards_done`` finished boards for ``board-done``)."""
    done = 0
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = _get(url)
        state = view["state"]
        if state == stop and (stop != "board-done" or done + 1 >= boards_done):
            return
        if state == "your-call":
            post(url, "call", {"call": "Pass"})
        elif state in ("your-card", "dummy-card"):
            post(url, "card", {"card": view["table"]["legalCards"][0]})
        elif state == "board-done":
            done += 1
            post(url, "next", {})
        else:
            time.sleep(0.02)
    raise AssertionError(f"never reached {stop}")


def test_stop_and_resume_plays_every_board_once(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc, url = start_play(out, "--boards", "2", "--agent", "random")
    try:
        _play_until(url, "board-done", 1)  # board 1 is over and journaled
        assert _get(url)["done"]["board"] == 1
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "--resume" in err, err
    boards = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()][1:]
    assert [b["rooms"][0]["board"] for b in boards] == [1]
    proc, url = start_play(out, "--boards", "2", "--agent", "random", "--resume")
    try:
        _play_until(url, "session-done")
        view = _get(url)
        assert view["summary"]["boards"] == 2  # the kept board counts in the summary
    finally:
        proc.send_signal(signal.SIGINT)
        out_text, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    boards = [json.loads(line) for line in (out / "journal.jsonl").read_text().splitlines()][1:]
    assert sorted(b["rooms"][0]["board"] for b in boards) == [1, 2]
    assert "2 boards:" in out_text


def test_seat_agent_human_at_our_table_manager(tmp_path: Path) -> None:
    async def main() -> list[Any]:
        tm = TableManager(generate(4, 1), tmp_path / "tm")
        host, port = await tm.start()
        serving = asyncio.create_task(tm.serve())
        bots = [
            asyncio.create_task(
                SeatClient(
                    host,
                    port,
                    p,
                    "Bots" if p.value % 2 else "People",
                    make_agent("random", p.value),
                ).run()
            )
            for p in (Player.north, Player.east, Player.west)
        ]
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bridgebot", "seat", "--agent", "human", "--no-browser",
            "--port", str(port), "--seat", "south", "--team", "People", "--web-port", "0",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert proc.stdout is not None
        first = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()
        assert first.startswith("open http://127.0.0.1:") and first.endswith(" to play\n")
        url = first.split()[1]
        await asyncio.to_thread(_play_until, url, "session-done")
        line = (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        assert "1 board(s) played" in line
        assert "still serving" in (await asyncio.wait_for(proc.stdout.readline(), 30)).decode()
        assert (await asyncio.to_thread(_get, url))["state"] == "session-done"
        proc.send_signal(signal.SIGINT)
        assert await asyncio.wait_for(proc.wait(), 30) == 0
        results = await asyncio.gather(*bots)
        await asyncio.wait_for(serving, 10)
        return results

    summaries = asyncio.run(main())
    assert [s.boards for s in summaries] == [1, 1, 1]
