"""Fixtures for match tests: small deal files whose double-dummy tables the real solver computed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.laws.cards import deal_owners
from bridgebot.tournament.ddtables import solve_dd


@pytest.fixture(scope="session")
def solved_npz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight seeded deals solved by DDS, in the npz format of docs/data.md."""
    deals = generate(seed=11, boards=8)
    path = tmp_path_factory.mktemp("deals") / "dd8.npz"
    owners = np.stack([deal_owners(d.pbn) for d in deals])
    dd = np.stack([solve_dd(d.pbn) for d in deals])
    np.savez_compressed(path, owners=owners, dd=dd)
    return path


@pytest.fixture(scope="session")
def big_npz(solved_npz: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same eight deals repeated to 600 boards: a match long enough to interrupt."""
    with np.load(solved_npz) as z:
        owners, dd = np.tile(z["owners"], (75, 1)), np.tile(z["dd"], (75, 1, 1))
    path = tmp_path_factory.mktemp("deals") / "dd600.npz"
    np.savez_compressed(path, owners=owners, dd=dd)
    return path
