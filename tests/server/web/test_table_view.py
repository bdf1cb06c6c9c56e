"""What the page is sent, from the seat machine's own state: an alerted call of another seat keeps
its explanation, only what the seat may know is in the view, the finished board carries every
call and card, and the turn and legality checks refuse what is not the person's to do."""

from __future__ import annotations

import asyncio

import pytest
from bridgebot.protocol.seat import BoardFinished, NeedCall, SeatMachine
from bridgebot.server.web.table import PersonTable, Refused
from endplay.types import Bid, Player

HAND = "S A K Q 2. H 7 5 3. D J 8 4. C 9 6 2."
OPENING = [
    'South ("People") seated',
    'Teams : N/S : "People" E/W : "Bots"',
    "Start of board",
    "Board number 1. Dealer East. Neither vulnerable.",
    f"South's cards : {HAND}",
    "East bids 2C Alert. 8 to 14 total points, 4+ cards in hearts.",
]


def _machine(opening: list[str] = OPENING) -> tuple[SeatMachine, list[object]]:
    machine = SeatMachine("People", Player.south)
    machine.connect()
    events: list[object] = []
    for line in opening:
        events += machine.receive_line(line)
    return machine, events


async def test_an_alerted_call_reaches_the_page_with_its_explanation() -> None:
    machine, events = _machine()
    (request,) = [e for e in events if isinstance(e, NeedCall)]
    table = PersonTable(machine=machine)
    answer = table.ask(request)
    view = table.view()
    assert view["state"] == "your-call" and view["seat"] == "S"
    first = view["table"]["auction"][0]
    assert first == {
        "seat": "E",
        "call": "2C",
        "alert": "8 to 14 total points, 4+ cards in hearts.",
    }
    assert "2C" not in view["table"]["legalCalls"] and "2D" in view["table"]["legalCalls"]
    assert view["table"]["hand"]["S"] == ["SA", "SK", "SQ", "S2"]  # by suit, high first
    assert "dummy" not in view["table"] and "done" not in view
    with pytest.raises(Refused, match="not a legal call"):
        table.act("call", "1NT")
    with pytest.raises(Refused, match="not your turn"):
        table.act("card", "SA")
    with pytest.raises(Refused, match="not a call"):
        table.act("call", "banana")
    assert not answer.done() and table.state() == "your-call"  # refusals change nothing
    table.act("call", "pass")
    assert answer.done() and table.state() == "waiting"
    with pytest.raises(Refused, match="not your turn"):
        table.act("call", "Pass")  # answered once only
    await asyncio.sleep(0)


def test_a_finished_board_carries_every_call() -> None:
    machine, events = _machine([*OPENING[:-1], "East passes Alert. fewer than 11 total points."])
    assert any(isinstance(e, NeedCall) for e in events)
    events = machine.answer_call(Bid("Pass"))
    for line in ("West passes", "North passes"):
        events += machine.receive_line(line)
    (finished,) = [e for e in events if isinstance(e, BoardFinished)]
    assert finished.passed_out and finished.final is not None
    assert len(finished.final.auction) == 4
    assert finished.final.alerts == {0: "fewer than 11 total points."}
    table = PersonTable(machine=machine)
    table.board_finished(finished.final)
    view = table.view()
    assert view["state"] == "board-done"
    assert view["done"]["result"]["text"] == "passed out" and view["done"]["hands"] is None
    table.next_board()
    assert table.state() == "waiting"
    with pytest.raises(Refused):
        table.next_board()
