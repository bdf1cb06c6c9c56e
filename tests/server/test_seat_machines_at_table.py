"""Four seat machines against the table machine, in memory, over many random boards.

No sockets: each message is rendered to its wire text and parsed back on the other side, so the
codec is in the loop. Hypothesis picks the deal seed, the agents' seeds and each seat's ready
dialect (``dummy_form``, ``early_dummy``); every board must finish with the same auction and play
in the table's record as in each seat's own view, and nothing may be left undelivered.
"""

from __future__ import annotations

from collections import deque

from bridgebot.laws.board_sets import generate
from bridgebot.protocol.codec import Direction, parse, render
from bridgebot.protocol.dialect import Dialect
from bridgebot.protocol.messages import Message
from bridgebot.protocol.seat import (
    BoardFinished,
    Event,
    NeedCall,
    NeedCard,
    SeatMachine,
    Send,
)
from bridgebot.protocol.table import Phase, TableMachine
from bridgebot.server.seat import decide
from endplay.types import Player
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgebot.agents import make_agent

SEATS = (Player.north, Player.east, Player.south, Player.west)
TEAM = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}


def play_session(
    seed: int, boards: int, forms: list[str], early: list[bool]
) -> tuple[TableMachine, dict[Player, list[BoardFinished]]]:
    table = TableMachine(clock=lambda: 0.0)
    seats = {
        p: SeatMachine(
            TEAM[p],
            p,
            dialect=Dialect(early_dummy=early[i]),
            dummy_form=forms[i],  # type: ignore[arg-type]
        )
        for i, p in enumerate(SEATS)
    }
    agents = {p: make_agent("random,pass_bias=0.55", seed * 10 + p.value) for p in SEATS}
    to_tm: deque[tuple[Player, Message]] = deque()
    to_seat: deque[tuple[Player, Message]] = deque()
    finished: dict[Player, list[BoardFinished]] = {p: [] for p in SEATS}
    deals = deque(generate(seed, boards))

    def take(p: Player, events: list[Event]) -> None:
        queue = list(events)
        while queue:
            e = queue.pop(0)
            if isinstance(e, Send):
                to_tm.append((p, parse(render(e.message), Direction.TO_TM)))
            elif isinstance(e, NeedCall):
                queue = seats[p].answer_call(decide(agents[p], e)) + queue  # type: ignore[arg-type]
            elif isinstance(e, NeedCard):
                queue = seats[p].answer_card(decide(agents[p], e)) + queue  # type: ignore[arg-type]
            elif isinstance(e, BoardFinished):
                finished[p].append(e)

    for p in SEATS:
        connect = seats[p].connect()
        (first,) = connect
        assert isinstance(first, Send)
        seat = table.seat_request(parse(render(first.message), Direction.TO_TM))  # type: ignore[arg-type]
        assert seat == p
        to_seat.extend(table.seat(p, TEAM[p]))
    for _ in range(200_000):
        if to_seat:
            p, msg = to_seat.popleft()
            take(p, seats[p].receive_line(render(msg)))
        elif to_tm:
            p, msg = to_tm.popleft()
            to_seat.extend(table.receive(p, msg))
            assert table.take_errors() == []
        elif table.phase is Phase.IDLE and deals:
            to_seat.extend(table.start_board(deals.popleft()))
        elif table.phase is Phase.IDLE:
            to_seat.extend(table.end_session())
        else:
            break
    return table, finished


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    forms=st.lists(st.sampled_from(["self", "all", "never"]), min_size=4, max_size=4),
    early=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_random_sessions_finish_in_every_dialect(
    seed: int, forms: list[str], early: list[bool]
) -> None:
    table, finished = play_session(seed, 2, forms, early)
    assert table.phase is Phase.ENDED
    assert len(table.finished) == 2 and all(r.aborted is None for r in table.finished)
    for p in SEATS:
        assert [f.number for f in finished[p]] == [r.board.number for r in table.finished]
        for f, r in zip(finished[p], table.finished, strict=True):
            assert f.passed_out == r.passed_out
            assert str(f.contract) == str(r.contract)
