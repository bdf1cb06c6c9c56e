"""The OpenSpiel 480 observation: exact bit positions, legal masks, batch encoder == scalar encoder."""

from __future__ import annotations

import numpy as np
import pytest
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.features import (
    DATA_TO_OPENSPIEL,
    FEATURE_VERSION,
    N_CALLS,
    N_FEATURES,
    encode,
    encode_arrays,
    hand_to_array,
    legal_mask,
    legal_masks_arrays,
    standing_contract,
    vul_flags,
    without_their_doubles,
)
from bridgebot.laws.calls import ALL_CALLS, auction_over, bid_index, legal_calls
from bridgebot.laws.cards import RANKS, card_index
from endplay.types import Bid, Deal, Hand, Player, Vul

P, X, XX = ALL_CALLS[0], ALL_CALLS[1], ALL_CALLS[2]


def call(text: str) -> Bid:
    """'1H' -> the contract bid (ALL_CALLS order: 3 + 5*(level-1) + C,D,H,S,NT)."""
    return ALL_CALLS[3 + 5 * (int(text[0]) - 1) + "CDHSN".index(text[1])]


HAND = Hand("AKQJ.T98.765.432")
#: OpenSpiel card index = rank * 4 + suit (C, D, H, S = 0..3; deuce..ace = 0..12).
HAND_BITS = {428 + i for i in (51, 47, 43, 39, 34, 30, 26, 21, 17, 13, 8, 4, 0)}

# Dealer's side opens with two passes, then: 1H (pos 2), X (3), XX (4), P, P, 2C (7), X (8).
AUCTION = (P, P, call("1H"), X, XX, P, P, call("2C"), X)
#: Expected auction bits for the observer sitting k seats after the dealer, worked out by hand:
#: opening passes at 4 + rel, 1H block at 8 + 12*2 = 32, 2C block at 8 + 12*5 = 68,
#: made +0, doubled +4, redoubled +8, rel = (position - k) mod 4.
AUCTION_BITS = {
    0: {4, 5, 34, 39, 40, 71, 72},
    1: {7, 4, 33, 38, 43, 70, 75},
    2: {6, 7, 32, 37, 42, 69, 74},
    3: {5, 6, 35, 36, 41, 68, 73},
}
#: (vul, seat parity) -> (us vulnerable, them vulnerable); bit us = 0 + flag, them = 2 + flag.
VUL_TABLE = {
    (Vul.none, 0): (0, 0),
    (Vul.none, 1): (0, 0),
    (Vul.both, 0): (1, 1),
    (Vul.both, 1): (1, 1),
    (Vul.ns, 0): (1, 0),
    (Vul.ns, 1): (0, 1),
    (Vul.ew, 0): (0, 1),
    (Vul.ew, 1): (1, 0),
}


def view(seat: Player, dealer: Player, vul: Vul, auction: tuple[Bid, ...], hand: Hand = HAND):
    # encode reads no legal calls; the encoder tests also encode finished auctions, which have none.
    legal = legal_calls(dealer, auction) or (P,)
    return BiddingView(seat, dealer, vul, hand, auction, 1, legal)


def test_constants() -> None:
    assert FEATURE_VERSION == "openspiel480-v1"
    assert N_FEATURES == 480 and N_CALLS == 38
    assert sorted(DATA_TO_OPENSPIEL.tolist()) == list(range(52))
    assert DATA_TO_OPENSPIEL[0] == 51  # spade ace
    assert DATA_TO_OPENSPIEL[51] == 0  # club deuce
    assert DATA_TO_OPENSPIEL[13] == 50  # heart ace


@pytest.mark.parametrize("dealer", list(Player))
@pytest.mark.parametrize("vul", list(Vul))
def test_exact_bits_every_dealer_seat_vulnerability(dealer: Player, vul: Vul) -> None:
    for seat in Player:
        k = (seat.value - dealer.value) % 4
        us, them = VUL_TABLE[(vul, seat.value % 2)]
        expected = {0 + us, 2 + them} | AUCTION_BITS[k] | HAND_BITS
        got = encode(view(seat, dealer, vul, AUCTION))
        assert got.dtype == np.float32 and got.shape == (480,)
        assert set(np.flatnonzero(got).tolist()) == expected, (dealer, vul, seat)
        assert set(np.unique(got).tolist()) == {0.0, 1.0}


