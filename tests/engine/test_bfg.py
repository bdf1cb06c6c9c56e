"""The bfg agent: real bfgbidding on fixed hands, conversions, fallbacks, silence, card play."""

from __future__ import annotations

import pytest
from bridgebot.engine.agent import Agent, BiddingView, PlayView
from bridgebot.engine.bfg import CALL_NAMES, BfgAgent, BfgBidder, card_names
from bridgebot.engine.cardplay import baseline_card
from bridgebot.laws.calls import ALL_CALLS, auction_over, bid_index, legal_calls
from bridgebot.laws.play import legal_cards
from endplay.types import Bid, Contract, Denom, Hand, Penalty, Player, Vul

from bridgebot.agents import AgentSpecError, make_agent


def names(auction: list[str]) -> list[int]:
    return [CALL_NAMES.index(n) for n in auction]


def view(hand: str, auction: list[str], dealer: Player = Player.north) -> BiddingView:
    calls = tuple(ALL_CALLS[i] for i in names(auction))
    seat = Player((dealer.value + len(calls)) % 4)
    return BiddingView(
        seat=seat,
        dealer=dealer,
        vul=Vul.none,
        hand=Hand(hand),
        auction=calls,
        board=1,
        legal=legal_calls(dealer, calls),
    )


def test_call_names_follow_all_calls() -> None:
    assert len(CALL_NAMES) == 38
    assert CALL_NAMES[:4] == ("P", "D", "R", "1C") and CALL_NAMES[7] == "1NT"
    assert CALL_NAMES[-1] == "7NT"
    assert card_names(Hand("AT2.K.QJ32.98765")) == [
        *("AS", "TS", "2S", "KH", "QD", "JD", "3D", "2D"),
        *("9C", "8C", "7C", "6C", "5C"),
    ]


@pytest.mark.parametrize(
    ("hand", "auction", "expected"),
    [
        # Acol: a weak no-trump, 12-14 balanced (a five-card major allowed).
        ("K2.KQJ32.A32.432", [], "1NT"),
        ("AQ2.K32.Q432.J32", ["P", "P"], "1NT"),
        # 15-17 balanced is too strong for the weak no-trump: open a suit.
        ("AQ2.K32.KJ32.Q32", [], "1D"),
        # 23 points: the strong artificial 2C.
        ("AKQ.AK2.AKJ2.K32", [], "2C"),
        # 11 points, balanced: pass.
        ("KQ2.K32.Q432.J32", [], "P"),
    ],
)
def test_fixed_openings(hand: str, auction: list[str], expected: str) -> None:
    agent = make_agent("bfg")
    got = agent.bid(view(hand, auction))
    assert bid_index(got) == CALL_NAMES.index(expected)


def test_illegal_answer_becomes_pass_and_is_counted() -> None:
    # Found in teacher data (seed 1, deal 204): bfg repeats its side's 4S over partner's 4S.
    auction = ["P", "1D", "P", "1S", "P", "1NT", "P", "3H", "P", "4S", "P"]
    agent = BfgAgent()
    got = agent.bid(view("QJT75.AQ92.Q.JT7", auction, dealer=Player.south))
    assert bid_index(got) == 0
    assert agent.stats.calls == 1 and agent.stats.fallbacks == 1 and agent.stats.errors == 0
    assert "4S" in agent.stats.last_problem


def test_exception_becomes_pass_and_is_counted() -> None:
    bidder = BfgBidder()
    assert bidder.call(["not a card"], []) == 0
    assert bidder.stats.errors == 1 and bidder.stats.fallbacks == 0
    assert bidder.stats.last_problem


def test_whole_auctions_are_legal_and_silent(capsys: pytest.CaptureFixture[str]) -> None:
    hands = ["AK32.KQ2.J32.Q32", "QJ9.AJ87.AK8.K54", "T87.T9.Q9765.J76", "654.6543.T4.AT98"]
    for dealer in Player:
        agents: list[Agent] = [make_agent("bfg") for _ in range(4)]
        auction: list[Bid] = []
        while not auction_over(auction):
            seat = Player((dealer.value + len(auction)) % 4)
            v = BiddingView(
                seat=seat,
                dealer=dealer,
                vul=Vul.both,
                hand=Hand(hands[seat.value]),
                auction=tuple(auction),
                board=1,
                legal=legal_calls(dealer, auction),
            )
            call = agents[seat.value].bid(v)
            assert any(bid_index(call) == bid_index(c) for c in v.legal)
            auction.append(call)
        assert any(bid_index(c) >= 3 for c in auction)  # somebody opens with 13+ points
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_spec_and_play() -> None:
    agent = make_agent("bfg,seed=3")
    assert agent.name == "bfg"
    with pytest.raises(AgentSpecError, match="bfg"):
        make_agent("bfg,depth=3")
    hand = Hand("AK32.KQ2.J32.Q32")
    contract = Contract(level=1, denom=Denom.nt, declarer=Player.west, penalty=Penalty.passed)
    pv = PlayView(
        seat=Player.north,
        controller=Player.north,
        dealer=Player.north,
        vul=Vul.none,
        auction=(),
        contract=contract,
        hand=hand,
        dummy=None,
        played=(),
        legal=legal_cards(hand, []),
    )
    card = agent.play(pv)
    assert card in pv.legal
    assert card == baseline_card(pv)
