"""The 480-element bidding observation of OpenSpiel's ``bridge`` game, and the legal-call mask.

Lockhart et al. 2020 (section 3.1) and Qiu et al. 2024 (table VI; docs/papers.md) feed their policy
networks this observation; we reproduce OpenSpiel's auction tensor bit for bit (without its 4-bit
"observation type" prefix, which is constant during the auction), so the layout is:

====================  ======  ===============================================================
offset                size    meaning
====================  ======  ===============================================================
0                     2       our side: [not vulnerable, vulnerable] (one-hot)
2                     2       their side: [not vulnerable, vulnerable] (one-hot)
4                     4       did the player at relative seat r pass before the opening bid?
8 + 12*b + 0 + r      140     did relative seat r make bid b (b = 0 for 1C ... 34 for 7NT)?
8 + 12*b + 4 + r      140     did relative seat r double bid b?
8 + 12*b + 8 + r      140     did relative seat r redouble bid b?
428 + card            52      the cards we hold, OpenSpiel card order (see below)
====================  ======  ===============================================================

The bid blocks are interleaved per bid (made/doubled/redoubled x 4 seats = 12 values per bid),
exactly as OpenSpiel's ``BridgeState::ObservationTensor`` writes them. Relative seat r counts
clockwise from the observer: 0 us, 1 left-hand opponent, 2 partner, 3 right-hand opponent.

OpenSpiel always lets North deal, so it derives a caller's seat from the position in the auction.
We derive it from the real dealer instead: the encoding of a seat ``k`` places after the dealer
equals OpenSpiel's for the seat ``k`` places after North, whoever really dealt. Only the seat's
position relative to the dealer, the two sides' vulnerability, the auction and the hand matter.

OpenSpiel numbers a card ``rank * 4 + suit`` with suits clubs, diamonds, hearts, spades = 0..3 and
ranks deuce..ace = 0..12; the project's data files (``docs/data.md``) number it
``suit * 13 + rank`` with suits S, H, D, C and ranks A..2. :data:`DATA_TO_OPENSPIEL` maps one to
the other; the array API takes hands in the data-file order.

There are two implementations on purpose: :func:`encode` walks one auction call by call the way
OpenSpiel does (the inference side), :func:`encode_arrays` works on whole batches with numpy (the
training and self-play side). Tests check that they agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import BoolArray, FloatArray, IntArray
from bridgebot.engine.agent import BiddingView
from bridgebot.laws.boards import side_vulnerable, side_vulnerable_arrays
from bridgebot.laws.calls import ALL_CALLS, FIRST_BID, bid_index, legal_calls
from endplay.types import Bid, Hand, Player

FEATURE_VERSION = "openspiel480-v1"
N_FEATURES = 480
N_CALLS = len(ALL_CALLS)  # 38: pass, double, redouble, 1C..7NT
assert N_CALLS == 38

#: Offsets of the blocks in the feature vector.
VUL_US = 0
VUL_THEM = 2
OPENING_PASS = 4
BIDS = 8
HAND = 428
N_BIDS = 35

#: Positions of the opponents' doubles (relative seats 1 and 3, every bid) in the observation.
THEIR_DOUBLES: npt.NDArray[np.int64] = np.array(
    [BIDS + 12 * b + 4 + r for b in range(N_BIDS) for r in (1, 3)], dtype=np.int64
)


def without_their_doubles(x: npt.NDArray[np.floating]) -> npt.NDArray[np.float32]:
    """Observations ``x`` [B, 480] as they would read had the opponents passed instead of
    doubling (a pass after the opening sets no bit; a redouble of ours stays), as a new array."""
    out = np.array(x, dtype=np.float32, copy=True)
    out[:, THEIR_DOUBLES] = 0.0
    return out


#: ``DATA_TO_OPENSPIEL[data_index]`` is OpenSpiel's index of the same card.
DATA_TO_OPENSPIEL: npt.NDArray[np.int64] = np.array(
    [(12 - r) * 4 + (3 - s) for s in range(4) for r in range(13)], dtype=np.int64
)


def check_tiles(
    base: npt.NDArray[np.floating], hands: npt.NDArray[np.integer], who: str
) -> tuple[FloatArray, npt.NDArray[np.integer]]:
    """``base`` as float32 [M, 480] and ``hands`` as [T, M, 52]; raises ``ValueError`` (naming
    ``who``) for other shapes."""
    b = np.asarray(base, dtype=np.float32)
    h = np.asarray(hands)
    if b.ndim != 2 or b.shape[1] != N_FEATURES or h.ndim != 3 or h.shape[1:] != (len(b), 52):
        raise ValueError(
            f"{who}: base [M, {N_FEATURES}] and hands [T, M, 52] expected, "
            f"got {b.shape} and {h.shape}"
        )
    return b, h


def tile_hands(base: npt.NDArray[np.floating], hands: npt.NDArray[np.integer]) -> FloatArray:
    """Observations float32 [T * M, 480]: the ``M`` positions' observations ``base`` [M, 480]
    with their hand blocks replaced by ``hands`` [T, M, 52] (0/1, data-file order), row
    ``t * M + j`` hand ``t, j`` at position ``j``. Raises ``ValueError`` for mismatched shapes."""
    b, h = check_tiles(base, hands, "tile_hands")
    out = np.tile(b, (h.shape[0], 1))
    out[:, HAND : HAND + 52] = 0.0
    out[:, HAND + DATA_TO_OPENSPIEL] = h.reshape(-1, 52) != 0
    return out


#: Bit numbers of the ranks A..2 in endplay's per-suit holding masks.
_RANK_BITS = np.arange(14, 1, -1, dtype=np.uint32)


def hand_to_array(hand: Hand) -> npt.NDArray[np.uint8]:
    """A 13-hot uint8[52] in the data-file order.

    Iterating an endplay ``Hand`` builds a ``Card`` per card (~0.3 ms a hand); its ``_data`` holds
    one rank bitmask per suit in S, H, D, C order (bit n for rank n, deuce = 2), which numpy
    unpacks in microseconds. A test checks this against iteration.
    """
    masks = np.array(list(hand._data), dtype=np.uint32)
    bits = (masks[:, None] >> _RANK_BITS[None, :]) & 1
    return bits.reshape(52).astype(np.uint8)


def encode(view: BiddingView) -> FloatArray:
    """The observation of ``view.seat`` (float32[480]), built call by call as OpenSpiel does."""
    out = np.zeros(N_FEATURES, dtype=np.float32)
    me = (view.seat.value - view.dealer.value) % 4
    out[VUL_US + int(side_vulnerable(view.vul, view.seat))] = 1
    out[VUL_THEM + int(side_vulnerable(view.vul, view.seat.lho))] = 1
    last_bid = 0
    for i, call in enumerate(view.auction):
        c = bid_index(call)
        rel = (i - me) % 4
        if last_bid == 0 and c == 0:
            out[OPENING_PASS + rel] = 1
        if c == 1:
            out[BIDS + (last_bid - FIRST_BID) * 12 + 4 + rel] = 1
        elif c == 2:
            out[BIDS + (last_bid - FIRST_BID) * 12 + 8 + rel] = 1
        elif c != 0:
            last_bid = c
            out[BIDS + (c - FIRST_BID) * 12 + rel] = 1
    out[HAND + DATA_TO_OPENSPIEL] = hand_to_array(view.hand)
    return out


def legal_mask(dealer: Player, auction: Sequence[Bid]) -> BoolArray:
    """bool[38] over :data:`ALL_CALLS`: which calls the player to act may make.

    ``dealer`` does not change legality (only who sits where), but is part of the signature so
    the call reads like :func:`laws.calls.legal_calls`, which this defers to. All False once
    the auction is over.
    """
    mask = np.zeros(N_CALLS, dtype=np.bool_)
    for call in legal_calls(dealer, auction):
        mask[bid_index(call)] = True
    return mask


def _check_batch(auctions: npt.NDArray[np.integer], what: str) -> npt.NDArray[np.int64]:
    a = np.asarray(auctions)
    if a.ndim != 2:
        raise ValueError(f"{what}: auctions must be a 2-D array [B, L], got shape {a.shape}")
    a64 = a.astype(np.int64)
    if a64.size and (a64.max() >= N_CALLS or a64.min() < -1):
        raise ValueError(f"{what}: auction entries must be call indices 0..37 or -1 padding")
    return a64


def _last_bid_so_far(a: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``out[b, j]`` = index of the last contract bid among calls 0..j of row b (0 if none)."""
    bids = np.where(a >= FIRST_BID, a, 0)
    return np.maximum.accumulate(bids, axis=1) if a.shape[1] else bids


