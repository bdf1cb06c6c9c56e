"""The seat's count of the opponents' doubles, and the shipped policy reading an auction as if they
had passed once they double wildly (engine.tendencies, the agents' ``policy_doubles``)."""

from __future__ import annotations

import numpy as np
import pytest
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.features import THEIR_DOUBLES, encode
from bridgebot.engine.policy import PolicyAgent
from bridgebot.engine.tendencies import DoubleRate, our_contract_doubled, policy_input
from bridgebot.laws.calls import ALL_CALLS, doubled_against_caller, legal_calls, to_call
from bridgebot.laws.deals import random_deal
from endplay.types import Bid, Deal, Player, Vul

from bridgebot.agents import AgentSpecError, make_agent

NAMES = {str(c).translate(str.maketrans("♣♦♥♠", "CDHS")): c for c in ALL_CALLS}


def calls(text: str) -> tuple[Bid, ...]:
    return tuple(NAMES[t] for t in text.split())


def view(deal: Deal, auction: tuple[Bid, ...], board: int = 1) -> BiddingView:
    seat = to_call(Player.north, auction)
    return BiddingView(
        seat=seat,
        dealer=Player.north,
        vul=Vul.none,
        hand=deal[seat],
        auction=auction,
        board=board,
        legal=legal_calls(Player.north, auction),
    )


def test_the_rate_counts_the_opponents_calls_since_the_seats_own() -> None:
    rate = DoubleRate(rate=0.5, seen=3)
    rate.see(calls("1S X"))  # RHO's double
    assert (rate.calls, rate.doubles) == (1, 1)
    rate.see(calls("1S X P"))  # RHO passed, LHO opened; partner's double is not counted
    assert (rate.calls, rate.doubles) == (3, 1)
    assert not rate.wild  # 1 of 3, below half
    rate.see(calls("1S X P 2H X"))  # since its 2H: LHO passed, RHO doubled
    assert (rate.calls, rate.doubles) == (5, 2)
    assert not rate.wild
    rate.see(calls("P X"))
    assert (rate.calls, rate.doubles) == (6, 3)
    assert rate.wild
    rate.see(())  # the dealer has seen no call
    assert rate.calls == 6


def test_the_rate_needs_enough_calls() -> None:
    rate = DoubleRate(rate=0.1, seen=4)
    for _ in range(3):
        rate.see(calls("1S X"))
    assert not rate.wild
    rate.see(calls("1S X"))
    assert rate.wild


@pytest.mark.parametrize("rate, least", [(0.0, 40), (1.5, 40), (0.2, 0)])
def test_bad_settings_are_refused(rate: float, least: int) -> None:
    with pytest.raises(ValueError, match="double rate"):
        DoubleRate(rate=rate, seen=least)


def test_the_input_keeps_a_double_of_our_contract() -> None:
    deal = random_deal(7, 3)
    auctions = [calls("1S X 2S P"), calls("1S X"), calls("1S P 2S X")]
    x = np.stack([encode(view(deal, a)) for a in auctions])
    assert x[:, THEIR_DOUBLES].sum(axis=1).tolist() == [1.0, 1.0, 1.0]
    assert policy_input(x, ignore=False) is x
    seen = policy_input(x, ignore=True)
    passed = encode(view(deal, calls("1S P 2S P")))
    assert np.array_equal(seen[0], passed)  # their takeout double reads as a pass
    # Our 1S, our 2S doubled: the double is the position (default's search takes it).
    assert np.array_equal(seen[1], x[1]) and np.array_equal(seen[2], x[2])


#: North's rebid after East's takeout double of its 1S, and the same auction with East passing.
DOUBLED, PASSED = calls("1S X 2S P"), calls("1S P 2S P")


def test_our_contract_doubled_reads_the_observation_as_the_laws_read_the_auction() -> None:
    rng = np.random.default_rng(5)
    deal = random_deal(7, 5)
    rows, want = [], []
    for _ in range(600):
        auction: tuple[Bid, ...] = ()
        for _ in range(int(rng.integers(0, 12))):
            legal = legal_calls(Player.north, auction)
            # Doubles and redoubles often, so that every case comes up.
            weights = np.array([3.0 if str(c) in ("X", "XX") else 1.0 for c in legal])
            auction += (legal[int(rng.choice(len(legal), p=weights / weights.sum()))],)
            if len(auction) >= 4 and all(str(c) == "P" for c in auction[-3:]):
                break
        if len(auction) >= 4 and all(str(c) == "P" for c in auction[-3:]):
            continue  # finished: nobody calls
        rows.append(encode(view(deal, auction)))
        want.append(doubled_against_caller(auction))
    got = our_contract_doubled(np.stack(rows))
    assert got.tolist() == want
    assert 30 < sum(want) < len(want) - 30  # both answers, often


