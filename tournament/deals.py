"""Deal sets for a match: a PBN file, a seed, or a double-dummy table file (docs/data.md).

Every source yields :class:`BoardDeal` records numbered from 1, with dealer and vulnerability from
the 16-board cycle of duplicate events (unless a PBN record sets its own). Double-dummy tables come
with the npz format for free; for PBN and seeded deals :func:`ensure_dd` solves them with endplay's
DDS in worker processes (0.15-0.3 s of CPU a table) and caches the results in a file of the same
npz format, so a resumed or repeated match pays once.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bridgebot.engine.dds import dd_tables
from bridgebot.engine.dds import hands_pbn as owners_to_pbn
from endplay.types import Deal, Player, Vul

RANKS = "AKQJT98765432"
#: Suits in the order of the npz ``owners`` layout (S, H, D, C), as endplay Denom values 0..3.
_SUITS = (0, 1, 2, 3)

DDTable = npt.NDArray[np.uint8]
"""Tricks by declarer (N, E, S, W) x strain (C, D, H, S, NT): the layout of docs/data.md."""


class DealSourceError(ValueError):
    """A deal file or deal-set option that cannot be used; the message names the file."""


@dataclass(frozen=True)
class BoardDeal:
    """One board of a match: the deal, its number, dealer, vulnerability and DD table if known."""

    board: int
    dealer: Player
    vul: Vul
    pbn: str
    """The deal as a PBN string, ``N:`` first (hashable and JSON-friendly, unlike ``Deal``)."""
    dd: DDTable | None = None

    def deal(self) -> Deal:
        return Deal(self.pbn)


def cycle_board(board: int, pbn: str, dd: DDTable | None = None) -> BoardDeal:
    """A board whose dealer and vulnerability follow the 16-board cycle."""
    return BoardDeal(
        board=board, dealer=Player.from_board(board), vul=Vul.from_board(board), pbn=pbn, dd=dd
    )


def pbn_to_owners(pbn: str) -> npt.NDArray[np.uint8]:
    """Inverse of :func:`owners_to_pbn` (accepts any first seat endplay accepts)."""
    deal = Deal(pbn)
    owners = np.zeros(52, dtype=np.uint8)
    for seat in Player:
        for card in deal[seat]:
            owners[card.suit.value * 13 + RANKS.index(card.rank.abbr)] = seat.value
    return owners


def load_npz(path: Path, boards: int | None = None, first: int = 0) -> list[BoardDeal]:
    """Boards from a DD npz file: deal ``first + k - 1`` becomes board ``k``."""
    try:
        with np.load(path) as z:
            owners, dd = z["owners"], z["dd"]
    except (OSError, KeyError, ValueError) as exc:
        raise DealSourceError(
            f"{path}: not a DD deal file with owners and dd arrays ({exc})"
        ) from exc
    if owners.ndim != 2 or owners.shape[1] != 52 or dd.shape[1:] != (4, 5):
        raise DealSourceError(f"{path}: owners must be [N, 52] and dd [N, 4, 5]")
    n = len(owners) - first if boards is None else boards
    if first + n > len(owners):
        raise DealSourceError(f"{path}: {n} boards asked for, {len(owners) - first} available")
    return [
        cycle_board(k + 1, owners_to_pbn(owners[first + k]), dd[first + k].astype(np.uint8))
        for k in range(n)
    ]


def load_pbn(path: Path, boards: int | None = None) -> list[BoardDeal]:
    """Boards from a PBN file; a record's own Board, Dealer and Vulnerable tags are kept."""
    from endplay.parsers import pbn

    try:
        text = path.read_text(encoding="utf-8")
        records = pbn.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise DealSourceError(f"{path}: cannot read ({exc})") from exc
    except Exception as exc:  # endplay raises several types for malformed PBN
        raise DealSourceError(f"{path}: not valid PBN ({exc})") from exc
    dealers = _dealer_tags(text)
    out: list[BoardDeal] = []
    for i, rec in enumerate(records):
        number = len(out) + 1
        if any(len(rec.deal[p]) != 13 for p in Player):
            raise DealSourceError(f"{path}: record {i + 1} does not hold a full deal")
        dealer = dealers[i] if i < len(dealers) and len(dealers) == len(records) else None
        out.append(
            BoardDeal(
                board=number,
                dealer=dealer if dealer is not None else Player.from_board(number),
                vul=rec.vul if rec.vul is not None else Vul.from_board(number),
                pbn=rec.deal.to_pbn(),
            )
        )
        if boards is not None and len(out) == boards:
            break
    if boards is not None and len(out) < boards:
        raise DealSourceError(f"{path}: {boards} boards asked for, {len(out)} in the file")
    return out


