"""Checks every line a table manager sends, given what the seats sent it.

:class:`TableObserver` is fed the exchange in order, ``seat_sent`` for a seat's line to the
table manager and ``tm_sent`` for the table manager's line to a seat, from one seat's view or
from several; it works out from docs/protocol.md what each seat is owed at that moment and
records a finding for each line the table manager sends. The live kit (``conform tm``) feeds it
the lines of its scripted seats and asks it what to play; the transcript replay feeds it a
golden transcript. It never decides what a seat should send.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bridgebot.conform.model import BoardModel
from bridgebot.conform.net import Abort
from bridgebot.conform.report import Recorder
from bridgebot.conform.wire import (
    SEATS,
    VULS,
    Msg,
    Unreadable,
    call_text,
    card_text,
    case_only,
    fold,
    hand_text,
    partner,
    read_seat_line,
    read_tm_line,
    side,
    teams_text,
)

_VUL_WORDS = {"neither": "Neither", "n/s": "N/S", "e/w": "E/W", "both": "Both"}


@dataclass
class SeatView:
    """What one seat has said and been sent, as far as the protocol cares."""

    seat: str
    team: str = ""
    connected: bool = False
    seated: bool = False
    asked_teams: bool = False
    teams: int = 0
    asked_start: bool = False
    starts: int = 0
    asked_deal: bool = False
    got_board: bool = False
    asked_cards: bool = False
    got_cards: bool = False
    calls: int = 0
    """Calls of this board relayed to this seat (or made by it and taken)."""
    cards: int = 0
    """Cards of this board this seat has (relayed to it, or played by it and taken)."""
    lead_prompts: set[int] = field(default_factory=set)
    ready_call: str = ""
    """The bidder named by the seat's last ``ready for <X>'s bid`` (until the next relay)."""
    ready_card: tuple[str, int] = ("", 0)
    """(player or ``dummy``, trick) of its last ``ready for ...'s card`` (until the next relay)."""
    asked_dummy: bool = False
    got_dummy: bool = False
    timing: bool = False
    ended: bool = False
    pending_call: str | None = None
    pending_card: tuple[str, str] | None = None
    """(player, card) the seat sent and the table has not yet taken."""
    alerted: bool = False
    illegal: int = 0
    errors_owed: int = 0
    errors: int = 0
    last: str = ""
    bi: int = -1
    """Index of the board this seat is in."""


