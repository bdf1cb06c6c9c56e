"""Play: the cards a hand may play to a trick, and who wins a trick.

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


def trick_winner(leader: Player, trick: Sequence[Card], trump: Denom) -> Player:
    """Winner of a complete trick of four cards led by ``leader``."""
    best = 0
    for i in range(1, 4):
        c, b = trick[i], trick[best]
        if c.suit == b.suit:
            if c.rank.value > b.rank.value:
                best = i
        elif trump != Denom.nt and c.suit == trump:
            best = i
    return Player((leader.value + best) % 4)
