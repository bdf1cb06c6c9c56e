"""Ace and control asking: the slam layer asks partner what it holds before it bids a slam.

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

As control asking does (below), a 4NT the policy bids itself stands only where the convention
asks too, and a slam bid without the ask needs a chance of ``direct``.

The agents play it with ``aces=on`` (:mod:`bridgebot.agents`); it is off by default. On 2,000 fresh
deals it did not pay against bfg (-0.06 (0.04) IMPs/board, slams making 68% instead of 71%, 3 of
6 grands making) and gained +0.03 against the exploiters. Its thresholds were retuned on
validation when the slam layer was retrained (the old ones bid 25 grands, 10 making);
docs/evaluation.md, "Ace asking", has the figures and the calibration behind them.

**Control asking** (:class:`ControlAsking`, the agents' ``controls``; on by default where the model
has its estimator, as the shipped one does) asks the same 4NT for more: partner's controls (ace
2, king 1), which tell a slam from a game better than aces (``bench_slam_information.py``:
precision at 30% recall 0.70 with partner's aces known, 0.76 with the control steps below, 0.66
with neither).

- **The answer**, in seven steps: 5C 0-1 controls, 5D 2, 5H 3, 5S 4, 5NT 5, 6C 6, 6D 7 or more.
- **The decision** is learned: the control estimator (``slam/controls/`` beside the slam
  estimator, ``bridgebot train slamnet --partner-controls``) reads the asker's observation
  before its 4NT and partner's step, and gives the chances of 12 and 13 tricks in the strain
  the slam estimator liked best when it asked (notrump too: the stop is then 5NT). Seven from
  ``grand``, six from ``small``, else the stop at five (a pass where the answer is that bid).
- **The ask**, where ace asking would ask (:func:`ask_suit`, from a chance of ``ask``), and only
  where every answer partner may give leaves the asker the level it would want there
  (:func:`control_can_ask`: the seat runs the estimator on all seven answers first). A 4NT the
  policy chooses itself is kept only where the convention would ask too; else the policy's
  best other call stands.
- **Slams without the ask** (the policy's own, the slam layer's where no ask could be made)
  stand only from a chance of ``direct``: the ask decides the close ones.
- **Deals at the decision** (:class:`DealCheck`, the agents' ``controls_dd``; off by default):
  the asker's chances averaged with the share of 12 and 13 tricks on deals the belief net deals,
  kept where partner holds the controls it showed and solved double dummy. It ranked the
  decisions no better than the estimator alone (AUC 0.766 against 0.760 on 1,046 decisions).

docs/evaluation.md, "Control asking", has the calibration and the figures.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.features import (
    FEATURE_VERSION,
    N_FEATURES,
    encode,
    hand_to_array,
    without_their_doubles,
)
from bridgebot.engine.modelcard import Expected, cpu_session, load_model
from bridgebot.engine.search.protocols import ObservationSampler
from bridgebot.engine.slams import (
    N_OUTPUTS,
    SLAM_ONNX,
    FloatArray,
    IntArray,
    SlamEstimator,
    after_call,
    best_allowed,
    best_below,
    slam_probs,
)
from bridgebot.laws.calls import ALL_CALLS, FIRST_BID, bid_index, call_index, legal_calls
from endplay.types import Bid

if TYPE_CHECKING:
    from bridgebot.engine.pipeline import Step

T = TypeVar("T")

#: ALL_CALLS indices used here.
PASS, DOUBLE = 0, 1
FOUR_NT = call_index(4, 4)
FIVE_C, FIVE_S, SIX_D = call_index(5, 0), call_index(5, 3), call_index(6, 1)
#: Data-file positions (S, H, D, C; ace first in each suit) of the four aces, and of the kings.
ACE_BITS = (0, 13, 26, 39)
KING_BITS = (1, 14, 27, 40)
NT = 4
#: Strains the control ask may be for: the four suits and notrump (a stop at 5NT).
STRAINS = 5
#: Steps of the control answer: 5C (0-1 controls), 5D (2), 5H (3), 5S (4), 5NT (5), 6C (6),
#: 6D (7 or more).
N_STEPS = 7
#: The control estimator's directory inside the slam estimator's (``policy/slam/controls``).
CONTROLS_DIR = "controls"
#: The control estimator's card ``output_version``: the slam estimator's classes, from the
#: observation with partner's control step appended.
CONTROLS_OUTPUT_VERSION = "slam-tricks3-partner-controls-v1"
#: What the control asking needs of its estimator's model directory.
CONTROLS_MODEL = Expected(
    onnx=SLAM_ONNX,
    feature_versions=frozenset({FEATURE_VERSION}),
    inputs=N_FEATURES + 1,
    outputs=N_OUTPUTS,
    remedy="retrain it with 'bridgebot train slamnet --partner-controls'",
    output_version=CONTROLS_OUTPUT_VERSION,
)


@dataclass(frozen=True)
class AskRule:
    """Where the convention asks and how the asker decides; see the module docstring."""

    ask: float = 0.6
    """Least chance of 12+ tricks in the best suit at which the seat asks."""
    ask_high: float = 1.01
    """At this chance or above, the slam layer's own direct slam stands (no ask)."""
    one_missing: float = 0.65
    """Least chance of 12+ tricks (the estimate when it asked) for the small slam with one ace
    missing; below it, the sign-off."""
    grand: float = 0.5
    """Least chance of 13 tricks (the estimate when it asked) for the grand with all aces."""
    direct: float = 0.8
    """Least chance for a slam bid without the ask (as :attr:`ControlRule.direct`); 0: any."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.ask <= self.ask_high:
            raise ValueError(
                f"ask rule: need 0 <= ask <= ask_high, not {self.ask}, {self.ask_high}"
            )


def aces(hand: npt.NDArray[np.uint8]) -> int:
    """Aces in a 13-hot hand (data-file order)."""
    return int(np.asarray(hand)[list(ACE_BITS)].sum())


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


#: The conventions' names (the agents' ``aces=on`` and ``controls=on``), and each one's highest
#: answer.
ACES, CONTROLS = "aces", "controls"
LAST_ANSWER = {ACES: FIVE_S, CONTROLS: SIX_D}


def _is_answer(calls: Sequence[int], i: int, scheme: str = ACES) -> bool:
    """``calls[i]`` answers partner's ask at ``i - 2`` (the opponent between passed or doubled)."""
    return (
        is_ask(calls, i - 2)
        and _quiet(calls[i - 1])
        and FIVE_C <= calls[i] <= LAST_ANSWER[scheme]
    )  # fmt: skip


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


