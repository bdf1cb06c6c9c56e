"""The live tables' state: what the spectator page shows, built from the table manager's events.

:class:`LiveTables` takes :mod:`server.table_events` (one table at a time, by its label: ``1``, ``2`` for
the tables of ``bridgebot tm``, ``open``, ``closed`` for a match's rooms) and a match's finished
boards, and gives each table's view as plain JSON-ready data. It does no I/O and keeps no clock,
so it is tested by feeding it events; :mod:`server.web.spectator` serves it.

What a view shows is decided here, not in the page: at a table where a person sits (a seat
marked with :meth:`LiveTables.mark_person`), the hands are left out of the view while the board is
played, except dummy's once the opening lead is made, so no page (the person's own included)
can see a hand the person could not see at the table; after the board all four are shown.
Everything else (calls, alerts, cards played, results) is public at the table and always shown.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bridgebot.laws.calls import auction_over, final_contract, seat_of_call
from bridgebot.laws.cards import SUITS
from bridgebot.laws.notation import (
    call_text,
    card_text,
    contract_text,
    parse_call,
    parse_card,
)
from bridgebot.laws.play import trick_winner
from bridgebot.server import table_events
from bridgebot.server.records import TableRecord
from endplay.types import Bid, Card, Contract, Deal, Player

#: Finished boards each table keeps for its page (the journal has them all).
RESULTS_KEPT = 100
#: Finished boards of a match listed with their IMPs (the running total counts every board).
MATCH_KEPT = 100

SEAT_LETTERS = "NESW"


def _seat(letter: str) -> Player:
    return Player.find(letter)


@dataclass
class _Board:
    """One board as the page shows it: live, or rebuilt from a finished board's record."""

    number: int
    dealer: Player
    vul: str
    deal: Deal
    auction: list[Bid] = field(default_factory=list)
    alerts: dict[int, str] = field(default_factory=dict)
    plays: list[tuple[Player, Card]] = field(default_factory=list)
    contract: Contract | None = None
    won: list[int] = field(default_factory=lambda: [0, 0])
    """Tricks won so far by North-South and East-West."""
    leader: Player | None = None
    """The leader of the trick in progress (or of the last one, after 52 cards)."""
    record: TableRecord | None = None
    """The finished board's journal line (None while it is played)."""

    @classmethod
    def start(cls, e: table_events.BoardStarted) -> _Board:
        return cls(e.board, _seat(e.dealer), e.vul, Deal(e.deal))

    @classmethod
    def finished(cls, record: TableRecord) -> _Board:
        b = cls(record.board, _seat(record.dealer), record.vul, Deal(record.deal))
        for text in record.auction:
            b.call(parse_call(text))
        b.alerts = dict(record.alerts)
        if b.contract is not None:
            for text in record.play:
                b.card(parse_card(text))
        b.record = record
        return b

    def call(self, call: Bid, alert: str | None = None) -> None:
        if alert is not None:
            self.alerts[len(self.auction)] = alert
        self.auction.append(call)
        if auction_over(self.auction):
            self.contract = final_contract(self.dealer, self.auction)
            if self.contract is not None:
                self.leader = self.contract.declarer.lho

    def card(self, card: Card) -> None:
        if self.contract is None or self.leader is None or len(self.plays) >= 52:
            return
        seat = Player((self.leader.value + len(self.plays) % 4) % 4)
        self.plays.append((seat, card))
        if len(self.plays) % 4 == 0:
            trick = [c for _, c in self.plays[-4:]]
            self.leader = trick_winner(self.plays[-4][0], trick, self.contract.denom)
            self.won[self.leader.value % 2] += 1

    @property
    def state(self) -> str:
        if self.record is not None:
            return "done"
        return "play" if self.contract is not None else "auction"

    def hands(self, people: Collection[Player]) -> dict[str, dict[str, str] | None]:
        """Each seat's cards, by suit (``{"S": "AK5", ...}``): what is left while the board is
        played, the whole hand once it is done; None where a person at the table hides it."""
        done = self.record is not None
        played = {c for _, c in self.plays}
        dummy = None if self.contract is None else self.contract.declarer.partner
        out: dict[str, dict[str, str] | None] = {}
        for p in (Player.north, Player.east, Player.south, Player.west):
            shown = done or not people or (p == dummy and len(self.plays) > 0)
            if not shown:
                out[p.abbr] = None
                continue
            cards = [c for c in self.deal[p] if done or c not in played]
            out[p.abbr] = {
                s: "".join(card_text(c)[1:] for c in _ranked(cards) if card_text(c)[0] == s)
                for s in SUITS
            }
        return out

    def view(self, people: Collection[Player]) -> dict[str, Any]:
        n = len(self.plays)
        # The trick in progress; after its fourth card, that trick until the next lead.
        trick = self.plays[n - (n % 4 or 4) :] if n else []
        # A finished board whose cards were not played (a double-dummy room) has no tricks to
        # count: its result says how many declarer took.
        unplayed = self.record is not None and n == 0
        won = None if unplayed else {"NS": self.won[0], "EW": self.won[1]}
        out: dict[str, Any] = {
            "number": self.number,
            "dealer": self.dealer.abbr,
            "vul": self.vul,
            "state": self.state,
            "hands": self.hands(people),
            "auction": [
                {
                    "seat": seat_of_call(self.dealer, i).abbr,
                    "call": call_text(c),
                    "alert": self.alerts.get(i),
                }
                for i, c in enumerate(self.auction)
            ],
            "contract": None if self.contract is None else contract_text(self.contract),
            "declarer": None if self.contract is None else self.contract.declarer.abbr,
            "trick": [{"seat": p.abbr, "card": card_text(c)} for p, c in trick],
            "played": n,
            "won": won,
            "result": None if self.record is None else result_view(self.record),
        }
        return out


