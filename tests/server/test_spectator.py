"""The live tables' feed: the table manager's observer hook (``server.table_events``) tells every seat,
board, call, card and result in order, and matches the journal; the spectator's state
(``server.web.spectator_state``) rebuilds each table from those events, hiding the hands where a
person sits; the web server (``server.web.spectator``) never waits for a page: a page that does
not read is dropped while the others get every view."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from bridgebot.engine.agent import BiddingView
from bridgebot.laws.board_sets import generate
from bridgebot.laws.notation import call_text, card_text
from bridgebot.protocol.table import TableResult
from bridgebot.server import table_events
from bridgebot.server.records import read_journal
from bridgebot.server.testing import random_seat
from bridgebot.server.tm import TableManager
from bridgebot.server.web import spectator
from bridgebot.server.web.spectator import SpectatorServer
from bridgebot.server.web.spectator_state import LiveTables
from endplay.types import Bid, Deal, Player

Seen = list[tuple[int, table_events.TableEvent]]


def alert_bids(view: BiddingView, call: Bid) -> str | None:
    """North's alerter: every bid of a level is alerted, with a text that names it."""
    text = call_text(call)
    return f"test alert {text}" if text[0].isdigit() else None


async def play(tm: TableManager, seed: int = 0) -> None:
    """Four random seats at every table; North alerts its bids."""
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    seats = []
    for t in range(len(tm.tables)):
        for p in Player:
            seats.append(random_seat(port, p, seed=seed + 10 * t))
            if p == Player.north:
                seats[-1].alerter = alert_bids
    await asyncio.wait_for(asyncio.gather(*(s.run() for s in seats)), 600)
    await asyncio.wait_for(serving, 10)


@pytest.mark.virtual_time
async def test_the_observer_sees_each_table_in_order_as_the_journal_has_it(tmp_path: Path) -> None:
    seen: Seen = []
    boards_seen: list[int] = []

    def on_board(table: int, result: TableResult) -> None:
        boards_seen.append(len(seen))

    tm = TableManager(generate(5, 3), tmp_path, tables=2, on_board=on_board,
                      observer=lambda t, e: seen.append((t, e)))  # fmt: skip
    await play(tm)
    journal = read_journal(tmp_path / "journal.jsonl").records
    assert len(journal) == 6
    for table in (1, 2):
        everything = [e for t, e in seen if t == table]
        # The seats leave once the session is over (here, not before).
        left = [i for i, e in enumerate(everything) if isinstance(e, table_events.SeatLeft)]
        ended = [i for i, e in enumerate(everything) if isinstance(e, table_events.SessionEnded)]
        assert len(ended) == 1 and len(left) == 4 and min(left) > ended[0]
        mine = [e for e in everything if not isinstance(e, table_events.SeatLeft)]
        assert sorted(e.seat for e in mine[:4] if isinstance(e, table_events.SeatJoined)) == sorted(
            "NESW"
        )
        assert isinstance(mine[-1], table_events.SessionEnded)
        records = [r for r in journal if r.table == table]
        starts = [i for i, e in enumerate(mine) if isinstance(e, table_events.BoardStarted)]
        assert len(starts) == 3
        for k, (start, record) in enumerate(zip(starts, records, strict=True)):
            end = starts[k + 1] if k + 1 < len(starts) else len(mine)
            board = mine[start:end]
            started = board[0]
            assert isinstance(started, table_events.BoardStarted)
            assert (started.board, started.dealer, started.vul, started.deal) == (
                record.board, record.dealer, record.vul, record.deal)  # fmt: skip
            calls = [e for e in board if isinstance(e, table_events.CallMade)]
            cards = [e for e in board if isinstance(e, table_events.CardPlayed)]
            assert [c.index for c in calls] == list(range(len(record.auction)))
            assert tuple(c.call for c in calls) == record.auction
            assert {c.index: c.alert for c in calls if c.alert is not None} == record.alerts
            assert [c.index for c in cards] == list(range(len(record.play)))
            assert tuple(c.card for c in cards) == record.play
            # Each card by the seat that held it.
            deal = Deal(record.deal)
            assert all(c.card in {card_text(x) for x in deal[Player.find(c.seat)]} for c in cards)
            # Calls before cards; the board's end last, with its journal line.
            kinds = [type(e) for e in board[1:]]
            assert kinds == [table_events.CallMade] * len(calls) + [table_events.CardPlayed] * len(cards) + [
                table_events.BoardFinished] + ([table_events.SessionEnded] if k == 2 else [])  # fmt: skip
            finished = next(e for e in board if isinstance(e, table_events.BoardFinished))
            assert finished.record == record
    played = [r for r in journal if r.contract is not None]
    assert played and any(len(r.play) == 52 for r in played)
    assert any(r.alerts for r in journal)  # North's alerts went through the hook too
    # BoardFinished comes after on_board (the board is recorded and handed on first).
    finished = [i for i, (_, e) in enumerate(seen) if isinstance(e, table_events.BoardFinished)]
    assert finished == boards_seen


