"""The sans-IO seat machine, step by step: lines in, lines out, requests, errors.

The board is board 1 of docs/protocol.md 6.1 (dealer North, nobody vulnerable). The auction used in most
tests is ``1S P 4S P P P``: North declares 4S, South is dummy, East leads.
"""

from __future__ import annotations

import pytest
from bridgebot.laws.calls import DOUBLE
from bridgebot.protocol.codec import parse_call, parse_card, render
from bridgebot.protocol.dialect import Dialect
from bridgebot.protocol.errors import LocalProtocolError, RemoteProtocolError
from bridgebot.protocol.messages import ReadyForCard
from bridgebot.protocol.seat import (
    BoardFinished,
    BoardStarted,
    Event,
    Ignored,
    NeedCall,
    NeedCard,
    Phase,
    SeatMachine,
    Send,
    SessionEnded,
)
from endplay.types import Bid, Player

HANDS = {
    Player.north: "S A T 4 3. H T 8 5 3. D K T. C K T 6.",
    Player.east: "S J 7. H Q 7 6. D Q 8 5. C Q J 8 7 3.",
    Player.south: "S K 9 8 5. H A. D A J 7 6. C 9 5 4 2.",
    Player.west: "S Q 6 2. H K J 9 4 2. D 9 4 3 2. C A.",
}
AUCTION_4S = [(Player.north, "1S"), (Player.east, "P"), (Player.south, "4S"), (Player.west, "P")]
AUCTION_4S += [(Player.north, "P"), (Player.east, "P")]
CALL_LINE = {"P": "{} passes", "X": "{} doubles", "XX": "{} redoubles"}


def bid(text: str) -> Bid:
    """``P``, ``X``, ``XX`` or ``1S`` as a call."""
    name = CALL_LINE.get(text, "{} bids " + text).format("")
    return parse_call(name.strip())


def call_line(seat: Player, call: str) -> str:
    name = seat.name.capitalize()
    return CALL_LINE[call].format(name) if call in CALL_LINE else f"{name} bids {call}"


class Driver:
    """Feeds TM lines to a machine and sorts what comes out: wire lines, requests, notices."""

    def __init__(self, seat: Player | None, **kwargs: object) -> None:
        self.m = SeatMachine("Bots", seat, **kwargs)  # type: ignore[arg-type]
        self.sent: list[str] = []
        self.requests: list[NeedCall | NeedCard] = []
        self.notices: list[Event] = []
        self._take(self.m.connect())

    def _take(self, events: list[Event]) -> None:
        for e in events:
            if isinstance(e, Send):
                self.sent.append(render(e.message))
            elif isinstance(e, NeedCall | NeedCard):
                self.requests.append(e)
            else:
                self.notices.append(e)

    def tm(self, *lines: str) -> Driver:
        for line in lines:
            self._take(self.m.receive_line(line))
        return self

    def call(self, text: str) -> Driver:
        self._take(self.m.answer_call(bid(text)))
        return self

    def card(self, text: str) -> Driver:
        self._take(self.m.answer_card(parse_card(text)))
        return self

    def out(self) -> list[str]:
        """Lines sent since the last ``out()``."""
        lines, self.sent = self.sent, []
        return lines

    def request(self) -> NeedCall | NeedCard:
        assert len(self.requests) == 1, self.requests
        return self.requests.pop()


def seated(seat: Player, **kwargs: object) -> Driver:
    """Connected, seated, teams exchanged, waiting for a board."""
    d = Driver(seat, **kwargs)
    name = seat.name.capitalize()
    d.tm(f'{name} ("Bots") seated', 'Teams : N/S : "Bots" E/W : "Others"')
    assert d.m.phase is Phase.WAIT_BOARD
    d.out()
    return d


def dealt(seat: Player, **kwargs: object) -> Driver:
    d = seated(seat, **kwargs)
    name = seat.name.capitalize()
    d.tm("Start of board", "Board number 1. Dealer North. Neither vulnerable.")
    d.out()
    d.tm(f"{name}'s cards : {HANDS[seat]}")
    return d


