"""The variant matrix: every input form of docs/protocol.md sections 2 and 4 that real peers send.

One row per variant; the comment names the peer that sends it (or the source that shows it). Each
row states the message we must read out of the line, so a tolerance that reads the wrong thing
fails as surely as one that rejects.
"""

from __future__ import annotations

import pytest
from bridgebot.protocol import (
    BoardInfo,
    CallMsg,
    Cards,
    Connect,
    Direction,
    DummyCards,
    EndOfSession,
    ErrorText,
    IllegalBid,
    IllegalCard,
    Message,
    PlayMsg,
    ReadyForBid,
    ReadyForCard,
    ReadyForCards,
    ReadyForDeal,
    ReadyForDummy,
    ReadyForTeams,
    ReadyToStart,
    ReceivedDummy,
    Seated,
    StartOfBoard,
    Teams,
    Timing,
    ToLead,
    parse,
    render,
)
from endplay.types import Hand, Player, Vul

from tests.protocol.cases import DOUBLE, PASS, REDOUBLE, bid, card

N, E, S, W = Player.north, Player.east, Player.south, Player.west
TO, FROM = Direction.TO_TM, Direction.FROM_TM

OPENSPIEL_EAST = Hand("Q9.AT5.A87.AJT96")
LOG_2018_DUMMY = Hand("QJT..Q965.KQJ752")
VOID_HEARTS = Hand("AK3..QJT98.76542")

