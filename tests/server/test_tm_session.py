"""Whole sessions: our seat clients (random agents) against our table manager over real TCP.

The 32-board test checks that every board completes, that every PBN record reads back with
endplay, and that its recorded result is what the recorded play gives when the tricks are counted
again with ``laws.calls``. The grammar test checks every line our table manager emitted in a
whole session with table-master-parser (tests/grammar_check.py), apart from its known rejections.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import endplay.parsers.pbn as pbn
from bridgebot.laws import calls as rules
from bridgebot.laws import play
from bridgebot.laws.board_sets import generate
from bridgebot.server.seat import SeatClient
from bridgebot.server.testing import seat_script
from bridgebot.server.tm import TableManager, TableOptions
from endplay.types import Player

from bridgebot.agents import make_agent
from tests.grammar_check import unexpected_rejections

TEAMS = {
    Player.north: "Bots NS",
    Player.south: "Bots NS",
    Player.east: "Rnd EW",
    Player.west: "Rnd EW",
}


async def play_session(
    tmp: Path,
    count: int,
    seed: int,
    *,
    tables: int = 1,
    options: TableOptions | list[TableOptions] | None = None,
    logs: list[dict[str, Any]],
) -> TableManager:
    """Random seats play ``count`` boards; a clean session logs no warning or error."""
    tm = TableManager(generate(seed, count), tmp, tables=tables, options=options or TableOptions())
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    clients = [
        SeatClient(host, port, p, TEAMS[p], make_agent("random", seed * 100 + 10 * t + p.value))
        for t in range(tables)
        for p in Player
    ]
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    await asyncio.wait_for(serving, 10)
    bad = [e for e in logs if e["log_level"] in ("warning", "error", "critical")]
    assert bad == []
    assert any(e["event"] == "line" and e.get("dir") == "in" for e in logs)
    assert all(s.boards == count for s in summaries), [s.boards for s in summaries]
    return tm


def recount(record: pbn.Board) -> int:
    """Declarer's tricks, counted again from the recorded play with laws.calls."""
    assert record.contract is not None
    leader = record.contract.declarer.lho
    hands = {p: list(record.deal[p]) for p in Player}
    won = 0
    for t in range(13):
        trick = record.play[4 * t : 4 * t + 4]
        for i, card in enumerate(trick):  # every card was held by the player in turn
            p = Player((leader.value + i) % 4)
            legal = play.legal_cards(record.deal[p], trick[:i])
            assert card in hands[p] and card in legal, (t, p, card)
            hands[p].remove(card)
            record.deal[p].remove(card)
        leader = play.trick_winner(leader, trick, record.contract.denom)
        won += leader.value % 2 == record.contract.declarer.value % 2
    return won


