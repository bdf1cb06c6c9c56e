"""The card player's carding agreements: the signals a defender gives, and reads from partner.

The agreements (:data:`CARDING`), standard ones, as most computer programs play them; they apply
to a defender's spot cards (2 to 9) outside the trump suit:

- **Attitude** on partner's lead: the first card a defender plays to a suit partner led, when
  it does not win the trick, is high (not its lowest card of the suit) to encourage, with the
  ace, king or queen of the suit; its lowest to discourage, without.
- **Count** on declarer's (or dummy's) lead: the first card a defender plays to a suit an
  opponent led, when it does not win the trick, is high with an even number of cards in the
  suit (counting that card), its lowest with an odd number.
- **First discard**, attitude: a high spot card of a suit asks for it (the defender holds its
  ace, king or queen); the lowest card of a suit says no.

No suit preference (for example the card returned for partner's ruff), no signals in trumps,
and declarer neither signals nor reads the defenders' signals.

**Sending** (:class:`StandardCarding`, the ``signaller`` of :class:`engine.cardplay.DDCardPlayer`):
among the classes of cards tied for the best expected score and the best expected tricks (both
to 1e-6, as the player compares them), the agreement picks the card: the highest spot card the
tie allows to say high, the lowest to say low. The player never gives up expected score over
its sampled worlds to signal; where no agreement applies, or the tie leaves fewer than two spot
cards to choose from, it plays the card it would have played without signals.

**Reading** (:class:`SignalReader`, an ``auction_reader`` of the card player): each sampled
world is weighed by how well partner's signals so far fit partner's holding there. In a world
where partner's card meant what it should, the factor is 1; a high card that should have been
low weighs :data:`HIGH_MISS`; a low card that should have been high weighs :data:`LOW_MISS`, a
milder factor because partner plays its lowest card whenever the tie gives it no choice (a
double-dummy player's cards are not always by the agreement). :func:`product_reader` multiplies
it with the auction's likelihood (:class:`engine.cardplay_auction.AuctionReader`), so both
read together; until partner has signalled it gives no likelihood (None), so the worlds drawn are
those of the player without it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import PlayView
from bridgebot.engine.worlds import AuctionLikelihood, OwnersArray
from bridgebot.laws.cards import card_index
from bridgebot.laws.play import beats, winning_index
from endplay.types import Card, Denom, Player

#: The bot's carding agreements in one line, for the docs and wherever agreements are shown.
CARDING = (
    "standard attitude and count: on partner's lead high encourages (with the A, K or Q), "
    "lowest discourages; on declarer's lead high-low shows an even number, lowest an odd one; "
    "first discard high asks for the suit, low says no; no suit preference, no trump signals"
)

#: The factor of a world in which partner's high card should have been low.
HIGH_MISS = 0.2
#: The factor of a world in which partner's lowest card should have been high.
LOW_MISS = 0.5
#: The highest rank that signals (the 9): tens and honours are played for their own sake.
HIGHEST_SPOT = 9

Kind = Literal["attitude", "count", "discard"]


def _rank(card: Card) -> int:
    """2 .. 14 (ace)."""
    return int(card.rank.value).bit_length() - 1


@dataclass(frozen=True)
class Signal:
    """A card that carries a signal under the agreements: ``card``, played by ``seat`` as the
    ``at``-th card of the play (0-based), of kind ``kind``."""

    seat: Player
    card: Card
    at: int
    kind: Kind


def signal_kind(
    played: Sequence[tuple[Player, Card]], at: int, trump: Denom, trick_over: bool = True
) -> Kind | None:
    """The kind of signal ``played[at]`` carries under the agreements, or None.

    A lead, an honour or the ten, a trump, a card that won its trick (or, where ``trick_over`` is
    False, one that beats the cards before it: the sender cannot see the rest of the trick), a
    defender's second card of a suit or second discard carry none; nor does a card of declarer or
    dummy, whom the caller leaves out by asking only for defenders' cards.
    """
    seat, card = played[at]
    start = at - at % 4
    if at == start or _rank(card) > HIGHEST_SPOT or (trump != Denom.nt and card.suit == trump):
        return None
    trick = [c for _, c in played[start : start + 4]]
    if trick_over:
        if start + winning_index(trick, trump) == at:
            return None
    elif beats(card, trick[winning_index(trick[: at - start], trump)], trump):
        return None
    led = trick[0].suit
    before = [(p, c, played[k - k % 4][1].suit) for k, (p, c) in enumerate(played[:at])]
    if card.suit == led:
        if any(p == seat and c.suit == led for p, c, _ in before):
            return None
        return "attitude" if played[start][0] == seat.partner else "count"
    if any(p == seat and c.suit != s and c.suit != trump for p, c, s in before):
        return None
    return "discard"


def signals_of(played: Sequence[tuple[Player, Card]], seat: Player, trump: Denom) -> list[Signal]:
    """Every signal ``seat`` has given in ``played`` (a trick in progress counts as it stands)."""
    out = []
    for at, (p, card) in enumerate(played):
        if p == seat:
            kind = signal_kind(played, at, trump)
            if kind is not None:
                out.append(Signal(seat, card, at, kind))
    return out


def _wants_high(kind: Kind, holding: Sequence[Card]) -> bool:
    """What the agreements ask of ``holding`` (the signaller's cards of the suit, the card played
    included): attitude and discards high with the A, K or Q; count high with an even number."""
    if kind == "count":
        return len(holding) % 2 == 0
    return any(_rank(c) >= 12 for c in holding)


class StandardCarding:
    """The sender of the agreements (see the module doc): a ``signaller`` of
    :class:`engine.cardplay.DDCardPlayer`."""

    def choose(self, view: PlayView, tied: Sequence[Sequence[Card]]) -> Card | None:
        """The card of ``tied`` (the classes of legal cards tied for the best expected score)
        that the agreements play for ``view``'s seat, or None where they say nothing: declarer
        and dummy, a lead, no spot card to choose, fewer than two to choose from."""
        seat = view.seat
        if seat in (view.declarer, view.dummy_seat) or not view.current_trick:
            return None
        trump = view.contract.denom
        hand = list(view.hand)
        kinds: dict[Kind, list[Card]] = {}
        played = list(view.played)
        for card in (c for cls in tied for c in cls):
            kind = signal_kind([*played, (seat, card)], len(played), trump, trick_over=False)
            if kind is not None:
                kinds.setdefault(kind, []).append(card)
        follow: tuple[Kind, ...] = ("attitude", "count")
        for says in follow:
            cards = kinds.get(says, [])
            if len(cards) >= 2:
                holding = [c for c in hand if c.suit == cards[0].suit]
                pick = max if _wants_high(says, holding) else min
                return pick(cards, key=_rank)
        return self._discard(hand, kinds.get("discard", []))

    @staticmethod
    def _discard(hand: Sequence[Card], cards: Sequence[Card]) -> Card | None:
        """A high spot card of the suit with the best honour (then the longest) among those the
        tie lets us ask for; else the lowest card of the longest suit without one; else None."""
        asks: list[tuple[int, int, Card]] = []
        noes: list[tuple[int, Card]] = []
        for suit in {c.suit for c in cards}:
            holding = [c for c in hand if c.suit == suit]
            lowest = min(holding, key=_rank)
            mine = [c for c in cards if c.suit == suit]
            if _wants_high("discard", holding):
                high = [c for c in mine if c != lowest]
                if high:
                    top = max(_rank(c) for c in holding)
                    asks.append((top, len(holding), max(high, key=_rank)))
            elif lowest in mine:
                noes.append((len(holding), lowest))
        if asks:
            return max(asks, key=lambda a: (a[0], a[1], -a[2].suit.value))[2]
        if noes:
            return max(noes, key=lambda n: (n[0], -n[1].suit.value))[1]
        return None


@dataclass(frozen=True)
class SignalReader:
    """The likelihood of partner's signals in each world (see the module doc): an
    ``auction_reader`` of :class:`engine.cardplay.DDCardPlayer`, alone or under
    :func:`product_reader`."""

    high_miss: float = HIGH_MISS
    low_miss: float = LOW_MISS

    def __post_init__(self) -> None:
        for name, value in (("high_miss", self.high_miss), ("low_miss", self.low_miss)):
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must be in (0, 1], not {value}")

    def __call__(self, view: PlayView) -> AuctionLikelihood | None:
        """The likelihood function of ``view``'s worlds (1 where every signal of partner fits),
        or None where there is nothing to read: declarer's view, partner has not signalled."""
        me = view.controller
        if me in (view.declarer, view.dummy_seat):
            return None
        signals = signals_of(view.played, me.partner, view.contract.denom)
        if not signals:
            return None
        order = np.array([card_index(c) for _, c in view.played], dtype=np.int64)

        def likelihood(worlds: OwnersArray) -> npt.NDArray[np.float64]:
            out = np.ones(len(worlds), dtype=np.float64)
            for s in signals:
                out *= self.fits(worlds, s, order[: s.at])
            return out

        return likelihood

    def fits(
        self, worlds: OwnersArray, signal: Signal, gone: npt.NDArray[np.int64]
    ) -> npt.NDArray[np.float64]:
        """Each world's factor for ``signal``, the cards ``gone`` (indices) played before it."""
        suit = int(signal.card.suit.value)
        cards = np.arange(suit * 13, suit * 13 + 13)
        held = np.asarray(worlds)[:, cards] == signal.seat.value
        held[:, np.isin(cards, gone)] = False
        j = card_index(signal.card) - suit * 13  # 0 is the ace: later columns are lower cards
        high = held[:, j + 1 :].any(axis=1)
        # Count: an even number of cards; attitude and discards: the A, K or Q (columns 0 to 2).
        wants = held.sum(axis=1) % 2 == 0 if signal.kind == "count" else held[:, :3].any(axis=1)
        return np.where(
            high, np.where(wants, 1.0, self.high_miss), np.where(wants, self.low_miss, 1.0)
        )


Reader = Callable[[PlayView], AuctionLikelihood | None]


def product_reader(*readers: Reader | None) -> Reader:
    """A reader of readers: the product of the likelihoods the given readers (None ones skipped)
    return for a view; None where every one returns None."""
    given = [r for r in readers if r is not None]

    def read(view: PlayView) -> AuctionLikelihood | None:
        found = [f for f in (r(view) for r in given) if f is not None]
        if len(found) <= 1:
            return found[0] if found else None

        def likelihood(worlds: OwnersArray) -> npt.NDArray[np.float64]:
            out = np.ones(len(worlds), dtype=np.float64)
            for f in found:
                out = out * np.asarray(f(worlds), dtype=np.float64)
            return out

        return likelihood

    return read
