"""Durable records of finished boards: one PBN record and one JSON line per board.

The table manager writes both before it sends the next ``Start of board`` (flush and fsync), so a
crash or a kill loses no finished board; ``tournament`` builds its reports from the journal alone.
The PBN file is readable by ``endplay.parsers.pbn`` (deal, auction, play, contract with result).
An aborted board (illegal actions beyond the cap, a timeout) has no result, so it goes to the
journal only, with the reason, and never into the PBN file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

import endplay.parsers.pbn as pbn
from bridgebot.laws.notation import call_text, card_text, contract_text, vul_text
from bridgebot.laws.scoring import ns_score
from bridgebot.protocol.table import BoardResult
from endplay.types import Board, Contract, Player


def result_contract(result: BoardResult) -> Contract | None:
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


def to_pbn_board(result: BoardResult, table: int = 1) -> Board:
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


def journal_entry(result: BoardResult, table: int = 1) -> dict[str, Any]:
    """The JSON object written for one board (stable keys; ``tournament`` reads them)."""
    b = result.board
    contract = result_contract(result)
    entry: dict[str, Any] = {
        "table": table,
        "board": b.number,
        "dealer": b.dealer.abbr,
        "vul": vul_text(b.vul),
        "deal": b.deal.to_pbn(),
        "auction": [call_text(c) for c in result.auction],
        "alerts": {str(k): v for k, v in result.alerts.items()},
        "play": [card_text(card) for _, card in result.play],
        "contract": None,
        "declarer": None,
        "tricks": result.declarer_tricks,
        "score_ns": None,
        "passed_out": result.passed_out,
        "aborted": result.aborted,
        "ns_seconds": round(result.ns_seconds, 3),
        "ew_seconds": round(result.ew_seconds, 3),
        "ns_team": result.ns_team,
        "ew_team": result.ew_team,
    }
    if result.aborted is None:
        entry["score_ns"] = (
            0 if contract is None else ns_score(contract, result.declarer_tricks or 0, b.vul)
        )
    if contract is not None:
        entry["contract"] = contract_text(contract)
        entry["declarer"] = contract.declarer.abbr
    return entry


#: The key of the journal's header line (the session's parameters); board lines never have it.
SESSION_KEY = "session"


class RecordWriter:
    """Appends finished boards to ``DIR/boards.pbn`` and ``DIR/journal.jsonl``, durably.

    Several tables of one process share the two files (the ``table`` key and the PBN ``Table``
    tag tell them apart); writes are whole records, each followed by flush and fsync.
    """

    def __init__(self, out_dir: str | Path, session: dict[str, Any] | None = None) -> None:
        """``session``: the parameters that define the session (deal source, tables), written
        as the journal's first line when the journal is new, so that a resume with different
        parameters can be refused (``server.resume``)."""
        self.out_dir = Path(out_dir)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.pbn_path = self.out_dir / "boards.pbn"
        self.journal_path = self.out_dir / "journal.jsonl"
        self._pbn: IO[str] = self.pbn_path.open("a", encoding="utf-8")
        self._journal: IO[str] = self.journal_path.open("a", encoding="utf-8")
        self.written = 0
        if session is not None and self._journal.tell() == 0:
            self._journal.write(json.dumps({SESSION_KEY: session}, sort_keys=True) + "\n")
            _sync(self._journal)

    def write(self, result: BoardResult, table: int = 1) -> dict[str, Any]:
        """Record one board; returns the journal entry. Durable when this returns."""
        entry = journal_entry(result, table)
        if result.aborted is None:
            text = pbn.dumps([to_pbn_board(result, table)])
            if self._pbn.tell() > 0:  # one header per file, records separated by a blank line
                text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("%")) + "\n"
            self._pbn.write(text.rstrip("\n") + "\n\n")
            _sync(self._pbn)
        self._journal.write(json.dumps(entry, sort_keys=True) + "\n")
        _sync(self._journal)
        self.written += 1
        return entry

    def close(self) -> None:
        self._pbn.close()
        self._journal.close()


def _sync(f: IO[str]) -> None:
    f.flush()
    os.fsync(f.fileno())


def read_journal(path: str | Path) -> list[dict[str, Any]]:
    """The board entries of a journal, in order, without its session header line."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    entries = [json.loads(x) for x in lines if x.strip()]
    return [e for e in entries if SESSION_KEY not in e]
