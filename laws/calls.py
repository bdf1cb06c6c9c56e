"""Calls and auctions: the 38 calls, legal calls, the end of the auction and the final contract.

Pure functions over ``endplay.types``; the table manager, the seat client, the agents and the
tournament all use these, so there is one definition of legality in the project. The scalar
functions are the reference; :func:`final_contracts_array` is their numpy twin over whole batches
of auctions (tested equal).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

import numpy as np
import numpy.typing as npt
from endplay.types import Bid, Contract, ContractBid, Denom, Penalty, PenaltyBid, Player

PASS: Bid = PenaltyBid(Penalty.passed)
DOUBLE: Bid = PenaltyBid(Penalty.doubled)
REDOUBLE: Bid = PenaltyBid(Penalty.redoubled)

#: Strains in bidding order (clubs lowest), matching endplay's ``Denom`` values for suits.
BID_STRAINS: tuple[Denom, ...] = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)
#: All 35 contract bids, lowest first.
CONTRACT_BIDS: tuple[Bid, ...] = tuple(
    ContractBid(level, strain) for level in range(1, 8) for strain in BID_STRAINS
)
#: The 38 calls in the order used by the policy network: pass, double, redouble, then 1C..7NT.
ALL_CALLS: tuple[Bid, ...] = (PASS, DOUBLE, REDOUBLE, *CONTRACT_BIDS)
#: Index of 1C in :data:`ALL_CALLS` (OpenSpiel's kFirstBid has the same value).
FIRST_BID = 3

#: An int, or an integer array (the batched readers of observations).
IntLike = TypeVar("IntLike", int, npt.NDArray[np.int64])


def bid_rank(level: IntLike, strain: IntLike) -> IntLike:
    """The order of contract bids, 1C = 0 .. 7NT = 34, from level 1-7 and strain 0-4 (clubs to
    notrump, :data:`BID_STRAINS`)."""
    return 5 * (level - 1) + strain


def call_index(level: IntLike, strain: IntLike) -> IntLike:
    """The :data:`ALL_CALLS` index of the bid of ``level`` and ``strain`` (see :func:`bid_rank`)."""
    return FIRST_BID + bid_rank(level, strain)


def is_pass(call: Bid) -> bool:
    return isinstance(call, PenaltyBid) and call.penalty is Penalty.passed


def is_double(call: Bid) -> bool:
    return isinstance(call, PenaltyBid) and call.penalty is Penalty.doubled


def is_redouble(call: Bid) -> bool:
    return isinstance(call, PenaltyBid) and call.penalty is Penalty.redoubled


def same_call(a: Bid, b: Bid) -> bool:
    """Equality of calls ignoring alert flags (endplay's ``==`` compares those too)."""
    return bid_index(a) == bid_index(b)


def bid_index(call: Bid) -> int:
    """Index of ``call`` in :data:`ALL_CALLS` (0 pass, 1 double, 2 redouble, 3 + 5*(level-1) + strain)."""
    if is_pass(call):
        return 0
    if is_double(call):
        return 1
    if is_redouble(call):
        return 2
    assert isinstance(call, ContractBid)
    return 3 + 5 * (call.level - 1) + BID_STRAINS.index(call.denom)


def seat_of_call(dealer: Player, index: int) -> Player:
    return Player((dealer.value + index) % 4)


def to_call(dealer: Player, auction: Sequence[Bid]) -> Player:
    """Whose turn it is to call."""
    return seat_of_call(dealer, len(auction))


def auction_over(auction: Sequence[Bid]) -> bool:
    """Four passes to start, or three passes after any other call."""
    if len(auction) < 4:
        return False
    return all(is_pass(c) for c in auction[-3:])


def passed_out(auction: Sequence[Bid]) -> bool:
    return len(auction) == 4 and all(is_pass(c) for c in auction)


def _last_contract_bid(auction: Sequence[Bid]) -> int | None:
    for i in range(len(auction) - 1, -1, -1):
        if isinstance(auction[i], ContractBid):
            return i
    return None


def doubled_against_caller(auction: Sequence[Bid]) -> bool:
    """The side of the player to call holds the standing contract, and the opponents have
    doubled it (and nobody redoubled): the caller's side may be playing it doubled."""
    last = _last_contract_bid(auction)
    if last is None or (len(auction) - last) % 2 != 0:
        return False
    after = auction[last + 1 :]
    return any(is_double(c) for c in after) and not any(is_redouble(c) for c in after)


def legal_calls(dealer: Player, auction: Sequence[Bid]) -> tuple[Bid, ...]:
    """Every call the player to act may make (empty once the auction is over)."""
    if auction_over(auction):
        return ()
    me = to_call(dealer, auction).value % 2
    calls: list[Bid] = [PASS]
    last = _last_contract_bid(auction)
    if last is not None:
        # The state after the last contract bid: doubled / redoubled, and by which side.
        state = None
        for c in auction[last + 1 :]:
            if is_double(c):
                state = "X"
            elif is_redouble(c):
                state = "XX"
        bidder_side = seat_of_call(dealer, last).value % 2
        # Who made the last non-pass call.
        last_nonpass = max(i for i in range(len(auction)) if not is_pass(auction[i]))
        last_actor_side = seat_of_call(dealer, last_nonpass).value % 2
        if state is None and bidder_side != me:
            calls.append(DOUBLE)
        if state == "X" and bidder_side == me and last_actor_side != me:
            calls.append(REDOUBLE)
        lowest = bid_index(auction[last]) + 1
    else:
        lowest = 3
    calls.extend(ALL_CALLS[max(lowest, 3) :])
    return tuple(calls)


def is_legal_call(dealer: Player, auction: Sequence[Bid], call: Bid) -> bool:
    return any(same_call(call, c) for c in legal_calls(dealer, auction))


def final_contract(dealer: Player, auction: Sequence[Bid]) -> Contract | None:
    """The contract an ended auction reaches, or ``None`` if it was passed out."""
    last = _last_contract_bid(auction)
    if last is None:
        return None
    bid = auction[last]
    assert isinstance(bid, ContractBid)
    side = seat_of_call(dealer, last).value % 2
    declarer = None
    for i in range(last + 1):
        c = auction[i]
        if (
            isinstance(c, ContractBid)
            and c.denom == bid.denom
            and seat_of_call(dealer, i).value % 2 == side
        ):
            declarer = seat_of_call(dealer, i)
            break
    assert declarer is not None  # the last bid's own seat qualifies
    penalty = Penalty.passed
    for c in auction[last + 1 :]:
        if is_double(c):
            penalty = Penalty.doubled
        elif is_redouble(c):
            penalty = Penalty.redoubled
    return Contract(level=bid.level, denom=bid.denom, declarer=declarer, penalty=penalty)


IntArray = npt.NDArray[np.int64]


def final_contracts_array(
    auctions: npt.NDArray[np.integer], dealer: int | npt.NDArray[np.integer]
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Vectorised :func:`final_contract` over rows of :data:`ALL_CALLS` indices (-1 padded).

    Returns ``(level, strain, penalty, declarer)``: level 0 means passed out (then the other
    fields are 0); strain 0..4 = C, D, H, S, NT (the DD tables' axis); penalty 0/1/2 =
    undoubled, doubled, redoubled; declarer an absolute seat 0..3 (N, E, S, W), the first of the
    declaring side to name the final strain. ``dealer`` is one seat or one per row.
    """
    a = np.asarray(auctions, dtype=np.int64)
    rows, length = a.shape
    pos = np.arange(length)[None, :]
    is_bid = a >= FIRST_BID
    p_last = np.where(is_bid, pos, -1).max(axis=1)
    has = p_last >= 0
    last = np.where(has, a[np.arange(rows), np.maximum(p_last, 0)], FIRST_BID)
    level = np.where(has, (last - FIRST_BID) // 5 + 1, 0)
    strain = (last - FIRST_BID) % 5
    same_side = (pos - p_last[:, None]) % 2 == 0
    named = is_bid & ((a - FIRST_BID) % 5 == strain[:, None]) & same_side
    first = np.argmax(named, axis=1)  # the last bid itself qualifies whenever there is one
    declarer = (np.asarray(dealer, dtype=np.int64) + first) % 4
    after = pos > p_last[:, None]
    penalty = np.where(
        (after & (a == 2)).any(axis=1), 2, np.where((after & (a == 1)).any(axis=1), 1, 0)
    )
    return (
        level.astype(np.int64),
        np.where(has, strain, 0).astype(np.int64),
        np.where(has, penalty, 0).astype(np.int64),
        np.where(has, declarer, 0).astype(np.int64),
    )
