"""``match --web-port``: a match shows itself live (its page in Chromium too, as
tests/server/test_watch_browser.py drives it). Real-play rooms (table managers over TCP) tell
the watcher every room's seats, boards, calls and cards; every finished board goes to it with its
IMPs, in real play and in the in-process double-dummy match alike, whose rooms play no cards; a
resumed match shows its journaled boards first."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest
from bridgebot.server import table_events
from bridgebot.server.records import TableRecord
from bridgebot.server.web.spectator_state import LiveTables
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.match import run_match

from bridgebot.agents import make_agent
from bridgebot.cli import main


class Recorder:
    """The watcher's side, kept in memory: what a :class:`SpectatorServer` would be told."""

    def __init__(self) -> None:
        self.events: list[tuple[str, table_events.TableEvent]] = []
        self.boards: list[tuple[int, int, tuple[TableRecord, ...]]] = []
        self.live = LiveTables()

    def observer(self, label: str | None = None) -> table_events.Observer:
        def observe(table: int, event: table_events.TableEvent) -> None:
            room = label or str(table)
            self.events.append((room, event))
            self.live.apply(room, event)

        return observe

    def match_board(self, board: int, imps: int, rooms: Sequence[TableRecord]) -> None:
        self.boards.append((board, imps, tuple(rooms)))
        self.live.match_board(board, imps, rooms)


def test_real_play_rooms_show_every_card_and_the_running_imps(tmp_path: Path) -> None:
    cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=3,
                      seed=4, scoring="play")  # fmt: skip
    watch = Recorder()
    summary = run_match(cfg, progress=lambda b: None, watch=watch)
    journal = read_journal(tmp_path / "journal.jsonl").boards
    assert [(b, imps) for b, imps, _ in watch.boards] == [(j.board, j.imps) for j in journal]
    for room in ("open", "closed"):
        mine = [e for r, e in watch.events if r == room]
        assert [e.board for e in mine if isinstance(e, table_events.BoardStarted)] == [1, 2, 3]
        played = [r for j in journal for r in j.rooms if r.room == room]
        cards = tuple(e.card for e in mine if isinstance(e, table_events.CardPlayed))
        assert cards == tuple(c for r in played for c in r.play) and cards
        view = watch.live.table_view(room)
        assert [r["board"] for r in view["results"]] == [3, 2, 1]
        assert view["seats"]["N"]["team"] and view["board"]["state"] == "done"
    assert [v["label"] for v in watch.live.snapshot(match=False)] == ["open", "closed"]
    match = watch.live.match_view()
    assert match["boards"] == 3 and match["total"] == sum(j.imps for j in journal)
    assert summary.boards == 3


def test_a_double_dummy_match_shows_the_auctions_results_and_imps(
    tmp_path: Path, solved_npz: Path
) -> None:
    cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=4,
                      deals=solved_npz)  # fmt: skip
    watch = Recorder()
    run_match(cfg, progress=lambda b: None, watch=watch)
    assert watch.events == []  # no table manager: no cards are played
    journal = read_journal(tmp_path / "journal.jsonl").boards
    assert [b for b, _, _ in watch.boards] == [1, 2, 3, 4]
    for room in ("open", "closed"):
        view = watch.live.table_view(room)
        board = view["board"]
        last = next(r for r in journal[-1].rooms if r.room == room)
        assert board["number"] == 4 and board["state"] == "done"
        assert [a["call"] for a in board["auction"]] == list(last.auction)
        assert board["result"]["tricks"] == last.tricks  # the double-dummy tricks
        assert board["result"]["score_ns"] == last.score_ns
    assert watch.live.match_view()["total"] == sum(b.imps for b in journal)

    # Resumed with more boards: the journaled ones are shown first, then the new ones.
    again = Recorder()
    more = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=6,
                       deals=solved_npz, resume=True)  # fmt: skip
    run_match(more, progress=lambda b: None, watch=again)
    assert [b for b, _, _ in again.boards] == [1, 2, 3, 4, 5, 6]


