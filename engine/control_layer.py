"""Control asking as a layer of the bidding pipeline: where a seat asks, what it answers and
how it decides, on a batch of an agent's views.

The rules on auctions are :mod:`engine.control_ask`; the chances once partner's controls are
known, :mod:`engine.control_estimator`. :class:`ControlAsking` plays them over the slam estimator
(whose chances decide where the seat asks); :class:`ConventionLayer` is it as a layer of
:class:`engine.pipeline.LayeredBidder`:

- **forced** (before the base): the answer, the asker's decision, the pass after it, wherever the
  auction gives the seat that role;
- **apply** (after the base and the slam layer): a 4NT of the policy's own stands only where the
  convention asks too (:func:`veto_own_ask`); the seat asks where :func:`engine.control_ask.
  ask_suit` allows and every answer leaves it the level it would want; a slam bid without the ask
  needs a chance of ``direct`` (:func:`veto_direct`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import numpy.typing as npt
from bridgebot.core.arrays import FloatArray, IntArray
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.control_ask import (
    CONTROLS,
    FIVE_C,
    FOUR_NT,
    N_STEPS,
    PASS,
    STRAINS,
    ControlRule,
    ask_suit,
    best_suit,
    control_call,
    control_can_ask,
    control_step,
    controls,
    is_ask,
    role,
)
from bridgebot.engine.control_estimator import ControlEstimator
from bridgebot.engine.features import encode, hand_to_array
from bridgebot.engine.slams import (
    SlamEstimator,
    after_call,
    best_allowed,
    best_below,
    slam_probs,
)
from bridgebot.laws.calls import ALL_CALLS, bid_index, legal_calls
from endplay.types import Bid

if TYPE_CHECKING:
    from bridgebot.engine.pipeline import Step


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
    """Where a batch of calls leaves our side (:meth:`ControlAsking.reach`)."""

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


class ControlAsking:
    """Control asking on an agent's views (``controls=on``): :meth:`forced` where the convention
    dictates the call (answer, decide, pass), :meth:`apply` where the seat may ask. Needs the slam
    estimator (its chances are the ask's) and the control estimator (the decision's); keeps no
    state between calls."""

    scheme = CONTROLS

    def __init__(
        self,
        estimator: SlamEstimator,
        controls_estimator: ControlEstimator,
        rule: ControlRule | None = None,
    ) -> None:
        self.estimator = estimator
        self.controls = controls_estimator
        """The control estimator (the name ``models.convention`` reads)."""
        self.rule = rule or ControlRule()

    def reach(self, x: FloatArray, out: IntArray) -> Reach:
        """Where the calls ``out`` on observations ``x`` leave our side, with the slam
        estimator's chances on the rows in its zone (one estimator pass)."""
        is_bid, level, strain, ours = after_call(x, out)
        rows = np.flatnonzero(ours & (level >= self.estimator.thresholds.low) & (out != FOUR_NT))
        p12, p13 = slam_probs(self.estimator.logits(x[rows])) if len(rows) else (
            np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32)
        )  # fmt: skip
        return Reach(rows, is_bid, level, strain, p12, p13)

    def apply(
        self,
        views: Sequence[BiddingView],
        x: FloatArray,
        calls: IntArray,
        mask: npt.NDArray[np.bool_] | None = None,
        logits: FloatArray | None = None,
    ) -> IntArray:
        """``calls`` (ALL_CALLS indices, row for row with ``views`` and their observations
        ``x``) with 4NT where the seat asks (:meth:`ask`). With the legal ``mask`` and the
        policy's ``logits``, a 4NT of the policy's own that would be the ask stands only where
        the convention asks too (:func:`veto_own_ask`), and a slam bid without the ask needs
        ``rule.direct`` (:func:`veto_direct`)."""
        out = veto_own_ask(views, calls, mask, logits)
        reach = self.reach(x, out)
        self.ask(views, x, out, reach)
        veto_direct(out, reach, mask, logits, self.rule.direct)
        return out

    def forced(self, view: BiddingView) -> Bid | None:
        """The call the convention dictates to ``view``'s seat, else None."""
        calls = [bid_index(c) for c in view.auction]
        what = role(calls)
        if what is None:
            return None
        hand = hand_to_array(view.hand)
        if what == "answer":
            return ALL_CALLS[FIVE_C + int(control_step(controls(hand)))]
        if what == "pass":
            return ALL_CALLS[PASS]
        # The seat's observation when it asked: the same hand, the auction before its 4NT.
        before = view.auction[:-4]
        asked = replace(view, auction=before, legal=legal_calls(view.dealer, before))
        return ALL_CALLS[self.decide(calls, encode(asked)[None, :])]

    def decide(self, calls: Sequence[int], x: FloatArray) -> int:
        """The asker's call after partner's answer ``calls[-2]``, from its observation ``x``
        [1, 480] when it asked: the level the rule wants on the control estimator's chances, in
        the strain the slam estimator liked best then."""
        asked, _ = slam_probs(self.estimator.logits(x))
        suit = best_suit(asked[0], STRAINS)
        response = calls[-2]
        c12, c13 = self.controls.chances(x, np.array([response - FIVE_C]))
        p12, p13 = float(c12[0, suit]), float(c13[0, suit])
        return control_call(self.rule.level(p12, p13), suit, response)

    def levels(self, x: FloatArray, suits: Sequence[int]) -> npt.NDArray[np.int64]:
        """[len(x), 7] the level the asker wants in ``suits[i]`` after each answer step."""
        n = len(x)
        steps = np.tile(np.arange(N_STEPS), n)
        p12, p13 = self.controls.chances(np.repeat(x, N_STEPS, axis=0), steps)
        s = np.repeat(np.asarray(suits, dtype=np.int64), N_STEPS)
        rows = np.arange(len(s))
        a, b = p12[rows, s], p13[rows, s]
        levels = np.where(b >= self.rule.grand, 7, np.where(a >= self.rule.small, 6, 5))
        return np.asarray(levels, dtype=np.int64).reshape(n, N_STEPS)

    def ask(self, views: Sequence[BiddingView], x: FloatArray, out: IntArray, reach: Reach) -> None:
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
            levels = self.levels(x[[r for r, _ in asks]], [suit for _, suit in asks])
            for (r, suit), wanted in zip(asks, levels, strict=True):
                own = int(controls(hand_to_array(views[r].hand)))
                if control_can_ask(suit, own, wanted.tolist()):
                    out[r] = FOUR_NT


#: The asking convention, as the agents hold it (control asking is the one left: ace asking,
#: ``aces=on``, was removed, docs/evaluation.md "Ace asking").
Convention = ControlAsking


class ConventionLayer:
    """An asking convention as a layer of the pipeline (:class:`engine.pipeline.Layer`): it
    forces the call where the auction gives the seat a role (:meth:`ControlAsking.forced`: the
    answer, the asker's decision, the pass after it), and after the base and the slam layer it
    asks and vetoes (:meth:`ControlAsking.apply`). Named by its scheme (``controls``), which
    makes it an :class:`engine.parts.Asking` layer."""

    def __init__(self, convention: Convention) -> None:
        self.convention = convention
        self.name = self.scheme = convention.scheme

    def forced(
        self, views: Sequence[BiddingView], auctions: Sequence[Sequence[int]]
    ) -> list[Bid | None]:
        return [
            self.convention.forced(views[i]) if role(calls) is not None else None
            for i, calls in enumerate(auctions)
        ]

    def apply(self, step: Step) -> IntArray:
        return self.convention.apply(step.views, step.x, step.calls, step.mask, step.logits)
