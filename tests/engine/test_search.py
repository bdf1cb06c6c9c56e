"""Tests for engine.search: particles, the filter, rollouts, the posterior, the DD cache, the agent.

The rollout policy in these tests is a real ONNX file served by ``engine.policy.Policy`` through
onnxruntime: a single linear layer whose weights are written by hand, so what it bids is known
("open 1S when holding the spade ace", "prefer pass to 7NT by a little"), which is what lets a test
know the answer the search must find.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from bridgebot.engine import dds
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.features import (
    DATA_TO_OPENSPIEL,
    HAND,
    N_CALLS,
    N_FEATURES,
    hand_to_array,
)
from bridgebot.engine.policy import Policy
from bridgebot.engine.search import (
    BorelSearch,
    Contracts,
    SearchConfig,
    SolverOracle,
    auction_log_likelihood,
    beyond_game,
    candidates_from_prior,
    deal_uniform,
    expected_imps,
    final_contracts,
    one_hot_tricks,
    posterior,
    punished,
    resample,
    rollout,
    score_for_side,
    slam_zone,
)
from bridgebot.laws.calls import ALL_CALLS, FIRST_BID, bid_index, final_contract, legal_calls
from bridgebot.laws.cards import deal_owners, owners_pbn
from bridgebot.laws.scoring import PENALTY_ORDER, imps, imps_array
from endplay.types import Deal, Hand, Player, Vul
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgebot.agent_options import SearchOptions
from bridgebot.agents import AgentSpec, AgentSpecError, make_agent
from bridgebot.shipped import shipped_model
from tests.policies import write_linear_policy

SPADE_ACE = 0  # data-file card index of the spade ace
PASS, ONE_S, SEVEN_NT = 0, bid_index(ALL_CALLS[3 + 3]), N_CALLS - 1


def spade_ace_policy(directory: Path) -> Policy:
    """Bids 1S holding the spade ace (probability ~1 - 2e-9), else passes; never anything else."""
    w = np.zeros((N_CALLS, N_FEATURES))
    b = np.full(N_CALLS, -40.0)
    b[PASS] = 0.0
    b[ONE_S] = -10.0
    w[ONE_S, HAND + DATA_TO_OPENSPIEL[SPADE_ACE]] = 20.0
    return Policy(write_linear_policy(directory, w, b))


def blind_policy(directory: Path, biases: dict[int, float]) -> Policy:
    """A policy blind to its input: logit ``biases[call]`` for the calls named, -40 for the rest."""
    b = np.full(N_CALLS, -40.0)
    for call, bias in biases.items():
        b[call] = bias
    return Policy(write_linear_policy(directory, np.zeros((N_CALLS, N_FEATURES)), b))


def pass_or_grand_policy(directory: Path) -> Policy:
    """Everyone slightly prefers pass (p ~0.62) to 7NT (p ~0.38); nothing else is ever bid."""
    return blind_policy(directory, {PASS: 0.5, SEVEN_NT: 0.0})


def view_for(pbn: str, seat: Player, dealer: Player, auction: list[int], vul: Vul) -> BiddingView:
    deal = Deal(pbn)
    calls = tuple(ALL_CALLS[i] for i in auction)
    return BiddingView(
        seat=seat,
        dealer=dealer,
        vul=vul,
        hand=Hand(str(deal[seat])),
        auction=calls,
        board=1,
        legal=legal_calls(dealer, calls),
    )


ROCK = "S:AKQJ.AKQ.AKQ.AKQ - - -"  # South: 13 top tricks at notrump
# South holds a Yarborough; the other 39 cards are dealt by the search.
YARBOROUGH = "S:5432.5432.432.32 - - -"


def full_pbn(partial: str, seed: int = 0) -> str:
    """Complete a PBN that names only South's hand by dealing the other 39 cards at random."""
    south = Hand(partial.split(":")[1].split()[0])
    owners = deal_uniform(2, hand_to_array(south), 1, np.random.default_rng(seed))[0]
    return owners_pbn(owners)


