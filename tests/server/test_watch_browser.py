"""The live tables in a real browser: ``bridgebot tm --web-port 0`` as a process, four seat clients
over real TCP (random agents slowed down so that a board is watched while it is played), and
Debian's chromium driven by selenium (as tests/tournament/test_html_report.py does). The page
shows the hands and the cards of the board in progress, then the board's result and the end of
the session; no console error at any point, and no request leaves 127.0.0.1.

Without chromium this test fails (CI installs it: .ci/run), it does not skip.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from bridgebot.engine.agent import BiddingView, PlayView
from bridgebot.engine.random_agent import RandomAgent
from bridgebot.server.records import read_journal
from bridgebot.server.seat import SeatClient
from bridgebot.server.testing import TEAMS
from endplay.types import Bid, Card, Player

from tests.browser import chromium, console_errors, foreign_requests
from tests.server.test_spectator import alert_bids

#: Seconds each seat thinks over a card: a board takes about 52 times this.
CARD_SECONDS = 0.07
SEED, BOARDS = 2, 2


class SlowAgent(RandomAgent):
    """A random agent that takes its time, so the browser sees a board in progress."""

    def bid(self, view: BiddingView) -> Bid:
        time.sleep(CARD_SECONDS / 2)
        return super().bid(view)

    def play(self, view: PlayView) -> Card:
        time.sleep(CARD_SECONDS)
        return super().play(view)


def _seats(port: int, failures: list[BaseException]) -> None:
    async def run() -> None:
        seats = [SeatClient("127.0.0.1", port, p, TEAMS[p], SlowAgent(seed=p.value, pass_bias=0.3),
                            alerter=alert_bids if p == Player.north else None)
                 for p in Player]  # fmt: skip
        await asyncio.wait_for(asyncio.gather(*(s.run() for s in seats)), 60)

    try:
        asyncio.run(run())
    except BaseException as exc:
        failures.append(exc)


#: What the page shows of table 1, read in one go (the page redraws a table as a whole).
TABLE_JS = """
const s = document.querySelector('#tables section[data-table="1"]');
if (!s) return null;
return {board: s.dataset.board, state: s.dataset.state,
        hands: s.querySelectorAll('[data-hand]').length,
        calls: s.querySelectorAll('.auction [data-call]').length,
        alerts: [...s.querySelectorAll('.auction .alert')].map(e => e.title),
        played: [...s.querySelectorAll('[data-played]')].map(e => e.dataset.played),
        results: [...s.querySelectorAll('[data-result-board]')].map(
            e => [e.dataset.resultBoard, e.innerText]),
        text: s.innerText};
