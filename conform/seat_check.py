"""Checks every line a seat program sends, given what its table manager sent it.

:class:`SeatObserver` follows one seat's side of the exchange (``tm_sent`` for a line the table
manager sent the seat, ``seat_sent`` for the seat's own line) and judges each of the seat's lines
against docs/protocol.md at that moment: is it owed, is it in the right form, is the call or
card legal. It knows what the seat knows (its hand, dummy's once shown, every relay), plus the
whole deal when the live kit tells it (:meth:`deal_known`). The live kit (``conform seat``)
waits on it to know when the program has said what it owes; the transcript replay feeds it a
golden transcript.

A line is judged by what the table manager had written before it arrived (``heard``, see
:meth:`SeatObserver.seat_sent`), not by what was written since: a line that crossed
``End of session`` on the wire is not a line after the end.

``ready for deal`` (docs/protocol.md 3.1 rule 2, 4.3): a repeat of it warns (``seat.repeat``)
wherever it falls, before or after the board line. One sent between boards (after the Timing
line, before ``Start of board``) is taken as the answer to the next ``Start of board``, as a
table queues an early ready line, and judged once the program shows whether it was a repeat:
said again after ``Start of board`` it is (Ben after a restart says it after every Timing line
and again on ``Start of board``); not said again, it fails ``seat.ready-for-deal``. One still
open when the session ends is a repeat if the program was restarted or has repeated before,
else a failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bridgebot.conform.model import BoardModel
from bridgebot.conform.report import Recorder
from bridgebot.conform.wire import (
    SEATS,
    Msg,
    Unreadable,
    canonical_seat_line,
    case_only,
    fold,
    read_seat_line,
    read_tm_line,
)

#: Rules every line of the program is checked against, whatever it says.
_EVERY_LINE = (
    "seat.trailing-stop",
    "seat.case",
    "seat.variant",
    "seat.repeat",
    "seat.early-dummy",
    "seat.received-dummy",
    "seat.unexpected",
    "seat.end-of-session",
)


@dataclass
class BoardState:
    """The board as the seat has seen it, and what the seat has said on it."""

    model: BoardModel
    asked_cards: bool = False
    got_cards: bool = False
    ready_bids: set[int] = field(default_factory=set)
    ready_cards: set[int] = field(default_factory=set)
    lead_prompts: set[int] = field(default_factory=set)
    asked_dummy: bool = False
    got_dummy: bool = False
    illegal: int = 0


class SeatObserver:
    """The kit's model of one seat program (docs/protocol.md 2, 3.2), checked line by line."""

    def __init__(self, record: Recorder, seat: str, team: str | None = None) -> None:
        self.r = record
        self.seat = seat
        self.team = team
        self.connected = False
        self.seated = False
        self.asked_teams = False
        self.got_teams = False
        self.asked_start = False
        self.started = False
        """Start of board received and not yet answered."""
        self.restarting = False
        self.asked_deal = False
        self.got_board = False
        self.board: BoardState | None = None
        self.ended = False
        self.restarted = False
        """A board of this session was restarted (a mid-board Start of board)."""
        self.repeated_deal = False
        """The program has said ready for deal twice for one board."""
        self.early_deal: str | None = None
        """A ready for deal said between boards, not yet known to be a repeat or not."""
        self._early_at: tuple[int | None, int | None] | None = None
        """Where it was said (the recorder's ``locate`` then)."""
        self.heard = 0
        """Lines the table manager has sent this seat."""
        self._marks: dict[str, list[int]] = {}
        """For Start of board, Timing and End of session: the value of ``heard`` just after
        each was sent."""
        self._arrived = 0
        """``heard`` when the line being judged arrived."""
        self.roles: list[str] = []
        self.boards_played = 0
        self._deal: dict[str, frozenset[str]] | None = None
        self.replies: list[str] = []
        """What a table manager answers to the last line (``Illegal bid``, an error line)."""

    # ------------------------------------------------------------------ what the TM sends

    def deal_known(self, hands: dict[str, frozenset[str]]) -> None:
        """The live kit dealt the board: legality of dummy's cards is checked from the start."""
        self._deal = hands
        if self.board is not None:
            self.board.model.hands.update(hands)

    def tm_sent(self, text: str) -> None:
        self.heard += 1
        try:
            msg = read_tm_line(text)
        except Unreadable:
            return
        if msg.kind in ("start", "timing", "end"):
            self._marks.setdefault(msg.kind, []).append(self.heard)
        b = self.board
        match msg.kind:
            case "seated":
                self.seated = True
            case "teams":
                self.got_teams = True
            case "start":
                if (b is not None and not b.model.done()) or (
                    self.asked_deal and not self.got_board
                ):
                    self.restarting = self.restarted = True  # mid-board: the board restarts
                self.board = None
                self._deal = None
                self.got_board = False
                # a ready for deal said before it is taken now, as a table takes a queued one
                self.asked_deal = self.early_deal is not None
                self.started = not self.asked_deal
            case "board":
                self.got_board = True
                self.board = BoardState(BoardModel(msg.trick, msg.seat, msg.value))
                if self._deal is not None:
                    self.board.model.hands.update(self._deal)
            case "cards":
                if b is not None:
                    b.got_cards = True
                    b.model.hands[self.seat] = msg.hand
            case "dummy_cards":
                if b is not None:
                    b.got_dummy = True
                    b.model.hands[b.model.dummy] = msg.hand
            case "call":
                if b is not None and not b.model.auction_done():
                    b.model.add_call(msg.value)
                    if b.model.auction_done():
                        self._role(b.model)
            case "card":
                if b is not None and b.model.in_play:
                    b.model.add_card(msg.value)
            case "to_lead":
                if b is not None and b.model.in_play:
                    b.lead_prompts.add(b.model.trick_no())
            case "illegal":
                if b is not None:
                    b.illegal += 1
            case "timing":
                if b is not None:
                    self._board_over(b)
            case "end":
                self.ended = True
                if self.early_deal is not None:
                    self._early_deal_judged(repeat=self.restarted or self.repeated_deal)

    def _role(self, m: BoardModel) -> None:
        if m.passed_out():
            self.roles.append("passed out")
        elif m.declarer == self.seat:
            self.roles.append("declarer")
        elif m.dummy == self.seat:
            self.roles.append("dummy")
        elif m.declarer and self.seat == SEATS[(SEATS.index(m.declarer) + 1) % 4]:
            self.roles.append("opening leader")
        else:
            self.roles.append("defender")

    def _board_over(self, b: BoardState) -> None:
        m = b.model
        self.boards_played += 1
        if m.declarer and m.cards and self.seat != m.dummy:
            self.r.check(
                "seat.ready-for-dummy",
                b.asked_dummy,
                f"{self.seat} never asked for dummy on board {m.number}",
            )

    # ------------------------------------------------------------------ what the seat sends

    def seat_sent(self, text: str, heard: int | None = None) -> None:
        """A line of the program under test: judged now, against the first ``heard`` lines
        the table manager sent this seat, those written before the line arrived (None: all
        of them, as in a transcript). The rules about the form of any line (case, variants,
        repeats...) count a pass for each line they had nothing against."""
        self._arrived = self.heard if heard is None else min(heard, self.heard)
        before = {rule: self.r.checks(rule) for rule in _EVERY_LINE}
        self._judge(text)
        for rule, n in before.items():
            if self.r.checks(rule) == n:
                self.r.ok(rule)

    def _last(self, kind: str) -> int:
        """Where the last Start of board / Timing / End of session written before the line
        being judged arrived stands in what this seat heard (0: none)."""
        return max((i for i in self._marks.get(kind, ()) if i <= self._arrived), default=0)

    def _between_boards(self) -> bool:
        """The line arrived after a Timing line (or before the first board) and before the
        next Start of board was written."""
        return self._last("start") <= self._last("timing")

    def _judge(self, text: str) -> None:
        if self._last("end"):
            self.r.fail("seat.end-of-session", "a line after End of session", text)
            return
        try:
            msg = read_seat_line(text)
        except Unreadable:
            self.r.fail("seat.unexpected", "not a Blue Chip line", text)
            return
        if msg.kind not in ("connect", "card") and msg.seat != self.seat:
            self.r.fail("seat.unexpected", f"a line in {msg.seat}'s name from {self.seat}", text)
            return
        if self.early_deal is not None and msg.kind != "ready_deal" and not self._between_boards():
            self._early_deal_judged(repeat=False)  # it answered Start of board: not a repeat
        if self.restarting and self._last("start") < self._marks["start"][-1]:
            return  # sent before the restart could be read: the abandoned board's (3.1)
        if self.restarting and msg.kind != "ready_deal":
            self.r.fail(
                "seat.restart",
                "after a mid-board Start of board the board restarts "
                "at 'ready for deal' (Ben does this)",
                text,
                f"{self.seat} ready for deal",
            )
            return
        getattr(self, f"_{msg.kind}")(msg, text)

    def _form(self, msg: Msg, text: str) -> None:
        """Canonical text, case (warn), other tolerated variants (warn), trailing stop (fail)."""
        expected = canonical_seat_line(msg)
        body = text
        if msg.kind == "call":
            for word in (" Alert.", " alert.", " ALERT.", " Infos.", " infos.", " INFOS."):
                body = body.split(word)[0]
            body = body.rstrip()
        if msg.kind == "card" and msg.note:
            body = body.split(".")[0]
        if body == expected:
            return
        if fold(body).endswith(".") and msg.kind.startswith("ready"):
            self.r.fail(
                "seat.trailing-stop",
                "a full stop after a ready line: a Blue Chip table manager refused it (old Ben)",
                text,
                expected,
            )
        elif case_only(body, expected):
            self.r.warn("seat.case", "not in canonical case (tables fold case)", text, expected)
        else:
            self.r.warn(
                "seat.variant", "a variant tables tolerate, not the canonical text", text, expected
            )

    def _connect(self, msg: Msg, text: str) -> None:
        if self.connected:
            self.r.fail("seat.unexpected", "a second Connecting line", text)
            return
        self.connected = True
        expected = f'Connecting "{msg.value}" as {self.seat} using protocol version 18'
        if msg.seat not in (self.seat, "ANYPL"):
            self.r.fail(
                "seat.connecting", f"the program was started for {self.seat}", text, expected
            )
        elif msg.trick not in (18, 19, 20):
            self.r.fail(
                "seat.connecting",
                f"protocol version {msg.trick}: tables speak 18 (19, 20 as extensions)",
                text,
                expected,
            )
        elif '"' not in text:
            self.r.fail(
                "seat.connecting",
                "the team name must be quoted (table-master-parser rejects it bare)",
                text,
                expected,
            )
        elif self.team is not None and msg.value != self.team:
            self.r.fail("seat.connecting", f"the team should be {self.team!r}", text, expected)
        elif msg.seat == "ANYPL":
            self.r.warn(
                "seat.variant",
                "ANYPL (WBridge5's Autoconnect): Bridge Moniteur and ours "
                "give a seat, ComputerBridge refuses it",
                text,
                expected,
            )
            self.r.ok("seat.connecting")
        elif (
            text == expected
            or text.startswith(expected[:-2] + "1")
            or text.startswith(expected + " ")
        ):
            self.r.ok("seat.connecting")
        elif case_only(text, expected) or fold(text).startswith(fold(expected)):
            self.r.warn("seat.case", "not in canonical case", text, expected)
            self.r.ok("seat.connecting")
        else:
            self.r.warn("seat.variant", "not the canonical text", text, expected)
            self.r.ok("seat.connecting")

    def _ready_teams(self, msg: Msg, text: str) -> None:
        if not self.seated or self.asked_teams:
            self.r.fail("seat.handshake", "ready for teams before being seated, or twice", text)
            return
        self.asked_teams = True
        self.r.ok("seat.handshake")
        self._form(msg, text)

    def _ready_start(self, msg: Msg, text: str) -> None:
        if self.asked_start:
            self.r.warn(
                "seat.repeat",
                "ready to start sent again (once per session; Ben re-sends it, tables ignore it)",
                text,
            )
            return
        if not self.got_teams:
            self.r.fail("seat.handshake", "ready to start before the Teams line", text)
            return
        self.asked_start = True
        self.r.ok("seat.handshake")
        self._form(msg, text)

    def _ready_deal(self, msg: Msg, text: str) -> None:
        if self.restarting:
            self.restarting = False
            self.r.ok("seat.restart")
        if self._between_boards():
            if self.early_deal is not None:
                self._deal_repeat(text)
                return
            self.early_deal, self._early_at = text, self.r.locate()  # judged later (docstring)
            self._form(msg, text)
            if self.ended:  # End of session went out since it arrived: judged now
                self._early_deal_judged(repeat=self.restarted or self.repeated_deal)
            elif self.started:  # Start of board went out since: a table takes it as the answer
                self.started, self.asked_deal = False, True
            return
        if self.asked_deal:  # after Start of board, which always leaves it owed or taken
            self._deal_repeat(text)
            return
        self.started = False
        self.asked_deal = True
        self.r.ok("seat.ready-for-deal")
        self._form(msg, text)

    def _deal_repeat(self, text: str) -> None:
        """A second ready for deal for one board: before the board line or after it."""
        if self.early_deal is not None:  # the one said before Start of board was a repeat too
            self.early_deal = None
            self.r.ok("seat.ready-for-deal")
        self.repeated_deal = True
        self.r.warn(
            "seat.repeat",
            "ready for deal said twice for one board (Ben after a restart; tables ignore it)",
            text,
        )

    def _early_deal_judged(self, *, repeat: bool) -> None:
        text, self.early_deal = self.early_deal, None
        if repeat:
            self.r.warn(
                "seat.repeat",
                "ready for deal after the last Timing line, unasked: the habit of a program "
                "that was restarted or repeats it (Ben); tables ignore it",
                text,
                at=self._early_at,
            )
        else:
            self.r.fail(
                "seat.ready-for-deal",
                "said before Start of board (after the Timing line) and not again after it: "
                "only after Start of board",
                text,
                f"{self.seat} ready for deal, after Start of board",
                at=self._early_at,
            )

    def _ready_cards(self, msg: Msg, text: str) -> None:
        b = self.board
        if b is None or b.asked_cards:
            self.r.fail("seat.ready-for-cards", "only after the board line, once", text)
            return
        b.asked_cards = True
        self.r.ok("seat.ready-for-cards")
        self._form(msg, text)

    def _ready_bid(self, msg: Msg, text: str) -> None:
        b = self.board
        if b is None or not b.got_cards or b.model.auction_done():
            self.r.fail("seat.ready-for-bid", "not during the auction", text)
            return
        m = b.model
        index = len(m.calls)
        bidder = m.next_bidder()
        expected = f"{self.seat} ready for {bidder}'s bid"
        if (bidder == self.seat or msg.who != bidder) and self._repeat(text):
            return
        if bidder == self.seat:
            self.r.fail(
                "seat.ready-for-bid",
                "it is the program's own call: no ready line",
                text,
                f"a call by {self.seat}",
            )
            return
        if msg.who != bidder:
            self.r.fail("seat.ready-for-bid", f"the next call is {bidder}'s", text, expected)
            return
        if index in b.ready_bids:
            self.r.warn("seat.repeat", "the same ready line twice", text)
            return
        b.ready_bids.add(index)
        self._last_ready = fold(text)
        self.r.ok("seat.ready-for-bid")
        self._form(msg, text)

    def _call(self, msg: Msg, text: str) -> None:
        b = self.board
        if b is None or not b.got_cards or b.model.auction_done():
            self.r.fail("seat.call", "a call outside the auction", text)
            return
        m = b.model
        if m.next_bidder() != self.seat:
            self.r.fail("seat.call", f"out of turn: the next call is {m.next_bidder()}'s", text)
            self.replies.append(f"Error: {self.seat}: {m.next_bidder()} is to call")
            return
        self.r.ok("seat.call")
        self._form(msg, text)
        if not self.r.check(
            "seat.call-legal",
            m.call_legal(msg.value),
            f"{msg.value} is not a legal call after {' '.join(c for _, c in m.calls) or 'nothing'}",
            text,
        ):
            self.replies.append("Illegal bid")
            return
        m.add_call(msg.value)
        if m.auction_done():
            self._role(m)

    def _ready_card(self, msg: Msg, text: str) -> None:
        b = self.board
        if b is None or not b.model.in_play:
            self.r.fail("seat.ready-for-card", "not during the play", text)
            return
        m = b.model
        index = len(m.cards)
        player = m.next_player()
        trick = m.trick_no()
        expected = f"{self.seat} ready for {player}'s card to trick {trick}"
        fits = (
            m.controller() != self.seat
            and msg.trick == trick
            and (
                msg.who == player
                or (msg.who == "dummy" and self.seat == m.dummy)
                or (msg.who == "dummy" and player == m.dummy)
            )
        )
        if not fits and self._repeat(text):
            return
        if m.controller() == self.seat:
            self.r.fail(
                "seat.ready-for-card",
                f"{player}'s card is the program's to play",
                text,
                f"a card for {player}",
            )
            return
        if msg.trick != trick:
            self.r.fail("seat.ready-for-card", f"the next card is to trick {trick}", text, expected)
            return
        if msg.who == "dummy":
            if player != m.dummy and self.seat != m.dummy:
                self.r.fail(
                    "seat.ready-for-card",
                    f"'dummy's' while {player} (not dummy) is to play: only dummy may say it then",
                    text,
                    expected,
                )
                return
        elif msg.who != player:
            self.r.fail("seat.ready-for-card", f"the next card is {player}'s", text, expected)
            return
        if index in b.ready_cards:
            self.r.warn(
                "seat.repeat",
                "the same ready line again before the card came "
                "(bridge-player's dummy does this; tables ignore it)",
                text,
            )
            return
        b.ready_cards.add(index)
        self._last_ready = fold(text)
        self.r.ok("seat.ready-for-card")
        if msg.who != "dummy":
            self._form(msg, text)

    _last_ready = ""

    def _repeat(self, text: str) -> bool:
        """A ready line that repeats the seat's last one after the table moved on (it crossed
        the relay on the wire, or bridge-player's dummy says it after every card): a warning."""
        if fold(text) != self._last_ready:
            return False
        self.r.warn(
            "seat.repeat",
            "the same ready line again after the table moved on (tables ignore a repeat)",
            text,
        )
        return True

    def _card(self, msg: Msg, text: str) -> None:
        b = self.board
        if b is None or not b.model.in_play:
            self.r.fail("seat.card", "a card outside the play", text)
            return
        m = b.model
        player = m.next_player()
        ctrl = m.controller()
        named = m.dummy if msg.seat == "dummy" else msg.seat
        if ctrl != self.seat:
            who = (
                "dummy never plays: declarer plays its cards"
                if self.seat == m.dummy
                else (f"the next card is {player}'s")
            )
            self.r.fail("seat.card", f"out of turn: {who}", text)
            self.replies.append(f"Error: {self.seat}: {ctrl} is to play {player}'s card")
            return
        if named != player:  # e.g. dummy's card in declarer's own name: refused, as a table does
            self.r.fail(
                "seat.card",
                f"the next card is {player}'s"
                + (", which declarer plays in dummy's seat name" if player == m.dummy else ""),
                text,
                f"{player} plays {msg.value}",
            )
            self.replies.append(
                f"Error: {self.seat}: a card in {named}'s name when {player} is to play"
            )
            return
        if m.trick_start() and m.trick_no() not in b.lead_prompts:
            self.r.fail(
                "seat.lead-prompt",
                f"led to trick {m.trick_no()} before "
                f"'{'Dummy' if player == m.dummy else player} to lead'",
                text,
            )
        elif m.trick_start():
            self.r.ok("seat.lead-prompt")
        self.r.ok("seat.card")
        if msg.seat == "dummy":
            self.r.warn(
                "seat.variant",
                "'Dummy plays': one table manager did not recognise it; send dummy's seat name",
                text,
                f"{m.dummy} plays {msg.value}",
            )
        else:
            self._form(msg, text)
        problem = m.card_problem(player, msg.value)
        if not self.r.check("seat.card-legal", problem is None, str(problem), text):
            self.replies.append("Illegal card")
            return
        m.add_card(msg.value)

    def _ready_dummy(self, msg: Msg, text: str) -> None:
        b = self.board
        if b is None or not b.model.declarer:
            self.r.fail("seat.ready-for-dummy", "before the auction ended", text)
            return
        m = b.model
        if self.seat == m.dummy:
            self.r.fail("seat.ready-for-dummy", "dummy asked for dummy", text)
            return
        if b.asked_dummy:
            self.r.fail("seat.ready-for-dummy", "asked twice", text)
            return
        b.asked_dummy = True
        if not m.cards:
            self.r.warn(
                "seat.early-dummy",
                "before the opening lead (bridge-player): a table "
                "that waits for the ready line of the lead first deadlocks",
                text,
            )
        self.r.ok("seat.ready-for-dummy")
        self._form(msg, text)

    def _received_dummy(self, msg: Msg, text: str) -> None:
        self.r.warn(
            "seat.received-dummy",
            "abolished by v18; GIB and bridge-player send it, tables ignore it",
            text,
        )
