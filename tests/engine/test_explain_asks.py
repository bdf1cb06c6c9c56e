"""engine.explain_asks: an ask read from partner's answers, on answers whose rule the test knows.

Each test deals random hands, answers them by a rule (by aces, by keycards, by strength, by
nothing) and checks what :func:`read_asking` makes of the answers: the ask where the answers
tell the count at a given strength, nothing where they tell only the strength or nothing.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from bridgebot.engine.explain import CALL_NAMES, hcp, random_hands
from bridgebot.engine.explain_asks import (
    ASK_BITS,
    MIN_ANSWERS,
    aces,
    banded_information,
    keycards,
    read_asking,
)
from bridgebot.laws.calls import bid_index
from endplay.types import Bid

#: The answers 5C .. 5S as call indices.
STEPS = np.array([bid_index(Bid(c)) for c in ("5C", "5D", "5H", "5S")], dtype=np.int64)
SPADES = 0


def _hands(n: int = 600, seed: int = 5) -> npt.NDArray[np.uint8]:
    return random_hands(np.random.default_rng(seed), n)


def test_counts_on_known_hands() -> None:
    hands = np.zeros((1, 52), dtype=np.uint8)
    hands[0, [0, 1, 13, 14, 27, 40]] = 1  # AK of spades, AK of hearts, K of diamonds, K of clubs
    assert aces(hands).tolist() == [2]
    assert keycards(hands, SPADES).tolist() == [3]
    assert keycards(hands, 2).tolist() == [3]  # the king of diamonds
    assert keycards(hands, 3).tolist() == [3]


def test_answers_by_aces_are_an_ask_with_each_answer_read() -> None:
    hands = _hands()
    held = aces(hands)
    answers = STEPS[held % 4]  # 5C 0 or 4 aces, 5D 1, 5H 2, 5S 3
    ask = read_asking("4NT", answers, hands, hcp(hands), None, CALL_NAMES)
    assert ask is not None and ask.counted == "aces" and ask.bits >= ASK_BITS
    by_call = {a.call: a for a in ask.answers}
    assert by_call["5D"].counts == ((1, 1.0),)
    assert by_call["5H"].counts == ((2, 1.0),)
    assert [k for k, _ in by_call["5C"].counts] in ([0], [0, 4])  # 4 aces: rare
    assert ask.answer_words("5D") == "answers 4NT: 1 ace (100%)"
    assert ask.answer_alert("5H") == "Answer to 4NT: 2 aces"
    assert ask.answer("6C") is None and ask.answer_words("6C") is None
    assert ask.ask_words().startswith("asks for aces; partner answers 5C with 0 aces")
    assert ask.ask_alert().startswith("Asks for aces: 5C 0 aces")


def test_answers_by_keycards_in_the_agreed_suit_count_keycards() -> None:
    hands = _hands(900)
    answers = STEPS[keycards(hands, SPADES) % 3]  # 0314-like steps: 5C 0 or 3, 5D 1 or 4, 5H 2
    ask = read_asking("4NT", answers, hands, hcp(hands), SPADES, CALL_NAMES)
    assert ask is not None and ask.counted == "keycards in spades"
    assert ask.answer_words("5D") is not None and "keycard in spades" in ask.answer_words("5D")
    # Without a suit both partners bid, the answers are read by aces (less well), or not at all.
    by_aces = read_asking("4NT", answers, hands, hcp(hands), None, CALL_NAMES)
    assert by_aces is None or by_aces.counted == "aces"


def test_answers_by_strength_alone_are_no_ask() -> None:
    """A quantitative 4NT: partner bids on by points, which aces feed; within a band of
    strength the answers tell no more about the aces."""
    hands = _hands(2000)
    points = hcp(hands)
    answers = np.where(points >= 11, STEPS[3], bid_index(Bid("Pass")))
    raw = banded_information(answers, aces(hands), np.zeros_like(points))
    assert raw >= ASK_BITS  # without the bands, strength would pass for aces
    assert read_asking("4NT", answers, hands, points, None, CALL_NAMES) is None


def test_one_answer_whatever_is_held_is_no_ask() -> None:
    hands = _hands()
    answers = np.full(len(hands), STEPS[3])
    assert read_asking("4NT", answers, hands, hcp(hands), SPADES, CALL_NAMES) is None


@pytest.mark.parametrize("n", [MIN_ANSWERS - 1, 10])
def test_too_few_answers_say_nothing(n: int) -> None:
    hands = _hands(n)
    assert read_asking("4NT", STEPS[aces(hands) % 4], hands, hcp(hands), None, CALL_NAMES) is None
