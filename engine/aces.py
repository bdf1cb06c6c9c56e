"""Ace asking: the slam layer asks partner how many aces it holds before it bids a slam.

The slam estimator (:mod:`engine.slams`) reads the auction; what the policy's auctions carry
least is the partnership's controls. Measured on validation deals
(``benchmarks/bench_slam_information.py``), knowing partner's controls raises the estimator's
precision at 30% recall from 0.66 to 0.79. The oldest convention in bridge asks for exactly
that, and both seats of our pair are the same agent, so both know it:

- **The ask** (4NT): where the call of the seat to act (the policy's, after the slam layer)
  leaves our side in a contract at the three to five level, or bids a slam directly, the
  auction is still below 4NT, our side has bid a suit, and the estimate of 12+ tricks in the
  best suit lies in ``[ask, ask_high)``, the seat bids 4NT instead. It does so only where every
  answer that would stop it leaves a sign-off at the five level in that suit (with no ace of its
  own, the suit must be hearts or spades; with one, not clubs).
- **The answer** (Blackwood): 5C no ace or four, 5D one, 5H two, 5S three.
- **The decision** (the asker, with the estimate it had when it asked): two aces missing, the
  sign-off at five (a pass where partner's answer is the suit); one missing, the small slam;
  none, the grand where the chance of 13 tricks reached ``grand``, else the small slam.
- **Partner passes** the asker's decision.

4NT by our side is always this ask once our side has bid a suit, whoever chose it (the layer or
the policy): the meaning is a function of the auction alone, which is what lets the partner
answer and the table manager's alert say what the call means (:func:`meaning`). Where an
opponent bids over the ask or over the answer, the convention has no say and the agent's own
call stands. No torch here.

The agents play it with ``aces=on`` (:mod:`bridgebot.agents`); it is off by default. On 2,000 fresh
deals it did not pay against bfg (-0.06 (0.04) IMPs/board, slams making 68% instead of 71%, 3 of
6 grands making) and gained +0.03 against the exploiters; docs/evaluation.md, "Ace asking", has
the figures and the calibration behind the thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.features import encode, hand_to_array
from bridgebot.engine.slams import FloatArray, IntArray, SlamEstimator, after_call, slam_probs
from bridgebot.laws.calls import ALL_CALLS, FIRST_BID, bid_index, call_index, legal_calls
from endplay.types import Bid

#: ALL_CALLS indices used here.
PASS, DOUBLE = 0, 1
FOUR_NT = call_index(4, 4)
FIVE_C, FIVE_S = call_index(5, 0), call_index(5, 3)
#: Data-file positions (S, H, D, C; ace first in each suit) of the four aces.
ACE_BITS = (0, 13, 26, 39)
NT = 4


@dataclass(frozen=True)
class AskRule:
    """Where the convention asks and how the asker decides; see the module docstring."""

    ask: float = 0.5
    """Least chance of 12+ tricks in the best suit at which the seat asks."""
    ask_high: float = 1.01
    """At this chance or above, the slam layer's own direct slam stands (no ask)."""
    one_missing: float = 0.55
    """Least chance of 12+ tricks (the estimate when it asked) for the small slam with one ace
    missing; below it, the sign-off."""
    grand: float = 0.22
    """Least chance of 13 tricks (the estimate when it asked) for the grand with all aces."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.ask <= self.ask_high:
            raise ValueError(
                f"ask rule: need 0 <= ask <= ask_high, not {self.ask}, {self.ask_high}"
            )


def aces(hand: npt.NDArray[np.uint8]) -> int:
    """Aces in a 13-hot hand (data-file order)."""
    return int(np.asarray(hand)[list(ACE_BITS)].sum())


def _strain(call: int) -> int:
    return (call - FIRST_BID) % 5


def _named_suit(calls: Sequence[int], upto: int, parity: int) -> bool:
    """The side of the calls at positions of ``parity`` bid a suit before position ``upto``."""
    return any(c >= FIRST_BID and _strain(c) != NT for c in calls[parity:upto:2])


def is_ask(calls: Sequence[int], i: int) -> bool:
    """``calls[i]`` is the ask: 4NT by a side that bid a suit before it."""
    return 0 <= i < len(calls) and calls[i] == FOUR_NT and _named_suit(calls, i, i % 2)


def _quiet(call: int) -> bool:
    """An opponent's call that leaves the convention going: a pass or a double."""
    return call in (PASS, DOUBLE)


def _is_answer(calls: Sequence[int], i: int) -> bool:
    """``calls[i]`` answers partner's ask at ``i - 2`` (the opponent between passed or doubled)."""
    return is_ask(calls, i - 2) and _quiet(calls[i - 1]) and FIVE_C <= calls[i] <= FIVE_S


def answer(own_aces: int) -> int:
    """The answer (ALL_CALLS index) of a hand with ``own_aces``."""
    return FIVE_C + (own_aces % 4)


def shown(answer_call: int, asker_aces: int) -> int:
    """Aces partner's answer shows (5C: none, or four where the asker has none)."""
    k = answer_call - FIVE_C
    return 4 if k == 0 and asker_aces == 0 else k


def can_ask(suit: int, own_aces: int) -> bool:
    """Every answer that leaves two aces missing leaves a five-level sign-off in ``suit``: the
    answer showing ``2 - own_aces`` aces is at most 5 of the suit."""
    return 2 - own_aces <= suit


