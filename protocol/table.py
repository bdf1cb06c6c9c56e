"""The table manager's side of Blue Chip v18 as a sans-IO state machine.

Feed it ``(seat, message)`` events with :meth:`TableMachine.receive`; it returns the
``(seat, message)`` pairs to send. It never touches a socket, a clock of its own or a logger: the
asyncio shell (``server.tm``) owns those and injects the clock (for the Timing line). The laws of
bridge are :mod:`bridgebot.laws`'s.

The machine keeps the session (seats, their handshake, their queues of early lines); each board's
state is a :class:`~protocol.table_board.Board`, made at ``Start of board`` and dropped when the
board ends, whose play and relay are a :class:`~protocol.relay.CardPlay`.

Rules of the machine (docs/protocol.md sections 2-5; the tables are :data:`PHASE_FLOW`, the phase
graph, :data:`HANDSHAKE`, what each seat's handshake state takes, and :data:`TRANSITIONS`, which
handler takes each message in each phase of a board):

1. Phases run SEATING -> TEAMS -> IDLE -> (DEAL -> CARDS -> AUCTION [-> PLAY] -> IDLE)* -> ENDED.
   IDLE is "between boards": the shell journals the finished board, then calls
   :meth:`start_board` or :meth:`end_session`. A board can also be SUSPENDED (a seat went away)
   and restarts from ``Start of board`` once all four seats are back.
2. Each seat has a queue of ready lines (section 3.1), and one rule for every message, alone or
   in a burst (docs/protocol.md, "Messages that arrive early"):
   * a ``ready for ...`` line may arrive early: it waits in the queue until the table gets there
     (``ready for`` the next trick before the last card was relayed, as bridge-player does); one
     for a later phase does not hold up the lines behind it;
   * a board-level ready line (deal, cards, dummy; a bid's, twice in a row) repeating one already
     taken on this board (Ben re-sends ``ready for deal`` after a restart) is ignored: not queued,
     not an error. A card-level ready line is never judged by its text: it is the seat's ready
     for the next card it is owed if it fits that card, and a repeat (ignored) only if it fits a
     card it has already asked for instead (bridge-player's dummy says the same line before every
     card of a trick, its own included: issue 25; :meth:`CardPlay.on_ready_for_card`);
   * a call or card is taken at once if the next call or card of the board is that seat's to
     make (a lead may still wait for its ``to lead`` prompt); otherwise it is refused at once;
   * a refused message raises :class:`RemoteProtocolError` naming the seat, is dropped, and
     leaves the state unchanged; the queue goes on.
3. A message whose phase is already over is an error at once (state unchanged), except these,
   which are ignored: ``received dummy`` (GIB, bridge-player), a stray ``ready to start`` after the
   first one (Ben re-sends it), and, between boards, just after ``Start of board`` or after
   ``End of session``, leftovers of the board that ended or was abandoned.
4. Calls and cards are checked with :mod:`bridgebot.laws`. An illegal one is answered with
   ``Illegal bid``/``Illegal card`` to the offender, who may try again; the ``max_illegal``-th
   illegal action of a seat in a board aborts the board (:class:`TableResult` ``aborted``).
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
from collections.abc import Callable
from typing import Any

from bridgebot.protocol.codec import team_name_problem
from bridgebot.protocol.errors import LocalProtocolError, RemoteProtocolError
from bridgebot.protocol.messages import (
    CallMsg,
    Connect,
    EndOfSession,
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
)
from bridgebot.protocol.relay import SEATS, Out, RepeatedReady, name
from bridgebot.protocol.table_board import Board, TableBoard, TableResult
from endplay.types import Player

__all__ = [
    "HANDSHAKE",
    "MAX_QUEUED",
    "PHASE_FLOW",
    "SEATS",
    "SUPPORTED_VERSIONS",
    "TRANSITIONS",
    "Out",
    "Phase",
    "SeatState",
    "TableBoard",
    "TableMachine",
    "TableResult",
]

#: Protocol versions a seat may announce (18 everyone; 19 ComputerBridge; 20 ZBridge speaks 18 too).
SUPPORTED_VERSIONS = frozenset({18, 19, 20})

#: How many messages a seat may have waiting before it is treated as flooding.
MAX_QUEUED = 64


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


class SeatState(enum.Enum):
    """Where one seat is in the session handshake (a reconnecting seat repeats it)."""

    ABSENT = "absent"
    SEATED = "seated"  # answered "seated"; owes "ready for teams"
    TEAMS = "teams"  # has the Teams line (or is waiting for it); owes "ready to start"
    READY = "ready"  # takes part in boards


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

#: The order of the phases a message can belong to: a message of a later phase than the table's
#: is early and waits in its seat's queue; one of an earlier phase is late, an error (rule 3).
_COURSE = (Phase.SEATING, Phase.TEAMS, Phase.IDLE, Phase.DEAL, Phase.CARDS, Phase.AUCTION,
           Phase.PLAY)  # fmt: skip
_ORDER = {phase: i for i, phase in enumerate(_COURSE)}

# A handler's message is the type its row names (the table guarantees it), hence Any here.
BoardHandler = Callable[[Board, Player, Any, list[Out]], bool]
SessionHandler = Callable[["TableMachine", Player, Any], list[Out]]

#: The transition table of a board: in each phase, the handler of each message the phase
#: consumes. A handler returns False when the message is early within its phase (it waits, in
#: order); a message of no row here but of a later phase waits too (rule 2).
TRANSITIONS: dict[Phase, dict[type[Message], BoardHandler]] = {
    Phase.DEAL: {ReadyForDeal: Board.on_ready_for_deal},
    Phase.CARDS: {ReadyForCards: Board.on_ready_for_cards},
    Phase.AUCTION: {ReadyForBid: Board.on_ready_for_bid, CallMsg: Board.on_call},
    Phase.PLAY: {
        ReadyForCard: Board.on_ready_for_card,
        PlayMsg: Board.on_card,
        ReadyForDummy: Board.on_ready_for_dummy,
    },
}

#: The phase of a board each board message belongs to.
_STAGE: dict[type[Message], Phase] = {
    kind: phase for phase, row in TRANSITIONS.items() for kind in row
}


def _board_phase(board: Board) -> Phase:
    """The phase a board's state puts the table in."""
    if len(board.deal_ready) < 4:
        return Phase.DEAL
    if len(board.cards_ready) < 4:
        return Phase.CARDS
    return Phase.AUCTION if board.play is None else Phase.PLAY


