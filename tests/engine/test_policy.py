"""The ONNX policy at run time: the shipped model, sidecar refusal, batch = single, and a real table.

No torch here: these run with the runtime install (onnxruntime only).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import endplay.parsers.pbn as pbn
import pytest
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.modelcard import ModelError, load_model
from bridgebot.engine.policy import POLICY_MODEL, Policy, PolicyAgent
from bridgebot.laws.boards import dealer_of, vul_of
from bridgebot.laws.calls import auction_over, is_legal_call, legal_calls, same_call, to_call
from bridgebot.laws.deals import random_deal
from endplay.types import Deal, Player, Vul

from bridgebot.agents import AgentSpecError, make_agent
from bridgebot.shipped import DEFAULT_MODEL_DIR


def view(deal: Deal, dealer: Player, vul: Vul, auction: tuple, board: int = 1) -> BiddingView:
    seat = to_call(dealer, auction)
    return BiddingView(
        seat=seat,
        dealer=dealer,
        vul=vul,
        hand=deal[seat],
        auction=auction,
        board=board,
        legal=legal_calls(dealer, auction),
    )


def bid_out(agent: PolicyAgent, deal: Deal, dealer: Player, vul: Vul, board: int = 1) -> tuple:
    agent.reset(board)
    auction: tuple = ()
    while not auction_over(auction):
        call = agent.bid(view(deal, dealer, vul, auction, board))
        assert is_legal_call(dealer, auction, call), (auction, call)
        auction += (call,)
        assert len(auction) < 100
    return auction


@pytest.fixture(scope="module")
def default_agent() -> PolicyAgent:
    agent = make_agent("default,play=baseline,doubled=policy")
    assert isinstance(agent, PolicyAgent)
    return agent


def test_shipped_model_card_says_how_it_was_made() -> None:
    card = load_model(DEFAULT_MODEL_DIR, POLICY_MODEL).card
    assert card.training.command.startswith("bridgebot train")
    assert card.training.data
    # An average of checkpoints draws nothing at random; the run it averages has its seed.
    run = card.training.init if card.training.kind == "average" else card.training.model_dump()
    assert isinstance(run, dict) and run["seed"] is not None and run["command"]
    parity = card.export.parity_max_abs_diff
    # The export's bound is 1e-4 per unit of the largest |logit|; RL policies reach the tens.
    assert card.export.git_commit and parity is not None and parity <= 1e-4 * 64
    assert card.export.parity_same_argmax == 1.0
    assert (DEFAULT_MODEL_DIR / "policy.onnx").stat().st_size < 8 * 2**20


def test_shipped_model_bids_legally_on_fixed_deals(default_agent: PolicyAgent) -> None:
    contracts = 0
    for board in range(1, 17):
        deal = random_deal(2026, board - 1)
        auction = bid_out(default_agent, deal, dealer_of(board), vul_of(board))
        contracts += int(len(auction) > 4)
    assert contracts >= 8  # a bidding model, not a passing machine


def test_shipped_model_opens_strong_hands_and_passes_weak_ones(
    default_agent: PolicyAgent,
) -> None:
    strong = Deal("N:AKQ2.AK3.KQ4.A32 J543.QJ2.J32.J54 T976.T98.T98.T98 8.7654.A765.KQ76")
    weak = Deal("N:5432.432.432.32 AKQ.AKQ2.KQ5.A54 JT9.JT9.AJT9.KQJ 876.8765.876.T98")
    opener = default_agent.bid(view(strong, Player.north, Vul.none, ()))
    assert not same_call(opener, legal_calls(Player.north, ())[0])
    passer = default_agent.bid(view(weak, Player.north, Vul.none, ()))
    assert same_call(passer, legal_calls(Player.north, ())[0])


def test_bid_batch_equals_one_call_at_a_time(default_agent: PolicyAgent) -> None:
    views = []
    for board in range(1, 9):
        deal = random_deal(5, board - 1)
        dealer, vul = dealer_of(board), vul_of(board)
        auction = bid_out(default_agent, deal, dealer, vul)
        views += [view(deal, dealer, vul, auction[:k]) for k in range(len(auction))]
    batch = default_agent.bid_batch(views)
    single = [default_agent.bid(v) for v in views]
    assert all(same_call(a, b) for a, b in zip(batch, single, strict=True))


def test_sampling_is_legal_and_reproducible_per_board() -> None:
    a = make_agent(f"policy:{DEFAULT_MODEL_DIR},greedy=0,temperature=2", seed=7)
    b = make_agent(f"policy:{DEFAULT_MODEL_DIR},greedy=0,temperature=2", seed=7)
    assert isinstance(a, PolicyAgent) and isinstance(b, PolicyAgent)
    runs = []
    for board in (1, 2, 3, 4, 5, 6):
        deal = random_deal(9, board - 1)
        x = bid_out(a, deal, dealer_of(board), vul_of(board), board)
        y = bid_out(b, deal, dealer_of(board), vul_of(board), board)
        assert [str(c) for c in x] == [str(c) for c in y]
        runs.append(x)
    assert len({tuple(str(c) for c in r) for r in runs}) > 1


def _copy_model(tmp_path: Path) -> Path:
    target = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL_DIR, target, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    return target


def test_unknown_feature_version_is_refused(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    meta = json.loads((model / "model.json").read_text())
    meta["feature_version"] = "openspiel480-v0"
    (model / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match="feature version 'openspiel480-v0'"):
        Policy(model)
    with pytest.raises(AgentSpecError, match="feature version"):
        make_agent(f"policy:{model}")


def test_missing_or_malformed_sidecar_is_refused(tmp_path: Path) -> None:
    model = _copy_model(tmp_path)
    meta = json.loads((model / "model.json").read_text())
    meta["input"]["shape"] = ["batch", 267]
    (model / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"input\.shape.*267"):
        load_model(model, POLICY_MODEL)
    del meta["training"]
    (model / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"model\.json: field training: Field required"):
        Policy(model)
    (model / "model.json").unlink()
    with pytest.raises(ModelError, match=r"no model\.json"):
        load_model(model / "policy.onnx", POLICY_MODEL)
    with pytest.raises(AgentSpecError, match="needs a model path"):
        make_agent("policy")


async def test_default_agent_bids_through_a_real_table_manager(
    tmp_path: Path, default_agent: PolicyAgent
) -> None:
    """Four ``default`` seats (baseline play, for speed) over TCP: the auctions the table
    manager records are exactly the ones the policy bids offline on the same boards."""
    from bridgebot.laws.board_sets import generate
    from bridgebot.server.seat import SeatClient
    from bridgebot.server.tm import TableManager

    boards = generate(31, 3)
    tm = TableManager(boards, tmp_path)
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    teams = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}
    clients = [
        SeatClient(host, port, p, teams[p], make_agent("default,play=baseline", seed=p.value))
        for p in Player
    ]
    summaries = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 300)
    await asyncio.wait_for(serving, 30)
    assert all(s.boards == 3 for s in summaries)
    with (tmp_path / "boards.pbn").open() as f:
        records = pbn.load(f)
    assert len(records) == 3
    for board, record in zip(boards, records, strict=True):
        offline = bid_out(default_agent, board.deal, board.dealer, board.vul, board.number)
        assert [str(c) for c in record.auction] == [str(c) for c in offline]