def test_the_match_command_prints_where_to_watch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["match", "--us", "random", "--them", "random", "--boards", "2", "--seed", "3",
                 "--web-port", "0", "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("watch the match at http://127.0.0.1:")
    with pytest.raises(SystemExit) as bad:  # argparse's own one-line error, as for play and seat
        main(["match", "--us", "random", "--web-port", "70000", "--out", str(tmp_path / "b")])
    assert bad.value.code == 2
    assert "--web-port: '70000' is not a port number (0..65535)" in capsys.readouterr().err


def test_the_match_page_shows_each_room_and_the_running_imps(
    tmp_path: Path, solved_npz: Path
) -> None:
    from bridgebot.server.web.spectator import SpectatorServer
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.browser import chromium, console_errors

    web = SpectatorServer(title="random v random", match=True)
    web.start()
    driver = chromium(tmp_path / "profile")
    try:
        driver.get(web.url)
        cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path / "m",
                          boards=4, deals=solved_npz)  # fmt: skip
        run_match(cfg, progress=lambda b: None, watch=web)
        total = sum(b.imps for b in read_journal(tmp_path / "m" / "journal.jsonl").boards)
        wait = WebDriverWait(driver, 20, poll_frequency=0.05)
        wait.until(lambda d: d.execute_script(
            "const m = document.getElementById('match'); return m && m.dataset.boards") == "4")  # fmt: skip
        text = driver.execute_script("return document.getElementById('match').innerText")
        assert "Running IMPs" in text and (f"{total:+d}" if total else "0") in text
        rooms = driver.execute_script(
            "return [...document.querySelectorAll('#tables section')].map(s => s.dataset.table)"
        )
        assert sorted(rooms) == ["closed", "open"]
        assert driver.title == "random v random"
        assert console_errors(driver) == []
    finally:
        driver.quit()
        web.close()


def test_the_match_page_of_a_double_dummy_match_says_only_what_happened(
    tmp_path: Path, solved_npz: Path
) -> None:
    """Issue 44: before the first board is scored the match box says so (it drew ``null``); the
    rooms of a double-dummy match, whose seats never connect and play no card, mark no seat
    away and count no tricks beside the result; each result is written as the records write it
    (``4HS+1``), in a room's list and in the match's."""
    from bridgebot.server.web.spectator import SpectatorServer
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.browser import chromium, console_errors

    web = SpectatorServer(title="random v random", match=True)
    web.start()
    driver = chromium(tmp_path / "profile")
    try:
        driver.get(web.url)
        wait = WebDriverWait(driver, 20, poll_frequency=0.05)
        wait.until(lambda d: d.execute_script("return document.body.dataset.state") == "live")
        before = wait.until(lambda d: d.execute_script(
            "const m = document.getElementById('match'); return m && !m.hidden && m.innerText"))  # fmt: skip
        assert "over 0 boards" in before and "null" not in before, before
        cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path / "m",
                          boards=4, deals=solved_npz)  # fmt: skip
        run_match(cfg, progress=lambda b: None, watch=web)
        wait.until(lambda d: d.execute_script(
            "const m = document.getElementById('match'); return m && m.dataset.boards") == "4")  # fmt: skip
        page = driver.execute_script("""
            const rows = (q) => [...document.querySelectorAll(q)].map(e => e.innerText);
            return {away: document.querySelectorAll('.who.away').length,
                    seats: document.querySelectorAll('#tables .seat').length,
                    tables: rows('#tables section'), match: rows('#match tbody tr'),
                    results: rows('#tables section[data-table="open"] [data-result-board]')};""")
        assert page["seats"] == 8 and page["away"] == 0
        assert not any("tricks" in text for text in page["tables"]), page["tables"]
        journal = read_journal(tmp_path / "m" / "journal.jsonl").boards
        opened = [next(r for r in b.rooms if r.room == "open") for b in reversed(journal)]
        for row, record in zip(page["results"], opened, strict=True):
            assert row.split("\t")[1].startswith(record.contract_result_text()), row
        for row, board in zip(page["match"], reversed(journal), strict=True):
            for room in board.rooms:
                assert f"{room.room}: {room.contract_result_text()}" in row, row
        assert console_errors(driver) == []
    finally:
        driver.quit()
        web.close()
