"""The one table that drives both the parser and the writer tests.

Each row: (message, canonical line, dialect, directions). ``render(message, dialect) == line`` and
``parse(line, d) == message`` for each direction ``d``. The wire constants come from
``protocol.wire`` where a test builds lines, so the table cannot drift from the codec's templates.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bridgebot.protocol import (
    DEFAULT_DIALECT,
    BoardInfo,
    CallMsg,
    Cards,
    Connect,
    Dialect,
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
)
from endplay.types import (
    Bid,
    Card,
    ContractBid,
    Denom,
    Hand,
    Penalty,
    PenaltyBid,
    Player,
    Rank,
    Vul,
)

from bridgebot import protocol

N, E, S, W = Player.north, Player.east, Player.south, Player.west
TO = (Direction.TO_TM,)
FROM = (Direction.FROM_TM,)
BOTH = (Direction.TO_TM, Direction.FROM_TM)

#: The hands of board 1 of ComputerBridge's events.log (docs/protocol.md 6.1).
NORTH_HAND = Hand("AT43.T853.KT.KT6")
SOUTH_HAND = Hand("K985.A.AJ76.9542")
VOID_HAND = Hand("AK3..QJT98.76542")  # hearts void
WEST_HAND = Hand("Q62.KJ942.9432.A")


def card(text: str) -> Card:
    """``QH`` -> Card (rank first, as on the wire)."""
    return Card(suit=Denom.find(text[1]), rank=Rank.find(text[0]))


def bid(text: str) -> ContractBid:
    return ContractBid(int(text[0]), Denom.find(text[1:]))


PASS = PenaltyBid(Penalty.passed)
DOUBLE = PenaltyBid(Penalty.doubled)
REDOUBLE = PenaltyBid(Penalty.redoubled)


@dataclass(frozen=True)
class Case:
    msg: Message
    line: str
    dialect: Dialect = DEFAULT_DIALECT
    directions: tuple[Direction, ...] = FROM

    @property
    def id(self) -> str:
        name = self.line if len(self.line) < 50 else self.line[:47] + "..."
        return f"{type(self.msg).__name__}:{name}"


TIMING_LINE = (
    "Timing - N/S : this board  01:36,  total  0:01:36.  E/W : this board  01:34,  total  0:01:34."
)

CASES: list[Case] = [
    # ---- client -> TM
    Case(Connect("Bots", N), 'Connecting "Bots" as North using protocol version 18', directions=TO),
    Case(
        Connect("Robo Bridge", S, 19, "sayc"),
        'Connecting "Robo Bridge" as South using protocol version 19 sayc',
        directions=TO,
    ),
    Case(
        Connect("WBridge5", None),
        'Connecting "WBridge5" as ANYPL using protocol version 18',
        directions=TO,
    ),
    Case(ReadyForTeams(E), "East ready for teams", directions=TO),
    Case(ReadyToStart(W), "West ready to start", directions=TO),
    Case(ReadyForDeal(N), "North ready for deal", directions=TO),
    Case(ReadyForCards(S), "South ready for cards", directions=TO),
    Case(ReadyForBid(E, N), "East ready for North's bid", directions=TO),
    Case(ReadyForCard(N, E, 3), "North ready for East's card to trick 3", directions=TO),
    Case(ReadyForCard(N, None, 13), "North ready for dummy's card to trick 13", directions=TO),
    Case(ReadyForDummy(W), "West ready for dummy", directions=TO),
    Case(ReceivedDummy(E), "East received dummy", directions=TO),
    # ---- both directions: calls and cards
    Case(CallMsg(N, PASS), "North passes", directions=BOTH),
    Case(CallMsg(E, DOUBLE), "East doubles", directions=BOTH),
    Case(CallMsg(S, REDOUBLE), "South redoubles", directions=BOTH),
    Case(CallMsg(W, bid("1NT")), "West bids 1NT", directions=BOTH),
    Case(CallMsg(W, bid("7C")), "West bids 7C", directions=BOTH),
    Case(
        CallMsg(N, bid("1NT"), alert="15 to 17 total points."),
        "North bids 1NT Alert. 15 to 17 total points.",
        directions=BOTH,
    ),
    Case(CallMsg(E, bid("4C"), alert=""), "East bids 4C Alert.", directions=BOTH),
    Case(
        CallMsg(E, bid("2S"), info="5 cards in spades."),
        "East bids 2S Infos. 5 cards in spades.",
        directions=BOTH,
    ),
    Case(
        CallMsg(S, bid("2D"), alert="Multi.", info="Weak two."),
        "South bids 2D Alert. Multi. Infos. Weak two.",
        directions=BOTH,
    ),
    Case(PlayMsg(E, card("QH")), "East plays QH", directions=BOTH),
    Case(PlayMsg(N, card("TC")), "North plays TC", directions=BOTH),
    Case(PlayMsg(S, card("4S"), note="count"), "South plays 4S. count", directions=BOTH),
    Case(PlayMsg(None, card("8C")), "Dummy plays 8C", directions=BOTH),
    # ---- TM -> client
    Case(Seated(N, "Team A"), 'North ("Team A") seated'),
    Case(Seated(N, "Team A"), 'North "Team A" seated', Dialect(seated="quoted")),
    Case(Seated(S, "emanon"), "South emanon seated", Dialect(seated="bare")),
    Case(Teams("RoboNS", "RoboEW"), 'Teams : N/S : "RoboNS" E/W : "RoboEW"'),
    Case(Teams("A", "B"), 'Teams : N/S : "A". E/W : "B"', Dialect(teams="spec")),
    Case(
        Teams("north-south", "east-west"),
        'Teams: N/S "north-south" E/W "east-west"',
        Dialect(teams="colonless"),
    ),
    Case(Teams("A", "B", "IMP"), 'Teams : N/S : "A" E/W : "B". Playing IMP'),
    Case(Teams("A", "B", "MP"), 'Teams : N/S : "A" E/W : "B". Playing MP'),
    Case(StartOfBoard(), "Start of board"),
    Case(BoardInfo(7, S, Vul.both), "Board number 7. Dealer South. Both vulnerable."),
    Case(BoardInfo(1, N, Vul.none), "Board number 1. Dealer North. Neither vulnerable."),
    Case(BoardInfo(2, E, Vul.ns), "Board number 2. Dealer East. N/S vulnerable."),
    Case(BoardInfo(3, W, Vul.ew), "Board number 3. Dealer West. E/W vulnerable."),
    Case(
        BoardInfo(3, W, Vul.ew),
        "Board number 3. Dealer West. E/W vulnerable",
        Dialect(board_final_stop=False),
    ),
    Case(
        BoardInfo(4, W, Vul.both, "Open"),
        "Board number 4. Dealer West. Both vulnerable. Open room.",
    ),
    Case(
        BoardInfo(4, W, Vul.both, "Closed"),
        "Board number 4. Dealer West. Both vulnerable. Closed room.",
    ),
    Case(Cards(N, NORTH_HAND), "North's cards : S A T 4 3. H T 8 5 3. D K T. C K T 6."),
    Case(Cards(S, VOID_HAND), "South's cards : S A K 3. H -. D Q J T 9 8. C 7 6 5 4 2."),
    Case(DummyCards(WEST_HAND), "Dummy's cards : S Q 6 2. H K J 9 4 2. D 9 4 3 2. C A."),
    Case(ToLead(E), "East to lead"),
    Case(ToLead(None), "Dummy to lead"),
    Case(Timing(96, 96, 94, 94), TIMING_LINE),
    Case(Timing(96, 96, 94, 94), TIMING_LINE[:-1], Dialect(timing_final_stop=False)),
    Case(
        Timing(
            75,
            683,
            78,
            623,
            raw="Timing - N/S : this board  [1:15],  total  [0:11:23].  "
            "E/W : this board  [1:18],  total  [0:10:23]",
        ),
        "Timing - N/S : this board  [1:15],  total  [0:11:23].  E/W : this board  [1:18],  total  [0:10:23]",
    ),
    Case(EndOfSession(), "End of session"),
    Case(IllegalBid(), "Illegal bid"),
    Case(IllegalCard(), "Illegal card"),
    Case(ErrorText("Seat was already taken"), "Seat was already taken"),
    Case(ErrorText("Team name must be 'Bots'"), "Team name must be 'Bots'"),
]

#: The seated dialects bridge-player needs: the grammar check must accept these.
BRIDGE_PLAYER_SEATED = [
    c for c in CASES if isinstance(c.msg, Seated) and c.dialect.seated != "paren"
]

#: Every card, and every call in bidding order (pass, double, redouble, 1C .. 7NT).
ALL_CARDS: list[Card] = [
    Card(suit=s, rank=r)
    for s in (Denom.spades, Denom.hearts, Denom.diamonds, Denom.clubs)
    for r in Rank
]
ALL_CALLS: list[Bid] = [
    PASS,
    DOUBLE,
    REDOUBLE,
    *(
        ContractBid(level, strain)
        for level in range(1, 8)
        for strain in (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)
    ),
]


def sample_hands(count: int, seed: int = 1) -> list[Hand]:
    """``count`` random 13-card hands, reproducible."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        hand = Hand()
        for c in rng.sample(ALL_CARDS, 13):
            hand.add(c)
        out.append(hand)
    return out


#: Names a message repr may use, for ``eval(repr(m))``.
REPR_NAMESPACE: dict[str, object] = {
    **{name: getattr(protocol, name) for name in protocol.__all__},
    "Player": Player,
    "Vul": Vul,
    "Card": Card,
    "Hand": Hand,
    "Denom": Denom,
    "Rank": Rank,
    "ContractBid": ContractBid,
    "PenaltyBid": PenaltyBid,
    "Penalty": Penalty,
}
