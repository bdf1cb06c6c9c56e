"""bridgebot ddgen: real DDS tables in the format of docs/data.md, equal per deal to calc_dd_table;
an interrupted run resumed equals one run."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.dds import dd_tables
from bridgebot.laws.cards import deal_owners
from bridgebot.laws.cards import owners_pbn as pbn
from bridgebot.laws.deals import random_owners
from bridgebot.models.ddgen import DDGenError, generate
from endplay.dds import calc_dd_table
from endplay.types import Deal, Denom, Player

from bridgebot.cli import main

STRAINS = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_pbn_matches_the_data_format_doc() -> None:
    owners = np.repeat(np.arange(4, dtype=np.uint8), 13)  # N all spades, E hearts, ...
    assert pbn(owners) == "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


#: The first two deals of a development set of random deals (DDS 2.9) with their tables, copied here so
#: the golden check runs without any data file.
GOLDEN = [
    (
        "N:98763.83.96.AQT8 AK5.QT95.KT2.K64 Q42.KJ62.753.J93 JT.A74.AQJ84.752",
        [[5, 2, 2, 7, 2], [8, 10, 9, 6, 9], [5, 2, 2, 7, 2], [8, 10, 9, 6, 9]],
    ),
    (
        "N:A8.8763.QJ92.J92 4.AKQ952.87.AQ63 T962.T4.AT3.T875 KQJ753.J.K654.K4",
        [[3, 4, 2, 3, 2], [10, 9, 11, 10, 10], [3, 4, 2, 3, 2], [10, 9, 11, 10, 10]],
    ),
]


def test_golden_tables_of_the_shared_data() -> None:
    owners = np.stack([deal_owners(deal) for deal, _ in GOLDEN])
    assert [pbn(row) for row in owners] == [deal for deal, _ in GOLDEN]
    np.testing.assert_array_equal(dd_tables(owners), np.array([t for _, t in GOLDEN]))


def test_eight_deals_equal_calc_dd_table(tmp_path: Path) -> None:
    out = tmp_path / "dd.npz"
    assert main(["ddgen", "--boards", "8", "--out", str(out), "--seed", "4", "--quiet"]) == 0
    z = load(out)
    assert set(z) == {"owners", "dd", "meta"}
    assert z["owners"].shape == (8, 52) and z["owners"].dtype == np.uint8
    assert z["dd"].shape == (8, 4, 5) and z["dd"].dtype == np.uint8
    assert json.loads(str(z["meta"]))["count"] == 8
    for k in range(8):
        np.testing.assert_array_equal(z["owners"][k], random_owners(4, k))
        table = calc_dd_table(Deal(pbn(z["owners"][k])))
        for p in Player:
            for s, strain in enumerate(STRAINS):
                assert z["dd"][k, p.value, s] == table[strain, p], (k, p, strain)


def test_interrupted_run_resumes_to_the_same_file(tmp_path: Path) -> None:
    whole = tmp_path / "whole.npz"
    generate(whole, 6, seed=2, chunk=2, workers=2, progress=False)
    part = tmp_path / "part.npz"
    generate(part, 6, seed=2, chunk=2, checkpoint_every=2, progress=False, stop_after=3)
    assert load(part)["owners"].shape[0] == 3
    assert main(["ddgen", "--boards", "6", "--out", str(part), "--seed", "2", "--quiet"]) == 0
    a, b = load(whole), load(part)
    for key in ("owners", "dd", "meta"):
        np.testing.assert_array_equal(a[key], b[key])
    with pytest.raises(DDGenError, match="seed"):
        generate(part, 8, seed=3, progress=False)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, owners=a["owners"], dd=a["dd"])
    assert main(["ddgen", "--boards", "8", "--out", str(foreign), "--quiet"]) == 2
