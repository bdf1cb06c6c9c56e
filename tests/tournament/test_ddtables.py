"""Double-dummy tables for a match's boards: solved once, cached in the npz layout."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from bridgebot.laws.board_sets import load_npz
from bridgebot.laws.cards import deal_owners, owners_pbn
from bridgebot.tournament.ddtables import ensure_dd


def test_ensure_dd_solves_once_and_caches(tmp_path: Path, solved_npz: Path) -> None:
    stored = load_npz(solved_npz, boards=2)
    plain = [type(d)(d.number, d.dealer, d.vul, d.deal) for d in stored]
    cache = tmp_path / "cache.npz"
    solved = ensure_dd(plain, cache=cache, workers=1)
    assert [d.dd.tolist() for d in solved] == [d.dd.tolist() for d in stored]  # type: ignore[union-attr]
    # The cache is in the npz format of docs/data.md and answers without the solver next time.
    assert [d.number for d in load_npz(cache)] == [1, 2]
    cached = {owners_pbn(row): dd for row, dd in zip(*np.load(cache).values(), strict=True)}
    cached[stored[0].pbn][:] = 0  # a poisoned cache proves the second call reads it
    np.savez(
        cache,
        owners=np.stack([deal_owners(k) for k in cached]),
        dd=np.stack(list(cached.values())),
    )
    again = ensure_dd(plain[:1], cache=cache, workers=1)
    assert again[0].dd is not None and int(again[0].dd.sum()) == 0
