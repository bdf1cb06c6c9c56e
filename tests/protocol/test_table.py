"""The sans-IO table machine, driven line by line without sockets.

The golden board (docs/protocol.md section 6.1) is fed in transcript order; every line the machine emits
must be the transcript's, per seat, in order, with nothing left over. Smaller cases check the
tolerances of rules 2-7 in ``protocol/table.py`` one at a time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from bridgebot.protocol.codec import Direction, parse, render
from bridgebot.protocol.errors import RemoteProtocolError
from bridgebot.protocol.messages import Connect, Message
from bridgebot.protocol.table import Phase, TableMachine
from bridgebot.server.testing import GOLDEN_BOARD, FakeClock, seat_script
from endplay.types import Player

TRANSCRIPT = Path(__file__).parents[1] / "peers" / "transcript_6_1.txt"
SEATS = list(Player)


def transcript_events() -> list[tuple[str, Player, str]]:
    """(direction, seat, text) of the whole transcript in order; direction 'in' = to the TM."""
    events = []
    for raw in TRANSCRIPT.read_text().splitlines():
        if " -> " not in raw or raw.lstrip().startswith("--"):
            continue
        head, text = raw.split(" : ", 1)
        src, dst = (w.strip() for w in head.split("->"))
        if dst == "TM":
            events.append(("in", Player.find(src), text.rstrip()))
        else:
            events.append(("out", Player.find(dst), text.rstrip()))
    return events


class Driver:
    """Feeds a machine and collects what it sends, rendered, per seat."""

    def __init__(self, machine: TableMachine) -> None:
        self.m = machine
        self.sent: dict[Player, list[str]] = {p: [] for p in SEATS}

    def take(self, out: list[tuple[Player, Message]]) -> None:
        for seat, msg in out:
            self.sent[seat].append(render(msg))

    def line(self, seat: Player, text: str) -> None:
        msg = parse(text, Direction.TO_TM)
        if isinstance(msg, Connect):
            chosen = self.m.seat_request(msg)
            self.take(self.m.seat(chosen, msg.team))
        else:
            self.take(self.m.receive(seat, msg))

    def drain(self, seat: Player) -> list[str]:
        lines, self.sent[seat] = self.sent[seat], []
        return lines


def make_machine(clock: FakeClock | None = None, **kw: object) -> TableMachine:
    return TableMachine(clock=clock or FakeClock(), **kw)  # type: ignore[arg-type]


def test_golden_board_6_1_line_by_line() -> None:
    clock = FakeClock()
    d = Driver(make_machine(clock))
    expected: dict[Player, list[str]] = {p: [] for p in SEATS}
    boards = [GOLDEN_BOARD]
    for direction, seat, text in transcript_events():
        if direction == "out":
            expected[seat].append(text)
            continue
        # The TM's clock: West thinks 8 s over the opening lead, South 14 s over the last card.
        if text == "West plays AC":
            clock.now += 8
        play = d.m.current.play if d.m.current is not None else None
        if text == "North plays 3S" and play is not None and len(play.plays) == 51:
            clock.now += 14
        d.line(seat, text)
        if d.m.phase is Phase.IDLE and boards:
            d.take(d.m.start_board(boards.pop()))
        elif d.m.phase is Phase.IDLE and not boards and d.m.finished:
            d.take(d.m.end_session())
    for p in SEATS:
        assert d.drain(p) == expected[p], p
    assert d.m.phase is Phase.ENDED
    result = d.m.finished[0]
    assert str(result.contract).startswith("3♠S")
    assert result.declarer_tricks == 10
    assert result.alerts == {4: ""}


def seated_machine(clock: FakeClock | None = None, **kw: object) -> Driver:
    d = Driver(make_machine(clock, **kw))
    for p, team in zip(SEATS, ["A", "B", "A", "B"], strict=True):
        d.line(p, f'Connecting "{team}" as {p.name} using protocol version 18')
    for p in SEATS:
        d.line(p, f"{p.name} ready for teams")
    for p in SEATS:
        d.line(p, f"{p.name} ready to start")
    assert d.m.phase is Phase.IDLE
    for p in SEATS:
        d.drain(p)
    return d


def test_seating_errors_name_the_rule() -> None:
    m = make_machine()
    m.seat(m.seat_request(Connect(team="A", seat=Player.north)), "A")
    with pytest.raises(RemoteProtocolError, match="already taken"):
        m.seat_request(Connect(team="A", seat=Player.north))
    with pytest.raises(RemoteProtocolError, match="Team name must be 'A'"):
        m.seat_request(Connect(team="C", seat=Player.south))
    with pytest.raises(RemoteProtocolError, match="must differ"):
        m.seat_request(Connect(team="A", seat=Player.east))
    with pytest.raises(RemoteProtocolError, match="version 17"):
        m.seat_request(Connect(team="B", seat=Player.east, version=17))
    # ANYPL (WBridge5): first free seat from South.
    assert m.seat_request(Connect(team="A", seat=None)) == Player.south
    assert m.seat_request(Connect(team="B", seat=None)) == Player.west


def test_illegal_call_retry_then_cap_aborts_board() -> None:
    d = seated_machine(max_illegal=2)
    d.take(d.m.start_board(GOLDEN_BOARD))
    for p in SEATS:
        d.line(p, f"{p.name} ready for deal")
    for p in SEATS:
        d.line(p, f"{p.name} ready for cards")
    for p in (Player.east, Player.south, Player.west):
        d.line(p, f"{p.name} ready for North's bid")
    d.line(Player.north, "North doubles")  # nothing to double
    assert d.drain(Player.north)[-1] == "Illegal bid"
    assert d.m.phase is Phase.AUCTION
    d.line(Player.north, "North redoubles")
    assert d.m.phase is Phase.IDLE
    r = d.m.finished[-1]
    assert r.aborted is not None and "North" in r.aborted and r.contract is None


def test_wrong_seat_raises_and_leaves_state_unchanged() -> None:
    d = seated_machine()
    d.take(d.m.start_board(GOLDEN_BOARD))
    for p in SEATS:
        d.line(p, f"{p.name} ready for deal")
    for p in SEATS:
        d.line(p, f"{p.name} ready for cards")
    d.drain(Player.east)
    with pytest.raises(RemoteProtocolError, match="North is to call, not East"):
        d.line(Player.east, "East passes")
    d.line(Player.east, "East ready for deal")  # a repeat of a ready line taken: ignored
    assert d.m.repeats == 1 and d.drain(Player.east) == []
    assert d.m.phase is Phase.AUCTION and d.m.waiting_for()[0] == Player.north
    # The table still works: the right messages go through.
    for p in (Player.east, Player.south, Player.west):
        d.line(p, f"{p.name} ready for North's bid")
    d.line(Player.north, "North passes")
    assert d.drain(Player.east)[-1] == "North passes"


def test_passed_out_board_sends_timing_and_stray_ready_to_start_is_ignored() -> None:
    clock = FakeClock()
    d = seated_machine(clock)
    d.take(d.m.start_board(GOLDEN_BOARD))
    for p in SEATS:
        d.line(p, f"{p.name} ready for deal")
    d.line(Player.north, "North ready to start")  # Ben re-sends it: ignored
    d.line(Player.north, "North received dummy")  # GIB: ignored
    for p in SEATS:
        d.line(p, f"{p.name} ready for cards")
    for i in range(4):
        bidder = Player((Player.north.value + i) % 4)
        for p in SEATS:
            if p != bidder:
                d.line(p, f"{p.name} ready for {bidder.name}'s bid")
        clock.now += 61
        d.line(bidder, f"{bidder.name} passes")
    assert d.m.phase is Phase.IDLE and d.m.finished[-1].passed_out
    timing = d.drain(Player.south)[-1]
    assert timing.startswith("Timing - N/S : this board  02:02,")
    assert "E/W : this board  02:02," in timing


def play_shuffled(seed: int, eager: bool = False) -> Driver:
    """The golden board with the four seats scheduled in a random order: each seat sends its next
    line as soon as it has received everything its script shows before that line (so messages
    from different seats arrive in any causal order). With ``eager``, a ``ready for ... card``
    line may go one received line early, as bridge-player sends the ready for the next trick
    before the last card of the current one reached it. Every seat must get its lines exactly."""
    import random

    rng = random.Random(seed)
    clock = FakeClock()
    d = Driver(make_machine(clock))
    says: dict[Player, list[tuple[int, str]]] = {}  # line, and how many lines must precede it
    hears: dict[Player, list[str]] = {}
    for p in SEATS:
        says[p], hears[p] = [], []
        for step in seat_script(TRANSCRIPT, p):
            if step.kind == "send":
                hears[p].append(step.line)
            else:
                slack = 1 if eager and " card to trick " in step.line else 0
                says[p].append((max(0, len(hears[p]) - slack), step.line))
    sent = dict.fromkeys(SEATS, 0)
    boards = [GOLDEN_BOARD]
    while True:
        if d.m.phase is Phase.IDLE:
            d.take(d.m.start_board(boards.pop()) if boards else d.m.end_session())
        for p in SEATS:
            got = d.sent[p]
            assert got == hears[p][: len(got)], (p, got[-3:])
        ready = [
            p for p in SEATS if sent[p] < len(says[p]) and says[p][sent[p]][0] <= len(d.sent[p])
        ]
        if not ready:
            break
        p = rng.choice(ready)
        line = says[p][sent[p]][1]
        clock.now += {"West plays AC": 8, "North plays 3S": 14}.get(line, 0)
        d.line(p, line)
        sent[p] += 1
    assert all(sent[p] == len(says[p]) and d.sent[p] == hears[p] for p in SEATS), sent
    return d


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("eager", [False, True])
def test_golden_board_in_any_causal_order(seed: int, eager: bool) -> None:
    d = play_shuffled(seed, eager)
    assert d.m.phase is Phase.ENDED and d.m.finished[0].declarer_tricks == 10


def test_bridge_player_asks_for_dummy_before_the_lead() -> None:
    """bridge-player's declarer and leader's partner send ``ready for dummy`` right after the
    auction and wait for dummy before their ready for the opening lead (docs/protocol.md 2.4, 7):
    ``to lead`` must not wait for them, and dummy goes to them right after the lead."""
    d = Driver(make_machine())
    events = transcript_events()
    boards = [GOLDEN_BOARD]
    for direction, seat, text in events:  # up to the end of the auction
        if direction == "in":
            d.line(seat, text)
            if d.m.phase is Phase.IDLE and boards:
                d.take(d.m.start_board(boards.pop()))
        if d.m.phase is Phase.PLAY:
            break
    for p in SEATS:
        d.drain(p)
    d.line(Player.east, "east ready for dummy")  # lower case, as bridge-player writes it
    d.line(Player.south, "south ready for dummy")
    assert d.drain(Player.west) == []
    d.line(Player.north, "north ready for dummy's card to trick 1")  # bridge-player's dummy
    assert d.drain(Player.west) == ["West to lead"]
    d.line(Player.west, "west plays ac")
    dummy = "Dummy's cards : S A T 4 3. H T 8 5 3. D K T. C K T 6."
    assert d.drain(Player.north) == ["West plays AC"]
    assert d.drain(Player.east) == [dummy] and d.drain(Player.south) == [dummy]
    d.line(Player.east, "east received dummy")  # ignored
    d.line(Player.east, "east ready for west's card to trick 1")
    assert d.drain(Player.east) == ["West plays AC"]
    d.line(Player.south, "south ready for west's card to trick 1")
    d.line(Player.west, "west ready for dummy")
    assert d.drain(Player.south) == ["West plays AC"] and d.drain(Player.west) == [dummy]
    # Play goes on: dummy's card, played by South in North's name.
    for p in (Player.north, Player.east, Player.west):
        d.line(
            p, f"{p.name} ready for {'dummy' if p == Player.north else 'north'}'s card to trick 1"
        )
    d.line(Player.south, "North plays 6C")
    assert d.drain(Player.east) == ["North plays 6C"] and d.drain(Player.south) == []
    # Issue 25: bridge-player's dummy says the same line before every card of the trick. Each is
    # dummy's ready for the next card it is owed, its own included, never a repeat.
    assert d.drain(Player.north) == ["North plays 6C"]
    d.line(Player.north, "north ready for dummy's card to trick 1")  # for East's card
    for p in (Player.south, Player.west):
        d.line(p, f"{p.name} ready for east's card to trick 1")
    d.line(Player.east, "East plays 3C")
    assert d.drain(Player.north) == ["East plays 3C"]
    d.line(Player.north, "north ready for dummy's card to trick 1")  # for South's card
    for p in (Player.east, Player.west):
        d.line(p, f"{p.name} ready for south's card to trick 1")
    d.line(Player.south, "South plays 2C")
    assert d.drain(Player.north) == ["South plays 2C"]
    repeats = d.m.repeats
    d.line(Player.north, "north ready for dummy's card to trick 1")  # one too many: a repeat
    assert d.m.repeats == repeats + 1 and not d.m.queues[Player.north]
    for p in (Player.north, Player.east, Player.south):
        d.line(
            p, f"{p.name} ready for {'dummy' if p == Player.north else 'west'}'s card to trick 2"
        )
    assert d.drain(Player.west)[-1] == "West to lead"  # West won trick 1 with the ace


def test_disconnect_suspends_the_board_and_the_seat_comes_back() -> None:
    d = seated_machine()
    d.take(d.m.start_board(GOLDEN_BOARD))
    for p in SEATS:
        d.line(p, f"{p.name} ready for deal")
    d.m.disconnect(Player.east)
    assert d.m.phase is Phase.SUSPENDED
    d.drain(Player.east)
    with pytest.raises(RemoteProtocolError, match="Team name must be 'B'"):
        d.m.seat_request(Connect(team="C", seat=Player.east))
    d.line(Player.east, 'Connecting "B" as East using protocol version 18')
    d.line(Player.east, "East ready for teams")
    assert d.drain(Player.east) == ['East ("B") seated', 'Teams : N/S : "A" E/W : "B"']
    d.line(Player.east, "East ready to start")
    assert d.m.all_ready
    d.take(d.m.restart_board())
    assert all(d.drain(p)[-1] == "Start of board" for p in SEATS)
    for p in SEATS:
        d.line(p, f"{p.name} ready for deal")
    assert d.drain(Player.east) == ["Board number 1. Dealer North. Neither vulnerable."]


def test_a_seat_late_for_the_last_card_is_what_the_table_waits_for() -> None:
    """After the 52nd card the board is not over until every seat has been sent it; meanwhile
    ``waiting_for``/``describe`` name the late seat (they used to fail with no card due)."""
    d = Driver(make_machine())
    late = "East ready for North's card to trick 13"
    for direction, seat, text in transcript_events():
        if direction == "in" and text != late:
            d.line(seat, text)
        if d.m.phase is Phase.IDLE and not d.m.finished:
            d.take(d.m.start_board(GOLDEN_BOARD))
    assert d.m.phase is Phase.PLAY and d.m.waiting_for() == [Player.east]
    assert d.m.describe() == "play (all cards played); waiting for East"
    d.line(Player.east, late)
    last, timing = d.drain(Player.east)[-2:]
    assert last == "North plays 3S" and timing.startswith("Timing")
    assert d.m.phase is Phase.IDLE and d.m.finished[0].declarer_tricks == 10