# -- particles --------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), seat=st.integers(0, 3), n=st.integers(1, 64))
def test_particles_keep_our_hand_and_deal_thirteen_each(seed: int, seat: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    hand = np.zeros(52, dtype=np.uint8)
    hand[rng.choice(52, 13, replace=False)] = 1
    owners = deal_uniform(seat, hand, n, rng)
    assert owners.shape == (n, 52)
    assert np.all((owners == seat) == (hand[None, :] == 1))
    for s in range(4):
        assert np.all((owners == s).sum(axis=1) == 13)


def test_particles_are_uniform_over_the_other_seats() -> None:
    hand = np.zeros(52, dtype=np.uint8)
    hand[13:26] = 1  # all the hearts
    owners = deal_uniform(1, hand, 6000, np.random.default_rng(1))
    share = (owners[:, SPADE_ACE][:, None] == np.array([0, 2, 3])[None, :]).mean(axis=0)
    assert np.allclose(share, 1 / 3, atol=0.03)


def test_particles_refuse_a_hand_without_thirteen_cards() -> None:
    with pytest.raises(ValueError, match="12 cards"):
        deal_uniform(
            0, np.r_[np.ones(12), np.zeros(40)].astype(np.uint8), 4, np.random.default_rng()
        )


def test_resample_follows_the_weights() -> None:
    draws = resample(np.array([0.0, 1.0, 3.0]), 400, np.random.default_rng(3))
    counts = np.bincount(draws, minlength=3)
    assert counts[0] == 0
    assert counts[1] == 100 and counts[2] == 300  # systematic resampling is exact here
    with pytest.raises(ValueError):
        resample(np.zeros(3), 4, np.random.default_rng())


# -- the filter -----------------------------------------------------------------------------------


def test_filter_finds_the_spade_ace_with_the_opener(tmp_path: Path) -> None:
    """North opened 1S under a policy that opens 1S exactly with the spade ace: after the filter,
    North holds the spade ace in (nearly) every particle; before it, in a third of them."""
    policy = spade_ace_policy(tmp_path / "p")
    hand = np.zeros(52, dtype=np.uint8)
    hand[26:39] = 1  # East holds all the diamonds, so the spade ace is unseen
    particles = deal_uniform(1, hand, 3000, np.random.default_rng(5))
    prior_share = float((particles[:, SPADE_ACE] == 0).mean())
    loglik = auction_log_likelihood(policy, particles, 0, 0, np.array([ONE_S]), skip_seat=1)
    keep = resample(np.exp(loglik - loglik.max()), 500, np.random.default_rng(6))
    post_share = float((particles[keep, SPADE_ACE] == 0).mean())
    assert 0.28 < prior_share < 0.39
    assert post_share > 0.99
    # And after North passed, North never holds it.
    loglik = auction_log_likelihood(policy, particles, 0, 0, np.array([PASS]), skip_seat=1)
    keep = resample(np.exp(loglik - loglik.max()), 500, np.random.default_rng(6))
    assert float((particles[keep, SPADE_ACE] == 0).mean()) < 0.01


def test_filter_ignores_our_own_calls(tmp_path: Path) -> None:
    policy = spade_ace_policy(tmp_path / "p")
    hand = np.zeros(52, dtype=np.uint8)
    hand[26:39] = 1
    particles = deal_uniform(0, hand, 50, np.random.default_rng(5))
    loglik = auction_log_likelihood(policy, particles, 0, 0, np.array([PASS]), skip_seat=0)
    assert np.all(loglik == 0)


# -- rollouts and contracts -----------------------------------------------------------------------


def test_vectorised_final_contracts_agree_with_the_rules(tmp_path: Path) -> None:
    """Random legal auctions: final_contracts equals laws.calls.final_contract call by call."""
    rng = np.random.default_rng(11)
    auctions, dealers = [], []
    for _ in range(300):
        dealer = Player(int(rng.integers(4)))
        calls: list = []
        while True:
            legal = legal_calls(dealer, calls)
            if not legal:
                break
            p = np.array([6.0 if bid_index(c) == 0 else 1.0 for c in legal])
            calls.append(legal[int(rng.choice(len(legal), p=p / p.sum()))])
        auctions.append([bid_index(c) for c in calls])
        dealers.append(dealer)
    for dealer_value in range(4):
        rows = [a for a, d in zip(auctions, dealers, strict=True) if d.value == dealer_value]
        width = max(len(a) for a in rows)
        arr = np.full((len(rows), width), -1, dtype=np.int64)
        for i, a in enumerate(rows):
            arr[i, : len(a)] = a
        got = final_contracts(arr, dealer_value)
        for i, a in enumerate(rows):
            want = final_contract(Player(dealer_value), [ALL_CALLS[j] for j in a])
            if want is None:
                assert got.level[i] == 0
                continue
            assert got.level[i] == want.level
            assert got.declarer[i] == want.declarer.value
            assert got.penalty[i] == PENALTY_ORDER.index(want.penalty)
            assert ALL_CALLS[3 + 5 * (want.level - 1) + int(got.strain[i])].denom == want.denom


def test_rollout_finishes_auctions_with_the_policy(tmp_path: Path) -> None:
    policy = spade_ace_policy(tmp_path / "p")
    hand = np.zeros(52, dtype=np.uint8)
    hand[39:52] = 1
    owners = deal_uniform(0, hand, 40, np.random.default_rng(2))
    start = np.full((40, 0), -1, dtype=np.int64)
    done, n = rollout(policy, owners, 0, 0, start, np.zeros(40, dtype=np.int64))
    for i in range(40):
        calls = list(done[i, : n[i]])
        holder = int(owners[i, SPADE_ACE])  # the first seat holding the ace opens 1S
        assert calls[: holder + 1] == [PASS] * holder + [ONE_S]
        assert calls[holder + 1 :] == [PASS] * 3
        assert np.all(done[i, n[i] :] == -1)


def test_scores_are_from_our_side() -> None:
    from bridgebot.engine.search import Contracts

    c = Contracts(
        level=np.array([4, 4, 0]),
        strain=np.array([3, 3, 0]),
        penalty=np.array([0, 0, 0]),
        declarer=np.array([0, 1, 0]),
    )
    got = score_for_side(c, np.array([10, 10, 0]), Vul.none.value, our_seat=2)
    assert list(got) == [420, -420, 0]


# -- posterior and candidates ----------------------------------------------------------------------


def test_posterior_formula() -> None:
    prior = np.zeros(N_CALLS, dtype=np.float32)
    prior[[0, 5, 9]] = [0.5, 0.3, 0.2]
    values = np.array([0.0, 100.0], dtype=np.float32)
    post = posterior(prior, [0, 5], values, r=16.0, temperature=100.0)
    # prior x exp(V / (t sqrt R)) with V = R x mean: exp(100 * 4 / 100) = e^4 for call 5.
    want5 = 0.3 * np.exp(4.0) / (0.5 + 0.3 * np.exp(4.0))
    assert post[5] == pytest.approx(want5, rel=1e-5)
    assert post[0] == pytest.approx(1 - want5, rel=1e-5)
    assert post[9] == 0 and post.sum() == pytest.approx(1.0)


def test_candidates_top_k_above_minimum() -> None:
    prior = np.zeros(N_CALLS, dtype=np.float32)
    prior[[0, 4, 7, 8, 9]] = [0.4, 0.3, 0.2, 0.0999, 0.0001]
    assert candidates_from_prior(prior, 3, 0.01) == [0, 4, 7]
    assert candidates_from_prior(prior, 5, 0.01) == [0, 4, 7, 8]
    assert candidates_from_prior(prior, 1, 0.5) == [0]


def test_config_from_options() -> None:
    cfg = SearchOptions.model_validate({"rollouts": "32", "temperature": "50", "greedy": "0"})
    assert (cfg.config().rollouts, cfg.config().temperature, cfg.config().greedy) == (
        32,
        50.0,
        False,
    )
    assert cfg.config().filter is True  # on with the belief sampler too (measured)
    assert SearchOptions.model_validate({"filter": "0"}).config().filter is False
    with pytest.raises(AgentSpecError, match="option rollouts must be an integer, not 'many'"):
        AgentSpec.parse("search,rollouts=many")


# -- the solver cache ------------------------------------------------------------------------------


#: Four deals of a development set of random deals with their DDS 2.9 tables (N, E, S, W x C, D, H, S, NT).
SOLVED = [
    ("N:Q875.T63.AJ87.T9 AKT3.AKJ2.94.Q84 962.984.KQ6.AKJ7 J4.Q75.T532.6532", [[6, 7, 5, 6, 6], [5, 5, 8, 6, 5], [6, 7, 5, 6, 6], [5, 5, 8, 5, 5]]),
    ("N:Q5.AQ7.KQJT7.K84 K872.KJ83.82.953 J643.65.654.AJ72 AT9.T942.A93.QT6", [[7, 8, 5, 6, 7], [5, 5, 8, 7, 6], [7, 8, 5, 6, 7], [5, 5, 8, 7, 6]]),
    ("N:A94.872.K7.AQJ87 8752.AT953.J83.2 JT.J6.QT965.KT54 KQ63.KQ4.A42.963", [[9, 8, 5, 4, 6], [3, 3, 8, 8, 6], [9, 8, 5, 4, 6], [3, 3, 8, 8, 6]]),
    ("N:A93.42.T742.Q985 Q74.AKQT.KJ65.J2 JT652.763.A9.AK4 K8.J985.Q83.T763", [[7, 6, 4, 9, 6], [5, 7, 9, 4, 5], [7, 6, 4, 9, 6], [5, 7, 9, 4, 5]]),
]  # fmt: skip


@pytest.fixture(scope="module")
def dd_data() -> tuple[np.ndarray, np.ndarray]:
    owners = np.stack([deal_owners(pbn) for pbn, _ in SOLVED])
    assert [owners_pbn(o) for o in owners] == [pbn for pbn, _ in SOLVED]
    return owners, np.array([t for _, t in SOLVED], dtype=np.uint8)


def test_solver_oracle_matches_the_tables_and_caches(dd_data: tuple) -> None:
    owners, dd = dd_data
    oracle = SolverOracle(cache_size=100)
    rows = np.repeat(np.arange(4), 3)
    declarer = np.tile(np.array([0, 1, 2]), 4)
    strain = np.tile(np.array([4, 4, 1]), 4)
    got = oracle.tricks(owners[rows], declarer, strain)
    assert list(got) == list(dd[rows, declarer, strain])
    assert oracle.solved == 8  # one solve per (deal, strain): NT and diamonds for 4 deals
    again = oracle.tricks(owners[rows], (declarer + 1) % 4, strain)
    assert list(again) == list(dd[rows, (declarer + 1) % 4, strain])
    assert oracle.solved == 8 and oracle.hits == 12  # the second call is all cache
    small = SolverOracle(cache_size=2)
    small.tricks(owners[:3], np.zeros(3, dtype=np.int64), np.full(3, 4))
    small.tricks(owners[:1], np.zeros(1, dtype=np.int64), np.full(1, 4))
    assert small.solved == 4  # deal 0 fell out of a 2-deal cache and was solved again


# -- whole searches ---------------------------------------------------------------------------------


def test_search_finds_the_grand_slam_with_thirteen_tricks(tmp_path: Path) -> None:
    """The policy prefers pass (everyone passes it out: 0); with 13 top tricks the search knows
    7NT makes on every particle and overrides the prior; with a Yarborough it keeps pass."""
    policy = pass_or_grand_policy(tmp_path / "p")
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4)
    search = BorelSearch(policy, SolverOracle(), cfg)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    result = search.search(rock, np.random.default_rng(0))
    assert result.searched and sorted(result.candidates) == [PASS, SEVEN_NT]
    assert result.prior[PASS] > result.prior[SEVEN_NT]
    assert bid_index(result.call) == SEVEN_NT
    values = dict(zip(result.candidates, result.values, strict=True))
    assert values[SEVEN_NT] == 1520 and values[PASS] == 0
    weak = view_for(full_pbn(YARBOROUGH), Player.south, Player.south, [], Vul.none)
    result = search.search(weak, np.random.default_rng(0))
    assert bid_index(result.call) == PASS
    values = dict(zip(result.candidates, result.values, strict=True))
    assert values[SEVEN_NT] <= -300  # 7NT undoubled, not vulnerable, down 6 or more


