"""The seat side of the Blue Chip protocol as a sans-IO state machine (docs/protocol.md section 3.2).

Feed it what the table manager said (:meth:`SeatMachine.receive`, or ``receive_line`` for raw
text); it returns events: :class:`Send` (a message to write), :class:`NeedCall` /
:class:`NeedCard` (a decision is due, with everything a bot may know), and notices
(:class:`BoardStarted`, :class:`BoardFinished`, :class:`SessionEnded`). Answer a request with
:meth:`SeatMachine.answer_call` / :meth:`SeatMachine.answer_card`. No sockets, clocks or asyncio
here, so the whole dialogue is tested line by line; :mod:`server.seat` is the I/O shell.

Rules of the machine (the tables are ``_TRANSITIONS``, ``_BOARD_TRANSITIONS`` for the phases with
a board in play, whose handlers are handed the board, and ``_AFTER_SEATING``; anything not in them
raises ``RemoteProtocolError`` and leaves the machine unchanged):

* CONNECTING --Seated--> AWAIT_TEAMS (we send ``ready for teams``); a refusal is the TM's error.
* AWAIT_TEAMS --Teams--> WAIT_BOARD (we send ``ready to start``, once per session).
* WAIT_BOARD --Start of board--> AWAIT_BOARD_INFO (``ready for deal``) --Board number-->
  AWAIT_CARDS (``ready for cards``) --our cards--> AUCTION.
* AUCTION: for another seat's turn we send ``ready for <X>'s bid`` and await its call; on our turn
  we emit NeedCall and sit in DECIDING until answered (no echo comes back). Four passes go back
  to WAIT_BOARD; a contract starts PLAY.
* PLAY: for a card we do not control we send ``ready for <X>'s card to trick t`` (or the
  ``dummy's`` form, see :data:`DummyForm`) and await it; for a card we control (ours, or dummy's
  when we declare) we await ``to lead`` first if it leads a trick (its wording is not checked:
  OpenSpiel sent WBridge5 ``EAST to lead`` for dummy's lead), then emit NeedCard. Every seat but
  dummy sends ``ready for dummy`` after the opening lead (or, with ``Dialect.early_dummy``,
  declarer and the leader's partner right after the auction, as bridge-player does) and sends
  nothing more until ``Dummy's cards`` arrives. Dummy only sends ready messages. After 52 cards:
  WAIT_BOARD.
* Anywhere after seating: ``Timing`` and a re-sent ``Teams`` line are ignored (ComputerBridge's
  client tolerates Bridge Moniteur re-sending Teams); ``End of session`` (or Bridge Moniteur's
  ``NS:`` line, which the codec parses as the same message) ends the session; ``Start of board``
  in the middle of a board drops it and restarts at the deal, as Ben does; ``Illegal bid`` /
  ``Illegal card`` straight after our own call / card undoes it and asks again.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from bridgebot.laws import calls
from bridgebot.laws.play import legal_cards, trick_winner
from bridgebot.protocol import messages as m
from bridgebot.protocol.codec import Direction, parse, render
from bridgebot.protocol.dialect import DEFAULT_DIALECT, Dialect
from bridgebot.protocol.errors import LocalProtocolError, ParseError, RemoteProtocolError
from bridgebot.protocol.messages import Message
from endplay.types import (
    Bid,
    Card,
    Contract,
    ContractBid,
    Hand,
    PenaltyBid,
    Player,
    Vul,
)

DummyForm = Literal["self", "all", "never"]
"""Which ready messages use ``ready for dummy's card to trick t`` instead of the seat name.