def role(calls: Sequence[int], scheme: str = ACES) -> str | None:
    """What the convention (``scheme``) asks of the seat to call after ``calls``: ``"answer"``,
    ``"decide"``, ``"pass"`` (partner has decided), or None (no say)."""
    n = len(calls)
    if n >= 2 and is_ask(calls, n - 2) and _quiet(calls[n - 1]):
        return "answer"
    if n >= 4 and _is_answer(calls, n - 2, scheme) and _quiet(calls[n - 1]):
        return "decide"
    if (
        n >= 6
        and _is_answer(calls, n - 4, scheme)
        and _quiet(calls[n - 3])
        and calls[n - 2] >= FIRST_BID
        and _quiet(calls[n - 1])
    ):
        return "pass"
    return None


def best_suit(p12: npt.NDArray[np.float32], strains: int = NT) -> int:
    """The suit (0 clubs .. 3 spades) most likely to make 12 tricks; with ``strains=5``, the
    strain, notrump included."""
    return int(np.argmax(np.asarray(p12)[:strains]))


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
    suit = ask_suit(calls, call, after_level, ours, p12, rule.ask, rule.ask_high, low)
    return suit is not None and can_ask(suit, own_aces)


def ask_suit(
    calls: Sequence[int],
    call: int,
    after_level: int,
    ours: bool,
    p12: npt.NDArray[np.float32],
    ask: float,
    ask_high: float,
    low: int = 3,
    strains: int = NT,
) -> int | None:
    """The suit the seat would ask in instead of ``call`` (see :func:`wants_ask`), where the
    position allows an ask and the best suit's chance lies in ``[ask, ask_high)``; else None."""
    n = len(calls)
    if call == FOUR_NT or not ours or after_level < low:
        return None
    standing = max((c for c in calls if c >= FIRST_BID), default=-1)
    if standing >= FOUR_NT or not _named_suit(calls, n, n % 2):
        return None
    suit = best_suit(p12, strains)
    return suit if ask <= float(p12[suit]) < ask_high else None


