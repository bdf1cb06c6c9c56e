"""Where every command's boards come from: a deal file (PBN, LIN, npz) or the seeded stream.

One loader for ``tm``, ``match``, ``tournament``, ``teach`` and any later command, so one file
deals the same boards everywhere (issue 27: ``tm`` once took dealers from the cycle while
``match`` renumbered the boards). The rules:

- a file's board numbers, dealers and vulnerabilities are kept as written; a record without a
  number is numbered by its place in the file, one without a ``Dealer`` or ``Vulnerable`` tag takes
  the 16-board cycle's (:mod:`bridgebot.laws.boards`);
- an npz deal file (docs/data.md) stores deals, not boards: deal ``i`` is board ``i + 1`` with the
  cycle's dealer and vulnerability, and keeps its double-dummy table;
- seeded boards: board ``n`` is deal ``n - 1`` of :func:`bridgebot.laws.deals.random_owners`;
- every board is checked before anyone plays it, and a bad file fails at once with one line that
  names the file and the board: a number below 1, a number used twice, a hand without 13 cards;
- ``boards`` with a deal file means at most that many of its boards (the first ones), all by
  default.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bridgebot.core.errors import UserError
from bridgebot.laws.boards import BoardDeal, cycle_board, dealer_of, vul_of
from bridgebot.laws.cards import owners_pbn
from bridgebot.laws.deals import random_deal
from bridgebot.laws.notation import card_text
from endplay.types import Board, Deal, Player

#: File suffixes the loader reads, for help texts and errors.
DEAL_FILE_KINDS = ".pbn, .lin or .npz"


class BoardSetError(UserError):
    """A deal file or board option that cannot be used; the message names the file and board."""


def generate(seed: int, boards: int, first: int = 1) -> list[BoardDeal]:
    """Boards ``first .. first + boards - 1`` of the stream ``seed`` (board ``n`` is deal
    ``n - 1``), with the cycle's dealers and vulnerabilities."""
    if boards < 1:
        raise BoardSetError(f"the number of boards must be at least 1, got {boards}")
    if first < 1:
        raise BoardSetError(f"board numbers start at 1, got {first}")
    return [cycle_board(n, random_deal(seed, n - 1)) for n in range(first, first + boards)]


def _check_hands(deal: Deal, where: str) -> None:
    sizes = [len(deal[p]) for p in Player]
    if sizes != [13, 13, 13, 13]:
        raise BoardSetError(f"{where} has no complete deal (hand sizes {sizes})")
    cards = [card_text(c) for p in Player for c in deal[p]]
    if len(set(cards)) != 52:
        twice = sorted({c for c in cards if cards.count(c) > 1})
        raise BoardSetError(f"{where}: a card is dealt twice ({', '.join(twice)})")


def check_numbers(boards: list[BoardDeal], source: str) -> list[BoardDeal]:
    """``boards`` unchanged, unless one is numbered below 1 or two share a number."""
    seen: dict[int, int] = {}
    for i, b in enumerate(boards, start=1):
        if b.number < 1:
            raise BoardSetError(f"{source}: board {b.number} (record {i}): numbers start at 1")
        if b.number in seen:
            raise BoardSetError(
                f"{source}: records {seen[b.number]} and {i} are both board {b.number}"
            )
        seen[b.number] = i
    if not boards:
        raise BoardSetError(f"{source}: no boards found")
    return boards


_BLOCKS = re.compile(r"\n[ \t]*\n")
_TAG = re.compile(r'^\[(Board|Dealer|Deal)\s+"([^"]*)"\]', re.M | re.I)


def _pbn_tags(text: str) -> list[dict[str, str]]:
    """The Board and Dealer tags of every record holding a Deal tag, in file order.

    endplay (0.5.12) replaces a record's Dealer tag by the cycle's unless the record also has a
    contract, so a plain deal file would silently lose its dealers; PBN separates records by an
    empty line, which is all this reads."""
    out = []
    for block in _BLOCKS.split(text.replace("\r\n", "\n")):
        tags = {k.lower(): v.strip() for k, v in _TAG.findall(block)}
        if "deal" in tags:
            out.append(tags)
    return out


def load_pbn_text(text: str, source: str = "<pbn>") -> list[BoardDeal]:
    """The boards of a PBN text, numbers, dealers and vulnerabilities as written."""
    import endplay.parsers.pbn as pbn

    try:
        records = pbn.loads(text)
    except Exception as exc:  # endplay raises several types; name the file either way
        raise BoardSetError(f"{source}: not a readable PBN file ({exc})") from exc
    tags = _pbn_tags(text)
    if len(tags) != len(records):  # a layout this reader does not follow: trust endplay
        tags = [{} for _ in records]
    boards: list[BoardDeal] = []
    for i, (rec, tag) in enumerate(zip(records, tags, strict=True), start=1):
        number = rec.board_num if rec.board_num is not None else i
        where = f"{source}: board {number} (record {i})"
        _check_hands(rec.deal, where)
        dealer_tag = tag.get("dealer", "").upper()
        if dealer_tag and dealer_tag not in "NESW":
            raise BoardSetError(f"{where}: Dealer {dealer_tag!r} is not N, E, S or W")
        dealer = Player.find(dealer_tag) if dealer_tag else None
        if number < 1:
            raise BoardSetError(f"{where}: numbers start at 1")
        boards.append(
            BoardDeal(
                number=number,
                dealer=dealer if dealer is not None else dealer_of(number),
                vul=rec.vul if rec.vul is not None else vul_of(number),
                deal=rec.deal.copy(),
            )
        )
    return check_numbers(boards, source)


