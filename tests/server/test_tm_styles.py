"""Issue 25: every peer style in every role, against the real table manager over TCP.

Scripted seats in the style of each known client (``server.testing.styles``: canonical, WBridge5,
Ben, bridge-player, GIB as ComputerBridge emulates it, the ComputerBridge client) sit at our table
manager on 127.0.0.1. Each session deals boards on which dummy holds the top cards, so dummy wins
tricks and leads (``Dummy to lead`` to declarer), and rotates the declarer round the table so each
style is declarer, dummy, opening leader and the leader's partner once. Every board must be played
to its end. A table manager that stalls fails within seconds: the seats' waits are bounded and
the tests run in virtual time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from bridgebot.laws.boards import dealer_of, vul_of
from bridgebot.protocol.codec import Direction, parse
from bridgebot.protocol.messages import ReadyForCard
from bridgebot.protocol.table import TableBoard, TableResult
from bridgebot.server.testing import TEAMS
from bridgebot.server.testing.styles import STYLES, StyledPeer, StyledSeat, dummy_deal
from bridgebot.server.tm import TableManager
from endplay.types import Bid, Card, ContractBid, Player

pytestmark = pytest.mark.virtual_time
Logs = list[dict[str, Any]]


def boards_with_declarers(declarers: list[Player]) -> tuple[list[TableBoard], dict[int, Player]]:
    """One board per declarer (board ``n`` has the duplicate cycle's dealer), dummy strong."""
    boards = [
        TableBoard(number=n, dealer=dealer_of(n), vul=vul_of(n), deal=dummy_deal(d.partner))
        for n, d in enumerate(declarers, start=1)
    ]
    return boards, dict(enumerate(declarers, start=1))


def one_notrump_by(declarers: dict[int, Player]) -> Callable[[Player, int, Sequence[Bid]], Bid]:
    """The calls: pass, except that the board's declarer opens 1NT (then all pass)."""

    def calls(seat: Player, board: int, auction: Sequence[Bid]) -> Bid:
        opened = any(isinstance(c, ContractBid) for c in auction)
        return Bid("1NT") if seat == declarers[board] and not opened else Bid("p")

    return calls


def highest(legal: Sequence[Card]) -> Card:
    return max(legal, key=lambda c: (c.rank.value, -c.suit.value))


Table = tuple[list[TableResult], dict[Player, StyledSeat]]


async def play_tables(
    tmp_path: Path,
    tables: list[dict[Player, str]],
    declarers: list[Player],
    *,
    early: bool = False,
    repeat: bool = False,
    extra: Any = None,
) -> list[Table]:
    """At our table manager over TCP, one table per entry of ``tables`` (each seat's style),
    seats in those styles play one board per declarer; the results and seats of each table."""
    boards, by_board = boards_with_declarers(declarers)
    tm = TableManager(boards, tmp_path, tables=len(tables))
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    seated: list[dict[Player, StyledSeat]] = []
    tasks: list[asyncio.Future[None]] = []
    try:
        for styles in tables:  # table by table: a connection takes the first table with room
            models = {
                p: StyledSeat(p, STYLES[styles[p]], TEAMS[p], calls=one_notrump_by(by_board),
                              choose=highest, early=early)
                for p in Player
            }  # fmt: skip
            seated.append(models)
            peers = {
                p: StyledPeer(host, port, models[p], repeat=repeat, timeout=30,
                              extra=None if extra is None else extra.get(p))
                for p in Player
            }  # fmt: skip
            for anypl in (False, True):  # an ANYPL seat (WBridge5) last: it gets the seat left
                group = [p for p in Player if models[p].style.anypl is anypl]
                tasks += [asyncio.ensure_future(peers[p].run()) for p in group]
                await asyncio.wait_for(asyncio.gather(*(peers[p].seated.wait() for p in group)), 30)
        await asyncio.wait_for(asyncio.gather(*tasks), 120)
        results = await asyncio.wait_for(serving, 10)
    finally:
        for task in (*tasks, serving):
            task.cancel()
        await tm.close()
    for models in seated:
        assert {p: m.seat for p, m in models.items()} == {p: p for p in Player}
    return list(zip(results, seated, strict=True))


async def play_table(
    tmp_path: Path, styles: dict[Player, str], declarers: list[Player], **habits: Any
) -> Table:
    """One table of :func:`play_tables`."""
    (table,) = await play_tables(tmp_path, [styles], declarers, **habits)
    return table


def check_dummy_won_and_led(results: list[TableResult], models: dict[Player, StyledSeat]) -> None:
    """Every board was played out, dummy won tricks and led, and declarer was told so."""
    for r in results:
        assert r.aborted is None and r.contract is not None and len(r.play) == 52, r
        dummy = r.contract.declarer.partner
        leads = [r.play[i][0] for i in range(4, 52, 4)]
        assert leads.count(dummy) >= 6, (r.board.number, leads)
    declarers = [r.contract.declarer for r in results if r.contract is not None]
    for p in set(declarers):
        assert "Dummy to lead" in models[p].heard


def first_card_ready_twice(model: StyledSeat, line: str) -> list[str]:
    """Issue 25's transcript: dummy says its first-trick line twice right after the auction."""
    msg = parse(line, Direction.TO_TM)
    b = model.board
    if isinstance(msg, ReadyForCard) and b is not None and b.next_card == 1:
        return [line]
    return []


async def test_issue_25_bridge_player_dummy_gets_its_own_card_and_the_board_ends(
    tmp_path: Path, logs: Logs
) -> None:
    """The transcript of issue 25: East (dummy, bridge-player) says ``east ready for dummy's card
    to trick 1`` twice after the auction and again after North's lead; West plays East's ace. The
    repeated text used to be ignored as a repeat, so dummy was never sent its own card and the
    table stalled at trick 2. Dummy must hear its own cards and the board must end."""
    styles = dict.fromkeys(Player, "canonical") | {Player.east: "bridge-player"}
    results, models = await play_table(
        tmp_path, styles, [Player.west], extra={Player.east: first_card_ready_twice}
    )
    east = models[Player.east]
    said = [x for x in east.said if "card to trick 1" in x]
    assert said[:2] == ["east ready for dummy's card to trick 1"] * 2
    # North leads the jack of clubs; West plays dummy's ace, which dummy must hear.
    assert east.heard[east.heard.index("North plays JC") + 1] == "East plays AC"
    assert sum(x.startswith("East plays ") for x in east.heard) == 13
    check_dummy_won_and_led(results, models)
    assert not [e for e in logs if e["log_level"] in ("warning", "error")]


#: Two sessions seat all six styles; in each, the declarer goes round the table, so every style
#: is declarer, dummy, opening leader (declarer's left) and the leader's partner once.
SESSIONS = {
    "canonical-wbridge5-ben-bridge_player": ("canonical", "wbridge5", "ben", "bridge-player"),
    "gib-bridge_player-computerbridge-ben": ("gib", "bridge-player", "computerbridge", "ben"),
}
ROTATION = [Player.north, Player.east, Player.south, Player.west]


@pytest.mark.parametrize("habits", ["plain", "early", "repeated", "early+repeated"])
@pytest.mark.parametrize("session", list(SESSIONS))
async def test_every_style_in_every_role(
    tmp_path: Path, logs: Logs, session: str, habits: str
) -> None:
    styles = dict(zip(ROTATION, SESSIONS[session], strict=True))
    results, models = await play_table(
        tmp_path, styles, ROTATION, early="early" in habits, repeat="repeated" in habits
    )
    assert [r.contract.declarer for r in results if r.contract is not None] == ROTATION
    roles = {
        (styles[p], role)
        for r in results
        if r.contract is not None
        for p, role in (
            (r.contract.declarer, "declarer"),
            (r.contract.declarer.partner, "dummy"),
            (r.contract.declarer.lho, "opening leader"),
            (r.contract.declarer.rho, "leader's partner"),
        )
    }
    assert len(roles) == 16
    check_dummy_won_and_led(results, models)
    for m in models.values():
        assert m.boards_played == 4
    if "early" in habits:
        assert all(m.early_lines > 0 for m in models.values())
    assert not [e for e in logs if e["log_level"] in ("warning", "error")]


async def test_two_tables_of_every_style_with_every_habit(tmp_path: Path, logs: Logs) -> None:
    """Issue 25 stalled two tables of one ``bridgebot tm`` at once: both tables here seat a
    bridge-player, early and repeating, and play their four boards to the end."""
    tables = [dict(zip(ROTATION, SESSIONS[name], strict=True)) for name in SESSIONS]
    played = await play_tables(tmp_path, tables, ROTATION, early=True, repeat=True)
    for results, models in played:
        assert len(results) == 4
        check_dummy_won_and_led(results, models)
    assert not [e for e in logs if e["log_level"] in ("warning", "error")]