#: What each control answer step shows.
STEP_TEXT = ("0-1 controls", "2 controls", "3 controls", "4 controls", "5 controls", "6 controls",
             "7 or more controls")  # fmt: skip


def meaning(calls: Sequence[int], call: int, scheme: str = ACES) -> str | None:
    """What the convention (``scheme``) makes ``call`` (ALL_CALLS index) after ``calls`` mean,
    in the words of an alert (no final stop), else None."""
    extended = [*calls, call]
    if scheme == CONTROLS:
        if is_ask(extended, len(calls)):
            return "Control ask: asks for controls (ace 2, king 1)"
        if _is_answer(extended, len(calls), CONTROLS):
            return f"Control answer, {STEP_TEXT[call - FIVE_C]}"
        return None
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


def veto_own_ask(
    views: Sequence[BiddingView],
    calls: IntArray,
    mask: npt.NDArray[np.bool_] | None,
    logits: FloatArray | None,
) -> IntArray:
    """``calls`` (a copy) where a 4NT the policy chose itself, which the auction makes the
    ask, is replaced by the policy's best other legal call (with the legal ``mask`` and the
    policy's ``logits``; without them, ``calls`` as they are): the convention decides where
    to ask, and partner would answer that 4NT past the level the seat can stop at."""
    out = np.asarray(calls, dtype=np.int64).copy()
    if mask is None or logits is None:
        return out
    for r in np.flatnonzero(out == FOUR_NT).tolist():
        history = [bid_index(c) for c in views[r].auction]
        if is_ask([*history, FOUR_NT], len(history)):
            other = mask[r] & (np.arange(mask.shape[1]) != FOUR_NT)
            out[r] = best_allowed(other, logits[r], FOUR_NT)
    return out


class Reach(NamedTuple):
    """Where a batch of calls leaves our side (:meth:`_Asking._reach`)."""

    rows: IntArray
    """The rows whose call leaves our side at the slam layer's ``low`` level or higher (4NT
    aside)."""
    is_bid: npt.NDArray[np.bool_]
    """Per row of the batch: whether its call is a bid (:func:`engine.slams.after_call`)."""
    level: IntArray
    """Per row of the batch: the level its call leaves."""
    strain: IntArray
    """Per row of the batch: the strain its call leaves."""
    p12: FloatArray
    """[len(rows), 5] the slam estimator's chance of 12+ tricks per strain, on :attr:`rows`."""
    p13: FloatArray
    """[len(rows), 5] the same of 13 tricks."""


def veto_direct(
    out: IntArray,
    reach: Reach,
    mask: npt.NDArray[np.bool_] | None,
    logits: FloatArray | None,
    direct: float,
) -> None:
    """In place: a slam bid without the ask in ``out`` (the policy's or the slam layer's, on
    ``reach``'s rows) stands only where the slam estimator gives it ``direct`` (of 13 tricks for
    a grand); else the policy's best call below the slam. Nothing without ``mask`` and
    ``logits``, or with ``direct`` 0."""
    if mask is None or logits is None or direct <= 0:
        return
    for j, r in enumerate(reach.rows.tolist()):
        level = int(reach.level[r])
        if out[r] == FOUR_NT or not reach.is_bid[r] or level < 6:
            continue
        chance = (reach.p13 if level == 7 else reach.p12)[j, reach.strain[r]]
        if chance < direct:
            out[r] = best_below(mask[r], logits[r], level, int(out[r]))


