"""models.slamnet: the estimator's examples, the threshold choice and the whole command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.parts import layer_of, parts_of
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import SLAM_DIR, SlamLayer, Thresholds
from bridgebot.laws.calls import FIRST_BID
from bridgebot.laws.deals import random_owners_batch
from bridgebot.models import slamnet_data, slamnet_thresholds
from bridgebot.models.data import observe

from bridgebot.agents import make_agent
from tests.in_process import bridgebot
from tests.policies import LAYERED

pytestmark = pytest.mark.train


def deals(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random deals with random DD tables: the labels' bookkeeping is what is tested here."""
    rng = np.random.default_rng(seed)
    return random_owners_batch(seed, 0, n), rng.integers(0, 14, size=(n, 4, 5)).astype(np.uint8)


def test_examples_label_the_tricks_of_each_strains_would_be_declarer() -> None:
    owners, dd = deals(40, 3)
    policy = Policy(LAYERED)
    x, y, *_ = slamnet_data.self_play_states(policy, owners, dd, np.random.default_rng(0), batch=16)
    assert x.shape[1] == 480 and y.shape == (len(x), 5) and len(x) >= 40 * 4
    assert set(np.unique(y)) <= {0, 1, 2}
    # Replay the same auctions and check every label by hand.
    rng = np.random.default_rng(0)
    checked = 0
    for start in range(0, 40, 16):
        o, d = owners[start : start + 16], dd[start : start + 16]
        dealer, vul = rng.integers(0, 4, size=len(o)), rng.integers(0, 4, size=len(o))
        from bridgebot.models.data import run_auctions

        auctions = run_auctions(o, dealer, vul, np.zeros((len(o), 4), np.int64),
                                [slamnet_data.policy_chooser(policy)])  # fmt: skip
        for b in range(len(o)):
            calls = [int(c) for c in auctions[b] if c >= 0]
            for pos in range(len(calls)):
                seat = (int(dealer[b]) + pos) % 4
                xs, _ = observe(o[b : b + 1], dealer[b : b + 1], vul[b : b + 1],
                                auctions[b : b + 1], np.array([pos]))  # fmt: skip
                row = int(np.flatnonzero((x == xs.astype(np.uint8)).all(axis=1))[0])
                for strain in range(5):
                    named = [p for p in range(pos) if calls[p] >= FIRST_BID
                             and (calls[p] - FIRST_BID) % 5 == strain
                             and ((int(dealer[b]) + p) % 4) % 2 == seat % 2]  # fmt: skip
                    declarer = (int(dealer[b]) + named[0]) % 4 if named else seat
                    want = min(max(int(d[b, declarer, strain]) - 11, 0), 2)
                    assert y[row, strain] == want
                checked += 1
        if checked > 60:
            break
    assert checked > 60


def test_each_deal_is_bid_from_the_next_dealer_in_turn() -> None:
    owners, dd = deals(24, 4)
    policy = Policy(LAYERED)
    one = slamnet_data.self_play_states(policy, owners, dd, np.random.default_rng(1), batch=24)
    three = slamnet_data.self_play_states(
        policy, owners, dd, np.random.default_rng(1), batch=24, auctions=3
    )
    # In a batch, the first auction of each deal is the one a single auction gives.
    assert np.isin(one.x.view(f"V{one.x.shape[1]}"), three.x.view(f"V{three.x.shape[1]}")).all()
    assert len(three.x) >= 3 * len(one.x) * 0.8
    # Every example names its deal: the hand in its observation is one of that deal's four.
    from bridgebot.engine.features import decode_hand

    hands = decode_hand(three.x.astype(np.float32))  # [N, 52] the caller's cards
    for row in range(0, len(three.x), 7):
        deal = owners[three.deal[row]]
        assert len({int(deal[c]) for c in np.flatnonzero(hands[row])}) == 1
    # Each deal is dealt from three different dealers: the first call's seat differs.
    firsts = {}
    rng = np.random.default_rng(1)
    for call in slamnet_data.self_play_calls(policy, owners, dd, rng, batch=8, auctions=3):
        if call.pos == 0:
            for deal, seat in zip(call.deal, call.seat, strict=True):
                firsts.setdefault(int(deal), []).append(int(seat))
    assert all(len(set(seats)) == 3 for seats in firsts.values()) and len(firsts) == 24


