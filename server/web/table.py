"""A person's seat as the page sees it: what to show, whose turn it is, and what may be done.

:class:`PersonTable` is the one place that decides what the person may do: the page's buttons are
a courtesy, every call and card is checked here against the seat machine's pending request (the
turn) and the laws (legality) before it goes to the table manager. It holds no sockets: the seat
client (:mod:`server.web.human`) feeds it the machine's requests and finished boards, the web app
(:mod:`server.web.app`) reads :meth:`PersonTable.view` and calls :meth:`PersonTable.act`, and
``bridgebot play`` adds the other room's results (:meth:`PersonTable.add_result`).

The page's state (``<body data-state>``, docs/web.md) is a function of this object:

* ``board-done``: a finished board the person has not moved past (``next``) and whose result is
  complete (in ``bridgebot play``, once the other room has played it too);
* ``your-call`` / ``your-card`` / ``dummy-card``: a call or card of ours is due;
* ``session-done``: the session ended and every board was moved past;
* ``waiting`` otherwise (the bots think, or the other room is still playing).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from bridgebot.laws.calls import same_call
from bridgebot.laws.cards import SEATS, SUITS, card_index, deal_owners, owners_pbn
from bridgebot.laws.notation import (
    NotationError,
    call_text,
    card_text,
    contract_declarer_text,
    parse_call,
    parse_card,
    result_text,
)
from bridgebot.laws.play import trick_winner
from bridgebot.laws.scoring import ns_score
from bridgebot.protocol.seat import BoardState, NeedCall, NeedCard, Phase, SeatMachine
from bridgebot.server.seat import bidding_view, play_view
from endplay.types import Bid, Card, Hand, Player

State = Literal["waiting", "your-call", "your-card", "dummy-card", "board-done", "session-done"]


class Refused(ValueError):
    """An action the person may not take now: not their turn, or not legal; the text says why."""


@dataclass
class FinishedBoard:
    """A board the person's table finished, with what the page shows after it."""

    final: BoardState
    hands: dict[str, list[str]] | None = None
    """All four hands as dealt, once known (from the play, or the deal the session holds)."""
    dd: list[list[int]] | None = None
    """Double-dummy tricks [declarer N, E, S, W][strain C, D, H, S, NT]."""
    other: dict[str, Any] | None = None
    """The other room's auction, contract and result, and the IMPs (``bridgebot play``)."""
    complete: bool = True
    """False while the result waits for something (the other room) before it is shown."""
    solving: bool = False
    """The double-dummy table is being solved (once per board)."""