def test_empty_auction_has_only_vulnerability_and_hand() -> None:
    got = encode(view(Player.west, Player.west, Vul.ew, ()))
    assert set(np.flatnonzero(got).tolist()) == {1, 2} | HAND_BITS


def test_seven_notrump_redoubled_is_the_last_bid_block() -> None:
    # N 7NT, E X, S XX, seen by West (dealer North): 7NT block = 8 + 12 * 34 = 416.
    got = encode(view(Player.west, Player.north, Vul.none, (call("7N"), X, XX)))
    assert set(np.flatnonzero(got[4:428]).tolist()) == {416 + 1 - 4, 420 + 2 - 4, 424 + 3 - 4}


def test_pass_after_a_bid_is_not_an_opening_pass() -> None:
    got = encode(view(Player.north, Player.north, Vul.none, (call("1C"), P, P)))
    assert not got[4:8].any()
    assert set(np.flatnonzero(got[8:428]).tolist()) == {0}


def test_legal_mask_rules() -> None:
    d = Player.south
    m = legal_mask(d, ())
    assert m[0] and not m[1] and not m[2] and m[3:].all()
    # Double only against the opponents' undoubled bid.
    m = legal_mask(d, (call("1S"),))
    assert m[1] and not m[2]
    assert not m[3 : bid_index(call("1S")) + 1].any() and m[bid_index(call("1S")) + 1 :].all()
    assert not legal_mask(d, (call("1S"), P))[1]  # partner's bid
    assert legal_mask(d, (call("1S"), P, P))[1]  # opponents' bid, passed round
    assert not legal_mask(d, (call("1S"), X, P))[1]  # already doubled
    # Redouble only after the opponents' double of our side's bid.
    assert legal_mask(d, (call("1S"), X))[2]
    assert legal_mask(d, (call("1S"), X, P, P))[2]
    assert not legal_mask(d, (call("1S"), X, P))[2]
    assert not legal_mask(d, (call("1S"), X, XX))[2] and not legal_mask(d, (call("1S"), X, XX))[1]
    # Nothing above 7NT; pass always legal while the auction runs; nothing once it ends.
    m = legal_mask(d, (call("7N"),))
    assert m[0] and m[1] and not m[3:].any()
    assert legal_mask(d, (P, P, P))[0]
    assert not legal_mask(d, (P, P, P, P)).any()
    assert not legal_mask(d, (call("1C"), P, P, P)).any()


def random_auctions(rng: np.random.Generator, count: int) -> list[tuple[Bid, ...]]:
    """Legal auctions, stopped at random points (some finished), biased towards passes."""
    out = []
    for _ in range(count):
        auction: list[Bid] = []
        stop = rng.integers(0, 30)
        while len(auction) < stop and not auction_over(auction):
            legal = legal_calls(Player.north, auction)
            if rng.random() < 0.45:
                choice = legal[0]
            elif rng.random() < 0.3 and len(legal) > 1 and bid_index(legal[1]) < 3:
                choice = legal[1]
            else:
                choice = legal[int(rng.integers(0, min(len(legal), 8)))]
            auction.append(choice)
        out.append(tuple(auction))
    return out


def pad(auctions: list[tuple[Bid, ...]], length: int) -> np.ndarray:
    a = np.full((len(auctions), length), -1, dtype=np.int16)
    for i, auc in enumerate(auctions):
        a[i, : len(auc)] = [bid_index(c) for c in auc]
    return a


def random_hand(rng: np.random.Generator) -> Hand:
    cards = rng.choice(52, size=13, replace=False)
    suits = ["".join(RANKS[r] for r in range(13) if s * 13 + r in cards) for s in range(4)]
    return Hand(".".join(suits))