def through_auction(d: Driver, auction: list[tuple[Player, str]]) -> Driver:
    """Play ``auction``: our own calls answered, the others' relayed."""
    for seat, call in auction:
        if seat == d.m.seat:
            request = d.request()
            assert isinstance(request, NeedCall)
            d.call(call)
        else:
            d.tm(call_line(seat, call))
    return d


# ------------------------------------------------------------------ connection


def test_connection_and_board_start() -> None:
    d = Driver(Player.south)
    assert d.out() == ['Connecting "Bots" as South using protocol version 18']
    d.tm('South ("Bots") seated')
    assert d.out() == ["South ready for teams"]
    d.tm('Teams : N/S : "Bots" E/W : "Others"')
    assert d.out() == ["South ready to start"]
    d.tm("Start of board")
    assert d.out() == ["South ready for deal"]
    d.tm("Board number 7. Dealer West. Both vulnerable.")
    assert d.out() == ["South ready for cards"]
    assert d.notices == [BoardStarted(7)]
    d.tm(f"South's cards : {HANDS[Player.south]}")
    assert d.out() == ["South ready for West's bid"]
    assert d.m.board is not None and len(d.m.board.hand) == 13


def test_anypl_takes_the_assigned_seat() -> None:
    d = Driver(None)
    assert d.out() == ['Connecting "Bots" as ANYPL using protocol version 18']
    d.tm('WEST ("Bots") seated')
    assert d.m.seat == Player.west
    assert d.out() == ["West ready for teams"]


def test_wrong_seat_or_refusal_is_the_tms_fault_and_leaves_the_state() -> None:
    d = Driver(Player.north)
    with pytest.raises(RemoteProtocolError, match="asked for North but was seated as East"):
        d.tm('East ("Bots") seated')
    assert d.m.phase is Phase.CONNECTING
    with pytest.raises(RemoteProtocolError, match="refused the connection: Seat was already taken"):
        d.tm("Seat was already taken")
    with pytest.raises(RemoteProtocolError, match="refused"):
        d.tm("something else entirely")
    assert d.m.phase is Phase.CONNECTING


def test_tm_lines_in_any_case_and_spacing() -> None:
    d = Driver(Player.east)
    d.tm('EAST ("Bots") SEATED', 'teams: n/s "A" e/w "B"', "START OF BOARD")
    d.tm("board number 2. dealer north. n/s vulnerable.", f"east's cards : {HANDS[Player.east]}")
    assert d.out()[-1] == "East ready for North's bid"
    d.tm("NORTH   PASSES")
    assert isinstance(d.request(), NeedCall)


# ------------------------------------------------------------------ auction


def test_our_call_then_ready_for_the_next_bidder() -> None:
    d = dealt(Player.east)
    assert d.out() == ["East ready for North's bid"]
    d.tm("North bids 1S")
    request = d.request()
    assert isinstance(request, NeedCall)
    assert request.seat == Player.east and request.dealer == Player.north
    assert [str(c) for c in request.auction] == [str(bid("1S"))]
    d.call("2H")
    assert d.out() == ["East bids 2H", "East ready for South's bid"]


def test_illegal_bid_asks_again_with_the_rejected_call() -> None:
    d = dealt(Player.east)
    d.tm("North bids 1S")
    d.request()
    d.call("2H")
    d.out()
    d.tm("Illegal bid")
    request = d.request()
    assert isinstance(request, NeedCall)
    assert [str(c) for c in request.rejected] == [str(bid("2H"))]
    assert len(request.auction) == 1  # our 2H was taken back
    d.call("P")
    assert d.out() == ["East passes", "East ready for South's bid"]
    d.tm("South passes")  # the auction goes on from the corrected call
    assert d.out() == ["East ready for West's bid"]


def test_illegal_bid_out_of_the_blue_is_an_error() -> None:
    d = dealt(Player.east)
    with pytest.raises(RemoteProtocolError, match="no call"):
        d.tm("Illegal bid")
    d.tm("North passes")  # unchanged: still waiting for North
    assert isinstance(d.request(), NeedCall)


