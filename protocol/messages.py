"""Every Blue Chip v18 message as an immutable value.

Seats are ``endplay`` ``Player``, calls ``Bid``, cards ``Card``, hands ``Hand``, vulnerability
``Vul``: the project's bridge vocabulary, so the table manager and seat client never convert.
Messages know nothing of their wire form: :mod:`protocol.codec` reads and writes them
(``parse``/``parse_as`` and ``render``), as h11's readers and writers do for its events, so the
codec depends on the messages and never the other way round. A message's ``repr`` is Python that
rebuilds it (``eval(repr(m)) == m`` with ``endplay.types`` names in scope), so a failing test or log
line can be pasted back into a test.

Free-text fields are kept as received after whitespace runs are collapsed (the codec folds case
only for keywords, never for team names or explanations).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from endplay.types import Bid, Card, ContractBid, Hand, PenaltyBid, Player, Vul


def _fmt(value: Any) -> str:
    """Python source for one field value (endplay's own reprs do not evaluate)."""
    if isinstance(value, Player):
        return f"Player.{value.name}"
    if isinstance(value, Vul):
        return f"Vul.{value.name}"
    if isinstance(value, Card):
        return f"Card(suit=Denom.{value.suit.name}, rank=Rank.{value.rank.name})"
    if isinstance(value, ContractBid):
        return f"ContractBid({value.level}, Denom.{value.denom.name})"
    if isinstance(value, PenaltyBid):
        return f"PenaltyBid(Penalty.{value.penalty.name})"
    if isinstance(value, Hand):
        return f"Hand({value.to_pbn()!r})"
    return repr(value)


class Message:
    """Base of all messages. Subclasses are frozen dataclasses.

    ``DIRECTIONS`` says which way a message may travel (the values of ``codec.Direction``);
    ``codec.parse_as`` tries those directions.
    """

    DIRECTIONS: ClassVar[tuple[str, ...]] = ()

    def __repr__(self) -> str:
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        args = ", ".join(f"{f.name}={_fmt(getattr(self, f.name))}" for f in fields)
        return f"{type(self).__name__}({args})"


_TO_TM = ("to_tm",)
_FROM_TM = ("from_tm",)
_BOTH = ("to_tm", "from_tm")


# ----------------------------------------------------------------- client -> table manager


@dataclass(frozen=True, repr=False)
class Connect(Message):
    """``Connecting "team" as North using protocol version 18``; ``seat`` None is ``ANYPL``
    (WBridge5's Autoconnect); ``extra`` is any text after the version (Ben, ComputerBridge)."""

    DIRECTIONS = _TO_TM
    team: str
    seat: Player | None
    version: int = 18
    extra: str = ""


@dataclass(frozen=True, repr=False)
class ReadyForTeams(Message):
    DIRECTIONS = _TO_TM
    seat: Player


@dataclass(frozen=True, repr=False)
class ReadyToStart(Message):
    DIRECTIONS = _TO_TM
    seat: Player


@dataclass(frozen=True, repr=False)
class ReadyForDeal(Message):
    DIRECTIONS = _TO_TM
    seat: Player


@dataclass(frozen=True, repr=False)
class ReadyForCards(Message):
    DIRECTIONS = _TO_TM
    seat: Player


@dataclass(frozen=True, repr=False)
class ReadyForBid(Message):
    """``South ready for West's bid``."""

    DIRECTIONS = _TO_TM
    seat: Player
    bidder: Player


@dataclass(frozen=True, repr=False)
class ReadyForCard(Message):
    """``South ready for West's card to trick 3``; ``player`` None is the ``dummy's`` form."""

    DIRECTIONS = _TO_TM
    seat: Player
    player: Player | None
    trick: int


@dataclass(frozen=True, repr=False)
class ReadyForDummy(Message):
    DIRECTIONS = _TO_TM
    seat: Player


@dataclass(frozen=True, repr=False)
class ReceivedDummy(Message):
    """``North received dummy``: an abolished confirmation GIB and bridge-player still send.
    A table manager must ignore it."""

    DIRECTIONS = _TO_TM
    seat: Player


# ----------------------------------------------------------------- both directions


@dataclass(frozen=True, repr=False)
class CallMsg(Message):
    """A call, sent by the bidder and relayed by the table manager.

    ``alert``: None = not alerted, ``""`` = a bare ``Alert.``, else the explanation text.
    ``info``: likewise for ComputerBridge's ``Infos.`` (an explanation that is not an alert).
    """

    DIRECTIONS = _BOTH
    seat: Player
    call: Bid
    alert: str | None = None
    info: str | None = None


@dataclass(frozen=True, repr=False)
class PlayMsg(Message):
    """``North plays 8C``; ``seat`` None is ``Dummy plays 8C``; ``note`` is the ``. <text>``
    suffix (ComputerBridge v19 signals, Ben's --sendcardinfo). An empty note is no note."""

    DIRECTIONS = _BOTH
    seat: Player | None
    card: Card
    note: str | None = None

    def __post_init__(self) -> None:
        if self.note is not None and not self.note.strip():
            object.__setattr__(self, "note", None)


# ----------------------------------------------------------------- table manager -> client


@dataclass(frozen=True, repr=False)
class Seated(Message):
    DIRECTIONS = _FROM_TM
    seat: Player
    team: str


@dataclass(frozen=True, repr=False)
class Teams(Message):
    """The two team names; ``scoring`` is ``"IMP"`` or ``"MP"`` from ComputerBridge's
    ``. Playing IMP`` suffix, else None."""

    DIRECTIONS = _FROM_TM
    ns: str
    ew: str
    scoring: str | None = None


@dataclass(frozen=True, repr=False)
class StartOfBoard(Message):
    DIRECTIONS = _FROM_TM


@dataclass(frozen=True, repr=False)
class BoardInfo(Message):
    """``Board number 7. Dealer South. Both vulnerable.``; ``room`` is ``"Open"``/``"Closed"``
    from ComputerBridge's v19 `` Open room.`` suffix."""

    DIRECTIONS = _FROM_TM
    number: int
    dealer: Player
    vul: Vul
    room: str | None = None


@dataclass(frozen=True, repr=False)
class Cards(Message):
    """``South's cards : S A K 3. H -. D Q J T 9 8. C 7 6 5 4.`` (13 cards)."""

    DIRECTIONS = _FROM_TM
    seat: Player
    hand: Hand


@dataclass(frozen=True, repr=False)
class DummyCards(Message):
    """``Dummy's cards : S ...`` (13 cards; sent after the opening lead)."""

    DIRECTIONS = _FROM_TM
    hand: Hand


@dataclass(frozen=True, repr=False)
class ToLead(Message):
    """``East to lead``; ``seat`` None is ``Dummy to lead`` (sent to declarer)."""

    DIRECTIONS = _FROM_TM
    seat: Player | None


@dataclass(frozen=True, repr=False)
class Timing(Message):
    """Thinking time per side, in seconds, for this board and in total.

    ``raw`` keeps a Timing line that is not in the canonical form (OpenSpiel's bracketed fake one,
    Bridge Moniteur's without the final full stop, or one whose times cannot be read, in which case
    the numbers are 0); rendering writes ``raw`` back unchanged when it is set.
    """

    DIRECTIONS = _FROM_TM
    ns_board: int
    ns_total: int
    ew_board: int
    ew_total: int
    raw: str | None = None


@dataclass(frozen=True, repr=False)
class EndOfSession(Message):
    """``End of session`` (or Bridge Moniteur's ``NS:...`` line)."""

    DIRECTIONS = _FROM_TM


@dataclass(frozen=True, repr=False)
class IllegalBid(Message):
    DIRECTIONS = _FROM_TM


@dataclass(frozen=True, repr=False)
class IllegalCard(Message):
    DIRECTIONS = _FROM_TM


@dataclass(frozen=True, repr=False)
class ErrorText(Message):
    """A table manager's refusal (``Seat was already taken``, ``ERROR: ...``), sent before it
    closes the connection. Only lines that look like an error parse as this; see the codec."""

    DIRECTIONS = _FROM_TM
    text: str


CLIENT_MESSAGES: tuple[type[Message], ...] = (
    Connect, ReadyForTeams, ReadyToStart, ReadyForDeal, ReadyForCards, ReadyForBid,
    ReadyForCard, ReadyForDummy, ReceivedDummy, CallMsg, PlayMsg,
)  # fmt: skip
SERVER_MESSAGES: tuple[type[Message], ...] = (
    Seated, Teams, StartOfBoard, BoardInfo, Cards, DummyCards, CallMsg, PlayMsg, ToLead, Timing,
    EndOfSession, IllegalBid, IllegalCard, ErrorText,
)  # fmt: skip
