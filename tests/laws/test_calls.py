"""The laws of the table: legal calls, auction end, final contract, legal cards, trick winners."""

from __future__ import annotations

import random

import numpy as np
import pytest
from bridgebot.laws.calls import (
    ALL_CALLS,
    DOUBLE,
    PASS,
    REDOUBLE,
    auction_over,
    bid_index,
    bid_rank,
    call_index,
    doubled_against_caller,
    final_contract,
    is_legal_call,
    legal_calls,
    passed_out,
    same_call,
    to_call,
)
from bridgebot.laws.play import beats, legal_cards, trick_winner, winning_index
from endplay.types import Bid, Card, Contract, Denom, Hand, Penalty, Player


def calls(text: str) -> list[Bid]:
    return [Bid(t) for t in text.split()]


def test_all_calls_order_and_index() -> None:
    assert len(ALL_CALLS) == 38
    assert [str(c) for c in ALL_CALLS[:5]] == ["P", "X", "XX", "1♣", "1♦"]
    assert str(ALL_CALLS[-1]) == "7NT"
    for i, c in enumerate(ALL_CALLS):
        assert bid_index(c) == i


def test_opening_calls() -> None:
    legal = legal_calls(Player.north, [])
    assert len(legal) == 36  # pass and the 35 bids
    assert same_call(legal[0], PASS)


@pytest.mark.parametrize(
    ("auction", "double", "redouble"),
    [
        ("1S", True, False),  # opponent's undoubled bid
        ("1S P", False, False),  # partner's bid
        ("1S P P", True, False),  # balancing double
        ("1S X", False, True),  # our bid doubled by them
        ("1S X P", False, False),  # their double of our bid, redouble is ours not theirs
        ("1S X P P", False, True),  # back to the bidder's side
        ("1S X XX", False, False),
        ("1S P 2S X", False, True),
    ],
)
def test_double_and_redouble(auction: str, double: bool, redouble: bool) -> None:
    legal = legal_calls(Player.north, calls(auction))
    assert any(same_call(c, DOUBLE) for c in legal) is double
    assert any(same_call(c, REDOUBLE) for c in legal) is redouble


def test_bids_must_rise() -> None:
    legal = legal_calls(Player.east, calls("2H"))
    assert not is_legal_call(Player.east, calls("2H"), Bid("2H"))
    assert not is_legal_call(Player.east, calls("2H"), Bid("1NT"))
    assert is_legal_call(Player.east, calls("2H"), Bid("2S"))
    assert min(bid_index(c) for c in legal if c.__class__.__name__ == "ContractBid") == bid_index(
        Bid("2S")
    )


def test_auction_end_and_pass_out() -> None:
    assert not auction_over(calls("P P P"))
    assert auction_over(calls("P P P P")) and passed_out(calls("P P P P"))
    assert not auction_over(calls("1C P P"))
    assert auction_over(calls("1C P P P")) and not passed_out(calls("1C P P P"))
    assert legal_calls(Player.north, calls("1C P P P")) == ()
    assert to_call(Player.west, calls("P P")) is Player.east


def test_final_contract_first_namer_declares() -> None:
    # docs/protocol.md 6.1: North deals, P P 1C 2H X 3H 3S P P P -> South declares 3S.
    auction = calls("P P 1C 2H X 3H 3S P P P")
    c = final_contract(Player.north, auction)
    assert c is not None
    assert (c.level, c.denom, c.declarer, c.penalty) == (
        3,
        Denom.spades,
        Player.south,
        Penalty.passed,
    )
    # Partner named the strain first: 1H by East, 4H by West -> East declares.
    c = final_contract(Player.north, calls("P 1H P 4H P P P"))
    assert c is not None and c.declarer is Player.east
    c = final_contract(Player.north, calls("1NT X XX P P P"))
    assert c is not None and c.penalty is Penalty.redoubled and c.declarer is Player.north
    assert final_contract(Player.north, calls("P P P P")) is None


