"""For every rule of ``conform seat``, a seat program broken in that rule alone fails it (or,
for the tolerated habits, is warned about it).

The clean peer is the project's seat client (random agent: the protocol, not the bidding, is
under test) behind a transparent man in the middle; each broken peer is the same client behind a
:class:`Tamper` that changes one kind of line it sends, or one it is sent."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from bridgebot.conform.model import BoardModel
from bridgebot.conform.report import SEAT_RULES, Recorder, finding_line
from bridgebot.conform.seat_kit import SeatKit
from bridgebot.conform.wire import RANKS, SUITS, read_hand
from bridgebot.engine.random_agent import RandomAgent
from bridgebot.protocol.dialect import Dialect
from bridgebot.server.seat import SeatClient
from endplay.types import Player

from tests.conform.peers import Hook, Link, Out, Tamper, conform_seat, same

TIMEOUT = 1.0


def first(pattern: str, change: Callable[[str], list[Out]]) -> Hook:
    """Change the first line matching ``pattern`` on the connection."""

    def hook(link: Link, line: str) -> list[Out]:
        if not link.state.get(pattern) and re.search(pattern, line):
            link.state[pattern] = True
            return change(line)
        return [line]

    return hook


def _not_held(link: Link, line: str) -> list[Out]:
    """The program's first card becomes one it does not hold."""
    if line.startswith("North's cards"):
        link.state["hand"] = read_hand(line.split(":", 1)[1])
    return [line]


def _play_unheld(link: Link, line: str) -> list[Out]:
    m = re.fullmatch(r"North plays (\w\w)", line)
    hand = link.state.get("hand")
    if m and isinstance(hand, frozenset) and not link.state.get("done"):
        link.state["done"] = True
        card = next(r + s for s in SUITS for r in RANKS if r + s not in hand)
        return [f"North plays {card}"]
    return [line]


def _swallow_restart(link: Link, line: str) -> list[Out]:
    """The broken program ignores a Start of board in the middle of a board."""
    if line.startswith("Board number"):
        link.state["in_board"] = True
    elif line.startswith("Timing"):
        link.state["in_board"] = False
    elif line == "Start of board" and link.state.get("in_board"):
        return []
    return [line]


def _talk_after_the_end(link: Link, line: str) -> list[Out]:
    if line == "End of session":
        link.up("North ready for deal")
    return [line]


def _received(link: Link, line: str) -> list[Out]:
    if line.startswith("Dummy's cards"):
        link.up("North received dummy")
    return [line]


#: rule -> (hook on the program's lines, hook on the lines it is sent, boards)
BROKEN: dict[str, tuple[Hook, Hook, int]] = {
    "seat.connecting": (first("version 18", lambda s: [s.replace("18", "17")]), same, 1),
    "seat.handshake": (first("ready for teams", lambda s: [s, s]), same, 1),
    "seat.ready-for-deal": (first("ready for deal", lambda s: []), same, 1),
    "seat.ready-for-cards": (first("ready for cards", lambda s: [s, s]), same, 1),
    "seat.ready-for-bid": (
        first(r"ready for East's bid", lambda s: [s.replace("East", "West")]),
        same,
        2,
    ),
    "seat.call": (first(r"North (passes|doubles|redoubles|bids)", lambda s: [s, s]), same, 1),
    "seat.call-legal": (first(r"North (passes|bids)", lambda s: ["North redoubles"]), same, 1),
    "seat.ready-for-card": (
        first(r"to trick \d+$", lambda s: [re.sub(r"\d+$", lambda m: str(int(m.group()) + 1), s)]),
        same,
        4,
    ),
    "seat.card": (first(r"plays", lambda s: [s, s]), same, 4),
    "seat.card-legal": (_play_unheld, _not_held, 4),
    "seat.ready-for-dummy": (first("ready for dummy$", lambda s: []), same, 4),
    "seat.restart": (same, _swallow_restart, 6),
    "seat.end-of-session": (same, _talk_after_the_end, 1),
    "seat.trailing-stop": (first("ready for deal", lambda s: [s + "."]), same, 1),
    "seat.unexpected": (first("ready for teams", lambda s: [s, "hello there"]), same, 1),
}
#: Habits every table tolerates: warned about, nothing failed.
WARNED: dict[str, tuple[Hook, Hook, int]] = {
    "seat.case": (first("ready for cards", lambda s: [s.replace("North", "NORTH")]), same, 1),
    "seat.variant": (
        first("ready for East's bid", lambda s: [s.replace("for ", "for  ")]),
        same,
        1,
    ),
    "seat.repeat": (first("ready for East's bid", lambda s: [s, s]), same, 1),
    "seat.received-dummy": (same, _received, 4),
}


