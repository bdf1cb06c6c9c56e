"""Hostile input against our table manager over real TCP on 127.0.0.1 (issue 7).

Binary junk, invalid UTF-8, floods of junk lines, a seat speaking in another seat's name,
messages out of turn, a reader that never reads, connections that never say anything, too many
connections, and the allow-lists of :mod:`server.guard`. Honest seats are our own seat clients;
the hostile peer is a raw socket or a byte-level proxy in front of one client (a fake *peer*; the
table manager under test sees only TCP traffic). Every test ends with the finished boards checked
in the journal: nothing hostile may cost a finished board.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.protocol.codec import Direction, parse
from bridgebot.protocol.errors import ParseError
from bridgebot.protocol.messages import CallMsg
from bridgebot.server.guard import ConnectionGuard, Limits, parse_networks
from bridgebot.server.records import read_journal
from bridgebot.server.seat import TableConnectionError
from bridgebot.server.testing import RawProxy, connecting
from bridgebot.server.testing import random_seat as client
from bridgebot.server.tm import TableManager, TableOptions, _Conn
from endplay.types import Player

pytestmark = pytest.mark.virtual_time
Logs = list[dict[str, Any]]


def journal(out: Path) -> list[dict[str, Any]]:
    return [r.model_dump() for r in read_journal(out / "journal.jsonl").records]


def at_first_call(payload: bytes) -> Callable[[str], bytes]:
    """Inject ``payload`` once, ahead of the client's first call."""
    state = {"done": False}

    def before(line: str) -> bytes:
        try:
            msg = parse(line, Direction.TO_TM)
        except ParseError:
            return b""
        if isinstance(msg, CallMsg) and not state["done"]:
            state["done"] = True
            return payload
        return b""

    return before


#: Every kind of bad line a stranger may send in the middle of an auction, one per line; none of
#: them may change the board, and each must be logged once against the seat that sent it.
JUNK_LINES: list[bytes] = [
    b"\x00\x01\x02\xff\xfe\xfd binary junk",  # binary, not UTF-8
    b"\xc3\x28 bids 1C",  # invalid UTF-8 sequence in an otherwise plausible line
    b"\xed\xa0\x80 surrogate half",  # UTF-8 encoded surrogate (invalid)
    b"East passes",  # speaks in another seat's name
    b"South bids 7NT",  # another seat's name again (partner)
    b"North ready for deal",  # out of turn: the deal is over
    b"North ready for teams",  # out of turn: the handshake is over
    b'Connecting "EW" as East using protocol version 18',  # already connected
    b"North plays",  # truncated
    b"HELO table.example",  # another protocol
    b"X" * 100_000,  # over-long line (bounded buffer; the limit is 4096)
    *[b"junk %d" % i for i in range(6)],  # a small flood, under the junk cap
]


async def test_junk_of_every_kind_mid_auction_changes_nothing(tmp_path: Path, logs: Logs) -> None:
    tm = TableManager(generate(5, 2), tmp_path)  # board 1: North deals, so North calls first
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    proxy = RawProxy(port, at_first_call(b"".join(x + b"\r\n" for x in JUNK_LINES)))
    pport = await proxy.start()
    clients = [client(pport if p == Player.north else port, p) for p in Player]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 60)
    results = await asyncio.wait_for(serving, 10)
    await proxy.close()
    told = [e["text"] for e in logs if e["event"] == "table manager error"]  # North's client
    warnings = [e for e in logs if e["log_level"] == "warning" and "text" not in e]
    # "North ready for deal" repeats a ready line already taken: ignored, not a bad line.
    assert len(warnings) == len(JUNK_LINES) - 1
    assert {e["seat"] for e in warnings} == {"north"}
    # Every line the table refused (rather than could not read) was answered with an error line
    # naming the seat; North's client logged each and played on.
    other = "Error: North: message in another seat's name (only the prefix identifies the sender)"
    assert told == [other, other, "Error: North: ready for teams sent twice", other]
    assert {e["event"] for e in warnings} == {"bad line", "line too long"}
    assert not any(e["event"] == "dropping seat" for e in logs)
    entries = journal(tmp_path)
    assert [(e["board"], e["aborted"]) for e in entries] == [(1, None), (2, None)]
    # North's junk never reached the board: its auction is the honest seats' calls only, and
    # legal from the first call (a redouble or an out-of-turn call would have been refused).
    assert [r.board.number for r in results[0]] == [1, 2]
    assert all(len(e["auction"]) >= 4 for e in entries)