``self`` (default): only dummy itself, and only while dummy is to play: what the ComputerBridge
clients send, what both ComputerBridge hosts accept, and what docs/protocol.md section 6.1 shows.
``all``: every seat while dummy is to play (Ben, bridge_env; the bridge_env server demands it).
``never``: always the seat name.
"""


class Phase(enum.Enum):
    CONNECTING = "connecting"
    AWAIT_TEAMS = "await_teams"
    WAIT_BOARD = "wait_board"
    AWAIT_BOARD_INFO = "await_board_info"
    AWAIT_CARDS = "await_cards"
    AUCTION = "auction"
    PLAY = "play"
    DECIDING = "deciding"
    ENDED = "ended"


# ----------------------------------------------------------------------------- events


@dataclass(frozen=True)
class Send:
    """Write ``message`` to the table manager."""

    message: Message


@dataclass(frozen=True)
class NeedCall:
    """Our turn to call. ``rejected`` holds calls the TM answered with ``Illegal bid`` this turn."""

    seat: Player
    board: int
    dealer: Player
    vul: Vul
    hand: Hand
    auction: tuple[Bid, ...]
    rejected: tuple[Bid, ...] = ()


@dataclass(frozen=True)
class NeedCard:
    """A card we control is due: ``player``'s card, decided by ``controller`` (declarer for dummy).

    ``hand`` is the controller's remaining cards, ``dummy`` dummy's remaining cards once seen.
    ``rejected`` holds cards the TM answered with ``Illegal card`` this turn.
    """

    player: Player
    controller: Player
    board: int
    dealer: Player
    vul: Vul
    auction: tuple[Bid, ...]
    contract: Contract
    hand: Hand
    dummy: Hand | None
    played: tuple[tuple[Player, Card], ...]
    rejected: tuple[Card, ...] = ()

    @property
    def holding(self) -> Hand:
        """The cards ``player`` can choose from (dummy's when declarer plays for dummy)."""
        if self.player != self.controller:
            assert self.dummy is not None  # the machine asks only once dummy is known
            return self.dummy
        return self.hand


@dataclass(frozen=True)
class BoardStarted:
    """A board (or a restarted board) has been announced: reset per-board state."""

    number: int
    restarted: bool = False


@dataclass(frozen=True)
class BoardFinished:
    number: int
    passed_out: bool
    contract: Contract | None
    final: BoardState | None = field(default=None, compare=False, repr=False)
    """The board as this seat saw it at the end (every call and card), for whoever shows it."""
    declarer_tricks: int | None = None
    """Tricks declarer's side took (None when passed out); what the log line reports."""


@dataclass(frozen=True)
class SessionEnded:
    boards: int


@dataclass(frozen=True)
class Ignored:
    """A line the machine deliberately ignored (for the log)."""

    message: Message


@dataclass(frozen=True)
class TableError:
    """An error line from the table manager after we were seated: one of our lines was refused
    (the table goes on), or we are being dropped (the connection closes next). Either way the
    text is for the operator's log; it ends nothing by itself."""

    text: str


Event = (
    Send | NeedCall | NeedCard | BoardStarted | BoardFinished | SessionEnded | Ignored | TableError
)


# ----------------------------------------------------------------------------- board state


@dataclass
class BoardState:
    """This seat's view of the board in progress: made at ``Board number`` and dropped when the
    board ends or restarts. ``seat`` is ours."""

    seat: Player
    number: int
    dealer: Player
    vul: Vul
    hand: Hand = field(default_factory=Hand)
    auction: list[Bid] = field(default_factory=list)
    contract: Contract | None = None
    dummy_hand: Hand | None = None
    played: list[tuple[Player, Card]] = field(default_factory=list)
    alerts: dict[int, str] = field(default_factory=dict)
    """Auction index -> the alert text another seat's call came with (``""``: a bare alert)."""
    leader: Player | None = None
    awaiting_dummy: bool = False
    ready_sent: bool = False
    """The ready message for the next call / card has been sent."""
    lead_cue: bool = False
    """``to lead`` arrived for the trick we are about to lead."""
    declarer_tricks: int = 0
    """Tricks won so far by declarer's side."""

    @property
    def declarer(self) -> Player | None:
        return None if self.contract is None else self.contract.declarer

    @property
    def dummy(self) -> Player | None:
        return None if self.contract is None else self.contract.declarer.partner

    @property
    def trick(self) -> int:
        """1-based number of the trick the next card belongs to."""
        return len(self.played) // 4 + 1

    @property
    def bidder(self) -> Player:
        return Player((self.dealer.value + len(self.auction)) % 4)

    @property
    def next_player(self) -> Player:
        if self.leader is None:
            raise LocalProtocolError("no card is due before the auction ends")
        return Player((self.leader.value + len(self.played) % 4) % 4)

    def controls(self, player: Player) -> bool:
        """Whether we produce ``player``'s card: our own unless we are dummy, dummy's if we
        declare."""
        if self.seat == self.dummy:
            return False
        return player == self.seat or (player == self.dummy and self.seat == self.declarer)

    def known_holding(self, player: Player) -> Hand | None:
        """What is left of ``player``'s hand, if we see it (ours, and dummy's once shown)."""
        if player == self.seat:
            return self.hand
        if player == self.dummy:
            return self.dummy_hand
        return None

    def revoke(self, holding: Hand, card: Card) -> bool:
        """Whether playing ``card`` from ``holding`` fails to follow suit to the current trick."""
        trick = [c for _, c in self.played[len(self.played) // 4 * 4 :]]
        return card not in legal_cards(holding, trick)

    def call_problem(self, call: Bid) -> str | None:
        """Why ``call`` may not be made now, or None if it is legal."""
        if calls.auction_over(self.auction):
            return "the auction is over"
        if calls.is_legal_call(self.dealer, self.auction, call):
            return None
        last = next((c for c in reversed(self.auction) if isinstance(c, ContractBid)), None)
        if isinstance(call, ContractBid) and last is not None:
            return f"{call} does not outrank {last}"
        return f"{call} is not a legal call after {len(self.auction)} calls"

    def copy(self) -> BoardState:
        return replace(
            self,
            hand=self.hand.copy(),
            auction=list(self.auction),
            dummy_hand=None if self.dummy_hand is None else self.dummy_hand.copy(),
            played=list(self.played),
            alerts=dict(self.alerts),
        )


def _clean_call(call: Bid) -> Bid:
    """The call without endplay's alert fields (the wire carries alerts in ``CallMsg.alert``)."""
    if isinstance(call, ContractBid):
        return ContractBid(call.level, call.denom)
    assert isinstance(call, PenaltyBid)
    return PenaltyBid(call.penalty)


@dataclass
class _Undo:
    """What to restore if the TM answers our last call / card with ``Illegal bid/card``."""

    kind: Literal["call", "card"]
    action: Bid | Card
    phase: Phase
    board: BoardState
    rejected: tuple[Bid, ...] | tuple[Card, ...]
    boards_finished: int


# A handler takes the message type its row of the tables below names (the tables guarantee it).
Handler = Callable[["SeatMachine", Any], list[Event]]
BoardHandler = Callable[["SeatMachine", BoardState, Any], list[Event]]
"""A handler of a phase with a board in play: the dispatch hands it the board."""


class SeatMachine:
    """One seat's side of a Blue Chip session; see the module docstring for the rules.

    ``seat`` None connects ``as ANYPL`` (WBridge5's Autoconnect) and takes the seat the TM names.
    """

    def __init__(
        self,
        team: str,
        seat: Player | None,
        *,
        dialect: Dialect = DEFAULT_DIALECT,
        dummy_form: DummyForm = "self",
        version: int = 18,
        extra: str = "",
    ) -> None:
        if '"' in team or not team.strip():
            raise LocalProtocolError(f"team name {team!r} must be non-empty and without quotes")
        self.team = team
        self.requested_seat = seat
        self.last_error: str | None = None
        """The last error line the table manager sent after seating us (for the operator)."""
        self._seat = seat
        self.dialect = dialect
        self.dummy_form: DummyForm = dummy_form
        self.version = version
        self.extra = extra
        self.phase = Phase.CONNECTING
        self.teams: m.Teams | None = None
        self.board: BoardState | None = None
        self.pending: NeedCall | NeedCard | None = None
        self.boards_finished = 0
        self._undo: _Undo | None = None
        self._connected = False

    # ------------------------------------------------------------------ public API

    @property
    def seat(self) -> Player:
        if self._seat is None:
            raise LocalProtocolError("the table manager has not assigned our seat yet")
        return self._seat

    @property
    def ended(self) -> bool:
        return self.phase is Phase.ENDED

    def connect(self) -> list[Event]:
        """The opening ``Connecting ...`` line."""
        if self._connected:
            raise LocalProtocolError("connect() called twice")
        self._connected = True
        return [Send(m.Connect(self.team, self.requested_seat, self.version, self.extra))]

    def receive_line(self, line: str) -> list[Event]:
        """Parse one line from the TM and feed it; an unreadable line is the TM's fault."""
        try:
            msg = parse(line, Direction.FROM_TM)
        except ParseError as exc:
            if self.phase is Phase.CONNECTING:
                raise RemoteProtocolError(
                    "table manager refused the connection", line=line
                ) from exc
            raise RemoteProtocolError(
                f"unreadable line from the table manager ({exc.message})", line=line
            ) from exc
        return self.receive(msg)

    def receive(self, msg: Message) -> list[Event]:
        """Advance on one message from the TM. Raises ``RemoteProtocolError`` if the message is
        wrong at this point; the machine is then unchanged."""
        if self.phase is Phase.ENDED:
            raise RemoteProtocolError(f"{type(msg).__name__} after End of session", line=_line(msg))
        transition = self._transition(msg)
        board = None if self.board is None else self.board.copy()
        saved = (self.phase, board, self.pending, self._undo, self._seat, self.boards_finished)
        try:
            events = transition()
        except RemoteProtocolError:
            self.phase, self.board, self.pending, self._undo, self._seat = saved[:5]
            self.boards_finished = saved[5]
            raise
        if not isinstance(msg, (m.IllegalBid, m.IllegalCard, m.Timing, m.Teams)):
            self._undo = None
        return events

    def _transition(self, msg: Message) -> Callable[[], list[Event]]:
        """The handler of ``msg`` in this phase, bound to it; raise if the tables have none."""
        kind = type(msg)
        board_handler = _BOARD_TRANSITIONS.get(self.phase, {}).get(kind)
        if board_handler is not None:
            return functools.partial(board_handler, self, self._board(), msg)
        handler = _TRANSITIONS[self.phase].get(kind)
        if handler is None and self.phase is not Phase.CONNECTING:
            handler = _AFTER_SEATING.get(kind)
        if handler is None:
            raise RemoteProtocolError(self._unexpected(msg), line=_line(msg))
        return functools.partial(handler, self, msg)

    def _board(self) -> BoardState:
        """The board in play, which every phase of :data:`_BOARD_TRANSITIONS` has."""
        if self.board is None:
            raise LocalProtocolError(f"no board in play in phase {self.phase.value}")
        return self.board

    def answer_call(self, call: Bid) -> list[Event]:
        """Our call for the pending :class:`NeedCall`. An alertable ``Bid`` (endplay's
        ``alertable``/``announcement``) goes out with ``Alert.`` and its explanation."""
        request = self.pending
        if not isinstance(request, NeedCall):
            raise LocalProtocolError("answer_call() without a pending call request")
        board = self._board()
        clean = _clean_call(call)
        err = board.call_problem(clean)
        if err:
            raise LocalProtocolError(f"{_name(self.seat)} may not call {clean}: {err}")
        alert = (call.announcement or "") if call.alertable else None
        self._undo = _Undo(
            "call", clean, self.phase, board.copy(), request.rejected, self.boards_finished
        )
        self.pending = None
        board.auction.append(clean)
        board.ready_sent = False
        self.phase = Phase.AUCTION
        return [Send(m.CallMsg(self.seat, clean, alert=alert)), *self._advance(board)]

    def answer_card(self, card: Card) -> list[Event]:
        """Our card (or dummy's, when we declare) for the pending :class:`NeedCard`."""
        request = self.pending
        if not isinstance(request, NeedCard):
            raise LocalProtocolError("answer_card() without a pending card request")
        board = self._board()
        holding = request.holding
        if card not in list(holding):
            raise LocalProtocolError(f"{_name(request.player)} does not hold {card}")
        if board.revoke(holding, card):
            raise LocalProtocolError(f"{_name(request.player)} must follow suit, not play {card}")
        self._undo = _Undo(
            "card", card, self.phase, board.copy(), request.rejected, self.boards_finished
        )
        self.pending = None
        self.phase = Phase.PLAY
        events: list[Event] = [Send(m.PlayMsg(request.player, card))]
        events += self._apply_card(board, request.player, card)
        return events + self._advance(board)

    # ------------------------------------------------------------------ session handlers

    def _on_seated(self, msg: m.Seated) -> list[Event]:
        if self.requested_seat is not None and msg.seat != self.requested_seat:
            raise RemoteProtocolError(
                f"asked for {_name(self.requested_seat)} but was seated as {_name(msg.seat)}",
                line=_line(msg),
            )
        self._seat = msg.seat
        self.phase = Phase.AWAIT_TEAMS
        return [Send(m.ReadyForTeams(msg.seat))]

    def _on_refused(self, msg: m.ErrorText) -> list[Event]:
        raise RemoteProtocolError(f"table manager refused the connection: {msg.text}")

    def _on_error_text(self, msg: m.ErrorText) -> list[Event]:
        self.last_error = msg.text
        return [TableError(msg.text)]  # the table goes on, or closes: either tells us (above)

    def _on_teams(self, msg: m.Teams) -> list[Event]:
        self.teams = msg
        self.phase = Phase.WAIT_BOARD
        return [Send(m.ReadyToStart(self.seat))]

    def _on_ignored(self, msg: Message) -> list[Event]:
        return [Ignored(msg)]

    def _on_start_of_board(self, msg: m.StartOfBoard) -> list[Event]:
        # Mid-board (any phase but WAIT_BOARD) this drops the board: Ben's restart (docs/protocol.md §4).
        self.board = None
        self.pending = None
        self.phase = Phase.AWAIT_BOARD_INFO
        return [Send(m.ReadyForDeal(self.seat))]

    def _on_board_info(self, msg: m.BoardInfo) -> list[Event]:
        self.board = BoardState(seat=self.seat, number=msg.number, dealer=msg.dealer, vul=msg.vul)
        self.phase = Phase.AWAIT_CARDS
        return [BoardStarted(msg.number), Send(m.ReadyForCards(self.seat))]

    def _on_illegal(self, msg: m.IllegalBid | m.IllegalCard) -> list[Event]:
        kind = "call" if isinstance(msg, m.IllegalBid) else "card"
        undo = self._undo
        if undo is None or undo.kind != kind:
            raise RemoteProtocolError(f"{_line(msg)!r} but our last action was no {kind}")
        self._undo = None
        self.phase = undo.phase
        self.board = undo.board
        self.boards_finished = undo.boards_finished
        if isinstance(undo.action, Card):
            rejected_cards = tuple(c for c in undo.rejected if isinstance(c, Card))
            self.pending = None
            return [
                self._ask_card(undo.board, undo.board.next_player, (*rejected_cards, undo.action))
            ]
        rejected_calls = tuple(c for c in undo.rejected if not isinstance(c, Card))
        return [self._ask_call(undo.board, (*rejected_calls, undo.action))]

    def _on_end(self, msg: m.EndOfSession) -> list[Event]:
        self.phase = Phase.ENDED
        self.board = None
        self.pending = None
        return [SessionEnded(self.boards_finished)]

    # ------------------------------------------------------------------ board handlers

    def _on_cards(self, board: BoardState, msg: m.Cards) -> list[Event]:
        if msg.seat != self.seat:
            # ZBridge v20 sends all four hands to everyone; we only need ours.
            return [Ignored(msg)]
        if len(msg.hand) != 13:
            raise RemoteProtocolError(f"our hand has {len(msg.hand)} cards", line=_line(msg))
        board.hand = msg.hand.copy()
        self.phase = Phase.AUCTION
        return self._advance(board)

    def _on_call(self, board: BoardState, msg: m.CallMsg) -> list[Event]:
        expected = board.bidder
        if msg.seat != expected:
            raise RemoteProtocolError(
                f"a call from {_name(msg.seat)} while {_name(expected)} is to call",
                seat=msg.seat,
                line=_line(msg),
            )
        call = _clean_call(msg.call)
        err = board.call_problem(call)
        if err:
            raise RemoteProtocolError(
                f"illegal call relayed: {err}", seat=msg.seat, line=_line(msg)
            )
        if msg.alert is not None:
            board.alerts[len(board.auction)] = msg.alert
        board.auction.append(call)
        board.ready_sent = False
        return self._advance(board)

    def _on_play(self, board: BoardState, msg: m.PlayMsg) -> list[Event]:
        player = board.next_player
        if board.controls(player):
            raise RemoteProtocolError(
                f"a card relayed for {_name(player)}, whose card we play", line=_line(msg)
            )
        seat = board.dummy if msg.seat is None else msg.seat
        if seat != player:
            raise RemoteProtocolError(
                f"a card from {_name(seat)} while {_name(player)} is to play",
                seat=seat,
                line=_line(msg),
            )
        holding = board.known_holding(player)
        card = msg.card
        if any(c == card for _, c in board.played):
            raise RemoteProtocolError(f"{card} was already played", seat=player, line=_line(msg))
        if holding is not None:
            if card not in list(holding):
                raise RemoteProtocolError(f"{_name(player)} does not hold {card}", seat=player)
            if board.revoke(holding, card):
                raise RemoteProtocolError(f"{_name(player)} revoked with {card}", seat=player)
        else:
            for other in (board.hand, board.dummy_hand):
                if other is not None and card in list(other):
                    raise RemoteProtocolError(
                        f"{_name(player)} played {card}, which another hand we see holds",
                        seat=player,
                        line=_line(msg),
                    )
        events = self._apply_card(board, player, card)
        return events + self._advance(board)

    def _on_to_lead(self, board: BoardState, msg: m.ToLead) -> list[Event]:
        if len(board.played) % 4:
            # Early: the TM announced the next trick's lead before relaying this trick's last
            # card (seen from our own table manager when a ready message came late). Keep it
            # for the next trick; it is dropped there if we do not control that lead.
            board.lead_cue = True
            return []
        if self.phase is Phase.PLAY and board.controls(board.next_player):
            board.lead_cue = True
            return self._advance(board)
        # Sent to a seat that does not lead: harmless, the card order is ours to track.
        return [Ignored(msg)]

    def _on_dummy_cards(self, board: BoardState, msg: m.DummyCards) -> list[Event]:
        if not board.awaiting_dummy:
            raise RemoteProtocolError("Dummy's cards we did not ask for", line=_line(msg))
        # The hand as dealt (13 cards), or what is left of it if the TM relayed dummy's first
        # card before answering our "ready for dummy" (the relay order is the TM's choice).
        dummy_played = [c for p, c in board.played if p == board.dummy]
        hand = msg.hand.copy()
        if len(hand) == 13:
            for card in dummy_played:
                if card not in list(hand):
                    raise RemoteProtocolError(
                        f"dummy's cards lack {card}, which dummy played", line=_line(msg)
                    )
                hand.remove(card)
        if len(hand) + len(dummy_played) != 13:
            raise RemoteProtocolError(f"dummy's hand has {len(msg.hand)} cards", line=_line(msg))
        board.dummy_hand = hand
        board.awaiting_dummy = False
        return self._advance(board)

    # ------------------------------------------------------------------ the board's course

    def _advance(self, board: BoardState) -> list[Event]:
        """Say what comes next after the state changed: a ready message, a request, or the end."""
        me = self.seat
        if self.phase is Phase.AUCTION:
            if calls.auction_over(board.auction):
                return self._start_play(board)
            bidder = board.bidder
            if bidder == me:
                return [self._ask_call(board, ())]
            if board.ready_sent:
                return []
            board.ready_sent = True
            return [Send(m.ReadyForBid(me, bidder))]
        if self.phase is not Phase.PLAY:
            raise LocalProtocolError(f"nothing to advance in phase {self.phase.value}")
        if len(board.played) == 52:
            return self._finish_board(board)
        if board.awaiting_dummy:
            return []
        player = board.next_player
        if board.controls(player):
            if len(board.played) % 4 == 0 and not board.lead_cue:
                return []  # wait for "<X> to lead"
            board.lead_cue = False
            return [self._ask_card(board, player, ())]
        if board.ready_sent:
            return []
        board.ready_sent = True
        named: Player | None = player
        if player == board.dummy and (
            self.dummy_form == "all" or (self.dummy_form == "self" and me == board.dummy)
        ):
            named = None
        return [Send(m.ReadyForCard(me, named, board.trick))]

    def _start_play(self, board: BoardState) -> list[Event]:
        contract = calls.final_contract(board.dealer, board.auction)
        if contract is None:
            return self._finish_board(board)
        board.contract = contract
        board.leader = Player((contract.declarer.value + 1) % 4)
        board.ready_sent = False
        self.phase = Phase.PLAY
        events: list[Event] = []
        me = self.seat
        if self.dialect.early_dummy and me not in (board.dummy, board.leader):
            # bridge-player: declarer and the leader's partner ask for dummy before the lead.
            events.append(Send(m.ReadyForDummy(me)))
            board.awaiting_dummy = True
        return events + self._advance(board)

    def _apply_card(self, board: BoardState, player: Player, card: Card) -> list[Event]:
        """Record ``player``'s ``card`` (ours, relayed or chosen) and close a finished trick."""
        if board.contract is None or board.leader is None:
            raise LocalProtocolError("a card before the auction ended")
        holding = board.known_holding(player)
        if holding is not None:
            holding.remove(card)
        board.played.append((player, card))
        board.ready_sent = False
        events: list[Event] = []
        first = len(board.played) == 1 and self.seat != board.dummy
        if first and board.dummy_hand is None and not board.awaiting_dummy:
            events.append(Send(m.ReadyForDummy(self.seat)))
            board.awaiting_dummy = True
        if len(board.played) % 4 == 0:
            trick = [c for _, c in board.played[-4:]]
            board.leader = trick_winner(board.leader, trick, board.contract.denom)
            declarer = board.contract.declarer
            board.declarer_tricks += board.leader in (declarer, declarer.partner)
            if not board.controls(board.leader):
                board.lead_cue = False  # an early cue was not for us after all
        return events

    def _finish_board(self, board: BoardState) -> list[Event]:
        self.boards_finished += 1
        self.phase = Phase.WAIT_BOARD
        self.board = None
        tricks = None if board.contract is None else board.declarer_tricks
        return [BoardFinished(board.number, board.contract is None, board.contract, board, tricks)]

    def _ask_call(self, board: BoardState, rejected: tuple[Bid, ...]) -> NeedCall:
        self.phase = Phase.DECIDING
        request = NeedCall(
            seat=self.seat,
            board=board.number,
            dealer=board.dealer,
            vul=board.vul,
            hand=board.hand.copy(),
            auction=tuple(board.auction),
            rejected=rejected,
        )
        self.pending = request
        return request

    def _ask_card(self, board: BoardState, player: Player, rejected: tuple[Card, ...]) -> NeedCard:
        if board.contract is None:
            raise LocalProtocolError("a card request before the auction ended")
        self.phase = Phase.DECIDING
        request = NeedCard(
            player=player,
            controller=self.seat,
            board=board.number,
            dealer=board.dealer,
            vul=board.vul,
            auction=tuple(board.auction),
            contract=board.contract,
            hand=board.hand.copy(),
            dummy=None if board.dummy_hand is None else board.dummy_hand.copy(),
            played=tuple(board.played),
            rejected=rejected,
        )
        self.pending = request
        return request

    def _unexpected(self, msg: Message) -> str:
        where = self.phase.value.replace("_", " ")
        if self.phase is Phase.DECIDING and self.pending is not None:
            where = f"our {'call' if isinstance(self.pending, NeedCall) else 'card'} is due"
        return f"unexpected {type(msg).__name__} ({where})"


def _line(msg: Message) -> str:
    try:
        return render(msg)
    except Exception:  # a message the codec cannot render still deserves a readable error
        return repr(msg)


def _name(seat: Player | None) -> str:
    return "dummy" if seat is None else seat.name.capitalize()


_RESTARTABLE: dict[type[Message], Handler] = {m.StartOfBoard: SeatMachine._on_start_of_board}

#: phase -> message type -> handler, for the phases without a board in play.
_TRANSITIONS: dict[Phase, dict[type[Message], Handler]] = {
    Phase.CONNECTING: {m.Seated: SeatMachine._on_seated, m.ErrorText: SeatMachine._on_refused},
    Phase.AWAIT_TEAMS: {m.Teams: SeatMachine._on_teams},
    Phase.WAIT_BOARD: {**_RESTARTABLE},
    Phase.AWAIT_BOARD_INFO: {m.BoardInfo: SeatMachine._on_board_info, **_RESTARTABLE},
    Phase.AWAIT_CARDS: {**_RESTARTABLE},
    Phase.AUCTION: {**_RESTARTABLE},
    Phase.PLAY: {**_RESTARTABLE},
    Phase.DECIDING: {**_RESTARTABLE},
    Phase.ENDED: {},
}

#: phase -> message type -> handler, for the phases with a board in play (the handler gets it).
_BOARD_TRANSITIONS: dict[Phase, dict[type[Message], BoardHandler]] = {
    Phase.AWAIT_CARDS: {m.Cards: SeatMachine._on_cards},
    Phase.AUCTION: {m.CallMsg: SeatMachine._on_call},
    Phase.PLAY: {
        m.PlayMsg: SeatMachine._on_play,
        m.DummyCards: SeatMachine._on_dummy_cards,
        m.ToLead: SeatMachine._on_to_lead,
    },
    # While our bot thinks the TM should be quiet; a restart or a stray "to lead" is fine.
    Phase.DECIDING: {m.ToLead: SeatMachine._on_to_lead},
}

#: Messages valid in every phase after seating.
_AFTER_SEATING: dict[type[Message], Handler] = {
    m.Timing: SeatMachine._on_ignored,
    m.Teams: SeatMachine._on_ignored,
    m.EndOfSession: SeatMachine._on_end,
    m.IllegalBid: SeatMachine._on_illegal,
    m.IllegalCard: SeatMachine._on_illegal,
    m.ErrorText: SeatMachine._on_error_text,
}
