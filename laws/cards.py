"""The card layout every array in the project uses, and conversions to and from endplay.

A deal as an array is ``owners``: uint8[52], ``owners[i]`` the seat (0..3 = N, E, S, W) holding
card ``i``, where ``i = suit * 13 + rank`` with suits S, H, D, C (endplay's ``Denom`` values 0..3)
and ranks A, K, Q, J, T, 9, ..., 2 (0..12). It is the layout of the deal files (docs/data.md), of
the double-dummy helpers and of the training data. Negative entries mean "in nobody's hand" where a
function says so (cards already played).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from endplay.types import Card, Deal, Denom, Player, Rank

#: Rank characters in layout order (index 0 is the ace).
RANKS = "AKQJT98765432"
#: Suit characters in layout order (endplay ``Denom`` values 0..3).
SUITS = "SHDC"
#: Seat characters, North first (endplay ``Player`` values 0..3).
SEATS = "NESW"

OwnersArray = npt.NDArray[np.uint8]


def card_index(card: Card) -> int:
    """Index 0..51 of ``card`` in the layout."""
    return int(card.suit.value) * 13 + 14 - (int(card.rank.value).bit_length() - 1)


def index_card(index: int) -> Card:
    """The card at ``index`` (inverse of :func:`card_index`)."""
    if not 0 <= index < 52:
        raise ValueError(f"card index {index} is not 0..51")
    suit, r = divmod(index, 13)
    return Card(suit=Denom(suit), rank=Rank(1 << (14 - r)))


def owners_pbn(owners: npt.NDArray[np.integer], first: int = 0) -> str:
    """PBN deal string (``"N:..."``, starting at seat ``first``) of the cards in ``owners``.

    Cards with a negative owner are left out (a partly played deal)."""
    hands = []
    for k in range(4):
        seat = (first + k) % 4
        suits = []
        for s in range(4):
            row = owners[s * 13 : s * 13 + 13]
            suits.append("".join(RANKS[r] for r in range(13) if row[r] == seat))
        hands.append(".".join(suits))
    return SEATS[first] + ":" + " ".join(hands)


def deal_owners(deal: Deal | str) -> OwnersArray:
    """``owners`` of a complete deal (an endplay ``Deal`` or a PBN deal string)."""
    d = Deal(deal) if isinstance(deal, str) else deal
    owners = np.full(52, 255, dtype=np.uint8)
    for seat in Player:
        for card in d[seat]:
            owners[card_index(card)] = seat.value
    if (owners == 255).any():
        raise ValueError(f"not a complete deal: {d.to_pbn()}")
    return owners


def owners_deal(owners: npt.NDArray[np.integer]) -> Deal:
    """The endplay ``Deal`` of a complete ``owners`` array."""
    return Deal(owners_pbn(owners))
