"""core.logs and the global --log-format: console lines for people, JSON lines for machines,
through the real command line (a seat client that cannot reach its table manager logs its retry)."""

from __future__ import annotations

import json
import socket

import pytest
from bridgebot.core.logs import FORMAT_ENV

from bridgebot.cli import _take_log_format, main


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _seat_args(port: int) -> list[str]:
    return ["seat", "--port", str(port), "--seat", "North", "--team", "T", "--agent", "random",
            "--retries", "1", "--retry-delay", "0.01", "--log-level", "info"]  # fmt: skip


@pytest.mark.parametrize("where", ["before", "after"])
def test_json_lines_on_stderr(
    where: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FORMAT_ENV, "console")  # restored after the test
    args = _seat_args(_closed_port())
    argv = ["--log-format", "json", *args] if where == "before" else [*args, "--log-format=json"]
    assert main(argv) == 1
    lines = capsys.readouterr().err.splitlines()
    records = [json.loads(x) for x in lines if x.startswith("{")]
    assert records, lines
    retry = records[0]
    assert retry["event"] == "connect retry" and retry["level"] == "info"
    assert retry["seat"] == "North" and retry["timestamp"].endswith("Z")
    # The user-facing error stays one plain line.
    assert lines[-1].startswith("bridgebot seat North: connection: cannot connect")


def test_console_lines_by_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FORMAT_ENV, "console")
    assert main(_seat_args(_closed_port())) == 1
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "connect retry" in x)
    assert "[info" in line and "seat=North" in line and not line.startswith("{")


def test_take_log_format_finds_it_anywhere() -> None:
    assert _take_log_format(["match", "--log-format", "json", "--out", "x"]) == (
        ["--log-format", "json", "match", "--out", "x"],
        "json",
    )
    assert _take_log_format(["tm", "--port", "1"]) == (["tm", "--port", "1"], None)


def test_unknown_format_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--log-format", "xml", "explain", "1C"])
    assert exc.value.code == 2
    assert "invalid choice: 'xml'" in capsys.readouterr().err