def role(calls: Sequence[int]) -> str | None:
    """What the convention asks of the seat to call after ``calls``: ``"answer"``, ``"decide"``,
    ``"pass"`` (partner has decided), or None (no say)."""
    n = len(calls)
    if n >= 2 and is_ask(calls, n - 2) and _quiet(calls[n - 1]):
        return "answer"
    if n >= 4 and _is_answer(calls, n - 2) and _quiet(calls[n - 1]):
        return "decide"
    if (
        n >= 6
        and _is_answer(calls, n - 4)
        and _quiet(calls[n - 3])
        and calls[n - 2] >= FIRST_BID
        and _quiet(calls[n - 1])
    ):
        return "pass"
    return None


def best_suit(p12: npt.NDArray[np.float32]) -> int:
    """The suit (0 clubs .. 3 spades) most likely to make 12 tricks."""
    return int(np.argmax(np.asarray(p12)[:NT]))


def decide(
    calls: Sequence[int],
    own_aces: int,
    p12: npt.NDArray[np.float32],
    p13: npt.NDArray[np.float32],
    rule: AskRule,
) -> int:
    """The asker's call after partner's answer (``role(calls) == "decide"``), from the estimate
    it had when it asked (``p12``, ``p13``: chances of 12+ and 13 tricks per strain)."""
    response = calls[-2]
    total = own_aces + shown(response, own_aces)
    suit = best_suit(p12)
    if total == 4:
        return call_index(7 if p13[suit] >= rule.grand else 6, suit)
    if total == 3 and p12[suit] >= rule.one_missing:
        return call_index(6, suit)
    # Two or more missing (or one, below ``one_missing``): sign off at five, in the best suit still open (partner's answer,
    # passed, counts as its suit).
    open_suits = [s for s in range(NT) if call_index(5, s) >= response]
    suit = max(open_suits, key=lambda s: float(p12[s]))
    sign_off = call_index(5, suit)
    return PASS if sign_off == response else sign_off


def wants_ask(
    calls: Sequence[int],
    call: int,
    after_level: int,
    ours: bool,
    own_aces: int,
    p12: npt.NDArray[np.float32],
    rule: AskRule,
    low: int = 3,
) -> bool:
    """Whether the seat asks instead of ``call`` (ALL_CALLS index), which leaves a contract at
    ``after_level``, ours or not; ``p12`` is the estimate at this position."""
    n = len(calls)
    if call == FOUR_NT or not ours or after_level < low:
        return False
    standing = max((c for c in calls if c >= FIRST_BID), default=-1)
    if standing >= FOUR_NT or not _named_suit(calls, n, n % 2):
        return False
    suit = best_suit(p12)
    chance = float(p12[suit])
    return rule.ask <= chance < rule.ask_high and can_ask(suit, own_aces)


def meaning(calls: Sequence[int], call: int) -> str | None:
    """What the convention makes ``call`` (ALL_CALLS index) after ``calls`` mean, in the words
    of an alert (no final stop), else None."""
    extended = [*calls, call]
    if is_ask(extended, len(calls)):
        return "Blackwood, asks for aces"
    if _is_answer(extended, len(calls)):
        k = call - FIVE_C
        return (
            "Blackwood answer, 0 or 4 aces"
            if k == 0
            else f"Blackwood answer, {k} ace{'s' * (k > 1)}"
        )
    return None


class AceAsking:
    """The convention on an agent's views: :meth:`forced` where it dictates the call (answer,
    decide, pass), :meth:`apply` where the seat may ask. Needs the slam estimator (its chances
    are the ask's and the decision's) and keeps no state between calls."""

    def __init__(self, estimator: SlamEstimator, rule: AskRule | None = None) -> None:
        self.estimator = estimator
        self.rule = rule or AskRule()

    def _chances(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        return slam_probs(self.estimator.logits(x))

    def forced(self, view: BiddingView) -> Bid | None:
        """The call the convention dictates to ``view``'s seat, else None."""
        calls = [bid_index(c) for c in view.auction]
        what = role(calls)
        if what is None:
            return None
        own = aces(hand_to_array(view.hand))
        if what == "answer":
            return ALL_CALLS[answer(own)]
        if what == "pass":
            return ALL_CALLS[PASS]
        # The estimate the seat had when it asked: the same hand, the auction before its 4NT.
        before = view.auction[:-4]
        asked = replace(view, auction=before, legal=legal_calls(view.dealer, before))
        p12, p13 = self._chances(encode(asked)[None, :])
        return ALL_CALLS[decide(calls, own, p12[0], p13[0], self.rule)]

    def apply(self, views: Sequence[BiddingView], x: FloatArray, calls: IntArray) -> IntArray:
        """``calls`` (ALL_CALLS indices, row for row with ``views`` and their observations
        ``x``) with 4NT where the seat asks (:func:`wants_ask`)."""
        out = np.asarray(calls, dtype=np.int64).copy()
        _, level, _, ours = after_call(x, out)
        low = self.estimator.thresholds.low
        rows = np.flatnonzero(ours & (level >= low) & (out != FOUR_NT))
        if not len(rows):
            return out
        p12, _ = self._chances(x[rows])
        for j, r in enumerate(rows.tolist()):
            view = views[r]
            history = [bid_index(c) for c in view.auction]
            own = aces(hand_to_array(view.hand))
            if wants_ask(
                history, int(out[r]), int(level[r]), bool(ours[r]), own, p12[j], self.rule, low
            ):
                out[r] = FOUR_NT
        return out


def agent_asks(agent: object) -> bool:
    """Whether ``agent`` (a ``default``, ``policy:`` or ``search`` agent, or one wrapping them)
    plays the convention, so that its alerts explain it."""
    seen: list[object] = [agent]
    while seen:
        holder = seen.pop()
        if isinstance(getattr(holder, "aces", None), AceAsking):
            return True
        seen.extend(
            inner
            for name in ("agent", "search", "inner")
            if (inner := getattr(holder, name, None)) is not None
        )
    return False