class _Asking:
    """What both conventions share: :meth:`forced`, the call the convention dictates where the
    auction gives the seat a role (answer, decide, pass), from the seat's answer to its hand
    and its decision from its observation when it asked."""

    scheme: str

    def _answer(self, hand: npt.NDArray[np.uint8]) -> int:
        raise NotImplementedError

    def _decide(self, calls: Sequence[int], hand: npt.NDArray[np.uint8], x: FloatArray) -> int:
        raise NotImplementedError

    estimator: SlamEstimator
    rule: AskRule | ControlRule

    def _reach(self, x: FloatArray, out: IntArray) -> Reach:
        """Where the calls ``out`` on observations ``x`` leave our side, with the slam
        estimator's chances on the rows in its zone (one estimator pass)."""
        is_bid, level, strain, ours = after_call(x, out)
        rows = np.flatnonzero(ours & (level >= self.estimator.thresholds.low) & (out != FOUR_NT))
        p12, p13 = slam_probs(self.estimator.logits(x[rows])) if len(rows) else (
            np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32)
        )  # fmt: skip
        return Reach(rows, is_bid, level, strain, p12, p13)

    def _ask(
        self, views: Sequence[BiddingView], x: FloatArray, out: IntArray, reach: Reach
    ) -> None:
        raise NotImplementedError

    def apply(
        self,
        views: Sequence[BiddingView],
        x: FloatArray,
        calls: IntArray,
        mask: npt.NDArray[np.bool_] | None = None,
        logits: FloatArray | None = None,
    ) -> IntArray:
        """``calls`` (ALL_CALLS indices, row for row with ``views`` and their observations
        ``x``) with 4NT where the seat asks (each convention's ``_ask``). With the legal
        ``mask`` and the policy's ``logits``, a 4NT of the policy's own that would be the ask
        stands only where the convention asks too (:func:`veto_own_ask`), and a slam bid without
        the ask needs ``rule.direct`` (:func:`veto_direct`)."""
        out = veto_own_ask(views, calls, mask, logits)
        reach = self._reach(x, out)
        self._ask(views, x, out, reach)
        veto_direct(out, reach, mask, logits, self.rule.direct)
        return out

    def forced(self, view: BiddingView) -> Bid | None:
        """The call the convention dictates to ``view``'s seat, else None."""
        calls = [bid_index(c) for c in view.auction]
        what = role(calls, self.scheme)
        if what is None:
            return None
        hand = hand_to_array(view.hand)
        if what == "answer":
            return ALL_CALLS[self._answer(hand)]
        if what == "pass":
            return ALL_CALLS[PASS]
        # The seat's observation when it asked: the same hand, the auction before its 4NT.
        before = view.auction[:-4]
        asked = replace(view, auction=before, legal=legal_calls(view.dealer, before))
        return ALL_CALLS[self._decide(calls, hand, encode(asked)[None, :])]


class AceAsking(_Asking):
    """The convention on an agent's views: :meth:`forced` where it dictates the call (answer,
    decide, pass), :meth:`apply` where the seat may ask. Needs the slam estimator (its chances
    are the ask's and the decision's) and keeps no state between calls."""

    scheme = ACES
    rule: AskRule

    def __init__(self, estimator: SlamEstimator, rule: AskRule | None = None) -> None:
        self.estimator = estimator
        self.rule = rule or AskRule()

    def _answer(self, hand: npt.NDArray[np.uint8]) -> int:
        return answer(aces(hand))

    def _decide(self, calls: Sequence[int], hand: npt.NDArray[np.uint8], x: FloatArray) -> int:
        p12, p13 = slam_probs(self.estimator.logits(x))
        return decide(calls, aces(hand), p12[0], p13[0], self.rule)

    def _ask(
        self, views: Sequence[BiddingView], x: FloatArray, out: IntArray, reach: Reach
    ) -> None:
        """4NT in ``out`` where the seat asks for aces (:func:`wants_ask`)."""
        low = self.estimator.thresholds.low
        for j, r in enumerate(reach.rows.tolist()):
            view = views[r]
            history = [bid_index(c) for c in view.auction]
            own = aces(hand_to_array(view.hand))
            level = int(reach.level[r])
            if wants_ask(history, int(out[r]), level, True, own, reach.p12[j], self.rule, low):
                out[r] = FOUR_NT


# -- control asking --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ControlRule:
    """Where the control asking asks and how the asker decides (chances of its estimator)."""

    ask: float = 0.4
    """Least chance of 12+ tricks in the best strain (the slam estimator's) at which the seat
    asks."""
    ask_high: float = 1.01
    """At this chance or above, the slam layer's own call stands (no ask)."""
    small: float = 0.55
    """Least chance of 12+ tricks, with partner's controls known, for the small slam."""
    grand: float = 0.65
    """Least chance of 13 tricks, with partner's controls known, for the grand (0.55 until
    the calibration in docs/evaluation.md, "Control asking": from 0.55 to 0.65 the grands made
    58%)."""
    direct: float = 0.8
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


