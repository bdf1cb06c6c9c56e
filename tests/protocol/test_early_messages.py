"""The one rule for messages that arrive early (``protocol/table.py`` rule 2, docs/protocol.md).

A ``ready for ...`` line may arrive early and waits its turn; one repeating a ready line already
taken is ignored; a call or card is taken if it is that seat's turn, otherwise refused at once,
and the seat's queue goes on. Each case below once jammed the table or dropped a seat.
"""

from __future__ import annotations

import pytest
from bridgebot.protocol.errors import RemoteProtocolError
from bridgebot.protocol.table import Phase
from endplay.types import Player

from tests.protocol.test_table import (
    GOLDEN_BOARD,
    SEATS,
    Driver,
    seated_machine,
    transcript_events,
)


def at_auction() -> Driver:
    d = seated_machine()
    d.take(d.m.start_board(GOLDEN_BOARD))
    for p in SEATS:
        d.line(p, f"{p.name} ready for deal")
    for p in SEATS:
        d.line(p, f"{p.name} ready for cards")
    for p in SEATS:
        d.drain(p)
    return d


def at_play() -> Driver:
    """The golden board, fed from its transcript up to the end of the auction."""
    d = Driver(seated_machine().m)
    d.take(d.m.start_board(GOLDEN_BOARD))
    for direction, seat, text in transcript_events():
        if d.m.phase is Phase.PLAY:
            break
        handshake = "Connecting" in text or "ready for teams" in text or "ready to start" in text
        if direction == "in" and not handshake:
            d.line(seat, text)
    assert d.m.phase is Phase.PLAY
    for p in SEATS:
        d.drain(p)
    return d


def test_a_card_during_the_auction_is_refused_and_does_not_jam_the_table() -> None:
    """The jam of issue 11: South's card during the auction used to wait in South's queue for
    the play, and every later ``ready for`` of South waited behind it for ever."""
    d = at_auction()
    d.line(Player.south, "South ready for North's bid")
    with pytest.raises(RemoteProtocolError, match="South") as err:
        d.line(Player.south, "South plays 9S")
    assert "auction" in str(err.value)
    assert not d.m.queues[Player.south]
    for p in (Player.east, Player.west):
        d.line(p, f"{p.name} ready for North's bid")
    d.line(Player.north, "North passes")
    assert d.drain(Player.south) == ["North passes"]
    for p in (Player.south, Player.west, Player.north):
        d.line(p, f"{p.name} ready for East's bid")
    d.line(Player.east, "East passes")
    assert d.drain(Player.south) == ["East passes"]  # relayed: South is not stuck
    assert d.m.waiting_for()[0] == Player.south


def test_a_call_during_the_play_is_refused_at_once() -> None:
    d = at_play()
    with pytest.raises(RemoteProtocolError, match="East: a call from East in the play phase"):
        d.line(Player.east, "East bids 1C")
    assert all(not q for q in d.m.queues.values())
    for p in (Player.north, Player.east, Player.south):
        d.line(p, f"{p.name} ready for West's card to trick 1")
    assert d.drain(Player.west) == ["West to lead"]


def test_a_card_for_another_seat_is_refused_at_once() -> None:
    d = at_play()
    with pytest.raises(RemoteProtocolError, match="East: West is to play West's card, not East"):
        d.line(Player.east, "East plays 2C")
    with pytest.raises(RemoteProtocolError, match=r"North: West is to play West.s card, not North"):
        d.line(Player.north, "North plays 6C")  # dummy (North) never plays: declarer does
    for p in (Player.north, Player.east, Player.south):
        d.line(p, f"{p.name} ready for West's card to trick 1")
    d.line(Player.west, "West plays AC")
    assert d.drain(Player.east) == ["West plays AC"]


def test_a_whole_auction_in_one_burst_takes_the_first_call_and_refuses_the_rest() -> None:
    """Issue 16: a seat that sends several calls at once must not desync the auction; every
    extra call is refused (the shell answers each with an error line), none is dropped silently."""
    d = at_auction()
    refused = []
    for text in ("North passes", "North bids 1C", "North bids 2C", "North ready for East's bid"):
        try:
            d.line(Player.north, text)
        except RemoteProtocolError as exc:
            refused.append(str(exc))
    assert len(refused) == 2
    assert all(r.startswith("North: a second call before the first was relayed") for r in refused)
    for p in (Player.east, Player.south, Player.west):
        d.line(p, f"{p.name} ready for North's bid")
    assert d.drain(Player.east) == ["North passes"]  # the first call, relayed once
    assert (
        d.m.current is not None
        and len(d.m.current.auction) == 1
        and d.m.waiting_for()[0] == Player.east
    )