def test_hand_to_array_equals_card_iteration() -> None:
    rng = np.random.default_rng(5)
    for _ in range(50):
        hand = random_hand(rng)
        expected = np.zeros(52, dtype=np.uint8)
        for card in hand:
            expected[card_index(card)] = 1
        np.testing.assert_array_equal(hand_to_array(hand), expected)
    assert np.flatnonzero(hand_to_array(Hand("A...2"))).tolist() == [0, 51]


def test_batch_encoder_equals_scalar_encoder() -> None:
    rng = np.random.default_rng(7)
    auctions = random_auctions(rng, 400)
    length = max(len(a) for a in auctions) + 2  # trailing padding too
    calls = pad(auctions, length)
    dealers = rng.integers(0, 4, size=len(auctions))
    seats = rng.integers(0, 4, size=len(auctions))
    vuls = rng.integers(0, 4, size=len(auctions))
    hands = [random_hand(rng) for _ in auctions]
    expected = np.stack(
        [
            encode(view(Player(int(s)), Player(int(d)), Vul(int(v)), auc, h))
            for s, d, v, auc, h in zip(seats, dealers, vuls, auctions, hands, strict=True)
        ]
    )
    vul_us, vul_them = vul_flags(vuls, seats)
    got = encode_arrays(
        np.stack([hand_to_array(h) for h in hands]),
        (seats - dealers) % 4,
        vul_us,
        vul_them,
        calls,
    )
    assert got.dtype == np.float32 and got.shape == (len(auctions), 480)
    np.testing.assert_array_equal(got, expected)
    assert (got[:, 428:].sum(axis=1) == 13).all()


def test_tiled_encoder_is_the_batch_encoder_bit_for_bit() -> None:
    """The particle filter's encoder (positions once, hands per particle) makes encode_arrays'
    rows of the tiled inputs exactly, every position's hand differing per particle."""
    rng = np.random.default_rng(12)
    m, particles = 9, 7
    calls = pad(random_auctions(rng, m), 30)
    seats = rng.integers(0, 4, size=m)
    vul_us, vul_them = vul_flags(rng.integers(0, 4, size=m), seats)
    hands = np.stack([hand_to_array(random_hand(rng)) for _ in range(particles * m)])
    got = encode_arrays(hands, seats, vul_us, vul_them, calls, tiles=particles)
    expected = encode_arrays(
        hands,
        np.tile(seats, particles),
        np.tile(vul_us, particles),
        np.tile(vul_them, particles),
        np.tile(calls, (particles, 1)),
    )
    assert got.dtype == np.float32 and got.shape == (particles * m, 480)
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match=r"hands must have shape \(7 \* 9, 52\)"):
        encode_arrays(hands[:-1], seats, vul_us, vul_them, calls, tiles=particles)


def test_batch_masks_equal_rules() -> None:
    rng = np.random.default_rng(11)
    auctions = random_auctions(rng, 400)
    assert any(auction_over(a) for a in auctions) and any(not a for a in auctions)
    calls = pad(auctions, 40)
    expected = np.stack([legal_mask(Player.east, a) for a in auctions])
    np.testing.assert_array_equal(legal_masks_arrays(calls), expected)


def test_batch_input_errors_name_the_problem() -> None:
    with pytest.raises(ValueError, match="2-D"):
        legal_masks_arrays(np.zeros(5, dtype=np.int16))
    with pytest.raises(ValueError, match=r"0\.\.37"):
        legal_masks_arrays(np.full((1, 3), 40, dtype=np.int16))
    with pytest.raises(ValueError, match="hands"):
        encode_arrays(
            np.zeros((2, 13), dtype=np.uint8),
            np.zeros(2, dtype=np.int64),
            np.zeros(2, dtype=bool),
            np.zeros(2, dtype=bool),
            np.zeros((2, 0), dtype=np.int16),
        )


