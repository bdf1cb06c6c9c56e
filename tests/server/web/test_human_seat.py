"""``bridgebot seat --agent human``'s parts at our table manager over real TCP: a person (this
test, through the page's HTTP API) and three random bots play whole boards; the server refuses
what is not the person's to do or not legal, whatever a script posts; a person who thinks for ten
minutes (virtual time) is waited for."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.server.records import read_journal
from bridgebot.server.seat import SeatClient
from bridgebot.server.tm import TableManager
from bridgebot.server.web.app import start_web
from bridgebot.server.web.human import HumanSeatClient, explainer, shipped_reader
from bridgebot.server.web.table import PersonTable
from endplay.types import Player

from bridgebot.agents import make_agent
from tests.server.web.test_play_words import RESULT

pytestmark = pytest.mark.virtual_time


async def _state(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    async with http.get(url + "api/state") as r:
        assert r.status == 200
        return dict(await r.json())


async def _post(http: aiohttp.ClientSession, url: str, what: str, body: object) -> tuple[int, Any]:
    async with http.post(url + f"api/{what}", json=body) as r:
        return r.status, await r.json()


async def _until(http: aiohttp.ClientSession, url: str, states: set[str]) -> dict[str, Any]:
    for _ in range(2000):
        view = await _state(http, url)
        if view["state"] in states:
            return view
        await asyncio.sleep(0.05)
    raise AssertionError(f"the page never reached {states}: {view}")


async def test_a_person_plays_whole_boards_at_our_table_manager(tmp_path: Path) -> None:
    boards = 2
    tm = TableManager(generate(11, boards), tmp_path / "tm")
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    bots = [
        SeatClient(
            host, port, p, "Bots" if p.value % 2 else "People", make_agent("random", p.value)
        )
        for p in (Player.north, Player.east, Player.west)
    ]
    table = PersonTable()
    table.explain = explainer(table, shipped_reader(make_agent))
    person = HumanSeatClient(host, port, Player.south, "People", table)
    web = await start_web(table)
    tasks = [asyncio.create_task(c.run()) for c in (*bots, person)]
    loop = asyncio.get_running_loop()
    thought = False
    refused = 0
    results: dict[int, str] = {}
    try:
        async with aiohttp.ClientSession() as http:
            url = web.url
            while True:
                view = await _until(http, url, {"your-call", "your-card", "dummy-card",
                                                "board-done", "session-done"})  # fmt: skip
                state = view["state"]
                if state == "session-done":
                    break
                if state == "board-done":
                    done = view["done"]
                    assert len(done["auction"]) >= 4
                    results[done["board"]] = done["result"]["text"]
                    async with http.get(url + f"api/explain?board={done['board']}&index=0") as r:
                        meaning = await r.json()
                    first = done["auction"][0]["call"]
                    assert meaning["text"].startswith(f"{first}: "), meaning
                    status, _ = await _post(http, url, "call", {"call": "Pass"})
                    assert status == 409  # a finished board takes no call
                    assert (await _post(http, url, "next", {}))[0] == 200
                    continue
                legal_calls = view["table"].get("legalCalls", [])
                legal_cards = view["table"].get("legalCards", [])
                if state == "your-call":
                    # Out of turn, illegal, and nonsense: refused by the server, table unchanged.
                    status, body = await _post(http, url, "card", {"card": "SA"})
                    assert status == 409 and "not your turn" in body["error"]
                    illegal = next(
                        c for c in ("1C", "XX", "X", "7NT", "Pass") if c not in legal_calls
                    )
                    status, body = await _post(http, url, "call", {"call": illegal})
                    assert status == 409 and "not a legal call" in body["error"], body
                    status, _ = await _post(http, url, "call", {"call": "9Z"})
                    assert status == 409
                    refused += 3
                    if not thought:  # ten minutes of thinking, in virtual time
                        before = loop.time()
                        await asyncio.sleep(600)
                        assert loop.time() - before >= 600
                        thought = True
                    assert (await _state(http, url))["state"] == "your-call"
                    status, _ = await _post(http, url, "call", {"call": legal_calls[0]})
                    assert status == 200
                else:
                    status, _ = await _post(http, url, "call", {"call": "Pass"})
                    assert status == 409
                    held = [c for s in "SHDC" for c in view["table"]["hand"][s]]
                    if state == "dummy-card":
                        held = [c for s in "SHDC" for c in view["table"]["dummy"][s]]
                    wrong = [c for c in held if c not in legal_cards]
                    if wrong:
                        status, body = await _post(http, url, "card", {"card": wrong[0]})
                        assert status == 409 and "not a legal card" in body["error"]
                    status, _ = await _post(http, url, "card", {"card": legal_cards[0]})
                    assert status == 200
            async with http.post(url + "api/call", data="not json") as r:
                assert r.status == 400
            for path, kind in (("", "text/html"), ("favicon.ico", "image/svg+xml"),
                               ("static/play.js", "text/javascript"),
                               ("static/play.css", "text/css")):  # fmt: skip
                async with http.get(url + path) as r:
                    assert r.status == 200 and r.content_type == kind
                    # nothing from elsewhere: no address but the SVG namespace
                    assert re.search(rb"https?://(?!www\.w3\.org/)", await r.read()) is None
            async with http.get(url + "static/../app.py") as r:
                assert r.status == 404
            # Another site's page cannot act through the person's browser.
            async with http.post(
                url + "api/next", json={}, headers={"Origin": "http://elsewhere.example"}
            ) as r:
                assert r.status == 403
        summaries = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        await asyncio.wait_for(serving, 10)
    finally:
        for t in tasks:
            t.cancel()
        await web.close()
        await tm.close()
    assert thought and refused >= 3
    assert [s.boards for s in summaries] == [boards] * 4
    assert len(table.finished) == boards
    journal = (tmp_path / "tm" / "journal.jsonl").read_text().splitlines()
    assert sum('"deal"' in line for line in journal) == boards
    # The result in the one notation of the seat's log line and the records (issue 44).
    records = read_journal(tmp_path / "tm" / "journal.jsonl").records
    assert results == {r.board: r.contract_result_text() for r in records}
    assert all(RESULT.fullmatch(text) for text in results.values()), results
