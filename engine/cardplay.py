"""Card play: a simple baseline and a double-dummy Monte Carlo player.

``baseline_card`` is the yardstick every stronger player is measured against (and a fallback when
there is no time to think): win the trick as cheaply as possible unless partner is already winning
it, otherwise play the lowest card; lead low from the longest suit.
"""

from __future__ import annotations

from collections.abc import Sequence

from endplay.types import Card, Denom, Player

from engine.agent import PlayView


def _current_winner(
    trick: Sequence[tuple[Player, Card]], trump: Denom
) -> tuple[Player, Card] | None:
    """Who is winning the (possibly incomplete) trick so far, and with which card."""
    if not trick:
        return None
    best_seat, best = trick[0]
    for seat, card in trick[1:]:
        if card.suit == best.suit:
            if card.rank.value > best.rank.value:
                best_seat, best = seat, card
        elif trump != Denom.nt and card.suit == trump:
            best_seat, best = seat, card
    return best_seat, best


def _beats(card: Card, best: Card, trump: Denom) -> bool:
    if card.suit == best.suit:
        return card.rank.value > best.rank.value
    return trump != Denom.nt and card.suit == trump


def _lowest(cards: Sequence[Card], trump: Denom) -> Card:
    """The cheapest card to part with: lowest rank, sparing trumps when discarding."""
    return min(cards, key=lambda c: (c.suit == trump, c.rank.value, c.suit.value))


def baseline_card(view: PlayView) -> Card:
    """The simple baseline: cheapest winner when partner is not winning, else lowest; lead low
    from the longest suit (ties go to the non-trump suit, then to the lower suit)."""
    if not view.legal:
        raise ValueError(f"no legal cards for {view.seat.name} on board {view.board}")
    trump = view.contract.denom
    legal = list(view.legal)
    trick = view.current_trick
    winner = _current_winner(trick, trump)
    if winner is None:
        lengths: dict[Denom, int] = {}
        for c in legal:
            lengths[c.suit] = lengths.get(c.suit, 0) + 1
        suit = max(lengths, key=lambda s: (lengths[s], s != trump, -s.value))
        return min((c for c in legal if c.suit == suit), key=lambda c: c.rank.value)
    win_seat, win_card = winner
    if win_seat == view.seat.partner:
        return _lowest(legal, trump)
    winners = [c for c in legal if _beats(c, win_card, trump)]
    if winners:
        # Cheapest winner: a card of the led suit before a ruff, then the lowest rank.
        return min(winners, key=lambda c: (c.suit != win_card.suit, c.rank.value))
    return _lowest(legal, trump)
