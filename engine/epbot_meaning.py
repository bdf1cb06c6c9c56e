"""What EPBot says a call means, and the ``Alert.`` text made of it.

EPBot describes a call with a few words (``transfer``, ``Stayman``, ``bidable suit``, or
``calculated bid`` where no rule of its book matched), a flag for alertable calls, the HCP range
and the least and most length of each suit the call shows. EPBot flags conventional calls the
ACBL alerts but not those it announces (a transfer, a forcing 1NT); the Blue Chip protocol has
alerts only, so :attr:`Meaning.artificial` is EPBot's flag or a suit bid that does not show three
cards in its suit (the transfer's 2D shows none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bridgebot.engine.explain import FORBIDDEN_WORDS, MAX_HCP

#: Suits in EPBot's order (its arrays are clubs, diamonds, hearts, spades).
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
#: EPBot's words for a call no rule of its book made (a natural call).
CALCULATED = "calculated bid"
#: A suit bid showing fewer cards than this in its suit is artificial.
NATURAL_LENGTH = 3
_UNSAFE = re.compile(r"[^A-Za-z0-9 +\-,;:/()'=<>]")


def clean(text: str) -> str:
    """EPBot's words as one line of printable ASCII, without the words some peers take for
    another message (:data:`engine.explain.FORBIDDEN_WORDS`) and without full stops."""
    words = _UNSAFE.sub(" ", text).split()
    kept = [w for w in words if not any(f.rstrip(".") in w.lower() for f in FORBIDDEN_WORDS)]
    return " ".join(kept).strip(" ,;:")


@dataclass(frozen=True)
class Meaning:
    """EPBot's reading of one call (an EPBot call id: 0 pass, 1 double, 2 redouble, 5 + 5 *
    (level - 1) + strain)."""

    call: int
    words: str
    """EPBot's own words, cleaned (:func:`clean`); empty where it has none."""
    alertable: bool
    hcp: tuple[int, int]
    min_length: tuple[int, int, int, int]
    max_length: tuple[int, int, int, int]

    @property
    def suit(self) -> int | None:
        """The suit a suit bid names (0 clubs .. 3 spades); None for other calls."""
        strain = (self.call - 5) % 5 if self.call >= 5 else None
        return strain if strain is not None and strain < 4 else None

    @property
    def artificial(self) -> bool:
        suit = self.suit
        short = suit is not None and self.min_length[suit] < NATURAL_LENGTH
        return self.alertable or short

    def shown(self) -> list[tuple[str, str]]:
        """What the call shows as (count, suit) pairs: ``("5+", "hearts")``; a range of at
        most two cards (a shortness) is written ``0-1``."""
        out = []
        for suit, (low, high) in enumerate(zip(self.min_length, self.max_length, strict=True)):
            if low >= 4:
                exact = str(low) if high == low else f"{low}-{high}"
                out.append((f"{low}+" if high >= 13 else exact, suit))
            elif high <= 2:
                out.append((f"{low}-{high}" if low < high else str(high), suit))
        return [(count, SUIT_NAMES[suit]) for count, suit in out]

    @property
    def has_range(self) -> bool:
        low, high = self.hcp
        return low > 0 or high < MAX_HCP

    def text(self) -> str:
        """For people: ``transfer: 0-25 HCP, 5+ hearts``; ``natural`` for a calculated bid."""
        words = "natural" if self.words.lower() == CALCULATED else self.words
        parts = [f"{self.hcp[0]}-{self.hcp[1]} HCP"] if self.has_range else []
        parts += [f"{count} {suit}" for count, suit in self.shown()]
        details = ", ".join(parts)
        return f"{words}: {details}" if words and details else words or details

    def alert_text(self) -> str:
        """In the protocol's alert vocabulary: ``Transfer, 0 to 25 total points, 5+ cards in
        hearts.`` (HCP stand for the total points, as in our own alerts)."""
        parts = [self.words[:1].upper() + self.words[1:]] if self.words else []
        if self.words.lower() == CALCULATED:
            parts = []
        if self.has_range:
            parts.append(f"{self.hcp[0]} to {self.hcp[1]} total points")
        parts += [f"{count} cards in {suit}" for count, suit in self.shown()]
        return (", ".join(parts) or "Artificial") + "."
