"""The slam layer (engine.slams): who declares each strain, the rule on observations, the
estimator's model directory, and the layer inside the policy agent."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.features import encode_arrays, legal_masks_arrays
from bridgebot.engine.parts import layer_of, parts_of
from bridgebot.engine.slams import (
    N_CLASSES,
    N_OUTPUTS,
    SLAM_DIR,
    SlamLayer,
    Thresholds,
    declarer_rel,
    estimator_dir,
    slam_calls,
    slam_probs,
)
from bridgebot.laws.calls import FIRST_BID

from bridgebot.agents import AgentSpecError, make_agent
from bridgebot.shipped import DEFAULT_MODEL_DIR

C, D, H, S, NT = range(5)
PASS, X = 0, 1


def bid(level: int, strain: int) -> int:
    return FIRST_BID + 5 * (level - 1) + strain


def observation(auction: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Features and legal mask of the player to call after ``auction`` (dealer first)."""
    hand = np.zeros((1, 52), dtype=np.uint8)
    hand[0, :13] = 1
    a = np.array([auction], dtype=np.int64) if auction else np.full((1, 1), -1, np.int64)
    x = encode_arrays(hand, np.array([len(auction) % 4]), np.array([False]),
                      np.array([False]), a)  # fmt: skip
    return x, legal_masks_arrays(a)


def logits_for(p12: dict[int, float], p13: dict[int, float] | None = None) -> np.ndarray:
    """Estimator logits whose chances of 12+ and 13 tricks are the ones given (others ~0)."""
    p13 = p13 or {}
    probs = np.full((5, N_CLASSES), 1e-6)
    probs[:, 0] = 1.0
    for strain in range(5):
        hi, top = p12.get(strain, 0.0), p13.get(strain, 0.0)
        probs[strain] = [max(1 - hi, 1e-6), max(hi - top, 1e-6), max(top, 1e-6)]
    return np.log(probs).reshape(1, N_OUTPUTS).astype(np.float32)


def run(auction: list[int], policy_call: int, slam: np.ndarray, **t: float) -> int:
    x, mask = observation(auction)
    policy_logits = np.zeros((1, 38), dtype=np.float32)
    policy_logits[0, policy_call] = 5.0
    out = slam_calls(x, mask, policy_logits, np.array([policy_call]), slam, Thresholds(**t))
    return int(out[0])


def test_declarer_of_each_strain_is_the_first_of_our_side_to_name_it() -> None:
    # Dealer (partner of the player to call, 2 seats back... here: 4 calls made, we are dealer's
    # seat again): we opened 1H, LHO passed, partner bid 1S, RHO passed; our call.
    x, _ = observation([bid(1, H), PASS, bid(1, S), PASS])
    rel = declarer_rel(x)[0]
    assert rel[H] == 0 and rel[S] == 2
    assert rel[C] == rel[D] == rel[NT] == 0  # nobody named them: we would
    # An opponent's bid in a strain does not make them our declarer: RHO opened 1NT.
    x, _ = observation([bid(1, NT)])
    assert declarer_rel(x)[0][NT] == 0
    # Partner opened 1NT in second seat (LHO dealt and passed).
    x, _ = observation([PASS, bid(1, NT), PASS])
    assert declarer_rel(x)[0][NT] == 2


def test_probabilities_read_the_three_classes() -> None:
    p12, p13 = slam_probs(logits_for({S: 0.8}, {S: 0.3}))
    assert abs(p12[0, S] - 0.8) < 1e-3 and abs(p13[0, S] - 0.3) < 1e-3
    assert p12[0, H] < 1e-3


def test_the_layer_bids_the_slam_over_the_policys_game() -> None:
    opened = [bid(1, NT), PASS]  # partner opened 1NT: our call, the policy wants 3NT
    assert run(opened, bid(3, NT), logits_for({NT: 0.9})) == bid(6, NT)
    assert run(opened, bid(3, NT), logits_for({NT: 0.9}, {NT: 0.9})) == bid(7, NT)
    # Not likely enough: the policy's 3NT stands.
    assert run(opened, bid(3, NT), logits_for({NT: 0.5})) == bid(3, NT)
    # The best strain is the one likeliest to make 12 tricks.
    assert run(opened, bid(3, NT), logits_for({NT: 0.8, S: 0.95})) == bid(6, S)


def test_the_layer_bids_the_slam_over_a_pass_of_partners_game_only() -> None:
    game = [bid(4, S), PASS]  # partner bid 4S, RHO passed: our pass leaves us in game
    assert run(game, PASS, logits_for({S: 0.9})) == bid(6, S)
    theirs = [bid(4, S)]  # RHO bid 4S: a pass leaves them in it
    assert run(theirs, PASS, logits_for({S: 0.9})) == PASS
    # Below the three level (a 2C response) nothing changes, however strong.
    assert run([bid(1, NT), PASS], bid(2, C), logits_for({NT: 0.99})) == bid(2, C)
    # A double is the opponents' contract.
    assert run(theirs, X, logits_for({NT: 0.99})) == X


