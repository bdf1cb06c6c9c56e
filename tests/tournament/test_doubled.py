"""Doubled contracts by side: the counts and IMPs the match report and the cross-table print."""

from __future__ import annotations

from bridgebot.server.records import TableRecord
from bridgebot.tournament.doubled import doubled_costs, doubled_section
from bridgebot.tournament.records import BoardResult, MatchHeader
from bridgebot.tournament.report import markdown_report

from tests.tournament import rooms_helper


def board(
    n: int, open_: tuple[str | None, int | None], closed: tuple[str | None, int | None], imps: int
) -> BoardResult:
    def room(name: str, c: tuple[str | None, int | None]) -> TableRecord:
        # the auction is not the contract's: what is counted is the contract and the tricks
        return rooms_helper.room(name, ("a", "b", "a", "b"), ("Pass",), c[0], c[1], board=n)

    return rooms_helper.board(imps, room("open", open_), room("closed", closed))


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
    header = MatchHeader(us="default", them="bfg,doubles=on", format="team", scoring="dd",
                         deals=None, seed=1, boards=1)  # fmt: skip
    text, _ = markdown_report(header, boards)
    assert (
        "## Doubled contracts by side" in text and "| bfg,doubles=on | 0 | 0 | +0 | +0.00 |" in text
    )
