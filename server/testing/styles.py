"""Scripted seats in the style of every peer the project knows, as sans-IO models and over TCP.

A :class:`Style` is one known client's habits at the table, as docs/protocol.md (2.4, 4.2, 4.3,
7) describes them: the case it writes, the form of its ready lines for dummy's cards, when it asks
for dummy, whether it sends the abolished ``received dummy``. :class:`StyledSeat` plays one seat in
that style: it is fed the table manager's lines (:meth:`StyledSeat.hear`) and says, line by line,
what it owes next (:meth:`StyledSeat.next_line` / :meth:`StyledSeat.speak`). It never answers
before the protocol lets it: a card only after its ``to lead`` or after the cards before it, a
ready line only once it could write it, nothing between ``ready for dummy`` and dummy's cards.

Two options on top of a style stress the table manager within what the protocol allows:

* ``early``: each ready line for a card goes out as soon as the seat can write it, not after the
  card before it has arrived (bridge-player's habit, taken further): for a named player once the
  leader of that trick is known, for dummy's own ``dummy's`` form up to a trick ahead of the
  cards it has seen;
* :meth:`StyledSeat.repeatable`: the ready lines already sent on this board that the seat may say
  again (Ben repeats board-level lines after a restart; bridge-player's dummy says the same card
  line several times within a trick).

The ``ben-restart`` style is Ben once a board has been restarted: it never resets its restart
flag, so it says ``ready for deal`` on every Timing line, unasked, and again on ``Start of
board`` (issue 44).

:class:`StyledPeer` puts a model on a real TCP connection to a table manager under test. The
peers stand in for the *other* side only; the table manager is always the real one.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bridgebot.laws import calls as laws_calls
from bridgebot.laws.play import legal_cards, trick_winner
from bridgebot.protocol.codec import Direction, parse, render
from bridgebot.protocol.messages import (
    BoardInfo,
    CallMsg,
    Cards,
    Connect,
    DummyCards,
    EndOfSession,
    ErrorText,
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
from endplay.types import Bid, Card, Contract, Deal, Hand, Player

DummyForm = Literal["never", "self", "all", "every"]
Case = Literal["canonical", "upper", "lower"]


@dataclass(frozen=True)
class Style:
    """The habits of one known client (docs/protocol.md 2.4 #1, 4.2, 7).

    ``dummy_form`` says when its ready lines use ``ready for dummy's card``: ``never`` (the seat's
    name, always), ``self`` (dummy only, while dummy is to play: the ComputerBridge clients),
    ``all`` (every seat while dummy is to play: Ben, bridge_env), ``every`` (``all``, and dummy for
    every card of the play: bridge-player's dummy)."""

    name: str
    case: Case = "canonical"
    dummy_form: DummyForm = "never"
    early_dummy: bool = False
    """Declarer and the leader's partner ask for dummy right after the auction (bridge-player)."""
    received_dummy: bool = False
    """Confirms dummy's cards with the abolished ``received dummy`` (GIB, bridge-player)."""
    anypl: bool = False
    """Connects ``as ANYPL`` and plays the seat it is given (WBridge5's Autoconnect)."""
    version: str = "18"
    """The text after ``protocol version`` (ComputerBridge's clients add their system)."""
    restart_habit: bool = False
    """After a mid-board ``Start of board``, says ``ready for deal`` after every Timing line
    as well as on ``Start of board`` (Ben's ``restart`` flag, never reset)."""


#: Every peer style the project knows, by name.
STYLES: dict[str, Style] = {
    style.name: style
    for style in (
        Style("canonical"),
        Style("wbridge5", case="upper", anypl=True),
        Style("ben", dummy_form="all"),
        Style("ben-restart", dummy_form="all", restart_habit=True),
        Style("bridge-player", case="lower", dummy_form="every", early_dummy=True,
              received_dummy=True),
        Style("gib", dummy_form="self", received_dummy=True),
        Style("computerbridge", dummy_form="self", version="19 sayc"),
    )
}  # fmt: skip

_SEAT_WORDS = {p.name.capitalize() for p in Player} | {f"{p.name.capitalize()}'s" for p in Player}


def styled(line: str, style: Style) -> str:
    """The canonical ``line`` as ``style`` writes it: WBridge5's capitals (seats and call words,
    cards in lower case, a double space in ``ready for  NORTH's bid``), bridge-player's lower-case
    seat names."""
    if style.case == "canonical" or line.startswith("Connecting"):
        return line
    words = line.split(" ")
    if style.case == "lower":
        return " ".join(w.lower() if w in _SEAT_WORDS else w for w in words)
    calls = ("passes", "doubles", "redoubles", "bids")
    out = [w.upper() if w in _SEAT_WORDS or w in calls else w for w in words]
    if len(out) == 3 and out[1] == "plays":
        out[2] = out[2].lower()
    text = " ".join(out)
    return text.replace("ready for ", "ready for  ", 1) if text.endswith("bid") else text


@dataclass
class _BoardView:
    """What one seat knows of the board in play."""

    dealer: Player
    hand: Hand | None = None
    """Ours, once the cards have come (the cards played are taken out)."""
    auction: list[Bid] = field(default_factory=list)
    contract: Contract | None = None
    passed_out: bool = False
    plays: list[tuple[Player, Card]] = field(default_factory=list)
    """Every card this seat has seen, in order: relayed to it, or played by it."""
    prompted: set[int] = field(default_factory=set)
    """The tricks (0-based) this seat was told ``to lead`` (the table sends it once the leader
    has every card before the trick)."""
    dummy: Hand | None = None
    asked_dummy: bool = False
    next_call: int = 0
    """The call whose ready line or call this seat owes next."""
    next_card: int = 0
    chosen: tuple[int, Card] | None = None
    """The card this seat will play as card ``[0]`` of the play, once chosen."""
    """The card whose ready line or card this seat owes next."""
    ready_lines: list[str] = field(default_factory=list)
    """The ready lines said on this board, for :meth:`StyledSeat.repeatable`."""
    bid_lines: set[str] = field(default_factory=set)
    """Those of them that are ready lines for a call."""
    leaders: list[Player] = field(default_factory=list)
    """The leader of each trick this seat knows the leader of."""


class StyledSeat:
    """One seat in a :class:`Style`, sans-IO (see the module docstring).

    ``calls(seat, board, auction)`` gives this seat's call when it is its turn; ``choose(legal)`` picks a
    card among the legal ones (for dummy's cards too, when this seat declares). ``seat`` is the
    seat asked for; an ``anypl`` style takes the one it is given.
    """

    def __init__(
        self,
        seat: Player,
        style: Style,
        team: str,
        *,
        calls: Callable[[Player, int, Sequence[Bid]], Bid],
        choose: Callable[[Sequence[Card]], Card],
        early: bool = False,
    ) -> None:
        self.seat = seat
        self.style = style
        self.team = team
        self.calls = calls
        self.choose = choose
        self.early = early
        self.pending: list[str] = []
        """Lines owed in answer to a line heard (handshake, deal, ``received dummy``)."""
        self.board: _BoardView | None = None
        self.number = 0
        self.ended = False
        self.started = False
        self.heard: list[str] = []
        self.said: list[str] = []
        self.boards_played = 0
        self.early_lines = 0
        """Ready lines said before the card ahead of them had arrived."""
        self.restarted = False
        """A board was restarted by a ``Start of board`` in its middle."""

    # ------------------------------------------------------------------ writing

    def _line(self, msg: Message) -> str:
        return styled(render(msg), self.style)

    def connect_line(self) -> str:
        seat = None if self.style.anypl else self.seat
        line = render(Connect(team=self.team, seat=seat))
        if self.style.version != "18":
            line = line.replace("version 18", f"version {self.style.version}")
        self.said.append(line)
        return line

    # ------------------------------------------------------------------ hearing

    def hear(self, line: str) -> None:
        """Take one line from the table manager (raises ``ParseError`` on one we cannot read)."""
        self.heard.append(line)
        msg = parse(line, Direction.FROM_TM)
        b = self.board
        match msg:
            case Seated(seat=seat):
                self.seat = seat
                self.pending.append(self._line(ReadyForTeams(seat=seat)))
            case Teams():
                if not self.started:  # once per session; a repeated Teams line is ignored
                    self.started = True
                    self.pending.append(self._line(ReadyToStart(seat=self.seat)))
            case StartOfBoard():
                if b is not None and not (b.passed_out or len(b.plays) == 52):
                    self.restarted = True
                self.board = None
                self.pending = [self._line(ReadyForDeal(seat=self.seat))]
            case BoardInfo(number=number, dealer=dealer):
                self.number = number
                self.board = _BoardView(dealer=dealer)
                self.pending.append(self._line(ReadyForCards(seat=self.seat)))
            case Cards(hand=hand) if b is not None:
                b.hand = hand.copy()
            case CallMsg(call=call) if b is not None:
                self._take_call(b, call)
            case ToLead() if b is not None:
                b.prompted.add(len(b.plays) // 4)
            case DummyCards(hand=hand) if b is not None:
                b.dummy = hand.copy()
                if self.style.received_dummy:
                    self.pending.append(self._line(ReceivedDummy(seat=self.seat)))
            case PlayMsg(seat=seat, card=card) if b is not None and b.contract is not None:
                player = b.contract.declarer.partner if seat is None else seat
                self._take_card(b, player, card)
            case Timing():
                if self.style.restart_habit and self.restarted:
                    self.pending.append(self._line(ReadyForDeal(seat=self.seat)))
            case EndOfSession():
                self.ended = True
            case ErrorText(text=text):
                raise AssertionError(f"{self.seat.name}: the table manager refused us: {text}")
            case _:
                raise AssertionError(f"{self.seat.name} did not expect {line!r}")

    def _take_call(self, b: _BoardView, call: Bid) -> None:
        b.auction.append(call)
        if laws_calls.auction_over(b.auction):
            b.contract = laws_calls.final_contract(b.dealer, b.auction)
            b.passed_out = b.contract is None
            if b.passed_out:
                self.boards_played += 1

    def _take_card(self, b: _BoardView, player: Player, card: Card) -> None:
        b.plays.append((player, card))
        if b.dummy is not None and b.contract is not None and player == b.contract.declarer.partner:
            b.dummy.remove(card)
        elif player == self.seat and b.hand is not None:
            b.hand.remove(card)
        if len(b.plays) == 52:
            self.boards_played += 1

    # ------------------------------------------------------------------ the play, as seen

    def _leader(self, b: _BoardView, trick: int) -> Player | None:
        """The leader of ``trick`` (0-based), if this seat has seen every trick before it."""
        assert b.contract is not None
        if not b.leaders:
            b.leaders.append(b.contract.declarer.lho)
        while len(b.leaders) <= trick and len(b.plays) >= 4 * len(b.leaders):
            cards = b.plays[4 * len(b.leaders) - 4 : 4 * len(b.leaders)]
            b.leaders.append(trick_winner(cards[0][0], [c for _, c in cards], b.contract.denom))
        return b.leaders[trick] if trick < len(b.leaders) else None

    def _ready_text(self, b: _BoardView, k: int, player: Player) -> str:
        assert b.contract is not None
        dummy = b.contract.declarer.partner
        form = self.style.dummy_form
        dummy_word = (
            (form == "self" and self.seat == dummy and player == dummy)
            or (form in ("all", "every") and player == dummy)
            or (form == "every" and self.seat == dummy)
        )
        msg = ReadyForCard(seat=self.seat, player=None if dummy_word else player, trick=k // 4 + 1)
        return self._line(msg)

    # ------------------------------------------------------------------ speaking

    def next_line(self) -> str | None:
        """The next line this seat owes and may say now, or None (see :meth:`speak`)."""
        return self._next(commit=False)

    def speak(self) -> str | None:
        """Say the next line this seat owes, if it may say it now; None if it must wait."""
        line = self._next(commit=True)
        if line is not None:
            self.said.append(line)
        return line

    def repeatable(self) -> list[str]:
        """The ready lines this seat may say again now: every one said on this board, except a
        ``ready for <X>'s bid`` that is not the last line it said (a stale one would read as the
        next round's)."""
        b = self.board
        if b is None:
            return []
        last = self.said[-1] if self.said else None
        return [x for x in b.ready_lines if x == last or x not in b.bid_lines]

    def _next(self, *, commit: bool) -> str | None:
        if self.pending:
            return self.pending.pop(0) if commit else self.pending[0]
        b = self.board
        if b is None or b.hand is None or b.passed_out:
            return None
        if b.contract is None:
            return self._auction_line(b, commit)
        return self._play_line(b, commit)

    def _ready(self, b: _BoardView, line: str, commit: bool) -> str:
        if commit:
            b.ready_lines.append(line)
        return line

    def _auction_line(self, b: _BoardView, commit: bool) -> str | None:
        i = b.next_call
        if len(b.auction) < i:
            return None  # the last call is not here yet
        bidder = laws_calls.seat_of_call(b.dealer, i)
        if bidder != self.seat:
            line = self._line(ReadyForBid(seat=self.seat, bidder=bidder))
            if commit:
                b.next_call += 1
                b.bid_lines.add(line)
                self._ready(b, line, commit)
            return line
        call = self.calls(self.seat, self.number, list(b.auction))
        line = self._line(CallMsg(seat=self.seat, call=call))
        if commit:
            b.next_call += 1
            self._take_call(b, call)  # no echo comes back
        return line

    def _play_line(self, b: _BoardView, commit: bool) -> str | None:
        assert b.contract is not None
        declarer = b.contract.declarer
        dummy = declarer.partner
        me = self.seat
        k = b.next_card
        if k >= 52:
            return None
        if me != dummy and not b.asked_dummy:
            asks_now = self.style.early_dummy and me in (declarer, declarer.rho)
            if asks_now or (k >= 1 and b.plays):
                if commit:
                    b.asked_dummy = True
                return self._ready(b, self._line(ReadyForDummy(seat=me)), commit)
        if me != dummy and b.asked_dummy and b.dummy is None:
            return None  # nothing more until dummy's cards (2.4 #5)
        if me != dummy and not b.asked_dummy and k >= 1:
            return None  # after the lead, ready for dummy comes first
        leader = self._leader(b, k // 4)
        if leader is None:
            every = self.early and me == dummy and self.style.dummy_form == "every"
            if not every or len(b.plays) < 4 * (k // 4 - 1):
                return None  # at most one trick ahead of what it has seen
            player = None  # dummy's own form needs no name
        else:
            player = Player((leader.value + k % 4) % 4)
        controller = declarer if player == dummy else player
        if player is not None and controller == me:
            return self._card_line(b, k, player, commit)
        if not self.early and len(b.plays) < k:
            return None  # a ready line goes out once the card before it has arrived
        line = self._ready_text(b, k, player if player is not None else dummy)
        if commit:
            b.next_card += 1
            self.early_lines += len(b.plays) < k
        return self._ready(b, line, commit)

    def _card_line(self, b: _BoardView, k: int, player: Player, commit: bool) -> str | None:
        if len(b.plays) < k or (k % 4 == 0 and k // 4 not in b.prompted):
            return None  # the cards before it, or the to-lead prompt, are not here yet
        if b.chosen is None or b.chosen[0] != k:  # chosen once, however often it is looked at
            hand = b.hand if player == self.seat else b.dummy
            assert hand is not None
            trick = [c for _, c in b.plays[k // 4 * 4 :]]
            b.chosen = (k, self.choose(legal_cards(hand, trick)))
        card = b.chosen[1]
        line = self._line(PlayMsg(seat=player, card=card))
        if commit:
            b.next_card += 1
            self._take_card(b, player, card)  # no echo comes back
        return line


_RANKS = "AKQJT98765432"


def dummy_deal(dummy: Player) -> Deal:
    """A deal on which ``dummy`` holds the ace, king and queen of every suit and the spade jack;
    the other 39 cards go round the other three seats. Whoever declares opposite it, dummy wins
    tricks and leads: with every seat playing its highest card, dummy wins trick 1 and leads
    every trick after it."""
    hands: dict[Player, list[str]] = {p: ["", "", "", ""] for p in Player}
    others = [dummy.lho, dummy.partner, dummy.rho]
    i = 0
    for s, suit in enumerate("SHDC"):
        for rank in _RANKS:
            if rank in "AKQ" or (suit == "S" and rank == "J"):
                hands[dummy][s] += rank
            else:
                hands[others[i % 3]][s] += rank
                i += 1
    order = (Player.north, Player.east, Player.south, Player.west)
    return Deal.from_pbn("N:" + " ".join(".".join(hands[p]) for p in order))


class StyledPeer:
    """A :class:`StyledSeat` on a TCP connection to a table manager under test.

    ``repeat`` says every ready line of a board twice in a row (the handshake's are said once:
    a second ``ready for teams`` is refused, docs/protocol.md 2.1 #3). ``extra(model, line)`` is
    called with each line said and returns lines to say right after it (a test's own habit, such
    as issue 25's dummy saying its first line twice). ``timeout`` bounds every wait, so a table
    manager that stalls fails the test (in virtual time, at once)."""

    def __init__(
        self,
        host: str,
        port: int,
        model: StyledSeat,
        *,
        repeat: bool = False,
        timeout: float = 60.0,
        extra: Callable[[StyledSeat, str], list[str]] | None = None,
    ) -> None:
        self.host = host
        self.port = port
        self.model = model
        self.repeat = repeat
        self.timeout = timeout
        self.extra = extra
        self.seated = asyncio.Event()

    async def run(self) -> None:
        """Play until ``End of session`` and the table manager closes the connection."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        m = self.model
        try:
            writer.write(m.connect_line().encode() + b"\r\n")
            while not m.ended:
                while (line := m.speak()) is not None:
                    lines = [line]
                    if self.repeat and line in m.repeatable():
                        lines.append(line)
                    if self.extra is not None:
                        lines += self.extra(m, line)
                    for text in lines:
                        writer.write(text.encode() + b"\r\n")
                await writer.drain()
                try:
                    raw = await asyncio.wait_for(reader.readline(), self.timeout)
                except TimeoutError:
                    raise AssertionError(
                        f"{m.seat.name} ({m.style.name}): the table manager said nothing for "
                        f"{self.timeout:g} s; last heard {m.heard[-3:]!r}"
                    ) from None
                if not raw:
                    raise AssertionError(f"{m.seat.name}: connection closed; heard {m.heard[-3:]}")
                m.hear(raw.decode().rstrip("\r\n"))
                if m.heard[-1].lower().endswith("seated"):
                    self.seated.set()
            rest = await asyncio.wait_for(reader.read(), self.timeout)
            assert rest == b"", f"{m.seat.name}: the table manager said {rest!r} after the end"
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