def test_grand_slam_in_imps_over_the_policys_pass(tmp_path: Path) -> None:
    """value=imps: each candidate is worth the IMPs it gains over the policy's call (pass, 0) on
    the same particle: 7NT making, 1520 points, is 17 IMPs; the pass itself is worth 0."""
    policy = pass_or_grand_policy(tmp_path / "p")
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, value="imps")
    search = BorelSearch(policy, SolverOracle(), cfg)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    result = search.search(rock, np.random.default_rng(0))
    assert bid_index(result.call) == SEVEN_NT
    values = dict(zip(result.candidates, result.values, strict=True))
    assert values[SEVEN_NT] == 17 and values[PASS] == 0


def test_punishing_opponents_double_what_goes_down(tmp_path: Path) -> None:
    """punish=2: the opponents double our contract when it goes down two or more. With a
    Yarborough 7NT goes down ten tricks or so, worth 50 a trick undoubled and 300 a trick beyond
    the third doubled (not vulnerable): over four times as much; with 13 top tricks it makes and
    nobody doubles it."""
    policy = pass_or_grand_policy(tmp_path / "p")
    weak = view_for(full_pbn(YARBOROUGH), Player.south, Player.south, [], Vul.none)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)

    def seven_nt(view: BiddingView, punish: int) -> float:
        cfg = SearchConfig(particles=32, rollouts=16, r_min=4, punish=punish)
        result = BorelSearch(policy, SolverOracle(), cfg).search(view, np.random.default_rng(0))
        return float(dict(zip(result.candidates, result.values, strict=True))[SEVEN_NT])

    undoubled = seven_nt(weak, 0)
    assert -650 <= undoubled <= -350
    assert seven_nt(weak, 2) < 4 * undoubled
    assert seven_nt(rock, 2) == seven_nt(rock, 0) == 1520


