"""For every rule of ``conform tm``, a table manager broken in that rule alone fails it.

The clean peer is the project's table manager behind a transparent man in the middle; each broken
peer is the same table manager behind a :class:`Tamper` that changes one kind of line it sends.
The kit must fail the rule, name it, and never hang (short ``--answer-timeout``)."""

from __future__ import annotations

import asyncio
import re
import socket
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from bridgebot.server.testing import random_seat
from endplay.types import Player

from tests.conform.peers import Hook, Link, Out, Tamper, conform_tm, our_tm, same

TIMEOUT = 1.0


def down(change: Callable[[Link, str], list[Out] | None]) -> Hook:
    """A hook that changes some table lines (``None`` from ``change``: pass the line on)."""

    def hook(link: Link, line: str) -> list[Out]:
        out = change(link, line)
        return [line] if out is None else out

    return hook


def once(link: Link, key: str) -> bool:
    """True the first time ``key`` is asked on this connection."""
    if link.state.get(key):
        return False
    link.state[key] = True
    return True


def _relay_call(line: str) -> bool:
    return (
        re.fullmatch(
            r"(North|East|South|West) (passes|doubles|redoubles|bids \S+)( Alert\..*)?", line
        )
        is not None
    )


def _new_card(m: re.Match[str]) -> str:
    rank, suit = m.group(2), m.group(3)
    return f"{m.group(1)} plays {'3' if rank == '2' else '2'}{suit}"


STALLED: dict[str, bool] = {}

BROKEN: dict[str, Hook] = {
    "tm.seated": down(
        lambda k, s: [re.sub(r'\("[^"]*"\)', '("Other")', s)] if s.endswith("seated") else None
    ),
    "tm.teams": down(
        lambda k, s: [s.replace('" E/W', '". E/W')] if s.startswith("Teams") else None
    ),
    "tm.start-of-board": down(
        lambda k, s: ["Start of board", s] if " plays " in s and once(k, "sob") else None
    ),
    "tm.board": down(lambda k, s: [s.rstrip(".")] if s.startswith("Board number") else None),
    "tm.cards": down(
        lambda k, s: (
            [s.replace("'s cards : ", "'s cards: ")]
            if "'s cards : " in s and not s.startswith("Dummy")
            else None
        )
    ),
    "tm.deal": down(
        lambda k, s: (
            ["South's cards : S A K Q J T 9 8 7 6 5 4 3 2. H -. D -. C -."]
            if s.startswith("South's cards")
            else None
        )
    ),
    "tm.call-relay": down(
        lambda k, s: (
            [s.replace(" passes", " bids 7NT")]
            if s.endswith(" passes") and once(k, "call")
            else None
        )
    ),
    "tm.alert": down(
        lambda k, s: (
            [s + " Alert. 15 to 17 total points."]
            if _relay_call(s) and " bids " in s and "Alert" not in s
            else None
        )
    ),
    "tm.relay-case": down(
        lambda k, s: (
            [s.split(" ", 1)[0].lower() + " " + s.split(" ", 1)[1]] if _relay_call(s) else None
        )
    ),
    "tm.to-lead": down(lambda k, s: [] if s.endswith(" to lead") else None),
    "tm.dummy-cards": down(
        lambda k, s: (
            [s.replace("Dummy's cards : ", "Dummy's cards: ")]
            if s.startswith("Dummy's cards")
            else None
        )
    ),
    "tm.card-relay": down(
        lambda k, s: (
            [re.sub(r"^(\w+) plays (\w)(\w)$", _new_card, s)]
            if " plays " in s and once(k, "card")
            else None
        )
    ),
    "tm.timing": down(lambda k, s: [] if s.startswith("Timing") else None),
    "tm.end-of-session": down(lambda k, s: [] if s == "End of session" else None),
    "tm.illegal-bid": down(lambda k, s: [] if s == "Illegal bid" else None),
    "tm.illegal-card": down(lambda k, s: [] if s == "Illegal card" else None),
    "tm.out-of-turn": down(lambda k, s: [] if s.startswith("Error") else None),
    "tm.unexpected": down(
        lambda k, s: [s, "Hello from the table"] if s.startswith("Teams") else None
    ),
    "tm.junk-connection": down(lambda k, s: [] if STALLED.get("on") else None),
}


def _stall_on_junk(link: Link, line: str) -> list[Out]:
    """The broken table stops serving everyone once a connection opens with junk."""
    if not link.seat and not line.lower().startswith("connecting"):
        STALLED["on"] = True
    return [line]


async def test_the_clean_table_manager_behind_the_proxy_passes(tmp_path: Path) -> None:
    async with our_tm(tmp_path, 1) as port, Tamper(port) as proxy:
        record, kit = await conform_tm(proxy.port, tmp_path, boards=1, answer_timeout=TIMEOUT)
    assert record.failed_rules() == []
    assert kit.run.boards_done == 1


