"""The table manager over real TCP against peers that jam, repeat, dawdle or pick bad names
(issues 11 and 16). Honest seats are our own seat clients; the misbehaving peer is a raw socket or
a byte-level proxy in front of one client. Each test once failed on the table manager of its day.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import endplay.parsers.pbn as pbn
import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.protocol.codec import Direction, parse
from bridgebot.protocol.errors import ParseError
from bridgebot.protocol.messages import CallMsg, ReadyForBid, ReadyForCards
from bridgebot.server.records import read_journal
from bridgebot.server.testing import RawProxy, ScriptedSeat, connecting
from bridgebot.server.testing import random_seat as client
from bridgebot.server.tm import TableManager, TableOptions
from endplay.types import Player

pytestmark = pytest.mark.virtual_time
Logs = list[dict[str, Any]]


def _kind(line: str) -> type | None:
    try:
        return type(parse(line, Direction.TO_TM))
    except ParseError:
        return None


def once_before(kind: type, payload: bytes) -> dict[str, object]:
    """A proxy hook that sends ``payload`` ahead of the client's first line of ``kind``."""
    state = {"done": False}

    def hook(line: str) -> bytes:
        if _kind(line) is kind and not state["done"]:
            state["done"] = True
            return payload
        return b""

    return {"before": hook}


async def play(tmp_path: Path, boards: int, proxied: Player | None, proxy_hooks: dict[str, object],
               **tm_kw: object) -> list[dict[str, Any]]:  # fmt: skip
    """Four seat clients (one behind a proxy) play ``boards`` boards; returns the journal."""
    tm = TableManager(generate(5, boards), tmp_path, **tm_kw)  # type: ignore[arg-type]
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    proxy = RawProxy(port, **proxy_hooks)  # type: ignore[arg-type]
    pport = await proxy.start()
    clients = [client(pport if p == proxied else port, p) for p in Player]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 600)
    await asyncio.wait_for(serving, 10)
    await proxy.close()
    return [r.model_dump() for r in read_journal(tmp_path / "journal.jsonl").records]


async def test_a_card_during_the_auction_is_refused_with_an_error_and_the_table_plays_on(
    tmp_path: Path, logs: Logs
) -> None:
    """Issue 11's jam: South's card during the auction used to wait for the play, and South's
    later ready lines behind it, so East's call never reached South and all four waited."""
    hooks = once_before(ReadyForBid, b"South plays 9S\r\n")
    entries = await play(tmp_path, 1, Player.south, hooks, options=TableOptions(timeout=20))
    assert [(e["board"], e["aborted"]) for e in entries] == [(1, None)]
    told = [e["text"] for e in logs if e["event"] == "table manager error"]
    assert told == ["Error: South: a card from South in the auction phase"]
    transcript = (tmp_path / "transcript-1.txt").read_text()
    assert "TM -> South : Error: South: a card from South in the auction phase\n" in transcript


async def test_extra_calls_in_one_write_are_each_refused_and_the_auction_stays_in_step(
    tmp_path: Path, logs: Logs
) -> None:
    """Issue 16: a burst of calls in one write. The first is the seat's call; every other one is
    refused with an error line at once (none dropped without a word), and the board is played."""
    seen = {"done": False}

    def after(line: str) -> bytes:
        if _kind(line) is CallMsg and not seen["done"]:
            seen["done"] = True
            who = line.split()[0]
            return f"{who} bids 7NT\r\n{who} passes\r\n".encode()
        return b""

    hooks = {"before": lambda line: b"", "after": after}
    entries = await play(tmp_path, 1, Player.north, hooks, options=TableOptions(timeout=20))
    assert [(e["board"], e["aborted"]) for e in entries] == [(1, None)]
    told = [e["text"] for e in logs if e["event"] == "table manager error"]
    assert len(told) == 2 and all(t.startswith("Error: North: ") for t in told), told
    assert "7NT" not in " ".join(str(c) for c in entries[0]["auction"])  # type: ignore[union-attr]


async def test_ben_repeating_ready_for_deal_on_every_board_is_never_dropped(
    tmp_path: Path, logs: Logs
) -> None:
    """Issue 11: after a restart Ben sends ``ready for deal`` twice on every board; each repeat,
    arriving after the board line, used to count as a bad line for the connection's lifetime, so
    Ben was dropped after ``--max-junk`` boards. 40 boards, a junk cap of 3: never dropped."""
    hooks = {"before": lambda line: b"West ready for deal\r\n"
             if _kind(line) is ReadyForCards else b""}  # fmt: skip
    entries = await play(
        tmp_path, 40, Player.west, hooks, options=TableOptions(max_junk=3, timeout=20)
    )
    assert [e["aborted"] for e in entries] == [None] * 40
    assert not [e for e in logs if e["event"] in ("dropping seat", "bad line")]