def test_kind_shares_keep_each_kinds_uniform_share() -> None:
    uniform = np.array([0] * 60 + [1] * 10 + [2] * 20 + [3] * 10)
    extra = np.array([3] * 30 + [2] * 5)
    shares = slamnet_data.kind_shares(uniform, extra)
    w_u, w_x = shares[uniform], shares[extra]
    for kind, n in ((0, 60), (1, 10), (2, 20), (3, 10)):
        total = w_u[uniform == kind].sum() + w_x[extra == kind].sum()
        assert total == pytest.approx(n)
    assert w_x[0] == pytest.approx(10 / 40) and w_u[uniform == 0][0] == 1.0
    assert slamnet_data.kind_shares(uniform, extra) == pytest.approx([1.0, 1.0, 20 / 25, 10 / 40])
    with pytest.raises(ValueError, match="no deal of kind 3"):
        slamnet_data.kind_shares(np.array([0, 1, 2]), np.array([3]))


def test_deal_kinds_read_the_filter_and_the_table() -> None:
    from bridgebot.models.dealfilter import slam_deals

    owners, dd = deals(400, 8)
    dd = np.minimum(dd, 12)
    dd[:200] = np.minimum(dd[:200], 11)  # no slam made on the first half
    dd[200:, 2, 4] = 12  # South makes 6NT on the second
    kinds = slamnet_data.deal_kinds(owners, dd)
    assert ((kinds & 1) == (np.arange(400) >= 200)).all()
    assert ((kinds >> 1) == slam_deals(owners)).all() and (kinds >> 1).any()


def sweep_row(t: Thresholds | None, imps: list[float], bid: int, made: int, on: int) -> dict:
    return {"thresholds": t, "imps_per_board": imps, "bid": bid, "made": made, "bid_on_chance": on}


def test_the_choice_takes_the_most_slams_that_make_often_enough_and_cost_nothing() -> None:
    base = [0.0] * 50
    a, b, c = Thresholds(0.5, 0.6, 0.3), Thresholds(0.6, 0.7, 0.4), Thresholds(0.7, 0.8, 0.5)
    sweep = [
        sweep_row(None, base, 10, 8, 8),
        sweep_row(a, [0.5] * 50, 40, 24, 30),  # 60% making: too few
        sweep_row(b, [0.2] * 50, 30, 24, 25),  # 80%
        sweep_row(c, [0.3] * 50, 20, 18, 18),  # 90%, fewer slams
    ]
    assert slamnet_thresholds.choose_thresholds(sweep, 0.7)[0] == b
    assert slamnet_thresholds.choose_thresholds(sweep, 0.5)[0] == a
    # A threshold that loses IMPs beyond two standard errors is never chosen.
    losing = [*sweep[:2], sweep_row(b, [-1.0] * 25 + [-0.5] * 25, 30, 24, 25), sweep[3]]
    assert slamnet_thresholds.choose_thresholds(losing, 0.7)[0] == c
    chosen, why = slamnet_thresholds.choose_thresholds(sweep[:2], 0.7)
    assert chosen is None and "70%" in why


def test_grid_errors_name_the_entry() -> None:
    assert slamnet_thresholds.parse_grid("0.5,0.6,0.3;0.7,0.8,0.5")[1] == Thresholds(0.7, 0.8, 0.5)
    with pytest.raises(ValueError, match=r"'0\.5,0\.6'"):
        slamnet_thresholds.parse_grid("0.5,0.6")


def card_of(model: Path) -> dict:
    return json.loads((model / SLAM_DIR / "model.json").read_text())


