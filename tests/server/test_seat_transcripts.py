"""Golden transcripts: our real seat client over real TCP against a scripted table manager.

The scripted TM says, line by line, what the table manager said in a docs/protocol.md section 6
transcript, and asserts every line our client writes, in order, with nothing left over. Our
client's wire forms are canonical while the transcripts' clients were WBridge5 (upper-case seats,
lower-case cards, ``ANYPL``) and ComputerBridge; so the expected lines are the transcript's
client lines parsed and re-rendered with ``protocol.codec`` (``canonical_client_script``). The
agent replays the transcript's own calls and cards (a peer-side fake), checking each is legal in
the view our client built.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bridgebot.laws.cards import RANKS, SUITS
from bridgebot.protocol.codec import Direction, parse, render_card
from bridgebot.protocol.messages import Cards, DummyCards, PlayMsg
from bridgebot.server.seat import SeatClient
from bridgebot.server.testing import (
    ScriptedTableManager,
    ScriptStep,
    agent_script,
    canonical_client_script,
    seat_script,
)
from endplay.types import Player

from tests.grammar_check import unexpected_rejections

PEERS = Path(__file__).resolve().parent.parent / "peers"


async def _replay(steps: list[ScriptStep], seat: Player | None, team: str) -> list[str]:
    agent = agent_script(steps)
    async with ScriptedTableManager(canonical_client_script(steps), timeout=5.0) as tm:
        client = SeatClient("127.0.0.1", tm.port, seat, team, agent, connect_retries=0)
        summary = await client.run()
        await tm.assert_done()
    assert summary.boards == 1
    assert agent.calls == [] and agent.cards == [], "the client skipped scripted decisions"
    assert agent.resets == [1]
    assert set(tm.terminators) == {b"\r\n"}
    # Every line we sent also parses with an independent grammar (table-master-parser).
    assert unexpected_rejections(tm.received) == []
    return tm.received


def _unseen_card(steps: list[ScriptStep]) -> str:
    """The one card of the deal that no line of ``steps`` shows (East's and dummy's hands and
    every card played so far cover the other 51)."""
    seen: set[str] = set()
    for step in steps:
        direction = Direction.TO_TM if step.kind == "expect" else Direction.FROM_TM
        msg = parse(step.line, direction)
        if isinstance(msg, Cards | DummyCards):
            seen.update(render_card(c) for c in msg.hand)
        elif isinstance(msg, PlayMsg):
            seen.add(render_card(msg.card))
    unseen = {r + s for r in RANKS for s in SUITS} - seen
    assert len(unseen) == 1, unseen
    return unseen.pop()


async def test_wbridge5_east_transcript_6_2() -> None:
    """docs/protocol.md 6.2: WBridge5 as East (declarer in 6H, dummy West), connecting as ANYPL.

    The transcript stops at East's last card, before South's; we complete the board with
    South's one unseen card and add a Timing line and End of session (which OpenSpiel's wrapper
    never sends) so the client can finish."""
    steps = seat_script(PEERS / "transcript_6_2.txt", Player.east)
    steps += [
        ScriptStep("expect", "EAST ready for SOUTH's card to trick 13", "added"),
        ScriptStep("send", f"SOUTH plays {_unseen_card(steps)}", "added"),
        ScriptStep("send", "Timing - N/S : this board  [1:15]", "added"),
        ScriptStep("send", "End of session", "added"),
    ]
    received = await _replay(steps, None, "WBridge5")
    assert received[0] == 'Connecting "WBridge5" as ANYPL using protocol version 18'
    assert "East bids 4C Alert." in received
    assert "West plays 3S" in received  # declarer plays dummy's card under dummy's name
    assert received[-2:] == ["East plays QS", "East ready for South's card to trick 13"]


@pytest.mark.parametrize(
    "seat", [Player.north, Player.east, Player.south, Player.west], ids=lambda p: p.name
)
async def test_computerbridge_board_transcript_6_1(seat: Player) -> None:
    """docs/protocol.md 6.1 from each seat: North is dummy, South declares 3S, West leads, East is
    the leader's partner. Team names and every line come from the transcript."""
    steps = seat_script(PEERS / "transcript_6_1.txt", seat)
    team = "RoboBridge1" if seat in (Player.north, Player.south) else "RoboBridge2"
    received = await _replay(steps, seat, team)
    assert received == [s.line for s in steps if s.kind == "expect"]