def test_call_from_the_wrong_seat_names_it() -> None:
    d = dealt(Player.east)
    with pytest.raises(RemoteProtocolError) as info:
        d.tm("South bids 1C")
    assert info.value.seat == Player.south
    d.tm("North bids 1C")
    assert isinstance(d.request(), NeedCall)


def test_insufficient_relayed_bid_is_rejected() -> None:
    d = dealt(Player.south)
    d.tm("North bids 2S", "East passes")
    d.request()
    with pytest.raises(LocalProtocolError, match="does not outrank"):
        d.m.answer_call(bid("2H"))
    d.call("3S")
    with pytest.raises(RemoteProtocolError, match="does not outrank"):
        d.tm("West bids 2NT")


def test_a_double_of_partners_bid_is_refused_both_ways() -> None:
    """The seat checks calls with the laws (bridgebot.laws.calls), not only sufficiency."""
    d = dealt(Player.south)
    d.tm("North bids 1S", "East passes")
    d.request()
    with pytest.raises(LocalProtocolError, match="not a legal call"):
        d.m.answer_call(DOUBLE)
    d.call("2S")
    with pytest.raises(RemoteProtocolError, match="not a legal call"):
        d.tm("West redoubles")
    d.tm("West doubles")  # of the opponents' 2S: fine
    assert d.m.board is not None and len(d.m.board.auction) == 4


def test_alertable_call_goes_out_with_alert() -> None:
    d = dealt(Player.north)
    d.request()
    call = bid("2C")
    call.alertable = True
    call.announcement = "Strong"
    d._take(d.m.answer_call(call))
    assert d.out()[0] == "North bids 2C Alert. Strong"


def test_passed_out_board_goes_back_to_waiting() -> None:
    d = dealt(Player.west)
    through_auction(d, [(p, "P") for p in (Player.north, Player.east, Player.south, Player.west)])
    assert d.m.phase is Phase.WAIT_BOARD
    assert d.notices[-1] == BoardFinished(1, True, None)
    d.tm(
        "Timing - N/S : this board  00:01,  total  0:00:01.  E/W : this board  00:01,  total  0:00:01."
    )
    d.tm("Start of board")
    assert d.out()[-1] == "West ready for deal"


# ------------------------------------------------------------------ play


def test_defender_sequence_with_lead_and_dummy() -> None:
    """East is the opening leader against 4S by North: awaits ``to lead``, leads, then asks for
    dummy and sends nothing more until dummy's cards arrive."""
    d = through_auction(dealt(Player.east), AUCTION_4S)
    out = d.out()
    assert "East ready for dummy" not in out and d.requests == []  # no card before "to lead"
    d.tm("East to lead")
    request = d.request()
    assert isinstance(request, NeedCard) and request.player == Player.east
    assert request.dummy is None and request.contract.declarer == Player.north
    d.card("CQ")
    assert d.out() == ["East plays QC", "East ready for dummy"]
    d.tm(f"Dummy's cards : {HANDS[Player.south]}")
    assert d.out() == ["East ready for South's card to trick 1"]
    d.tm("South plays 2C")
    assert d.out() == ["East ready for West's card to trick 1"]
    d.tm("West plays AC")
    assert d.out() == ["East ready for North's card to trick 1"]
    d.tm("North plays 6C")
    # West won trick 1 with the ace: East now waits for West's lead.
    assert d.out() == ["East ready for West's card to trick 2"]


