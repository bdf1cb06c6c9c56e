"""Match board records written by hand, for tests of what is built from them."""

from __future__ import annotations

from bridgebot.laws.notation import contract_text, parse_contract
from bridgebot.server.records import TableRecord
from bridgebot.tournament.records import BoardResult

DEAL = "N:AKQJ.AKQ.AK2.A32 5432.5432.543.54 T98.T98.T98.KQJT 76.J76.QJ76.9876"


def room(
    name: str,
    seats: tuple[str, str, str, str],
    auction: tuple[str, ...],
    contract: str | None = None,
    tricks: int | None = None,
    score: int = 0,
    *,
    board: int = 1,
    dealer: str = "N",
    vul: str = "None",
    deal: str = DEAL,
    play: tuple[str, ...] = (),
) -> TableRecord:
    """One room's record; ``contract`` with its declarer after it, ``4SXN``."""
    c = None if contract is None else parse_contract(contract)
    return TableRecord(
        board=board, dealer=dealer, vul=vul, deal=deal, room=name, seats=seats, auction=auction,
        contract=None if c is None else contract_text(c),
        declarer=None if c is None else c.declarer.abbr,
        tricks=tricks, score_ns=score, passed_out=c is None, play=play,
    )  # fmt: skip


def board(imps: int, *rooms: TableRecord) -> BoardResult:
    return BoardResult(rooms=rooms, imps=imps)