def test_zero_length_auction_batch() -> None:
    hands = np.zeros((1, 52), dtype=np.uint8)
    hands[0, :13] = 1
    got = encode_arrays(
        hands, np.zeros(1, int), np.ones(1, bool), np.zeros(1, bool), np.zeros((1, 0), np.int16)
    )
    assert set(np.flatnonzero(got[0]).tolist()) == {1, 2} | {
        428 + i for i in DATA_TO_OPENSPIEL[:13]
    }
    np.testing.assert_array_equal(
        legal_masks_arrays(np.zeros((1, 0), np.int16))[0], legal_mask(Player.north, ())
    )


def test_decoders_invert_the_encoder() -> None:
    """Issue 27: the observation is decoded next to its encoder, one way for every reader."""
    from bridgebot.engine.features import decode_bids, decode_hand, encode_arrays
    from bridgebot.laws.deals import random_owners

    owners = random_owners(5, 0)
    hand = (owners == 2).astype(np.uint8)  # South's cards
    calls = ["1C", "X", "XX", "1H", "Pass", "Pass", "2C"]
    auction = np.array([[bid_index(Bid(c)) for c in calls]])
    # South is dealer + 2: the caller at position i sits (i - 2) % 4 seats after South.
    x = encode_arrays(hand[None], np.array([2]), np.array([False]), np.array([True]), auction)
    np.testing.assert_array_equal(decode_hand(x)[0], hand.astype(bool))
    bids = decode_bids(x)[0]
    one_club, one_heart, two_clubs = (bid_index(Bid(c)) - 3 for c in ("1C", "1H", "2C"))
    found = {(int(b), int(k), int(r)) for b, k, r in zip(*np.nonzero(bids), strict=True)}
    assert found == {
        (one_club, 0, 2),  # North (dealer) bid 1C: partner of South
        (one_club, 1, 3),  # East doubled it: South's RHO
        (one_club, 2, 0),  # South redoubled
        (one_heart, 0, 1),  # West: South's LHO
        (two_clubs, 0, 0),  # South again, after two passes
    }


@pytest.mark.parametrize("seat", list(Player))
def test_without_their_doubles_reads_as_if_they_had_passed(seat: Player) -> None:
    """Each seat's observation of an auction with doubles by both sides, with the doubles of
    that seat's opponents turned into passes (a legal auction for every seat): the same bits;
    our own side's doubles stay."""
    dealer = Player.north
    auction = (call("1H"), X, P, call("2C"), X, P, call("2D"), X)
    theirs = [
        i for i, c in enumerate(auction) if c == X and (dealer.value + i - seat.value) % 2 == 1
    ]
    passed = tuple(P if i in theirs else c for i, c in enumerate(auction))
    got = without_their_doubles(encode(view(seat, dealer, Vul.both, auction))[None, :])
    want = encode(view(seat, dealer, Vul.both, passed))
    assert got.dtype == np.float32 and np.array_equal(got[0], want)
    assert theirs and len(theirs) < auction.count(X)  # both sides doubled here


def test_standing_contract_names_the_declarer_first_to_bid_the_strain() -> None:
    deal = Deal("N:AKQJ.AKQ.AK2.A32 5432.5432.543.54 T98.T98.T98.KQJT 76.J76.QJ76.9876")
    # N 1H, E P, S 2C, W P, N 2H, E P, S 4H: declarer is North, partner of South (to call: W).
    calls = tuple(Bid(c) for c in ["1H", "P", "2C", "P", "2H", "P", "4H"])
    seen = BiddingView(Player.west, Player.north, Vul.none, deal.west, calls, 1, (P,))
    c = standing_contract(encode(seen)[None, :])
    assert (int(c.level[0]), int(c.strain[0])) == (4, 2)
    assert int(c.declarer_rel[0]) == 1  # North is West's left-hand opponent
    opening = BiddingView(Player.north, Player.north, Vul.none, deal.north, (), 1, (P,))
    assert not bool(standing_contract(encode(opening)[None, :]).has[0])
