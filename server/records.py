"""Durable records of finished boards: one PBN record and one journal line per board.

The table manager writes both before it sends the next ``Start of board`` (flush and fsync), so a
crash or a kill loses no finished board; ``tournament`` builds its reports from journals alone.
The PBN file is readable by ``endplay.parsers.pbn`` (deal, auction, play, contract with result).
An aborted board (illegal actions beyond the cap, a timeout) has no result, so it goes to the
journal only, with the reason, and never into the PBN file.

A journal line is a :class:`TableRecord`: one table's board. A match journals the same record for
each of its rooms (:class:`tournament.records.BoardResult`), so the two journals share one schema.
The table manager's journal starts with a :class:`SessionHeader` line::

    {"session": {"boards_file": null, "seed": 3, "count": 2, "deals_sha256": "22cc...", "tables": 1}}
    {"board": 1, "dealer": "N", "vul": "None", "deal": "N:J843.A85.AQJ84.2 ...", "table": 1, ...}

Text of calls, cards and contracts is :mod:`laws.notation`'s. Journals written before these models
used other forms for some fields; :class:`TableRecord` reads them too (see its validators).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Annotated, Any

import endplay.parsers.pbn as pbn
from bridgebot.laws.cards import RANKS
from bridgebot.laws.notation import (
    auction_texts,
    call_text,
    card_text,
    contract_text,
    parse_call,
    parse_card,
    parse_contract,
    parse_vul,
    result_text,
    vul_text,
)
from bridgebot.laws.scoring import ns_score
from bridgebot.protocol.table import TableResult
from bridgebot.server.journal import JournalError, JournalWriter, read_lines
from endplay.types import Bid, Board, Card, Contract, Deal, Player, Vul
from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    model_validator,
)

Seat = Annotated[str, Field(pattern="^[NESW]$")]
"""A seat by its letter: ``N``, ``E``, ``S``, ``W``."""


def _call(text: str) -> str:
    return call_text(parse_call(text))


def _card(text: str) -> str:
    """A card as ``SA``. Journals before :class:`TableRecord` wrote the table manager's cards rank
    first (``AS``, the Blue Chip form) and a match's with endplay's suit symbol (``♠A``)."""
    t = text.strip()
    if t[:1].upper() in RANKS:  # no rank letter is a suit letter: "AS" is not a card suit first
        t = t[1:] + t[:1]
    return card_text(parse_card(t))


def _vul(text: str) -> str:
    return vul_text(parse_vul(text))


def _deal(text: str) -> str:
    try:
        deal = Deal(text)
    except (ValueError, KeyError, IndexError) as exc:
        raise ValueError(f"not a PBN deal: {text!r}") from exc
    if any(len(deal[p]) != 13 for p in Player):
        raise ValueError(f"not a full deal (13 cards a hand): {text!r}")
    return deal.to_pbn()


CallText = Annotated[str, AfterValidator(_call)]
CardText = Annotated[str, BeforeValidator(_card)]
VulText = Annotated[str, AfterValidator(_vul)]
DealText = Annotated[str, AfterValidator(_deal)]


class TableRecord(BaseModel):
    """One table's board: the table manager's journal line, and each room of a match's board.

    ``tricks`` and ``score_ns`` are the board's result as scored: the tricks declarer took, or in
    a match scored double-dummy, the double-dummy tricks of the contract. An aborted board has a
    reason and no score.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    board: int = Field(ge=1)
    dealer: Seat
    vul: VulText
    deal: DealText
    """The deal in PBN, North's hand first."""
    table: int = Field(default=1, ge=1)
    room: str = ""
    """The match room (``open``, ``closed``); empty in a table manager's own journal."""
    seats: tuple[str, str, str, str] | None = None
    """Who played North, East, South and West in a match (agent specs or outside team names)."""
    ns_team: str | None = None
    """The team names seated when the board ended (None where no table manager was involved)."""
    ew_team: str | None = None
    auction: tuple[CallText, ...]
    alerts: dict[int, str] = {}
    """Auction index -> alert text ("" for a bare alert)."""
    play: tuple[CardText, ...] = ()
    contract: str | None = None
    """PBN's Contract tag (``4HX``), None when passed out or abandoned in the auction."""
    declarer: Seat | None = None
    tricks: int | None = Field(default=None, ge=0, le=13)
    score_ns: int | None = None
    passed_out: bool = False
    aborted: str | None = None
    """Why the board was abandoned, else None."""
    ns_seconds: float | None = None
    """Thinking time of each side at a table manager (None where none was measured)."""
    ew_seconds: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _match_room_before_records(cls, data: Any) -> Any:
        """A match room journaled before this model: ``ns_score``, and the contract with its
        declarer in one string, ``4SxN``, lower-case ``x`` (the board's own fields are filled in
        by :class:`tournament.records.BoardResult`)."""
        if not isinstance(data, Mapping) or "ns_score" not in data:
            return data
        out = dict(data)
        out["score_ns"] = out.pop("ns_score")
        text = out.get("contract")
        if isinstance(text, str):
            contract = parse_contract(text)
            out["contract"], out["declarer"] = contract_text(contract), contract.declarer.abbr
        out.setdefault("passed_out", text is None)
        return out

    @model_validator(mode="after")
    def _contract_and_declarer(self) -> TableRecord:
        if (self.contract is None) != (self.declarer is None):
            raise ValueError("contract and declarer go together")
        if self.contract is not None:
            parse_contract(self.contract + str(self.declarer))
        if self.passed_out and self.contract is not None:
            raise ValueError(f"passed out, yet a contract {self.contract}")
        return self

    def dealer_seat(self) -> Player:
        return Player.find(self.dealer)

    def vulnerability(self) -> Vul:
        return parse_vul(self.vul)

    def calls(self) -> list[Bid]:
        """The auction, alerts attached (endplay's ``alertable`` and ``announcement``)."""
        calls = [parse_call(c) for c in self.auction]
        for index, text in self.alerts.items():
            if 0 <= index < len(calls):
                calls[index].alertable = True
                calls[index].announcement = text or None
        return calls

    def cards(self) -> list[Card]:
        return [parse_card(c) for c in self.play]

    def final_contract(self) -> Contract | None:
        """The contract with its result (over or under the book) when the board has one."""
        if self.contract is None or self.declarer is None:
            return None
        contract = parse_contract(self.contract + self.declarer)
        if self.tricks is not None:
            contract.result = self.tricks - 6 - contract.level
        return contract

    def contract_result_text(self) -> str:
        """``4HXS+1``, ``3NTN=``, ``passed out`` (:func:`laws.notation.result_text`, the seat's
        log line's notation), and ``4SN`` when no tricks are known."""
        if self.contract is None:
            return "passed out" if self.passed_out else "no contract"
        if self.declarer is None or self.tricks is None:
            return f"{self.contract}{self.declarer or ''}"
        return result_text(parse_contract(self.contract + self.declarer), self.tricks)

    def score(self) -> int:
        """North-South's score; an aborted board has none (``ValueError``)."""
        if self.score_ns is None:
            raise ValueError(f"board {self.board} has no score (aborted: {self.aborted})")
        return self.score_ns


