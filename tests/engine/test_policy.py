"""The ONNX policy at run time: the shipped model, sidecar refusal, batch = single, and a real table.

No torch here: these run with the runtime install (onnxruntime only).
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import endplay.parsers.pbn as pbn
import numpy as np
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


# -- many hands at a few positions (the particle filter's policy calls) ----------------------------


def _positions(seed: int, m: int, particles: int) -> tuple[np.ndarray, np.ndarray]:
    """Real observations of ``m`` random positions (hand blocks zero) and ``particles`` hands at
    each, [particles, m, 52] in the data-file order."""
    from bridgebot.engine.features import encode_arrays, vul_flags

    from tests.engine.test_features import pad, random_auctions

    rng = np.random.default_rng(seed)
    calls = pad(random_auctions(rng, m), 30)
    seats = rng.integers(0, 4, size=m)
    vul_us, vul_them = vul_flags(rng.integers(0, 4, size=m), seats)
    base = encode_arrays(np.zeros((m, 52), np.uint8), seats, vul_us, vul_them, calls)
    hands = np.zeros((particles, m, 52), np.uint8)
    for t in range(particles):
        for j in range(m):
            hands[t, j, rng.choice(52, 13, replace=False)] = 1
    return base, hands


@pytest.mark.parametrize("name", ["default", "epbotnet", "bfgnet"])
def test_tiled_logits_are_the_policys_logits(name: str) -> None:
    """The hand-split graph is the policy's function: the shipped policies' logits for many
    hands at a few positions agree with the plain graph's on the full observations to float
    rounding, with the same best call on every row."""
    from bridgebot.engine.features import tile_hands

    from bridgebot.shipped import shipped_model

    policy = Policy(shipped_model(name))
    base, hands = _positions(3, 9, 300)
    got = policy.tiled_logits(base, hands)
    assert policy._split is not False, "the shipped graph is a plain Gemm/Relu stack"
    want = policy.logits(tile_hands(base, hands))
    assert got.shape == want.shape == (300 * 9, 38)
    assert np.abs(got - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max()))
    np.testing.assert_array_equal(got.argmax(axis=1), want.argmax(axis=1))
    # Row t * M + j is hand t at position j: one position's hands moved about move its rows.
    swapped = hands.copy()
    swapped[[0, 1], 4] = hands[[1, 0], 4]
    again = policy.tiled_logits(base, swapped)
    np.testing.assert_allclose(again[4], got[9 + 4], rtol=0, atol=1e-4)
    np.testing.assert_allclose(again[9 + 4], got[4], rtol=0, atol=1e-4)
    # The positions' own hand blocks are not read.
    noisy = base.copy()
    noisy[:, 428:] = 1.0
    np.testing.assert_array_equal(policy.tiled_logits(noisy, hands), got)


def test_tiled_logits_fall_back_to_the_plain_graph_and_check_shapes() -> None:
    """Without the split (a graph it cannot rewrite), the plain graph runs on the full
    observations, bit for bit; wrong shapes raise a ValueError that names them; the search's
    reading without the opponents' doubles reads the positions so."""
    from bridgebot.engine.features import tile_hands, without_their_doubles
    from bridgebot.engine.tendencies import WithoutTheirDoubles

    policy = Policy(DEFAULT_MODEL_DIR)
    base, hands = _positions(4, 6, 50)
    policy._split = False
    np.testing.assert_array_equal(
        policy.tiled_logits(base, hands), policy.logits(tile_hands(base, hands))
    )
    with pytest.raises(ValueError, match=r"hands \[T, M, 52\] expected, got \(6, 480\) and"):
        policy.tiled_logits(base, hands[:, :5])
    blind = WithoutTheirDoubles(Policy(DEFAULT_MODEL_DIR))
    np.testing.assert_allclose(
        blind.tiled_logits(base, hands),
        policy.logits(without_their_doubles(tile_hands(base, hands))),
        rtol=0,
        atol=1e-4,
    )
