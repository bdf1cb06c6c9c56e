"""The asyncio seat client over real TCP: connection retries and failures, the agent in an
executor (a restart while it thinks), Illegal bid round trip, bounded reads, the wire log."""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest
from bridgebot.engine.agent import BiddingView, PlayView
from bridgebot.laws.calls import PASS, same_call
from bridgebot.protocol.codec import parse_call
from bridgebot.protocol.errors import RemoteProtocolError
from bridgebot.server.seat import AgentError, SeatClient, TableConnectionError
from bridgebot.server.testing import ScriptedAgent, ScriptedTableManager, ScriptStep
from endplay.types import Bid, Card, Player

NORTH_HAND = "S A T 4 3. H T 8 5 3. D K T. C K T 6."
pytestmark = pytest.mark.virtual_time
Logs = list[dict[str, object]]


def opening(seat: str = "North") -> list[ScriptStep]:
    """Connection and the deal of board 1 (dealer North), from ``seat``'s side."""
    return [
        ScriptStep("expect", f'Connecting "Bots" as {seat} using protocol version 18'),
        ScriptStep("send", f'{seat} ("Bots") seated'),
        ScriptStep("expect", f"{seat} ready for teams"),
        ScriptStep("send", 'Teams : N/S : "Bots" E/W : "Others"'),
        ScriptStep("expect", f"{seat} ready to start"),
        ScriptStep("send", "Start of board"),
        ScriptStep("expect", f"{seat} ready for deal"),
        ScriptStep("send", "Board number 1. Dealer North. Neither vulnerable."),
        ScriptStep("expect", f"{seat} ready for cards"),
        ScriptStep("send", f"{seat}'s cards : {NORTH_HAND}"),
    ]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def client(port: int, agent: object, **kwargs: object) -> SeatClient:
    kwargs.setdefault("connect_retries", 0)
    return SeatClient("127.0.0.1", port, Player.north, "Bots", agent, **kwargs)  # type: ignore[arg-type]


async def test_no_table_manager_is_a_connection_error() -> None:
    port = free_port()
    with pytest.raises(TableConnectionError, match=rf"127\.0\.0\.1:{port} after 3 attempt"):
        await client(port, ScriptedAgent([], []), connect_retries=2, retry_delay=0.01).run()


async def test_connect_retries_until_the_table_manager_listens(logs: Logs) -> None:
    port = free_port()
    steps = [*opening()[:5], ScriptStep("send", "End of session")]
    # ComputerBridge's client retries 30 times, 2 s apart; in virtual time the waits cost nothing.
    task = asyncio.create_task(
        client(port, ScriptedAgent([], []), connect_retries=30, retry_delay=2.0).run()
    )
    for _ in range(500):  # until the client has been refused at least once
        if any(e["event"] == "connect retry" for e in logs):
            break
        await asyncio.sleep(0.01)
    assert any(e["event"] == "connect retry" for e in logs)
    async with ScriptedTableManager(steps, port=port, timeout=5) as tm:
        summary = await asyncio.wait_for(task, 10)
        await tm.assert_done()
    assert summary.boards == 0 and summary.seat == Player.north


async def test_table_manager_closing_mid_board_names_the_board() -> None:
    steps = [*opening(), ScriptStep("expect", "North passes")]
    agent = ScriptedAgent([PASS], [])
    async with ScriptedTableManager(steps, timeout=5) as tm:
        with pytest.raises(TableConnectionError, match=r"closed the connection .*board 1"):
            await client(tm.port, agent).run()
        with pytest.raises(AssertionError, match="also sent"):
            await tm.assert_done()  # our "ready for East's bid" was still on its way


async def test_wrong_message_is_the_table_managers_fault() -> None:
    steps = [*opening()[:5], ScriptStep("send", "Board number 1. Dealer North. Both vulnerable.")]
    async with ScriptedTableManager(steps, timeout=5) as tm:
        with pytest.raises(RemoteProtocolError, match="unexpected BoardInfo"):
            await client(tm.port, ScriptedAgent([], [])).run()


async def test_line_too_long_is_bounded() -> None:
    steps = [*opening()[:2], ScriptStep("send", "Teams " + "x" * 300)]
    async with ScriptedTableManager(steps, timeout=5) as tm:
        with pytest.raises(RemoteProtocolError, match="over 100 bytes"):
            await client(tm.port, ScriptedAgent([], []), max_line=100).run()


