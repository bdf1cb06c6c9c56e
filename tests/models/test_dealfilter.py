"""``bridgebot ddgen --filter slam``: the filter agrees with HCP and fits counted from endplay's
hands; a filtered file holds the stream's first passing deals with real DDS tables, records the
filter in its meta, and resumes to the same file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.dds import dd_tables
from bridgebot.laws.cards import deal_owners, owners_deal
from bridgebot.laws.deals import random_owners
from bridgebot.models.datameta import DataMeta
from bridgebot.models.ddgen import DDGenError, generate
from bridgebot.models.dealfilter import side_hcp_and_fit, slam_deals
from bridgebot.models.provenance import regenerate_command
from endplay.types import Denom, Player, Rank

from bridgebot.cli import main

POINTS = {Rank.RA: 4, Rank.RK: 3, Rank.RQ: 2, Rank.RJ: 1}


def counted(owners: np.ndarray) -> tuple[list[int], list[int]]:
    """Each side's HCP and longest combined suit, counted card by card from endplay's hands."""
    deal = owners_deal(owners)
    hcp, fit = [], []
    for side in (0, 1):
        hands = [deal[Player(side)], deal[Player(side + 2)]]
        hcp.append(sum(POINTS.get(card.rank, 0) for hand in hands for card in hand))
        fit.append(max(sum(len(hand[suit]) for hand in hands) for suit in Denom.suits()))
    return hcp, fit


def test_hcp_and_fits_equal_a_count_from_the_hands() -> None:
    owners = np.stack([random_owners(11, k) for k in range(300)])
    hcp, fit = side_hcp_and_fit(owners)
    keep = slam_deals(owners)
    for k in range(300):
        h, f = counted(owners[k])
        assert (hcp[k].tolist(), fit[k].tolist()) == (h, f), k
        assert keep[k] == any(h[s] >= 29 or (h[s] >= 26 and f[s] >= 9) for s in (0, 1)), k
    assert 0 < keep.sum() < 300  # about one deal in seven passes


@pytest.mark.parametrize(
    ("pbn", "passes"),
    [
        # 26 HCP and ten spades for North-South.
        ("N:AKQJ2.AK32.A32.2 543.JT98.QJT.KQJ T9876.Q4.K54.543 .765.9876.AT9876", True),
        # 26 HCP, seven-card fits at most: no.
        ("N:AKQ2.AK32.A32.32 876.JT9.QJT9.AKQ JT9.Q54.K54.7654 543.876.876.JT98", False),
        # 28 HCP and no fit: no.
        ("N:AKQ2.AK32.A32.32 J76.JT9.JT98.AKQ T98.Q54.KQ4.J654 543.876.765.T987", False),
        # 29 HCP, no fit needed (East-West this time).
        ("N:J76.JT9.QJT9.KQJ AKQ2.AK32.A32.32 543.876.876.T987 T98.Q54.K54.A654", True),
    ],
)
def test_thresholds_on_hand_made_deals(pbn: str, passes: bool) -> None:
    owners = deal_owners(pbn)[None]
    hcp, fit = side_hcp_and_fit(owners)
    assert (bool(slam_deals(owners)[0]), counted(owners[0])) == (
        passes,
        (hcp[0].tolist(), fit[0].tolist()),
    )


def load(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def test_a_filtered_file_holds_the_first_passing_deals_with_their_tables(tmp_path: Path) -> None:
    out = tmp_path / "slam.npz"
    argv = ["ddgen", "--deals", "3", "--seed", "3", "--filter", "slam", "--out", str(out)]
    assert main([*argv, "--quiet"]) == 0
    z = load(out)
    stream = np.stack([random_owners(3, k) for k in range(200)])
    passing = np.flatnonzero(slam_deals(stream))[:3]
    np.testing.assert_array_equal(z["owners"], stream[passing])
    np.testing.assert_array_equal(z["dd"], dd_tables(stream[passing]))
    meta = json.loads(str(z["meta"]))
    assert meta == {
        "count": 3,
        "filter": "slam",
        "generator": "ddgen-v1",
        "scanned": int(passing[-1]) + 1,
        "seed": 3,
    }
    assert regenerate_command("slam.npz", DataMeta.model_validate(meta), 3) == (
        "bridgebot ddgen --boards 3 --seed 3 --filter slam --out slam.npz"
    )


def test_an_interrupted_filtered_run_resumes_to_the_same_file(tmp_path: Path) -> None:
    whole = tmp_path / "whole.npz"
    generate(whole, 3, seed=6, chunk=2, workers=2, progress=False, keep="slam")
    part = tmp_path / "part.npz"
    generate(
        part, 3, seed=6, chunk=1, checkpoint_every=1, progress=False, stop_after=2, keep="slam"
    )
    assert load(part)["owners"].shape[0] == 2
    generate(part, 3, seed=6, chunk=2, progress=False, keep="slam")
    a, b = load(whole), load(part)
    for key in ("owners", "dd", "meta"):
        np.testing.assert_array_equal(a[key], b[key])
    # A file is continued only under its own filter, and an unfiltered one never gains one.
    with pytest.raises(DDGenError, match="filter"):
        generate(part, 4, seed=6, progress=False)
    plain = tmp_path / "plain.npz"
    generate(plain, 2, seed=6, progress=False)
    with pytest.raises(DDGenError, match="filter"):
        generate(plain, 4, seed=6, progress=False, keep="slam")


def test_an_unknown_filter_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["ddgen", "--deals", "2", "--filter", "grand", "--out", str(tmp_path / "x.npz")])
    assert exit_.value.code == 2 and "grand" in capsys.readouterr().err
    assert not (tmp_path / "x.npz").exists()
