"""Where the table manager's boards come from: a PBN file, or a seeded random generator.

Board numbering follows the duplicate convention, so dealer and vulnerability rotate through the
16-board cycle printed on every bridge board (board 1: North deals, nobody vulnerable; board 16:
West deals, E/W vulnerable). A PBN file may override both per board; a generated set always uses
the cycle, so ``--seed 7 --count 32`` names the same 32 boards on every machine.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import endplay.parsers.pbn as pbn
from bridgebot.protocol.codec import render_card
from bridgebot.protocol.table import TableBoard
from endplay.types import Deal, Player, Vul

#: Vulnerability of boards 1..16; the cycle repeats every 16 boards.
VUL_CYCLE: tuple[Vul, ...] = (
    Vul.none, Vul.ns, Vul.ew, Vul.both,
    Vul.ns, Vul.ew, Vul.both, Vul.none,
    Vul.ew, Vul.both, Vul.none, Vul.ns,
    Vul.both, Vul.none, Vul.ns, Vul.ew,
)  # fmt: skip

_RANKS = "AKQJT98765432"


class BoardFileError(ValueError):
    """A board file that cannot be read; the message names the file and the board."""


def dealer_of(number: int) -> Player:
    """Dealer of board ``number`` in the standard cycle (1 North, 2 East, 3 South, 4 West...)."""
    return Player((number - 1) % 4)


def vul_of(number: int) -> Vul:
    """Vulnerability of board ``number`` in the standard 16-board cycle."""
    return VUL_CYCLE[(number - 1) % 16]


def random_deal(rng: random.Random) -> Deal:
    """A uniformly random deal drawn from ``rng`` (a shuffle of the 52 cards)."""
    cards = [s + r for s in "SHDC" for r in _RANKS]
    rng.shuffle(cards)
    hands = []
    for seat in range(4):
        mine = cards[seat * 13 : (seat + 1) * 13]
        suits = ["".join(r for r in _RANKS if s + r in mine) for s in "SHDC"]
        hands.append(".".join(suits))
    return Deal.from_pbn("N:" + " ".join(hands))


def generate(seed: int, count: int, first: int = 1) -> list[TableBoard]:
    """``count`` random boards numbered from ``first``, the same for the same ``seed``."""
    if count < 1:
        raise ValueError(f"board count must be at least 1, got {count}")
    rng = random.Random(seed)
    return [
        TableBoard(number=n, dealer=dealer_of(n), vul=vul_of(n), deal=random_deal(rng))
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