VARIANTS: list[tuple[Direction, str, Message]] = [
    # ---- Connecting (2.1 #1)
    (TO, 'Connecting "Bots" as NORTH using protocol version 18', Connect("Bots", N)),  # WBridge5
    (
        TO,
        'Connecting "Bots" as north using protocol version 18',
        Connect("Bots", N),
    ),  # bridge-player
    (
        TO,
        'Connecting "WBridge5" as ANYPL using protocol version 18',
        Connect("WBridge5", None),
    ),  # WBridge5 Autoconnect
    (
        TO,
        'connecting "Bots" as anypl using protocol version 18',
        Connect("Bots", None),
    ),  # case folded
    (
        TO,
        'Connecting "Robo" as South using protocol version 19 sayc',
        Connect("Robo", S, 19, "sayc"),
    ),  # ComputerBridge client (S5)
    (
        TO,
        'Connecting "Robo" as South using protocol version 19 ',
        Connect("Robo", S, 19),
    ),  # ComputerBridge newer client: trailing space (S4)
    (
        TO,
        'Connecting "Z" as West using protocol version 20',
        Connect("Z", W, 20),
    ),  # ZBridge advanced
    (
        TO,
        'Connecting "Ben" as East using protocol version 18 Ben 2-over-1 GIB',
        Connect("Ben", E, 18, "Ben 2-over-1 GIB"),
    ),  # Ben --sendinfo
    (
        TO,
        "Connecting Bots as North using protocol version 18",
        Connect("Bots", N),
    ),  # unquoted: tolerated
    (
        TO,
        'Connecting  "Two  Spaces"  as  North using protocol version 18',
        Connect("Two Spaces", N),
    ),  # double spaces collapse
    # ---- ready messages
    (TO, "NORTH ready for teams", ReadyForTeams(N)),  # WBridge5
    (TO, "north ready for teams", ReadyForTeams(N)),  # bridge-player
    (TO, "EAST ready to start", ReadyToStart(E)),  # WBridge5
    (TO, "North ready for deal.", ReadyForDeal(N)),  # old Ben (lorserker/ben#59)
    (TO, "North ready for cards.", ReadyForCards(N)),  # old Ben
    (TO, "North ready for dummy.", ReadyForDummy(N)),  # old Ben
    (TO, "EAST ready for NORTH's bid", ReadyForBid(E, N)),  # WBridge5
    (
        TO,
        "WEST ready for  NORTH's bid",
        ReadyForBid(W, N),
    ),  # WBridge5 double space (OpenSpiel comment)
    (TO, "EAST ready for north's bid", ReadyForBid(E, N)),  # ComputerBridge WBridge5 test (S5)
    (TO, "EAST ready for SOUTH's card to trick 1", ReadyForCard(E, S, 1)),  # WBridge5
    (
        TO,
        "North ready for dummy's card to trick 10",
        ReadyForCard(N, None, 10),
    ),  # spec / Ben / bridge_env
    (
        TO,
        "North ready for Dummy's card to trick 2",
        ReadyForCard(N, None, 2),
    ),  # ComputerBridge host's "Dummy's"
    (TO, "East ready for North's card to trick 3", ReadyForCard(E, N, 3)),  # ComputerBridge clients
    (TO, "North received dummy", ReceivedDummy(N)),  # GIB (ComputerBridge emulation), bridge-player
    (TO, "south received dummy", ReceivedDummy(S)),  # bridge-player lower case
    (TO, "North ready for teams\r\n", ReadyForTeams(N)),  # CRLF terminator left on
    (TO, "North ready for teams\n", ReadyForTeams(N)),  # LF (.NET on Linux, OpenSpiel)
    (TO, "North ready for teams\r", ReadyForTeams(N)),  # bare CR
    (TO, "  North ready for teams  ", ReadyForTeams(N)),  # stray blanks
    # ---- calls (2.3)
    (TO, "EAST PASSES", CallMsg(E, PASS)),  # WBridge5
    (TO, "NORTH DOUBLES", CallMsg(N, DOUBLE)),  # WBridge5
    (TO, "north redoubles", CallMsg(N, REDOUBLE)),  # bridge-player
    (TO, "EAST bids 1NT", CallMsg(E, bid("1NT"))),  # WBridge5 keeps "bids" lower case
    (TO, "East bids 1N", CallMsg(E, bid("1NT"))),  # Ben's internal N
    (TO, "East bids 3nt", CallMsg(E, bid("3NT"))),  # lower case
    (TO, "North doubles.", CallMsg(N, DOUBLE)),  # TableMoniteur (ComputerBridge comment 24-07-09)
    (TO, "EAST bids 4C Alert.", CallMsg(E, bid("4C"), alert="")),  # WBridge5 bare alert
    (TO, "North doubles Alert. ", CallMsg(N, DOUBLE, alert="")),  # 2018 events.log trailing space
    (
        TO,
        "EAST bids 2S Alert.H5*C5",
        CallMsg(E, bid("2S"), alert="H5*C5"),
    ),  # ComputerBridge tests, no space
    (
        TO,
        "North bids 1NT alert. 15 to 17 total points.",
        CallMsg(N, bid("1NT"), alert="15 to 17 total points."),
    ),  # case of keyword
    (
        TO,
        "North bids 2C Infos. Strong, artificial.",
        CallMsg(N, bid("2C"), info="Strong, artificial."),
    ),  # ComputerBridge Infos.
    (
        TO,
        "North bids 2C. Alert. Strong",
        CallMsg(N, bid("2C"), alert="Strong"),
    ),  # full stop after the call, then alert
    (
        TO,
        "North bids 2C Alert. 2+ clubs Rescue.",
        CallMsg(N, bid("2C"), alert="2+ clubs Rescue."),
    ),  # Ben --sendinfo, rescue bid
    (
        TO,
        "North passes Infos. Rescue.",
        CallMsg(N, PASS, info="Rescue."),
    ),  # Ben --sendinfo, repeated explanation
    (TO, "North bids 2C Alert. ", CallMsg(N, bid("2C"), alert="")),  # Ben with an empty explanation
    (FROM, "North passes", CallMsg(N, PASS)),  # relayed call
    (
        FROM,
        "West bids 2D Alert. Multi",
        CallMsg(W, bid("2D"), alert="Multi"),
    ),  # v19 relay to opponents
    # ---- cards (2.4)
    (TO, "EAST plays 9s", PlayMsg(E, card("9S"))),  # WBridge5 lower-case card
    (TO, "WEST plays kd", PlayMsg(W, card("KD"))),  # WBridge5 declarer playing dummy's card
    (TO, "North plays SA", PlayMsg(N, card("AS"))),  # suit-rank (bridge_env parses it)
    (TO, "North plays 10h", PlayMsg(N, card("TH"))),  # a 10 for the ten
    (TO, "Dummy plays 8C", PlayMsg(None, card("8C"))),  # the spec's form (ComputerBridge comment)
    (
        TO,
        "North plays 4S. Encouraging",
        PlayMsg(N, card("4S"), note="Encouraging"),
    ),  # Ben --sendcardinfo
    (TO, "North plays 4S.", PlayMsg(N, card("4S"))),  # trailing full stop, no note
    (
        FROM,
        "North plays 4S. count: odd",
        PlayMsg(N, card("4S"), note="count: odd"),
    ),  # ComputerBridge v19 signal
    (FROM, "SOUTH plays 7s", PlayMsg(S, card("7S"))),  # OpenSpiel to WBridge5
    (FROM, "NORTH plays ks", PlayMsg(N, card("KS"))),  # OpenSpiel to WBridge5
    # ---- seated (2.1 #2)
    (FROM, 'North ("Bots") seated', Seated(N, "Bots")),  # spec, ComputerBridge
    (FROM, 'EAST ("WBridge5") seated', Seated(E, "WBridge5")),  # OpenSpiel
    (FROM, 'North "Bots" seated', Seated(N, "Bots")),  # ZBridge
    (FROM, "North Bots seated", Seated(N, "Bots")),  # bridge_env
    (FROM, "south emanon seated", Seated(S, "emanon")),  # Bridge Moniteur (table-master-parser)
    (FROM, "North Two Words seated", Seated(N, "Two Words")),  # bare, several words
    # ---- Teams (2.1 #4)
    (
        FROM,
        'Teams : N/S : "RoboNS" E/W : "RoboEW"',
        Teams("RoboNS", "RoboEW"),
    ),  # ComputerBridge, bridge_env
    (FROM, 'Teams : N/S : "A". E/W : "B"', Teams("A", "B")),  # the spec
    (FROM, 'Teams : N/S : "A" E/W : "B". Playing IMP', Teams("A", "B", "IMP")),  # ComputerBridge
    (FROM, 'Teams : N/S : "A" E/W : "B". Playing MP', Teams("A", "B", "MP")),  # ComputerBridge
    (
        FROM,
        'Teams : N/S : "A" E/W : "B". Playing IMP\'',
        Teams("A", "B", "IMP"),
    ),  # Protocol.cs typo (S4)
    (
        FROM,
        'Teams: N/S "north-south" E/W "east-west"',
        Teams("north-south", "east-west"),
    ),  # OpenSpiel
    (FROM, 'Teams: N/S: "a:b". E/W: "c:d"', Teams("a:b", "c:d")),  # ZBridge
    (FROM, 'TEAMS : N/S : "a" E/W : "b"', Teams("a", "b")),  # case folded
    # ---- board (2.2)
    (FROM, "Start of board", StartOfBoard()),
    (FROM, "Start of Board", StartOfBoard()),  # Bridge Moniteur (bridge_env comment)
    (FROM, "start of board", StartOfBoard()),  # OpenSpiel to WBridge5
    (
        FROM,
        "Board number 1. Dealer North. Neither vulnerable.",
        BoardInfo(1, N, Vul.none),
    ),  # ComputerBridge
    (
        FROM,
        "Board number 1. Dealer NORTH. Neither vulnerable.",
        BoardInfo(1, N, Vul.none),
    ),  # OpenSpiel
    (
        FROM,
        "Board number 5. Dealer North. N/S vulnerable",
        BoardInfo(5, N, Vul.ns),
    ),  # ZBridge, no final stop
    (
        FROM,
        "Board number 6. Dealer East. E/W vulnerable. Open room.",
        BoardInfo(6, E, Vul.ew, "Open"),
    ),  # ComputerBridge v19
    (
        FROM,
        "Board number 6. Dealer East. Both vulnerable. Closed room.",
        BoardInfo(6, E, Vul.both, "Closed"),
    ),  # ComputerBridge v19
    # ---- hands (2.2 #10)
    (
        FROM,
        "South's cards : S A K 3. H -. D Q J T 9 8. C 7 6 5 4 2.",
        Cards(S, VOID_HEARTS),
    ),  # ComputerBridge now
    (
        FROM,
        "South's cards : S A K 3.H.D Q J T 9 8.C 7 6 5 4 2.",
        Cards(S, VOID_HEARTS),
    ),  # ComputerBridge 2018: H. void, no spaces
    (
        FROM,
        "South's cards : S A K 3. H - D Q J T 9 8. C 7 6 5 4 2.",
        Cards(S, VOID_HEARTS),
    ),  # ZBridge: H - void
    (
        FROM,
        "South's cards : S A K 3. H - D Q J T 9 8. C 7 6 5 4 2",
        Cards(S, VOID_HEARTS),
    ),  # no final stop
    (
        FROM,
        "South's cards : S A K 3. H -. D Q J T 9 8. C 7 6 5 4 2. ",
        Cards(S, VOID_HEARTS),
    ),  # trailing space (Ben comment, S5)
    (
        FROM,
        "EAST's cards: C A J T 9 6. D A 8 7. H A T 5. S Q 9.",
        Cards(E, OPENSPIEL_EAST),
    ),  # OpenSpiel: clubs first, no space before colon
    (
        FROM,
        "east's cards : s q 9. h a t 5. d a 8 7. c a j t 9 6.",
        Cards(E, OPENSPIEL_EAST),
    ),  # lower case
    (
        FROM,
        "Dummy's cards : S Q J T.H.D Q 9 6 5.C K Q J 7 5 2.",
        DummyCards(LOG_2018_DUMMY),
    ),  # 2018 log format
    (
        FROM,
        "Dummy's cards: C K Q J 7 5 2. D Q 9 6 5. H -. S Q J T.",
        DummyCards(LOG_2018_DUMMY),
    ),  # OpenSpiel
    # ---- play control
    (FROM, "EAST to lead", ToLead(E)),  # OpenSpiel
    (FROM, "Dummy to lead", ToLead(None)),
    (FROM, "dummy to lead", ToLead(None)),
    # ---- end of board and session (2.5)
    (
        FROM,
        "Timing - N/S : this board  00:14,  total  0:00:14.  E/W : this board  00:08,  total  0:00:08.",
        Timing(14, 14, 8, 8),
    ),  # ComputerBridge
    (
        FROM,
        "Timing - N/S : this board  00:14,  total  0:00:14.  E/W : this board  00:08,  total  0:00:08",
        Timing(14, 14, 8, 8),
    ),  # spec / Bridge Moniteur: no final stop
    (
        FROM,
        "Timing - N/S : this board  [1:15],  total  [0:11:23].  E/W : this board  [1:18],  total  [0:10:23]",
        Timing(
            75,
            683,
            78,
            623,
            raw="Timing - N/S : this board  [1:15],  total  [0:11:23].  E/W : this board  [1:18],  total  [0:10:23]",
        ),
    ),  # OpenSpiel's fake line
    (
        FROM,
        "Timing - N/S : this board 00:14, total 0:00:14. E/W : this board 00:08, total 0:00:08.",
        Timing(
            14,
            14,
            8,
            8,
            raw="Timing - N/S : this board 00:14, total 0:00:14. E/W : this board 00:08, total 0:00:08.",
        ),
    ),  # single spaces
    (
        FROM,
        "Timing - N/S : this board  24:00:14,  total  24:00:14.  E/W : this board  00:08,  total  0:00:08.",
        Timing(
            86414,
            86414,
            8,
            8,
            raw="Timing - N/S : this board  24:00:14,  total  24:00:14.  E/W : this board  00:08,  total  0:00:08.",
        ),
    ),  # across midnight (ComputerBridge client note)
    (
        FROM,
        "Timing whatever the TM felt like",
        Timing(0, 0, 0, 0, raw="Timing whatever the TM felt like"),
    ),  # any Timing line is informational
    (FROM, "End of session", EndOfSession()),
    (FROM, "end of session", EndOfSession()),
    (FROM, "NS: 1234 EW: 567", EndOfSession()),  # Bridge Moniteur (ComputerBridge client)
    (FROM, "Illegal bid", IllegalBid()),
    (FROM, "illegal bid", IllegalBid()),  # bridge_env
    (FROM, "Illegal card", IllegalCard()),
    # ---- refusals (2.1 #2e)
    (
        FROM,
        "Expected 'Connecting .... as ... using protocol version ..'",
        ErrorText("Expected 'Connecting .... as ... using protocol version ..'"),
    ),  # ComputerBridge
    (
        FROM,
        "Illegal hand 'anypl' specified",
        ErrorText("Illegal hand 'anypl' specified"),
    ),  # ComputerBridge
    (
        FROM,
        "Team name must differ from opponents team name 'X'",
        ErrorText("Team name must differ from opponents team name 'X'"),
    ),  # ComputerBridge
    (FROM, "Seat was already taken", ErrorText("Seat was already taken")),  # ComputerBridge
    (
        FROM,
        "Seat already has been taken",
        ErrorText("Seat already has been taken"),
    ),  # older ComputerBridge
    (
        FROM,
        "Error Team name mismatch",
        ErrorText("Error Team name mismatch"),
    ),  # Blue Chip (Ben comment)
    (FROM, "ERROR: seat taken", ErrorText("ERROR: seat taken")),  # bridge_env
    (
        FROM,
        "unexpected message 'North bids 9C'",
        ErrorText("unexpected message 'North bids 9C'"),
    ),  # ComputerBridge
]