async def test_a_flood_drops_the_seat_which_comes_back_and_the_board_completes(
    tmp_path: Path, logs: Logs
) -> None:
    flood = b"".join(b"\xff\xfe flood %d\r\n" % i for i in range(5000))
    tm = TableManager(generate(5, 1), tmp_path, options=TableOptions(max_junk=20))
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    proxy = RawProxy(port, at_first_call(flood))
    pport = await proxy.start()
    runs = [asyncio.ensure_future(client(pport if p == Player.north else port, p).run())
            for p in Player]  # fmt: skip
    with pytest.raises(TableConnectionError, match="North sent 20 bad lines"):
        await asyncio.wait_for(runs[0], 30)  # the client reports the TM's error line
    back = client(port, Player.north, seed=9)  # same team name: the held seat is given back
    await asyncio.wait_for(asyncio.gather(back.run(), *runs[1:]), 60)
    await asyncio.wait_for(serving, 10)
    await proxy.close()
    dropped = [e for e in logs if e["event"] == "dropping seat"]
    assert len(dropped) == 1 and dropped[0]["reason"] == "North sent 20 bad lines; disconnected"
    # The flood stopped counting at the cap: 20 lines logged, not 5000.
    assert sum(e["event"] == "bad line" for e in logs) == 20
    assert sum(e["event"] == "board restart" for e in logs) == 1
    (entry,) = journal(tmp_path)
    assert entry["aborted"] is None