@pytest.mark.parametrize("rule", sorted(BROKEN))
async def test_a_table_manager_broken_in_one_rule_fails_that_rule(
    tmp_path: Path, rule: str
) -> None:
    STALLED.clear()
    up = _stall_on_junk if rule == "tm.junk-connection" else same
    started = time.monotonic()
    async with our_tm(tmp_path, 1) as port, Tamper(port, up=up, down=BROKEN[rule]) as proxy:
        record, _ = await conform_tm(proxy.port, tmp_path, boards=1, answer_timeout=TIMEOUT)
    assert rule in record.failed_rules()
    finding = next(r for r in record.results() if r.rule == rule).findings[0]
    assert finding.status == "fail" and finding.section
    assert time.monotonic() - started < 60 + 5 * TIMEOUT


async def test_an_illegal_relay_from_the_tables_own_bots_fails_relay_legal(tmp_path: Path) -> None:
    """--seats North,South: East and West are bots the table seats; a relay of one of their
    calls that is not legal is the table's fault."""

    def illegal(link: Link, line: str) -> list[Out]:
        if re.fullmatch(r"(East|West) passes", line) and once(link, "x"):
            return [line.replace("passes", "redoubles")]
        return [line]

    async with our_tm(tmp_path, 1) as port, Tamper(port, down=illegal) as proxy:
        bots = [
            asyncio.ensure_future(random_seat(port, p, seed=5).run())
            for p in (Player.east, Player.west)
        ]
        record, _ = await conform_tm(
            proxy.port, tmp_path, boards=1, seats=("North", "South"), answer_timeout=TIMEOUT
        )
        for b in bots:
            b.cancel()
        await asyncio.gather(*bots, return_exceptions=True)
    assert "tm.relay-legal" in record.failed_rules()


async def test_an_unreachable_table_manager_fails_connect_at_once(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    started = time.monotonic()
    record, kit = await conform_tm(port, tmp_path, answer_timeout=TIMEOUT)
    assert record.failed_rules() == ["tm.connect"]
    assert kit.run.boards_done == 0
    assert time.monotonic() - started < 5


async def test_a_silent_table_manager_fails_answer_within_the_timeout(tmp_path: Path) -> None:
    writers: list[asyncio.StreamWriter] = []

    async def mute(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        await reader.read()  # reads everything, says nothing

    server = await asyncio.start_server(mute, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    started = time.monotonic()
    try:
        record, _ = await conform_tm(port, tmp_path, answer_timeout=TIMEOUT)
    finally:
        server.close()
        for w in writers:
            w.close()
        await server.wait_closed()
    assert {"tm.answer", "tm.seated"} <= set(record.failed_rules())
    answer = next(r for r in record.results() if r.rule == "tm.answer")
    assert "no answer within 1 s" in answer.findings[0].detail
    assert time.monotonic() - started < 5


def test_every_rule_of_conform_tm_has_a_broken_table_here() -> None:
    from bridgebot.conform.report import TM_RULES

    assert set(BROKEN) | {"tm.relay-legal", "tm.connect", "tm.answer"} == set(TM_RULES)


async def test_a_table_that_relays_before_the_ready_line_fails_call_relay(tmp_path: Path) -> None:
    """The broken table relays each call the moment it is made, whether the other seats have
    said they are ready or not; the kit's late seat (one ready line held back on the last
    board) catches it."""
    swallow: dict[str, list[str]] = {}
    proxy: Tamper

    def push(link: Link, line: str) -> list[Out]:
        if _relay_call(line) and "Alert" not in line:
            for other in proxy.links:
                if other is not link and other.seat:
                    other.down(line)
                    swallow.setdefault(other.seat, []).append(line)
        return [line]

    def drop_real(link: Link, line: str) -> list[Out]:
        waiting = swallow.get(link.seat, [])
        if line in waiting:
            waiting.remove(line)
            return []
        return [line]

    async with our_tm(tmp_path, 1) as port, Tamper(port, up=push, down=drop_real) as proxy:
        record, _ = await conform_tm(proxy.port, tmp_path, boards=1, answer_timeout=TIMEOUT)
    relay = next(r for r in record.results() if r.rule == "tm.call-relay")
    assert relay.status == "fail"
    assert any("before it said 'ready for" in f.detail for f in relay.findings)


@pytest.mark.parametrize(("dealt", "played"), [(3, 2), (1, 2)], ids=["more", "fewer"])
async def test_a_table_that_deals_another_number_of_boards_is_told_at_once(
    tmp_path: Path, dealt: int, played: int
) -> None:
    """Issue 62: a table manager that deals more boards than ``--boards`` was waited for
    (``--answer-timeout``, 30 s by default) and failed as silent, without saying the counts
    differ. Both ways, the kit says so at the first line that shows it."""
    started = time.monotonic()
    async with our_tm(tmp_path, dealt) as port:
        record, kit = await conform_tm(port, tmp_path, boards=played, answer_timeout=30.0)
    assert time.monotonic() - started < 20  # the 30 s wait is gone
    assert record.failed_rules() == ["tm.end-of-session"]
    [finding] = next(r for r in record.results() if r.rule == "tm.end-of-session").findings
    assert f"(--boards {played})" in finding.detail, finding.detail
    word = "more" if dealt > played else "fewer"
    assert f"deals {word}" in finding.detail and "number of boards" in finding.detail
    assert kit.run.boards_done == min(dealt, played)
