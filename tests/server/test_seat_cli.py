"""``bridgebot seat`` as a user runs it: a real process against a scripted table manager."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys

from bridgebot.server.testing import ScriptedTableManager, ScriptStep


async def _seat(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bridgebot",
        "seat",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _session(*middle: ScriptStep) -> list[ScriptStep]:
    return [
        ScriptStep("expect", 'Connecting "Bots" as East using protocol version 18'),
        ScriptStep("send", 'East ("Bots") seated'),
        ScriptStep("expect", "East ready for teams"),
        *middle,
    ]


async def test_exit_0_after_end_of_session() -> None:
    steps = _session(
        ScriptStep("send", 'Teams : N/S : "Others" E/W : "Bots"'),
        ScriptStep("expect", "East ready to start"),
        ScriptStep("send", "End of session"),
    )
    async with ScriptedTableManager(steps, timeout=30) as tm:
        code, out, err = await _seat(
            "--port", str(tm.port), "--seat", "East", "--team", "Bots", "--agent", "random"
        )
        await tm.assert_done()
    assert (code, err) == (0, "")
    assert "East (Bots): 0 board(s) played" in out


async def test_protocol_error_exits_1_naming_the_table_manager() -> None:
    steps = _session(ScriptStep("send", "Start of board"))
    async with ScriptedTableManager(steps, timeout=30) as tm:
        code, out, err = await _seat(
            "--port", str(tm.port), "--seat", "east", "--team", "Bots", "--agent", "random"
        )
    assert code == 1 and out == ""
    assert "protocol error (table manager)" in err and "StartOfBoard" in err


async def test_connection_refused_exits_1() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = await _seat(
        "--port", str(port), "--seat", "North", "--team", "Bots", "--agent", "random",
        "--retries", "1", "--retry-delay", "0.01",
    )  # fmt: skip
    assert code == 1
    assert f"cannot connect to the table manager at 127.0.0.1:{port} after 2 attempt" in err


def test_unknown_agent_and_help() -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "bridgebot", "seat", "--port", "1", "--seat", "North",
         "--team", "Bots", "--agent", "nosuchagent"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "unknown agent 'nosuchagent'" in bad.stderr
    quoted = subprocess.run(
        [sys.executable, "-m", "bridgebot", "seat", "--port", "1", "--seat", "North",
         "--team", 'A "B"', "--agent", "random"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert quoted.returncode == 2 and "--team" in quoted.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "bridgebot", "seat", "--help"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert helped.returncode == 0
    assert "bridgebot seat --host 127.0.0.1 --port 2000 --seat North --team Bots" in helped.stdout