@dataclass
class PersonTable:
    """The person's seat: the seat machine's state, the pending decision, the finished boards.

    ``expect_other`` says a finished board is complete only with the other room's result
    (``bridgebot play``); a person at any other table manager sees their own result at once.
    """

    expect_other: bool = False
    machine: SeatMachine | None = None
    finished: list[FinishedBoard] = field(default_factory=list)
    moved_on: int = 0
    """Finished boards the person has moved past (``next``)."""
    ended: bool = False
    summary: dict[str, Any] | None = None
    """The session's summary (``bridgebot play``: IMPs per board, standard error, report)."""
    note: str = ""
    """A line for the page while waiting (where to connect, who is thinking)."""
    explain: Callable[[int, int], str] | None = None
    """``(board, index) -> meaning`` of a call of a board's auction (None: nothing to ask)."""
    _request: NeedCall | NeedCard | None = None
    _answer: asyncio.Future[Bid | Card] | None = None
    _watchers: set[asyncio.Queue[None]] = field(default_factory=set)
    version: int = 0

    # ------------------------------------------------------------------ from the seat client

    def ask(self, request: NeedCall | NeedCard) -> asyncio.Future[Bid | Card]:
        """A decision is due: the returned future gets the person's call or card."""
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()
        self._request = request
        self._answer = asyncio.get_running_loop().create_future()
        self.changed()
        return self._answer

    def withdraw(self) -> None:
        """The request is void (a restarted board, the end of the session)."""
        self._request = None
        if self._answer is not None and not self._answer.done():
            self._answer.cancel()
        self._answer = None
        self.changed()

    def board_finished(self, final: BoardState) -> FinishedBoard:
        done = FinishedBoard(final, hands=_hands_from_play(final), complete=not self.expect_other)
        self.finished.append(done)
        self._request = None
        self.changed()
        return done

    def session_ended(self) -> None:
        self.ended = True
        self.withdraw()

    # ------------------------------------------------------------------ from the page

    def state(self) -> State:
        if self.moved_on < len(self.finished):
            return "board-done" if self.finished[self.moved_on].complete else "waiting"
        request = self._request
        if isinstance(request, NeedCall):
            return "your-call"
        if isinstance(request, NeedCard):
            return "dummy-card" if request.player != request.controller else "your-card"
        if self.ended and (self.summary is not None or not self.expect_other):
            return "session-done"
        return "waiting"

    def act(self, kind: str, text: str) -> Bid | Card:
        """The person's ``call`` or ``card``: checked (turn, then legality), then answered."""
        state = self.state()
        request = self._request
        answer = self._answer
        if kind == "call":
            if state != "your-call" or not isinstance(request, NeedCall) or answer is None:
                raise Refused(f"it is not your turn to call (the table is {state})")
            try:
                call = parse_call(text)
            except NotationError:
                raise Refused(f"{text!r} is not a call (Pass, X, XX, 1C .. 7NT)") from None
            legal = _legal_calls(request)
            if not any(same_call(call, c) for c in legal):
                raise Refused(f"{call_text(call)} is not a legal call now")
            chosen: Bid | Card = next(c for c in legal if same_call(call, c))
        elif kind == "card":
            if state not in ("your-card", "dummy-card") or not isinstance(request, NeedCard):
                raise Refused(f"it is not your turn to play a card (the table is {state})")
            try:
                card = parse_card(text)
            except NotationError:
                raise Refused(f"{text!r} is not a card (suit then rank: SA, HT, C2)") from None
            if card not in _legal_cards(request):
                whose = "dummy's" if state == "dummy-card" else "your"
                raise Refused(f"{card_text(card)} is not a legal card from {whose} hand now")
            chosen = card
        else:
            raise Refused(f"unknown action {kind!r} (call, card or next)")
        assert answer is not None
        self._request = None
        self._answer = None
        answer.set_result(chosen)
        self.changed()
        return chosen

    def next_board(self) -> None:
        """Move past the finished board on show."""
        if self.state() != "board-done":
            raise Refused("no finished board to move past")
        self.moved_on += 1
        self.changed()

    # ------------------------------------------------------------------ watchers

    def watch(self) -> asyncio.Queue[None]:
        """A queue that gets a token after every change (coalesced): the page's feed."""
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._watchers.add(queue)
        return queue

    def unwatch(self, queue: asyncio.Queue[None]) -> None:
        self._watchers.discard(queue)

    def changed(self) -> None:
        self.version += 1
        for queue in self._watchers:
            if queue.empty():
                queue.put_nowait(None)

    # ------------------------------------------------------------------ the view

    def view(self) -> dict[str, Any]:
        """Everything the page draws, as JSON: only what this seat may know."""
        state = self.state()
        out: dict[str, Any] = {"state": state, "version": self.version, "note": self.note}
        machine = self.machine
        seat = None if machine is None else machine.requested_seat
        if machine is not None and machine.phase is not Phase.CONNECTING:
            seat = machine.seat  # assigned by the table manager when we asked for ANYPL
        if seat is not None:
            out["seat"] = SEATS[seat.value]
        if machine is not None and machine.teams is not None:
            out["teams"] = {"ns": machine.teams.ns, "ew": machine.teams.ew}
        if state == "board-done":
            out["done"] = self._done_view(self.finished[self.moved_on])
        elif machine is not None and machine.board is not None:
            out["table"] = _table_view(machine.board, self._request)
        elif self.moved_on < len(self.finished):  # the other room is still playing
            final = self.finished[self.moved_on].final
            out["table"] = _table_view(final, None)
            out["note"] = f"The other room is still playing board {final.number}\u2026"
        out["history"] = [_history_line(f) for f in self.finished[: self.moved_on]]
        if state == "session-done":
            out["summary"] = self.summary or {"boards": len(self.finished)}
        out["explain"] = self.explain is not None
        return out

    def _done_view(self, done: FinishedBoard) -> dict[str, Any]:
        view = _table_view(done.final, None)
        view["hands"] = done.hands
        view["dd"] = done.dd
        view["result"] = _result(done.final)
        view["other"] = done.other
        return view


def _legal_cards(request: NeedCard) -> tuple[Card, ...]:
    return play_view(request).legal


def _legal_calls(request: NeedCall) -> tuple[Bid, ...]:
    return bidding_view(request).legal


def hand_cards(hand: Hand) -> dict[str, list[str]]:
    """A hand by suit (S, H, D, C), each suit high to low, cards as ``SA``."""
    cards = sorted(hand, key=card_index)
    return {s: [card_text(c) for c in cards if card_text(c)[0] == s] for s in SUITS}


