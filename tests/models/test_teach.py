"""bridgebot teach: real bfg auctions, deterministic given the seed, resumable, from DD files."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.features import legal_masks_arrays
from bridgebot.laws.board_sets import BoardSetError
from bridgebot.laws.boards import CYCLE_DEALER, CYCLE_VUL
from bridgebot.laws.calls import ALL_CALLS, auction_over
from bridgebot.laws.deals import random_owners, random_owners_batch
from bridgebot.models.teach import TeachError, generate
from endplay.types import Player

from bridgebot.cli import main

FIELDS = ("owners", "dealer", "vul", "auctions", "deal_index", "seed", "generator", "bfg_version")


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def assert_same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    for key in FIELDS:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_cycle_matches_data_readme() -> None:
    # Board 1: North, none; 2: East, N/S; 3: South, E/W; 4: West, both (endplay Vul values).
    assert CYCLE_DEALER[:4].tolist() == [0, 1, 2, 3]
    assert CYCLE_VUL[:4].tolist() == [0, 2, 3, 1]
    assert CYCLE_VUL.tolist() == [0, 2, 3, 1, 2, 3, 1, 0, 3, 1, 0, 2, 1, 0, 2, 3]


def test_random_teacher_file(tmp_path: Path) -> None:
    out = tmp_path / "t.npz"
    generate(out, 40, seed=5, chunk=16, progress=False)
    z = load(out)
    n = 40
    assert z["owners"].shape == (n, 52) and z["owners"].dtype == np.uint8
    assert (np.sort(z["owners"], axis=1) == np.repeat(np.arange(4), 13)).all()
    np.testing.assert_array_equal(z["owners"][7], random_owners(5, 7))
    assert z["dealer"].dtype == np.uint8 and z["vul"].dtype == np.uint8
    np.testing.assert_array_equal(z["dealer"], CYCLE_DEALER[np.arange(n) % 16])
    np.testing.assert_array_equal(z["vul"], CYCLE_VUL[np.arange(n) % 16])
    assert z["auctions"].dtype == np.int8 and str(z["generator"]) == "teach-v1"
    assert int(z["seed"]) == 5 and str(z["bfg_version"])
    meta = json.loads(str(z["meta"]))
    assert meta["count"] == n and meta["calls"] == int((z["auctions"] >= 0).sum())
    # Every auction is complete and every call was legal when made.
    for row in z["auctions"]:
        calls = [int(c) for c in row if c >= 0]
        assert (row[len(calls) :] == -1).all()
        assert auction_over([ALL_CALLS[c] for c in calls])
        prefixes = np.full((len(calls), row.shape[0]), -1, dtype=np.int16)
        for i in range(len(calls)):
            prefixes[i, :i] = calls[:i]
        masks = legal_masks_arrays(prefixes)
        assert masks[np.arange(len(calls)), calls].all()
    assert (z["auctions"][:, 0] >= 0).all() and (z["auctions"] >= 3).any()


def test_same_seed_same_file_any_workers_and_resume(tmp_path: Path) -> None:
    one = tmp_path / "one.npz"
    generate(one, 30, seed=9, chunk=8, progress=False)
    two = tmp_path / "two.npz"
    generate(two, 30, seed=9, chunk=8, workers=2, progress=False)
    assert_same(load(one), load(two))
    # An interrupted run (stopped after 10 new deals, checkpointed) resumed to the end.
    part = tmp_path / "part.npz"
    generate(part, 30, seed=9, chunk=8, progress=False, stop_after=10)
    assert load(part)["owners"].shape[0] == 10
    generate(part, 30, seed=9, chunk=8, progress=False)
    assert_same(load(one), load(part))
    other = tmp_path / "other.npz"
    generate(other, 30, seed=10, chunk=8, progress=False)
    assert not np.array_equal(load(other)["owners"], load(one)["owners"])
    with pytest.raises(TeachError, match="seed"):
        generate(one, 40, seed=10, progress=False)


def test_deals_from_a_dd_file(tmp_path: Path) -> None:
    owners = random_owners_batch(3, 0, 20)
    dd = tmp_path / "dd.npz"
    np.savez(dd, owners=owners.astype(np.uint8), dd=np.zeros((20, 4, 5), np.uint8))
    out = tmp_path / "t.npz"
    rc = main(["teach", "--deals", str(dd), "--out", str(out), "--workers", "1", "--quiet"])
    assert rc == 0
    z = load(out)
    np.testing.assert_array_equal(z["owners"], owners)
    np.testing.assert_array_equal(z["deal_index"], np.arange(20))
    assert z["dealer"][17] == Player.east.value and z["vul"][17] == CYCLE_VUL[1]
    assert len(generate(tmp_path / "x.npz", 21, deals=dd, progress=False)) == 20  # at most all
    bad = tmp_path / "bad.npz"
    np.savez(bad, owners=np.zeros((2, 52), np.uint8))
    with pytest.raises(BoardSetError, match="13 cards"):
        generate(tmp_path / "y.npz", 2, deals=bad, progress=False)
    assert main(["teach", "--deals", str(bad), "--out", str(tmp_path / "y.npz")]) == 2