def _remove(q: deque[Message], i: int, msg: Message) -> None:
    """Drop ``msg`` from position ``i`` of ``q`` if it is still there."""
    if i < len(q) and q[i] is msg:
        del q[i]


class TableMachine:
    """One table's protocol state. Not thread-safe; one asyncio task or one test drives it."""

    def __init__(
        self,
        *,
        clock: Callable[[], float],
        max_illegal: int = 3,
        scoring: str | None = None,
    ) -> None:
        if max_illegal < 1:
            raise ValueError("max_illegal must be at least 1")
        self.clock = clock
        self.max_illegal = max_illegal
        self.scoring = scoring
        self.phase = Phase.SEATING
        self.teams: dict[Player, str] = {}
        self.seat_state: dict[Player, SeatState] = dict.fromkeys(SEATS, SeatState.ABSENT)
        self.queues: dict[Player, deque[Message]] = {p: deque() for p in SEATS}
        self.ns_total = 0.0
        self.ew_total = 0.0
        self.current: Board | None = None
        """The board in play or suspended; None between boards."""
        self.finished: list[TableResult] = []
        self.errors: list[RemoteProtocolError] = []
        self.repeats = 0
        """Ready lines ignored because they repeated one already taken (rule 2)."""

    def _goto(self, phase: Phase) -> None:
        if phase not in PHASE_FLOW[self.phase]:
            raise LocalProtocolError(f"no transition from {self.phase.value} to {phase.value}")
        self.phase = phase

    @property
    def board(self) -> TableBoard | None:
        """The board in play or suspended."""
        return None if self.current is None else self.current.board

    @property
    def all_ready(self) -> bool:
        """All four seats are connected and past the handshake."""
        return all(s is SeatState.READY for s in self.seat_state.values())

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
                f"(this port is {name(port_seat)}'s)"
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
            raise LocalProtocolError(f"{name(seat)} is already seated")
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
        if self.phase in TRANSITIONS:  # the board waits, kept for abort_board, until restarted
            self._goto(Phase.SUSPENDED)
        return []

    # ------------------------------------------------------------------ boards

    def start_board(self, board: TableBoard) -> list[Out]:
        """Send ``Start of board`` for ``board`` (from IDLE, with all four seats ready)."""
        if self.phase is not Phase.IDLE or not self.all_ready:
            raise LocalProtocolError(f"cannot start a board in phase {self.phase.value}")
        return self._begin_board(board)

    def restart_board(self) -> list[Out]:
        """Play the suspended board again from ``Start of board`` (all four seats are back)."""
        if self.phase is not Phase.SUSPENDED or self.current is None or not self.all_ready:
            raise LocalProtocolError(f"cannot restart a board in phase {self.phase.value}")
        return self._begin_board(self.current.board)

    def abort_board(self, reason: str) -> list[Out]:
        """Abandon the board in progress (timeout, illegal actions); the shell journals it."""
        if self.current is None:
            raise LocalProtocolError(f"no board to abort in phase {self.phase.value}")
        self.current.abort(reason)
        return self._end_board(self.current)

    def end_session(self) -> list[Out]:
        """Send ``End of session`` to every connected seat (between boards)."""
        if self.phase not in (Phase.IDLE, Phase.TEAMS, Phase.SEATING, Phase.SUSPENDED):
            raise LocalProtocolError(f"cannot end the session in phase {self.phase.value}")
        self._goto(Phase.ENDED)
        return [(p, EndOfSession()) for p in SEATS if self.seat_state[p] is not SeatState.ABSENT]

    def _begin_board(self, board: TableBoard) -> list[Out]:
        for q in self.queues.values():
            q.clear()
        self.current = Board(board, clock=self.clock, max_illegal=self.max_illegal)
        self._goto(Phase.DEAL)
        return [(p, StartOfBoard()) for p in SEATS]

    def _end_board(self, board: Board) -> list[Out]:
        """Record the board that ended and drop it; Timing to all unless it was abandoned."""
        result = board.result(ns_team=self.teams.get(Player.north),
                              ew_team=self.teams.get(Player.east))  # fmt: skip
        self.ns_total += result.ns_seconds
        self.ew_total += result.ew_seconds
        self.finished.append(result)
        self.current = None
        self._goto(Phase.IDLE)
        for q in self.queues.values():
            q.clear()
        if result.aborted is not None:
            return []
        timing = Timing(
            ns_board=round(result.ns_seconds),
            ns_total=round(self.ns_total),
            ew_board=round(result.ew_seconds),
            ew_total=round(self.ew_total),
        )
        return [(p, timing) for p in SEATS]

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
            raise LocalProtocolError(f"message from {name(seat)}, who is not seated")
        if type(msg) in _HANDSHAKE_KINDS:
            handler = HANDSHAKE[state].get(type(msg))
            if handler is None:
                raise RemoteProtocolError(_HANDSHAKE_KINDS[type(msg)], seat=seat)
            return handler(self, seat, msg)
        if state is not SeatState.READY:
            raise RemoteProtocolError(
                "finish connecting first (ready for teams, ready to start)", seat=seat
            )
        stage = _STAGE.get(type(msg))
        if stage is None:
            raise RemoteProtocolError("not a message a seat sends", seat=seat, line=repr(msg))
        if self._is_leftover(seat, stage):
            return []  # a leftover of the board that just ended or was abandoned (rule 3)
        if self.current is not None and self.current.is_repeat(seat, msg):
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

    def _is_leftover(self, seat: Player, stage: Phase) -> bool:
        """Whether a message of ``stage`` is left over from an earlier board (rule 3)."""
        if self.phase in (Phase.IDLE, Phase.SUSPENDED, Phase.ENDED):
            return _ORDER[stage] >= _ORDER[Phase.AUCTION]
        # Before its "ready for deal", nothing a seat sends past the deal can be for this board
        # (no Board number was sent yet): a stale "ready for cards" from before a restart would
        # otherwise block the seat's queue for ever (issue 7's fuzzer).
        return (
            self.phase is Phase.DEAL
            and self.current is not None
            and seat not in self.current.deal_ready
            and _ORDER[stage] > _ORDER[Phase.DEAL]
        )

    def _check_turn(self, seat: Player, msg: CallMsg | PlayMsg) -> None:
        """Raise unless the next call or card of the board is ``seat``'s to make (rule 2)."""
        board = self.current
        if board is not None and isinstance(msg, CallMsg) and self.phase is Phase.AUCTION:
            board.check_call_turn(seat, msg)
            return
        if board is not None and board.play is not None and isinstance(msg, PlayMsg):
            board.play.card_due(seat, msg)
            return
        what = "a call" if isinstance(msg, CallMsg) else "a card"
        raise RemoteProtocolError(
            f"{what} from {name(seat)} in the {self.phase.value} phase", seat=seat, line=repr(msg)
        )

    # ------------------------------------------------------------------ the handshake

    def _on_ready_for_teams(self, seat: Player, msg: ReadyForTeams) -> list[Out]:
        self.seat_state[seat] = SeatState.TEAMS
        if self.phase is not Phase.SEATING:
            return [(seat, self._teams_line())]  # a seat that came back mid-session
        if all(s is SeatState.TEAMS for s in self.seat_state.values()):
            self._goto(Phase.TEAMS)
            return [(p, self._teams_line()) for p in SEATS]
        return []

    def _on_ready_to_start(self, seat: Player, msg: ReadyToStart) -> list[Out]:
        if self.phase is Phase.SEATING:  # the Teams line goes out once all four are seated
            raise RemoteProtocolError(_HANDSHAKE_KINDS[ReadyToStart], seat=seat)
        self.seat_state[seat] = SeatState.READY
        if self.phase is Phase.TEAMS and self.all_ready:
            self._goto(Phase.IDLE)
        return []

    def _on_stray_ready_to_start(self, seat: Player, msg: ReadyToStart) -> list[Out]:
        return []  # Ben re-sends it: ignore (rule 3)

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
                while i < len(q) and self.current is not None and self.phase in TRANSITIONS:
                    board, msg = self.current, q[i]
                    try:
                        handler = TRANSITIONS[self.phase].get(type(msg))
                        if handler is None:
                            if _ORDER[self.phase] < _ORDER[_STAGE[type(msg)]]:
                                i += 1  # early, for a later phase: what is behind may fit now
                                continue
                            raise RemoteProtocolError(
                                f"too late: the table is in the {self.phase.value} phase",
                                seat=seat, line=repr(msg),
                            )  # fmt: skip
                        taken = handler(board, seat, msg, out)
                    except RepeatedReady:
                        _remove(q, i, msg)  # a card-level repeat: ignored (rule 2)
                        self.repeats += 1
                        continue
                    except RemoteProtocolError as exc:
                        _remove(q, i, msg)  # a wrong message is dropped (rule 2)
                        if not consumed and seat == first and not out:
                            raise
                        self.errors.append(exc)
                        continue
                    if not taken:
                        break  # early within this phase: its order is kept
                    if board.note_taken(seat, msg):  # its repeats queued behind it go too
                        kept = [m for m in q if m is msg or m != msg]
                        self.repeats += len(q) - len(kept)
                        q.clear()
                        q.extend(kept)
                    _remove(q, i, msg)
                    progress = consumed = True
                    self._settle(board, out)
        return out

    def _settle(self, board: Board, out: list[Out]) -> None:
        """After a board took a message: end it, or move to the phase its state is in."""
        if board.ended:
            out.extend(self._end_board(board))
            return
        phase = _board_phase(board)
        if phase is not self.phase:
            self._goto(phase)

    def take_errors(self) -> list[RemoteProtocolError]:
        """Errors found in queued messages during the last calls (see :meth:`_pump`)."""
        errors, self.errors = self.errors, []
        return errors

    # ------------------------------------------------------------------ introspection

    def waiting_for(self) -> list[Player]:
        """Seats the table is waiting on now (for timeouts and error reports)."""
        if self.current is not None and self.phase in TRANSITIONS:
            return self.current.waiting_for()
        if self.phase in (Phase.SEATING, Phase.TEAMS):
            return [p for p in SEATS if self.seat_state[p] is not SeatState.READY]
        return []

    def describe(self) -> str:
        """One line saying what the table waits for (for logs and timeout reasons)."""
        who = ", ".join(name(p) for p in self.waiting_for()) or "nobody"
        where = self.phase.value
        if self.current is not None and self.phase in (Phase.AUCTION, Phase.PLAY):
            where += f" ({self.current.describe()})"
        return f"{where}; waiting for {who}"


#: The handshake (section 3.1), per seat: what each handshake state of a seat takes. A seat that
#: comes back mid-session goes through it again.
HANDSHAKE: dict[SeatState, dict[type[Message], SessionHandler]] = {
    SeatState.ABSENT: {},
    SeatState.SEATED: {ReadyForTeams: TableMachine._on_ready_for_teams},
    SeatState.TEAMS: {ReadyToStart: TableMachine._on_ready_to_start},
    SeatState.READY: {ReadyToStart: TableMachine._on_stray_ready_to_start},
}

#: The handshake messages, with the error for one that comes when its state is not in its row.
_HANDSHAKE_KINDS: dict[type[Message], str] = {
    ReadyForTeams: "ready for teams sent twice",
    ReadyToStart: "ready to start before the Teams line",
}