def encode_arrays(
    hands: npt.NDArray[np.integer],
    seat_rel_dealer: npt.NDArray[np.integer],
    vul_us: npt.NDArray[np.bool_],
    vul_them: npt.NDArray[np.bool_],
    auctions: npt.NDArray[np.integer],
    tiles: int = 1,
) -> FloatArray:
    """Batch version of :func:`encode` (float32[B, 480]).

    ``hands``: uint8[B, 52], 1 where the observer holds the card (data-file order);
    ``seat_rel_dealer``: int[B], the observer's seat counted clockwise from the dealer (0..3);
    ``vul_us`` / ``vul_them``: bool[B]; ``auctions``: int[B, L] of :data:`ALL_CALLS` indices from
    the dealer's call on, padded with -1 at the end. Bids strictly increase, so the bid a double
    or redouble refers to is the running maximum of the bids so far.

    ``tiles`` > 1: the other arguments describe ``M`` positions once and ``hands`` holds
    ``tiles * M`` rows (row ``t * M + j`` a hand at position ``j``); the result is, bit for bit,
    the encoding of the positions repeated ``tiles`` times, with the auction blocks encoded ``M``
    times instead of ``tiles * M`` (the particle filter's case: thousands of hands, a few
    positions). Raises ``ValueError`` for arrays of the wrong shape.
    """
    if tiles > 1:
        m = np.asarray(auctions).shape[0]
        h = np.asarray(hands)
        if h.shape != (tiles * m, 52):
            raise ValueError(
                f"encode_arrays: hands must have shape ({tiles} * {m}, 52), got {h.shape}"
            )
        base = encode_arrays(
            np.zeros((m, 52), np.uint8), seat_rel_dealer, vul_us, vul_them, auctions
        )
        out = np.tile(base, (tiles, 1))
        out[:, HAND + DATA_TO_OPENSPIEL] = h != 0
        return out
    a = _check_batch(auctions, "encode_arrays")
    h = np.asarray(hands)
    batch, length = a.shape
    if h.shape != (batch, 52):
        raise ValueError(f"encode_arrays: hands must have shape ({batch}, 52), got {h.shape}")
    me = np.asarray(seat_rel_dealer, dtype=np.int64).reshape(batch)
    out = np.zeros((batch, N_FEATURES), dtype=np.float32)
    rows = np.arange(batch)
    out[rows, VUL_US + np.asarray(vul_us, dtype=np.int64).reshape(batch)] = 1
    out[rows, VUL_THEM + np.asarray(vul_them, dtype=np.int64).reshape(batch)] = 1
    out[:, HAND + DATA_TO_OPENSPIEL] = h != 0
    if length == 0:
        return out
    last = _last_bid_so_far(a)
    rel = (np.arange(length)[None, :] - me[:, None]) % 4
    block = BIDS + (last - FIRST_BID) * 12
    idx = np.full(a.shape, -1, dtype=np.int64)
    idx = np.where(a >= FIRST_BID, block + rel, idx)
    idx = np.where(a == 1, block + 4 + rel, idx)
    idx = np.where(a == 2, block + 8 + rel, idx)
    idx = np.where((a == 0) & (last == 0), OPENING_PASS + rel, idx)
    r, j = np.nonzero(idx >= 0)
    out[r, idx[r, j]] = 1
    return out


