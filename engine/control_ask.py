"""Control asking on auctions: what 4NT and its answers mean, and the asker's rule.

The slam estimator (:mod:`engine.slams`) reads the auction; what the policy's auctions carry
least is the partnership's controls (ace 2, king 1), which tell a slam from a game better than
aces (``benchmarks/bench_slam_information.py``: precision at 30% recall 0.70 with partner's aces
known, 0.76 with the control steps below, 0.66 with neither). Both seats of our pair are the same
agent, so both know the convention:

- **The ask** (4NT): where the call of the seat to act (the policy's, after the slam layer)
  leaves our side in a contract at the three to five level, or bids a slam directly, the auction
  is still below 4NT, our side has bid a suit, and the slam estimator's chance of 12+ tricks in
  the best strain lies in ``[ask, ask_high)`` (:func:`ask_suit`), the seat bids 4NT instead, where
  every answer leaves it the level it would want (:func:`control_can_ask`).
- **The answer**, in seven steps: 5C 0-1 controls, 5D 2, 5H 3, 5S 4, 5NT 5, 6C 6, 6D 7 or more.
- **The decision** (:class:`ControlRule`): seven from a chance of ``grand`` of 13 tricks, six from
  ``small`` of 12, else the stop at five (:func:`control_call`; a pass where the answer is that
  bid). The chances are the control estimator's (:mod:`engine.control_estimator`).
- **Partner passes** the asker's decision.

4NT by a side that has bid a suit is always the ask, whoever chose it: the meaning is a function
of the auction alone (:func:`role`, :func:`meaning`), which is what lets the partner answer and the
table manager's alert say what the call means. Where an opponent bids over the ask or over the
answer, the convention has no say. The pure rules live here; the policy that plays them on an
agent's views is :mod:`engine.control_layer`. docs/evaluation.md, "Control asking", has the
calibration and the figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from bridgebot.engine.knobs import knob
from bridgebot.laws.calls import FIRST_BID, call_index

#: ALL_CALLS indices used here.
PASS, DOUBLE = 0, 1
FOUR_NT = call_index(4, 4)
FIVE_C, SIX_D = call_index(5, 0), call_index(6, 1)
#: Data-file positions (S, H, D, C; ace first in each suit) of the four aces, and of the kings.
ACE_BITS = (0, 13, 26, 39)
KING_BITS = (1, 14, 27, 40)
NT = 4
#: Strains the control ask may be for: the four suits and notrump (a stop at 5NT).
STRAINS = 5
#: Steps of the control answer: 5C (0-1 controls), 5D (2), 5H (3), 5S (4), 5NT (5), 6C (6),
#: 6D (7 or more).
N_STEPS = 7
#: The convention's name (the agents' ``controls=on``; ``engine.parts.Parts.convention``).
CONTROLS = "controls"
#: What each answer step shows.
STEP_TEXT = ("0-1 controls", "2 controls", "3 controls", "4 controls", "5 controls", "6 controls",
             "7 or more controls")  # fmt: skip


@dataclass(frozen=True)
class ControlRule:
    """Where the control asking asks and how the asker decides (chances of its estimator). Each
    field is an agent option, ``controls_`` and its name (:mod:`engine.knobs`)."""

    ask: float = knob(
        0.4,
        "least chance of 12+ tricks (the slam layer's) at which the seat asks for controls",
        ge=0.0,
        le=1.0,
    )
    """Least chance of 12+ tricks in the best strain (the slam estimator's) at which the seat
    asks."""
    ask_high: float = knob(
        1.01, "at this chance of 12+ tricks or above, no ask: the call stands", ge=0.0, le=1.01
    )
    """At this chance or above, the slam layer's own call stands (no ask)."""
    small: float = knob(
        0.55,
        "least chance of 12+ tricks, partner's controls known, for a small slam",
        ge=0.0,
        le=1.01,
    )
    """Least chance of 12+ tricks, with partner's controls known, for the small slam."""
    grand: float = knob(
        0.65,
        "least chance of 13 tricks, partner's controls known, for a grand",
        ge=0.0,
        le=1.01,
    )
    """Least chance of 13 tricks, with partner's controls known, for the grand (0.55 until
    the calibration in docs/evaluation.md, "Control asking": from 0.55 to 0.65 the grands made
    58%)."""
    direct: float = knob(
        0.8,
        "least chance of making (the slam layer's estimate) for a slam bid without the control "
        "ask, the policy's or the slam layer's",
        ge=0.0,
        le=1.01,
    )
    """Least chance (the slam estimator's, of 12+ tricks; of 13 for a grand) for a slam bid
    without the ask, the policy's or the slam layer's; below it, the policy's best call below the
    slam."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.ask <= self.ask_high:
            raise ValueError(
                f"control rule: need 0 <= ask <= ask_high, not {self.ask}, {self.ask_high}"
            )

    def level(self, p12: float, p13: float) -> int:
        """The level the asker wants: 7, 6, or 5 (stop)."""
        return 7 if p13 >= self.grand else 6 if p12 >= self.small else 5


def controls(hand: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """Controls (ace 2, king 1) of 13-hot hands ``[..., 52]`` (data-file order)."""
    h = np.asarray(hand, dtype=np.int64)
    out: npt.NDArray[np.int64] = 2 * h[..., list(ACE_BITS)].sum(axis=-1) + h[
        ..., list(KING_BITS)
    ].sum(axis=-1)
    return out


def control_step(count: int | npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The answer step (0-6) of a hand with ``count`` controls: 0-1 controls step 0, 2 step 1, ...
    7 or more step 6. The control estimator reads it as its last input."""
    step: npt.NDArray[np.int64] = np.clip(np.asarray(count, dtype=np.int64), 1, 7) - 1
    return step


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


def is_answer(calls: Sequence[int], i: int) -> bool:
    """``calls[i]`` answers partner's ask at ``i - 2`` (the opponent between passed or doubled)."""
    return is_ask(calls, i - 2) and _quiet(calls[i - 1]) and FIVE_C <= calls[i] <= SIX_D


def role(calls: Sequence[int]) -> str | None:
    """What the convention asks of the seat to call after ``calls``: ``"answer"``, ``"decide"``,
    ``"pass"`` (partner has decided), or None (no say)."""
    n = len(calls)
    if n >= 2 and is_ask(calls, n - 2) and _quiet(calls[n - 1]):
        return "answer"
    if n >= 4 and is_answer(calls, n - 2) and _quiet(calls[n - 1]):
        return "decide"
    if (
        n >= 6
        and is_answer(calls, n - 4)
        and _quiet(calls[n - 3])
        and calls[n - 2] >= FIRST_BID
        and _quiet(calls[n - 1])
    ):
        return "pass"
    return None


def meaning(calls: Sequence[int], call: int) -> str | None:
    """What the convention makes ``call`` (ALL_CALLS index) after ``calls`` mean, in the words of
    an alert (no final stop), else None."""
    extended = [*calls, call]
    if is_ask(extended, len(calls)):
        return "Control ask: asks for controls (ace 2, king 1)"
    if is_answer(extended, len(calls)):
        return f"Control answer, {STEP_TEXT[call - FIVE_C]}"
    return None


def best_suit(p12: npt.NDArray[np.float32], strains: int = NT) -> int:
    """The suit (0 clubs .. 3 spades) most likely to make 12 tricks; with ``strains=5``, the
    strain, notrump included."""
    return int(np.argmax(np.asarray(p12)[:strains]))


def ask_suit(
    calls: Sequence[int],
    call: int,
    after_level: int,
    ours: bool,
    p12: npt.NDArray[np.float32],
    ask: float,
    ask_high: float,
    low: int = 3,
    strains: int = STRAINS,
) -> int | None:
    """The strain the seat would ask in instead of ``call`` (ALL_CALLS index), which leaves a
    contract at ``after_level``, ours or not (``p12``: the estimate at this position), where the
    position allows an ask (the call not 4NT, our contract from level ``low``, the auction below
    4NT, our side has bid a suit) and the best strain's chance lies in ``[ask, ask_high)``; else
    None."""
    n = len(calls)
    if call == FOUR_NT or not ours or after_level < low:
        return None
    standing = max((c for c in calls if c >= FIRST_BID), default=-1)
    if standing >= FOUR_NT or not _named_suit(calls, n, n % 2):
        return None
    suit = best_suit(p12, strains)
    return suit if ask <= float(p12[suit]) < ask_high else None


def control_call(level: int, suit: int, response: int) -> int:
    """The asker's call for ``level`` in ``suit`` after partner's answer ``response``: the bid,
    the next level up where the answer has passed it, a pass where the answer is that bid."""
    bid = call_index(level, suit)
    if bid < response:
        bid = call_index(level + 1, suit)
    return PASS if bid == response else bid


def control_can_ask(suit: int, own_controls: int, levels: Sequence[int]) -> bool:
    """Whether every answer partner may give (its controls and the asker's ``own_controls`` at
    most 12 in all) leaves the asker the level it would want there, ``levels[step]``: a stop at
    five must not be passed by the answer, nor a small slam."""
    for step, level in enumerate(levels):
        least = 0 if step == 0 else step + 1
        if own_controls + least <= 12 and call_index(level, suit) < FIVE_C + step:
            return False
    return True
