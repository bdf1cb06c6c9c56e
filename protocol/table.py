"""The table manager's side of Blue Chip v18 as a sans-IO state machine.

Feed it ``(seat, message)`` events with :meth:`TableMachine.receive`; it returns the
``(seat, message)`` pairs to send. It never touches a socket, a clock of its own or a logger: the
asyncio shell (``server.tm``) owns those and injects the clock (for the Timing line) and the laws
of bridge (:class:`Rules`; ``engine.rules`` satisfies it, and ``protocol`` must not import
``engine``).

Rules of the machine (docs/protocol.md sections 2-5; the tables are :data:`PHASE_FLOW`, the phase
graph, and :data:`TRANSITIONS`, what each phase consumes):

1. Phases run SEATING -> TEAMS -> IDLE -> (DEAL -> CARDS -> AUCTION [-> PLAY] -> IDLE)* -> ENDED.
   IDLE is "between boards": the shell journals the finished board, then calls
   :meth:`start_board` or :meth:`end_session`. A board can also be SUSPENDED (a seat went away)
   and restarts from ``Start of board`` once all four seats are back.
2. Each seat has a queue of ready lines (section 3.1), and one rule for every message, alone or
   in a burst (docs/protocol.md, "Messages that arrive early"):
   * a ``ready for ...`` line may arrive early: it waits in the queue until the table gets there
     (``ready for`` the next trick before the last card was relayed, as bridge-player does); one
     for a later phase does not hold up the lines behind it;
   * a ready line repeating one already taken on this board (Ben re-sends ``ready for deal``
     after a restart) is ignored: not queued, not an error;
   * a call or card is taken at once if the next call or card of the board is that seat's to
     make (a lead may still wait for its ``to lead`` prompt); otherwise it is refused at once;
   * a refused message raises :class:`RemoteProtocolError` naming the seat, is dropped, and
     leaves the state unchanged; the queue goes on.
3. A message whose phase is already over is an error at once (state unchanged), except these,
   which are ignored: ``received dummy`` (GIB, bridge-player), a stray ``ready to start`` after the
   first one (Ben re-sends it), and, just after ``Start of board``, leftovers of an abandoned board.
4. Calls and cards are checked with the injected :class:`Rules`. An illegal one is answered with
   ``Illegal bid``/``Illegal card`` to the offender, who may try again; the ``max_illegal``-th
   illegal action of a seat in a board aborts the board (:class:`BoardResult` ``aborted``).
5. Ready messages for dummy's cards: while dummy is to play either form is accepted from everyone;
   otherwise dummy may use either form (the "Recommended TM rule" of section 2.4).
6. ``<Seat> to lead`` / ``Dummy to lead`` goes to the controller at each trick once the other seats
   are ready, except that a seat which asked for dummy before the opening lead (bridge-player) is
   not waited for at trick 1; it gets ``Dummy's cards`` right after the lead.
7. A card is relayed to a seat once it is played and that seat has said it is ready for it (so a
   seat that is late never blocks the others). Calls are relayed to the three others once all of
   them are ready; the alert text goes to the opponents only.
8. Thinking time: the clock is read when a call or card falls due (for a lead: when ``to lead`` is
   sent) and when a legal one arrives; the difference goes to the controller's side.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bridgebot.protocol.codec import team_name_problem
from bridgebot.protocol.errors import LocalProtocolError, RemoteProtocolError
from bridgebot.protocol.messages import (
    BoardInfo,
    CallMsg,
    Cards,
    Connect,
    DummyCards,
    EndOfSession,
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
from endplay.types import Bid, Card, Contract, Deal, Denom, Hand, Player, Vul

SEATS: tuple[Player, ...] = (Player.north, Player.east, Player.south, Player.west)
Out = tuple[Player, Message]

#: Protocol versions a seat may announce (18 everyone; 19 ComputerBridge; 20 ZBridge speaks 18 too).
SUPPORTED_VERSIONS = frozenset({18, 19, 20})


class Rules(Protocol):
    """The laws the table enforces, injected so that ``protocol`` stays free of ``engine``.

    The module ``engine.rules`` satisfies this protocol as it stands.
    """

    def is_legal_call(self, dealer: Player, auction: Sequence[Bid], call: Bid) -> bool: ...
    def auction_over(self, auction: Sequence[Bid]) -> bool: ...
    def final_contract(self, dealer: Player, auction: Sequence[Bid]) -> Contract | None: ...
    def legal_cards(self, hand: Hand, trick: Sequence[Card]) -> tuple[Card, ...]: ...
    def trick_winner(self, leader: Player, trick: Sequence[Card], trump: Denom) -> Player: ...


class Phase(enum.Enum):
    SEATING = "seating"
    TEAMS = "teams"
    IDLE = "idle"
    DEAL = "deal"
    CARDS = "cards"
    AUCTION = "auction"
    PLAY = "play"
    SUSPENDED = "suspended"
    ENDED = "ended"


#: The order of phases within the session/board, used to tell an early message from a late one.
_ORDER = {
    Phase.SEATING: 0,
    Phase.TEAMS: 1,
    Phase.IDLE: 2,
    Phase.DEAL: 3,
    Phase.CARDS: 4,
    Phase.AUCTION: 5,
    Phase.PLAY: 6,
}

#: The transition table: in each phase, which client messages the phase consumes. A message of a
#: later phase waits in its seat's queue; one of an earlier phase is an error (rule 3).
TRANSITIONS: dict[Phase, frozenset[type[Message]]] = {
    Phase.SEATING: frozenset({ReadyForTeams}),
    Phase.TEAMS: frozenset({ReadyForTeams, ReadyToStart}),
    Phase.IDLE: frozenset(),
    Phase.DEAL: frozenset({ReadyForDeal}),
    Phase.CARDS: frozenset({ReadyForCards}),
    Phase.AUCTION: frozenset({ReadyForBid, CallMsg}),
    Phase.PLAY: frozenset({ReadyForCard, PlayMsg, ReadyForDummy}),
    Phase.SUSPENDED: frozenset(),
    Phase.ENDED: frozenset(),
}

#: The phase in which each client message is consumed.
_STAGE: dict[type[Message], Phase] = {
    ReadyForTeams: Phase.SEATING,
    ReadyToStart: Phase.TEAMS,
    ReadyForDeal: Phase.DEAL,
    ReadyForCards: Phase.CARDS,
    ReadyForBid: Phase.AUCTION,
    CallMsg: Phase.AUCTION,
    ReadyForCard: Phase.PLAY,
    PlayMsg: Phase.PLAY,
    ReadyForDummy: Phase.PLAY,
}

#: The phase graph: every change of phase the machine may make (rule 1). ``_goto`` refuses any
#: other, so a bug in a handler shows up as a ``LocalProtocolError`` instead of a strange table.
PHASE_FLOW: dict[Phase, frozenset[Phase]] = {
    Phase.SEATING: frozenset({Phase.TEAMS, Phase.ENDED}),
    Phase.TEAMS: frozenset({Phase.IDLE, Phase.ENDED}),
    Phase.IDLE: frozenset({Phase.DEAL, Phase.ENDED}),
    Phase.DEAL: frozenset({Phase.CARDS, Phase.SUSPENDED, Phase.IDLE}),
    Phase.CARDS: frozenset({Phase.AUCTION, Phase.SUSPENDED, Phase.IDLE}),
    Phase.AUCTION: frozenset({Phase.PLAY, Phase.SUSPENDED, Phase.IDLE}),
    Phase.PLAY: frozenset({Phase.SUSPENDED, Phase.IDLE}),
    Phase.SUSPENDED: frozenset({Phase.DEAL, Phase.IDLE, Phase.ENDED}),
    Phase.ENDED: frozenset(),
}

#: How many messages a seat may have waiting before it is treated as flooding.
MAX_QUEUED = 64


class SeatState(enum.Enum):
    """Where one seat is in the session handshake (a reconnecting seat repeats it)."""

    ABSENT = "absent"
    SEATED = "seated"  # answered "seated"; owes "ready for teams"
    TEAMS = "teams"  # has the Teams line (or is waiting for it); owes "ready to start"
    READY = "ready"  # takes part in boards


@dataclass(frozen=True)
class TableBoard:
    """One board to play: its number, dealer, vulnerability and the four hands."""

    number: int
    dealer: Player
    vul: Vul
    deal: Deal


@dataclass
class BoardResult:
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


def _remove(q: deque[Message], i: int, msg: Message) -> None:
    """Drop ``msg`` from position ``i`` of ``q`` if it is still there."""
    if i < len(q) and q[i] is msg:
        del q[i]


def _side(p: Player) -> int:
    return p.value % 2  # 0 = N/S, 1 = E/W


def _name(p: Player) -> str:
    return p.name.capitalize()


class TableMachine:
    """One table's protocol state. Not thread-safe; one asyncio task or one test drives it."""

    def __init__(
        self,
        rules: Rules,
        *,
        clock: Callable[[], float],
        max_illegal: int = 3,
        scoring: str | None = None,
    ) -> None:
        if max_illegal < 1:
            raise ValueError("max_illegal must be at least 1")
        self.rules = rules
        self.clock = clock
        self.max_illegal = max_illegal
        self.scoring = scoring
        self.phase = Phase.SEATING
        self.teams: dict[Player, str] = {}
        self.seat_state: dict[Player, SeatState] = dict.fromkeys(SEATS, SeatState.ABSENT)
        self.queues: dict[Player, deque[Message]] = {p: deque() for p in SEATS}
        self.ns_total = 0.0
        self.ew_total = 0.0
        self.result: BoardResult | None = None
        self.finished: list[BoardResult] = []
        self.errors: list[RemoteProtocolError] = []
        self.repeats = 0
        """Ready lines ignored because they repeated one already taken (rule 2)."""
        self._board: TableBoard | None = None
        self._suspended_from: Phase | None = None
        self._reset_board_state()

    def _goto(self, phase: Phase) -> None:
        if phase not in PHASE_FLOW[self.phase]:
            raise LocalProtocolError(f"no transition from {self.phase.value} to {phase.value}")
        self.phase = phase

    # ------------------------------------------------------------------ seating

    def seat_request(self, msg: Connect, *, port_seat: Player | None = None) -> Player:
        """Choose the seat for a ``Connecting`` line, or raise with the error text to send.

        ``port_seat`` is the seat of the port the line came in on (classic one port per seat).
        A seat that is held for a disconnected player is given back to the same team name.
        """
        wanted = msg.seat if msg.seat is not None else port_seat
        if port_seat is not None and wanted != port_seat:
            raise RemoteProtocolError(
                f"Illegal hand '{msg.seat.name if msg.seat is not None else 'anypl'}' specified "
                f"(this port is {_name(port_seat)}'s)"
            )
        if msg.version not in SUPPORTED_VERSIONS:
            raise RemoteProtocolError(f"protocol version {msg.version} not supported")
        problem = team_name_problem(msg.team)
        if problem is not None:  # a name we could not write back would break the table later
            shown = ascii(msg.team[:40]) + ("..." if len(msg.team) > 40 else "")
            raise RemoteProtocolError(f"Error: {problem}: {shown}")
        if self.phase is Phase.ENDED:
            raise RemoteProtocolError("Error: the session has ended")
        if wanted is None:  # ANYPL (WBridge5 Autoconnect): first seat it may take
            for p in (Player.south, Player.west, Player.north, Player.east):
                if self._may_take(p, msg.team) is None:
                    return p
            raise RemoteProtocolError(f"Error: no free seat for team '{msg.team}'")
        problem = self._may_take(wanted, msg.team)
        if problem is not None:
            raise RemoteProtocolError(problem)
        return wanted

    def _may_take(self, seat: Player, team: str) -> str | None:
        if self.seat_state[seat] is not SeatState.ABSENT:
            return "Seat was already taken"
        held = self.teams.get(seat)
        if held is not None and held != team:
            return f"Team name must be '{held}'"
        partner = self.teams.get(seat.partner)
        if partner is not None and partner != team:
            return f"Team name must be '{partner}'"
        for opp in (seat.lho, seat.rho):
            if self.teams.get(opp) == team:
                return f"Team name must differ from opponents team name '{team}'"
        return None

    def seat(self, seat: Player, team: str) -> list[Out]:
        """Seat a player (after :meth:`seat_request` chose ``seat``); returns the seated line."""
        if self.seat_state[seat] is not SeatState.ABSENT:
            raise LocalProtocolError(f"{_name(seat)} is already seated")
        self.teams[seat] = team
        self.seat_state[seat] = SeatState.SEATED
        self.queues[seat].clear()
        return [(seat, Seated(seat=seat, team=team))]

    def disconnect(self, seat: Player) -> list[Out]:
        """A seat went away: hold it for the same team; a board in progress is suspended."""
        self.seat_state[seat] = SeatState.ABSENT
        self.queues[seat].clear()
        if self.phase is Phase.SEATING:
            # Before the Teams line nothing binds the seat to its first team: free it, so a
            # connection that came and went cannot hold the table for ever (issue 16).
            self.teams.pop(seat, None)
        if self.phase in (Phase.DEAL, Phase.CARDS, Phase.AUCTION, Phase.PLAY):
            self._suspended_from = self.phase
            self._goto(Phase.SUSPENDED)
        return []

    @property
    def all_ready(self) -> bool:
        """All four seats are connected and past the handshake."""
        return all(s is SeatState.READY for s in self.seat_state.values())

    @property
    def board(self) -> TableBoard | None:
        return self._board

    # ------------------------------------------------------------------ boards

    def start_board(self, board: TableBoard) -> list[Out]:
        """Send ``Start of board`` for ``board`` (from IDLE, with all four seats ready)."""
        if self.phase is not Phase.IDLE or not self.all_ready:
            raise LocalProtocolError(f"cannot start a board in phase {self.phase.value}")
        self._board = board
        return self._begin_board()

    def restart_board(self) -> list[Out]:
        """Play the suspended board again from ``Start of board`` (all four seats are back)."""
        if self.phase is not Phase.SUSPENDED or not self.all_ready:
            raise LocalProtocolError(f"cannot restart a board in phase {self.phase.value}")
        return self._begin_board()

    def abort_board(self, reason: str) -> list[Out]:
        """Abandon the board in progress (timeout, illegal actions); the shell journals it."""
        if self._board is None or self.phase not in (
            Phase.DEAL, Phase.CARDS, Phase.AUCTION, Phase.PLAY, Phase.SUSPENDED,
        ):  # fmt: skip
            raise LocalProtocolError(f"no board to abort in phase {self.phase.value}")
        self._finish(aborted=reason)
        return []

    def end_session(self) -> list[Out]:
        """Send ``End of session`` to every connected seat (between boards)."""
        if self.phase not in (Phase.IDLE, Phase.TEAMS, Phase.SEATING, Phase.SUSPENDED):
            raise LocalProtocolError(f"cannot end the session in phase {self.phase.value}")
        self._goto(Phase.ENDED)
        return [(p, EndOfSession()) for p in SEATS if self.seat_state[p] is not SeatState.ABSENT]

    def _begin_board(self) -> list[Out]:
        for q in self.queues.values():
            q.clear()
        self._reset_board_state()
        self._goto(Phase.DEAL)
        return [(p, StartOfBoard()) for p in SEATS]

    def _reset_board_state(self) -> None:
        self.result = None
        self._done: set[Player] = set()  # seats that did what the current step needs
        self._illegal: dict[Player, int] = dict.fromkeys(SEATS, 0)
        self._auction: list[Bid] = []
        self._alerts: dict[int, str] = {}
        self._infos: dict[int, str] = {}
        self._call_ready: set[Player] = set()
        self._pending_call: CallMsg | None = None
        self._due_since: float | None = None
        self._ns_board = 0.0
        self._ew_board = 0.0
        self._contract: Contract | None = None
        self._plays: list[tuple[Player, Card]] = []
        self._remaining: dict[Player, Hand] = {}
        self._declarer = Player.north
        self._dummy = Player.south
        self._ready_upto: dict[Player, int] = dict.fromkeys(SEATS, 0)
        self._relayed_upto: dict[Player, int] = dict.fromkeys(SEATS, 0)
        self._lead_sent = False
        self._dummy_asked: set[Player] = set()
        self._dummy_sent: set[Player] = set()
        self._leader: Player = Player.north
        self._taken: dict[Player, set[Message]] = {p: set() for p in SEATS}
        self._last_bid_ready: dict[Player, ReadyForBid] = {}

    # ------------------------------------------------------------------ input

    def receive(self, seat: Player, msg: Message) -> list[Out]:
        """Take one message from ``seat``; return what to send. Raises ``RemoteProtocolError``
        (naming the seat) for a message that does not fit, leaving the state unchanged."""
        if isinstance(msg, ReceivedDummy):
            return []  # abolished confirmation (GIB, bridge-player): ignore (rule 3)
        if isinstance(msg, Connect):
            raise RemoteProtocolError("already connected", seat=seat, line=repr(msg))
        state = self.seat_state[seat]
        if state is SeatState.ABSENT:
            raise LocalProtocolError(f"message from {_name(seat)}, who is not seated")
        if isinstance(msg, (ReadyForTeams, ReadyToStart)):
            return self._handshake(seat, msg)
        if state is not SeatState.READY:
            raise RemoteProtocolError(
                "finish connecting first (ready for teams, ready to start)", seat=seat
            )
        stage = _STAGE.get(type(msg))
        if stage is None:
            raise RemoteProtocolError("not a message a seat sends", seat=seat, line=repr(msg))
        leftover = (
            _ORDER[stage] >= _ORDER[Phase.AUCTION] and self.phase in (Phase.IDLE, Phase.SUSPENDED)
        ) or (
            # Before its "ready for deal", nothing a seat sends past the deal can be for this
            # board (no Board number was sent yet): a stale "ready for cards" from before a
            # restart would otherwise block the seat's queue for ever (issue 7's fuzzer).
            self.phase is Phase.DEAL
            and seat not in self._done
            and _ORDER[stage] > _ORDER[Phase.DEAL]
        )
        if leftover:
            return []  # a leftover of the board that just ended or was abandoned (rule 3)
        if self._is_repeat(seat, msg):
            self.repeats += 1
            return []  # a ready line already taken (Ben after a restart): ignored (rule 2)
        if self.phase in (Phase.ENDED, Phase.SUSPENDED, Phase.SEATING, Phase.TEAMS):
            raise RemoteProtocolError(
                f"unexpected now ({self.phase.value})", seat=seat, line=repr(msg)
            )
        if isinstance(msg, CallMsg | PlayMsg):
            self._check_turn(seat, msg)  # a call or card never waits (rule 2)
        if self.phase is not Phase.IDLE and _ORDER[stage] < _ORDER[self.phase]:
            raise RemoteProtocolError(
                f"too late: the table is in the {self.phase.value} phase", seat=seat, line=repr(msg)
            )
        if len(self.queues[seat]) >= MAX_QUEUED:
            raise RemoteProtocolError("too many messages ahead of the table", seat=seat)
        self.queues[seat].append(msg)
        return self._pump(seat)

    def _is_repeat(self, seat: Player, msg: Message) -> bool:
        """Whether ``msg`` repeats a ready line of this board already taken from ``seat``.

        Every ready line but ``ready for <seat>'s bid`` names its object uniquely within a board
        (the deal, the cards, dummy, one card of one trick). ``ready for East's bid`` comes back
        every round, but never twice in a row from an honest seat: between two of them it owes a
        ready for each of the two other calls of the round."""
        if isinstance(msg, ReadyForBid):
            return msg == self._last_bid_ready.get(seat)
        if isinstance(msg, ReadyForDeal | ReadyForCards | ReadyForCard | ReadyForDummy):
            return msg in self._taken[seat]
        return False

    def _note_taken(self, seat: Player, msg: Message) -> None:
        """Remember a ready line just taken, and drop its repeats already queued behind it."""
        if isinstance(msg, ReadyForBid):
            self._last_bid_ready[seat] = msg
        elif isinstance(msg, ReadyForDeal | ReadyForCards | ReadyForCard | ReadyForDummy):
            self._taken[seat].add(msg)
        else:
            return
        q = self.queues[seat]
        keep = [m for m in q if m is msg or m != msg]
        self.repeats += len(q) - len(keep)
        if len(keep) != len(q):
            q.clear()
            q.extend(keep)

    def _check_turn(self, seat: Player, msg: CallMsg | PlayMsg) -> None:
        """Raise unless the next call or card of the board is ``seat``'s to make (rule 2)."""
        what = "a call" if isinstance(msg, CallMsg) else "a card"
        if isinstance(msg, CallMsg) and self.phase is Phase.AUCTION:
            bidder = self._bidder()
            if seat != bidder:
                raise RemoteProtocolError(
                    f"{_name(bidder)} is to call, not {_name(seat)}", seat=seat, line=repr(msg)
                )
            if self._pending_call is not None:
                raise RemoteProtocolError(
                    "a second call before the first was relayed", seat=seat, line=repr(msg)
                )
            return
        if isinstance(msg, PlayMsg) and self.phase is Phase.PLAY:
            self._card_due(seat, msg)
            return
        raise RemoteProtocolError(
            f"{what} from {_name(seat)} in the {self.phase.value} phase", seat=seat, line=repr(msg)
        )

    def _handshake(self, seat: Player, msg: Message) -> list[Out]:
        state = self.seat_state[seat]
        if isinstance(msg, ReadyForTeams):
            if state is not SeatState.SEATED:
                raise RemoteProtocolError("ready for teams sent twice", seat=seat)
            self.seat_state[seat] = SeatState.TEAMS
            if self.phase is Phase.SEATING:
                if all(s is SeatState.TEAMS for s in self.seat_state.values()):
                    self._goto(Phase.TEAMS)
                    return [(p, self._teams_line()) for p in SEATS]
                return []
            return [(seat, self._teams_line())]  # a seat that came back mid-session
        # ReadyToStart
        if state is SeatState.READY:
            return []  # stray "ready to start" (Ben re-sends it): ignore (rule 3)
        if state is not SeatState.TEAMS or self.phase is Phase.SEATING:
            raise RemoteProtocolError("ready to start before the Teams line", seat=seat)
        self.seat_state[seat] = SeatState.READY
        if self.phase is Phase.TEAMS and self.all_ready:
            self._goto(Phase.IDLE)
        return []

    def _teams_line(self) -> Teams:
        return Teams(
            ns=self.teams.get(Player.north, ""),
            ew=self.teams.get(Player.east, ""),
            scoring=self.scoring,
        )

    # ------------------------------------------------------------------ the pump

    def _pump(self, first: Player) -> list[Out]:
        """Consume queued messages until no seat's queue head fits (rule 2).

        An error in the head of ``first`` (the seat that just sent) before anything was consumed
        is raised, the state unchanged. An error found in a queued message after progress was
        made is kept in :attr:`errors` (drain with :meth:`take_errors`), so that the lines the
        progress produced are not lost.
        """
        out: list[Out] = []
        progress = True
        consumed = False
        while progress:
            progress = False
            for seat in SEATS:
                q = self.queues[seat]
                i = 0
                while i < len(q) and self.phase in TRANSITIONS:
                    msg = q[i]
                    try:
                        if type(msg) not in TRANSITIONS[self.phase]:
                            if _ORDER.get(self.phase, 99) <= _ORDER[_STAGE[type(msg)]]:
                                i += 1  # early, for a later phase: what is behind may fit now
                                continue
                            raise RemoteProtocolError(
                                f"too late: the table is in the {self.phase.value} phase",
                                seat=seat, line=repr(msg),
                            )  # fmt: skip
                        taken = self._step(seat, msg, out)
                    except RemoteProtocolError as exc:
                        _remove(q, i, msg)  # a wrong message is dropped (rule 2)
                        if not consumed and seat == first and not out:
                            raise
                        self.errors.append(exc)
                        continue
                    if not taken:
                        break  # early within this phase: its order is kept
                    self._note_taken(seat, msg)
                    _remove(q, i, msg)  # (finishing a board clears the queues)
                    progress = consumed = True
        return out

    def take_errors(self) -> list[RemoteProtocolError]:
        """Errors found in queued messages during the last calls (see :meth:`_pump`)."""
        errors, self.errors = self.errors, []
        return errors

    def _step(self, seat: Player, msg: Message, out: list[Out]) -> bool:
        """Consume ``msg`` if it fits; return False if it must wait; raise if it is wrong."""
        if self.phase is Phase.DEAL:
            return self._on_ready_for_deal(seat, out)
        if self.phase is Phase.CARDS:
            return self._on_ready_for_cards(seat, out)
        if self.phase is Phase.AUCTION:
            return self._on_auction(seat, msg, out)
        if self.phase is Phase.PLAY:
            return self._on_play(seat, msg, out)
        return False  # pragma: no cover - TRANSITIONS keeps other phases out

    def _on_ready_for_deal(self, seat: Player, out: list[Out]) -> bool:
        if seat in self._done:
            return False
        self._done.add(seat)
        if len(self._done) == 4:
            b = self._require_board()
            line = BoardInfo(number=b.number, dealer=b.dealer, vul=b.vul)
            out.extend((p, line) for p in SEATS)
            self._done = set()
            self._goto(Phase.CARDS)
        return True

    def _on_ready_for_cards(self, seat: Player, out: list[Out]) -> bool:
        if seat in self._done:
            return False
        self._done.add(seat)
        if len(self._done) == 4:
            b = self._require_board()
            out.extend((p, Cards(seat=p, hand=b.deal[p].copy())) for p in SEATS)
            self._done = set()
            self._goto(Phase.AUCTION)
            self._due_since = self.clock()
        return True

    # ------------------------------------------------------------------ auction

    def _bidder(self) -> Player:
        return Player((self._require_board().dealer.value + len(self._auction)) % 4)

    def _on_auction(self, seat: Player, msg: Message, out: list[Out]) -> bool:
        bidder = self._bidder()
        if isinstance(msg, ReadyForBid):
            if seat in self._call_ready or (seat == bidder and self._pending_call is not None):
                return False  # early: for a later call
            if seat == bidder:
                raise RemoteProtocolError(f"{_name(seat)} is to call", seat=seat)
            if msg.bidder != bidder:
                raise RemoteProtocolError(
                    f"ready for {_name(msg.bidder)}'s bid, but {_name(bidder)} is to call",
                    seat=seat,
                )
            self._call_ready.add(seat)
        elif isinstance(msg, CallMsg):
            if seat != bidder:
                raise RemoteProtocolError(
                    f"{_name(bidder)} is to call, not {_name(seat)}", seat=seat
                )
            if msg.seat != seat:
                raise RemoteProtocolError(f"a call in {_name(msg.seat)}'s name", seat=seat)
            if self._pending_call is not None:
                raise RemoteProtocolError("a second call before the first was relayed", seat=seat)
            b = self._require_board()
            if not self.rules.is_legal_call(b.dealer, self._auction, msg.call):
                self._illegal_action(seat, out, IllegalBid(), "calls")
                return True
            self._stop_clock(seat)
            self._pending_call = msg
        self._maybe_relay_call(out)
        return True

    def _maybe_relay_call(self, out: list[Out]) -> None:
        call = self._pending_call
        if call is None or len(self._call_ready) < 3:
            return
        bidder = call.seat
        plain = CallMsg(seat=bidder, call=call.call)
        for p in (bidder.lho, bidder.partner, bidder.rho):
            if p == bidder.partner:
                out.append((p, plain))  # alert text to the opponents only (section 2.3)
            else:
                out.append((p, CallMsg(seat=bidder, call=call.call, alert=call.alert)))
        if call.alert is not None:
            self._alerts[len(self._auction)] = call.alert
        self._auction.append(call.call)
        self._pending_call = None
        self._call_ready = set()
        if self.rules.auction_over(self._auction):
            b = self._require_board()
            self._contract = self.rules.final_contract(b.dealer, self._auction)
            if self._contract is None:
                self._finish()
                out.extend((p, self._timing()) for p in SEATS)
                return
            self._start_play()
        else:
            self._due_since = self.clock()

    # ------------------------------------------------------------------ play

    def _start_play(self) -> None:
        b = self._require_board()
        assert self._contract is not None
        self._goto(Phase.PLAY)
        self._declarer = self._contract.declarer
        self._dummy = self._declarer.partner
        self._leader = self._declarer.lho
        self._remaining = {p: b.deal[p].copy() for p in SEATS}
        self._due_since = None

    def _known(self, k: int) -> bool:
        """Whether the player of card ``k`` is known yet (played, or in the current trick)."""
        n = len(self._plays)
        return k < n or (k < 52 and k // 4 == n // 4)

    def _player_of(self, k: int) -> Player:
        """Who plays card ``k`` (0-based) of the play; ``k`` must be :meth:`_known`."""
        n = len(self._plays)
        if k < n:
            return self._plays[k][0]
        if not self._known(k):
            raise LocalProtocolError(f"card {k} is not in the current trick")
        return Player((self._leader.value + k % 4) % 4)

    def _controller(self, p: Player) -> Player:
        return self._declarer if p == self._dummy else p

    def _next_ready(self, seat: Player) -> int:
        """Index of the next card ``seat`` owes a ready message for (skips cards it controls)."""
        k = self._ready_upto[seat]
        while self._known(k) and self._controller(self._player_of(k)) == seat:
            k += 1
        return k  # not stored here: a refused ready message must leave the state unchanged

    def _on_play(self, seat: Player, msg: Message, out: list[Out]) -> bool:
        n = len(self._plays)
        if isinstance(msg, ReadyForDummy):
            if seat == self._dummy:
                raise RemoteProtocolError("dummy asked for dummy's cards", seat=seat)
            if seat in self._dummy_asked:
                raise RemoteProtocolError("asked for dummy twice", seat=seat)
            self._dummy_asked.add(seat)
            if n == 0:  # bridge-player asks before the opening lead: answer after it (rule 6)
                self._maybe_send_lead(out)
                return True
            self._dummy_sent.add(seat)
            out.append((seat, DummyCards(hand=self._require_board().deal[self._dummy].copy())))
            return True
        if isinstance(msg, ReadyForCard):
            k = self._next_ready(seat)
            if not self._known(k):
                return False  # early: for a card of the next trick (or after the last card)
            self._check_ready_form(seat, msg, self._player_of(k), k)
            self._ready_upto[seat] = k + 1
            if k < n:
                self._relay_card(seat, k, out)
            self._maybe_send_lead(out)
            self._maybe_finish_play(out)
            return True
        if isinstance(msg, PlayMsg):
            return self._on_card(seat, msg, out)
        return False  # pragma: no cover - TRANSITIONS admits nothing else here

    def _card_due(self, seat: Player, msg: PlayMsg) -> tuple[int, Player]:
        """The number of cards played and the player whose card is due; raise unless ``seat``
        controls that card."""
        n = len(self._plays)
        if n >= 52:
            raise RemoteProtocolError("all 52 cards have been played", seat=seat)
        p = self._player_of(n)
        c = self._controller(p)
        if seat != c:
            raise RemoteProtocolError(
                f"{_name(c)} is to play {_name(p)}'s card, not {_name(seat)}",
                seat=seat, line=repr(msg),
            )  # fmt: skip
        return n, p

    def _on_card(self, seat: Player, msg: PlayMsg, out: list[Out]) -> bool:
        n, p = self._card_due(seat, msg)
        named = msg.seat if msg.seat is not None else self._dummy
        if named != p:
            raise RemoteProtocolError(
                f"a card in {_name(named)}'s name when {_name(p)} is to play", seat=seat
            )
        if n % 4 == 0 and not self._lead_sent:
            return False  # the leader waits for "to lead"; keep the card until then
        trick = [c2 for _, c2 in self._plays[n // 4 * 4 :]]
        if msg.card not in self.rules.legal_cards(self._remaining[p], trick):
            self._illegal_action(seat, out, IllegalCard(), "cards")
            return True
        self._stop_clock(seat)
        self._accept_card(p, msg.card, out)
        return True

    def _check_ready_form(self, seat: Player, msg: ReadyForCard, p: Player, k: int) -> None:
        trick = k // 4 + 1
        if msg.trick != trick:
            raise RemoteProtocolError(f"ready for trick {msg.trick}, but trick {trick} is in play",
                                      seat=seat)  # fmt: skip
        if msg.player is None:  # the dummy's form (rule 5)
            if p == self._dummy or seat == self._dummy:
                return
            raise RemoteProtocolError(f"ready for dummy's card, but {_name(p)} is to play",
                                      seat=seat)  # fmt: skip
        if msg.player != p:
            raise RemoteProtocolError(f"ready for {_name(msg.player)}'s card, but {_name(p)} "
                                      "is to play", seat=seat)  # fmt: skip

    def _maybe_send_lead(self, out: list[Out]) -> None:
        n = len(self._plays)
        if self.phase is not Phase.PLAY or n % 4 != 0 or self._lead_sent or n >= 52:
            return
        p = self._player_of(n)
        c = self._controller(p)
        self._skip_own(c)
        if self._relayed_upto[c] < n:
            return  # the leader has not yet been sent the last card of the previous trick
        for s in SEATS:
            if s == c:
                continue
            if self._ready_upto[s] > n:
                continue
            if n == 0 and s in self._dummy_asked:
                continue  # bridge-player waits for dummy before this ready (rule 6)
            return
        self._lead_sent = True
        out.append((c, ToLead(seat=None if p == self._dummy else p)))
        self._due_since = self.clock()

    def _accept_card(self, p: Player, card: Card, out: list[Out]) -> None:
        k = len(self._plays)
        self._plays.append((p, card))
        self._remaining[p].remove(card)
        c = self._controller(p)
        for s in SEATS:
            if s != c and self._ready_upto[s] > k:
                self._relay_card(s, k, out)
        if k == 0:  # answer the early dummy requests (rule 6)
            dummy_hand = self._require_board().deal[self._dummy].copy()
            for s in SEATS:
                if s in self._dummy_asked and s not in self._dummy_sent:
                    self._dummy_sent.add(s)
                    out.append((s, DummyCards(hand=dummy_hand)))
        if len(self._plays) % 4 == 0:
            self._end_trick(out)
        else:
            self._due_since = self.clock()

    def _relay_card(self, seat: Player, k: int, out: list[Out]) -> None:
        self._skip_own(seat)
        if self._relayed_upto[seat] != k:
            raise LocalProtocolError(f"relaying card {k} to {_name(seat)} out of order")
        p, card = self._plays[k]
        out.append((seat, PlayMsg(seat=p, card=card)))
        self._relayed_upto[seat] = k + 1
        self._skip_own(seat)

    def _skip_own(self, seat: Player) -> None:
        """Cards a seat controls are never relayed to it: move its cursor past them."""
        n = len(self._plays)
        k = self._relayed_upto[seat]
        while k < n and self._controller(self._plays[k][0]) == seat:
            k += 1
        self._relayed_upto[seat] = k

    def _end_trick(self, out: list[Out]) -> None:
        n = len(self._plays)
        trick = [c for _, c in self._plays[n - 4 :]]
        first = self._plays[n - 4][0]
        self._leader = self.rules.trick_winner(first, trick, self._contract_denom())
        self._lead_sent = False
        if n == 52:
            self._maybe_finish_play(out)
            return
        self._maybe_send_lead(out)

    def _maybe_finish_play(self, out: list[Out]) -> None:
        """After the 52nd card, once every seat has been sent every card (a late seat's ready
        may still be on its way), the board is over: Timing to all."""
        if len(self._plays) < 52:
            return
        for s in SEATS:
            self._skip_own(s)
            if self._relayed_upto[s] < 52:
                return
        self._finish()
        out.extend((p, self._timing()) for p in SEATS)

    def _contract_denom(self) -> Denom:
        assert self._contract is not None
        return self._contract.denom

    # ------------------------------------------------------------------ bookkeeping

    def _illegal_action(self, seat: Player, out: list[Out], reply: Message, what: str) -> None:
        self._illegal[seat] += 1
        if self._illegal[seat] >= self.max_illegal:
            self._finish(aborted=f"{_name(seat)} made {self._illegal[seat]} illegal {what}")
            return
        out.append((seat, reply))

    def _stop_clock(self, seat: Player) -> None:
        if self._due_since is None:
            return
        spent = max(0.0, self.clock() - self._due_since)
        self._due_since = None
        if _side(seat) == 0:
            self._ns_board += spent
        else:
            self._ew_board += spent

    def _timing(self) -> Timing:
        r = self.finished[-1]
        return Timing(
            ns_board=round(r.ns_seconds),
            ns_total=round(self.ns_total),
            ew_board=round(r.ew_seconds),
            ew_total=round(self.ew_total),
        )

    def _finish(self, aborted: str | None = None) -> None:
        b = self._require_board()
        tricks: int | None = None
        contract = self._contract
        if aborted is None and contract is not None:
            won = 0
            for t in range(13):
                trick = [c for _, c in self._plays[4 * t : 4 * t + 4]]
                w = self.rules.trick_winner(self._plays[4 * t][0], trick, contract.denom)
                won += _side(w) == _side(contract.declarer)
            tricks = won
        self.ns_total += self._ns_board
        self.ew_total += self._ew_board
        self.result = BoardResult(
            board=b,
            auction=list(self._auction),
            play=list(self._plays),
            contract=contract if aborted is None else None,
            declarer_tricks=tricks,
            aborted=aborted,
            alerts=dict(self._alerts),
            ns_seconds=self._ns_board,
            ew_seconds=self._ew_board,
            ns_team=self.teams.get(Player.north),
            ew_team=self.teams.get(Player.east),
        )
        self.finished.append(self.result)
        self._goto(Phase.IDLE)
        for q in self.queues.values():
            q.clear()

    def _require_board(self) -> TableBoard:
        if self._board is None:
            raise LocalProtocolError("no board in play")
        return self._board

    # ------------------------------------------------------------------ introspection

    def waiting_for(self) -> list[Player]:
        """Seats the table is waiting on now (for timeouts and error reports)."""
        if self.phase in (Phase.DEAL, Phase.CARDS):
            return [p for p in SEATS if p not in self._done]
        if self.phase is Phase.AUCTION:
            bidder = self._bidder()
            waiting = [p for p in SEATS if p != bidder and p not in self._call_ready]
            if self._pending_call is None:
                waiting.insert(0, bidder)
            return waiting
        if self.phase is Phase.PLAY:
            n = len(self._plays)
            p = self._player_of(n)
            c = self._controller(p)
            waiting = [s for s in SEATS if s != c and self._ready_upto[s] <= n]
            if n % 4 != 0 or self._lead_sent:
                waiting.insert(0, c)
            return waiting
        if self.phase in (Phase.SEATING, Phase.TEAMS):
            return [p for p in SEATS if self.seat_state[p] is not SeatState.READY]
        return []

    def describe(self) -> str:
        """One line saying what the table waits for (for logs and timeout reasons)."""
        who = ", ".join(_name(p) for p in self.waiting_for()) or "nobody"
        where = self.phase.value
        if self.phase is Phase.AUCTION:
            where += f" (call {len(self._auction) + 1}, {_name(self._bidder())} to call)"
        elif self.phase is Phase.PLAY:
            n = len(self._plays)
            where += f" (trick {n // 4 + 1}, card {n % 4 + 1})"
        return f"{where}; waiting for {who}"
