"""Liveness of the pure table machine (issue 25): a table whose seats have all said what they owe
makes progress.

A hypothesis state machine seats four scripted seats of generated styles (every style the
project knows: ``server.testing.styles.STYLES``), each early or not, around a
:class:`~protocol.table.TableMachine` and plays two boards. Each step lets one seat hear the next
line the table sent it, say the next line it owes (when the protocol lets it say it), or say
again a ready line it already said on this board (card-level and board-level repeats), in any
order. Every line goes through the codec both ways. After every step:

* no honest line was refused (an ``Error:`` to a seat that followed the protocol is a bug);
* if every seat has heard everything the table sent and has nothing more it may say, the session
  is over: a table that waits then waits for ever (the stall of issue 25).

A seat that catches up (hears all, says all it may) also says a ready line again now and then,
at a drawn rate. The teardown plays the rest of the session that way and checks that every board
ended, played out. Deals and auctions are drawn; half the deals give dummy the top cards, so dummy wins
tricks and leads.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Sequence

from bridgebot.laws.boards import dealer_of, vul_of
from bridgebot.laws.deals import random_deal
from bridgebot.protocol.codec import Direction, parse, render
from bridgebot.protocol.errors import RemoteProtocolError
from bridgebot.protocol.messages import Connect, Message
from bridgebot.protocol.table import Phase, TableBoard, TableMachine
from bridgebot.server.testing import TEAMS, FakeClock
from bridgebot.server.testing.styles import STYLES, StyledSeat, dummy_deal
from endplay.types import Bid, Card, ContractBid, Player
from hypothesis import HealthCheck, event, settings
from hypothesis import Phase as Stage
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

SEATS = (Player.north, Player.east, Player.south, Player.west)
CONTRACTS = ("1NT", "3NT", "4S", "2H", "5D", "1C")
MAX_REPEATS = 40
"""Repeats per seat and session: enough to mix them in everywhere, few enough that a burst of
repeated early lines stays within the table's queue limit."""


@st.composite
def board_plans(draw: st.DrawFn, number: int) -> tuple[TableBoard, Player | None, str]:
    """A board, its declarer (None: passed out) and contract; half the deals have a strong
    dummy."""
    declarer = draw(st.sampled_from([*SEATS, None]))
    strong = draw(st.booleans())
    if declarer is not None and strong:
        deal = dummy_deal(declarer.partner)
    else:
        deal = random_deal(draw(st.integers(0, 10_000)), number - 1)
    board = TableBoard(number=number, dealer=dealer_of(number), vul=vul_of(number), deal=deal)
    return board, declarer, draw(st.sampled_from(CONTRACTS))