def result_contract(result: TableResult) -> Contract | None:
    """The contract with its result (tricks over or under the book) filled in."""
    c = result.contract
    if c is None or result.declarer_tricks is None:
        return None
    return Contract(
        level=c.level,
        denom=c.denom,
        declarer=c.declarer,
        penalty=c.penalty,
        result=result.declarer_tricks - 6 - c.level,
    )


def table_record(result: TableResult, table: int = 1) -> TableRecord:
    """The journal record of one board as the table saw it."""
    b = result.board
    contract = result.contract
    score: int | None = None
    if result.aborted is None:
        tricks = result.declarer_tricks or 0
        score = 0 if contract is None else ns_score(contract, tricks, b.vul)
    return TableRecord(
        board=b.number,
        dealer=b.dealer.abbr,
        vul=vul_text(b.vul),
        deal=b.deal.to_pbn(),
        table=table,
        ns_team=result.ns_team,
        ew_team=result.ew_team,
        auction=auction_texts(result.auction),
        alerts=dict(result.alerts),
        play=tuple(card_text(card) for _, card in result.play),
        contract=None if contract is None else contract_text(contract),
        declarer=None if contract is None else contract.declarer.abbr,
        tricks=result.declarer_tricks,
        score_ns=score,
        passed_out=result.passed_out,
        aborted=result.aborted,
        ns_seconds=round(result.ns_seconds, 3),
        ew_seconds=round(result.ew_seconds, 3),
    )


