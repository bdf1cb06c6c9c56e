"""Random deals: one seeded stream for every command.

Deal ``index`` of the stream ``seed`` depends on nothing else (``numpy``'s generator seeded with
``[seed, index]``), so any slice of a stream can be made in any order, by parallel workers or by a
resumed run, and is the same everywhere: ``bridgebot tm --seed 7``, ``bridgebot match --seed 7``,
``bridgebot teach --seed 7`` and ``bridgebot ddgen --seed 7`` deal the same boards. Deal ``i`` is
played as board ``i + 1`` (dealer and vulnerability from :mod:`bridgebot.laws.boards`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from bridgebot.laws.cards import OwnersArray, owners_deal
from endplay.types import Deal

#: The name of this stream in records (a match journal's header): change it whenever
#: :func:`random_owners` changes, so that resuming a seeded run refuses boards dealt otherwise.
STREAM = "bridgebot.laws.deals.random_owners/1"

#: The 52 seats of a deal before shuffling: 13 cards to each of N, E, S, W.
_SEATS = np.repeat(np.arange(4, dtype=np.uint8), 13)


def random_owners(seed: int, index: int) -> OwnersArray:
    """Deal ``index`` (0-based) of the stream ``seed``, as uint8[52] of seats (13 cards each)."""
    if index < 0:
        raise ValueError(f"deal index {index} is negative")
    rng = np.random.default_rng([seed, index])
    out: OwnersArray = rng.permutation(_SEATS)
    return out


def random_owners_batch(seed: int, start: int, count: int) -> npt.NDArray[np.uint8]:
    """Deals ``start .. start + count - 1`` of the stream ``seed``, uint8[count, 52]."""
    if count < 0:
        raise ValueError(f"deal count {count} is negative")
    if count == 0:
        return np.zeros((0, 52), dtype=np.uint8)
    return np.stack([random_owners(seed, start + i) for i in range(count)])


def random_deal(seed: int, index: int) -> Deal:
    """Deal ``index`` of the stream ``seed`` as an endplay ``Deal``."""
    return owners_deal(random_owners(seed, index))