def lin_records(text: str) -> list[Board]:
    """endplay's boards of a LIN text (its reader wants one line: LIN files wrap anywhere)."""
    from endplay.parsers import lin

    return list(lin.loads(text.replace("\r\n", "").replace("\n", "")))


def load_lin_text(text: str, source: str = "<lin>") -> list[BoardDeal]:
    """The boards of a LIN text: a record's own number, dealer and vulnerability are kept."""
    try:
        records = lin_records(text)
    except Exception as exc:  # endplay raises several types for malformed LIN
        raise BoardSetError(f"{source}: not valid LIN ({exc})") from exc
    boards: list[BoardDeal] = []
    for i, rec in enumerate(records, start=1):
        number = rec.board_num if rec.board_num is not None else i
        _check_hands(rec.deal, f"{source}: board {number} (record {i})")
        boards.append(
            BoardDeal(
                number=number,
                dealer=rec.dealer if rec.dealer is not None else dealer_of(max(number, 1)),
                vul=rec.vul if rec.vul is not None else vul_of(max(number, 1)),
                deal=rec.deal.copy(),
            )
        )
    return check_numbers(boards, source)


def npz_deals(
    path: str | Path, need_dd: bool = False
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8] | None]:
    """The arrays of an npz deal file (docs/data.md): ``owners`` uint8[N, 52] and ``dd``
    uint8[N, 4, 5] (None where the file has none: a teacher file; a :class:`BoardSetError` where
    ``need_dd``). The one reader of the format: the boards of :func:`load_npz` and the trainers'
    arrays (``models.data.load_dd``) both come from here, checked alike: the arrays' shapes, and
    13 cards to each seat in every deal."""
    try:
        with np.load(path, allow_pickle=False) as z:
            owners = np.asarray(z["owners"])
            dd = np.asarray(z["dd"]) if "dd" in z.files else None
            found = sorted(z.files)
    except (OSError, KeyError, ValueError) as exc:
        raise BoardSetError(f"{path}: not an npz deal file with an owners array ({exc})") from exc
    if dd is None and need_dd:
        raise BoardSetError(f"{path}: expected arrays 'owners' and 'dd', found {found}")
    if owners.ndim != 2 or owners.shape[1] != 52:
        raise BoardSetError(f"{path}: owners must have shape [N, 52], got {owners.shape}")
    if dd is not None and dd.shape != (len(owners), 4, 5):
        raise BoardSetError(f"{path}: dd must have shape [{len(owners)}, 4, 5], got {dd.shape}")
    rows = owners.astype(np.uint8)
    bad = np.flatnonzero((np.sort(rows, axis=1) != np.repeat(np.arange(4), 13)).any(axis=1))
    if len(bad):
        raise BoardSetError(f"{path}: deal {int(bad[0])} does not give 13 cards to each seat")
    return rows, None if dd is None else dd.astype(np.uint8)


def load_npz(path: Path, boards: int | None = None, first: int = 0) -> list[BoardDeal]:
    """Boards of an npz deal file (docs/data.md): deal ``first + k - 1`` is board ``k``, with its
    double-dummy table when the file has them (``ddgen``'s do; a teacher file has none)."""
    owners, dd = npz_deals(path)
    if first < 0:
        raise BoardSetError(f"{path}: the first deal is row {first}; rows count from 0")
    available = len(owners) - first
    n = available if boards is None else min(boards, available)
    if n < 1:
        raise BoardSetError(f"{path}: no deals from row {first} on ({len(owners)} in the file)")
    return [
        cycle_board(k + 1, owners_pbn(owners[first + k]), None if dd is None else dd[first + k])
        for k in range(n)
    ]


def load_deal_file(path: str | Path, boards: int | None = None) -> list[BoardDeal]:
    """The boards of a PBN, LIN or npz deal file (by suffix; anything else is read as PBN), at
    most ``boards`` of them (the first ones)."""
    p = Path(path)
    if boards is not None and boards < 1:
        raise BoardSetError(f"the number of boards must be at least 1, got {boards}")
    if p.suffix.lower() == ".npz":
        if not p.exists():
            raise BoardSetError(f"{p}: no such deal file")
        return load_npz(p, boards)
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise BoardSetError(f"{p}: no such deal file") from None
    except OSError as exc:
        raise BoardSetError(f"{p}: cannot read the deal file ({exc.strerror})") from exc
    if p.suffix.lower() == ".lin":
        found = load_lin_text(text, str(p))
    else:
        found = load_pbn_text(text, str(p))
    return found if boards is None else found[:boards]


def load_boards(
    *, deals: str | Path | None = None, seed: int = 0, boards: int | None, default: int
) -> list[BoardDeal]:
    """The boards a command asks for: ``--deals FILE`` (at most ``--boards`` of its boards, all
    by default), else ``--boards`` boards (``default`` if not given) of the stream ``--seed``."""
    if deals is not None:
        return load_deal_file(deals, boards)
    return generate(seed, default if boards is None else boards)
