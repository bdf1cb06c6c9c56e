"""LIN, the BBO hand-viewer format, for every room of a match and for table-manager journals.

Why a module around endplay's LIN writer: endplay writes and reads LIN, but its reader fails on a
trick with fewer than four cards (it scores every trick of the play to find the result), which is
what an aborted board leaves behind; and a LIN line is ``|``-separated with the player names
``,``-separated, which agent specs such as ``default,seed=3`` would break. So:

- an incomplete last trick is left out (the complete tricks are kept; LIN has no way to mark a
  board as abandoned that endplay reads back, and the PBN and journal keep every card);
- names lose the characters LIN gives a meaning to;
- an alerted call keeps its text (``an|``), our explanations included.

LIN layout (``pn|South,West,North,East|``, ``md|<dealer digit 1-4 = S W N E><S hand>,<W>,<N>,``,
``sv|o/n/e/b``, ``mb|`` per call, ``pc|`` per card, ``pg||`` after each trick) is endplay's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bridgebot.laws.boards import dealer_of, vul_of
from bridgebot.laws.calls import auction_over, final_contract
from bridgebot.laws.notation import parse_card, parse_vul
from endplay.parsers import lin
from endplay.types import Bid, Board, Card, Contract, Deal, Player

if TYPE_CHECKING:
    from bridgebot.tournament.deals import BoardDeal

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


def loads(text: str) -> list[Board]:
    """Boards from LIN text (endplay's reader)."""
    return lin.loads(text.replace("\r\n", "").replace("\n", ""))


def journal_board(entry: Mapping[str, Any]) -> Board:
    """The endplay ``Board`` of one table-manager journal line (``server.records``), aborted
    boards included: their auction may be unfinished and their play stop inside a trick."""
    dealer = Player.find(str(entry["dealer"]))
    auction = [Bid(c) for c in entry["auction"]]
    for index, text in dict(entry.get("alerts") or {}).items():
        auction[int(index)].alertable = True
        auction[int(index)].announcement = text or None
    play = [parse_card(c) for c in entry.get("play", ())]
    contract: Contract | None = None
    if auction_over(auction):
        contract = final_contract(dealer, auction)
        if contract is not None and entry.get("tricks") is not None:
            contract.result = int(entry["tricks"]) - contract.level - 6
    vul = parse_vul(str(entry["vul"]))
    return Board(
        Deal(str(entry["deal"])),
        auction,
        play,
        int(entry["board"]),
        vul=vul,
        dealer=dealer,
        contract=contract,
    )


def load_lin_deals(path: Path, boards: int | None = None) -> list[BoardDeal]:
    """The deals of a LIN file for a match (``--deals x.lin``): boards numbered from 1 in file
    order, each record's dealer and vulnerability kept (the 16-board cycle where it has none)."""
    from bridgebot.tournament.deals import BoardDeal, DealSourceError

    try:
        records = loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise DealSourceError(f"{path}: cannot read ({exc})") from exc
    except Exception as exc:  # endplay raises several types for malformed LIN
        raise DealSourceError(f"{path}: not valid LIN ({exc})") from exc
    out: list[BoardDeal] = []
    for i, rec in enumerate(records[:boards] if boards is not None else records):
        if any(len(rec.deal[p]) != 13 for p in Player):
            raise DealSourceError(f"{path}: record {i + 1} does not hold a full deal")
        number = i + 1
        out.append(
            BoardDeal(
                board=number,
                dealer=rec.dealer if rec.dealer is not None else dealer_of(number),
                vul=rec.vul if rec.vul is not None else vul_of(number),
                pbn=rec.deal.to_pbn(),
            )
        )
    if boards is not None and len(out) < boards:
        raise DealSourceError(f"{path}: {boards} boards asked for, {len(out)} in the file")
    return out
