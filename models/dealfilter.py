"""Deal filters for ``bridgebot ddgen --filter``: curriculum sets rich in one kind of deal.

Slams are rare on random deals (a side makes 12 tricks on about one board in seven), so a policy
trained on random deals seldom meets the reward of bidding one. ``--filter slam`` keeps only the
deals where a side is strong enough that a slam is plausible, judged from the cards alone before
anything is solved, so the double-dummy solver runs only on the deals kept.

A filtered file holds, in stream order, the deals of the random stream ``--seed``
(:func:`laws.deals.random_owners`) that pass the filter: deal k of the file is the k-th passing
deal of the stream, whatever ``--workers`` and however often the run was interrupted. Its
``meta`` records the filter and ``scanned``, the stream deals examined to find them
(:class:`models.datameta.DataMeta`), so a resumed run goes on from there.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
from bridgebot.engine.dds import dd_tables
from bridgebot.laws.deals import random_owners_batch

#: A side's high-card points that pass ``slam`` alone, and with a fit of :data:`SLAM_FIT` cards.
SLAM_HCP, SLAM_FIT_HCP, SLAM_FIT = 29, 26, 9
#: Milton Work points of each card in the layout of laws.cards (A K Q J first in every suit).
_HCP = np.tile(np.array([4, 3, 2, 1] + [0] * 9, dtype=np.int64), 4)
#: Deals generated per step of :func:`passing_deals`.
_SCAN = 4096

Owners = npt.NDArray[np.uint8]
Keep = Callable[[Owners], npt.NDArray[np.bool_]]


def side_hcp_and_fit(owners: Owners) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Per deal and side (0 North-South, 1 East-West): the side's high-card points, and its
    longest combined suit length; both int[N, 2]."""
    side = np.asarray(owners, dtype=np.int64) % 2  # [N, 52]
    hcp = np.stack([((side == s) * _HCP).sum(axis=1) for s in (0, 1)], axis=1)
    lengths = (side.reshape(len(side), 4, 13)[..., None] == np.arange(2)).sum(axis=2)  # [N, 4, 2]
    return hcp, lengths.max(axis=1)


def slam_deals(owners: Owners) -> npt.NDArray[np.bool_]:
    """Deals where a side has 29+ HCP, or 26+ HCP and a fit of 9+ cards."""
    hcp, fit = side_hcp_and_fit(owners)
    strong = (hcp >= SLAM_HCP) | ((hcp >= SLAM_FIT_HCP) & (fit >= SLAM_FIT))
    return np.asarray(strong.any(axis=1), dtype=np.bool_)


#: ``--filter`` names and their tests (a bool per deal of an owners array).
FILTERS: dict[str, Keep] = {"slam": slam_deals}


def passing_deals(seed: int, start: int, want: int, keep: Keep) -> list[int]:
    """Stream indices of the first ``want`` deals from ``start`` on of stream ``seed`` that
    ``keep`` passes."""
    out: list[int] = []
    while len(out) < want:
        passed = np.flatnonzero(keep(random_owners_batch(seed, start, _SCAN)))
        out += [start + int(i) for i in passed[: want - len(out)]]
        start += _SCAN
    return out


def dd_picked(job: tuple[int, list[int]]) -> tuple[Owners, npt.NDArray[np.uint8]]:
    """Worker: the deals of stream ``seed`` at the given indices, and their DD tables."""
    seed, indices = job
    owners = np.concatenate([random_owners_batch(seed, i, 1) for i in indices])
    return owners, dd_tables(owners)
