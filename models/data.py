"""Datasets and array-level bridge arithmetic for training: teacher decisions, deals, contracts, scores.

Everything here works on whole batches of numpy arrays in the formats of ``docs/data.md``
(deals: ``owners`` uint8[N, 52], ``dd`` uint8[N, 4, 5]) and of ``bridgebot teach`` (auctions as
int8[N, L] of ``laws.calls.ALL_CALLS`` indices, -1 padded), because self-play and imitation need
millions of encoded decisions and a Python loop per call would be the bottleneck. Features come
from ``engine.features.encode_arrays``, the training twin of the encoder the runtime uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
from bridgebot.core.errors import UserError
from bridgebot.engine.features import encode_arrays, legal_masks_arrays, vul_flags
from bridgebot.laws.board_sets import BoardSetError, npz_deals
from bridgebot.laws.boards import side_vulnerable_arrays
from bridgebot.laws.calls import final_contracts_array as final_contracts
from bridgebot.laws.scoring import score_array

IntArray = npt.NDArray[np.int64]

#: How many deals at the end of a DD file are kept out of training (evaluation only).
HOLDOUT = 2000


class DataError(UserError):
    """A data file that is missing arrays or has inconsistent shapes; the message names the file."""


@dataclass(frozen=True)
class DDSet:
    """Deals with double-dummy tables: ``owners`` [N, 52] seat per card, ``dd`` [N, 4 decl, 5 strain]."""

    owners: npt.NDArray[np.uint8]
    dd: npt.NDArray[np.uint8]
    path: str

    def __len__(self) -> int:
        return int(self.owners.shape[0])

    def split(self, holdout: int = HOLDOUT) -> tuple[IntArray, IntArray]:
        """Indices of the training deals and of the last ``holdout`` deals (never trained on)."""
        n = len(self)
        if n <= holdout:
            raise DataError(f"{self.path}: {n} deals, need more than the {holdout} held out")
        return np.arange(n - holdout, dtype=np.int64), np.arange(n - holdout, n, dtype=np.int64)


def _require(path: str | Path, make: str) -> None:
    """A missing data file is a one-line :class:`DataError` saying how to make it."""
    if not Path(path).is_file():
        raise DataError(f"{path}: no such file; make it with '{make} --out {path}'")


def load_dd(path: str | Path) -> DDSet:
    """Load a DD file, checking the arrays docs/data.md promises (``laws.board_sets.npz_deals``,
    the format's one reader)."""
    _require(path, "bridgebot ddgen --boards N --seed S")
    try:
        owners, dd = npz_deals(path, need_dd=True)
    except BoardSetError as e:  # the format's one reader, laws.board_sets; this module's error
        raise DataError(str(e)) from None
    assert dd is not None  # need_dd
    return DDSet(owners=owners, dd=dd, path=str(path))


def load_dd_files(
    paths: Sequence[str | Path], holdout: int = HOLDOUT
) -> tuple[DDSet, IntArray, IntArray]:
    """Several DD files read in order as one set, with the indices of its training deals and of
    the last file's last ``holdout`` deals (never trained on): the split of every trainer that
    takes several files (the league, ``train slamnet``, ``train ddnet``)."""
    sets = [load_dd(p) for p in paths]
    if not sets:
        raise DataError("no DD deal file given")
    sets[-1].split(holdout)  # the last file must hold more than the held-out deals
    joined = DDSet(
        owners=np.concatenate([s.owners for s in sets]),
        dd=np.concatenate([s.dd for s in sets]),
        path="+".join(s.path for s in sets),
    )
    n = len(joined)
    return (
        joined,
        np.arange(n - holdout, dtype=np.int64),
        np.arange(n - holdout, n, dtype=np.int64),
    )


#: The arrays of every teacher file (docs/data.md): read by :func:`load_teach`, written through
#: :meth:`TeachSet.arrays` (``models.teach.TeachRun`` adds the run's record: deal_index, meta...).
TEACH_ARRAYS = ("owners", "dealer", "vul", "auctions")


@dataclass(frozen=True)
class TeachSet:
    """Teacher auctions on random deals (the output of ``bridgebot teach``): the one description
    of the teacher file's format, read by :func:`load_teach` and written by :meth:`arrays`."""

    owners: npt.NDArray[np.uint8]
    dealer: IntArray
    vul: IntArray
    auctions: npt.NDArray[np.int8]
    path: str

    def __len__(self) -> int:
        return int(self.owners.shape[0])

    def decisions(self, deals: IntArray) -> tuple[IntArray, IntArray]:
        """(deal, position) of every call in the auctions of ``deals``: one training example each."""
        lengths = (self.auctions[deals] >= 0).sum(axis=1).astype(np.int64)
        deal = np.repeat(deals, lengths)
        starts = np.cumsum(lengths) - lengths
        pos = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(starts, lengths)
        return deal, pos

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The file's arrays (:data:`TEACH_ARRAYS`) as ``bridgebot teach`` writes them: owners,
        dealer and vul uint8, auctions int8 padded with -1."""
        return {
            "owners": self.owners.astype(np.uint8),
            "dealer": self.dealer.astype(np.uint8),
            "vul": self.vul.astype(np.uint8),
            "auctions": self.auctions.astype(np.int8),
        }


def load_teach(path: str | Path) -> TeachSet:
    """Load a teacher file, checking shapes so a bad file fails here and not mid-training."""
    _require(path, "bridgebot teach --boards N --seed S")
    with np.load(path) as z:
        missing = set(TEACH_ARRAYS) - set(z.files)
        if missing:
            raise DataError(f"{path}: missing arrays {sorted(missing)}")
        t = TeachSet(
            owners=z["owners"].astype(np.uint8),
            dealer=z["dealer"].astype(np.int64),
            vul=z["vul"].astype(np.int64),
            auctions=z["auctions"].astype(np.int8),
            path=str(path),
        )
    n = len(t)
    if t.owners.shape != (n, 52) or t.dealer.shape != (n,) or t.vul.shape != (n,):
        raise DataError(f"{path}: inconsistent shapes {t.owners.shape} {t.dealer.shape}")
    if t.auctions.ndim != 2 or t.auctions.shape[0] != n:
        raise DataError(f"{path}: auctions shape {t.auctions.shape} does not match {n} deals")
    return t


def hands_of(owners: npt.NDArray[np.uint8], seat: npt.ArrayLike) -> npt.NDArray[np.uint8]:
    """13-hot hands (uint8[B, 52]) of absolute ``seat`` (per row) from ``owners`` [B, 52]."""
    s = np.asarray(seat, dtype=np.int64).reshape(-1, 1)
    hands: npt.NDArray[np.uint8] = (owners == s).astype(np.uint8)
    return hands


def observe(
    owners: npt.NDArray[np.uint8],
    dealer: IntArray,
    vul: IntArray,
    auctions: npt.NDArray[np.integer],
    pos: IntArray,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
    """Features and legal masks of the player to call at position ``pos`` of each auction.

    Calls at and after ``pos`` are hidden (set to -1), so the same arrays serve every prefix.
    """
    length = auctions.shape[1]
    prefix = np.where(np.arange(length)[None, :] < pos[:, None], auctions, -1).astype(np.int64)
    seat = (dealer + pos) % 4
    vul_us, vul_them = vul_flags(vul, seat)
    x = encode_arrays(hands_of(owners, seat), pos % 4, vul_us, vul_them, prefix)
    return x, legal_masks_arrays(prefix)


def ns_scores(
    auctions: npt.NDArray[np.integer],
    dealer: IntArray,
    vul: IntArray,
    dd: npt.NDArray[np.uint8],
) -> IntArray:
    """North-South duplicate score of each finished auction, the contract played double-dummy."""
    level, strain, penalty, declarer = final_contracts(auctions, dealer)
    tricks = dd[np.arange(len(level)), declarer, strain].astype(np.int64)
    score = score_array(level, strain, penalty, side_vulnerable_arrays(vul, declarer), tricks)
    return np.where(declarer % 2 == 0, score, -score).astype(np.int64)


#: Room for the longest auctions a sampling policy produces; calls past it are forced passes.
MAX_CALLS = 96

#: (rows, features, legal mask) -> chosen call indices, one per row.
Chooser = Callable[[IntArray, npt.NDArray[np.float32], npt.NDArray[np.bool_]], IntArray]


def run_auctions(
    owners: npt.NDArray[np.uint8],
    dealer: IntArray,
    vul: IntArray,
    who: IntArray,
    choosers: Sequence[Chooser],
) -> IntArray:
    """Bid every deal to the end; ``who[b, seat]`` names the chooser for each absolute seat.

    Returns int64[B, MAX_CALLS] of call indices, -1 padded. Every step asks each chooser once
    for all the rows where its seat is to call.
    """
    batch = owners.shape[0]
    auctions = np.full((batch, MAX_CALLS), -1, dtype=np.int64)
    passes = np.zeros(batch, dtype=np.int64)  # consecutive passes at the end
    bid_made = np.zeros(batch, dtype=np.bool_)
    over = np.zeros(batch, dtype=np.bool_)
    for t in range(MAX_CALLS):
        active = np.nonzero(~over)[0]
        if active.size == 0:
            break
        seat = (dealer[active] + t) % 4
        calls = np.zeros(active.size, dtype=np.int64)
        if t < MAX_CALLS - 3:
            prefix = auctions[active, :t]
            masks = legal_masks_arrays(prefix)
            vul_us, vul_them = vul_flags(vul[active], seat)
            agent = who[active, seat]
            for k, choose in enumerate(choosers):
                sel = np.nonzero(agent == k)[0]
                if sel.size == 0:
                    continue
                rows = active[sel]
                x = encode_arrays(
                    hands_of(owners[rows], seat[sel]),
                    np.full(sel.size, t % 4),
                    vul_us[sel],
                    vul_them[sel],
                    prefix[sel],
                )
                calls[sel] = choose(rows, x, masks[sel])
        auctions[active, t] = calls
        is_pass = calls == 0
        passes[active] = np.where(is_pass, passes[active] + 1, 0)
        bid_made[active] |= ~is_pass
        over[active] = np.where(bid_made[active], passes[active] >= 3, passes[active] >= 4)
    return auctions