def controls_dir(slam_dir: Path) -> Path | None:
    """The control estimator's directory inside the slam estimator's ``slam_dir``, if there is
    one."""
    d = slam_dir / CONTROLS_DIR
    return d if (d / SLAM_ONNX).is_file() else None


class ControlEstimator:
    """The control asking's estimator (``policy/slam/controls``, trained by ``bridgebot train
    slamnet --partner-controls``): the slam estimator's chances with partner's control step as
    one more input; ``their_doubles=False`` reads the observation as
    :class:`engine.slams.SlamEstimator` then does, as if the opponents had not doubled."""

    def __init__(self, path: str | Path, threads: int = 1, their_doubles: bool = True) -> None:
        self.their_doubles = their_doubles
        self.model = load_model(path, CONTROLS_MODEL)
        self.session = cpu_session(self.model.onnx_path, threads)

    def chances(self, x: FloatArray, steps: IntArray) -> tuple[FloatArray, FloatArray]:
        """(P(12+), P(13)) per strain, [B, 5] each, for observations ``x`` [B, 480] and
        partner's control steps ``steps`` [B]."""
        seen = np.asarray(x, np.float32) if self.their_doubles else without_their_doubles(x)
        rows = np.concatenate([seen, np.asarray(steps, np.float32)[:, None]], axis=1)
        out = self.session.run(None, {self.model.card.input.name: rows})[0]
        return slam_probs(np.asarray(out, dtype=np.float32))


class Solver(Protocol):
    """Double-dummy tricks per deal (``engine.search.SolverOracle`` is one)."""

    def tricks(
        self, owners: npt.NDArray[np.uint8], declarer: IntArray, strain: IntArray
    ) -> IntArray: ...


@dataclass(frozen=True)
class DealCheck:
    """The asker's decision checked on deals (the agents' ``controls_dd``): ``pool`` deals of
    the unseen cards from the belief net, on the asker's observation before its 4NT; of them the
    first ``particles`` whose partner holds the controls partner's answer shows, each solved
    double dummy in the asked strain, the better of our two declarers. The budget is counted in
    deals, and the deals are drawn from a generator seeded by the observation and the answer, so
    a decision repeats."""

    dealer: ObservationSampler
    solver: Solver
    particles: int = 64
    pool: int = 1000

    def chances(
        self, x: FloatArray, hand: npt.NDArray[np.uint8], step: int, strain: int
    ) -> tuple[float, float] | None:
        """(share of 12+ tricks, share of 13) on the kept deals, or None where the pool held
        no deal with partner's answer."""
        key = hashlib.blake2b(np.asarray(x, np.float32).tobytes() + bytes([step]), digest_size=8)
        rng = np.random.default_rng(int.from_bytes(key.digest(), "little"))
        # The observer sits at 0 and partner at 2: tricks do not depend on which seat is North.
        owners = self.dealer.sample(np.asarray(x, np.float32)[0], 0, hand, self.pool, rng)
        kept = owners[control_step(controls((owners == 2).astype(np.uint8))) == step]
        kept = kept[: self.particles]
        if not len(kept):
            return None
        strains = np.full(len(kept), strain, dtype=np.int64)
        tricks = np.maximum(
            self.solver.tricks(kept, np.zeros(len(kept), np.int64), strains),
            self.solver.tricks(kept, np.full(len(kept), 2, np.int64), strains),
        )
        return float((tricks >= 12).mean()), float((tricks >= 13).mean())