def test_declarer_plays_dummy_and_awaits_dummy_to_lead() -> None:
    d = through_auction(dealt(Player.north), AUCTION_4S)
    assert d.out()[-1] == "North ready for East's card to trick 1"
    d.tm("East plays QC")
    assert d.out() == ["North ready for dummy"]
    assert d.requests == []
    d.tm(f"Dummy's cards : {HANDS[Player.south]}")
    request = d.request()
    assert isinstance(request, NeedCard)
    assert request.player == Player.south and request.controller == Player.north
    assert request.holding is request.dummy
    d.card("C2")
    assert d.out() == ["South plays 2C", "North ready for West's card to trick 1"]
    d.tm("West plays AC")
    d.request()
    d.card("CK")
    assert d.out() == ["North plays KC", "North ready for West's card to trick 2"]
    # Trick 2: West (who won with the ace) leads, North, East, then dummy's ace wins.
    d.tm("West plays 2D")
    assert isinstance(d.request(), NeedCard)
    d.card("DT")
    d.tm("East plays 5D")
    request = d.request()
    assert isinstance(request, NeedCard) and request.player == Player.south
    d.card("DA")
    # South (dummy) won trick 2: declarer must wait for the lead cue, in either wording.
    assert d.requests == []
    d.tm("NORTH to lead")  # WBridge5/OpenSpiel style: declarer's own name for dummy's lead
    request = d.request()
    assert isinstance(request, NeedCard) and request.player == Player.south


def test_dummy_only_sends_ready_messages() -> None:
    d = through_auction(dealt(Player.south), AUCTION_4S)
    assert d.out() == [
        "South ready for North's bid",
        "South ready for East's bid",
        "South bids 4S",
        "South ready for West's bid",
        "South ready for North's bid",
        "South ready for East's bid",
        "South ready for East's card to trick 1",
    ]
    d.tm("East plays QC")
    assert d.out() == ["South ready for dummy's card to trick 1"]  # no "ready for dummy"
    d.tm("South plays 2C")  # declarer plays our card; we see it relayed
    assert d.out() == ["South ready for West's card to trick 1"]
    assert d.m.board is not None and len(d.m.board.hand) == 12
    d.tm("West plays AC", "North plays 6C")
    assert d.out() == [
        "South ready for North's card to trick 1",
        "South ready for West's card to trick 2",
    ]
    assert d.requests == []
    with pytest.raises(RemoteProtocolError, match="does not hold"):
        d.tm("West plays 4D", "North plays KD", "East plays 5D", "South plays QD")


@pytest.mark.parametrize(
    ("form", "defender", "dummy"),
    [
        (
            "self",
            "East ready for South's card to trick 1",
            "South ready for dummy's card to trick 1",
        ),
        (
            "all",
            "East ready for dummy's card to trick 1",
            "South ready for dummy's card to trick 1",
        ),
        (
            "never",
            "East ready for South's card to trick 1",
            "South ready for South's card to trick 1",
        ),
    ],
)
def test_dummys_ready_form_dialects(form: str, defender: str, dummy: str) -> None:
    east = through_auction(dealt(Player.east, dummy_form=form), AUCTION_4S)
    east.tm("East to lead")
    east.request()
    east.card("CQ")
    east.tm(f"Dummy's cards : {HANDS[Player.south]}")
    assert east.out()[-1] == defender
    south = through_auction(dealt(Player.south, dummy_form=form), AUCTION_4S)
    south.tm("East plays QC")
    assert south.out()[-1] == dummy


def test_early_dummy_dialect_asks_right_after_the_auction() -> None:
    """bridge-player: declarer and leader's partner ask for dummy before the lead and wait."""
    north = dealt(Player.north, dialect=Dialect(early_dummy=True))
    through_auction(north, AUCTION_4S)
    assert north.out()[-1] == "North ready for dummy"
    assert north.m.board is not None and north.m.board.awaiting_dummy
    north.tm(f"Dummy's cards : {HANDS[Player.south]}")
    assert north.out() == ["North ready for East's card to trick 1"]
    north.tm("East plays QC")
    assert north.out() == []  # dummy already seen: no second "ready for dummy"
    assert isinstance(north.request(), NeedCard)
    # The opening leader cannot see dummy before leading: it keeps the normal order.
    east = dealt(Player.east, dialect=Dialect(early_dummy=True))
    through_auction(east, AUCTION_4S)
    assert "East ready for dummy" not in east.out()


