"""SIGTERM (``kill``, ``docker stop``) stops ``tm``, ``seat`` and ``match`` as Ctrl-C does
(issue 44): at once, "interrupted" on stderr, exit status 130, no traceback, and no process of
theirs left behind holding the pipes. Before, SIGTERM killed them mid-write, and in a container,
where the command is PID 1 and a signal without a handler is ignored, ``docker stop`` waited 10 s
and killed them.

Each command is a real subprocess, sent SIGTERM once it shows it is at work."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bridgebot.tournament.journal import read_journal

BRIDGEBOT = [sys.executable, "-m", "bridgebot"]
#: Seconds a stopped command may take: Ctrl-C takes well under one; docker stop waits 10.
PROMPT = 5.0


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*BRIDGEBOT, *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
    )


def _terminate(proc: subprocess.Popen[str]) -> tuple[int, str, float]:
    """Send SIGTERM; the exit status, stderr, and the seconds it took to exit. A child process
    left holding stdout or stderr would keep ``communicate`` waiting: a failure here too."""
    start = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=30)
        pytest.fail("still running 30 s after SIGTERM")
    return proc.returncode, err, time.monotonic() - start


def _assert_stopped_like_ctrl_c(code: int, err: str, took: float) -> None:
    assert code == 130, (code, err)
    assert "Traceback" not in err, err
    assert err.strip().splitlines()[-1] == "interrupted", err
    assert took < PROMPT, took


def test_tm_stops_on_sigterm(tmp_path: Path) -> None:
    proc = _start(["tm", "--port", "0", "--seed", "1", "--boards", "4", "--out", "tm"], tmp_path)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("listening on 127.0.0.1:")  # waiting for seats
    _assert_stopped_like_ctrl_c(*_terminate(proc))


def test_seat_stops_on_sigterm(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(60)
        port = server.getsockname()[1]
        proc = _start(["seat", "--port", str(port), "--seat", "North", "--team", "Bots",
                       "--agent", "random"], tmp_path)  # fmt: skip
        conn, _ = server.accept()
        with conn:
            conn.settimeout(60)
            assert conn.recv(200).startswith(b'Connecting "Bots" as North')  # seated, waiting
            _assert_stopped_like_ctrl_c(*_terminate(proc))


def _workers(pid: int) -> list[int]:
    """The worker processes ``pid`` started (Linux's /proc), not multiprocessing's tracker."""
    found = Path(f"/proc/{pid}/task/{pid}/children")
    children = [int(c) for c in found.read_text().split()] if found.exists() else []
    return [c for c in children if b"resource_tracker" not in _cmdline(c)]


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _alive(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat")
    try:
        return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


@pytest.mark.parametrize("scoring", ["dd", "play"])
def test_match_stops_on_sigterm(scoring: str, tmp_path: Path) -> None:
    """``--web-port`` makes the match say when it starts. By double dummy with two workers it
    then solves the tables in two worker processes: SIGTERM reaches the match alone, as from
    ``docker stop``, and the workers must go with it (they once finished their work first). By
    play it plays at table managers over TCP."""
    argv = ["match", "--us", "random", "--them", "random", "--scoring", scoring,
            "--boards", "64", "--workers", "2", "--web-port", "0", "--out", "m"]  # fmt: skip
    proc = _start(argv, tmp_path)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("watch the match at http://")
    workers: list[int] = []
    if scoring == "dd" and Path("/proc/self/task").exists():
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
            workers = _workers(proc.pid)
        assert len(workers) >= 2, workers
    _assert_stopped_like_ctrl_c(*_terminate(proc))
    assert not [w for w in workers if _alive(w)]  # the match waited for them to end
    read_journal(tmp_path / "m" / "journal.jsonl")  # whatever it holds is readable: --resume
