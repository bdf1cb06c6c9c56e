"""Tests for models.belief: examples, the quality report, a short training run and ONNX parity."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.belief import BeliefNet
from bridgebot.engine.modelcard import Training
from bridgebot.laws.deals import random_owners_batch
from bridgebot.models import belief
from bridgebot.models.config import BeliefConfig

from bridgebot.shipped import DEFAULT_MODEL_DIR, shipped_model

pytestmark = pytest.mark.train


def test_examples_are_the_hidden_cards_of_each_decision() -> None:
    owners = random_owners_batch(0, 0, 12)
    x, y, pos = belief.decision_examples(owners, DEFAULT_MODEL_DIR)
    assert x.shape[0] == y.shape[0] == pos.shape[0] >= 12 * 4
    assert x.shape[1] == 480 and y.shape[1] == 156
    y3 = y.reshape(-1, 3, 52)
    # Each other seat holds 13 cards; every card is the observer's or exactly one other seat's.
    assert (y3.sum(axis=2) == 13).all()
    hand = x[:, 428:].sum(axis=1)
    assert (hand == 13).all() and (y3.sum(axis=(1, 2)) == 39).all()
    # Deal 0 is board 1 (North deals): its first decision is North's, so LHO is East.
    assert pos[0] == 0
    assert np.array_equal(y3[0, 0], (owners[0] == 1).astype(np.uint8))


def test_seat_assignment_gives_every_pairing_an_equal_share() -> None:
    who = belief.seat_assignment(10, 2)
    assert who.shape == (10, 4)
    assert who[0].tolist() == [0, 0, 0, 0]
    assert who[1].tolist() == [0, 1, 0, 1] and who[2].tolist() == [1, 0, 1, 0]
    assert who[3].tolist() == [0, 2, 0, 2] and who[4].tolist() == [2, 0, 2, 0]
    assert who[5].tolist() == [0, 0, 0, 0]
    assert (belief.seat_assignment(3, 0) == 0).all()


def test_opponent_dirs_drop_the_blanks_around_each_name() -> None:
    assert belief.opponent_dirs("a + b/c+") == ("a", "b/c")
    assert belief.opponent_dirs("") == ()


def test_examples_against_an_opponent_model_are_only_the_policys_decisions() -> None:
    owners = random_owners_batch(0, 0, 9)
    x_alone, _, pos_alone = belief.decision_examples(owners, DEFAULT_MODEL_DIR)
    x, y, pos = belief.decision_examples(
        owners, DEFAULT_MODEL_DIR, opponents=(shipped_model("bfgnet"),)
    )
    who = belief.seat_assignment(9, 1)
    # Positions rise within a deal and restart with the next: split the examples by deal.
    bounds = [0, *(np.flatnonzero(np.diff(pos) <= 0) + 1).tolist(), pos.size]
    assert len(bounds) - 1 == 9
    for deal in range(9):
        dealer = deal % 4  # deal i is board i + 1: North deals board 1
        seats = (dealer + pos[bounds[deal] : bounds[deal + 1]]) % 4
        assert (who[deal, seats] == 0).all(), f"deal {deal}: an opponent's call is an example"
        if who[deal].any():
            assert set(seats.tolist()) <= {s for s in range(4) if who[deal, s] == 0}
    # The all-policy deals (0, 3, 6) give the same examples with or without the opponent model.
    bounds_alone = [0, *(np.flatnonzero(np.diff(pos_alone) <= 0) + 1).tolist(), pos_alone.size]
    for deal in (0, 3, 6):
        mine = x[bounds[deal] : bounds[deal + 1]]
        alone = x_alone[bounds_alone[deal] : bounds_alone[deal + 1]]
        assert np.array_equal(mine, alone)
    assert (x[:, 428:].sum(axis=1) == 13).all() and (y.reshape(-1, 3, 52).sum(axis=2) == 13).all()


def test_quality_of_perfect_and_uniform_beliefs() -> None:
    owners = random_owners_batch(1, 0, 5)
    rel = (owners.astype(np.int64) - 0) % 4
    y = (rel[:, None, :] == np.arange(1, 4)[None, :, None]).reshape(5, 156).astype(np.uint8)
    pos = np.zeros(5, dtype=np.int64)
    perfect = belief.quality(y.astype(np.float64), y, pos)
    assert perfect["owner_accuracy"] == 1.0 and perfect["owner_loglik_per_card"] > -0.001
    flat = belief.quality(np.full((5, 156), 0.4), y, pos)
    assert math.isclose(flat["owner_loglik_per_card"], math.log(1 / 3), abs_tol=1e-4)


def test_short_training_run_exports_a_matching_onnx_model(tmp_path: Path) -> None:
    import torch

    data = tmp_path / "deals.npz"
    owners = random_owners_batch(2, 0, 90)
    np.savez(data, owners=owners, dd=np.zeros((90, 4, 5), dtype=np.uint8))
    model = str(DEFAULT_MODEL_DIR)
    cfg = BeliefConfig(
        data=str(data), out=str(tmp_path / "model"), policy=model, epochs=2, batch=64
    )
    net, metrics, parity_x = belief.train(cfg, held_out=30)
    assert metrics["train_deals"] == 60 and metrics["held_out_deals"] == 30
    assert metrics["uniform_loglik_per_card"] == round(math.log(1 / 3), 4)
    card = belief.export(
        net, tmp_path / "model", Training(kind="belief", command="test"), metrics, parity_x
    )
    assert card.export.parity_max_abs_diff is not None and card.export.parity_max_abs_diff < 1e-4
    served = BeliefNet(tmp_path / "model")
    x = parity_x.astype(np.float32)
    with torch.no_grad():
        ref = torch.sigmoid(net(torch.from_numpy(x))).numpy()
    np.testing.assert_allclose(served.probabilities(x).reshape(-1, 156), ref, atol=1e-5)
    assert served.model.card.training.command == "test"