def first_deal_where_the_double_matters(agent: PolicyAgent) -> Deal:
    """A deal where the shipped policy calls otherwise after :data:`DOUBLED` than after
    :data:`PASSED` (so that the tests below can tell the two readings apart)."""
    for index in range(400):
        deal = random_deal(7, index)
        doubled = agent.bid(view(deal, DOUBLED))
        passed = agent.bid(view(deal, PASSED))
        if str(doubled) != str(passed):
            return deal
    raise AssertionError("no deal in 400 where the policy reads the double")


def test_auto_reads_the_doubles_until_the_opponents_double_wildly() -> None:
    read = make_agent("default,doubled=policy,policy_doubles=read,play=baseline")
    auto = make_agent(
        "default,doubled=policy,play=baseline,wild_doubles_rate=0.5,wild_doubles_seen=10"
    )
    assert isinstance(read, PolicyAgent) and isinstance(auto, PolicyAgent)
    deal = first_deal_where_the_double_matters(read)
    as_read = read.bid(view(deal, DOUBLED))
    as_passed = read.bid(view(deal, PASSED))
    # Each view shows two new calls of East-West's, one a double. Four views: eight calls,
    # below the ten it needs, so it still reads the doubles.
    for board in range(4):
        assert str(auto.bid(view(deal, DOUBLED, board))) == str(as_read)
        assert not auto.ignores_their_doubles
    # The fifth makes ten calls, half of them doubles: from here on it reads them as passes.
    assert str(auto.bid(view(deal, DOUBLED, 4))) == str(as_passed)
    assert auto.ignores_their_doubles
    assert (auto.base.doubles.rate.calls, auto.base.doubles.rate.doubles) == (10, 5)


def test_bfg_like_doubling_changes_nothing() -> None:
    auto = make_agent("default,doubled=policy,play=baseline,wild_doubles_seen=10")
    assert isinstance(auto, PolicyAgent)
    deal = random_deal(7, 0)
    for board in range(10):  # one double in 20 opponents' calls: 5%, under 12%
        auto.bid(view(deal, DOUBLED if board == 0 else PASSED, board))
    assert auto.base.doubles.rate.calls == 20 and not auto.ignores_their_doubles


def test_ignore_always_reads_them_as_passes() -> None:
    read = make_agent("default,doubled=policy,policy_doubles=read,play=baseline")
    ignore = make_agent("default,doubled=policy,policy_doubles=ignore,play=baseline")
    assert isinstance(read, PolicyAgent) and isinstance(ignore, PolicyAgent)
    deal = first_deal_where_the_double_matters(read)
    assert str(ignore.bid(view(deal, DOUBLED))) == str(read.bid(view(deal, PASSED)))
    assert ignore.base.doubles.rate.calls == 0  # only auto counts


@pytest.mark.parametrize(
    "spec",
    [
        "default,policy_doubles=sometimes",
        "default,wild_doubles_rate=0",
        "policy:models/default,wild_doubles_seen=0",
    ],
)
def test_bad_options_name_the_agent(spec: str) -> None:
    with pytest.raises(AgentSpecError):
        make_agent(spec)


def test_the_search_counts_too_and_then_searches_with_the_doubles_read_as_passes() -> None:
    from bridgebot.engine.features import without_their_doubles
    from bridgebot.engine.search import SearchAgent

    agent = make_agent(
        "search,play=baseline,particles=64,rollouts=16,wild_doubles_rate=0.5,wild_doubles_seen=10"
    )
    assert isinstance(agent, SearchAgent) and agent.base.doubles.reading == "auto"
    deal = random_deal(7, 1)
    x = encode(view(deal, DOUBLED))[None, :]
    want = agent.search.policy.logits(without_their_doubles(x))
    assert np.array_equal(agent.base.blind.policy.logits(x), want)
    assert not np.array_equal(agent.search.policy.logits(x), want)
    for board in range(5):
        agent.reset(board)
        call = agent.bid(view(deal, DOUBLED, board))
        assert any(str(call) == str(c) for c in legal_calls(Player.north, DOUBLED))
    assert (agent.base.doubles.rate.calls, agent.base.doubles.rate.doubles) == (10, 5)
    assert agent.ignores_their_doubles


def test_the_searchs_layers_read_the_doubles_as_its_policy_does() -> None:
    """Where the search ignores the opponents' doubles (it searches ``blind``), the slam layer's
    and the convention's fallbacks read the policy's logits as the blind policy reads them, as
    the policy agent's layers do (issue 42: the search copy of the pipeline fed them logits that
    still read the doubles)."""
    from bridgebot.engine.features import legal_mask, without_their_doubles
    from bridgebot.engine.search import SearchAgent

    agent = make_agent("search,play=baseline,particles=16,rollouts=4,policy_doubles=ignore")
    assert isinstance(agent, SearchAgent)
    v = view(random_deal(7, 1), DOUBLED)
    x = encode(v)[None, :]
    mask = legal_mask(v.dealer, v.auction)[None, :]
    proposal = agent.base.propose([v], x, mask, np.array([0]))
    policy = agent.search.policy
    assert np.array_equal(proposal.logits, policy.logits(without_their_doubles(x)))
    assert not np.array_equal(proposal.logits, policy.logits(x))