async def test_the_junk_budget_is_per_board(tmp_path: Path, logs: Logs) -> None:
    """Two unreadable lines on each of six boards, with a cap of three per board: never dropped
    (a lifetime count dropped the seat on the second board)."""
    hooks = {"before": lambda line: b"hello\r\nhello again\r\n"
             if _kind(line) is ReadyForCards else b""}  # fmt: skip
    entries = await play(
        tmp_path, 6, Player.east, hooks, options=TableOptions(max_junk=3, timeout=20)
    )
    assert [e["aborted"] for e in entries] == [None] * 6
    assert sum(e["event"] == "bad line" for e in logs) == 12
    assert not [e for e in logs if e["event"] == "dropping seat"]


async def test_three_seats_survive_a_fourth_that_connects_after_the_handshake_limit(
    tmp_path: Path, logs: Logs
) -> None:
    """Issue 11: the handshake limit ran from connection to ``ready to start``, which cannot come
    before the fourth seat connects; now it times only what a seat owes."""
    tm = TableManager(generate(1, 1), tmp_path)  # the default handshake limit, 30 s
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    early = [asyncio.ensure_future(client(port, p).run()) for p in list(Player)[:3]]
    await asyncio.sleep(75)  # more than twice the limit
    late = client(port, Player.west).run()
    await asyncio.wait_for(asyncio.gather(late, *early), 600)
    (results,) = await asyncio.wait_for(serving, 10)
    assert [r.aborted for r in results] == [None]
    assert not [e for e in logs if e["event"] == "dropping seat"]


async def test_a_silent_seat_is_still_dropped_by_the_handshake_limit(tmp_path: Path) -> None:
    """The same limit still drops a seat that owes ``ready to start`` and never sends it."""
    tm = TableManager(generate(1, 1), tmp_path)  # the default handshake limit, 30 s
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    silent = ScriptedSeat(host, port, timeout=60)
    await silent.write_raw(connecting(Player.north) + b"North ready for teams\r\n")
    others = [asyncio.ensure_future(client(port, p).run()) for p in list(Player)[1:]]
    lines = []
    while (line := await silent.read_line()) is not None:
        lines.append(line)
    assert lines[-1] == "Error: North did not finish seating within 30 s"
    assert lines[1].startswith("Teams : ")
    await silent.close()
    await asyncio.wait_for(asyncio.gather(client(port, Player.north).run(), *others), 60)
    await asyncio.wait_for(serving, 10)
    assert (
        "TM -> North : Error: North did not finish seating"
        in (tmp_path / "transcript-1.txt").read_text()
    )


async def refused(host: str, port: int, data: bytes) -> list[str]:
    seat = ScriptedSeat(host, port, timeout=60)
    await seat.write_raw(data)
    lines = []
    while (line := await seat.read_line()) is not None:
        lines.append(line)
    await seat.close()
    return lines


@pytest.mark.parametrize(
    ("team", "reason"),
    [
        ("Bots ", "team name must have single inner spaces and no outer ones"),
        (" Bots", "team name must have single inner spaces and no outer ones"),
        ("B" * 3000, "team name is longer than 64 characters"),
        ("Bötß", "team name must be printable ASCII"),
    ],
)
async def test_a_team_name_the_table_cannot_write_is_refused_and_frees_the_seat(
    tmp_path: Path, team: str, reason: str, logs: Logs
) -> None:
    """Issue 16: a name with an outer space raised inside the handler (seat taken for ever); a
    name too long made a Teams line our own seat refuses; non-ASCII names were written as '?'
    (two teams could merge). Each is refused at ``Connecting`` and the table still starts."""
    tm = TableManager(generate(1, 1), tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    line = f'Connecting "{team}" as North using protocol version 18\r\n'.encode()
    got = await refused(host, port, line)
    assert len(got) == 1 and got[0].startswith(f"Error: {reason}"), got
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 60)
    await asyncio.wait_for(serving, 10)
    assert not [e for e in logs if e["log_level"] in ("error", "critical")]
    assert f"Error: {reason}" in (tmp_path / "transcript-1.txt").read_text()
    said = [e["text"] for e in logs if e["event"] == "line" and "text" in e]
    assert any(t.startswith(f"Error: {reason}") for t in said)  # in the debug line log too


