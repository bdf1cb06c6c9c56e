"""One board at the table: what the table manager knows of it while it is played.

:class:`Board` is made by :class:`~protocol.table.TableMachine` at ``Start of board`` and dropped
when the board ends (a restart makes a fresh one), so nothing of one board leaks into the next.
It takes the board's messages (the handlers named in ``protocol.table.TRANSITIONS``), hands out
the deal and the cards, runs the auction and, through :class:`~protocol.relay.CardPlay`, the play;
its state says which phase the board is in and whether it is over. The session around it (seats,
queues, the early-message rule) is the machine's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bridgebot.laws import calls
from bridgebot.laws.boards import BoardDeal
from bridgebot.protocol.errors import LocalProtocolError, RemoteProtocolError
from bridgebot.protocol.messages import (
    BoardInfo,
    CallMsg,
    Cards,
    IllegalBid,
    IllegalCard,
    Message,
    PlayMsg,
    ReadyForBid,
    ReadyForCard,
    ReadyForCards,
    ReadyForDeal,
    ReadyForDummy,
)
from bridgebot.protocol.relay import SEATS, CardPlay, Out, ThinkingTime, name
from endplay.types import Bid, Card, Contract, Player

TableBoard = BoardDeal
"""One board to play: the project's one board type (:class:`bridgebot.laws.boards.BoardDeal`),
under the name the table machine has always used."""


@dataclass
class TableResult:
    """What happened at the table on one board, handed to the shell when the board ends."""

    board: TableBoard
    auction: list[Bid] = field(default_factory=list)
    play: list[tuple[Player, Card]] = field(default_factory=list)
    contract: Contract | None = None
    declarer_tricks: int | None = None
    aborted: str | None = None
    """Why the board was abandoned (illegal actions, a timeout), else None."""
    alerts: dict[int, str] = field(default_factory=dict)
    """Auction index -> alert text ("" for a bare alert)."""
    ns_seconds: float = 0.0
    ew_seconds: float = 0.0
    ns_team: str | None = None
    """The team names seated when the board ended (the records name who played it)."""
    ew_team: str | None = None

    @property
    def passed_out(self) -> bool:
        return self.aborted is None and self.contract is None


class Board:
    """The table manager's state for the board in play (rules 4-8 of ``protocol.table``).

    Each handler takes one message from a seat whose turn the machine has checked, appends what
    to send to ``out`` and returns True if it consumed the message, False if the message must
    wait in its queue; it raises :class:`RemoteProtocolError` (state unchanged) if the message is
    wrong.
    """

    def __init__(self, board: TableBoard, *, clock: Callable[[], float], max_illegal: int) -> None:
        self.board = board
        self.max_illegal = max_illegal
        self.time = ThinkingTime(clock)
        self.deal_ready: set[Player] = set()
        self.cards_ready: set[Player] = set()
        self.auction: list[Bid] = []
        self.alerts: dict[int, str] = {}
        self.play: CardPlay | None = None
        self.aborted: str | None = None
        self._illegal = dict.fromkeys(SEATS, 0)
        self._call_ready: set[Player] = set()
        self._pending_call: CallMsg | None = None
        """A legal call not yet relayed: it goes out once the three others are ready (rule 7)."""
        self._taken: dict[Player, set[Message]] = {p: set() for p in SEATS}
        self._last_bid_ready: dict[Player, ReadyForBid] = {}

    # ------------------------------------------------------------------ state

    @property
    def auction_over(self) -> bool:
        return calls.auction_over(self.auction)

    @property
    def ended(self) -> bool:
        """Aborted, passed out, or played to the end and every card relayed."""
        if self.aborted is not None:
            return True
        if self.play is not None:
            return self.play.done
        return self.auction_over  # with no play: passed out

    def abort(self, reason: str) -> None:
        self.aborted = reason

    def result(self, *, ns_team: str | None, ew_team: str | None) -> TableResult:
        play = self.play if self.aborted is None else None
        return TableResult(
            board=self.board,
            auction=list(self.auction),
            play=[] if self.play is None else list(self.play.plays),
            contract=None if play is None else play.contract,
            declarer_tricks=None if play is None else play.declarer_tricks,
            aborted=self.aborted,
            alerts=dict(self.alerts),
            ns_seconds=self.time.seconds[0],
            ew_seconds=self.time.seconds[1],
            ns_team=ns_team,
            ew_team=ew_team,
        )

    # ------------------------------------------------------------------ repeated ready lines

    def is_repeat(self, seat: Player, msg: Message) -> bool:
        """Whether ``msg`` repeats a board-level ready line already taken from ``seat``.

        ``ready for deal``, ``ready for cards`` and ``ready for dummy`` name their object
        uniquely within a board, so the same text twice is a repeat (Ben after a restart).
        ``ready for East's bid`` comes back every round, but never twice in a row from an honest
        seat: between two of them it owes a ready for each of the two other calls of the round.
        Card-level ready lines are not judged here by their text: the same text may ask for the
        next card (bridge-player's dummy, issue 25); the play judges them by the card each seat
        is owed (:meth:`CardPlay.on_ready_for_card`)."""
        if isinstance(msg, ReadyForBid):
            return msg == self._last_bid_ready.get(seat)
        if isinstance(msg, ReadyForDeal | ReadyForCards | ReadyForDummy):
            return msg in self._taken[seat]
        return False

    def note_taken(self, seat: Player, msg: Message) -> bool:
        """Remember a board-level ready line just taken; return whether it was one (its queued
        copies go too)."""
        if isinstance(msg, ReadyForBid):
            self._last_bid_ready[seat] = msg
        elif isinstance(msg, ReadyForDeal | ReadyForCards | ReadyForDummy):
            self._taken[seat].add(msg)
        else:
            return False
        return True

    # ------------------------------------------------------------------ the deal

    def on_ready_for_deal(self, seat: Player, msg: ReadyForDeal, out: list[Out]) -> bool:
        if seat in self.deal_ready:
            return False
        self.deal_ready.add(seat)
        if len(self.deal_ready) == 4:
            b = self.board
            line = BoardInfo(number=b.number, dealer=b.dealer, vul=b.vul)
            out.extend((p, line) for p in SEATS)
        return True

    def on_ready_for_cards(self, seat: Player, msg: ReadyForCards, out: list[Out]) -> bool:
        if seat in self.cards_ready:
            return False
        self.cards_ready.add(seat)
        if len(self.cards_ready) == 4:
            out.extend((p, Cards(seat=p, hand=self.board.deal[p].copy())) for p in SEATS)
            self.time.start()
        return True

    # ------------------------------------------------------------------ the auction

    def bidder(self) -> Player:
        return Player((self.board.dealer.value + len(self.auction)) % 4)

    def check_call_turn(self, seat: Player, msg: CallMsg) -> None:
        """Raise unless the next call is ``seat``'s and it has none waiting to be relayed."""
        bidder = self.bidder()
        if seat != bidder:
            raise RemoteProtocolError(
                f"{name(bidder)} is to call, not {name(seat)}", seat=seat, line=repr(msg)
            )
        if self._pending_call is not None:
            raise RemoteProtocolError(
                "a second call before the first was relayed", seat=seat, line=repr(msg)
            )

    def on_ready_for_bid(self, seat: Player, msg: ReadyForBid, out: list[Out]) -> bool:
        bidder = self.bidder()
        if seat in self._call_ready or (seat == bidder and self._pending_call is not None):
            return False  # early: for a later call
        if seat == bidder:
            raise RemoteProtocolError(f"{name(seat)} is to call", seat=seat)
        if msg.bidder != bidder:
            raise RemoteProtocolError(
                f"ready for {name(msg.bidder)}'s bid, but {name(bidder)} is to call", seat=seat
            )
        self._call_ready.add(seat)
        self._maybe_relay_call(out)
        return True

    def on_call(self, seat: Player, msg: CallMsg, out: list[Out]) -> bool:
        self.check_call_turn(seat, msg)
        if msg.seat != seat:
            raise RemoteProtocolError(f"a call in {name(msg.seat)}'s name", seat=seat)
        if not calls.is_legal_call(self.board.dealer, self.auction, msg.call):
            self._illegal_action(seat, out, IllegalBid(), "calls")
            return True
        self.time.stop(seat)
        self._pending_call = msg
        self._maybe_relay_call(out)
        return True

    def _maybe_relay_call(self, out: list[Out]) -> None:
        call = self._pending_call
        if call is None or len(self._call_ready) < 3:
            return
        bidder = call.seat
        for p in (bidder.lho, bidder.partner, bidder.rho):
            alert = None if p == bidder.partner else call.alert  # to the opponents only (2.3)
            out.append((p, CallMsg(seat=bidder, call=call.call, alert=alert)))
        if call.alert is not None:
            self.alerts[len(self.auction)] = call.alert
        self.auction.append(call.call)
        self._pending_call = None
        self._call_ready = set()
        if not self.auction_over:
            self.time.start()
            return
        contract = calls.final_contract(self.board.dealer, self.auction)
        if contract is not None:
            self.play = CardPlay(self.board.deal, contract, self.time)

    # ------------------------------------------------------------------ the play

    def _require_play(self) -> CardPlay:
        if self.play is None:
            raise LocalProtocolError("no contract: the play has not begun")
        return self.play

    def on_ready_for_dummy(self, seat: Player, msg: ReadyForDummy, out: list[Out]) -> bool:
        return self._require_play().on_ready_for_dummy(seat, out)

    def on_ready_for_card(self, seat: Player, msg: ReadyForCard, out: list[Out]) -> bool:
        return self._require_play().on_ready_for_card(seat, msg, out)

    def on_card(self, seat: Player, msg: PlayMsg, out: list[Out]) -> bool:
        taken = self._require_play().on_card(seat, msg, out)
        if taken is None:
            self._illegal_action(seat, out, IllegalCard(), "cards")
            return True
        return taken

    # ------------------------------------------------------------------ bookkeeping

    def _illegal_action(self, seat: Player, out: list[Out], reply: Message, what: str) -> None:
        """Rule 4: ``Illegal bid``/``Illegal card`` to the offender, or abort at the limit."""
        self._illegal[seat] += 1
        if self._illegal[seat] >= self.max_illegal:
            self.abort(f"{name(seat)} made {self._illegal[seat]} illegal {what}")
            return
        out.append((seat, reply))

    def waiting_for(self) -> list[Player]:
        """Seats this board waits on now (for timeouts and error reports)."""
        if len(self.deal_ready) < 4:
            return [p for p in SEATS if p not in self.deal_ready]
        if len(self.cards_ready) < 4:
            return [p for p in SEATS if p not in self.cards_ready]
        if self.play is not None:
            return self.play.waiting_for()
        bidder = self.bidder()
        waiting = [p for p in SEATS if p != bidder and p not in self._call_ready]
        if self._pending_call is None:
            waiting.insert(0, bidder)
        return waiting

    def describe(self) -> str:
        """Where the auction or the play stands ("" before the auction)."""
        if self.play is not None:
            return self.play.describe()
        if len(self.cards_ready) < 4:
            return ""
        return f"call {len(self.auction) + 1}, {name(self.bidder())} to call"