def test_repeated_ready_lines_are_ignored_not_refused() -> None:
    """Ben re-sends ``ready for deal`` after a restart; a repeat of any ready line already taken
    is harmless and must not count against the seat."""
    d = seated_machine()
    d.take(d.m.start_board(GOLDEN_BOARD))
    d.line(Player.north, "North ready for deal")
    d.line(Player.north, "North ready for deal")  # before the board line
    for p in SEATS[1:]:
        d.line(p, f"{p.name} ready for deal")
    d.line(Player.north, "North ready for deal")  # after the board line
    for p in SEATS:
        d.line(p, f"{p.name} ready for cards")
    d.line(Player.east, "East ready for cards")
    d.line(Player.east, "East ready for North's bid")
    d.line(Player.east, "East ready for North's bid")
    assert d.m.repeats == 4 and not d.m.queues[Player.north] and not d.m.queues[Player.east]
    assert d.m.phase is Phase.AUCTION


def test_an_early_ready_for_a_later_phase_does_not_hold_up_the_lines_behind_it() -> None:
    d = at_auction()
    d.line(Player.south, "South ready for West's card to trick 1")  # early: waits for the play
    d.line(Player.south, "South ready for North's bid")  # fits now: taken past it
    for p in (Player.east, Player.west):
        d.line(p, f"{p.name} ready for North's bid")
    d.line(Player.north, "North passes")
    assert d.drain(Player.south) == ["North passes"]
    assert len(d.m.queues[Player.south]) == 1


def test_dummy_asked_twice_is_a_harmless_repeat() -> None:
    d = at_play()
    d.line(Player.east, "East ready for dummy")
    d.line(Player.east, "East ready for dummy")
    assert d.m.repeats == 1


def test_a_ready_line_repeated_while_the_first_still_waits_is_dropped_with_it() -> None:
    """Both copies arrive early; once the first is taken the second is a repeat, not a line
    that would later be refused for being out of date."""
    d = at_auction()
    d.line(Player.north, "North passes")  # not relayed until the others are ready for it
    d.line(Player.north, "North ready for East's bid")  # early: North's call is pending
    d.line(Player.north, "North ready for East's bid")
    assert len(d.m.queues[Player.north]) == 2
    for p in (Player.east, Player.west, Player.south):
        d.line(p, f"{p.name} ready for North's bid")
    assert not d.m.queues[Player.north] and d.m.repeats == 1
    d.line(Player.south, "South ready for East's bid")
    d.line(Player.west, "West ready for East's bid")
    d.line(Player.east, "East passes")
    assert d.drain(Player.north)[-1] == "East passes"


# ---------------------------------------------------------------- card-level ready lines (issue 25)


def golden_with(rewrite: dict[Player, str]) -> tuple[Driver, dict[Player, list[str]]]:
    """The golden board fed in transcript order, each seat of ``rewrite`` writing its ready lines
    for cards in that form (``dummy``: ``<seat> ready for dummy's card to trick <t>`` for every
    card); returns the driver and what the transcript has the table send each seat."""
    d = Driver(seated_machine().m)
    d.take(d.m.start_board(GOLDEN_BOARD))
    expected: dict[Player, list[str]] = {p: [] for p in SEATS}
    for direction, seat, text in transcript_events():
        handshake = "Connecting" in text or "ready for teams" in text or "ready to start" in text
        if direction == "out":
            if not handshake and "seated" not in text and not text.startswith(("Teams", "Timing")):
                expected[seat].append(text)
            continue
        if handshake:
            continue
        if seat in rewrite and " card to trick " in text:
            text = f"{seat.name.lower()} ready for dummy's card to trick {text.split()[-1]}"
        d.line(seat, text)
        if d.m.phase is Phase.IDLE:
            d.take(d.m.end_session())
    return d, expected