async def play(
    tmp: Path,
    up: Hook = same,
    down: Hook = same,
    *,
    boards: int = 1,
    dialect: Dialect | None = None,
    timeout: float = TIMEOUT,
) -> tuple[Recorder, SeatKit]:
    """Our seat client at North, behind a Tamper, under ``conform seat``."""
    held: dict[str, Any] = {}

    async def start(port: int) -> None:
        proxy = Tamper(port, up, down)
        held["proxy"] = await proxy.__aenter__()
        client = SeatClient(
            "127.0.0.1",
            proxy.port,
            Player.north,
            "Bots",
            RandomAgent(seed=1),
            dialect=dialect or Dialect(),
            connect_retries=0,
        )
        held["client"] = asyncio.ensure_future(client.run())

    try:
        return await conform_seat(
            tmp, start, seats=("North",), boards=boards, answer_timeout=timeout
        )
    finally:
        if "client" in held:
            held["client"].cancel()
            with contextlib.suppress(BaseException):
                await held["client"]
        if "proxy" in held:
            await held["proxy"].__aexit__(None, None, None)


async def test_the_clean_seat_client_behind_the_proxy_passes(tmp_path: Path) -> None:
    record, kit = await play(tmp_path, boards=4)
    assert record.failed_rules() == []
    assert kit.boards_done == 4


@pytest.mark.parametrize("rule", sorted(BROKEN))
async def test_a_seat_broken_in_one_rule_fails_that_rule(tmp_path: Path, rule: str) -> None:
    up, down, boards = BROKEN[rule]
    started = time.monotonic()
    record, _ = await play(tmp_path, up, down, boards=boards)
    assert rule in record.failed_rules()
    assert time.monotonic() - started < boards * 60 + 5 * TIMEOUT


@pytest.mark.parametrize("rule", sorted(WARNED))
async def test_a_tolerated_habit_is_a_warning_not_a_failure(tmp_path: Path, rule: str) -> None:
    up, down, boards = WARNED[rule]
    record, _ = await play(tmp_path, up, down, boards=boards)
    assert record.failed_rules() == []
    assert record.status_of(rule) == "warn"


async def test_bridge_player_s_early_dummy_request_is_a_warning(tmp_path: Path) -> None:
    record, _ = await play(tmp_path, boards=4, dialect=Dialect(early_dummy=True))
    assert record.failed_rules() == []
    assert record.status_of("seat.early-dummy") == "warn"


async def test_a_lead_before_the_prompt_fails_lead_prompt(tmp_path: Path) -> None:
    """North (the opening leader of board 3) is told 'North to lead' by its proxy as soon as
    the auction ends, before the kit's own prompt, which waits for South's ready line."""
    state: dict[str, Any] = {}

    def north_up(link: Link, line: str) -> list[Out]:
        m = state.get("model")
        if isinstance(m, BoardModel) and re.match(r"North (passes|doubles|redoubles|bids)", line):
            m.add_call(_call(line))
        return [line]

    def north_down(link: Link, line: str) -> list[Out]:
        if line.startswith("Board number"):
            dealer = line.split("Dealer ")[1].split(".")[0]
            state["model"] = BoardModel(0, dealer, "Neither")
            state["number"] = state.get("number", 0) + 1
            return [line]
        m = state.get("model")
        if isinstance(m, BoardModel) and re.fullmatch(
            r"(East|South|West) (passes|doubles|redoubles|bids \S+).*", line
        ):
            m.add_call(_call(line.split(" Alert")[0]))
            if m.auction_done() and not m.passed_out() and state["number"] == 3:
                return [line, "North to lead"]  # the proxy's own prompt, too early
        if line == "North to lead" and state.get("number") == 3 and not state.get("swallowed"):
            state["swallowed"] = True
            return []  # the kit's real prompt
        return [line]

    def south_up(link: Link, line: str) -> list[Out]:
        if "ready for North's card to trick 1" in line and state.get("number") == 3:
            return [1.0, line]
        return [line]

    held: list[Any] = []

    async def start(port: int) -> None:
        for seat, up, down in (
            (Player.north, north_up, north_down),
            (Player.south, south_up, same),
        ):
            proxy = await Tamper(port, up, down).__aenter__()
            held.append(proxy)
            client = SeatClient(
                "127.0.0.1", proxy.port, seat, "Bots", RandomAgent(seed=1), connect_retries=0
            )
            held.append(asyncio.ensure_future(client.run()))

    try:
        record, kit = await conform_seat(
            tmp_path, start, seats=("North", "South"), boards=3, answer_timeout=2.0
        )
    finally:
        for h in held:
            if isinstance(h, asyncio.Future):
                h.cancel()
                with contextlib.suppress(BaseException):
                    await h
            else:
                await h.__aexit__(None, None, None)
    assert kit.roles()[2] == "opening leader"
    assert "seat.lead-prompt" in record.failed_rules()


