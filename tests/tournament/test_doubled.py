"""Doubled contracts by side: the counts and IMPs the match report and the cross-table print."""

from __future__ import annotations

from bridgebot.tournament.doubled import doubled_costs, doubled_section
from bridgebot.tournament.records import BoardResult, RoomResult
from bridgebot.tournament.report import markdown_report

DEAL = "N:AKQJ.AKQ.AK2.A32 5432.5432.543.54 T98.T98.T98.KQJT 76.J76.QJ76.9876"


def board(
    n: int, open_: tuple[str | None, int | None], closed: tuple[str | None, int | None], imps: int
) -> BoardResult:
    def room(name: str, c: tuple[str | None, int | None]) -> RoomResult:
        return RoomResult(name, ("a", "b", "a", "b"), ("Pass",), c[0], c[1], 0)

    return BoardResult(n, "N", "None", DEAL, (room("open", open_), room("closed", closed)), imps)


def test_costs_by_side() -> None:
    boards = [
        # us (N-S in the open room) sacrifice 5Dx down 3; the other room played 4S by them.
        board(1, ("5DxN", 8), ("4SE", 10), -5),
        # them (N-S in the closed room) go down in 4Hxx; we made a partscore in the open room.
        board(2, ("2SS", 8), ("4HxxN", 9), 12),
        # a doubled contract that makes counts as declared, not failed, and costs nothing here.
        board(3, ("3NTxE", 9), (None, None), -8),
        board(4, ("1NTN", 7), ("1NTE", 7), 0),
    ]
    c = doubled_costs(boards)
    assert (c["us"].declared, c["us"].failed, c["us"].imps) == (1, 1, -5)
    assert (c["them"].declared, c["them"].failed, c["them"].imps) == (2, 1, -12)
    assert c["us"].imps_per_board == -5 / 4


def test_report_has_the_section() -> None:
    boards = [board(1, ("5DxN", 8), ("4SE", 10), -5)]
    lines = doubled_section(boards, "team", {"us": "default", "them": "bfg,doubles=on"})
    assert "| default | 1 | 1 | -5 | -5.00 |" in lines
    header = {"us": "default", "them": "bfg,doubles=on", "format": "team", "scoring": "dd"}
    text, _ = markdown_report(header, boards)
    assert (
        "## Doubled contracts by side" in text and "| bfg,doubles=on | 0 | 0 | +0 | +0.00 |" in text
    )