async def test_32_boards_random_seats(tmp_path: Path, logs: list[dict[str, Any]]) -> None:
    tm = await play_session(tmp_path, 32, seed=7, logs=logs)
    results = tm.tables[0].results
    assert len(results) == 32 and all(r.aborted is None for r in results)
    journal = [json.loads(x) for x in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert [e["board"] for e in journal] == list(range(1, 33))
    records = pbn.loads((tmp_path / "boards.pbn").read_text())
    assert len(records) == 32
    for record, entry, board in zip(records, journal, generate(7, 32), strict=True):
        assert record.board_num == board.number and str(record.deal) == str(board.deal)
        assert record.dealer == board.dealer and record.vul == board.vul
        legal_so_far: list[object] = []
        for call in record.auction:  # every recorded call was legal when made
            assert rules.is_legal_call(board.dealer, legal_so_far, call)  # type: ignore[arg-type]
            legal_so_far.append(call)
        assert rules.auction_over(record.auction)
        if entry["passed_out"]:
            assert record.contract is None or record.contract.level == 0
            assert entry["score_ns"] == 0 and record.play == []
            continue
        assert len(record.play) == 52
        tricks = recount(record)
        assert tricks == entry["tricks"] == record.contract.level + 6 + record.contract.result


async def test_every_line_we_send_passes_the_third_party_grammar(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    # bridge-player's dialect: the parser rejects the spec's parenthesised seated line.
    from bridgebot.protocol.dialect import BRIDGE_PLAYER_DIALECT

    await play_session(
        tmp_path, 4, seed=3, options=TableOptions(dialect=BRIDGE_PLAYER_DIALECT), logs=logs
    )
    transcript = tmp_path / "transcript-1.txt"
    sent = [s.line for p in Player for s in seat_script(transcript, p) if s.kind == "send"]
    assert any(line.startswith("Timing") for line in sent)
    assert unexpected_rejections(sent) == []
    # And the default dialect: only the known rejections (the parenthesised seated line).
    await play_session(tmp_path / "default", 1, seed=4, logs=logs)
    transcript = tmp_path / "default" / "transcript-1.txt"
    sent = [s.line for p in Player for s in seat_script(transcript, p) if s.kind == "send"]
    assert unexpected_rejections(sent) == []


async def test_two_tables_in_one_process(tmp_path: Path, logs: list[dict[str, Any]]) -> None:
    from bridgebot.protocol.dialect import Dialect

    # Each table has its own output dialect (table 2 speaks to bridge-player-like clients).
    options = [TableOptions(), TableOptions(dialect=Dialect(seated="quoted", teams="colonless"))]
    tm = await play_session(tmp_path, 3, seed=11, tables=2, options=options, logs=logs)
    assert [len(t.results) for t in tm.tables] == [3, 3]
    one, two = ((tmp_path / f"transcript-{i}.txt").read_text() for i in (1, 2))
    assert 'North ("Bots NS") seated' in one and 'Teams : N/S : "Bots NS" E/W' in one
    assert 'North "Bots NS" seated' in two and 'Teams: N/S "Bots NS" E/W "Rnd EW"' in two
    journal = [json.loads(x) for x in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert sorted((e["table"], e["board"]) for e in journal) == [
        (t, b) for t in (1, 2) for b in (1, 2, 3)
    ]


async def test_a_table_manager_stopped_mid_session_holds_no_seat_for_its_team(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    """Issue 62: stopped with Ctrl-C or SIGTERM (what ``docker stop`` sends), ``tm`` logged
    "seat disconnected; held for its team" for every seat, as if each had gone away and the
    session waited for it. The table manager closes them itself: each is said once, at info, as
    closed because it stops; nothing warns. (A session played to End of session logs no warning
    at all: ``play_session``.)"""
    tm = TableManager(generate(5, 200), tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())  # asyncio.run's main task in ``bridgebot tm``
    clients = [SeatClient(host, port, p, TEAMS[p], make_agent("random", p.value)) for p in Player]
    seats = [asyncio.create_task(c.run()) for c in clients]
    while tm.tables[0].played < 1:  # a session under way, a board in play
        await asyncio.sleep(0.01)
    serving.cancel()  # what Ctrl-C (and SIGTERM, under bridgebot's handler) does to it
    await asyncio.gather(serving, return_exceptions=True)
    await asyncio.wait_for(asyncio.gather(*seats, return_exceptions=True), 30)
    warnings = [e for e in logs if e["log_level"] in ("warning", "error", "critical")]
    assert warnings == []
    closed = [e["seat"] for e in logs if e["event"] == "seat closed; the table manager is stopping"]
    assert sorted(closed) == sorted(p.name for p in Player)
    assert not any(e["event"] == "connection closed by peer" for e in logs)  # we closed them


def wbridge5_style(line: str) -> list[str]:
    """Rewrite a line as WBridge5 writes it (docs/protocol.md 4): upper-case seat names and keywords,
    a double space in ``ready for  X's bid``, lower-case cards; and add GIB's ``received dummy``
    after ``ready for dummy`` plus old Ben's trailing full stop on ready messages."""
    words = line.split(" ")
    seats = {"North", "East", "South", "West", "North's", "East's", "South's", "West's"}
    out = [w.upper() if w in seats or w in ("passes", "doubles", "redoubles") else w for w in words]
    if len(out) >= 3 and out[1] == "plays":
        out[2] = out[2].lower()
    text = " ".join(out).replace("ready for ", "ready for  ", 1) if "bid" in line else " ".join(out)
    if line.endswith("ready for dummy"):
        return [text + ".", f"{words[0].upper()} received dummy"]
    return [text]


async def test_peer_habits_wbridge5_gib_ben_bridge_player(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    """North speaks WBridge5's case (through a proxy), East and West use bridge-player's order
    (``ready for dummy`` right after the auction, ``dummy's`` form from everyone), South is plain:
    the table manager must play every board with no warning."""
    from bridgebot.protocol.dialect import Dialect
    from bridgebot.server.testing import LineProxy

    tm = TableManager(generate(9, 6), tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    proxy = LineProxy(host, port, to_tm=wbridge5_style)
    pport = await proxy.start()
    early = Dialect(early_dummy=True)
    clients = [
        SeatClient(host, pport, Player.north, "NS", make_agent("random", 1)),
        SeatClient(host, port, Player.south, "NS", make_agent("random", 2)),
        SeatClient(host, port, Player.east, "EW", make_agent("random", 3), dialect=early,
                   dummy_form="all"),
        SeatClient(host, port, Player.west, "EW", make_agent("random", 4), dialect=early,
                   dummy_form="all"),
    ]  # fmt: skip
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 60)
    results = await asyncio.wait_for(serving, 10)
    await proxy.close()
    assert [s.boards for s in summaries] == [6] * 4
    assert all(r.aborted is None for r in results[0])
    assert [e for e in logs if e["log_level"] in ("warning", "error")] == []
    text = (tmp_path / "transcript-1.txt").read_text()
    north_not_dummy = sum(
        1 for r in results[0] if r.contract is not None and r.contract.declarer != Player.south
    )
    assert text.count("NORTH received dummy") == north_not_dummy > 0
    assert "ready for  " in text  # the double space really went through


async def test_one_port_per_seat_the_specs_layout(tmp_path: Path) -> None:
    """--seat-ports: each seat connects to its own port; ANYPL there means that port's seat, and a
    seat name that is not the port's is refused."""
    tm = TableManager(generate(2, 2), tmp_path, seat_ports=True)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    ports = {p: tm.seat_addresses[p][1] for p in Player}
    assert len(set(ports.values()) | {port}) == 5
    wrong = await asyncio.open_connection(host, ports[Player.east])
    wrong[1].write(b'Connecting "NS" as North using protocol version 18\r\n')
    refusal = await asyncio.wait_for(wrong[0].readline(), 10)
    assert refusal.startswith(b"Illegal hand 'north' specified")
    assert await asyncio.wait_for(wrong[0].read(), 10) == b""  # and the socket is closed
    wrong[1].close()
    clients = [
        SeatClient(host, ports[p], None if p == Player.west else p, TEAMS[p],
                   make_agent("random", p.value))
        for p in Player
    ]  # fmt: skip
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 60)
    await asyncio.wait_for(serving, 10)
    assert [s.seat for s in summaries] == list(Player) and [s.boards for s in summaries] == [2] * 4
