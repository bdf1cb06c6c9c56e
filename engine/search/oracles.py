"""The double-dummy trick oracles of the rollouts: the solver (cached per particle and strain)
or the learned estimator."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import numpy.typing as npt
from bridgebot.engine.search.protocols import (
    N_TRICKS,
    FloatArray,
    IntArray,
    TrickOracle,
    U8Array,
)

# -- double-dummy oracles --------------------------------------------------------------------------


class SolverOracle:
    """Exact tricks from endplay's double-dummy solver, one solve per (particle, strain), cached.

    Rows are grouped by strain and each group is solved in DDS batches
    (:func:`engine.dds.dd_tables` with the other strains left out, behind the solver's one lock;
    DDS threads internally), so a particle that several candidates take to the same strain costs
    one solve. The cache is keyed by the deal and keeps ``cache_size``
    deals (least recently used out first); ``solved`` counts (deal, strain) solves done.
    """

    def __init__(self, cache_size: int = 50_000) -> None:
        self.cache_size = cache_size
        self._cache: OrderedDict[bytes, npt.NDArray[np.int16]] = OrderedDict()
        self.solved = 0
        self.hits = 0

    def _entry(self, key: bytes) -> npt.NDArray[np.int16]:
        entry = self._cache.get(key)
        if entry is None:
            entry = np.full((4, 5), -1, dtype=np.int16)
            self._cache[key] = entry
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return entry

    def tricks(self, owners: U8Array, declarer: IntArray, strain: IntArray) -> IntArray:
        """Tricks [B] declarer takes in strain (DD index 0 C .. 4 NT) on deal ``owners`` [B, 52]."""
        from bridgebot.engine.dds import dd_tables  # the one door to the solver (not reentrant)

        owners = np.ascontiguousarray(owners, dtype=np.uint8)
        keys = [owners[i].tobytes() for i in range(owners.shape[0])]
        entries = [self._entry(k) for k in keys]
        by_key = dict(zip(keys, entries, strict=True))  # survives eviction within this call
        todo: dict[int, dict[bytes, int]] = {}
        for i, (key, entry) in enumerate(zip(keys, entries, strict=True)):
            s = int(strain[i])
            if entry[0, s] < 0:
                todo.setdefault(s, {}).setdefault(key, i)
            else:
                self.hits += 1
        for s, group in todo.items():
            tables = dd_tables(owners[list(group.values())], strains=[s])
            for key, table in zip(group, tables, strict=True):
                by_key[key][:, s] = table[:, s]
                self.solved += 1
        out = np.array(
            [entries[i][int(declarer[i]), int(strain[i])] for i in range(len(keys))],
            dtype=np.int64,
        )
        return out

    def trick_probs(self, owners: U8Array, declarer: IntArray, strain: IntArray) -> FloatArray:
        return one_hot_tricks(self.tricks(owners, declarer, strain))


def one_hot_tricks(tricks: IntArray) -> FloatArray:
    """Trick counts [B] as distributions [B, 14]."""
    out: FloatArray = np.eye(N_TRICKS, dtype=np.float32)[np.asarray(tricks, dtype=np.int64)]
    return out


class EstimatorOracle:
    """Tricks from the learned estimator (:class:`engine.ddestimate.DDEstimator`)."""

    def __init__(self, estimator: object) -> None:
        from bridgebot.engine.ddestimate import DDEstimator

        if not isinstance(estimator, DDEstimator):
            raise TypeError("EstimatorOracle needs an engine.ddestimate.DDEstimator")
        self.estimator = estimator

    def trick_probs(self, owners: U8Array, declarer: IntArray, strain: IntArray) -> FloatArray:
        return self.estimator.trick_probs(owners, declarer, strain)


def slam_chances(
    oracle: TrickOracle, deals: U8Array, seat: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The oracle's chance that ``seat``'s side takes 12+ and 13 tricks, per deal and strain
    ([deals, 5] each), the better of its two declarers."""
    u = deals.shape[0]
    declarers = np.array([seat, (seat + 2) % 4], dtype=np.int64)
    # Rows (deal, declarer, strain) -> row (j * 2 + d) * 5 + s.
    probs = oracle.trick_probs(
        np.repeat(deals, 10, axis=0),
        np.tile(np.repeat(declarers, 5), u),
        np.tile(np.arange(5, dtype=np.int64), 2 * u),
    ).reshape(u, 2, 5, N_TRICKS)
    p12 = probs[..., 12:].sum(axis=-1, dtype=np.float64).max(axis=1)
    p13 = probs[..., 13].astype(np.float64).max(axis=1)
    return p12, p13
