"""The convention in the loop: the learner's pair plays the shipped layers; only its own calls count."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from bridgebot.engine import control_ask as A
from bridgebot.engine.control_layer import ControlAsking
from bridgebot.engine.explain import hcp
from bridgebot.engine.features import auction_from_observation, encode
from bridgebot.models.config import LeagueConfig
from bridgebot.models.convention import Layers, convention_chooser, view_of
from bridgebot.models.data import run_auctions
from bridgebot.models.league.choosers import load_policy
from bridgebot.models.selfplay import Recorder

from bridgebot.agents import make_agent
from tests.models.test_league import DOUBLES
from tests.policies import LAYERED, layered

pytestmark = pytest.mark.train


def strong_deals(n: int, seed: int = 5) -> np.ndarray:
    """Random deals where North-South hold 30+ HCP: owners uint8[n, 52] (seat of each card)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        owners = np.stack([rng.permutation(np.repeat(np.arange(4), 13)) for _ in range(4000)])
        ns = np.stack([hcp((owners == s).astype(np.uint8)) for s in (0, 2)]).sum(axis=0)
        out.extend(owners[ns >= 30].astype(np.uint8))
    return np.stack(out[:n])


@pytest.fixture(scope="module")
def bid() -> dict[str, object]:
    """North-South the shipped net with the shipped layers on top, East-West passing, on
    strong deals; the auctions, the recorder and what the chooser was asked."""
    owners = strong_deals(160)
    b = len(owners)
    layers = Layers.of_agent(make_agent, layered("default"))
    net = load_policy(str(LAYERED)).eval()
    rec = Recorder()
    seen: list[tuple[np.ndarray, np.ndarray]] = []
    inner = convention_chooser(
        layers, net, torch.device("cpu"), torch.Generator().manual_seed(0), rec, 0.0
    )

    def us(rows, x, mask):  # type: ignore[no-untyped-def]
        seen.append((rows, x))
        return inner(rows, x, mask)

    def passer(rows, x, mask):  # type: ignore[no-untyped-def]
        return np.zeros(len(rows), np.int64)

    who = np.tile(np.array([0, 1, 0, 1]), (b, 1))
    dealer = np.zeros(b, np.int64)
    auctions = run_auctions(owners, dealer, np.zeros(b, np.int64), who, [us, passer])
    return {"owners": owners, "auctions": auctions, "rec": rec, "seen": seen}


def test_a_view_rebuilt_from_the_observation_encodes_to_it(bid: dict[str, object]) -> None:
    seen = bid["seen"]
    assert isinstance(seen, list)
    for _, x in seen[:6]:
        for row in x[:40]:
            assert np.array_equal(encode(view_of(row, auction_from_observation(row))), row)


def test_the_pair_asks_and_its_forced_calls_are_the_shipped_agents(bid: dict[str, object]) -> None:
    """Where the pair asked, partner's answer and the asker's decision are what the shipped
    agent calls there, seated at the real deal."""
    from bridgebot.engine.agent import bidding_view
    from bridgebot.laws.calls import ALL_CALLS
    from bridgebot.laws.cards import owners_pbn
    from endplay.types import Deal, Player, Vul

    from bridgebot.agents import make_agent

    owners, auctions = bid["owners"], bid["auctions"]
    assert isinstance(owners, np.ndarray) and isinstance(auctions, np.ndarray)
    agent = make_agent(layered("default"))
    asks = 0
    for b, row in enumerate(auctions):
        calls = [int(c) for c in row if c >= 0]
        deal = Deal(owners_pbn(owners[b]))
        for i in range(len(calls) - 4):
            if not (A.is_ask(calls, i) and calls[i + 1] == 0 and calls[i + 3] == 0):
                continue
            asks += 1
            answerer = (i + 2) % 4  # dealer North: seat i % 4 made call i
            hand = (owners[b] == answerer).astype(np.uint8)
            assert calls[i + 2] == A.FIVE_C + int(A.control_step(A.controls(hand)))
            for k in (i + 2, i + 4):
                before = [ALL_CALLS[c] for c in calls[:k]]
                view = bidding_view(
                    dealer=Player.north, vul=Vul.none, hand=deal[Player(k % 4)],
                    auction=before, board=1,
                )  # fmt: skip
                assert agent.bid(view) == ALL_CALLS[calls[k]]
    assert asks >= 5, asks