class ControlAsking(_Asking):
    """Control asking on an agent's views (``controls=on``): 4NT asks for controls (ace 2, king
    1), answered in seven steps, 5C (0-1) to 6D (7 or more); the asker then decides with the
    control estimator, which reads its observation before the ask and partner's step. Like
    :class:`AceAsking`, :meth:`forced` where the convention dictates the call, :meth:`apply`
    where the seat may ask; no state between calls."""

    scheme = CONTROLS
    rule: ControlRule

    def __init__(
        self,
        estimator: SlamEstimator,
        controls_estimator: ControlEstimator,
        rule: ControlRule | None = None,
        deals: DealCheck | None = None,
    ) -> None:
        self.estimator = estimator
        self.controls = controls_estimator
        self.rule = rule or ControlRule()
        self.deals = deals
        """Where set, the decision takes the mean of the control estimator's chances and the
        deals' (:class:`DealCheck`)."""

    def _levels(self, x: FloatArray, suits: Sequence[int]) -> npt.NDArray[np.int64]:
        """[len(x), 7] the level the asker wants in ``suits[i]`` after each answer step."""
        n = len(x)
        steps = np.tile(np.arange(N_STEPS), n)
        p12, p13 = self.controls.chances(np.repeat(x, N_STEPS, axis=0), steps)
        s = np.repeat(np.asarray(suits, dtype=np.int64), N_STEPS)
        rows = np.arange(len(s))
        a, b = p12[rows, s], p13[rows, s]
        levels = np.where(b >= self.rule.grand, 7, np.where(a >= self.rule.small, 6, 5))
        return np.asarray(levels, dtype=np.int64).reshape(n, N_STEPS)

    def _answer(self, hand: npt.NDArray[np.uint8]) -> int:
        return FIVE_C + int(control_step(controls(hand)))

    def _decide(self, calls: Sequence[int], hand: npt.NDArray[np.uint8], x: FloatArray) -> int:
        asked, _ = slam_probs(self.estimator.logits(x))
        suit = best_suit(asked[0], STRAINS)
        response = calls[-2]
        c12, c13 = self.controls.chances(x, np.array([response - FIVE_C]))
        p12, p13 = float(c12[0, suit]), float(c13[0, suit])
        # The deals read the auction as the estimators do (the opponents' doubles too).
        seen = x if self.controls.their_doubles else without_their_doubles(x)
        dealt = self.deals.chances(seen, hand, response - FIVE_C, suit) if self.deals else None
        if dealt is not None:
            p12, p13 = (p12 + dealt[0]) / 2, (p13 + dealt[1]) / 2
        return control_call(self.rule.level(p12, p13), suit, response)

    def _ask(
        self, views: Sequence[BiddingView], x: FloatArray, out: IntArray, reach: Reach
    ) -> None:
        """4NT in ``out`` where the seat asks for controls: a position :func:`ask_suit` allows,
        whose every possible answer leaves the level the asker would want
        (:func:`control_can_ask`)."""
        low = self.estimator.thresholds.low
        asks: list[tuple[int, int]] = []
        for j, r in enumerate(reach.rows.tolist()):
            history = [bid_index(c) for c in views[r].auction]
            suit = ask_suit(
                history, int(out[r]), int(reach.level[r]), True, reach.p12[j],
                self.rule.ask, self.rule.ask_high, low, STRAINS,
            )  # fmt: skip
            if suit is not None:
                asks.append((r, suit))
        if asks:
            levels = self._levels(x[[r for r, _ in asks]], [suit for _, suit in asks])
            for (r, suit), wanted in zip(asks, levels, strict=True):
                own = int(controls(hand_to_array(views[r].hand)))
                if control_can_ask(suit, own, wanted.tolist()):
                    out[r] = FOUR_NT


#: Either asking convention, as the agents hold it.
Convention = AceAsking | ControlAsking


class ConventionLayer:
    """An asking convention as a stage of the pipeline (:class:`engine.pipeline.Layer`): it
    forces the call where the auction gives the seat a role (:meth:`_Asking.forced`: the answer,
    the asker's decision, the pass after it), and after the base and the slam layer it asks and
    vetoes (:meth:`_Asking.apply`). Named by its scheme (``aces`` or ``controls``)."""

    def __init__(self, convention: Convention) -> None:
        self.convention = convention
        self.name = convention.scheme

    def forced(
        self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
    ) -> list[Bid | None]:
        scheme = self.convention.scheme
        return [
            self.convention.forced(views[i]) if role(calls, scheme) is not None else None
            for i, calls in enumerate(auctions)
        ]

    def apply(self, step: Step) -> IntArray:
        return self.convention.apply(step.views, step.x, step.calls, step.mask, step.logits)