def test_bridge_players_dummy_says_the_same_line_before_every_card_and_gets_every_card() -> None:
    """Issue 25: North (dummy) says ``north ready for dummy's card to trick t`` before each of the
    52 cards, its own included. Each line is its ready for the next card it is owed: the table
    must send every seat exactly what the golden transcript has, and end the board."""
    d, expected = golden_with({Player.north: "dummy"})
    assert d.m.repeats == 0 and not d.m.take_errors()
    for p in SEATS:  # the Timing line's figures depend on the clock, not on the lines
        assert [x for x in d.drain(p) if not x.startswith("Timing")] == expected[p], p
    assert d.m.finished[0].declarer_tricks == 10


def test_a_named_card_line_said_again_within_its_trick_is_a_repeat() -> None:
    d = at_play()
    d.line(Player.east, "East ready for West's card to trick 1")
    d.line(Player.east, "East ready for West's card to trick 1")  # East is owed North's card next
    assert d.m.repeats == 1 and not d.m.queues[Player.east]
    for p in (Player.north, Player.south):
        d.line(p, f"{p.name} ready for West's card to trick 1")
    assert d.drain(Player.west) == ["West to lead"]


def test_dummys_line_said_once_too_often_puts_it_one_card_ahead_and_costs_nothing() -> None:
    """Dummy's form from dummy fits every card, so a line too many is dummy's ready for the card
    after; its last line for the trick is then a repeat, not an error and not a line that waits."""
    d = at_play()
    for _ in range(5):
        d.line(Player.north, "North ready for dummy's card to trick 1")
    assert d.m.repeats == 1 and not d.m.queues[Player.north]


def test_early_copies_of_dummys_line_for_the_next_trick_are_each_kept() -> None:
    """Two identical early lines for trick 2 are dummy's ready for its first two cards: the second
    must not be dropped as a copy of the first (the table used to drop queued copies)."""
    d = at_play()
    for _ in range(4):
        d.line(Player.north, "North ready for dummy's card to trick 1")
    d.line(Player.north, "North ready for dummy's card to trick 2")
    d.line(Player.north, "North ready for dummy's card to trick 2")
    assert len(d.m.queues[Player.north]) == 2 and d.m.repeats == 0
    play_trick_1(d)
    assert not d.m.queues[Player.north] and d.m.repeats == 0
    for p in (Player.east, Player.south):
        d.line(p, f"{p.name} ready for West's card to trick 2")
    d.line(Player.west, "West plays KH")
    assert d.drain(Player.north)[-1] == "West plays KH"
    d.line(Player.east, "East ready for North's card to trick 2")
    d.line(Player.west, "West ready for North's card to trick 2")
    d.line(Player.south, "North plays 3H")
    assert d.drain(Player.north)[-1] == "North plays 3H"  # dummy's own card, asked for early


def play_trick_1(d: Driver) -> None:
    """Trick 1 of the golden board (West AC, North 6C, East 3C, South 2C), North's ready lines
    already said; the others ask for dummy after the lead."""
    for p in (Player.east, Player.south):
        d.line(p, f"{p.name} ready for West's card to trick 1")
    d.line(Player.west, "West plays AC")
    for p in (Player.east, Player.south, Player.west):
        d.line(p, f"{p.name} ready for dummy")
    for p in (Player.east, Player.west):
        d.line(p, f"{p.name} ready for North's card to trick 1")
    d.line(Player.south, "North plays 6C")
    for p in (Player.south, Player.west):
        d.line(p, f"{p.name} ready for East's card to trick 1")
    d.line(Player.east, "East plays 3C")
    for p in (Player.east, Player.west):
        d.line(p, f"{p.name} ready for South's card to trick 1")
    d.line(Player.south, "South plays 2C")
    assert d.m.current is not None and d.m.current.play is not None
    assert d.m.current.play.leader == Player.west


def test_a_card_line_for_a_finished_trick_is_a_repeat_or_refused_at_once() -> None:
    """A line for a trick the seat has asked for in full is a repeat if it fits one of the cards
    it asked for; otherwise it is refused at once: it must never wait in the queue (a card of
    the seat's could be stuck behind it)."""
    d = at_play()
    for _ in range(4):
        d.line(Player.north, "North ready for dummy's card to trick 1")
    play_trick_1(d)
    d.line(Player.east, "East ready for West's card to trick 1")  # a repeat: ignored
    assert d.m.repeats == 1
    with pytest.raises(RemoteProtocolError, match="East: ready for trick 1, but its next card is"):
        d.line(Player.east, "East ready for East's card to trick 1")  # East's own card
    assert not d.m.queues[Player.east]