def test_only_the_networks_own_calls_are_recorded(bid: dict[str, object]) -> None:
    """Each recorded decision is the call the auction holds there; the forced ones are not
    among them, and the layers changed some (fewer recorded than the pair's calls)."""
    rec, auctions, seen = bid["rec"], bid["auctions"], bid["seen"]
    assert isinstance(rec, Recorder) and isinstance(auctions, np.ndarray)
    assert isinstance(seen, list)
    rows, x = np.concatenate(rec.rows), np.concatenate(rec.x)
    action = np.concatenate(rec.action)
    assert len(rows) == len(x) == len(action) == len(np.concatenate(rec.logp))
    for r, obs, a in zip(rows, x, action, strict=True):
        prefix = auction_from_observation(obs)
        assert auctions[r, len(prefix)] == a
        assert A.role(prefix) is None
    served = sum(len(r) for r, _ in seen)
    forced = sum(A.role(auction_from_observation(o)) is not None for _, x_ in seen for o in x_)
    assert forced > 0 and len(rows) < served - forced


def test_the_layered_greedy_network_bids_what_the_shipped_agent_bids() -> None:
    """The league's frozen copies (greedy, with the layers) are the shipped agent, call for
    call, on strong deals (the layers busy)."""
    from bridgebot.engine.agent import bidding_view
    from bridgebot.laws.calls import ALL_CALLS, auction_over
    from bridgebot.laws.cards import owners_pbn
    from bridgebot.models.league.choosers import opponent_chooser
    from endplay.types import Deal, Player, Vul

    owners = strong_deals(48, seed=8)
    b = len(owners)
    layers = Layers.of_agent(make_agent, layered("default"))
    us = opponent_chooser(load_policy(str(LAYERED)).eval(), torch.device("cpu"), layers=layers)
    who = np.tile(np.array([0, 1, 0, 1]), (b, 1))
    auctions = run_auctions(
        owners, np.zeros(b, np.int64), np.zeros(b, np.int64), who,
        [us, lambda rows, x, mask: np.zeros(len(rows), np.int64)],
    )  # fmt: skip
    agent = make_agent(layered("default"))
    asks = 0
    for i in range(b):
        deal = Deal(owners_pbn(owners[i]))
        calls: list = []
        while not auction_over(calls):
            seat = Player(len(calls) % 4)
            if seat in (Player.east, Player.west):
                calls.append(ALL_CALLS[0])
                continue
            view = bidding_view(
                dealer=Player.north, vul=Vul.none, hand=deal[seat], auction=calls, board=1
            )
            calls.append(agent.bid(view))
        got = [int(c) for c in auctions[i] if c >= 0]
        assert [ALL_CALLS[c] for c in got] == calls, i
        asks += any(A.is_ask(got, k) for k in range(len(got)))
    assert asks >= 3, asks


def test_the_league_trains_with_the_convention(tmp_path: Path) -> None:
    from bridgebot.models.league.mix import LeagueError
    from bridgebot.models.league.run import train_league

    from tests.models.test_train import small_dd

    cfg = LeagueConfig(
        init=str(LAYERED), dd=(str(small_dd(tmp_path / "dd.npz", 2100)),), convention=layered("default"),
        out=str(tmp_path / "run"), gens=1, learner_iters=1, exploiter_iters=1, deals_per_iter=16,
        eval_deals=32, minibatch=64, mix="self=1",
    )  # fmt: skip
    assert train_league(cfg, make_agent=make_agent, doubles=DOUBLES)["gens_done"] == 1
    for spec, says in (("nosuch", "unknown agent 'nosuch'"), ("bfg", "agent 'bfg' has neither")):
        with pytest.raises(LeagueError, match=f"--convention: {says}"):
            train_league(
                cfg.model_copy(update={"convention": spec}), make_agent=make_agent, doubles=DOUBLES
            )