def test_punished_doubles_only_our_undoubled_failures() -> None:
    contracts = Contracts(
        level=np.array([4, 4, 2, 4, 3, 0]),
        strain=np.array([3, 3, 1, 3, 4, 0]),
        penalty=np.array([0, 0, 0, 1, 0, 0]),
        declarer=np.array([0, 1, 2, 0, 2, 0]),
    )
    probs = np.zeros((6, 14))
    probs[:, 8] = 1.0  # 4S down 2, 2D made, 3NT down 1
    out = punished(contracts, probs, our_seat=0, down=2)
    # Ours down two: doubled; theirs, made, already doubled, down one, passed out: as they were.
    assert out.penalty.tolist() == [1, 0, 0, 1, 0, 0]
    assert punished(contracts, probs, our_seat=0, down=1).penalty.tolist() == [1, 0, 0, 1, 1, 0]
    # A distribution: down two with probability 0.6 is "more likely than not".
    probs[0] = 0.0
    probs[0, 8], probs[0, 10] = 0.6, 0.4
    assert punished(contracts, probs, our_seat=0, down=2).penalty[0] == 1
    probs[0, 8], probs[0, 10] = 0.4, 0.6
    assert punished(contracts, probs, our_seat=0, down=2).penalty[0] == 0


def test_expected_imps_share_the_tricks_of_one_strain() -> None:
    """Candidate 0 in 3NT, candidate 1 in 4NT by the same declarer: one trick count decides both
    (9 tricks: 400 against -50, 10 IMPs lost; 10 tricks: 430 each, 0); in 4S by the other hand
    the counts are independent."""
    p9_10 = np.zeros(14)
    p9_10[[9, 10]] = 0.5
    probs = np.stack([p9_10, p9_10, p9_10])[:, None, :]  # [3 candidates, 1 particle, 14]
    scores = np.zeros((3, 1, 14))
    scores[0, 0, 9], scores[0, 0, 10] = 400, 430  # 3NT
    scores[1, 0, 9], scores[1, 0, 10] = -50, 430  # 4NT
    scores[2, 0, 9], scores[2, 0, 10] = -50, 420  # 4S (the other strain)
    key = np.array([[4], [4], [7]])
    out = expected_imps(probs, scores, key)
    assert out[0, 0] == 0.0
    assert out[1, 0] == pytest.approx(0.5 * -10 + 0.5 * 0)
    # 4S: -50 or 420 against 400 or 430, each of the four pairs a quarter.
    expect = 0.25 * (imps(-450) + imps(-480) + imps(20) + imps(-10))
    assert out[2, 0] == pytest.approx(expect)


def test_one_hot_expected_imps_are_the_imps_of_the_likeliest_counts() -> None:
    rng = np.random.default_rng(3)
    tricks = rng.integers(0, 14, size=(4, 6))
    probs = np.eye(14)[tricks]
    scores = rng.integers(-800, 1500, size=(4, 6, 14)).astype(np.float64)
    key = rng.integers(0, 3, size=(4, 6))
    got = expected_imps(probs, scores, key)
    picked = np.take_along_axis(scores, tricks[:, :, None], axis=2)[:, :, 0]
    same = key == key[0]
    # With the same key the reference takes the row's own count, else its own likeliest.
    ref_same = np.take_along_axis(scores[0][None].repeat(4, 0), tricks[:, :, None], axis=2)[:, :, 0]
    ref_apart = picked[0][None, :]
    want = np.where(same, imps_array(picked - ref_same), imps_array(picked - ref_apart))
    assert np.array_equal(got, want)


def test_too_few_rollouts_fall_back_to_the_prior(tmp_path: Path) -> None:
    policy = pass_or_grand_policy(tmp_path / "p")
    search = BorelSearch(policy, SolverOracle(), SearchConfig(particles=8, rollouts=4, r_min=10))
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    result = search.search(rock, np.random.default_rng(0))
    assert result.searched and result.effective_rollouts < 10
    assert np.array_equal(result.posterior, result.prior)
    assert bid_index(result.call) == PASS


def test_search_agent_spec(tmp_path: Path) -> None:
    model = tmp_path / "p"
    pass_or_grand_policy(model)
    agent = make_agent(f"search:{model},dd=solver,particles=16,rollouts=8,r_min=2", seed=3)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    agent.reset(1)
    assert bid_index(agent.bid(rock)) == SEVEN_NT
    with pytest.raises(AgentSpecError, match="unknown options"):
        make_agent(f"search:{model},samples=3")
    with pytest.raises(AgentSpecError, match="dd must be"):
        make_agent(f"search:{model},dd=magic")
    with pytest.raises(AgentSpecError, match="rollouts"):
        make_agent(f"search:{model},rollouts=lots")


async def test_searched_call_through_a_real_table_manager(tmp_path: Path) -> None:
    """South searches at a real table manager over TCP, the others bid with the plain policy
    (which would pass it out): the table records South's 7NT, the call only the search finds."""
    import asyncio

    from bridgebot.protocol.table import TableBoard
    from bridgebot.server.seat import SeatClient
    from bridgebot.server.tm import TableManager, TableOptions

    model = tmp_path / "p"
    pass_or_grand_policy(model)
    board = TableBoard(1, Player.south, Vul.none, Deal(full_pbn(ROCK, seed=4)))
    tm = TableManager([board], tmp_path / "tm", options=TableOptions())
    host, port = await tm.start()
    serving = asyncio.create_task(tm.serve())
    teams = {Player.north: "NS", Player.south: "NS", Player.east: "EW", Player.west: "EW"}
    search = make_agent(f"search:{model},dd=solver,particles=16,rollouts=8,r_min=2", seed=1)
    agents = {p: make_agent(f"policy:{model}", seed=p.value) for p in Player}
    agents[Player.south] = search
    clients = [SeatClient(host, port, p, teams[p], agents[p]) for p in Player]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    (results,) = await asyncio.wait_for(serving, 30)
    (result,) = results
    assert [bid_index(c) for c in result.auction] == [SEVEN_NT, PASS, PASS, PASS]
    assert result.contract is not None and result.contract.declarer == Player.south
    assert search.last is not None and search.last.searched  # type: ignore[attr-defined]
    assert result.declarer_tricks is not None


# -- opponent models and the safety margin ------------------------------------------------------------


def grand_opener_policy(directory: Path) -> Policy:
    """Bids 7NT whenever it is legal, else passes: an opponent model unlike our policy."""
    return blind_policy(directory, {PASS: 0.0, SEVEN_NT: 1.0})