def test_illegal_card_asks_again() -> None:
    d = through_auction(dealt(Player.east), AUCTION_4S)
    d.tm("East to lead")
    d.request()
    d.card("CQ")
    d.out()
    d.tm("Illegal card")
    request = d.request()
    assert isinstance(request, NeedCard) and [str(c) for c in request.rejected] == [
        str(parse_card("CQ"))
    ]
    assert request.played == () and len(request.hand) == 13
    d.card("SJ")
    assert d.out() == ["East plays JS", "East ready for dummy"]


def test_revoke_checks() -> None:
    d = through_auction(dealt(Player.north), AUCTION_4S)
    d.tm("East plays QC", f"Dummy's cards : {HANDS[Player.south]}")
    d.request()
    with pytest.raises(LocalProtocolError, match="follow suit"):
        d.m.answer_card(parse_card("SK"))
    with pytest.raises(LocalProtocolError, match="does not hold"):
        d.m.answer_card(parse_card("SA"))
    d.card("C2")
    with pytest.raises(RemoteProtocolError, match="already played"):
        d.tm("West plays QC")
    with pytest.raises(RemoteProtocolError, match="another hand we see holds"):
        d.tm("West plays KC")


def test_a_card_from_the_wrong_player_is_rejected() -> None:
    d = through_auction(dealt(Player.west), AUCTION_4S)
    with pytest.raises(RemoteProtocolError) as info:
        d.tm("South plays 2C")
    assert info.value.seat == Player.south
    assert d.m.board is not None and d.m.board.played == []


# ------------------------------------------------------------------ anywhere


def test_timing_and_teams_are_ignored_mid_board() -> None:
    d = dealt(Player.east)
    d.out()
    d.tm("Timing - N/S : this board  [1:15]", 'Teams : N/S : "Bots" E/W : "Others"')
    assert d.out() == []
    assert [type(n) for n in d.notices[-2:]] == [Ignored, Ignored]
    d.tm("North passes")
    assert isinstance(d.request(), NeedCall)


def test_mid_board_start_of_board_restarts_and_voids_the_request() -> None:
    d = through_auction(dealt(Player.north), AUCTION_4S)
    d.tm("East plays QC", f"Dummy's cards : {HANDS[Player.south]}")
    stale = d.request()
    assert d.m.pending is stale
    d.out()
    d.tm("Start of board")
    assert d.m.pending is None and d.m.board is None
    assert d.out() == ["North ready for deal"]
    with pytest.raises(LocalProtocolError):
        d.m.answer_card(parse_card("C2"))
    d.tm("Board number 1. Dealer North. Neither vulnerable.")
    assert d.notices[-1] == BoardStarted(1)
    assert d.out() == ["North ready for cards"]
    d.tm(f"North's cards : {HANDS[Player.north]}")
    assert isinstance(d.request(), NeedCall)


def test_end_of_session_and_bridge_moniteur_ns_line() -> None:
    d = seated(Player.south)
    d.tm("End of session")
    assert d.m.ended and d.notices[-1] == SessionEnded(0)
    with pytest.raises(RemoteProtocolError, match="after End of session"):
        d.tm("Start of board")
    other = dealt(Player.south)
    other.tm("NS: 10 EW: 3")
    assert other.m.ended


def test_ready_card_message_type() -> None:
    """The dummy's form really is ReadyForCard(player=None) (what the TM compares)."""
    d = through_auction(dealt(Player.south), AUCTION_4S)
    d.tm("East plays QC")
    assert render(ReadyForCard(Player.south, None, 1)) in d.out()


def test_to_lead_before_the_tricks_last_card_is_kept() -> None:
    """Our own TM once sent ``East to lead`` before relaying the trick's fourth card (when East's
    ready message came late); the cue must not be lost, or the board deadlocks."""
    d = through_auction(dealt(Player.west), AUCTION_4S)
    d.tm("East plays QC")
    d.tm(f"Dummy's cards : {HANDS[Player.south]}", "South plays 2C")
    d.request()
    d.card("CA")  # West wins trick 1 with the ace; North's card is still to come
    d.tm("West to lead")  # early
    assert d.requests == []
    d.tm("North plays 6C")
    request = d.request()
    assert isinstance(request, NeedCard) and request.player == Player.west
    assert len(request.played) == 4