def test_the_estimators_trained_in_the_loop_start_as_the_agents_and_export(tmp_path: Path) -> None:
    """The twins give the ONNX estimators' logits before training; a league generation trains
    them, saves them in its checkpoint and exports them as a slam directory the agents load."""
    from bridgebot.engine.control_estimator import ControlEstimator
    from bridgebot.engine.slams import SlamEstimator
    from bridgebot.models.convention import Listeners
    from bridgebot.models.league.mix import LeagueError
    from bridgebot.models.league.run import train_league

    from tests.models.test_train import small_dd

    layers = Layers.of_agent(make_agent, layered("default"))
    assert layers.slam is not None and isinstance(layers.convention, ControlAsking)
    x = np.random.default_rng(3).integers(0, 2, (64, 480)).astype(np.float32)
    twins = Listeners(layers, 1e-3)
    assert twins.layers.slam is not None
    assert np.allclose(twins.layers.slam.logits(x), layers.slam.logits(x), atol=1e-4)
    steps = np.arange(64) % 7
    twin_controls = twins.layers.convention
    assert isinstance(twin_controls, ControlAsking)
    for a, b in zip(
        twin_controls.controls.chances(x, steps),
        layers.convention.controls.chances(x, steps),
        strict=True,
    ):
        assert np.allclose(a, b, atol=1e-4)

    cfg = LeagueConfig(
        init=str(LAYERED), dd=(str(small_dd(tmp_path / "dd.npz", 2100)),), convention=layered("default"),
        estimators_lr=1e-3, out=str(tmp_path / "run"), gens=1, learner_iters=2, exploiter_iters=1,
        deals_per_iter=64, eval_deals=32, minibatch=64, mix="self=1,init=1",
    )  # fmt: skip
    train_league(cfg, make_agent=make_agent, doubles=DOUBLES)
    run = tmp_path / "run"
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    heard = [e["estimators"] for e in log if e["phase"] == "learn"]
    assert len(heard) == 2 and all(h["examples"] > 64 for h in heard)
    state = torch.load(run / "ckpt.pt", weights_only=False)["listeners"]
    # Read as the agent reads its own (as if the opponents had not doubled).
    slam = SlamEstimator(run / "gen0_slam", their_doubles=layers.slam.their_doubles)
    controls = ControlEstimator(
        run / "gen0_slam" / "controls", their_doubles=layers.convention.controls.their_doubles
    )
    trained = Listeners(layers, 1e-3)
    trained.load_state_dict(state)
    assert trained.layers.slam is not None
    assert np.allclose(slam.logits(x), trained.layers.slam.logits(x), atol=1e-4)
    assert not np.allclose(slam.logits(x), layers.slam.logits(x), atol=1e-4)  # it learned
    assert slam.thresholds == layers.slam.thresholds
    assert isinstance(trained.layers.convention, ControlAsking)
    assert np.allclose(
        controls.chances(x, steps)[0],
        trained.layers.convention.controls.chances(x, steps)[0],
        atol=1e-4,
    )
    again = train_league(cfg.model_copy(update={"gens": 2}), make_agent=make_agent, doubles=DOUBLES)
    assert again["gens_done"] == 2 and (run / "gen1_slam" / "slam.onnx").exists()
    with pytest.raises(LeagueError, match="--estimators-lr needs --convention"):
        train_league(
            cfg.model_copy(update={"convention": None}), make_agent=make_agent, doubles=DOUBLES
        )