def test_legal_cards_follow_suit() -> None:
    hand = Hand("AK4.QJ32..T98765")
    assert set(map(str, legal_cards(hand, []))) == set(map(str, hand))
    assert {str(c) for c in legal_cards(hand, [Card("S3")])} == {"♠A", "♠K", "♠4"}
    # Void in diamonds: anything goes.
    assert len(legal_cards(hand, [Card("D3")])) == 13


def test_trick_winner() -> None:
    trick = [Card("S2"), Card("SA"), Card("H3"), Card("S5")]
    assert trick_winner(Player.north, trick, Denom.nt) is Player.east
    assert trick_winner(Player.north, trick, Denom.hearts) is Player.south
    assert trick_winner(Player.west, trick, Denom.clubs) is Player.north
    with pytest.raises(ValueError, match="four cards"):
        trick_winner(Player.north, trick[:3], Denom.nt)


def test_the_card_winning_a_trick_so_far() -> None:
    trick = [Card("H9"), Card("HK"), Card("C2"), Card("HA")]
    assert [winning_index(trick[:n], Denom.nt) for n in range(1, 5)] == [0, 1, 1, 3]
    assert [winning_index(trick[:n], Denom.clubs) for n in range(1, 5)] == [0, 1, 2, 2]
    assert beats(Card("HA"), Card("HK"), Denom.spades) and not beats(
        Card("SA"), Card("H2"), Denom.nt
    )
    assert beats(Card("C2"), Card("HA"), Denom.clubs) and not beats(
        Card("C2"), Card("C3"), Denom.clubs
    )
    with pytest.raises(ValueError, match="empty"):
        winning_index([], Denom.nt)


def test_random_auctions_end_with_a_contract_matching_endplay() -> None:
    rng = random.Random(5)
    for _ in range(300):
        dealer = Player(rng.randrange(4))
        auction: list[Bid] = []
        while not auction_over(auction):
            legal = legal_calls(dealer, auction)
            auction.append(legal[0] if rng.random() < 0.55 else rng.choice(legal))
        c = final_contract(dealer, auction)
        if passed_out(auction):
            assert c is None
            continue
        assert isinstance(c, Contract)
        # endplay's own auction-to-contract logic agrees.
        ref = Contract.from_auction(dealer, auction)
        assert (ref.level, ref.denom, ref.declarer, ref.penalty) == (
            c.level,
            c.denom,
            c.declarer,
            c.penalty,
        )


@pytest.mark.parametrize(
    ("auction", "doubled"),
    [
        ("", False),
        ("1H", False),  # 1H is the other side's
        ("1H X", True),  # partner's 1H, doubled
        ("1H X Pass", False),  # the doubler's partner to call
        ("1H X Pass Pass", True),  # back to the bidder
        ("1H X XX Pass", False),  # redoubled
        ("1H Pass Pass X", True),  # a balancing double of our 1H
        ("1H 2C X", True),  # partner's 2C, doubled
        ("1H 2C X Pass", False),  # the doubler's side to call
        ("1H X 2H", False),  # a new bid after the double
    ],
)
def test_doubled_against_caller(auction: str, doubled: bool) -> None:
    """The caller's side holds the standing contract, doubled and not redoubled."""
    calls = [Bid(t) for t in auction.split()]
    assert doubled_against_caller(calls) is doubled


def test_bid_rank_and_call_index_agree_with_the_call_order() -> None:
    ranks = [bid_rank(level, strain) for level in range(1, 8) for strain in range(5)]
    assert ranks == list(range(35))
    assert ALL_CALLS[call_index(1, 0)] == Bid("1C")
    assert ALL_CALLS[call_index(4, 2)] == Bid("4H")
    assert ALL_CALLS[call_index(7, 4)] == Bid("7NT")
    levels, strains = np.array([1, 6, 7]), np.array([4, 3, 0])
    assert call_index(levels, strains).tolist() == [
        call_index(1, 4),
        call_index(6, 3),
        call_index(7, 0),
    ]
