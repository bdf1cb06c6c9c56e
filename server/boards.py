"""Where the table manager's boards come from: a PBN file, or the seeded deal stream.

Board numbering follows the duplicate convention, so dealer and vulnerability rotate through the
16-board cycle printed on every bridge board (:mod:`bridgebot.laws.boards`). A PBN file may
override both per board; a generated set always uses the cycle and deals board ``n`` as deal
``n - 1`` of :mod:`bridgebot.laws.deals`, so ``--seed 7 --count 32`` names the same 32 boards on
every machine, and the boards ``bridgebot match --seed 7`` plays.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import endplay.parsers.pbn as pbn
from bridgebot.laws.boards import dealer_of, vul_of
from bridgebot.laws.deals import random_deal
from bridgebot.protocol.codec import render_card
from bridgebot.protocol.table import TableBoard
from endplay.types import Deal, Player


class BoardFileError(ValueError):
    """A board file that cannot be read; the message names the file and the board."""


def generate(seed: int, count: int, first: int = 1) -> list[TableBoard]:
    """Boards ``first .. first + count - 1`` of the stream ``seed`` (board ``n`` is deal ``n - 1``)."""
    if count < 1:
        raise ValueError(f"board count must be at least 1, got {count}")
    if first < 1:
        raise ValueError(f"board numbers start at 1, got {first}")
    return [
        TableBoard(number=n, dealer=dealer_of(n), vul=vul_of(n), deal=random_deal(seed, n - 1))
        for n in range(first, first + count)
    ]


def _complete(deal: Deal) -> bool:
    return all(len(deal[p]) == 13 for p in Player)


def from_pbn_text(text: str, source: str = "<pbn>") -> list[TableBoard]:
    """Boards of a PBN text; dealer and vulnerability default to the cycle when a tag is missing.

    Every board is checked here, before a table seats anyone, so a bad file fails at once with
    its file, board and reason instead of in the middle of a session (issue 16): a board number
    below 1, a number used twice, a hand without 13 cards, a card dealt twice."""
    try:
        parsed = pbn.loads(text)
    except Exception as exc:  # endplay raises several types; name the file either way
        raise BoardFileError(f"{source}: not a readable PBN file ({exc})") from exc
    boards: list[TableBoard] = []
    seen: dict[int, int] = {}
    for i, b in enumerate(parsed, start=1):
        number = b.board_num if b.board_num is not None else i
        where = f"{source}: board {number} (record {i})"
        if number < 1:
            raise BoardFileError(f"{where}: a board number must be at least 1")
        if number in seen:
            raise BoardFileError(f"{where}: board {number} is also record {seen[number]}")
        seen[number] = i
        if not _complete(b.deal):
            raise BoardFileError(
                f"{where} has no complete deal (hand sizes {[len(b.deal[p]) for p in Player]})"
            )
        cards = [c for p in Player for c in b.deal[p]]
        if len(set(cards)) != 52:
            twice = sorted({render_card(c) for c in cards if cards.count(c) > 1})
            raise BoardFileError(f"{where}: a card is dealt twice ({', '.join(twice)})")
        dealer = b.dealer if b.dealer is not None else dealer_of(number)
        vul = b.vul if b.vul is not None else vul_of(number)
        boards.append(TableBoard(number=number, dealer=dealer, vul=vul, deal=b.deal.copy()))
    if not boards:
        raise BoardFileError(f"{source}: no boards found")
    return boards


def from_pbn_file(path: str | Path) -> list[TableBoard]:
    """Boards of the PBN file at ``path`` (errors name the file)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise BoardFileError(f"{p}: cannot read board file ({exc.strerror})") from exc
    return from_pbn_text(text, source=str(p))


def hands_of(board: TableBoard) -> Sequence[str]:
    """The four hands as PBN strings, North first (for logs and journals)."""
    return [board.deal[p].to_pbn() for p in Player]