def to_pbn_board(result: TableResult, table: int = 1) -> Board:
    """The endplay ``Board`` of a played (or passed-out) board."""
    if result.aborted is not None:
        raise ValueError(f"board {result.board.number} was aborted and has no PBN record")
    b = result.board
    board = Board(
        b.deal.copy(),
        auction=list(result.auction),
        play=[card for _, card in result.play],
        board_num=b.number,
        vul=b.vul,
        dealer=b.dealer,
        contract=result_contract(result),
    )
    board.info["Event"] = "bridgebot table manager"
    board.info["Table"] = str(table)
    for seat, team in ((Player.north, result.ns_team), (Player.east, result.ew_team)):
        if team is not None:  # the team seated at each place (issue 16: who played it)
            board.info[seat.name.capitalize()] = team
            board.info[seat.partner.name.capitalize()] = team
    return board


class SessionHeader(BaseModel):
    """What makes two runs of ``bridgebot tm`` the same session (``server.resume`` compares)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    boards_file: str | None
    """The PBN deal file's name, or None for seeded deals."""
    seed: int | None
    count: int = Field(ge=0)
    """Boards in the session."""
    deals_sha256: str
    """Of every board's number, dealer, vulnerability and deal (``server.tm_cli.session_of``)."""
    tables: int = Field(ge=1)


class SessionLine(BaseModel):
    """The journal's first line: ``{"session": {...}}``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    session: SessionHeader


#: The key of the journal's header line; board lines never have it.
SESSION_KEY = "session"


def _line_kind(line: Any) -> str:
    if isinstance(line, Mapping):
        return "session header" if SESSION_KEY in line else "board record"
    return "session header" if isinstance(line, SessionLine) else "board record"


JOURNAL_LINE: TypeAdapter[SessionLine | TableRecord] = TypeAdapter(
    Annotated[
        Annotated[SessionLine, Tag("session header")] | Annotated[TableRecord, Tag("board record")],
        Discriminator(_line_kind),
    ]
)
"""A line of the table manager's journal: the session header or a board."""


@dataclass(frozen=True)
class SessionJournal:
    """A table manager's journal as read back."""

    session: SessionHeader | None
    """None: a journal written before sessions had headers."""
    records: list[TableRecord]
    good_bytes: int
    """Length of the file up to the end of its last complete line."""
    torn: bool
    """Whether an unterminated last line (a kill inside a write) was left out."""


def read_journal(path: str | Path) -> SessionJournal:
    """The session header and board records of a journal, validated; :class:`JournalError`
    names the file and line of a line that is neither. A torn last line is left out."""
    path = Path(path)
    lines = read_lines(path, JOURNAL_LINE)
    session: SessionHeader | None = None
    records: list[TableRecord] = []
    for number, line in lines.records:
        if isinstance(line, TableRecord):
            records.append(line)
        elif number == 1:
            session = line.session
        else:
            raise JournalError(f"{path}:{number}: a session header after the first line")
    return SessionJournal(session, records, lines.good_bytes, lines.torn)


class RecordWriter:
    """Appends finished boards to ``DIR/boards.pbn`` and ``DIR/journal.jsonl``, durably.

    Several tables of one process share the two files (the ``table`` field and the PBN ``Table``
    tag tell them apart); writes are whole records, each followed by flush and fsync.
    """

    def __init__(self, out_dir: str | Path, session: SessionHeader | None = None) -> None:
        """``session``: written as the journal's first line when the journal is new, so that a
        resume with different parameters can be refused (``server.resume``)."""
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.pbn_path = self.out_dir / "boards.pbn"
        self.journal_path = self.out_dir / "journal.jsonl"
        self._pbn: IO[str] = self.pbn_path.open("a", encoding="utf-8")
        self._journal = JournalWriter(self.journal_path)
        self.written = 0
        if session is not None and self._journal.empty:
            self._journal.append(SessionLine(session=session))

    def write(self, result: TableResult, table: int = 1) -> TableRecord:
        """Record one board; returns its journal record. Durable when this returns."""
        record = table_record(result, table)
        if result.aborted is None:
            text = pbn.dumps([to_pbn_board(result, table)])
            if self._pbn.tell() > 0:  # one header per file, records separated by a blank line
                text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("%")) + "\n"
            self._pbn.write(text.rstrip("\n") + "\n\n")
            self._pbn.flush()
            os.fsync(self._pbn.fileno())
        self._journal.append(record)
        self.written += 1
        return record

    def close(self) -> None:
        self._pbn.close()
        self._journal.close()