# South holds every top card but the club ace: 7NT makes only when partner has it.
NEARLY = "S:AKQJ.AKQ.AKQ.KQJ - - -"


def test_rollouts_give_the_opponents_seats_to_the_opponent_model(tmp_path: Path) -> None:
    ours = pass_or_grand_policy(tmp_path / "p")
    theirs = grand_opener_policy(tmp_path / "o")
    owners = deal_uniform(
        2, hand_to_array(Hand(ROCK.split(":")[1].split()[0])), 2, np.random.default_rng(1)
    )
    start = np.full((2, 1), -1, dtype=np.int64)
    n0 = np.zeros(2, dtype=np.int64)
    alone, n = rollout(ours, owners, 2, 0, start, n0)  # dealer South, everyone passes
    assert [list(alone[i, : n[i]]) for i in range(2)] == [[PASS] * 4] * 2
    mixed, n = rollout(ours, owners, 2, 0, start, n0, opponent=theirs, our_seat=0)
    # South (ours) passes, West (an opponent) bids 7NT, the rest pass.
    assert [list(mixed[i, : n[i]]) for i in range(2)] == [[PASS, SEVEN_NT, PASS, PASS, PASS]] * 2


def test_a_deviation_must_win_under_every_opponent_model(tmp_path: Path) -> None:
    """Under our own model the opponents pass it out, so 7NT (a third of the time making) beats
    pass; under the grand opener West (vulnerable) bids 7NT after our pass and goes down 12 or so,
    so pass is better there. Each model alone picks its best call; together they disagree and the policy's
    own call (pass) stands."""
    ours = pass_or_grand_policy(tmp_path / "p")
    theirs = grand_opener_policy(tmp_path / "o")
    cfg = SearchConfig(particles=48, rollouts=24, r_min=4)
    view = view_for(full_pbn(NEARLY), Player.south, Player.south, [], Vul.ew)

    def call(opponents: Sequence[tuple[str, Policy | None]], config: SearchConfig = cfg) -> int:
        search = BorelSearch(ours, SolverOracle(), config, opponents=opponents)
        result = search.search(view, np.random.default_rng(0))
        assert set(result.model_values) == {name for name, _ in opponents}
        return bid_index(result.call)

    assert call([("self", None)]) == SEVEN_NT
    assert call([("grand", theirs)]) == PASS
    assert call([("self", None), ("grand", theirs)]) == PASS
    # The margin: the 7NT gain under our model is real but noisy (partner has the club ace a third
    # of the time); asking for 50 standard errors refuses it.
    assert call([("self", None)], replace(cfg, margin=50.0)) == PASS
    # The least gain: 7NT's edge under our model is a few hundred points, not ten thousand.
    assert call([("self", None)], replace(cfg, min_gain=10_000.0)) == PASS
    assert call([("self", None)], replace(cfg, min_gain=1.0)) == SEVEN_NT


def test_close_bids_keeps_the_policys_bid_against_a_likely_other_bid(tmp_path: Path) -> None:
    """``close_bids``: a change from the policy's bid to another bid whose prior is at least the
    knob is refused; a change from a pass, or to a bid of smaller prior, still goes through.
    The verdict alone, on scores that favour the second candidate on every particle."""
    six_nt = SEVEN_NT - 5
    scored = [(np.array([[-100.0] * 16, [1000.0] * 16]), np.ones(16, dtype=np.int64))]

    def pick(best: int, close_bids: float) -> int:
        prior = np.zeros(N_CALLS, dtype=np.float32)
        prior[best], prior[six_nt] = 0.6, 0.4
        cfg = SearchConfig(r_min=1, close_bids=close_bids)
        search = BorelSearch(pass_or_grand_policy(tmp_path / "p"), SolverOracle(), cfg)
        return search.judge(prior, [best, six_nt], scored, np.random.default_rng(0)).pick

    assert pick(SEVEN_NT, 1.0) == six_nt  # off: the search decides
    assert pick(SEVEN_NT, 0.5) == six_nt  # 6NT's prior 0.4 is under the knob
    assert pick(SEVEN_NT, 0.3) == SEVEN_NT  # a close call between two bids: the policy's stands
    assert pick(PASS, 0.3) == six_nt  # from a pass: not a close call between bids
    # On by default at 0.2; off where the opponents doubled our contract (default's doubled
    # stage, whose calls the knob leaves as they were).
    assert SearchConfig().close_bids == 0.2
    assert SearchConfig().where_doubled().close_bids == 1.0
    assert SearchConfig(doubled_close_bids=0.3).where_doubled().close_bids == 0.3


def test_a_near_tie_needs_a_clear_gain_whatever_the_calls(tmp_path: Path) -> None:
    """``tie_prior``/``tie_gain``: where the call the search would take has a prior of at least
    ``tie_prior``, the change needs an estimated gain of ``tie_gain`` under every opponent model,
    for a pass as for a bid; a change to a less likely call, or one with the gain, goes through.
    The verdict alone, on scores that favour the second candidate by 60 points a particle."""
    six_nt = SEVEN_NT - 5
    gain = [(np.array([[0.0] * 16, [60.0] * 16]), np.ones(16, dtype=np.int64))]

    def pick(best: int, prior_of_6nt: float, **knobs: float) -> int:
        prior = np.zeros(N_CALLS, dtype=np.float32)
        prior[best], prior[six_nt] = 1 - prior_of_6nt, prior_of_6nt
        cfg = SearchConfig(r_min=1, temperature=1.0, close_bids=1.0, **knobs)  # type: ignore[arg-type]
        search = BorelSearch(pass_or_grand_policy(tmp_path / "p"), SolverOracle(), cfg)
        return search.judge(prior, [best, six_nt], gain, np.random.default_rng(0)).pick

    assert pick(PASS, 0.45) == six_nt  # off by default: the search decides
    assert pick(PASS, 0.45, tie_prior=0.4, tie_gain=100) == PASS  # a near-tie, 60 < 100
    assert pick(SEVEN_NT, 0.45, tie_prior=0.4, tie_gain=100) == SEVEN_NT  # bids alike
    assert pick(PASS, 0.45, tie_prior=0.4, tie_gain=50) == six_nt  # the gain is clear
    assert pick(PASS, 0.3, tie_prior=0.4, tie_gain=100) == six_nt  # not a near-tie
    # Never where the opponents doubled our contract (default's doubled stage bids as before).
    assert SearchConfig(tie_prior=0.4).where_doubled().tie_prior == 1.0