class TableLiveness(RuleBasedStateMachine):
    """Generated seats of every style around the pure table machine (see the module docstring)."""

    @initialize(
        styles=st.permutations(sorted(STYLES)).map(lambda styles: styles[:4]),
        early=st.lists(st.booleans(), min_size=4, max_size=4),
        plans=st.tuples(board_plans(1), board_plans(2)),
        card_seed=st.integers(0, 2**32 - 1),
        repeat_rate=st.sampled_from([0.0, 0.2, 0.5]),
    )
    def seat_everyone(
        self,
        styles: list[str],
        early: list[bool],
        plans: tuple[tuple[TableBoard, Player | None, str], ...],
        card_seed: int,
        repeat_rate: float,
    ) -> None:
        self.table = TableMachine(clock=FakeClock())
        self.boards = deque(board for board, _, _ in plans)
        self.plans = {board.number: (declarer, contract) for board, declarer, contract in plans}
        rng = self.rng = random.Random(card_seed)
        self.repeat_rate = repeat_rate
        """How often a seat that catches up says a ready line again after a line it owed."""

        def choose(legal: Sequence[Card]) -> Card:
            return rng.choice(list(legal))

        self.inbox: dict[Player, deque[str]] = {p: deque() for p in SEATS}
        self.repeats = dict.fromkeys(SEATS, 0)
        self.log: list[str] = []
        models = [
            StyledSeat(p, STYLES[styles[i]], TEAMS[p], calls=self.calls, choose=choose,
                       early=early[i])
            for i, p in enumerate(SEATS)
        ]  # fmt: skip
        # An ANYPL seat (WBridge5) connects after the others: it is given the seat left for it.
        self.seats: dict[Player, StyledSeat] = {}
        for model in sorted(models, key=lambda m: m.style.anypl):
            msg = parse(model.connect_line(), Direction.TO_TM)
            assert isinstance(msg, Connect)
            seat = self.table.seat_request(msg)
            self.seats[seat] = model
            self.deliver(self.table.seat(seat, msg.team))
        self.describe = ", ".join(
            f"{p.name}={self.seats[p].style.name}{'+early' if self.seats[p].early else ''}"
            for p in SEATS
        )

    def calls(self, seat: Player, board: int, auction: Sequence[Bid]) -> Bid:
        declarer, contract = self.plans[board]
        opened = any(isinstance(c, ContractBid) for c in auction)
        return Bid(contract) if seat == declarer and not opened else Bid("p")

    # ------------------------------------------------------------------ the wire, both ways

    def deliver(self, out: Sequence[tuple[Player, Message]]) -> None:
        for p, msg in out:
            self.inbox[p].append(render(msg))

    def say(self, p: Player, line: str) -> None:
        """``p`` says ``line``; the table's answers go to the inboxes; between boards the shell
        starts the next board or ends the session, as ``server.tm`` does."""
        self.log.append(f"{p.name} > {line}")
        try:
            self.deliver(self.table.receive(p, parse(line, Direction.TO_TM)))
        except RemoteProtocolError as exc:
            raise AssertionError(
                f"{self.describe}: honest line refused: {exc}\n{self.tail()}"
            ) from exc
        errors = self.table.take_errors()
        assert not errors, f"{self.describe}: queued honest lines refused: {errors}\n{self.tail()}"
        if self.table.phase is Phase.IDLE:
            nxt = self.boards.popleft() if self.boards else None
            self.deliver(self.table.start_board(nxt) if nxt else self.table.end_session())

    def tail(self) -> str:
        return "\n".join(self.log[-25:])

    def hear(self, p: Player) -> None:
        line = self.inbox[p].popleft()
        self.log.append(f"{p.name} < {line}")
        self.seats[p].hear(line)

    def quiet(self) -> bool:
        return all(not self.inbox[p] and self.seats[p].next_line() is None for p in SEATS)

    # ------------------------------------------------------------------ rules

    @precondition(lambda self: any(self.inbox.values()))
    @rule(data=st.data())
    def a_seat_hears_a_line(self, data: st.DataObject) -> None:
        self.hear(data.draw(st.sampled_from([p for p in SEATS if self.inbox[p]])))

    @precondition(lambda self: any(m.next_line() is not None for m in self.seats.values()))
    @rule(data=st.data())
    def a_seat_says_what_it_owes(self, data: st.DataObject) -> None:
        p = data.draw(st.sampled_from([p for p in SEATS if self.seats[p].next_line() is not None]))
        line = self.seats[p].speak()
        assert line is not None
        self.say(p, line)

    @rule(data=st.data())
    def a_seat_repeats_a_ready_line(self, data: st.DataObject) -> None:
        seats = [p for p in SEATS if self.seats[p].repeatable() and self.repeats[p] < MAX_REPEATS]
        if not seats:
            return
        p = data.draw(st.sampled_from(seats))
        self.say_again(p, data.draw(st.sampled_from(self.seats[p].repeatable())))

    @rule(data=st.data())
    def a_seat_catches_up(self, data: st.DataObject) -> None:
        """One seat hears all that waits for it and says all it may (fewer steps per board)."""
        self.catch_up(data.draw(st.sampled_from(SEATS)))

    def catch_up(self, p: Player) -> None:
        while self.inbox[p]:
            self.hear(p)
        while (line := self.seats[p].speak()) is not None:
            self.say(p, line)
            again = self.seats[p].repeatable()
            if again and self.repeats[p] < MAX_REPEATS and self.rng.random() < self.repeat_rate:
                self.say_again(p, self.rng.choice(again))

    def say_again(self, p: Player, line: str) -> None:
        self.repeats[p] += 1
        if " card to trick " in line:
            event("a card-level ready line said again")
        self.say(p, line)

    # ------------------------------------------------------------------ the property

    @invariant()
    def seats_that_said_all_they_owe_are_never_left_waiting(self) -> None:
        if self.quiet():
            assert self.table.phase is Phase.ENDED, (
                f"{self.describe}: stuck in {self.table.describe()}; every seat has said what it "
                f"owes and heard everything\n{self.tail()}"
            )

    def teardown(self) -> None:
        """Play the session out and check that every board ended, played out."""
        if not hasattr(self, "table"):
            return
        for _ in range(2000):
            if self.quiet():
                break
            for p in SEATS:
                self.catch_up(p)
        self.seats_that_said_all_they_owe_are_never_left_waiting()
        results = self.table.finished
        assert [r.board.number for r in results] == [1, 2]
        for r in results:
            if r.contract is not None:
                dummy = r.contract.declarer.partner
                if any(r.play[i][0] == dummy for i in range(4, 52, 4)):
                    event("dummy led a trick")
        if any(m.early_lines for m in self.seats.values()):
            event("a ready line said before the card ahead of it had arrived")
        for r in results:
            assert r.aborted is None
            assert len(r.play) == (0 if r.contract is None else 52)
        assert all(m.ended for m in self.seats.values())


TableLiveness.TestCase.settings = settings(
    max_examples=40,
    stateful_step_count=100,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
    # No shrinking: a failure already names the styles, the state and the last lines, and
    # shrinking a whole session takes minutes.
    phases=(Stage.explicit, Stage.reuse, Stage.generate),
)
test_table_liveness = TableLiveness.TestCase