class TableObserver:
    """The kit's model of a table manager, checked line by line (docs/protocol.md sections 2 and 3)."""

    def __init__(self, record: Recorder, *, style: str = "canonical") -> None:
        self.r = record
        self.style = style
        self.views: dict[str, SeatView] = {}
        self.boards: list[BoardModel] = []
        """Every board in order; each seat's view points at the one it is in (the seats'
        lines interleave, so one seat may see the next board before another the last card)."""
        self.board_lines: list[dict[str, tuple[int, str, str]]] = []
        self.teams: tuple[str, str] | None = None

    @property
    def board(self) -> BoardModel | None:
        """The latest board."""
        return self.boards[-1] if self.boards else None

    def _b(self, v: SeatView) -> BoardModel | None:
        return self.boards[v.bi] if 0 <= v.bi < len(self.boards) else None

    # ------------------------------------------------------------------ seat lines

    def view(self, seat: str) -> SeatView:
        return self.views.setdefault(seat, SeatView(seat))

    def seat_sent(self, seat: str, text: str) -> None:
        """A line one of the seats (ours, or the transcript's) sent the table manager."""
        try:
            msg = read_seat_line(text)
        except Unreadable:
            return  # a seat's junk (a probe) owes it nothing in particular
        v = self.view(seat)
        match msg.kind:
            case "connect":
                v.connected, v.team = True, msg.value
            case "ready_teams":
                v.asked_teams = True
            case "ready_start":
                v.asked_start = True
            case "ready_deal":
                v.asked_deal = True
            case "ready_cards":
                v.asked_cards = True
            case "ready_dummy":
                v.asked_dummy = True
            case "ready_bid":
                v.ready_call = msg.who
            case "ready_card":
                v.ready_card = (msg.who, msg.trick)
            case "call":
                v.pending_call = msg.value
                v.alerted = msg.extra == "alert"
            case "card":
                b = self._b(v)
                player = b.dummy if (b and msg.seat == "dummy") else msg.seat
                v.pending_card = (player, msg.value)

    def expect_error(self, seat: str) -> None:
        """The seat just sent a line the table must refuse (a probe): an error line is owed,
        and the call or card it sent is not pending."""
        v = self.view(seat)
        v.errors_owed += 1
        v.pending_call = None
        v.pending_card = None

    # ------------------------------------------------------------------ table lines

    def tm_sent(self, seat: str, text: str) -> None:
        """A line the table manager sent ``seat``: check it against what the seat is owed."""
        v = self.view(seat)
        v.last = text
        try:
            msg = read_tm_line(text)
        except Unreadable:
            self.r.fail("tm.unexpected", f"unreadable line to {seat}", line=text)
            return
        if msg.kind not in ("illegal", "error"):
            self._settle(v)
        handler = getattr(self, f"_on_{msg.kind}")
        before = self.r.failures("tm.unexpected")
        handler(v, msg, text)
        if self.r.failures("tm.unexpected") == before:
            self.r.ok("tm.unexpected")

    def _settle(self, v: SeatView) -> None:
        """The table moved on past ``v``'s own call or card: it was taken (no echo comes back
        to the seat that made it, so a one-seat view learns it this way)."""
        b = self._b(v)
        if b is None:
            return
        if v.pending_call is not None and not b.auction_done() and b.next_bidder() == v.seat:
            self._take_call(b, v.seat, v.pending_call)
        elif v.pending_card is not None and b.in_play and b.controller() == v.seat:
            player, card = v.pending_card
            if player == b.next_player():
                self._take_card(b, card)

    def _unexpected(self, v: SeatView, text: str, why: str, rule: str = "tm.unexpected") -> None:
        self.r.fail(rule, f"to {v.seat}: {why}", line=text)

    def _on_seated(self, v: SeatView, msg: Msg, text: str) -> None:
        if not v.connected or v.seated:
            return self._unexpected(v, text, "a seated line nobody asked for", "tm.seated")
        v.seated = True
        expected = f'{v.seat} ("{v.team}") seated'
        if msg.seat != v.seat and v.seat in SEATS:
            return self.r.fail("tm.seated", f"{v.seat} was seated as {msg.seat}", text, expected)
        if msg.value != v.team:
            return self.r.fail("tm.seated", "the team name is not the one given", text, expected)
        if self.style == "bridge-player" and msg.extra == "paren":
            return self.r.fail(
                "tm.seated",
                "bridge-player's parser (table-master-parser) rejects the parenthesised form; "
                "it reads 'North \"team\" seated'",
                text,
                f'{v.seat} "{v.team}" seated',
            )
        if msg.extra == "paren" and text == expected:
            return self.r.ok("tm.seated")
        if case_only(text, expected):
            return self.r.warn("tm.seated", "not in canonical case", text, expected)
        # quoted and bare forms: ZBridge, bridge_env, Bridge Moniteur. bridge-player's parser
        # wants one of them and Ben ignores the line; the ComputerBridge clients (the canonical
        # style) need the parenthesised one; WBridge5 is known to read that one only.
        if msg.extra != "paren" and self.style in ("bridge-player", "ben"):
            return self.r.ok("tm.seated")
        if msg.extra != "paren" and self.style == "canonical":
            return self.r.fail(
                "tm.seated",
                f"the {msg.extra} form: the ComputerBridge clients need the parenthesised one",
                text,
                expected,
            )
        if msg.extra != "paren":
            return self.r.warn(
                "tm.seated",
                f"the {msg.extra} form: ComputerBridge clients need the parenthesised one",
                text,
                expected,
            )
        return self.r.ok("tm.seated")

    def _on_teams(self, v: SeatView, msg: Msg, text: str) -> None:
        if not v.asked_teams:
            return self._unexpected(v, text, "Teams before 'ready for teams'", "tm.teams")
        v.teams += 1
        if v.teams > 1:
            return self.r.warn("tm.teams", "the Teams line sent again", text)
        ns_team = self._team_of("NS")
        ew_team = self._team_of("EW")
        expected = teams_text(ns_team or msg.value, ew_team or msg.extra)
        if (ns_team is not None and msg.value != ns_team) or (
            ew_team is not None and msg.extra != ew_team
        ):
            return self.r.fail("tm.teams", "the team names are not those given", text, expected)
        if text == expected:
            return self.r.ok("tm.teams")
        if re.search(r'N/S\s*:?\s*"[^"]*"\s*\.', text):
            return self.r.fail(
                "tm.teams",
                "a full stop after the N/S name: Ben crashes on it, table-master-parser rejects it",
                text,
                expected,
            )
        if re.search(r"\.\s*playing\s+(imp|mp)'?\s*$", text, re.I):
            return self.r.ok("tm.teams")  # ComputerBridge's scoring suffix
        return self.r.warn("tm.teams", "not the canonical layout", text, expected)

    def _team_of(self, which: str) -> str | None:
        for s, v in self.views.items():
            if s in SEATS and side(s) == which and v.team:
                return v.team
        return None

    def _on_start(self, v: SeatView, msg: Msg, text: str) -> None:
        first = v.starts == 0
        v.starts += 1
        if first and not v.asked_start:
            return self._unexpected(
                v, text, "Start of board before 'ready to start'", "tm.start-of-board"
            )
        if not first and not v.timing:
            return self.r.fail(
                "tm.start-of-board", f"to {v.seat}: Start of board in the middle of a board", text
            )
        if v.ended:
            return self._unexpected(
                v, text, "Start of board after End of session", "tm.start-of-board"
            )
        self._new_board_for(v)
        if text == "Start of board":
            return self.r.ok("tm.start-of-board")
        return self.r.warn("tm.start-of-board", "not in canonical case", text, "Start of board")

    def _new_board_for(self, v: SeatView) -> None:
        """At Start of board only what the next lines need; the rest of the last board's
        record stays until the board line (the kit may still be waiting on it)."""
        v.asked_deal = v.got_board = False

    def _board_line_for(self, v: SeatView) -> None:
        v.asked_cards = v.got_cards = False
        v.calls = v.cards = 0
        v.ready_call, v.ready_card = "", ("", 0)
        v.lead_prompts = set()
        v.asked_dummy = v.got_dummy = v.timing = False
        v.pending_call = v.pending_card = None

    def _on_board(self, v: SeatView, msg: Msg, text: str) -> None:
        if not v.asked_deal or v.got_board:
            return self._unexpected(v, text, "a board line before 'ready for deal'", "tm.board")
        v.got_board = True
        self._board_line_for(v)
        expected = ""
        vul = _VUL_WORDS.get(msg.value)
        if vul is None:
            return self.r.fail(
                "tm.board",
                f"vulnerability {msg.value!r} is not one of {', '.join(VULS)} (Ben asserts)",
                text,
            )
        expected = f"Board number {msg.trick}. Dealer {msg.seat}. {vul} vulnerable."
        key = (msg.trick, msg.seat, vul)
        v.bi += 1
        if v.bi == len(self.boards):
            self.boards.append(BoardModel(msg.trick, msg.seat, vul))
            self.board_lines.append({})
        lines = self.board_lines[v.bi]
        others = set(lines.values())
        lines[v.seat] = key
        if others and key not in others:
            return self.r.fail("tm.board", f"{v.seat} got another board than the others", text)
        if msg.trick < 1:
            return self.r.fail("tm.board", "board numbers start at 1", text, expected)
        if text == expected or (msg.extra and text.startswith(expected)):
            return self.r.ok("tm.board")
        if case_only(text, expected):
            return self.r.warn("tm.board", "not in canonical case", text, expected)
        if fold(text) + "." == fold(expected):
            return self.r.fail(
                "tm.board", "no final full stop: bridge_env's client requires it", text, expected
            )
        return self.r.fail("tm.board", "not the board line's layout", text, expected)

    def _on_cards(self, v: SeatView, msg: Msg, text: str) -> None:
        if not v.asked_cards or v.got_cards:
            return self._unexpected(v, text, "a hand before 'ready for cards'", "tm.cards")
        v.got_cards = True
        b = self._b(v)
        if b is None:
            return self._unexpected(v, text, "a hand before the board line", "tm.cards")
        if msg.seat != v.seat:
            return self.r.fail("tm.cards", f"{v.seat} was sent {msg.seat}'s hand", text)
        if len(msg.hand) != 13:
            return self.r.fail("tm.cards", f"{len(msg.hand)} cards, not 13", text)
        expected = f"{v.seat}'s cards : {hand_text(msg.hand)}"
        b.hands[v.seat] = msg.hand
        self._check_deal(b)
        if text == expected:
            return self.r.ok("tm.cards")
        if case_only(text, expected):
            return self.r.warn("tm.cards", "not in canonical case", text, expected)
        return self.r.fail(
            "tm.cards",
            "not the one layout every client reads (S H D C, ranks high to low, '-' for a void, "
            "a full stop after every suit, ' : ')",
            text,
            expected,
        )

    def _check_deal(self, b: BoardModel) -> None:
        seen: set[str] = set()
        for seat, hand in b.hands.items():
            clash = seen & hand
            if clash:
                self.r.fail("tm.deal", f"{', '.join(sorted(clash))} dealt twice (again to {seat})")
                return
            seen |= hand
        if len(b.hands) == 4:
            self.r.check("tm.deal", len(seen) == 52, f"{len(seen)} different cards dealt")

    # ------------------------------------------------------------------ auction

    def _on_call(self, v: SeatView, msg: Msg, text: str) -> None:
        b = self._b(v)
        if b is None or not v.got_cards or (b.auction_done() and v.calls >= len(b.calls)):
            return self._unexpected(v, text, "a call relayed outside the auction", "tm.call-relay")
        index = v.calls
        if msg.seat == v.seat:
            return self.r.fail("tm.call-relay", f"{v.seat}'s own call echoed back to it", text)
        if index < len(b.calls):  # another seat already got call `index`
            bidder, call = b.calls[index]
        else:
            bidder = b.next_bidder()
            call = msg.value
            owner = self.views.get(bidder)
            if owner is not None and owner.pending_call is not None:
                call = owner.pending_call
            elif not b.call_legal(call):
                self.r.fail("tm.relay-legal", f"{msg.seat}'s call {call} is not legal", text)
                raise Abort("illegal relay")  # the auction cannot be followed past it
            elif owner is None or not owner.connected:
                self.r.ok("tm.relay-legal")
            self._take_call(b, bidder, call)
        v.calls += 1
        expected = call_text(bidder, call)
        ready, v.ready_call = v.ready_call == bidder, ""
        if not ready:
            self.r.fail(
                "tm.call-relay",
                f"relayed to {v.seat} before it said 'ready for {bidder}'s bid'",
                text,
                expected,
            )
        if msg.seat != bidder:
            return self.r.fail(
                "tm.call-relay", f"call {index + 1} is {bidder}'s, not {msg.seat}'s", text, expected
            )
        if msg.value != call:
            return self.r.fail("tm.call-relay", f"{bidder} called {call}", text, expected)
        owner = self.views.get(bidder)
        self._check_alert(v, bidder, owner, msg, text)
        bare = text.split(" Alert.")[0].split(" alert.")[0].rstrip()
        if bare == expected:
            self.r.ok("tm.relay-case")
            return self.r.ok("tm.call-relay")
        self.r.ok("tm.call-relay")
        if fold(bare) == fold(expected):
            return self.r.fail(
                "tm.relay-case",
                "not in canonical case: Ben compares seat names case-sensitively",
                text,
                expected,
            )
        return self.r.fail("tm.relay-case", "not the canonical text of the call", text, expected)

    def _take_call(self, b: BoardModel, bidder: str, call: str) -> None:
        b.add_call(call)
        owner = self.views.get(bidder)
        if owner is not None:
            owner.pending_call = None
            owner.calls = len(b.calls)

    def _check_alert(
        self, v: SeatView, bidder: str, owner: SeatView | None, msg: Msg, text: str
    ) -> None:
        if owner is None or not owner.connected:
            return
        if msg.extra == "alert" and v.seat == partner(bidder):
            self.r.fail("tm.alert", f"{bidder}'s alert went to its partner {v.seat}", text)
        elif msg.extra == "alert" and not owner.alerted:
            self.r.fail("tm.alert", f"{bidder} did not alert this call", text)
        elif owner.alerted:
            self.r.ok("tm.alert")

    def _on_illegal(self, v: SeatView, msg: Msg, text: str) -> None:
        rule = "tm.illegal-bid" if msg.value == "bid" else "tm.illegal-card"
        b = self._b(v)
        if msg.value == "bid" and v.pending_call is not None and b is not None:
            if b.call_legal(v.pending_call) and b.next_bidder() == v.seat:
                return self.r.fail(rule, f"{v.seat}'s legal call {v.pending_call} refused", text)
            v.pending_call = None
        elif msg.value == "card" and v.pending_card is not None and b is not None:
            player, card = v.pending_card
            if b.in_play and b.next_player() == player and b.card_problem(player, card) is None:
                return self.r.fail(rule, f"{v.seat}'s legal card {card} refused", text)
            v.pending_card = None
        elif v.errors_owed:
            v.errors_owed -= 1  # an out-of-turn call or card may be answered this way too
            self.r.ok("tm.out-of-turn")
            return None
        else:
            return self._unexpected(v, text, f"'Illegal {msg.value}' with nothing to refuse", rule)
        v.illegal += 1
        expected = f"Illegal {msg.value}"
        if text == expected:
            return self.r.ok(rule)
        return self.r.warn(rule, "not in canonical case", text, expected)

    def _on_error(self, v: SeatView, msg: Msg, text: str) -> None:
        v.errors += 1
        if v.errors_owed:
            v.errors_owed -= 1
            return self.r.ok("tm.out-of-turn")
        # An error text nobody provoked: the kit's seats said nothing wrong.
        return self._unexpected(v, text, "an error line, but the seat said nothing wrong")

    # ------------------------------------------------------------------ play

    def _on_to_lead(self, v: SeatView, msg: Msg, text: str) -> None:
        b = self._b(v)
        if b is None or not b.in_play:
            return self._unexpected(v, text, "'to lead' outside the play", "tm.to-lead")
        if v.cards != len(b.cards):
            return self.r.fail(
                "tm.to-lead", f"to {v.seat} before it had every card of the last trick", text
            )
        player = b.next_player()
        ctrl = b.controller()
        trick = b.trick_no()
        if not b.trick_start():
            return self.r.fail("tm.to-lead", f"to {v.seat} in the middle of trick {trick}", text)
        if trick in v.lead_prompts:
            return self.r.fail("tm.to-lead", f"sent twice to {v.seat} for trick {trick}", text)
        if v.seat != ctrl:
            return self.r.fail(
                "tm.to-lead",
                f"trick {trick} is {player}'s lead, controlled by {ctrl}, not {v.seat}",
                text,
            )
        v.lead_prompts.add(trick)
        if player == b.dummy:
            if fold(text) in ("dummy to lead", f"{player.lower()} to lead"):
                return self.r.ok("tm.to-lead")
            return self.r.fail("tm.to-lead", f"dummy {player} is on lead", text, "Dummy to lead")
        expected = f"{player} to lead"
        if text == expected:
            return self.r.ok("tm.to-lead")
        if case_only(text, expected):
            return self.r.warn("tm.to-lead", "not in canonical case", text, expected)
        return self.r.fail("tm.to-lead", f"trick {trick} is {player}'s lead", text, expected)

    def _on_card(self, v: SeatView, msg: Msg, text: str) -> None:
        b = self._b(v)
        if b is None or not b.declarer:
            return self._unexpected(v, text, "a card relayed outside the play", "tm.card-relay")
        index = v.cards
        if index < len(b.cards):
            player, card = b.cards[index]
        else:
            if index >= 52:
                return self._unexpected(v, text, "a 53rd card", "tm.card-relay")
            player = b.next_player()
            ctrl = self.views.get(b.controller())
            card = msg.value
            if ctrl is not None and ctrl.pending_card is not None:
                player, card = ctrl.pending_card
            else:
                problem = b.card_problem(player, card)
                if problem is not None:
                    self.r.fail("tm.relay-legal", problem, text)
                elif ctrl is None or not ctrl.connected:
                    self.r.ok("tm.relay-legal")
            self._take_card(b, card)
        controller = b.declarer if player == b.dummy else player
        expected = card_text(player, card)
        v.cards += 1
        who, trick = v.ready_card
        v.ready_card = ("", 0)
        ready = trick == b.trick_no(index) and (
            who == player or (who == "dummy" and b.dummy in (player, v.seat))
        )
        if not ready and v.seat != controller:
            self.r.fail(
                "tm.card-relay",
                f"relayed to {v.seat} before it said it was ready for {player}'s card",
                text,
                expected,
            )
        if v.seat == controller:
            return self.r.fail(
                "tm.card-relay", f"{player}'s card echoed to {v.seat}, who played it", text
            )
        if msg.seat == "dummy" and player == b.dummy:
            self.r.fail(
                "tm.relay-case",
                "'Dummy plays': one table manager did not recognise it; send the seat name",
                text,
                expected,
            )
        elif msg.seat != player:
            return self.r.fail("tm.card-relay", f"card {index + 1} is {player}'s", text, expected)
        if msg.value != card:
            return self.r.fail("tm.card-relay", f"{player} played {card}", text, expected)
        self.r.ok("tm.card-relay")
        if text == expected:
            return self.r.ok("tm.relay-case")
        if msg.seat != "dummy":
            if case_only(text, expected):
                return self.r.fail(
                    "tm.relay-case",
                    "not in canonical case: Ben compares seat names case-sensitively",
                    text,
                    expected,
                )
            return self.r.fail(
                "tm.relay-case", "not the canonical text of the card", text, expected
            )

    def _take_card(self, b: BoardModel, card: str) -> None:
        ctrl = self.views.get(b.controller())
        b.add_card(card)
        if ctrl is not None:
            ctrl.pending_card = None
            ctrl.cards = len(b.cards)

    def _on_dummy_cards(self, v: SeatView, msg: Msg, text: str) -> None:
        b = self._b(v)
        if b is None or not b.cards:
            return self._unexpected(
                v, text, "dummy's cards before the opening lead", "tm.dummy-cards"
            )
        if v.seat == b.dummy:
            return self.r.fail("tm.dummy-cards", "dummy was sent its own hand", text)
        if not v.asked_dummy or v.got_dummy:
            return self._unexpected(
                v, text, "dummy's cards before 'ready for dummy'", "tm.dummy-cards"
            )
        v.got_dummy = True
        # dummy's hand as dealt: its cards played so far are still shown (13 cards)
        known = b.hands.get(b.dummy)
        expected = f"Dummy's cards : {hand_text(known if known is not None else msg.hand)}"
        if known is not None and msg.hand != known:
            return self.r.fail("tm.dummy-cards", f"not {b.dummy}'s hand as dealt", text, expected)
        if len(msg.hand) != 13:
            return self.r.fail("tm.dummy-cards", f"{len(msg.hand)} cards, not 13", text, expected)
        if known is None:
            b.hands[b.dummy] = msg.hand
            self._check_deal(b)
        if text == expected:
            return self.r.ok("tm.dummy-cards")
        if case_only(text, expected):
            return self.r.warn("tm.dummy-cards", "not in canonical case", text, expected)
        return self.r.fail(
            "tm.dummy-cards",
            "the ComputerBridge client waits for exactly "
            "'Dummy's cards : ' and the hand layout of 2.2 #5",
            text,
            expected,
        )

    def _on_timing(self, v: SeatView, msg: Msg, text: str) -> None:
        b = self._b(v)
        if b is None or not b.done():
            return self.r.fail("tm.timing", f"to {v.seat} before the board ended", text)
        if b.cards and v.cards < 52:
            return self.r.fail(
                "tm.timing", f"to {v.seat} before every card reached it ({v.cards} of 52)", text
            )
        if v.timing:
            return self.r.fail("tm.timing", f"sent twice to {v.seat}", text)
        v.timing = True
        if text.startswith("Timing"):
            return self.r.ok("tm.timing")
        return self.r.warn("tm.timing", "not in canonical case", text)

    def _on_end(self, v: SeatView, msg: Msg, text: str) -> None:
        b = self._b(v)
        if v.ended:
            return self.r.fail("tm.end-of-session", f"sent twice to {v.seat}", text)
        v.ended = True
        if b is not None and not b.done() and v.got_board:
            return self.r.fail("tm.end-of-session", "in the middle of a board", text)
        if v.starts and not v.timing:
            return self.r.fail("tm.end-of-session", "the last board had no Timing line", text)
        if text == "End of session":
            return self.r.ok("tm.end-of-session")
        return self.r.warn("tm.end-of-session", "not the canonical text", text, "End of session")