def _call(line: str) -> str:
    word = line.split()[1].lower()
    return {"passes": "P", "doubles": "X", "redoubles": "XX"}.get(word) or line.split()[2]


async def test_a_program_that_never_connects_fails_connect(tmp_path: Path) -> None:
    started = time.monotonic()
    record, _ = await conform_seat(
        tmp_path, lambda port: None, seats=("North",), answer_timeout=TIMEOUT
    )
    assert set(record.failed_rules()) == {"seat.connect", "seat.answer"}
    assert time.monotonic() - started < 5


async def test_a_program_that_goes_silent_fails_answer(tmp_path: Path) -> None:
    held: list[asyncio.StreamWriter] = []

    async def start(port: int) -> None:
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b'Connecting "Mute" as North using protocol version 18\r\n')
        held.append(writer)

    started = time.monotonic()
    try:
        record, _ = await conform_seat(tmp_path, start, seats=("North",), answer_timeout=TIMEOUT)
    finally:
        for w in held:
            w.close()
    assert {"seat.answer", "seat.handshake"} <= set(record.failed_rules())
    assert time.monotonic() - started < 5


async def test_a_finding_names_its_board_and_transcript_line(tmp_path: Path) -> None:
    """Issue 44: the board in play and the line of the transcript file, in the report and in
    the output line."""
    up, down, boards = BROKEN["seat.card"]
    record, _ = await play(tmp_path, up, down, boards=boards)
    finding = next(r for r in record.results() if r.rule == "seat.card").findings[0]
    assert finding.board is not None and finding.transcript_line is not None
    lines = (tmp_path / "conform-seat.txt").read_text().splitlines()
    assert lines[finding.transcript_line - 1] == f"North -> TM : {finding.line}"
    heading = next(x for x in reversed(lines[: finding.transcript_line]) if "-- board" in x)
    assert heading.strip().startswith(f"-- board {finding.board}: scenario")
    where = f"board {finding.board}, transcript line {finding.transcript_line}"
    assert where in finding_line(finding)


def test_every_rule_of_conform_seat_has_a_broken_seat_here() -> None:
    """seat.roles and the habits of issue 44 are in tests/conform/test_seat_habits.py."""
    covered = (
        set(BROKEN)
        | set(WARNED)
        | {"seat.early-dummy", "seat.lead-prompt", "seat.connect", "seat.answer", "seat.roles"}
    )
    assert covered == set(SEAT_RULES)


async def test_partners_with_two_team_names_fail_connecting(tmp_path: Path) -> None:
    clients: list[asyncio.Future[object]] = []

    def start(port: int) -> None:
        for seat, team in ((Player.north, "Bots"), (Player.south, "Other")):
            client = SeatClient(
                "127.0.0.1", port, seat, team, RandomAgent(seed=2), connect_retries=0
            )
            clients.append(asyncio.ensure_future(client.run()))

    try:
        record, _ = await conform_seat(
            tmp_path, start, seats=("North", "South"), boards=1, answer_timeout=TIMEOUT
        )
    finally:
        for c in clients:
            c.cancel()
            with contextlib.suppress(BaseException):
                await c
    assert record.failed_rules() == ["seat.connecting"]
    finding = next(r for r in record.results() if r.rule == "seat.connecting").findings[0]
    assert "partners must give one team name" in finding.detail