def _dealer_tags(text: str) -> list[Player | None]:
    """The Dealer tag of every record holding a Deal tag, in file order.

    endplay 0.5.12 keeps a record's Dealer tag only when the record also has a contract, so a
    plain deal file would silently lose its dealers; records are blank-line separated in PBN.
    """
    out: list[Player | None] = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n")):
        if not re.search(r"^\[Deal ", block, flags=re.M):
            continue
        m = re.search(r'^\[Dealer "([NESW])"\]', block, flags=re.M | re.I)
        out.append(Player.find(m.group(1).upper()) if m else None)
    return out


def generate(seed: int, boards: int) -> list[BoardDeal]:
    """``boards`` uniformly random deals from ``seed``, dealer and vulnerability rotating."""
    rng = random.Random(seed)
    out = []
    for k in range(boards):
        cards = [seat for seat in range(4) for _ in range(13)]
        rng.shuffle(cards)
        out.append(cycle_board(k + 1, owners_to_pbn(np.array(cards, dtype=np.uint8))))
    return out


def load_deals(
    *, deals: Path | None = None, seed: int | None = None, boards: int = 64
) -> list[BoardDeal]:
    """The deal set the ``match`` command asks for: a PBN/LIN/npz file, else deals from a seed."""
    if deals is not None:
        if not deals.exists():
            raise DealSourceError(f"{deals}: no such deal file")
        if deals.suffix == ".npz":
            return load_npz(deals, boards)
        if deals.suffix.lower() == ".lin":
            from bridgebot.tournament.lin import load_lin_deals

            return load_lin_deals(deals, boards)
        return load_pbn(deals, boards)
    return generate(1 if seed is None else seed, boards)


def solve_dd(pbn: str) -> DDTable:
    """Full double-dummy table of one deal with endplay's DDS, in the npz layout."""
    return _solve_chunk([pbn])[0]


def _solve_chunk(pbns: Sequence[str]) -> list[DDTable]:
    return list(dd_tables(np.stack([pbn_to_owners(p) for p in pbns])))


def ensure_dd(
    deals: Sequence[BoardDeal], cache: Path | None = None, workers: int | None = None
) -> list[BoardDeal]:
    """Fill in missing DD tables, solving in ``workers`` processes and caching in ``cache``."""
    known: dict[str, DDTable] = {}
    if cache is not None and cache.exists():
        with np.load(cache) as z:
            for row, table in zip(z["owners"], z["dd"], strict=True):
                known[owners_to_pbn(row)] = table.astype(np.uint8)
    # Deals read from PBN may start at any seat; key the cache by the canonical N-first string.
    canon = {d.pbn: owners_to_pbn(pbn_to_owners(d.pbn)) for d in deals if d.dd is None}
    todo = sorted({c for c in canon.values() if c not in known})
    if todo:
        workers = workers or max(1, min(len(todo) // 8, os.cpu_count() or 1))
        chunks = [todo[i::workers] for i in range(workers)]
        if workers == 1:
            solved = [_solve_chunk(todo)]
            chunks = [todo]
        else:
            with ProcessPoolExecutor(workers) as pool:
                solved = list(pool.map(_solve_chunk, chunks))
        for chunk, tables in zip(chunks, solved, strict=True):
            known.update(zip(chunk, tables, strict=True))
        if cache is not None:
            _write_npz(cache, known)
    return [d if d.dd is not None else replace(d, dd=known[canon[d.pbn]]) for d in deals]


def _write_npz(path: Path, tables: dict[str, DDTable]) -> None:
    """Write tables in the npz format of docs/data.md, atomically (a kill leaves the old cache)."""
    keys = sorted(tables)
    owners = np.stack([pbn_to_owners(k) for k in keys]) if keys else np.zeros((0, 52), np.uint8)
    dd = np.stack([tables[k] for k in keys]) if keys else np.zeros((0, 4, 5), np.uint8)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, owners=owners, dd=dd)
    os.replace(tmp, path)