def decode_bids(x: FloatArray) -> BoolArray:
    """The auction part of observations ``[..., 480]``, decoded: bool ``[..., 35, 3, 4]``, bid
    (1C..7NT) x (made, doubled, redoubled) x the seat that did it, relative to the observer.

    The inverse of the bid block :func:`encode` writes, next to it so that every reader of an
    observation (the doubles layer, the league's bfg seat, the doubles fit) decodes it one way."""
    block = np.asarray(x)[..., BIDS : BIDS + 12 * N_BIDS]
    bids: BoolArray = block.reshape(*block.shape[:-1], N_BIDS, 3, 4) > 0
    return bids


@dataclass(frozen=True)
class StandingContract:
    """The contract standing at observations, seen from the observer (arrays, one per row):
    whether any bid was made (``has``), its level and strain, and the relative seat that would
    declare it."""

    has: npt.NDArray[np.bool_]
    level: IntArray
    strain: IntArray  # 0..4 = C, D, H, S, NT
    declarer_rel: IntArray  # 0 us, 1 LHO, 2 partner, 3 RHO


def standing_contract(x: FloatArray) -> StandingContract:
    """The highest bid so far in observations ``x`` [B, 480], its strain and the relative seat
    that would declare it (read by the penalty doubles, the slam layer and the league's
    oracle)."""
    made: npt.NDArray[np.bool_] = np.asarray(decode_bids(x)[:, :, 0, :])
    any_bid = np.asarray(made.any(axis=2), dtype=np.bool_)  # [B, 35]
    has = np.asarray(any_bid.any(axis=1), dtype=np.bool_)
    top = np.where(has, N_BIDS - 1 - np.argmax(any_bid[:, ::-1], axis=1), 0)
    rows = np.arange(len(x))
    bidder = np.argmax(made[rows, top], axis=1)
    strain = top % 5
    # Declarer: the first of the bidder's side to name the strain, i.e. the one with the lowest
    # bid in that strain (bids only go up).
    of_strain = (np.arange(N_BIDS)[None, :] % 5) == strain[:, None]  # [B, 35]
    side = np.stack([bidder, (bidder + 2) % 4], axis=1)  # [B, 2]
    first = np.full((len(x), 2), N_BIDS, dtype=np.int64)
    for k in range(2):
        named = made[rows, :, side[:, k]] & of_strain
        first[:, k] = np.where(named.any(axis=1), np.argmax(named, axis=1), N_BIDS)
    declarer = side[rows, np.argmin(first, axis=1)]
    return StandingContract(has, top // 5 + 1, strain.astype(np.int64), declarer.astype(np.int64))


def decode_hand(x: FloatArray) -> BoolArray:
    """The observer's cards in observations ``[..., 480]``: bool ``[..., 52]`` in the data-file
    order of :mod:`bridgebot.laws.cards` (the inverse of the hand block of :func:`encode`)."""
    hand: BoolArray = np.asarray(x)[..., HAND + DATA_TO_OPENSPIEL] > 0
    return hand


def legal_masks_arrays(auctions: npt.NDArray[np.integer]) -> BoolArray:
    """Batch version of :func:`legal_mask` (bool[B, 38]) for -1-padded auctions of call indices.

    Legality depends only on the calls (sides alternate), not on who dealt. Rows whose auction
    is over get an all-False mask.
    """
    a = _check_batch(auctions, "legal_masks_arrays")
    batch, length = a.shape
    n = (a >= 0).sum(axis=1)  # calls made; the next caller is at position n
    pos = np.arange(length)[None, :]
    valid = a >= 0
    is_bid = valid & (a >= FIRST_BID)
    last_bid = _last_bid_so_far(a)[:, -1] if length else np.zeros(batch, dtype=np.int64)
    # Position of the last contract bid (-1 if none).
    p_last = np.where(is_bid, pos, -1).max(axis=1) if length else np.full(batch, -1)
    after = valid & (pos > p_last[:, None])
    doubled_after = (after & (a == 1)).any(axis=1)
    redoubled_after = (after & (a == 2)).any(axis=1)
    has_bid = p_last >= 0
    our_bid = has_bid & ((n - p_last) % 2 == 0)
    mask = np.zeros((batch, N_CALLS), dtype=np.bool_)
    mask[:, 0] = True
    mask[:, 1] = has_bid & ~our_bid & ~doubled_after & ~redoubled_after
    mask[:, 2] = has_bid & our_bid & doubled_after & ~redoubled_after
    mask[:, FIRST_BID:] = np.arange(FIRST_BID, N_CALLS)[None, :] > last_bid[:, None]
    # Over: at least four calls and the last three are passes.
    if length >= 3:
        idx3 = np.clip(n[:, None] - np.arange(1, 4)[None, :], 0, None)
        last3_pass = (np.take_along_axis(a, idx3, axis=1) == 0).all(axis=1)
        over = (n >= 4) & last3_pass
        mask[over] = False
    return mask


def vul_flags(
    vul: npt.NDArray[np.integer], seat: npt.NDArray[np.integer]
) -> tuple[BoolArray, BoolArray]:
    """(vul_us, vul_them) for absolute seats (0..3 = N, E, S, W) under endplay ``Vul`` values."""
    s = np.asarray(seat, dtype=np.int64)
    return side_vulnerable_arrays(vul, s), side_vulnerable_arrays(vul, s + 1)


def auction_from_observation(x: npt.NDArray[np.float32]) -> list[int]:
    """The auction so far (ALL_CALLS indices from the dealer's call) from one 480-observation.

    The observation says who made, doubled and redoubled each bid, and who passed before the
    opening; bids rise, so their order is known, and passes fill the turns between those calls
    up to the observer's (relative seat 0). This lets a bidder that needs the auction in order
    (bfg) sit in ``run_auctions``, whose choosers see observations only.
    """
    bids = decode_bids(x)
    events = [
        (int(r), FIRST_BID + b if kind == 0 else kind)
        for b, kind, r in zip(*np.nonzero(bids), strict=True)
    ]
    passes = int(x[OPENING_PASS : OPENING_PASS + 4].sum())
    seat = ((events[0][0] if events else 0) - passes) % 4
    calls: list[int] = []
    for r, c in events:
        while seat != r:
            calls.append(0)
            seat = (seat + 1) % 4
        calls.append(c)
        seat = (seat + 1) % 4
    while seat != 0:
        calls.append(0)
        seat = (seat + 1) % 4
    return calls