async def test_a_seat_that_comes_and_goes_before_the_first_board_does_not_hold_the_table(
    tmp_path: Path,
) -> None:
    """Issue 16: before the first board a seat was held for ever for its first team name."""
    tm = TableManager(generate(1, 1), tmp_path)  # the default handshake limit, 30 s
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    squatter = b'Connecting "Squat" as North using protocol version 18\r\n'
    assert await refused(host, port, squatter) == [
        'North ("Squat") seated',
        "Error: North did not finish seating within 30 s",
    ]
    leaver = ScriptedSeat(host, port, timeout=5)
    await leaver.write_raw(squatter)
    assert await leaver.read_line() == 'North ("Squat") seated'
    await leaver.close()
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 60)
    (results,) = await asyncio.wait_for(serving, 10)
    assert [r.aborted for r in results] == [None]


async def test_an_over_long_first_line_is_refused_at_once(tmp_path: Path) -> None:
    """Issue 16: the refusal used to wait up to 5 s for the rest of the line."""
    tm = TableManager(generate(1, 1), tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    seat = ScriptedSeat(host, port, timeout=5)
    loop = asyncio.get_running_loop()
    start = loop.time()
    await seat.write_raw(b"C" * 10_000)  # no terminator, and the peer then waits
    assert await seat.read_line() == "Error: line too long"
    assert loop.time() - start < 1.0  # virtual time: waiting out any timer would show here
    await seat.close()
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 60)
    await asyncio.wait_for(serving, 10)
    assert "Error: line too long" in (tmp_path / "transcript-1.txt").read_text()


async def test_the_records_name_the_teams_that_played_each_board(tmp_path: Path) -> None:
    """Issue 16: boards.pbn and journal.jsonl did not say which teams played a board."""
    entries = await play(tmp_path, 2, None, {"before": lambda line: b""})
    assert [(e["ns_team"], e["ew_team"]) for e in entries] == [("NS", "EW")] * 2
    records = pbn.loads((tmp_path / "boards.pbn").read_text())
    assert [
        (r.info["North"], r.info["South"], r.info["East"], r.info["West"]) for r in records
    ] == [("NS", "NS", "EW", "EW")] * len(records)


async def test_a_refusal_after_the_session_closed_is_logged_not_raised(
    tmp_path: Path, logs: Logs
) -> None:
    """Found by benchmarks/soak_tm.py: a stranger refused while the table manager was closing
    wrote its error line to a transcript that was already closed, and the handler raised."""
    tm = TableManager(generate(1, 1), tmp_path)
    await tm.start()
    await tm.close()
    refusal = "Expected 'Connecting .... as ... using protocol'"
    logs.clear()
    tm.tables[0].tell("127.0.0.1:9", None, refusal)  # raised ValueError (closed file) before
    assert [(e["event"], e["seat"], e["dir"], e["text"]) for e in logs] == [
        ("line", "127.0.0.1:9", "out", refusal)
    ]
    assert refusal not in (tmp_path / "transcript-1.txt").read_text()  # closed: nothing appended


@pytest.mark.expect_error_log("connection handler failed")
async def test_a_bug_in_one_handler_is_logged_with_the_peer_and_the_table_plays_on(
    tmp_path: Path, logs: Logs
) -> None:
    """Our own bug while handling one connection (here: the team check raising) is logged at
    error with the peer, that connection is closed, and the table still seats four and plays."""
    tm = TableManager(generate(1, 1), tmp_path)
    check_team = tm.guard.check_team

    def buggy(team: str) -> str | None:
        if team == "Boom":
            raise RuntimeError("a bug of ours")
        return check_team(team)

    tm.guard.check_team = buggy  # type: ignore[method-assign]
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    assert (
        await refused(host, port, b'Connecting "Boom" as North using protocol version 18\r\n') == []
    )
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 600)
    (results,) = await asyncio.wait_for(serving, 10)
    assert [r.aborted for r in results] == [None]
    (failed,) = [e for e in logs if e["event"] == "connection handler failed"]
    assert failed["log_level"] == "error" and failed["peer"].startswith("127.0.0.1:")
    assert tm.guard.open == 0