@pytest.mark.parametrize(
    ("direction", "line", "expected"), VARIANTS, ids=[v[1][:60] for v in VARIANTS]
)
def test_variant_is_read(direction: Direction, line: str, expected: Message) -> None:
    assert parse(line, direction) == expected


@pytest.mark.parametrize(
    ("direction", "line", "expected"), VARIANTS, ids=[v[1][:60] for v in VARIANTS]
)
def test_variant_is_written_back_canonically(
    direction: Direction, line: str, expected: Message
) -> None:
    """Whatever form came in, what we write is the canonical one and reads back the same."""
    out = render(expected)
    assert parse(out, direction) == expected
    if isinstance(expected, Timing) and expected.raw is not None:
        assert out == expected.raw  # kept verbatim: we relay what we cannot improve
    else:
        assert "  " not in out or isinstance(expected, Timing)
        assert out == out.strip()


def test_relay_regenerates_canonical_casing() -> None:
    """Ben checks relayed seat names case-sensitively: WBridge5's NORTH PASSES must go out as
    North passes (docs/protocol.md 2.3 #3)."""
    assert render(parse("NORTH PASSES", TO)) == "North passes"
    assert render(parse("WEST plays kd", TO)) == "West plays KD"


def test_hand_order_is_canonical_whatever_came_in() -> None:
    msg = parse("EAST's cards: C A J T 9 6. D A 8 7. H A T 5. S Q 9.", FROM)
    assert render(msg) == "East's cards : S Q 9. H A T 5. D A 8 7. C A J T 9 6."
