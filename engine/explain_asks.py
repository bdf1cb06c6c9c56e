"""Learned asks: a call whose meaning is in partner's answer, read from the policy's answers.

Why: a learned policy may play an ask (4NT asking for aces) without any rule. The asker's own
hands say little about such a call (a 4NT on any shape, which :mod:`engine.explain`'s sample can
only call artificial); partner's answers say what it asks. So for a notrump bid of the four level
or higher (where the asks for aces live: 4NT, 5NT), :class:`engine.explain.Explainer` samples the
partner's hands that reproduce partner's own earlier calls, asks the policy for partner's answer
to the call (after the next hand's call of the auction, or a pass where the auction stops there),
and hands the answers here: :func:`read_asking` says whether the answers tell what partner holds,
and which answer shows what.

The test: the call is an ask when its answers tell partner's aces at a given strength: the mutual
information between the answer and the number of aces, within bands of :data:`BAND` HCP of
partner's hand, is at least :data:`ASK_BITS` bits (a quantitative 4NT, whose answers follow the
strength, is not taken for an ask). Keycards (the four aces and the king of a suit both partners
have bid) are counted instead where they tell :data:`KEYCARD_MARGIN` bits more. The threshold
comes from the shipped policy's auctions (issue 62; 2,048 to 24,576 hands drawn, three seeds):
the answers to its 4NT tell 0.33-0.59 bits of the aces after ``1S Pass 3S Pass``, 0.35-0.42
after ``1H Pass 2NT Pass 4H Pass``, 0.2-0.3 after ``1H 2S`` or ``2S X Pass 4H Pass``; those to
its 4NT after ``1S Pass 4S Pass`` (5S, whatever partner holds) 0.03, to its 5NT over a 1NT
opening (6NT) 0.00, to its 5NT after ``1S Pass`` 0.07-0.18.

Pure computation on arrays: no policy, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from bridgebot.core.arrays import IntArray, U8Array

#: Least information (bits) the answers give about partner's aces (or keycards) within a
#: strength band for the call to be an ask.
ASK_BITS = 0.2
#: Keycards are counted instead of aces where they tell at least this many bits more.
KEYCARD_MARGIN = 0.05
#: Width of the HCP bands within which the answers must tell the count.
BAND = 3
#: Fewest sampled answers to read an ask from.
MIN_ANSWERS = 100
#: An answer is listed when at least this share of partner's hands gives it.
LISTED = 0.05
#: Per answer, the counts listed (most common first) until they cover this share of its hands.
COVER = 0.8
#: Data-file positions (S, H, D, C; ace first in each suit) of the aces.
ACE_BITS = (0, 13, 26, 39)
#: Suit names in the data-file order (S, H, D, C).
_SUITS = ("spades", "hearts", "diamonds", "clubs")


@dataclass(frozen=True)
class Answer:
    """One answer to an ask: ``call`` (as a player writes it), the partner's ``hands`` of the
    sample that give it, and ``counts``: (count, share of those hands), most common first, until
    they cover :data:`COVER` of them."""

    call: str
    hands: int
    counts: tuple[tuple[int, float], ...]

    def words(self, counted: str) -> str:
        """``2 aces (72%) or 1 (27%)``."""
        (first, share), *rest = self.counts
        text = f"{first} {_noun(counted, first)} ({share:.0%})"
        return " or ".join([text, *(f"{k} ({s:.0%})" for k, s in rest)])

    def alert_words(self, counted: str) -> str:
        """``2 aces or 1``: :meth:`words` without the shares (an alert's text)."""
        (first, _), *rest = self.counts
        return " or ".join([f"{first} {_noun(counted, first)}", *(str(k) for k, _ in rest)])


@dataclass(frozen=True)
class LearnedAsk:
    """What an ask asks, read from partner's answers: ``ask``, the call; ``counted``, what its
    answers count (``aces`` or ``keycards in spades``); ``hands``, partner's sampled hands;
    ``bits``, what the answers tell of the count within a strength band; ``answers``, every
    answer given, in the order of the calls."""

    ask: str
    counted: str
    hands: int
    bits: float
    answers: tuple[Answer, ...]

    def answer(self, call: str) -> Answer | None:
        """The answer ``call``, None where no sampled partner gives it."""
        return next((a for a in self.answers if a.call == call), None)

    def listed(self) -> list[Answer]:
        """The answers at least :data:`LISTED` of partner's hands give."""
        return [a for a in self.answers if a.hands >= LISTED * self.hands]

    def ask_words(self) -> str:
        """``asks for aces; partner answers 5C with 0 aces (97%), 5H with 2 aces (72%) or 1
        (27%)``."""
        answers = ", ".join(f"{a.call} with {a.words(self.counted)}" for a in self.listed())
        return f"asks for {self.counted}; partner answers {answers}"

    def ask_alert(self) -> str:
        """``Asks for aces: 5C 0 aces, 5H 2 aces or 1``."""
        answers = ", ".join(f"{a.call} {a.alert_words(self.counted)}" for a in self.listed())
        return f"Asks for {self.counted}: {answers}"

    def answer_words(self, call: str) -> str | None:
        """``answers 4NT: 2 aces (72%) or 1 (27%)``; None for an answer no sampled partner
        gives."""
        a = self.answer(call)
        return None if a is None else f"answers {self.ask}: {a.words(self.counted)}"

    def answer_alert(self, call: str) -> str | None:
        """``Answer to 4NT: 2 aces or 1``; None as for :meth:`answer_words`."""
        a = self.answer(call)
        return None if a is None else f"Answer to {self.ask}: {a.alert_words(self.counted)}"


def _noun(counted: str, count: int) -> str:
    """``aces`` -> ``ace`` for one; ``keycards in spades`` -> ``keycard in spades``."""
    if count != 1:
        return counted
    head, _, tail = counted.partition(" ")
    return " ".join(w for w in (head.removesuffix("s"), tail) if w)


def aces(hands: U8Array) -> IntArray:
    """Aces in each 13-hot hand (data-file order) of a batch."""
    held: IntArray = np.asarray(hands[:, list(ACE_BITS)], dtype=np.int64).sum(axis=1)
    return held


def keycards(hands: U8Array, suit: int) -> IntArray:
    """Keycards in each hand: the four aces and the king of ``suit`` (0 spades .. 3 clubs)."""
    return aces(hands) + np.asarray(hands[:, 13 * suit + 1], dtype=np.int64)


def _entropy(x: IntArray) -> tuple[float, int]:
    """Plug-in entropy (bits) of the values ``x`` and the number of distinct values."""
    counts = np.unique(x, return_counts=True)[1]
    p = counts / len(x)
    return float(-(p * np.log2(p)).sum()), len(counts)


def _information(a: IntArray, b: IntArray) -> float:
    """Mutual information (bits) of ``a`` and ``b`` (non-negative integers below 1000), with the
    Miller-Madow correction of each entropy for the bias of a small sample."""
    n = len(a)
    (ha, ka), (hb, kb), (hab, kab) = _entropy(a), _entropy(b), _entropy(a * 1000 + b)
    return float(ha + hb - hab + ((ka - 1) + (kb - 1) - (kab - 1)) / (2 * n * np.log(2)))


def banded_information(answers: IntArray, counts: IntArray, strength: IntArray) -> float:
    """What ``answers`` tell of ``counts`` (bits) within bands of :data:`BAND` of ``strength``,
    weighted by the bands' sizes: the conditional mutual information."""
    bands = strength // BAND
    return sum(
        float((bands == b).mean()) * _information(answers[bands == b], counts[bands == b])
        for b in np.unique(bands)
    )


def read_asking(
    ask: str,
    answers: IntArray,
    hands: U8Array,
    strength: IntArray,
    agreed: int | None,
    call_names: Sequence[str],
) -> LearnedAsk | None:
    """The :class:`LearnedAsk` of the call ``ask`` where partner's ``answers`` (call indices, one
    per hand of ``hands``, whose HCP are ``strength``) tell its aces, or keycards in the ``agreed``
    suit (0 spades .. 3 clubs; None: no suit both partners bid), at a given strength (module
    docstring); None where they do not, or where fewer than :data:`MIN_ANSWERS` answers were
    sampled. ``call_names[i]`` writes call index ``i``."""
    if len(answers) < MIN_ANSWERS:
        return None
    counted, counts = "aces", aces(hands)
    bits = banded_information(answers, counts, strength)
    if agreed is not None:
        kc = keycards(hands, agreed)
        kc_bits = banded_information(answers, kc, strength)
        if kc_bits >= bits + KEYCARD_MARGIN:
            counted, counts, bits = f"keycards in {_SUITS[agreed]}", kc, kc_bits
    if bits < ASK_BITS:
        return None
    out: list[Answer] = []
    for call in np.unique(answers):
        held = counts[answers == call]
        values, n = np.unique(held, return_counts=True)
        order = np.argsort(-n, kind="stable")
        listed: list[tuple[int, float]] = []
        for k in order:
            listed.append((int(values[k]), float(n[k] / len(held))))
            if sum(s for _, s in listed) >= COVER:
                break
        out.append(Answer(call_names[int(call)], len(held), tuple(listed)))
    return LearnedAsk(ask, counted, len(answers), bits, tuple(out))
