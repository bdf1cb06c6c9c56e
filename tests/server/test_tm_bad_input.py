"""Bad input against our table manager over real TCP: junk, huge lines, refusals, illegal calls
and cards (answer, retry, cap), a silent seat (timeout), and seats that drop and come back.

Seats are our own seat clients (random agents) or scripted seats; misbehaviour is injected by a
:class:`server.testing.LineProxy` between one client and the table manager, so the table manager
under test sees only what a faulty peer would send.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import endplay.parsers.pbn as pbn
import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.protocol.codec import Direction, parse, render_card
from bridgebot.protocol.messages import CallMsg, PlayMsg
from bridgebot.server.records import read_journal
from bridgebot.server.seat import SeatClient
from bridgebot.server.testing import (
    GOLDEN_BOARD,
    FakeClock,
    LineProxy,
    ScriptedSeat,
    random_seat,
    seat_script,
    thinking,
)
from bridgebot.server.tm import EXPECTED_CONNECT, TableManager, TableOptions
from endplay.types import Player

from bridgebot.agents import make_agent

TRANSCRIPT = Path(__file__).parents[1] / "peers" / "transcript_6_1.txt"
pytestmark = pytest.mark.virtual_time


def journal(out: Path) -> list[dict[str, Any]]:
    return [r.model_dump() for r in read_journal(out / "journal.jsonl").records]


async def run_with_proxy(
    out: Path,
    count: int,
    seed: int,
    to_tm: Callable[[str], list[str]] | None = None,
    to_seat: Callable[[str], list[str]] | None = None,
    *,
    options: TableOptions | None = None,
) -> TableManager:
    """One table; North talks through a proxy with the given hooks; the others directly."""
    tm = TableManager(generate(seed, count), out, options=options or TableOptions())
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    proxy = LineProxy(host, port, to_tm=to_tm, to_seat=to_seat)
    pport = await proxy.start()
    clients = [random_seat(pport if p == Player.north else port, p) for p in Player]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 600)
    await asyncio.wait_for(serving, 10)
    await proxy.close()
    return tm


def first_only(kind: type, inject: Callable[[Any, str], list[str]]) -> Callable[[str], list[str]]:
    """A to_tm hook applying ``inject`` to the first line parsing as ``kind`` on board 1."""
    state = {"done": False}

    def hook(line: str) -> list[str]:
        if not state["done"]:
            msg = parse(line, Direction.TO_TM)
            if isinstance(msg, kind):
                state["done"] = True
                return inject(msg, line)
        return [line]

    return hook


def swallow(text: str) -> Callable[[str], list[str]]:
    return lambda line: [] if line == text else [line]


async def test_illegal_call_is_answered_and_the_retry_counts(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    # Board 1: North deals; a double as the opening call is never legal.
    hook = first_only(CallMsg, lambda msg, line: ["North doubles", line])
    await run_with_proxy(tmp_path, 1, 5, hook, swallow("Illegal bid"))
    (entry,) = journal(tmp_path)
    assert entry["aborted"] is None and entry["auction"][0] != "X"
    north = seat_script(tmp_path / "transcript-1.txt", Player.north)
    assert [s.line for s in north].count("Illegal bid") == 1
    assert "Illegal bid" in [s.line for s in north if s.kind == "send"]
    assert [e["seat"] for e in logs if e["event"] == "illegal call"] == ["north"]


async def test_illegal_card_is_answered_and_the_retry_counts(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    deal = generate(5, 1)[0].deal

    def inject(msg: PlayMsg, line: str) -> list[str]:
        assert msg.seat is not None
        held = set(map(str, deal[msg.seat]))
        foreign = next(c for p in Player if p != msg.seat for c in deal[p] if str(c) not in held)
        return [f"{msg.seat.name.capitalize()} plays {render_card(foreign)}", line]

    await run_with_proxy(tmp_path, 1, 5, first_only(PlayMsg, inject),
                                    swallow("Illegal card"))  # fmt: skip
    (entry,) = journal(tmp_path)
    assert entry["aborted"] is None and len(entry["play"]) == 52
    north = [s.line for s in seat_script(tmp_path / "transcript-1.txt", Player.north)]
    assert north.count("Illegal card") == 1
    assert [e["seat"] for e in logs if e["event"] == "illegal card"] == ["north"]


async def test_illegal_calls_beyond_the_cap_abort_the_board_and_the_next_one_plays(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    hook = first_only(CallMsg, lambda msg, line: ["North doubles", "North redoubles",
                                                  "North doubles", line])  # fmt: skip
    await run_with_proxy(tmp_path, 2, 5, hook, swallow("Illegal bid"))
    first, second = journal(tmp_path)
    assert first["board"] == 1 and first["aborted"] == "North made 3 illegal calls"
    assert second["board"] == 2 and second["aborted"] is None
    records = pbn.loads((tmp_path / "boards.pbn").read_text())
    assert [r.board_num for r in records] == [2]  # an aborted board has no result to record
    assert sum(e["event"] == "illegal call" for e in logs) == 2  # the third one aborts


async def test_a_silent_seat_times_out_and_the_session_goes_on(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    # North's first call never reaches the table manager.
    hook = first_only(CallMsg, lambda msg, line: [])
    await run_with_proxy(tmp_path, 2, 5, hook, options=TableOptions(timeout=60))
    first, second = journal(tmp_path)
    assert first["aborted"].startswith("timeout: no line for 60 s in auction")
    assert "waiting for North" in first["aborted"]
    assert second["aborted"] is None
    assert any(e["event"] == "board aborted" for e in logs)


@pytest.mark.parametrize("cut_on", ["auction", "play"])
async def test_seat_drops_and_reconnects_board_restarts_other_table_goes_on(
    tmp_path: Path, cut_on: str, logs: list[dict[str, Any]]
) -> None:
    tm = TableManager(generate(5, 2), tmp_path, tables=2)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    proxy: LineProxy

    def cut(line: str) -> list[str]:
        msg = parse(line, Direction.TO_TM)
        auction_cut = cut_on == "auction" and isinstance(msg, CallMsg)
        play_cut = cut_on == "play" and "card to trick 3" in line
        if auction_cut or play_cut:
            proxy.cut()
            return []
        return [line]

    proxy = LineProxy(host, port, to_tm=cut)
    pport = await proxy.start()
    # Table 1: North through the proxy (it will be cut); table 2 after, all direct.
    table1 = [random_seat(pport if p == Player.north else port, p) for p in Player]
    runs1 = [asyncio.ensure_future(c.run()) for c in table1]
    await asyncio.sleep(0)  # table 1's seats connect first: they fill table 1
    while len(tm.tables[0].machine.teams) < 4:
        await asyncio.sleep(0.01)
    table2 = [asyncio.ensure_future(random_seat(port, p, seed=50).run()) for p in Player]
    with pytest.raises(Exception):  # noqa: B017 - the cut client fails, however it reports it
        await asyncio.wait_for(runs1[0], 30)
    # North comes back with the same team name; the board restarts from Start of board.
    back = random_seat(port, Player.north, seed=7)
    await asyncio.wait_for(asyncio.gather(back.run(), *runs1[1:], *table2), 60)
    results = await asyncio.wait_for(serving, 10)
    await proxy.close()
    assert [len(r) for r in results] == [2, 2]
    assert all(r.aborted is None for t in results for r in t)
    assert sum(e["event"] == "board restart" for e in logs) == 1
    assert any(e["event"] == "seat disconnected; held for its team" for e in logs)
    entries = journal(tmp_path)
    assert sorted((e["table"], e["board"]) for e in entries) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    records = pbn.loads((tmp_path / "boards.pbn").read_text())
    assert len(records) == 4


async def test_junk_and_a_megabyte_line_are_ignored_and_the_board_is_unchanged(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    clock = FakeClock()
    tm = TableManager([GOLDEN_BOARD], tmp_path, clock=clock)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    hooks = thinking(clock)
    seats = []
    for p in Player:
        steps = seat_script(TRANSCRIPT, p)
        if p == Player.north:  # junk right after connecting, and in the middle of the auction
            junk = [type(steps[0])("expect", x) for x in ("hello there", "X" * 1_000_000)]
            steps = steps[:1] + junk + steps[1:40] + junk[:1] + steps[40:]
        seats.append(ScriptedSeat(host, port, steps, name=p.name, before=hooks.get(p)))
    await asyncio.gather(*(s.run() for s in seats))
    await asyncio.wait_for(serving, 10)
    warnings = [e for e in logs if e["log_level"] == "warning"]
    assert [e["event"] for e in warnings] == ["bad line", "line too long", "bad line"]
    assert all(e["seat"] == "north" for e in warnings)
    (entry,) = journal(tmp_path)
    assert entry["tricks"] == 10


async def test_refusals_before_seating_say_why_and_close(tmp_path: Path) -> None:
    tm = TableManager(generate(1, 1), tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())

    async def attempt(first: bytes) -> list[str]:
        seat = ScriptedSeat(host, port, timeout=5)
        await seat.write_raw(first)
        lines = []
        while (line := await seat.read_line()) is not None:
            lines.append(line)
        await seat.close()
        return lines

    north = ScriptedSeat(host, port)
    await north.write_raw(b'Connecting "NS" as North using protocol version 18\r\n')
    assert await north.read_line() == 'North ("NS") seated'
    assert await attempt(b"hello\r\n") == [EXPECTED_CONNECT]
    assert await attempt(b'Connecting "NS" as North using protocol version 18\r\n') == [
        "Seat was already taken"
    ]
    assert await attempt(b'Connecting "XY" as South using protocol version 18\r\n') == [
        "Team name must be 'NS'"
    ]
    assert await attempt(b'Connecting "NS" as East using protocol version 18\r\n') == [
        "Team name must differ from opponents team name 'NS'"
    ]
    assert await attempt(b"C" * 1_000_000 + b"\r\n") == ["Error: line too long"]
    # ANYPL (WBridge5 Autoconnect) gets the first free seat it may take: South is N/S's, so West.
    anyp = SeatClient(host, port, None, "EW", make_agent("random", 3))
    anyp_run = asyncio.ensure_future(anyp.run())
    while Player.west not in tm.tables[0].conns:
        await asyncio.sleep(0.01)
    # Before the first board a seat that leaves is freed, not held for its first team (issue 16);
    # North comes back (any team could take it now).
    await north.close()
    others = [random_seat(port, p, 1) for p in (Player.north, Player.south, Player.east)]
    await asyncio.wait_for(asyncio.gather(anyp_run, *(c.run() for c in others)), 60)
    await asyncio.wait_for(serving, 10)
    assert 'West ("EW") seated' in (tmp_path / "transcript-1.txt").read_text()


async def test_a_flood_of_junk_drops_the_seat_with_a_reason(
    tmp_path: Path, logs: list[dict[str, Any]]
) -> None:
    tm = TableManager(generate(1, 1), tmp_path, options=TableOptions(max_junk=5))
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    seat = ScriptedSeat(host, port, timeout=10)
    await seat.write_raw(b'Connecting "NS" as North using protocol version 18\r\n')
    assert await seat.read_line() == 'North ("NS") seated'
    await seat.write_raw(b"".join(b"junk %d\r\n" % i for i in range(10)))
    assert await seat.read_line() == "ERROR: North sent 5 bad lines; disconnected"
    assert await seat.read_line() is None
    await seat.close()
    assert [e["junk"] for e in logs if e["event"] == "bad line"] == [1, 2, 3, 4, 5]
    serving.cancel()
    await tm.close()
