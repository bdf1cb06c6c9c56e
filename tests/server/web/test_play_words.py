"""What ``bridgebot play`` writes about a session, read where the person reads it: one board
played in Chromium through the page's hooks (``data-call``, ``data-card``, ``data-next``, ``<body
data-state>``), then the page's words, the command's lines and the reports. The reports name the
person; one board is "1 board"; every result is in the seat's log line's notation (``4HS+1``,
``3NTN=``, ``4SXE-2``; issue 44)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

from tests.browser import chromium, console_errors
from tests.server.web.test_play_browser import wait_state

#: A result as the seat's log line writes it: 4HS+1, 3NTN=, 4SXE-2, or passed out.
RESULT = re.compile(r"[1-7](NT|[SHDC])X{0,2}[NESW](=|[+-]1?\d)|passed out")
#: A seed whose one board the bots bid to a contract in both rooms while the person passes.
SEED = "1"
ACTIVE = ("your-call", "your-card", "dummy-card", "board-done", "session-done")


def _start(out: Path, seat: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "bridgebot", "play", "--no-browser", "--web-port", "0",
         "--agent", "random", "--seed", SEED, "--boards", "1", "--seat", seat, "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    first = proc.stdout.readline()
    assert first.startswith("open http://127.0.0.1:"), (first, proc.poll())
    return proc, first.split()[1]


def test_one_board_in_chromium_then_the_pages_lines_and_reports(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    out = tmp_path / "out"
    proc, url = _start(out, "East")
    driver = chromium(tmp_path / "profile")
    try:
        driver.get(url)
        while (state := wait_state(driver, ACTIVE)) != "session-done":
            if state == "board-done":
                done = driver.find_element(By.ID, "done").text
                driver.find_element(By.CSS_SELECTOR, "[data-next]").click()
            else:  # the first legal call (Pass) or card
                hook = "[data-call]" if state == "your-call" else "[data-card]"
                driver.find_element(By.CSS_SELECTOR, f"{hook}:not([disabled])").click()
            wait_state(driver, ("waiting", *ACTIVE), 10)
        summary = driver.find_element(By.ID, "summary").text
        history = driver.find_element(By.ID, "history").text
        assert console_errors(driver) == []
    finally:
        driver.quit()
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr

    # "1 board", never "1 boards", on the page, the command's lines and the reports.
    assert "over 1 board (" in summary, summary
    assert stdout.startswith("1 board: "), stdout  # (the first line, the address, was read)
    assert "(1 board)" in stdout, stdout
    report = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    for text in (summary, stdout, stderr, report, page):
        assert "1 boards" not in text

    # The reports name the person, on the side whose IMPs they count (East: the second).
    assert report.splitlines()[0] == "# random against you (East) and random", report[:200]
    assert "<h1>random against you (East) and random</h1>" in page

    # One notation for every result: the page (both rooms), the history, stderr, the reports.
    from bridgebot.tournament.journal import read_journal

    (board,) = read_journal(out / "journal.jsonl").boards
    mine, other = (board.room(r).contract_result_text() for r in ("open", "closed"))
    assert RESULT.fullmatch(mine) and RESULT.fullmatch(other), (mine, other)
    assert f"Result: {mine}, " in done and f"Result: {other}, " in done, done
    assert f"Board 1: {mine}; other room {other};" in history, history
    assert f"your table {mine}, other room {other}:" in stderr, stderr
    assert f"| 1 | {mine} (" in report and f" | {other} (" in report, report
