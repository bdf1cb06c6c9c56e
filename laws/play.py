"""Play: the cards a hand may play to a trick, and who wins a trick (or is winning it so far).

Pure functions over ``endplay.types``, used by the table manager, the seat client, the card players
and the tournament.
"""

from __future__ import annotations

from collections.abc import Sequence

from endplay.types import Card, Denom, Hand, Player


def legal_cards(hand: Hand, trick: Sequence[Card]) -> tuple[Card, ...]:
    """Cards ``hand`` may play to a trick whose cards so far are ``trick`` (follow suit if able)."""
    cards = list(hand)
    if trick:
        led = trick[0].suit
        follow = [c for c in cards if c.suit == led]
        if follow:
            cards = follow
    return tuple(cards)


def beats(card: Card, best: Card, trump: Denom) -> bool:
    """Whether ``card`` beats ``best``, the card winning a trick so far: a higher card of the same
    suit, or a trump on a card of another suit."""
    if card.suit == best.suit:
        return card.rank.value > best.rank.value
    return trump != Denom.nt and card.suit == trump


def winning_index(trick: Sequence[Card], trump: Denom) -> int:
    """Position (0 = the lead) of the card winning ``trick`` so far (one to four cards)."""
    if not trick:
        raise ValueError("an empty trick has no winner")
    best = 0
    for i in range(1, len(trick)):
        if beats(trick[i], trick[best], trump):
            best = i
    return best


def trick_winner(leader: Player, trick: Sequence[Card], trump: Denom) -> Player:
    """Winner of a complete trick of four cards led by ``leader``."""
    if len(trick) != 4:
        raise ValueError(f"a complete trick has four cards, not {len(trick)}")
    return Player((leader.value + winning_index(trick, trump)) % 4)