def test_search_agent_opponents_option(tmp_path: Path) -> None:
    model = tmp_path / "p"
    pass_or_grand_policy(model)
    grand_opener_policy(tmp_path / "o")
    base = f"search:{model},dd=solver,particles=16,rollouts=8,r_min=2"
    agent = make_agent(f"{base},opponents=self+{tmp_path / 'o'}", seed=3)
    assert [n for n, _ in agent.search.opponents] == ["self", str(tmp_path / "o")]  # type: ignore[attr-defined]
    shipped = make_agent(base, seed=3)  # the default opponent model is the shipped one
    assert [n for n, _ in shipped.search.opponents] == ["epbotnet", "self"]  # type: ignore[attr-defined]
    # The shipped imitation of EPBot, by name: its file, never EPBot's library.
    named = make_agent(f"{base},opponents=epbotnet+self", seed=3)
    ((_, epbotnet), _) = named.search.opponents  # type: ignore[attr-defined]
    assert epbotnet.model.onnx_path == shipped_model("epbotnet") / "policy.onnx"
    with pytest.raises(AgentSpecError, match="opponent model 'nowhere'"):
        make_agent(f"{base},opponents=nowhere")
    with pytest.raises(AgentSpecError, match="empty name"):
        make_agent(f"{base},opponents=self+")


def test_particle_weights_under_an_opponent_model(tmp_path: Path) -> None:
    """East opened 1S. Under the spade-ace model that says East holds the spade ace; our own
    (blind) policy says nothing. Filter on or reweighting: the weight is ~1 exactly where East
    holds the ace; neither: every particle weighs 1."""
    ours = pass_or_grand_policy(tmp_path / "p")
    ace = spade_ace_policy(tmp_path / "a")
    view = view_for(full_pbn(YARBOROUGH), Player.south, Player.east, [ONE_S], Vul.none)
    particles = deal_uniform(2, hand_to_array(view.hand), 64, np.random.default_rng(5))
    east_ace = particles[:, SPADE_ACE] == Player.east.value
    assert 0 < east_ace.sum() < 64
    history = np.array([ONE_S], dtype=np.int64)
    for cfg, informed in (
        (SearchConfig(filter=True, opponent_noise=0.0), True),
        (SearchConfig(filter=False, reweight=True), True),
        (SearchConfig(filter=False, reweight=False), False),
    ):
        search = BorelSearch(ours, SolverOracle(), cfg, opponents=[("ace", ace)])
        (w,) = search.model_weights(particles, view, history)
        if informed:
            assert np.array_equal(w > 0.5, east_ace) and w[~east_ace].max() < 1e-4
        else:
            assert np.all(w == 1.0)
    # Tempered: the same particles lead, the others weigh the square root of what they did.
    exact = SearchConfig(filter=True, opponent_noise=0.0)
    full = BorelSearch(ours, SolverOracle(), exact, opponents=[("ace", ace)])
    half = BorelSearch(
        ours, SolverOracle(), replace(exact, filter_power=0.5), opponents=[("ace", ace)]
    )
    (w1,) = full.model_weights(particles, view, history)
    (w2,) = half.model_weights(particles, view, history)
    assert np.allclose(w2, np.sqrt(w1), rtol=1e-6, atol=1e-12)
    assert w2[~east_ace].max() > w1[~east_ace].max()
    # Opponent noise: East's 1S is a random legal call a fifth of the time, so a particle without
    # the ace keeps about (0.2 / 35) of the weight of one with it, instead of nothing.
    noisy = BorelSearch(
        ours,
        SolverOracle(),
        SearchConfig(filter=True, opponent_noise=0.2),
        opponents=[("ace", ace)],
    )
    (w3,) = noisy.model_weights(particles, view, history)
    assert np.array_equal(w3 > 0.5, east_ace)
    assert w3[~east_ace].min() > 1e-3 and w3[~east_ace].max() < 0.02


# -- the slam stage ---------------------------------------------------------------------------------


THREE_NT, SIX_NT = bid_index(ALL_CALLS[3 + 5 * 2 + 4]), bid_index(ALL_CALLS[3 + 5 * 5 + 4])


class ConstantOracle:
    """A peer for the slam stage: a trick estimator that says ``tricks`` for every contract (the
    learned estimator's over- or under-confidence, made total)."""

    def __init__(self, tricks: int) -> None:
        self.tricks = tricks

    def trick_probs(self, owners: np.ndarray, declarer: np.ndarray, strain: np.ndarray) -> Any:
        return one_hot_tricks(np.full(len(declarer), self.tricks))


