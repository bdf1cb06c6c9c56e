"""LIN, the BBO hand-viewer format, for every room of a match and for table-manager journals.

Why a module around endplay's LIN writer: endplay writes and reads LIN, but its reader fails on a
trick with fewer than four cards (it scores every trick of the play to find the result), which is
what an aborted board leaves behind; and a LIN line is ``|``-separated with the player names
``,``-separated, which agent specs such as ``default,seed=3`` would break. So:

- an incomplete last trick is left out (the complete tricks are kept; LIN has no way to mark a
  board as abandoned that endplay reads back, and the PBN and journal keep every card);
- names lose the characters LIN gives a meaning to;
- an alerted call keeps its text (``an|``), our explanations included.

It writes LIN; the one reader of the format is ``laws.board_sets`` (``lin_records``).

LIN layout (``pn|South,West,North,East|``, ``md|<dealer digit 1-4 = S W N E><S hand>,<W>,<N>,``,
``sv|o/n/e/b``, ``mb|`` per call, ``pc|`` per card, ``pg||`` after each trick) is endplay's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bridgebot.laws.calls import auction_over, final_contract
from bridgebot.server.records import TableRecord
from endplay.parsers import lin
from endplay.types import Board, Card, Contract, Deal

_SEAT_TAGS = ("North", "East", "South", "West")
#: Characters with a meaning in LIN (field separator, name separator) and their stand-ins.
_NAME_SAFE = str.maketrans({"|": "/", ",": ";"})


def lin_safe(name: str) -> str:
    return name.translate(_NAME_SAFE)


def complete_tricks(play: Sequence[Card]) -> list[Card]:
    """The cards of the complete tricks (an aborted board may stop inside a trick)."""
    return list(play[: len(play) - len(play) % 4])


def board_lin(board: Board) -> str:
    """One LIN line for an endplay ``Board`` (names made safe, an incomplete trick left out)."""
    copy = Board(
        board.deal.copy(),
        list(board.auction),
        complete_tricks(board.play),
        board.board_num,
        vul=board.vul,
        dealer=board.dealer,
        contract=board.contract,
        claimed=board.claimed,
    )
    for tag in _SEAT_TAGS:
        name = board.info.get(tag)
        copy.info[tag] = lin_safe(str(name)) if name is not None else ""
    try:
        return lin.dumps([copy]).strip()
    except lin.LINEncodeError as exc:
        raise ValueError(f"board {board.board_num}: cannot be written as LIN ({exc})") from None


def dumps(boards: Sequence[Board]) -> str:
    """A LIN file: one line per board."""
    return "".join(board_lin(b) + "\n" for b in boards)


def write_lin(path: Path, boards: Sequence[Board]) -> None:
    path.write_text(dumps(boards), encoding="utf-8")


def journal_board(record: TableRecord) -> Board:
    """The endplay ``Board`` of one journal record (``server.records``), aborted boards included:
    their auction may be unfinished and their play stop inside a trick."""
    dealer = record.dealer_seat()
    auction = record.calls()
    contract: Contract | None = None
    if auction_over(auction):
        contract = final_contract(dealer, auction)
        if contract is not None and record.tricks is not None:
            contract.result = record.tricks - contract.level - 6
    return Board(
        Deal(record.deal),
        auction,
        record.cards(),
        record.board,
        vul=record.vulnerability(),
        dealer=dealer,
        contract=contract,
    )
