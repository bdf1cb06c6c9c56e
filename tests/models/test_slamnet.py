"""models.slamnet: the estimator's examples, the threshold choice and the whole command."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.policy import Policy
from bridgebot.engine.slams import SLAM_DIR, Thresholds
from bridgebot.laws.calls import FIRST_BID
from bridgebot.laws.deals import random_owners_batch
from bridgebot.models import slamnet
from bridgebot.models.data import observe

from bridgebot.agents import make_agent
from bridgebot.shipped import DEFAULT_MODEL_DIR

pytestmark = pytest.mark.train


def deals(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Random deals with random DD tables: the labels' bookkeeping is what is tested here."""
    rng = np.random.default_rng(seed)
    return random_owners_batch(seed, 0, n), rng.integers(0, 14, size=(n, 4, 5)).astype(np.uint8)


def test_examples_label_the_tricks_of_each_strains_would_be_declarer() -> None:
    owners, dd = deals(40, 3)
    policy = Policy(DEFAULT_MODEL_DIR)
    x, y = slamnet.self_play_states(policy, owners, dd, np.random.default_rng(0), batch=16)
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
                                [slamnet.policy_chooser(policy)])  # fmt: skip
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
    assert slamnet.choose_thresholds(sweep, 0.7)[0] == b
    assert slamnet.choose_thresholds(sweep, 0.5)[0] == a
    # A threshold that loses IMPs beyond two standard errors is never chosen.
    losing = [*sweep[:2], sweep_row(b, [-1.0] * 25 + [-0.5] * 25, 30, 24, 25), sweep[3]]
    assert slamnet.choose_thresholds(losing, 0.7)[0] == c
    chosen, why = slamnet.choose_thresholds(sweep[:2], 0.7)
    assert chosen is None and "70%" in why


def test_grid_errors_name_the_entry() -> None:
    assert slamnet.parse_grid("0.5,0.6,0.3;0.7,0.8,0.5")[1] == Thresholds(0.7, 0.8, 0.5)
    with pytest.raises(ValueError, match=r"'0\.5,0\.6'"):
        slamnet.parse_grid("0.5,0.6")


def test_the_command_writes_an_estimator_the_agent_serves(tmp_path: Path) -> None:
    owners, dd = deals(60, 5)
    val = tmp_path / "val.npz"
    np.savez(val, owners=owners, dd=dd)
    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model, ignore=shutil.ignore_patterns("__*", SLAM_DIR))
    # The league's split keeps the last file's last 3,000 deals: give it enough deals.
    big = tmp_path / "big.npz"
    o2, d2 = deals(3100, 6)
    np.savez(big, owners=o2, dd=d2)
    done = subprocess.run(
        [sys.executable, "-m", "bridgebot", "train", "slamnet", "--policy", str(model),
         "--dd", str(big), "--val", str(val), "--epochs", "1", "--hidden", "16",
         "--grid", "0.5,0.6,0.3;0.9,0.95,0.1"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "train slamnet: chosen:" in done.stdout and "decisions from 100 deals" in done.stdout
    card = json.loads((model / SLAM_DIR / "model.json").read_text())
    assert card["output_version"] == "slam-tricks3-v1"
    assert card["training"]["kind"] == "slamnet" and "train slamnet" in card["training"]["command"]
    sweep = card["metrics"]["validation"]["sweep"]
    assert len(sweep) == 3 and sweep[0]["thresholds"] is None
    assert set(card["notes"]["thresholds"]) == {"small", "grand", "keep", "low"}
    agent = make_agent(f"policy:{model}")
    assert agent.slam is not None  # type: ignore[attr-defined]
    bad = subprocess.run(
        [sys.executable, "-m", "bridgebot", "train", "slamnet", "--dd", str(big), "--val",
         str(val), "--grid", "0.5;x"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "--grid" in bad.stderr