def test_the_command_writes_an_estimator_the_agent_serves(tmp_path: Path) -> None:
    owners, dd = deals(60, 5)
    val = tmp_path / "val.npz"
    np.savez(val, owners=owners, dd=dd)
    model = tmp_path / "model"
    shutil.copytree(LAYERED, model, ignore=shutil.ignore_patterns("__*", SLAM_DIR))
    # The league's split keeps the last file's last 3,000 deals: give it enough deals.
    big = tmp_path / "big.npz"
    o2, d2 = deals(3100, 6)
    np.savez(big, owners=o2, dd=d2)
    done = bridgebot(
        "train", "slamnet", "--policy", str(model), "--deals", str(big), "--val-deals", str(val),
        "--epochs", "1", "--hidden", "16", "--grid", "0.5,0.6,0.3;0.9,0.95,0.1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "train slamnet: chosen:" in done.stdout and "decisions from 100 deals" in done.stdout
    assert card_of(model)["training"]["config"]["auctions"] == 4
    card = card_of(model)
    assert card["output_version"] == "slam-tricks3-v1"
    assert card["training"]["kind"] == "slamnet" and "train slamnet" in card["training"]["command"]
    sweep = card["metrics"]["validation"]["sweep"]
    assert len(sweep) == 3 and sweep[0]["thresholds"] is None
    assert set(card["notes"]["thresholds"]) == {"small", "grand", "keep", "low"}
    assert layer_of(parts_of(make_agent(f"policy:{model}")), SlamLayer) is not None
    bad = bridgebot("train", "slamnet", "--deals", str(big), "--val-deals", str(val),
                    "--grid", "0.5;x")  # fmt: skip
    assert bad.returncode == 2 and "--grid" in bad.stderr


def test_a_slam_rich_file_joins_the_training_deals_with_its_kinds_weights(tmp_path: Path) -> None:
    from bridgebot.models.dealfilter import slam_deals

    big = tmp_path / "big.npz"
    o, d = deals(3100, 6)
    np.savez(big, owners=o, dd=d)
    stream = random_owners_batch(11, 0, 400)
    strong = stream[slam_deals(stream)][:20]
    rich = tmp_path / "rich.npz"
    np.savez(rich, owners=strong, dd=np.full((len(strong), 4, 5), 12, np.uint8))
    val = tmp_path / "val.npz"
    np.savez(val, owners=o[:40], dd=d[:40])
    model = tmp_path / "model"
    shutil.copytree(LAYERED, model, ignore=shutil.ignore_patterns("__*", SLAM_DIR))
    args = ["train", "slamnet", "--policy", str(model),
            "--deals", str(big), "--slam-deals", str(rich), "--val-deals", str(val), "--epochs", "1",
            "--hidden", "8", "--auctions", "1", "--grid", "0.5,0.6,0.3"]  # fmt: skip
    done = bridgebot(*args)
    assert done.returncode == 0, done.stderr
    assert "and 20 slam-rich deals" in done.stdout
    n_u = int((slamnet_data.deal_kinds(o[:100], d[:100]) == 3).sum())
    card = card_of(model)
    assert card["metrics"]["slam_dd_weights_by_kind"][3] == pytest.approx(n_u / (n_u + 20), 1e-4)
    assert any(r["name"] == str(rich) for r in card["training"]["data"])
    # Uniform deals with no slam anywhere cannot price a file of slams: a clear refusal.
    flat = tmp_path / "flat.npz"
    np.savez(flat, owners=o, dd=np.minimum(d, 11))
    args[args.index(str(big))] = str(flat)
    bad = bridgebot(*args)
    assert bad.returncode == 2 and "no deal of kind 3" in bad.stderr


def test_each_example_carries_its_partners_controls() -> None:
    owners, dd = deals(40, 9)
    states = slamnet_data.self_play_states(Policy(LAYERED), owners, dd, np.random.default_rng(3))
    assert states.partner_controls.shape == states.deal.shape
    # The first four calls of every auction are the four seats: their partners are the four
    # hands once each, whose controls (ace 2, king 1) make 12.
    for deal in range(len(owners)):
        first_four = states.partner_controls[states.deal == deal][:4]
        assert first_four.sum() == 12, deal


def test_the_control_estimator_is_written_beside_the_slam_layer(tmp_path: Path) -> None:
    from bridgebot.engine.control_estimator import CONTROLS_DIR, CONTROLS_OUTPUT_VERSION

    big = tmp_path / "big.npz"
    o, d = deals(3100, 6)
    np.savez(big, owners=o, dd=d)
    model = tmp_path / "model"
    shutil.copytree(LAYERED, model, ignore=shutil.ignore_patterns("__*", CONTROLS_DIR))
    with pytest.raises(Exception, match="partner-controls"):
        make_agent(f"default:{model},controls=on")
    with make_agent(f"default:{model}") as agent:
        assert parts_of(agent).convention is None  # unset: off without it
    args = ["train", "slamnet", "--policy", str(model),
            "--deals", str(big), "--epochs", "1", "--hidden", "8", "--auctions", "1"]  # fmt: skip
    # Without --partner-controls the thresholds need validation deals.
    bad = bridgebot(*args)
    assert bad.returncode == 2 and "--val-deals is needed" in bad.stderr
    done = bridgebot(*args, "--partner-controls")
    assert done.returncode == 0, done.stderr
    card = json.loads((model / SLAM_DIR / CONTROLS_DIR / "model.json").read_text())
    assert card["output_version"] == CONTROLS_OUTPUT_VERSION and card["input"]["shape"][1] == 481
    assert card["training"]["config"]["partner_controls"] is True
    # The slam layer itself is untouched, and the shipped agents now play control asking.
    assert card_of(model) == json.loads((LAYERED / SLAM_DIR / "model.json").read_text())
    with make_agent(f"default:{model}") as agent:
        assert parts_of(agent).convention == "controls"