async def test_illegal_bid_round_trip_excludes_the_rejected_call() -> None:
    steps = [
        *opening(),
        ScriptStep("expect", "North bids 1NT"),
        ScriptStep("expect", "North ready for East's bid"),
        ScriptStep("send", "Illegal bid"),
        ScriptStep("expect", "North bids 1S"),
        ScriptStep("expect", "North ready for East's bid"),
        ScriptStep("send", "End of session"),
    ]
    agent = ScriptedAgent([parse_call("bids 1NT"), parse_call("bids 1S")], [])
    async with ScriptedTableManager(steps, timeout=5) as tm:
        summary = await client(tm.port, agent).run()
        await tm.assert_done()
    assert summary.boards == 0
    first, second = agent.views
    assert isinstance(first, BiddingView) and isinstance(second, BiddingView)
    nt = parse_call("bids 1NT")
    assert any(same_call(nt, c) for c in first.legal)
    assert not any(same_call(nt, c) for c in second.legal)


class _SlowFirstAgent:
    """Blocks in its first ``bid`` until released; later calls pass at once."""

    name = "slow"

    def __init__(self) -> None:
        self.release = threading.Event()
        self.calls = 0
        self.resets: list[int] = []

    def reset(self, board: int) -> None:
        self.resets.append(board)

    def bid(self, view: BiddingView) -> Bid:
        self.calls += 1
        if self.calls == 1 and not self.release.wait(10):
            raise RuntimeError("never released")
        return parse_call("bids 7NT") if self.calls == 1 else PASS

    def play(self, view: PlayView) -> Card:
        raise NotImplementedError


async def test_restart_while_the_agent_thinks_voids_its_answer() -> None:
    """The TM restarts the board while our bot is still thinking (Ben's recovery path): the
    client answers ``ready for deal`` at once, and the late 7NT never goes on the wire."""
    steps = [
        *opening(),
        ScriptStep("send", "Start of board"),
        ScriptStep("expect", "North ready for deal"),
        ScriptStep("send", "Board number 1. Dealer North. Neither vulnerable."),
        ScriptStep("expect", "North ready for cards"),
        ScriptStep("send", f"North's cards : {NORTH_HAND}"),
        ScriptStep("expect", "North passes"),
        ScriptStep("expect", "North ready for East's bid"),
        ScriptStep("send", "End of session"),
    ]
    agent = _SlowFirstAgent()
    async with ScriptedTableManager(steps, timeout=5) as tm:
        task = asyncio.create_task(client(tm.port, agent).run())
        for _ in range(1000):
            if "North ready for deal" in tm.received:
                break
            await asyncio.sleep(0.01)
        agent.release.set()
        summary = await asyncio.wait_for(task, 10)
        await tm.assert_done()
    assert "North bids 7NT" not in tm.received
    assert agent.resets == [1, 1] and summary.boards == 0


async def test_agent_failure_is_our_fault() -> None:
    steps = [*opening()]

    class Broken(ScriptedAgent):
        def bid(self, view: BiddingView) -> Bid:
            raise ValueError("no idea")

    async with ScriptedTableManager(steps, timeout=5) as tm:
        with pytest.raises(AgentError, match="agent scripted failed to call on board 1"):
            await client(tm.port, Broken([], [])).run()


async def test_every_line_is_logged_once_with_seat_and_direction(logs: Logs) -> None:
    steps = [*opening()[:5], ScriptStep("send", "End of session")]
    async with ScriptedTableManager(steps, timeout=5) as tm:
        summary = await client(tm.port, ScriptedAgent([], [])).run()
        await tm.assert_done()
    wire = [e for e in logs if e["event"] == "line"]
    assert [e["line"] for e in wire if e["dir"] == "out"] == tm.received
    sent = [s.line for s in steps if s.kind == "send"]
    assert [e["line"] for e in wire if e["dir"] == "in"] == sent
    assert all(e["seat"] == "North" and e["log_level"] == "debug" for e in wire)
    assert (summary.lines_in, summary.lines_out) == (len(sent), len(tm.received))


async def test_idle_timeout_names_the_silent_table_manager() -> None:
    steps = [*opening()[:5], ScriptStep("expect", "nothing: the TM stays silent")]
    async with ScriptedTableManager(steps, timeout=600) as tm:
        loop = asyncio.get_running_loop()
        start = loop.time()
        with pytest.raises(TableConnectionError, match=r"no line from the table manager .* 120s"):
            await client(tm.port, ScriptedAgent([], []), idle_timeout=120).run()
        assert loop.time() - start >= 120