def test_a_slam_the_policy_bids_is_kept_only_when_likely() -> None:
    x, mask = observation([bid(1, NT), PASS])
    policy_logits = np.zeros((1, 38), dtype=np.float32)
    policy_logits[0, bid(6, NT)] = 5.0
    policy_logits[0, bid(3, NT)] = 4.0  # the policy's best call below the slam
    t = Thresholds(small=0.75, grand=0.8, keep=0.5)
    calls = np.array([bid(6, NT)])
    kept = slam_calls(x, mask, policy_logits, calls, logits_for({NT: 0.6}), t)
    assert int(kept[0]) == bid(6, NT)
    vetoed = slam_calls(x, mask, policy_logits, calls, logits_for({NT: 0.2}), t)
    assert int(vetoed[0]) == bid(3, NT)
    # A grand is judged on 13 tricks: vetoed to the policy's best call below the seven level.
    policy_logits[0, bid(7, NT)] = 6.0
    grand = np.array([bid(7, NT)])
    small_only = logits_for({NT: 0.9}, {NT: 0.1})
    assert int(slam_calls(x, mask, policy_logits, grand, small_only, t)[0]) == bid(6, NT)
    sure = logits_for({NT: 0.95}, {NT: 0.9})
    assert int(slam_calls(x, mask, policy_logits, grand, sure, t)[0]) == bid(7, NT)


def test_the_grand_from_partners_small_slam() -> None:
    six = [bid(6, H), PASS]
    assert run(six, PASS, logits_for({H: 0.99}, {H: 0.95})) == bid(7, H)
    assert run(six, PASS, logits_for({H: 0.99}, {H: 0.5})) == PASS


def test_estimator_dir_is_found_only_with_its_onnx(tmp_path: Path) -> None:
    assert estimator_dir(tmp_path) is None
    (tmp_path / SLAM_DIR).mkdir()
    assert estimator_dir(tmp_path) is None
    (tmp_path / SLAM_DIR / "slam.onnx").write_bytes(b"")
    assert estimator_dir(tmp_path) == tmp_path / SLAM_DIR


@pytest.mark.train
def test_the_policy_agent_serves_a_trained_estimator_and_refuses_a_broken_one(
    tmp_path: Path,
) -> None:
    from bridgebot.models import slamnet_fit

    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model, ignore=shutil.ignore_patterns("__*", SLAM_DIR))
    x = np.zeros((64, 480), dtype=np.uint8)
    x[:, 428:441] = 1
    y = np.zeros((64, 5), dtype=np.int8)
    net = slamnet_fit.fit(x, y, (8,), 1, 1e-3, 0, minibatch=32)
    from bridgebot.engine.modelcard import Training
    from bridgebot.models.ddnet import write_mlp

    card = {
        "feature_version": "openspiel480-v1",
        "output_version": "slam-tricks3-v1",
        "training": Training(kind="slamnet", command="test"),
        "notes": {"thresholds": {"small": 0.9, "grand": 0.95, "keep": 0.1}},
    }
    write_mlp(net, model / SLAM_DIR, "slam.onnx", x[:8].astype(np.float32), card)
    layer = layer_of(parts_of(make_agent(f"policy:{model}")), SlamLayer)
    assert layer is not None and layer.estimator.thresholds == Thresholds(0.9, 0.95, 0.1)
    assert layer_of(parts_of(make_agent(f"policy:{model},slams=off")), SlamLayer) is None
    # A card that promises another output layout is refused with the file named.
    path = model / SLAM_DIR / "model.json"
    raw = json.loads(path.read_text())
    raw["output_version"] = "slam-tricks9-v0"
    path.write_text(json.dumps(raw))
    with pytest.raises(AgentSpecError, match="slam"):
        make_agent(f"policy:{model}")


def constant_estimator(model: Path, p12: float) -> None:
    """A slam estimator that says ``p12`` for 12+ tricks at notrump, whatever it sees (a peer
    for the agents' wiring: the layer's rule has its own tests above)."""
    import torch
    from bridgebot.engine.modelcard import Training
    from bridgebot.models.ddnet import build_net, write_mlp

    net = build_net((4,), 480, N_OUTPUTS)
    with torch.no_grad():
        for m in net:
            if isinstance(m, torch.nn.Linear):
                m.weight.zero_()
                m.bias.zero_()
        net[-1].bias.copy_(torch.from_numpy(logits_for({NT: p12})[0]))
    card = {
        "feature_version": "openspiel480-v1",
        "output_version": "slam-tricks3-v1",
        "training": Training(kind="slamnet", command="test: a constant estimator"),
        "notes": {"thresholds": {"small": 0.75, "grand": 0.8, "keep": 0.5}},
    }
    write_mlp(net, model / SLAM_DIR, "slam.onnx", np.zeros((4, 480), np.float32), card)


@pytest.mark.train
@pytest.mark.parametrize("spec", ["policy", "search"])
def test_both_agents_bid_the_slam_the_estimator_sees(tmp_path: Path, spec: str) -> None:
    from bridgebot.engine.agent import bidding_view
    from bridgebot.laws.calls import ALL_CALLS
    from endplay.types import Hand, Player, Vul

    model = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, model, ignore=shutil.ignore_patterns("__*", SLAM_DIR))
    constant_estimator(model, 0.95)
    options = ",particles=64,rollouts=8" if spec == "search" else ""
    # North bid 4S, East passed: South's pass would leave North-South in game.
    auction = [ALL_CALLS[bid(4, S)], ALL_CALLS[PASS]]
    view = bidding_view(Player.north, Vul.none, Hand("5432.5432.432.32"), auction, 1)
    with make_agent(f"{spec}:{model}{options}") as agent:
        assert agent.bid(view) == ALL_CALLS[bid(6, NT)]
    with make_agent(f"{spec}:{model}{options},slams=off") as agent:
        assert agent.bid(view) != ALL_CALLS[bid(6, NT)]
    # Not likely enough: the layer leaves the call alone.
    constant_estimator(model, 0.5)
    with make_agent(f"{spec}:{model}{options}") as agent:
        assert agent.bid(view) != ALL_CALLS[bid(6, NT)]