def _table_view(board: BoardState, request: NeedCall | NeedCard | None) -> dict[str, Any]:
    me = board.seat
    view: dict[str, Any] = {
        "board": board.number,
        "dealer": SEATS[board.dealer.value],
        "vul": _vul(board),
        "hand": hand_cards(board.hand),
        "auction": [
            {
                "seat": SEATS[(board.dealer.value + i) % 4],
                "call": call_text(c),
                "alert": board.alerts.get(i),
            }
            for i, c in enumerate(board.auction)
        ],
    }
    if board.contract is not None:
        contract = board.contract
        view["contract"] = contract_declarer_text(contract)
        view["declarer"] = SEATS[contract.declarer.value]
        view["dummySeat"] = SEATS[contract.declarer.partner.value]
        if board.dummy_hand is not None and me != contract.declarer.partner:
            view["dummy"] = hand_cards(board.dummy_hand)
        view.update(_tricks(board))
    if isinstance(request, NeedCall):
        legal = _legal_calls(request)
        view["legalCalls"] = [call_text(c) for c in legal]
        view["toAct"] = SEATS[me.value]
    elif isinstance(request, NeedCard):
        view["legalCards"] = [card_text(c) for c in _legal_cards(request)]
        view["toAct"] = SEATS[request.player.value]
    elif board.contract is None:
        view["toAct"] = SEATS[board.bidder.value]
    elif board.leader is not None and len(board.played) < 52:
        view["toAct"] = SEATS[board.next_player.value]
    return view


def _vul(board: BoardState) -> str:
    from bridgebot.laws.notation import vul_text

    return vul_text(board.vul)


def _tricks(board: BoardState) -> dict[str, Any]:
    """The current trick, the last complete one and the tricks each side won."""
    assert board.contract is not None
    won = {"ns": 0, "ew": 0}
    leader = Player((board.contract.declarer.value + 1) % 4)
    full = len(board.played) // 4 * 4
    last: list[dict[str, str]] = []
    for start in range(0, full, 4):
        trick = board.played[start : start + 4]
        winner = trick_winner(leader, [c for _, c in trick], board.contract.denom)
        won["ns" if winner.value % 2 == 0 else "ew"] += 1
        leader = winner
        last = [{"seat": SEATS[p.value], "card": card_text(c)} for p, c in trick]
    current = [{"seat": SEATS[p.value], "card": card_text(c)} for p, c in board.played[full:]]
    return {"trick": current, "lastTrick": last, "won": won, "played": len(board.played)}


def _result(board: BoardState) -> dict[str, Any]:
    """Contract, tricks and North-South's score of a finished board at the person's table."""
    if board.contract is None:
        return {"contract": None, "text": "passed out", "score_ns": 0}
    tricks = _tricks(board)["won"]
    declarer = board.contract.declarer
    taken = tricks["ns" if declarer.value % 2 == 0 else "ew"]
    score = ns_score(board.contract, taken, board.vul)
    return {
        "contract": contract_declarer_text(board.contract),
        "tricks": taken,
        "text": result_text(board.contract, taken),
        "score_ns": score,
    }


def _history_line(done: FinishedBoard) -> dict[str, Any]:
    line = {"board": done.final.number, "result": _result(done.final)["text"]}
    if done.other is not None:
        line["imps"] = done.other.get("imps")
        line["otherResult"] = done.other.get("result")
    return line


def _hands_from_play(board: BoardState) -> dict[str, list[str]] | None:
    """All four hands as dealt, when the play showed them (every card played), else None."""
    if len(board.played) < 52:
        return None
    owners = [0] * 52
    for player, card in board.played:
        owners[card_index(card)] = player.value
    return hands_of_pbn(owners_pbn(_array(owners)))


def _array(values: list[int]) -> Any:
    import numpy as np

    return np.array(values, dtype=np.uint8)


def hands_of_pbn(pbn: str) -> dict[str, list[str]]:
    """All four hands of a PBN deal, by seat letter, each a flat list of cards S..C, high first."""
    from endplay.types import Deal

    deal = Deal(pbn)
    out: dict[str, list[str]] = {}
    for p in Player:
        by_suit = hand_cards(deal[p])
        out[SEATS[p.value]] = [c for s in SUITS for c in by_suit[s]]
    return out


def dd_table(pbn: str) -> list[list[int]]:
    """Double-dummy tricks [declarer N, E, S, W][strain C, D, H, S, NT] of a PBN deal (DDS)."""
    from bridgebot.engine.dds import dd_tables

    owners = deal_owners(pbn)
    return [[int(t) for t in row] for row in dd_tables(owners[None, :])[0]]