FAILED = "observer failed; it is told nothing more of this table"


@pytest.mark.virtual_time
@pytest.mark.expect_error_log(FAILED)
async def test_a_failing_observer_is_logged_once_and_the_session_goes_on(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    calls: list[table_events.TableEvent] = []

    def observer(table: int, event: table_events.TableEvent) -> None:
        calls.append(event)
        if isinstance(event, table_events.BoardStarted):
            raise RuntimeError("a broken page")

    tm = TableManager(generate(6, 2), tmp_path, observer=observer)
    await play(tm)
    assert len(read_journal(tmp_path / "journal.jsonl").records) == 2
    assert [e["what"] for e in logs if e["event"] == FAILED] == ["BoardStarted"]
    assert isinstance(calls[-1], table_events.BoardStarted) and len(calls) == 5


async def _session_events(tmp_path: Path, seed: int = 5) -> Seen:
    seen: Seen = []
    tm = TableManager(generate(seed, 2), tmp_path, observer=lambda t, e: seen.append((t, e)))
    await play(tm)
    return seen


@pytest.mark.virtual_time
async def test_the_state_follows_a_board_card_by_card(tmp_path: Path) -> None:
    seen = await _session_events(tmp_path)
    record = next(e.record for _, e in seen if isinstance(e, table_events.BoardFinished)
                  and e.record.contract is not None and len(e.record.play) == 52)  # fmt: skip
    live = LiveTables()
    cards = alerts = 0
    for _, e in seen:
        live.apply("1", e)
        view = live.table_view("1")
        board = view["board"]
        if isinstance(e, table_events.SeatJoined):
            assert view["seats"][e.seat] == {"team": e.team, "here": True, "away": False,
                                             "person": False}  # fmt: skip
        if isinstance(e, table_events.CallMade):
            assert board["auction"][-1] == {"seat": e.seat, "call": e.call, "alert": e.alert}
            alerts += e.alert is not None
        if isinstance(e, table_events.BoardStarted) and e.board == record.board:
            assert board["state"] == "auction" and board["played"] == 0
            assert all(sum(len(s) for s in h.values()) == 13 for h in board["hands"].values())
        if isinstance(e, table_events.CardPlayed) and e.board == record.board:
            cards += 1
            assert board["state"] == "play" and board["played"] == cards
            assert board["contract"] == record.contract and board["declarer"] == record.declarer
            # The vugraph: what each seat has left, the trick in progress, tricks won.
            left = sum(sum(len(s) for s in h.values()) for h in board["hands"].values())
            assert left == 52 - cards
            assert board["trick"][-1] == {"seat": e.seat, "card": e.card}
            assert len(board["trick"]) == (cards % 4 or 4)
            assert board["won"]["NS"] + board["won"]["EW"] == cards // 4
            assert e.card[1:] not in board["hands"][e.seat][e.card[0]]
        if isinstance(e, table_events.BoardFinished) and e.record.board == record.board:
            assert board["state"] == "done" and board["result"]["tricks"] == record.tricks
            assert board["result"]["score_ns"] == record.score_ns
            assert view["results"][0]["board"] == record.board
            declarer_side = "NS" if record.declarer in "NS" else "EW"
            assert board["won"][declarer_side] == record.tricks
            # A finished board shows the four whole hands.
            assert all(sum(len(s) for s in h.values()) == 13 for h in board["hands"].values())
    assert cards == 52 and alerts > 0
    assert live.table_view("1")["ended"] is True
    assert [r["board"] for r in live.table_view("1")["results"]] == [2, 1]


@pytest.mark.virtual_time
async def test_a_table_with_a_person_hides_the_hands_until_the_board_is_over(
    tmp_path: Path,
) -> None:
    seen = await _session_events(tmp_path)
    live = LiveTables(people=[("1", Player.south)])
    open_live = LiveTables()
    shown_dummy = False
    for _, e in seen:
        live.apply("1", e)
        open_live.apply("1", e)
        board = live.table_view("1")["board"]
        if board is None:
            continue
        assert live.table_view("1")["seats"]["S"]["person"] is True
        hands = board["hands"]
        if board["state"] == "done":
            assert all(h is not None for h in hands.values())
            continue
        dummy = None
        if board["declarer"] is not None:
            dummy = "NESW"[("NESW".index(board["declarer"]) + 2) % 4]
        for seat, hand in hands.items():
            if seat == dummy and board["played"] > 0:
                assert hand == open_live.table_view("1")["board"]["hands"][seat]
                shown_dummy = True
            else:
                assert hand is None, (seat, board["state"], board["played"])
        # Everything public at the table is shown all the same.
        other = open_live.table_view("1")["board"]
        assert (board["auction"], board["trick"]) == (other["auction"], other["trick"])
    assert shown_dummy


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.load(r)


async def test_a_page_that_does_not_read_is_dropped_and_nothing_waits_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(spectator, "QUEUE_LIMIT", 4)
    monkeypatch.setattr(spectator, "FLUSH_SECONDS", 0.01)
    web = SpectatorServer()
    web.start()
    try:
        ws_url = web.url.replace("http", "ws") + "ws"
        async with aiohttp.ClientSession() as session:
            reader = await session.ws_connect(ws_url, max_msg_size=0)
            # The slow page: a raw socket that completes the handshake and never reads again.
            host, port = web.address or ("", 0)
            r, w = await asyncio.open_connection(host, port, limit=1024)
            sock = w.get_extra_info("socket")
            sock.setsockopt(__import__("socket").SOL_SOCKET, __import__("socket").SO_RCVBUF, 4096)
            w.write(f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                    "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    "Sec-WebSocket-Version: 13\r\n\r\n".encode())  # fmt: skip
            await w.drain()
            await r.readuntil(b"\r\n\r\n")
            await asyncio.sleep(0.2)
            big = "x" * 200_000  # every table's view carries its team names
            got: set[str] = set()

            async def read() -> None:  # the page that keeps up
                while len(got) < 60:
                    msg = await reader.receive()
                    assert msg.type is aiohttp.WSMsgType.TEXT, msg
                    view = json.loads(msg.data)
                    if view["type"] == "table" and view["seats"]["N"]["team"] == big:
                        got.add(view["label"])

            reading = asyncio.create_task(read())
            started = time.perf_counter()
            for table in range(60):
                web.publish(str(table), table_events.SeatJoined("N", big))
                await asyncio.sleep(0.01)
            publishing = time.perf_counter() - started
            await asyncio.wait_for(reading, 20)
            for _ in range(100):
                if web.dropped:
                    break
                await asyncio.sleep(0.05)
            assert web.dropped == 1  # the slow page only
            assert publishing < 60 * 0.01 + 0.5  # publish never waited for a page
            # A page that comes (back) is sent the whole state first: every table, in order.
            again = await session.ws_connect(ws_url, max_msg_size=0)
            first = [json.loads((await again.receive()).data) for _ in range(61)]
            assert first[0]["type"] == "hello"
            assert [v["label"] for v in first[1:]] == [str(t) for t in range(60)]
            await again.close()
            await reader.close()
            w.close()
    finally:
        web.close()


async def test_the_page_and_its_files_are_served_with_a_favicon_and_nothing_else() -> None:
    web = SpectatorServer(people=[("1", Player.south)])
    host, _ = web.start()
    try:
        assert host == "127.0.0.1"
        for path, kind in (("", "text/html"), ("watch.js", "text/javascript"),
                           ("watch.css", "text/css"), ("favicon.ico", "image/svg+xml"),
                           ("favicon.svg", "image/svg+xml")):  # fmt: skip
            with urllib.request.urlopen(web.url + path, timeout=10) as r:
                assert r.headers["Content-Type"].startswith(kind)
                assert "default-src 'self'" in r.headers["Content-Security-Policy"]
                body = r.read().decode().replace("http://www.w3.org/2000/svg", "")  # a name
            assert "http://" not in body and "https://" not in body
        web.publish("1", table_events.SeatJoined("S", "Alice"))
        for _ in range(50):
            state = _get(web.url + "state.json")
            if len(state) > 1 and state[1]["seats"]["S"]["team"]:
                break
            time.sleep(0.05)
        assert state[0]["type"] == "hello"
        assert state[1]["seats"]["S"] == {"team": "Alice", "here": True, "away": False,
                                         "person": True}  # fmt: skip
    finally:
        web.close()
    with pytest.raises(OSError):
        urllib.request.urlopen(web.url, timeout=2)