"""


def _table(driver) -> dict[str, Any] | None:  # type: ignore[no-untyped-def]
    view: dict[str, Any] | None = driver.execute_script(TABLE_JS)
    return view


def test_the_live_page_of_a_running_tm_shows_the_cards_then_the_result(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    out = tmp_path / "tm"
    tm = subprocess.Popen(
        [sys.executable, "-m", "bridgebot", "tm", "--seed", str(SEED), "--boards", str(BOARDS),
         "--port", "0", "--web-port", "0", "--out", str(out), "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    driver = None
    seats: threading.Thread | None = None
    failures: list[BaseException] = []
    try:
        assert tm.stdout is not None
        listening = tm.stdout.readline().strip()
        watching = tm.stdout.readline().strip()
        assert listening.startswith("listening on 127.0.0.1:"), listening
        assert watching.startswith("watch the tables at http://127.0.0.1:"), watching
        url = watching.rsplit(" ", 1)[1]
        driver = chromium(tmp_path / "profile", "1300,1000")
        driver.get(url)  # before the seats come: the page waits for the tables
        wait = WebDriverWait(driver, 20, poll_frequency=0.05)
        wait.until(lambda d: d.find_element(By.ID, "status").text == "live")
        seats = threading.Thread(target=_seats, args=(int(listening.rsplit(":", 1)[1]), failures))
        seats.start()

        # A board in progress: the four hands as a vugraph, the auction, the cards played.
        seen = wait.until(lambda d: (v := _table(d)) and v["state"] == "play" and v["played"] and v)
        board, first = seen["board"], seen["played"]
        assert seen["hands"] == 4 and seen["calls"] >= 4
        assert seen["alerts"] and all(a.startswith("test alert ") for a in seen["alerts"])
        assert "North" in seen["text"] and "♠" in seen["text"]
        # More cards come as they are played (the page follows the table live).
        wait.until(lambda d: (v := _table(d)) and (v["played"] != first or v["board"] != board))

        # The board's result, then the end of the session.
        done = wait.until(lambda d: (v := _table(d)) and board in dict(v["results"]) and v)
        shown = dict(done["results"])[board]
        assert "NS" in shown
        wait.until(lambda d: d.execute_script("return document.body.dataset.state") == "ended")
        assert "session over" in driver.find_element(By.ID, "status").text
        assert len(_table(driver)["results"]) == BOARDS

        assert console_errors(driver) == []
        assert foreign_requests(driver, url.rstrip("/") + "/") == []
        asked = driver.execute_script(
            "return performance.getEntriesByType('resource').map(e => e.name)"
        )
        assert "favicon" in " ".join(asked)
        _, err = tm.communicate(timeout=20)
        assert tm.returncode == 0, err
    finally:
        if driver is not None:
            driver.quit()
        if seats is not None:
            seats.join(60)
        if tm.poll() is None:
            tm.kill()
        tm.communicate()  # and its pipes are closed
    assert failures == []
    records = read_journal(out / "journal.jsonl").records
    assert [r.board for r in records] == [1, 2]
    assert all(r.contract is not None for r in records)  # the seed plays both boards out
    # The result as the records (and the seat's log line) write it: 4HS+1, 3NTN=, 4SXE-2.
    assert f"\t{records[int(board) - 1].contract_result_text()}, NS " in shown, shown


def test_human_seat_hides_the_hands_of_a_board_in_progress(tmp_path: Path) -> None:
    """``--human-seat South``: while the board is played the page has no hand but dummy's (once
    the lead is made); the cards played are public (tests/server/test_spectator.py checks that
    all four hands come back once the board is over)."""
    import json
    import urllib.request

    tm = subprocess.Popen(
        [sys.executable, "-m", "bridgebot", "tm", "--seed", str(SEED), "--boards", "1", "--port",
         "0", "--web-port", "0", "--human-seat", "South", "--out", str(tmp_path / "tm"),
         "--log-level", "warning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    failures: list[BaseException] = []
    seats: threading.Thread | None = None
    try:
        assert tm.stdout is not None
        port = int(tm.stdout.readline().strip().rsplit(":", 1)[1])
        url = tm.stdout.readline().strip().rsplit(" ", 1)[1] + "state.json"
        seats = threading.Thread(target=_seats, args=(port, failures))
        seats.start()
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(seen) < 3:
            with urllib.request.urlopen(url, timeout=5) as r:
                table = json.load(r)[1]
            board = table["board"]
            if board is not None and board["state"] == "play" and board["played"] > 0:
                seen.append(table)
            time.sleep(0.1)
        assert len(seen) == 3
        for table in seen:
            board = table["board"]
            assert table["seats"]["S"]["person"] is True
            dummy = "NESW"[("NESW".index(board["declarer"]) + 2) % 4]
            assert [s for s, h in board["hands"].items() if h is not None] == [dummy]
            assert board["trick"]  # the cards played are shown
        _, err = tm.communicate(timeout=20)
        assert tm.returncode == 0, err
    finally:
        if seats is not None:
            seats.join(60)
        if tm.poll() is None:
            tm.kill()
        tm.communicate()
    assert failures == []