@pytest.fixture
def solver_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The deals of every call to ``engine.dds.dd_tables`` (the solver's one door), in order."""
    calls: list[int] = []
    real = dds.dd_tables

    def counting(owners: np.ndarray, strains: Sequence[int] | None = None) -> np.ndarray:
        calls.append(len(owners))
        return real(owners, strains)

    monkeypatch.setattr(dds, "dd_tables", counting)
    return calls


def test_beyond_game_names_slam_bids_and_bids_past_game() -> None:
    def call(text: str) -> int:
        level, strain = int(text[0]), "CDHSN".index(text[1])
        return FIRST_BID + 5 * (level - 1) + strain

    for past in ("4N", "5H", "5S", "6C", "6D", "7N", "5N"):
        assert beyond_game(call(past)), past
    for short in ("3N", "4H", "4S", "5C", "5D", "1C"):
        assert not beyond_game(call(short)), short
    assert not beyond_game(PASS) and not beyond_game(1) and not beyond_game(2)


def test_slam_stage_overrules_an_estimator_that_makes_every_slam(
    tmp_path: Path, solver_calls: list[int]
) -> None:
    """The policy prefers pass to 6NT; an estimator that gives every contract 13 tricks makes the
    search bid 6NT on a Yarborough. With the slam stage, 6NT (a slam candidate) and the slam
    bids it adds are scored by the solver on ``slam_stage_particles`` particles, and pass stands."""
    policy = blind_policy(tmp_path / "p", {PASS: 0.5, SIX_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, slam_stage_particles=8)
    weak = view_for(full_pbn(YARBOROUGH), Player.south, Player.south, [], Vul.none)
    off = BorelSearch(policy, ConstantOracle(13), cfg).search(weak, np.random.default_rng(0))
    assert bid_index(off.call) == SIX_NT and "slam_stage" not in off.stats
    assert not solver_calls
    search = BorelSearch(policy, ConstantOracle(13), replace(cfg, slam_stage=True))
    on = search.search(weak, np.random.default_rng(0))
    assert on.stats["slam_stage"] == 1 and on.stats["slam_chance"] == 1.0
    assert bid_index(on.call) == PASS
    values = dict(zip(on.candidates, on.values, strict=True))
    assert values[SIX_NT] < -200  # 6NT by a Yarborough's side fails double dummy
    added = [c for c in on.candidates if c not in (PASS, SIX_NT)]
    assert len(added) == int(on.stats["slam_added"]) == 2  # the 6 and 7 bids of the best strain
    assert all(beyond_game(c) and values[c] < 0 for c in added)
    # Every trick came from the solver through engine.dds: one call per strain reached, at most
    # the 8 stage particles (one opponent model) each, and as many solves as the stage counts.
    assert solver_calls and max(solver_calls) <= 8
    assert sum(solver_calls) == on.stats["slam_solves"] == search.exact.solved


def test_slam_stage_finds_the_grand_the_policy_never_bids(tmp_path: Path) -> None:
    """The policy knows only pass and 3NT; with 13 top tricks the real solver (the search's own
    oracle) says our side makes 13 tricks, so the stage adds the grand and bids it."""
    policy = blind_policy(tmp_path / "p", {PASS: 0.5, THREE_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, slam_stage=True, slam_stage_particles=8)
    search = BorelSearch(policy, SolverOracle(), cfg)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    result = search.search(rock, np.random.default_rng(0))
    assert result.stats["slam_stage"] == 1 and result.stats["slam_chance"] == 1.0
    level = (bid_index(result.call) - FIRST_BID) // 5 + 1
    assert level == 7 and result.changed
    values = dict(zip(result.candidates, result.values, strict=True))
    assert values[bid_index(result.call)] >= 1440  # 7C (1440) or better, on every particle
    assert values[THREE_NT] == 520


def test_slam_stage_stays_out_of_partscore_decisions(
    tmp_path: Path, solver_calls: list[int]
) -> None:
    """No candidate beyond game and no slam in sight: the stage only looks, and never solves."""
    policy = blind_policy(tmp_path / "p", {PASS: 0.5, THREE_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, slam_stage=True, slam_stage_particles=8)
    weak = view_for(full_pbn(YARBOROUGH), Player.south, Player.south, [], Vul.none)
    result = BorelSearch(policy, ConstantOracle(7), cfg).search(weak, np.random.default_rng(0))
    assert result.searched and result.stats["slam_chance"] == 0.0
    assert "slam_stage" not in result.stats and not solver_calls
    assert sorted(result.candidates) == [PASS, THREE_NT]


def test_slam_zone_is_our_side_at_the_three_level_or_higher() -> None:
    def bid(text: str) -> int:
        return FIRST_BID + 5 * (int(text[0]) - 1) + "CDHSN".index(text[1])

    south, dealer = Player.south.value, Player.north.value
    # North (dealer) opened 1NT, East passed: South's 3NT and 6NT are in the zone, 2C is not.
    opened = np.array([bid("1N"), PASS])
    assert slam_zone(opened, south, dealer, bid("3N"))
    assert slam_zone(opened, south, dealer, bid("6N"))
    assert not slam_zone(opened, south, dealer, bid("2C"))
    assert not slam_zone(opened, south, dealer, PASS)  # passing partner's 1NT
    # North bid 4S: South's pass leaves our side in game; after East's 5H it does not.
    game = np.array([bid("4S"), PASS])
    assert slam_zone(game, south, dealer, PASS)
    overcalled = np.array([bid("4S"), bid("5H")])
    assert not slam_zone(overcalled, south, dealer, PASS)
    assert not slam_zone(overcalled, south, dealer, 1)  # a double: the contract is theirs
    assert not slam_zone(np.array([], dtype=np.int64), south, dealer, PASS)


def test_slam_stage_looks_past_a_single_candidate_at_game(
    tmp_path: Path, solver_calls: list[int]
) -> None:
    """The policy knows only 3NT, so plain search never looks; in the slam zone the slam stage
    does, and with 13 top tricks the solver finds the grand. A single candidate below the zone
    (a first-seat 1NT) is never searched, and costs no solve."""
    three = blind_policy(tmp_path / "p3", {THREE_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, slam_stage_particles=8)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    off = BorelSearch(three, SolverOracle(), cfg).search(rock, np.random.default_rng(0))
    assert bid_index(off.call) == THREE_NT and not off.searched and not solver_calls
    search = BorelSearch(three, SolverOracle(), replace(cfg, slam_stage=True))
    on = search.search(rock, np.random.default_rng(0))
    assert on.searched and on.stats["slam_screen"] == 1 and on.stats["slam_stage"] == 1
    assert (bid_index(on.call) - FIRST_BID) // 5 + 1 == 7 and on.changed
    assert on.candidates[0] == THREE_NT and len(on.candidates) == 3
    one_nt = blind_policy(tmp_path / "p1", {FIRST_BID + 4: 0.0})
    solves = len(solver_calls)
    low = BorelSearch(one_nt, SolverOracle(), replace(cfg, slam_stage=True))
    result = low.search(rock, np.random.default_rng(0))
    assert result.call == ALL_CALLS[FIRST_BID + 4] and not result.searched
    assert len(solver_calls) == solves


def test_a_single_candidate_with_no_slam_in_sight_is_only_screened(
    tmp_path: Path, solver_calls: list[int]
) -> None:
    three = blind_policy(tmp_path / "p3", {THREE_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, slam_stage=True, slam_stage_particles=8)
    weak = view_for(full_pbn(YARBOROUGH), Player.south, Player.south, [], Vul.none)
    result = BorelSearch(three, ConstantOracle(9), cfg).search(weak, np.random.default_rng(0))
    assert result.searched and result.stats["slam_screen"] == 1
    assert "slam_stage" not in result.stats and result.stats["slam_chance"] == 0.0
    assert bid_index(result.call) == THREE_NT and result.candidates == [THREE_NT]
    assert not solver_calls


def test_slam_stage_repeats_under_a_seed(tmp_path: Path) -> None:
    policy = blind_policy(tmp_path / "p", {PASS: 0.5, SIX_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, slam_stage=True, slam_stage_particles=8)
    view = view_for(full_pbn(ROCK, seed=3), Player.south, Player.south, [], Vul.both)
    runs = [
        BorelSearch(policy, ConstantOracle(12), cfg).search(view, np.random.default_rng(5))
        for _ in range(2)
    ]
    a, b = runs
    assert a.stats["slam_stage"] == 1
    assert a.call == b.call and a.candidates == b.candidates
    assert np.array_equal(a.values, b.values) and np.array_equal(a.posterior, b.posterior)
    assert a.stats["slam_solves"] == b.stats["slam_solves"] > 0


def test_slam_stage_options_from_the_spec() -> None:
    spec = (
        "search,slam_stage=on,slam_stage_particles=16,slam_stage_chance=0.5,slam_stage_margin=1.5"
    )
    cfg = AgentSpec.parse(spec).options
    assert isinstance(cfg, SearchOptions)
    got = cfg.config()
    assert (got.slam_stage, got.slam_stage_particles) == (True, 16)
    assert (got.slam_stage_chance, got.slam_stage_margin) == (0.5, 1.5)
    assert SearchConfig().slam_stage is False  # off by default
    with pytest.raises(AgentSpecError, match="option slam_stage_particles must be >= 1, not '0'"):
        AgentSpec.parse("search,slam_stage_particles=0")


def test_the_old_slam_stage_keys_warn_and_work(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``slam`` (the search's solver stage) is ``slam_stage`` now, apart from ``slams`` (the
    layer): the old keys still set it, with one line on stderr naming the new one each (once a
    process: a fresh record of what was said here)."""
    from bridgebot import specs

    monkeypatch.setattr(specs, "_SAID", set())
    old = AgentSpec.parse("search,slam=on,slam_particles=16,slam_chance=0.5,slam_margin=1.5")
    new = AgentSpec.parse(
        "search,slam_stage=on,slam_stage_particles=16,slam_stage_chance=0.5,slam_stage_margin=1.5"
    )
    assert old.options == new.options and str(old) == str(new)
    lines = capsys.readouterr().err.splitlines()
    assert "agent search: option slam is deprecated; use slam_stage" in lines
    assert "agent search: option slam_margin is deprecated; use slam_stage_margin" in lines
    with pytest.raises(AgentSpecError, match="give slam_stage once"):
        AgentSpec.parse("search,slam=on,slam_stage=off")


# -- the solver's check of a change (verify) --------------------------------------------------------


def test_verify_takes_back_a_change_the_solver_does_not_back(
    tmp_path: Path, solver_calls: list[int]
) -> None:
    """An estimator that gives every contract 13 tricks makes the search bid 6NT on a Yarborough
    over the policy's pass. With ``verify``, the change is rolled out again on the most drawn
    particles and scored by the solver, which finds 6NT down, so the pass stands; the check
    costs solves counted in particles, each through engine.dds."""
    policy = blind_policy(tmp_path / "p", {PASS: 0.5, SIX_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4)
    weak = view_for(full_pbn(YARBOROUGH), Player.south, Player.south, [], Vul.none)
    off = BorelSearch(policy, ConstantOracle(13), cfg).search(weak, np.random.default_rng(0))
    assert bid_index(off.call) == SIX_NT and "verify_held" not in off.stats
    assert not solver_calls
    search = BorelSearch(policy, ConstantOracle(13), replace(cfg, verify=6))
    on = search.search(weak, np.random.default_rng(0))
    assert bid_index(on.call) == PASS and on.stats["verify_held"] == 0.0
    assert solver_calls and max(solver_calls) <= 6
    assert sum(solver_calls) == on.stats["verify_solves"] == search.exact.solved


def test_verify_keeps_a_change_the_solver_backs(tmp_path: Path) -> None:
    """With 13 top tricks the solver backs 7NT over the policy's pass: the change holds."""
    policy = blind_policy(tmp_path / "p", {PASS: 0.5, SEVEN_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, verify=6)
    rock = view_for(full_pbn(ROCK), Player.south, Player.south, [], Vul.none)
    result = BorelSearch(policy, ConstantOracle(13), cfg).search(rock, np.random.default_rng(0))
    assert bid_index(result.call) == SEVEN_NT and result.stats["verify_held"] == 1.0


def test_verify_is_off_where_doubled_unless_asked() -> None:
    """``default``'s search where doubled runs ``where_doubled``: verify stays off there (so
    ``default`` bids as it did) unless ``doubled_verify`` says otherwise."""
    assert SearchConfig(verify=32).where_doubled().verify == 0
    assert SearchConfig(verify=32, doubled_verify=8).where_doubled().verify == 8


def test_verify_on_fresh_particles_takes_back_the_same_change(
    tmp_path: Path, solver_calls: list[int]
) -> None:
    """``verify_fresh`` checks on particles dealt anew (at most ``verify`` of them a model): the
    solver still finds the Yarborough's 6NT down."""
    policy = blind_policy(tmp_path / "p", {PASS: 0.5, SIX_NT: 0.0})
    cfg = SearchConfig(particles=32, rollouts=16, r_min=4, verify=6, verify_fresh=True)
    weak = view_for(full_pbn(YARBOROUGH), Player.south, Player.south, [], Vul.none)
    result = BorelSearch(policy, ConstantOracle(13), cfg).search(weak, np.random.default_rng(0))
    assert bid_index(result.call) == PASS and result.stats["verify_held"] == 0.0
    assert solver_calls and max(solver_calls) <= 6
