"""benchmarks/bench_slam_information.py: its ranking figures on rankings whose answers are known,
and the partner facts it appends, on the layered model's own auctions (``tests.policies.LAYERED``)."""

from __future__ import annotations

import importlib
from types import ModuleType

import numpy as np
import pytest
from bridgebot.engine.policy import Policy
from bridgebot.laws.cards import deal_owners

from tests.policies import LAYERED


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return importlib.import_module("benchmarks.bench_slam_information")


def test_a_perfect_ranking_is_precise_at_every_recall_and_a_reversed_one_is_not(
    bench: ModuleType,
) -> None:
    slam = np.array([True] * 10 + [False] * 30)
    perfect = bench.ranking(np.linspace(1.0, 0.0, 40).astype(np.float32), slam)
    assert perfect["auc"] == 1.0
    assert all(perfect[f"precision_at_{r}"] == 1.0 for r in (0.2, 0.3, 0.4, 0.5))
    assert perfect["recall_at_0.75"] == 1.0
    reversed_ = bench.ranking(np.linspace(0.0, 1.0, 40).astype(np.float32), slam)
    assert reversed_["auc"] == 0.0 and reversed_["recall_at_0.75"] == 0.0
    # At 30% recall of 10 slams the top 3 are taken: 0 slams among the 30 ranked first...
    assert reversed_["precision_at_0.3"] == pytest.approx(3 / 33)
    # ... and a ranking that cannot tell them apart is a coin: AUC one half.
    flat = bench.ranking(np.full(40, 0.5, dtype=np.float32), slam)
    assert flat["auc"] == 0.5


def test_partner_facts_are_partners_cards(bench: ModuleType) -> None:
    """North holds every ace and king (33 HCP, 12 controls): South's partner; North's partner
    South holds nothing, East's partner West nothing, West's partner East 7 HCP."""
    deal = "N:AKQJ.AKQ.AK2.AK2 T987.JT9.QJT.QJT 6543.8765.987.987 2.432.6543.86543"
    owners = deal_owners(deal)[None, :].repeat(2, axis=0)
    dd = np.zeros((2, 4, 5), dtype=np.uint8)
    data = bench.states(Policy(LAYERED), owners, dd, seed=3)
    hcp = np.round(data["hcp"][:, 0] * 10).astype(int)
    controls = np.round(data["controls"][:, 0] * 6).astype(int)
    assert set(hcp) <= {33, 0, 7} and 33 in set(hcp)
    assert (controls[hcp == 33] == 12).all() and (controls[hcp != 33] == 0).all()
    assert (data["hcp3"][hcp == 33] * 4 == 11).all()
    assert data["shape"].sum(axis=1) * 6 == pytest.approx(np.full(len(hcp), 13.0))
    assert data["zone"].dtype == np.bool_ and len(data["zone"]) == len(data["x"])


def test_partner_s_estimate_is_the_estimator_on_partner_s_last_view(bench: ModuleType) -> None:
    """The ``estimate`` fact of a call is the shipped slam estimator's reading of the same
    auction two calls earlier, partner's turn; before partner has called, zeros."""
    from bridgebot.engine.slams import SlamEstimator, estimator_dir, slam_probs

    found = estimator_dir(LAYERED)
    assert found is not None
    estimator = SlamEstimator(found)
    deal = "N:AKQJ.AKQ.AK2.AK2 T987.JT9.QJT.QJT 6543.8765.987.987 2.432.6543.86543"
    owners = deal_owners(deal)[None, :].repeat(3, axis=0)
    dd = np.zeros((3, 4, 5), dtype=np.uint8)
    data = bench.states(Policy(LAYERED), owners, dd, seed=3, auctions=2, estimator=estimator)
    mine = slam_probs(estimator.logits(data["x"].astype(np.float32)))[0]
    # Calls come position by position over the three deals of each auction round: the row of
    # deal k at position p; partner's row is the same deal at position p - 2.
    n = len(data["x"])
    first_rows = 3 * 2  # positions 0 and 1 of the three deals: no partner call yet
    assert (data["estimate"][:first_rows] == 0).all()
    assert data["estimate"][first_rows : first_rows + 3] == pytest.approx(mine[:3], abs=1e-6)
    assert n > first_rows + 3
    assert data["estimate"].max() > 0.5  # South hears North's 33 HCP judged
    bands = data["estimate7"][:, 0] * len(bench.ESTIMATE_BANDS)
    expected = np.digitize(data["estimate"].max(axis=1), bench.ESTIMATE_BANDS)
    assert np.allclose(bands, expected)