def _ranked(cards: Iterable[Card]) -> list[Card]:
    """High to low within each suit (the suits in ``SUITS`` order are picked by the caller)."""
    return sorted(cards, key=lambda c: -c.rank.value)


def result_view(r: TableRecord) -> dict[str, Any]:
    """A finished board in one line of the results: contract, declarer, tricks, score, and the
    result as every page and report writes it (``text``: ``4HS+1``, ``laws.notation``)."""
    return {
        "board": r.board,
        "text": r.contract_result_text(),
        "contract": r.contract,
        "declarer": r.declarer,
        "tricks": r.tricks,
        "score_ns": r.score_ns,
        "passed_out": r.passed_out,
        "aborted": r.aborted,
    }


@dataclass
class _Table:
    label: str
    teams: dict[str, str] = field(default_factory=dict)
    present: set[str] = field(default_factory=set)
    joined: set[str] = field(default_factory=set)
    """Seats that have connected at some time: one of them not present is away (a room whose
    seats never connect, a double-dummy one, has none away)."""
    people: set[Player] = field(default_factory=set)
    board: _Board | None = None
    results: OrderedDict[int, TableRecord] = field(default_factory=OrderedDict)
    ended: bool = False


class LiveTables:
    """Every table's state, fed by events (any order of tables; in order within a table)."""

    def __init__(self, people: Iterable[tuple[str, Player]] = ()) -> None:
        self.tables: dict[str, _Table] = {}
        self.match: list[tuple[int, int, tuple[TableRecord, ...]]] = []
        self.imps: list[int] = []
        for label, seat in people:
            self.mark_person(label, seat)

    def table(self, label: str) -> _Table:
        if label not in self.tables:
            self.tables[label] = _Table(label)
        return self.tables[label]

    def mark_person(self, label: str, seat: Player) -> None:
        """A person plays ``seat`` at table ``label``: the hands stay hidden there while a
        board is played (the ``play`` command, or ``--human-seat`` of ``bridgebot tm``)."""
        self.table(label).people.add(seat)

    def apply(self, label: str, event: table_events.TableEvent) -> None:
        """Take one event of table ``label``."""
        t = self.table(label)
        match event:
            case table_events.SeatJoined(seat=seat, team=team):
                t.teams[seat] = team
                t.present.add(seat)
                t.joined.add(seat)
            case table_events.SeatLeft(seat=seat):
                t.present.discard(seat)
            case table_events.BoardStarted():
                t.board = _Board.start(event)
            case table_events.CallMade(board=number, index=i, call=call, alert=alert):
                if t.board is not None and t.board.number == number and i == len(t.board.auction):
                    t.board.call(parse_call(call), alert)
            case table_events.CardPlayed(board=number, index=i, card=card):
                if t.board is not None and t.board.number == number and i == len(t.board.plays):
                    t.board.card(parse_card(card))
            case table_events.BoardFinished(record=record):
                self.finish(label, record)
            case table_events.SessionEnded():
                t.ended = True

    def finish(self, label: str, record: TableRecord) -> None:
        """A finished board of table ``label``: into its results (a later record of the same
        board, a match's scored one, replaces the table manager's), and on the table unless the
        table has gone on to a later board."""
        t = self.table(label)
        t.results[record.board] = record
        t.results.move_to_end(record.board)
        while len(t.results) > RESULTS_KEPT:
            t.results.popitem(last=False)
        if record.ns_team is not None:
            t.teams.setdefault("N", record.ns_team)
            t.teams.setdefault("E", record.ew_team or "")
        shown = t.board
        later = shown is not None and shown.record is None and shown.number != record.board
        if not later and (shown is None or record.board >= shown.number):
            t.board = _Board.finished(record)

    def match_board(self, board: int, imps: int, rooms: Sequence[TableRecord]) -> None:
        """A match's board, finished in every room, with the IMPs it made for us."""
        for r in rooms:
            self.finish(r.room or "1", r)
        self.imps.append(imps)
        self.match.append((board, imps, tuple(rooms)))
        del self.match[:-MATCH_KEPT]

    # ------------------------------------------------------------------ views

    def table_view(self, label: str) -> dict[str, Any]:
        t = self.table(label)
        return {
            "type": "table",
            "label": label,
            "seats": {
                s: {
                    "team": t.teams.get(s, ""),
                    "here": s in t.present,
                    "away": s in t.joined and s not in t.present,
                    "person": _seat(s) in t.people,
                }
                for s in SEAT_LETTERS
            },
            "board": None if t.board is None else t.board.view(t.people),
            "results": [result_view(r) for r in reversed(t.results.values())],
            "ended": t.ended,
        }

    def match_view(self) -> dict[str, Any]:
        n = len(self.imps)
        mean = sum(self.imps) / n if n else None
        stderr = None
        if n > 1 and mean is not None:
            var = sum((x - mean) ** 2 for x in self.imps) / (n - 1)
            stderr = (var / n) ** 0.5
        return {
            "type": "match",
            "boards": n,
            "total": sum(self.imps),
            "mean": mean,
            "stderr": stderr,
            "recent": [
                {
                    "board": b,
                    "imps": imps,
                    "rooms": [{"room": r.room, **result_view(r)} for r in rooms],
                }
                for b, imps, rooms in reversed(self.match)
            ],
        }

    def labels(self, among: Iterable[str] | None = None) -> list[str]:
        """Tables in the page's order: numbered tables by number, then rooms as they came
        (``open`` before ``closed``, as the match lists them)."""
        chosen = set(self.tables if among is None else among)
        return sorted((t for t in self.tables if t in chosen), key=_label_order)

    def snapshot(self, match: bool) -> list[dict[str, Any]]:
        """Every view: what a page that has just connected is sent."""
        views = [self.table_view(label) for label in self.labels()]
        return [*views, self.match_view()] if match else views


def _label_order(label: str) -> int:
    """Numbers by value; anything else after them, in its first order (``sorted`` is stable)."""
    return int(label) if label.isdigit() else 1 << 30
