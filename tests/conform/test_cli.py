"""``bridgebot conform`` as users run it: real processes, exit statuses, the listening line
read from a pipe, the report, and one-line usage errors."""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bridgebot.cli import main

BRIDGEBOT = [sys.executable, "-m", "bridgebot"]


def _read_line(proc: subprocess.Popen[str], seconds: float) -> str:
    """One line of the process's stdout within ``seconds`` (the line must be flushed)."""
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    assert ready, "nothing on stdout: the line was not flushed"
    return proc.stdout.readline()


def _port(line: str) -> int:
    assert line.startswith("listening on 127.0.0.1:"), line
    return int(line.rsplit(":", 1)[1])


def test_conform_tm_against_bridgebot_tm_exits_0_with_a_report(tmp_path: Path) -> None:
    tm = subprocess.Popen(
        [
            *BRIDGEBOT,
            "tm",
            "--port",
            "0",
            "--seed",
            "4",
            "--boards",
            "2",
            "--out",
            str(tmp_path / "tm"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = _port(_read_line(tm, 30))
        report = tmp_path / "tm.json"
        done = subprocess.run(
            [
                *BRIDGEBOT,
                "conform",
                "tm",
                "--port",
                str(port),
                "--boards",
                "2",
                "--answer-timeout",
                "10",
                "--report",
                str(report),
                "--transcript",
                str(tmp_path / "tm.txt"),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert tm.wait(30) == 0
    finally:
        if tm.poll() is None:
            tm.kill()
        tm.communicate()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    data = json.loads(report.read_text())
    assert data["status"] == "pass" and data["exit_status"] == 0 and data["boards"] == 2
    # one output line per rule of the report, same status, stable names
    assert [ln.split()[:2] for ln in lines if ln.split()[0] in ("pass", "warn", "fail")] == [
        [r["status"], r["rule"] + (":" if r["status"] != "pass" else "")] for r in data["rules"]
    ]
    assert "pass tm.card-relay" in done.stdout
    assert (tmp_path / "tm.txt").read_text().count(" -> ") > 400


def test_conform_seat_prints_listening_at_once_and_passes_our_seat(tmp_path: Path) -> None:
    kit = subprocess.Popen(
        [
            *BRIDGEBOT,
            "conform",
            "seat",
            "--port",
            "0",
            "--seats",
            "East",
            "--boards",
            "2",
            "--answer-timeout",
            "30",  # the seat below is a new Python process: slow on a loaded machine
            "--transcript",
            str(tmp_path / "seat.txt"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = _port(_read_line(kit, 30))
        seat = subprocess.run(
            [
                *BRIDGEBOT,
                "seat",
                "--port",
                str(port),
                "--seat",
                "East",
                "--team",
                "Bots",
                "--agent",
                "random",
            ],
            capture_output=True,
            text=True,
            timeout=60,
        )
        out, err = kit.communicate(timeout=60)
    finally:
        if kit.poll() is None:
            kit.kill()
    assert seat.returncode == 0, seat.stderr
    assert kit.returncode == 0, out + err
    assert "roles: declarer, dummy" in out


def test_an_unreachable_table_manager_is_a_failure_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    code = main(
        [
            "conform",
            "tm",
            "--port",
            str(port),
            "--answer-timeout",
            "1",
            "--transcript",
            str(tmp_path / "t.txt"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith(f"fail tm.connect: cannot connect to 127.0.0.1:{port}")
    assert "(docs/protocol.md 1)" in out.splitlines()[0]
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["conform", "tm", "--port", "2000", "--boards", "0"], "number of boards"),
        (["conform", "tm", "--port", "2000", "--seats", "Norht"], "North, East, South, West"),
        (["conform", "tm", "--port", "2000", "--answer-timeout", "-1"], "seconds above 0"),
        (["conform", "tm", "--port", "2000", "--teams", "A"], "two different team names"),
        (["conform", "tm", "--port", "2000", "--style", "gib"], "invalid choice"),
        (["conform", "tm", "--port", "0"], "not a port number"),
        (["conform", "seat", "--port", "70000"], "not a port number"),
        (["conform"], "required"),
    ],
)
def test_a_usage_error_is_one_line_and_exit_2(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("bridgebot ") and words in err[-1]


def test_conform_seat_on_a_port_taken_is_one_line_exit_2_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 62: ``conform seat --port P`` with P taken printed a traceback and left an empty
    transcript (``tm``, ``match`` and ``play`` say it in one line and exit 2). An earlier run's
    transcript is left as it was."""
    monkeypatch.chdir(tmp_path)
    earlier = tmp_path / "earlier.txt"
    earlier.write_text("North -> TM : an earlier run\n")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for transcript in ([], ["--transcript", str(earlier)]):
            argv = ["conform", "seat", "--port", str(port), "--report", "r.json", *transcript]
            assert main(argv) == 2
            out, err = capsys.readouterr()
            lines = err.strip().splitlines()
            assert lines == [lines[0]] and "Traceback" not in err, err
            assert lines[0].startswith(f"bridgebot conform seat: cannot listen on 127.0.0.1:{port}")
            assert "listening" not in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["earlier.txt"]  # no report, no transcript
    assert earlier.read_text() == "North -> TM : an earlier run\n"


def test_a_report_in_a_missing_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["conform", "tm", "--port", "2000", "--report", str(tmp_path / "no" / "r.json")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "--report" in err[0]


@pytest.mark.parametrize("argv", [["conform"], ["conform", "tm"], ["conform", "seat"]])
def test_help_shows_examples(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([*argv, "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "bridgebot conform" in out
    if argv != ["conform"]:
        assert "--answer-timeout" in out and "--log-level" in out and "--boards N" in out