async def raw_seat(port: int, seat: Player, *, read_until: str | None = None) -> socket.socket:
    """A blocking-free raw socket that seats itself and then reads nothing after ``read_until``."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    loop = asyncio.get_running_loop()
    await loop.sock_connect(sock, ("127.0.0.1", port))
    await loop.sock_sendall(sock, connecting(seat))
    await loop.sock_sendall(sock, f"{seat.name.capitalize()} ready for teams\r\n".encode())
    if read_until is not None:
        seen = b""
        while read_until.encode() not in seen:
            chunk = await asyncio.wait_for(loop.sock_recv(sock, 4096), 10)
            assert chunk, f"table manager closed before {read_until!r}: {seen!r}"
            seen += chunk
        await loop.sock_sendall(sock, f"{seat.name.capitalize()} ready to start\r\n".encode())
    return sock


async def test_a_reader_that_never_reads_times_out_and_the_other_table_plays_on(
    tmp_path: Path, logs: Logs
) -> None:
    tm = TableManager(generate(3, 2), tmp_path, tables=2, options=TableOptions(timeout=60))
    _, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    table1 = [asyncio.ensure_future(client(port, p).run()) for p in Player if p != Player.west]
    slow = await raw_seat(port, Player.west, read_until="Teams")  # then never reads again
    while not tm.tables[0].machine.all_ready:
        await asyncio.sleep(0.01)
    table2 = [client(port, p, seed=20).run() for p in Player]
    await asyncio.wait_for(asyncio.gather(*table1, *table2), 600)  # two boards time out, 60 s each
    results = await asyncio.wait_for(serving, 20)
    slow.close()
    slow_table, other = results
    assert [r.aborted is not None for r in slow_table] == [True, True]
    assert all("waiting for West" in (r.aborted or "") for r in slow_table)
    assert [r.aborted for r in other] == [None, None]
    entries = journal(tmp_path)
    assert sorted((e["table"], e["board"], e["aborted"] is None) for e in entries) == [
        (1, 1, False), (1, 2, False), (2, 1, True), (2, 2, True),
    ]  # fmt: skip
    assert sum(e["event"] == "board aborted" for e in logs) == 2


async def test_a_peer_that_never_reads_is_dropped_at_the_write_buffer_limit() -> None:
    """The bound of :class:`server.guard.Limits` ``max_write_buffer`` on a real socket: the peer
    shrinks its receive window and never reads; writing stops holding memory at the limit."""
    limits = Limits(max_write_buffer=64 * 1024)
    conns: list[_Conn] = []
    accepted = asyncio.Event()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conns.append(_Conn(reader, writer, limits))
        accepted.set()
        await asyncio.sleep(30)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    slow = socket.socket()
    slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    slow.setblocking(False)
    await asyncio.get_running_loop().sock_connect(slow, ("127.0.0.1", port))
    await asyncio.wait_for(accepted.wait(), 10)
    conn = conns[0]
    line = "North plays AS " + "x" * 85  # 100 bytes with CR LF
    written = 0
    while not conn.overflowed and written < 64 * 1024 * 1024:
        conn.write(line)
        written += 102
        if written % (1024 * 1024) == 0:
            await asyncio.sleep(0)  # let the loop flush what the kernel takes
    assert conn.overflowed and conn.closed
    assert conn.writer.transport.get_write_buffer_size() <= limits.max_write_buffer + 102
    conn.write("more")  # a dropped connection takes nothing more
    await conn.close()
    slow.close()
    server.close()
    await server.wait_closed()


async def test_silent_connections_hit_the_connection_limit_then_time_out(tmp_path: Path) -> None:
    limits = Limits(max_connections=4)  # and the default handshake limit, 30 s
    tm = TableManager(generate(1, 1), tmp_path, limits=limits)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    loop = asyncio.get_running_loop()
    opened = loop.time()
    silent = [await asyncio.open_connection(host, port) for _ in range(4)]
    while tm.guard.open < 4:
        await asyncio.sleep(0.01)
    reader, writer = await asyncio.open_connection(host, port)
    assert (
        await asyncio.wait_for(reader.read(), 10)
        == b"Error: too many connections (4); try later\r\n"
    )
    writer.close()
    for r, w in silent:  # each said nothing: told why, then closed
        assert await asyncio.wait_for(r.read(), 60) == b"Error: no Connecting line within 30 s\r\n"
        w.close()
    assert loop.time() - opened >= 30  # not a moment early
    assert tm.guard.open == 0 and tm.guard.refused == 1
    # The table is untouched: four honest seats play the board.
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 60)
    (result,) = (await asyncio.wait_for(serving, 10))[0]
    assert result.aborted is None and len(journal(tmp_path)) == 1


async def test_a_seat_that_never_finishes_seating_is_dropped_and_its_seat_freed(
    tmp_path: Path,
) -> None:
    tm = TableManager(generate(1, 1), tmp_path)  # the default handshake limit, 30 s
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(connecting(Player.north))  # seated, then never "ready for teams"
    got = await asyncio.wait_for(reader.read(), 60)
    assert got == b'North ("NS") seated\r\nError: North did not finish seating within 30 s\r\n'
    writer.close()
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 60)
    (result,) = (await asyncio.wait_for(serving, 10))[0]
    assert result.aborted is None


async def test_allow_lists_refuse_strangers_by_team_and_by_address(tmp_path: Path) -> None:
    limits = Limits(allow_teams=frozenset({"NS", "EW"}))
    tm = TableManager(generate(1, 1), tmp_path / "teams", limits=limits)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(b'Connecting "Intruders" as North using protocol version 18\r\n')
    assert (
        await asyncio.wait_for(reader.read(), 10)
        == b"Error: team 'Intruders' is not allowed here\r\n"
    )
    writer.close()
    await asyncio.wait_for(asyncio.gather(*(client(port, p).run() for p in Player)), 60)
    await asyncio.wait_for(serving, 10)

    far = Limits(allow_addresses=parse_networks(["10.0.0.0/8", "::1"]))
    tm = TableManager(generate(1, 1), tmp_path / "addr", limits=far)
    host, port = await tm.start()
    reader, writer = await asyncio.open_connection(host, port)
    assert (
        await asyncio.wait_for(reader.read(), 10)
        == b"Error: address 127.0.0.1 is not allowed here\r\n"
    )
    writer.close()
    await tm.close()
    assert tm.guard.open == 0


def test_guard_rules_and_bad_settings_name_the_culprit() -> None:
    guard = ConnectionGuard(
        Limits(max_connections=1, allow_addresses=parse_networks(["127.0.0.0/8"]))
    )
    assert guard.admit("127.0.0.5") is None
    assert guard.admit("127.0.0.6") == "Error: too many connections (1); try later"
    guard.release()
    assert guard.admit("::ffff:127.0.0.7") is None  # IPv4-mapped, from a dual-stack socket
    guard.release()
    assert guard.admit("192.168.1.1") == "Error: address 192.168.1.1 is not allowed here"
    assert guard.admit("not-an-ip") == "Error: address not-an-ip is not allowed here"
    with pytest.raises(ValueError, match=r"not an address or network: '10\.0\.0\.300'"):
        parse_networks(["10.0.0.300"])
    assert ConnectionGuard(Limits(), seats=4 * 32).max_connections == 4 * 32 + 16  # scales
    with pytest.raises(ValueError, match="max_connections must be at least 1"):
        Limits(max_connections=0)
    with pytest.raises(ValueError, match="handshake_timeout must be positive"):
        Limits(handshake_timeout=0)


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--max-connections", "0"], "max_connections must be at least 1, got 0"),
        (["--handshake-timeout", "-1"], "handshake_timeout must be positive"),
        (["--allow-address", "10.0.0.300"], "not an address or network: '10.0.0.300'"),
        (["--max-write-buffer", "10"], "max_write_buffer must be at least 1024"),
    ],
)
def test_bad_limit_options_exit_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], reason: str
) -> None:
    from bridgebot.server import tm_cli

    from bridgebot.cli import build_parser

    args = build_parser("tm").parse_args(["tm", "--seed", "1", "--out", str(tmp_path), *argv])
    assert tm_cli.run(args) == 2  # (tests/conftest.py restores the logging it configures)
    assert reason in capsys.readouterr().err
    assert not (tmp_path / "journal.jsonl").exists()
