"""Tests for models.ddnet: a short training run learns, and the ONNX export matches torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.ddestimate import (
    CANONICAL_SUIT_ORDER,
    DDEstimator,
    encode_rows,
    full_table_rows,
)
from bridgebot.engine.modelcard import Training
from bridgebot.laws.cards import deal_owners
from bridgebot.models import ddnet
from bridgebot.models.config import DDNetConfig

pytestmark = pytest.mark.train


#: The first 16 deals of a development set of random deals (training part) with their DDS 2.9 tables
#: (declarer N, E, S, W x strain C, D, H, S, NT), copied here so CI needs neither the file nor
#: minutes of solver time.
DEALS = [
    (
        "N:98763.83.96.AQT8 AK5.QT95.KT2.K64 Q42.KJ62.753.J93 JT.A74.AQJ84.752",
        [[5, 2, 2, 7, 2], [8, 10, 9, 6, 9], [5, 2, 2, 7, 2], [8, 10, 9, 6, 9]],
    ),
    (
        "N:A8.8763.QJ92.J92 4.AKQ952.87.AQ63 T962.T4.AT3.T875 KQJ753.J.K654.K4",
        [[3, 4, 2, 3, 2], [10, 9, 11, 10, 10], [3, 4, 2, 3, 2], [10, 9, 11, 10, 10]],
    ),
    (
        "N:K9875.62.KT63.J9 AJ643.JT8.4.AT53 Q.AKQ9753.J.K742 T2.4.AQ98752.Q86",
        [[7, 5, 8, 6, 8], [6, 8, 5, 7, 5], [7, 5, 8, 6, 8], [5, 8, 4, 7, 5]],
    ),
    (
        "N:KJ7.Q52.984.AK42 A3.K64.KQ53.T653 8654.A873.AT2.Q7 QT92.JT9.J76.J98",
        [[7, 7, 7, 8, 7], [6, 6, 5, 5, 6], [6, 7, 7, 8, 7], [6, 6, 5, 5, 6]],
    ),
    (
        "N:T42.8732.J8.A532 83.KQJ.KQ943.KT8 A9765.A654..QJ64 KQJ.T9.AT7652.97",
        [[7, 3, 8, 8, 4], [5, 10, 5, 5, 8], [7, 3, 7, 8, 4], [5, 10, 5, 5, 8]],
    ),
    (
        "N:J63.87653.KT.KT8 72.AKQT942.97.AJ T9854.J.A4.96432 AKQ..QJ86532.Q75",
        [[5, 2, 1, 5, 1], [7, 11, 11, 7, 11], [5, 2, 1, 5, 1], [7, 11, 11, 7, 11]],
    ),
    (
        "N:Q752.943.Q4.A986 T64.A65.A863.KQ5 K98.K72.KJT72.72 AJ3.QJT8.95.JT43",
        [[5, 7, 5, 7, 5], [8, 6, 8, 6, 7], [5, 7, 5, 7, 5], [8, 6, 8, 6, 7]],
    ),
    (
        "N:8542.K852.AK.A32 76.T94.QJT9764.6 AQJ3.J6.2.KQJ754 KT9.AQ73.853.T98",
        [[11, 5, 8, 11, 10], [2, 8, 4, 2, 2], [11, 5, 8, 11, 11], [2, 8, 4, 2, 2]],
    ),
    (
        "N:Q65.Q74.87.KT853 T42.AK932.KT5.76 9.T865.Q96432.J9 AKJ873.J.AJ.AQ42",
        [[4, 5, 3, 2, 2], [9, 8, 9, 11, 11], [4, 5, 3, 2, 2], [9, 8, 9, 11, 11]],
    ),
    (
        "N:A5.AJT975.852.75 Q.K2.AJ97.QT8632 JT987.64.T64.AJ9 K6432.Q83.KQ3.K4",
        [[4, 3, 7, 6, 6], [9, 9, 6, 6, 6], [4, 3, 7, 6, 6], [9, 9, 6, 6, 6]],
    ),
    (
        "N:962.QT542.QJ.A64 Q53.AKJ.K762.K95 J7.86.T9853.QJ87 AKT84.973.A4.T32",
        [[4, 4, 4, 2, 2], [8, 8, 9, 11, 11], [4, 4, 4, 2, 2], [8, 8, 9, 11, 11]],
    ),
    (
        "N:Q965.KQT763.K7.2 832.J98.Q5432.97 JT74.2.AJ.AKQ653 AK.A54.T986.JT84",
        [[9, 6, 9, 10, 7], [4, 7, 4, 3, 4], [9, 6, 9, 10, 7], [4, 7, 4, 3, 4]],
    ),
    (
        "N:T984.853.T2.7642 K632.J.K76543.QJ AQJ7.A6.J98.AK93 5.KQT9742.AQ.T85",
        [[8, 5, 4, 8, 4], [5, 8, 9, 5, 6], [8, 5, 4, 8, 4], [4, 7, 9, 5, 5]],
    ),
    (
        "N:K974.KT95.975.J2 AJ652.QJ.KJ2.QT4 T83.7643.T43.983 Q.A82.AQ86.AK765",
        [[0, 0, 2, 2, 1], [13, 12, 11, 10, 12], [0, 0, 2, 2, 1], [13, 12, 11, 11, 12]],
    ),
    (
        "N:AQ632.AQ8.7.KQT4 JT7.632.AQ942.A7 98.9754.J85.9852 K54.KJT.KT63.J63",
        [[9, 5, 7, 8, 5], [3, 7, 5, 5, 7], [9, 5, 7, 8, 5], [4, 8, 6, 5, 7]],
    ),
    (
        "N:QJ52.J872.KT.J84 AKT87.QT6.Q985.2 3.AK93.7643.AKT3 964.54.AJ2.Q9765",
        [[8, 7, 9, 5, 7], [4, 6, 4, 7, 5], [8, 6, 9, 5, 5], [5, 6, 4, 7, 5]],
    ),
]


def tiny_dd_file(path: Path) -> Path:
    """The deals above in the npz format of docs/data.md."""
    owners = np.stack([deal_owners(pbn) for pbn, _ in DEALS])
    dd = np.array([table for _, table in DEALS], dtype=np.uint8)
    np.savez(path, owners=owners, dd=dd)
    return path


def test_tiny_file_round_trips_to_pbn(tmp_path: Path) -> None:
    from bridgebot.laws.cards import owners_pbn

    z = np.load(tiny_dd_file(tmp_path / "dd.npz"))
    assert [owners_pbn(o) for o in z["owners"]] == [pbn for pbn, _ in DEALS]


def test_suit_shuffle_keeps_trumps_first_and_permutes() -> None:
    rng = np.random.default_rng(0)
    strain = rng.integers(0, 5, 500)
    order = ddnet.shuffled_suit_order(strain, rng)
    assert np.all(np.sort(order, axis=1) == np.arange(4))
    suit = strain < 4
    assert np.array_equal(order[suit, 0], CANONICAL_SUIT_ORDER[strain[suit], 0])
    # The other suits really move (the shuffle is not the identity).
    assert (order != CANONICAL_SUIT_ORDER[strain]).any(axis=1).mean() > 0.5


def test_training_learns_and_the_export_matches_torch(tmp_path: Path) -> None:
    import torch

    data = tiny_dd_file(tmp_path / "dd.npz")
    cfg = DDNetConfig(
        data=str(data), out=str(tmp_path / "model"), epochs=4, batch=32, lr=3e-3, hidden=(32,),
        threads=1,
    )  # fmt: skip
    net, metrics = ddnet.train(cfg, held_out=4)
    assert metrics["train_deals"] == 12 and metrics["held_out_deals"] == 4
    losses = metrics["epoch_loss"]
    assert losses[-1] < losses[0] < 2.8  # from about ln 14 down
    _, held = ddnet.load_split(str(data), 4)
    training = Training(kind="ddnet", command="test", config=cfg.model_dump(mode="json"))
    card = ddnet.export(net, tmp_path / "model", training, metrics, held["owners"][:16])
    assert card.export.parity_max_abs_diff is not None and card.export.parity_max_abs_diff < 1e-4
    est = DDEstimator(tmp_path / "model")
    owners = held["owners"]
    deal, declarer, strain = full_table_rows(owners)
    with torch.no_grad():
        want = net(torch.from_numpy(encode_rows(owners[deal], declarer, strain))).numpy()
    got = est.logits(owners[deal], declarer, strain)
    assert np.allclose(got, want, atol=1e-4)
    assert np.array_equal(est.tables(owners).reshape(-1), want.argmax(axis=1))
    assert est.model.card == card and card.feature_version == "ddnet-rows209-v1"
    assert card.training.config["hidden"] == [32] and card.network["hidden"] == [32]


def test_several_files_train_on_all_but_the_last_file_s_held_out_deals(tmp_path: Path) -> None:
    """``--deals`` repeats: the files are read in order, and only the last file's last deals are
    held out, as the league splits its files."""
    import argparse

    from bridgebot.models.config import add_config_arguments, config_from_args
    from bridgebot.models.data import DataError

    first = tiny_dd_file(tmp_path / "a.npz")
    z = np.load(first)
    second = tmp_path / "b.npz"
    np.savez(second, owners=z["owners"][::-1], dd=z["dd"][::-1])
    n = len(z["owners"])
    train, held = ddnet.load_split([str(first), str(second)], 4)
    assert len(train["owners"]) == 2 * n - 4 and len(held["owners"]) == 4
    assert np.array_equal(train["owners"][:n], z["owners"])
    assert np.array_equal(held["owners"], z["owners"][::-1][-4:])
    assert np.array_equal(held["dd"], z["dd"][::-1][-4:])
    # One file is the one-element case, and a card's single path still reads as one.
    assert np.array_equal(ddnet.load_split(str(first), 4)[1]["owners"], z["owners"][-4:])
    assert DDNetConfig(data=str(first), out="m").data == (str(first),)
    parser = argparse.ArgumentParser()
    add_config_arguments(parser, DDNetConfig)
    args = parser.parse_args(["--deals", str(first), "--deals", str(second), "--out", "m"])
    assert config_from_args(DDNetConfig, args).data == (str(first), str(second))
    with pytest.raises(DataError):
        ddnet.load_split([], 4)