def test_early_cue_for_a_lead_we_do_not_make_is_dropped() -> None:
    """A stray early cue while East is to win the trick must not make us lead later."""
    d = through_auction(dealt(Player.north), AUCTION_4S)
    d.tm("East plays SJ", f"Dummy's cards : {HANDS[Player.south]}")
    d.request()
    d.card("S5")  # dummy's low spade
    d.tm("North to lead")  # early and wrong: West's card is still to come
    d.tm("West plays S2")
    d.request()
    d.card("S3")  # East's jack wins trick 1
    assert d.m.board is not None and not d.m.board.lead_cue
    assert d.out()[-1] == "North ready for East's card to trick 2"


def test_dummys_card_relayed_before_dummys_hand_is_accepted() -> None:
    """A TM may relay dummy's first card before answering our ``ready for dummy``; the full
    13-card hand that follows then loses the card already played."""
    d = through_auction(dealt(Player.west), AUCTION_4S)
    d.tm("East plays QC")
    assert d.out()[-1] == "West ready for dummy"
    d.tm("South plays 2C")
    assert d.out() == []  # nothing more until dummy's cards
    d.tm(f"Dummy's cards : {HANDS[Player.south]}")
    request = d.request()
    assert isinstance(request, NeedCard) and request.dummy is not None
    assert len(request.dummy) == 12 and len(request.played) == 2


PROBES = [
    "Board number 9. Dealer East. Both vulnerable.",
    "West's cards : S Q 6 2. H K J 9 4 2. D 9 4 3 2. C A.",
    "Dummy's cards : S K 9 8 5. H A. D A J 7 6. C 9 5 4 2.",
    "North plays 2C",
    "East bids 7NT",
    "Illegal card",
    "Illegal bid",
    'South ("Bots") seated',
]


def _fingerprint(m: SeatMachine) -> tuple[object, ...]:
    b = m.board
    board = None
    if b is not None:
        board = (
            b.number, str(b.hand), [str(c) for c in b.auction], str(b.contract),
            str(b.dummy_hand), [(p, str(c)) for p, c in b.played], b.leader,
            b.awaiting_dummy, b.ready_sent, b.lead_cue,
        )  # fmt: skip
    return (m.phase, m.pending, m.boards_finished, board)


def test_a_rejected_message_leaves_the_machine_unchanged_at_every_step() -> None:
    """h11-style: at each point of a whole board (South, declarer, from the 6.1 transcript), every
    probe the machine rejects leaves phase, request and board exactly as they were."""
    from pathlib import Path

    from bridgebot.server.testing import agent_script, seat_script

    steps = seat_script(
        Path(__file__).resolve().parent.parent / "peers" / "transcript_6_1.txt", Player.south
    )
    script = agent_script(steps)
    tm_lines = [s.line for s in steps if s.kind == "send"]

    def feed(d: Driver, line: str) -> None:
        """One TM line, then our scripted answers to whatever it asks."""
        d.tm(line)
        while d.requests:
            r = d.requests.pop()
            if isinstance(r, NeedCall):
                d._take(d.m.answer_call(d.calls.pop(0)))  # type: ignore[attr-defined]
            else:
                d._take(d.m.answer_card(d.cards.pop(0)))  # type: ignore[attr-defined]

    def replay(n: int) -> Driver:
        d = Driver(Player.south)
        d.calls, d.cards = list(script.calls), list(script.cards)  # type: ignore[attr-defined]
        for line in tm_lines[:n]:
            feed(d, line)
        return d

    d = replay(0)
    rejected = 0
    for n, line in enumerate(tm_lines):
        for probe in PROBES:
            before = _fingerprint(d.m)
            try:
                d.m.receive_line(probe)
            except RemoteProtocolError:
                rejected += 1
                assert _fingerprint(d.m) == before, (n, probe)
            else:
                d = replay(n)  # the probe was acceptable here: rebuild the true state
        feed(d, line)
    assert d.m.ended
    assert rejected > len(PROBES) * len(tm_lines) * 3 // 4
