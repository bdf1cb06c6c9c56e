"""Double-dummy tables for a match's boards (docs/data.md).

The boards themselves come from the one loader, :mod:`bridgebot.laws.board_sets`. Tables come
with the npz format for free; for PBN, LIN and seeded boards :func:`ensure_dd` solves them with
DDS in worker processes (0.15-0.3 s of CPU a table) and caches the results in a file of the same
npz format, so a resumed or repeated match pays once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from bridgebot.core.files import replace_file
from bridgebot.core.workers import spawn_pool
from bridgebot.engine.dds import dd_tables
from bridgebot.laws.boards import BoardDeal, DDTable
from bridgebot.laws.cards import deal_owners, owners_pbn


def solve_dd(pbn: str) -> DDTable:
    """Full double-dummy table of one deal with endplay's DDS, in the npz layout."""
    return _solve_chunk([pbn])[0]


def _solve_chunk(pbns: Sequence[str]) -> list[DDTable]:
    return list(dd_tables(np.stack([deal_owners(p) for p in pbns])))


def ensure_dd(
    deals: Sequence[BoardDeal], cache: Path | None = None, workers: int | None = None
) -> list[BoardDeal]:
    """Fill in missing DD tables, solving in ``workers`` processes and caching in ``cache``."""
    known: dict[str, DDTable] = {}
    if cache is not None and cache.exists():
        with np.load(cache) as z:
            for row, table in zip(z["owners"], z["dd"], strict=True):
                known[owners_pbn(row)] = table.astype(np.uint8)
    # Deals read from PBN may start at any seat; key the cache by the canonical N-first string.
    canon = {d.pbn: owners_pbn(deal_owners(d.pbn)) for d in deals if d.dd is None}
    todo = sorted({c for c in canon.values() if c not in known})
    if todo:
        workers = workers or max(1, min(len(todo) // 8, os.cpu_count() or 1))
        chunks = [todo[i::workers] for i in range(workers)]
        if workers == 1:
            solved = [_solve_chunk(todo)]
            chunks = [todo]
        else:
            # Spawned, not forked (a live page's thread may hold a lock at the fork), and ended
            # at once on any exception: SIGTERM or Ctrl-C of the driver alone stops the solving
            # (a pool that finished its work first kept `docker stop` waiting; issue 44), and
            # started with both held, so no worker is cut off half-started (core/workers.py).
            pool = spawn_pool(workers)
            try:
                solved = pool.map(_solve_chunk, chunks)
                pool.close()
            except BaseException:
                pool.terminate()
                raise
            finally:
                pool.join()
        for chunk, tables in zip(chunks, solved, strict=True):
            known.update(zip(chunk, tables, strict=True))
        if cache is not None:
            _write_npz(cache, known)
    return [d if d.dd is not None else d.with_dd(known[canon[d.pbn]]) for d in deals]


def _write_npz(path: Path, tables: dict[str, DDTable]) -> None:
    """Write tables in the npz format of docs/data.md, atomically (a kill leaves the old cache)."""
    keys = sorted(tables)
    owners = np.stack([deal_owners(k) for k in keys]) if keys else np.zeros((0, 52), np.uint8)
    dd = np.stack([tables[k] for k in keys]) if keys else np.zeros((0, 4, 5), np.uint8)
    replace_file(path, lambda tmp: np.savez_compressed(tmp, owners=owners, dd=dd))
