"""Tests for engine.belief: the particle sampler, the model sidecar check, belief-guided search."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.belief import (
    N_OUTPUTS,
    OUTPUT_VERSION,
    BeliefNet,
    BeliefSampler,
    owner_distribution,
    sample_owners,
)
from bridgebot.engine.features import N_FEATURES, hand_to_array
from bridgebot.engine.modelcard import ModelError, Training
from bridgebot.engine.search import BorelSearch
from bridgebot.laws.calls import bid_index, legal_calls
from endplay.types import Player, Vul
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgebot.agents import AgentSpecError, make_agent
from bridgebot.shipped import shipped_model
from tests.engine.test_search import (
    ROCK,
    SEVEN_NT,
    full_pbn,
    pass_or_grand_policy,
    view_for,
)
from tests.policies import write_gemm

BELIEF_DIR = shipped_model("belief")

SPADES = np.arange(13)  # data-file order: spades are cards 0..12


def write_linear_belief(directory: Path, weight: np.ndarray, bias: np.ndarray) -> Path:
    """A one-layer belief model (Gemm) with a valid sidecar, in the layout engine.belief reads."""
    return write_gemm(
        directory, "belief.onnx", "rows", weight, bias,
        Training(kind="belief", command="tests: spades with the left-hand opponent"),
        OUTPUT_VERSION,
    )  # fmt: skip


def spades_with_lho(directory: Path) -> Path:
    """Says the left-hand opponent holds every spade we do not (and knows nothing else)."""
    bias = np.zeros((3, 52))
    bias[:, SPADES] = -20.0
    bias[0, SPADES] = 20.0
    return write_linear_belief(directory, np.zeros((N_OUTPUTS, N_FEATURES)), bias.reshape(-1))


def random_hand(rng: np.random.Generator) -> np.ndarray:
    hand = np.zeros(52, dtype=np.uint8)
    hand[rng.choice(52, 13, replace=False)] = 1
    return hand


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), seat=st.integers(0, 3), n=st.integers(1, 40))
def test_sampler_keeps_our_hand_and_deals_thirteen_each(seed: int, seat: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    hand = random_hand(rng)
    # Arbitrary, lopsided beliefs (some cards "certainly" at one seat, even over capacity).
    weights = rng.random((3, 52)) ** 4
    weights[rng.integers(0, 3), :20] = 50.0
    owners = sample_owners(owner_distribution(weights, hand), seat, hand, n, rng)
    assert owners.shape == (n, 52) and owners.dtype == np.uint8
    assert (owners[:, hand == 1] == seat).all()
    for s in range(4):
        assert ((owners == s).sum(axis=1) == 13).all()


def test_sampler_follows_the_belief() -> None:
    rng = np.random.default_rng(0)
    hand = hand_to_array_from_cards([13, 14, 15, 26, 27, 28, 29, 39, 40, 41, 42, 43, 0])
    # Every spade we lack is LHO's, hearts are partner's or RHO's (1:3), the rest unknown.
    w = np.ones((3, 52))
    w[:, SPADES] = [[1.0], [0.0], [0.0]]
    w[0, 13:26] = 0.0
    w[1, 13:26] = 1.0
    w[2, 13:26] = 3.0
    owners = sample_owners(owner_distribution(w, hand), 2, hand, 2000, rng)
    unseen_spades = [c for c in SPADES if hand[c] == 0]
    # West (seat 2 + 1) is the left-hand opponent; weight 0 still keeps the sampler's floor.
    assert (owners[:, unseen_spades] == 3).mean() > 0.999
    hearts = [c for c in range(13, 26) if hand[c] == 0]
    at_rho = (owners[:, hearts] == 1).mean()  # East, seat 2 + 3
    assert (owners[:, hearts] == 3).mean() < 0.001
    assert 0.70 < at_rho < 0.80  # 3:1 against partner, bent a little by the capacities


def hand_to_array_from_cards(cards: list[int]) -> np.ndarray:
    hand = np.zeros(52, dtype=np.uint8)
    hand[cards] = 1
    return hand


def test_sampler_refuses_a_hand_without_thirteen_cards() -> None:
    with pytest.raises(ValueError, match="12 cards"):
        sample_owners(
            np.ones((3, 52)), 0, np.r_[np.ones(12), np.zeros(40)], 4, np.random.default_rng()
        )


def test_belief_sampler_reads_the_network(tmp_path: Path) -> None:
    net = BeliefNet(spades_with_lho(tmp_path / "b"))
    view = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    feats, _ = BorelSearch.observation(view)
    probs = net.probabilities(feats)
    assert probs.shape == (1, 3, 52) and probs[0, 0, 5] > 0.99 and probs[0, 1, 5] < 1e-6
    hand = hand_to_array(view.hand)
    owners = BeliefSampler(net).sample(feats[0], 2, hand, 200, np.random.default_rng(1))
    lacking = [c for c in SPADES if hand[c] == 0]
    assert lacking and (owners[:, lacking] == 3).mean() > 0.99


def test_model_with_an_unknown_feature_version_is_refused(tmp_path: Path) -> None:
    directory = spades_with_lho(tmp_path / "b")
    meta = json.loads((directory / "model.json").read_text())
    (directory / "model.json").write_text(json.dumps(dict(meta, feature_version="other-v9")))
    with pytest.raises(ModelError, match="other-v9"):
        BeliefNet(directory)
    (directory / "model.json").write_text(json.dumps(dict(meta, output_version="x")))
    with pytest.raises(ModelError, match="output layout"):
        BeliefNet(directory)
    with pytest.raises(ModelError, match="no model"):
        BeliefNet(tmp_path / "missing")


def test_shipped_belief_model_loads_and_is_small(tmp_path: Path) -> None:
    net = BeliefNet(BELIEF_DIR)
    assert (BELIEF_DIR / "belief.onnx").stat().st_size < 1.5e6
    metrics = net.model.card.metrics
    assert metrics["owner_loglik_per_card"] > metrics["uniform_loglik_per_card"]
    shutil.copytree(BELIEF_DIR, tmp_path / "copy")
    meta = json.loads((tmp_path / "copy" / "model.json").read_text())
    (tmp_path / "copy" / "model.json").write_text(json.dumps(dict(meta, feature_version="v0")))
    with pytest.raises(ModelError):
        BeliefNet(tmp_path / "copy")


def test_belief_guided_search_bids_a_legal_call(tmp_path: Path) -> None:
    model = pass_or_grand_policy(tmp_path / "p").model.onnx_path.parent
    belief = spades_with_lho(tmp_path / "b")
    spec = (
        f"search:{model},dd=solver,sampler=belief,belief={belief},particles=16,rollouts=8,r_min=2"
    )
    agent = make_agent(spec, seed=3)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    agent.reset(1)
    call = agent.bid(rock)
    assert bid_index(call) == SEVEN_NT
    assert agent.last is not None and agent.last.searched  # type: ignore[attr-defined]
    with pytest.raises(AgentSpecError, match="sampler must be"):
        make_agent(f"search:{model},sampler=oracle")
    with pytest.raises(AgentSpecError, match="no model"):
        make_agent(f"search:{model},sampler=belief,belief={tmp_path / 'nothing'}")


def test_shipped_models_searched_call_is_legal() -> None:
    """The shipped policy, belief net and DD estimator together, mid-auction: a legal call."""
    agent = make_agent("search,sampler=belief,particles=64,rollouts=16", seed=0)
    auction = [bid_index_of("1H"), 1]  # 1H by East, double by South; West to call
    pbn = "N:98763.83.96.AQT8 AK5.QT95.KT2.K64 Q42.KJ62.753.J93 JT.A74.AQJ84.752"
    view = view_for(pbn, Player.west, Player.east, auction, Vul.both)
    agent.reset(7)
    call = agent.bid(view)
    assert any(bid_index(call) == bid_index(c) for c in legal_calls(Player.east, view.auction))


def bid_index_of(text: str) -> int:
    from endplay.types import Bid

    return bid_index(Bid(text))


def test_search_agent_defaults_to_belief_particles_with_the_filter(tmp_path: Path) -> None:
    model = pass_or_grand_policy(tmp_path / "p").model.onnx_path.parent
    default = make_agent(f"search:{model}").search  # type: ignore[attr-defined]
    assert isinstance(default.sampler, BeliefSampler) and default.config.filter
    off = make_agent(f"search:{model},filter=0").search  # type: ignore[attr-defined]
    assert isinstance(off.sampler, BeliefSampler) and not off.config.filter
    uniform = make_agent(f"search:{model},sampler=uniform").search  # type: ignore[attr-defined]
    assert not isinstance(uniform.sampler, BeliefSampler) and uniform.config.filter
