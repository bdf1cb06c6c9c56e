"""The search's budgets and knobs (:class:`SearchConfig`) and what one decision reports
(:class:`SearchResult`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import numpy.typing as npt
from bridgebot.engine.knobs import knob
from bridgebot.engine.search.protocols import FloatArray
from bridgebot.laws.calls import bid_index
from endplay.types import Bid


@dataclass(frozen=True)
class SearchConfig:
    """The budgets and knobs; every one is settable from the agent spec (``key=value``, the
    field's name: :mod:`engine.knobs`)."""

    k: int = knob(4, "most candidate calls searched", ge=1)
    """Most candidate calls searched (Lockhart et al.: 4)."""
    p_min: float = knob(0.03, "least prior of a candidate", ge=0.0, le=1.0)
    """Least prior probability of a candidate (Lockhart et al.: 1e-4). A floor keeps the search to
    calls the policy itself finds plausible: with our own policy as the only opponent model, the
    search at 1e-3 beat the plain policy by 3.3 IMPs/board but lost 0.4 against bfg (it exploited
    its own model of the opponents). With the filter, two opponent models and opponent noise, 0.03
    is safe and searches half as many calls again as 0.1: against the exploiter of the shipped
    policy on 2,000 validation deals, +0.30 IMPs/board over the policy instead of +0.19."""
    particles: int = knob(2048, "particles dealt before the filter", ge=1)
    """Particles dealt before the filter."""
    rollouts: int = knob(256, "particles rolled out per candidate", ge=1)
    """Particles drawn after the filter, each rolled out once per candidate (R_max). 2048 x 256
    with the two opponent models: +0.26 IMPs/board over the policy against bfg on 600 validation
    deals, against +0.18 at 512 x 64, at a median of 0.15 s a searched call."""
    r_min: float = knob(8.0, "fewer effective rollouts: the prior", ge=0.0)
    """Fewer effective rollouts than this and the prior policy decides (R_min)."""
    temperature: float = knob(100.0, "posterior temperature", gt=0.0)
    """t in prior x exp(V / (t sqrt R)); V in duplicate points (Lockhart et al.: 100)."""
    greedy: bool = knob(True, "greedy rollouts; off samples them")
    """Greedy rollouts (Lockhart et al. at test time); False samples from the policy."""
    sample_choice: bool = knob(False, "sample the posterior")
    """Sample the call from the posterior instead of taking its most likely call."""
    filter: bool = knob(True, "weight particles by the auction")
    """Weight particles by the auction's likelihood (off: plain Borel search): partner's calls under
    our policy, the opponents' under each opponent model. On with the belief sampler too, although
    the belief net has read the auction already: the net learned what our policy's calls mean, the
    filter weighs the opponents' calls under each model of *them*, and on 2,000 validation deals
    against bfg it raised the search's gain over the policy from +0.09 to +0.26 IMPs/board."""
    opponent_noise: float = knob(0.2, "chance an opponent call is random", ge=0.0, le=1.0)
    """In the filter, each opponent call is the model's with probability ``1 - opponent_noise``
    and a random legal call otherwise: an opponent who bids what no model of it would (an
    exploiter's light doubles) then moves the particles a little instead of deciding them. On
    2,000 validation deals, search minus policy against bfg, ``bfg,doubles=on`` and an exploiter
    of the shipped policy: +0.31, +0.39, +0.30 IMPs/board at 0.1; +0.34, +0.41, +0.40 at 0.2."""
    filter_power: float = knob(1.0, "the filter's likelihood to this power", ge=0.0, le=1.0)
    """The filter's weights are the auction's likelihood to this power: below 1 tempers them,
    for a sampler that has read the auction already (the belief net), so that the auction is
    not counted at full weight twice."""
    punish: int = knob(0, "opponents double our contracts this many down", ge=0, le=13)
    """A model of opponents who punish, applied under every opponent model: at the end of a
    rollout the opponents double our undoubled contract when it goes down this many tricks or
    more (0: only the calls the models make). The opponent models bid; few of them double
    (bfg almost never does), while the opponents who beat a sacrificing policy are those who
    do."""
    max_rollout_calls: int = knob(48, "calls a rollout may add", ge=1)
    """Calls a rollout may add before it is closed with passes (a safety bound)."""
    margin: float = knob(0.0, "standard errors a deviation must win by")
    """The safety margin, in standard errors: a call other than the policy's own is taken only if
    every opponent model's posterior chooses it and, under every model, its mean value beats the
    policy call's by more than ``margin`` standard errors of the paired (same particles)
    difference. 0 asks only that every model agree and the deviation's value be higher."""
    min_gain: float = knob(0.0, "least gain of a deviation (points or IMPs)", ge=0.0)
    """Least gain a deviation must promise under every opponent model, in the unit of ``value``
    (points or IMPs), on top of the ``margin``: the models' errors do not shrink with more
    rollouts, so a standard error alone lets through deviations too small to trust."""
    close_bids: float = knob(0.2, "least prior of a bid kept as a close call", ge=0.0, le=1.0)
    """Where the policy's call is a bid and the search would take another bid whose prior is at
    least ``close_bids``, the policy's bid stands (1: off, the search decides every call). On
    validation the search's changes between two bids the policy both finds likely lose IMPs,
    the higher bid most (docs/evaluation.md, run 25); its gain is in the calls the policy
    thinks unlikely. At 0.2 against 1, paired over 2,000 validation boards a card, on four
    training cards the analysis did not use: +0.08, +0.06, +0.08 and +0.07 (each 0.04) IMPs/board
    (run 26). Where the opponents have doubled our contract, ``doubled_close_bids`` holds."""
    tie_prior: float = knob(1.0, "least prior of a call that makes a near-tie", ge=0.0, le=1.0)
    """Where the call the search would take has a prior of at least ``tie_prior`` (the policy
    finds it nearly as likely as its own call: a near-tie), the change needs an estimated gain
    of ``tie_gain`` or more under every opponent model, or the policy's call stands (1: off).
    Unlike ``close_bids`` it holds for every kind of call (a pass, a double). Not where the
    opponents have doubled our contract (``default``'s doubled stage bids as measured), nor in
    the slam stage. Off by default: at 0.4 and 100 points, chosen where near-ties changed on a
    modest estimate lost (-1.55 (0.58) IMPs a board on 91 boards), it read +0.019 (0.017)
    IMPs/board over four other cards on the same validation deals and -0.021 (0.021) and -0.024
    (0.017) on fresh ones (docs/evaluation.md, run 30)."""
    tie_gain: float = knob(0.0, "least gain of a change on a near-tie (points or IMPs)", ge=0.0)
    """The least estimated gain over the policy's call (paired, the least over the opponent
    models, in the unit of ``value``) that changes the policy's call on a near-tie
    (``tie_prior``)."""
    verify: int = knob(0, "particles per model the solver checks a change on", ge=0)
    """Where the search would change the policy's call, the change is checked with the
    double-dummy solver: the policy's call and the change are rolled out again on each opponent
    model's ``verify`` most drawn particles and scored by the solver, and the change stands only
    if it still wins there by ``min_gain`` plus ``margin`` standard errors under every model
    (0: off). The learned oracle's errors are largest exactly where the search changes a call: the
    change is chosen because its estimate is high, so its noise is selected with it
    (docs/evaluation.md, run 28). Off by default: ``verify=16`` took back half the changes and
    read -0.06 (0.07) IMPs/board against the search without it, paired on 1,000 validation
    boards against the worst field row."""
    value: Literal["points", "imps"] = knob(
        "points",
        "rollout value: points, or IMPs over the policy's call",
    )
    """What a rollout is worth: ``points`` (our side's duplicate score, as Lockhart et al.) or
    ``imps``, the IMPs its score gains over the policy's own call's on the same particle (a
    team match pays IMPs against the other room, and the policy's call is the room the search
    would otherwise have been; the IMP scale stops one huge swing from outweighing many small
    ones). With ``imps``, ``temperature`` is read in IMPs through ``imp_temperature``."""
    imp_temperature: float = knob(4.0, "posterior temperature with value=imps", gt=0.0)
    """t of the posterior when ``value`` is ``imps`` (about 100 points in IMPs near game swings)."""
    tricks: Literal["likeliest", "expected"] = knob(
        "likeliest",
        "a rollout's tricks: the oracle's likeliest or its distribution",
    )
    """How a rollout's contract takes its tricks from the oracle: ``likeliest`` (the oracle's most
    likely count) or ``expected`` (the score averaged over the oracle's distribution of trick
    counts: the learned estimator's most likely count is exact only half the time, and a contract
    on the edge of making is worth its chance of making, not all or nothing). With the solver the
    two are the same."""
    reweight: bool = knob(False, "reweight belief particles by model")
    """With the belief sampler and the filter off: weight each particle by how much more likely
    the opponents' calls are under the opponent model than under our policy (the belief net was
    trained on our policy's auctions, so this moves its particles towards the model's). Off by
    default: the ratio over a whole auction is so peaked that too few particles survive (on 600
    validation deals vs bfg the search then fell back to the prior almost always: 40 changed
    calls of 908, +0.03 IMPs/board)."""
    slam_stage: bool = knob(False, "re-score slam decisions with the solver (the slam stage)")
    """The slam stage (:meth:`BorelSearch.slam_stage`): where slams are decided (a candidate at
    the 6 or 7 level or above game, or our side likely to take 12+ tricks), the slam bids join
    the candidates and the leading ones are scored again, on ``slam_stage_particles``
    particles, by the double-dummy solver instead of the learned estimator, whose slam estimates are its
    weakest (the search bid three times the policy's slams, a third of them making)."""
    slam_stage_particles: int = knob(24, "particles the slam stage solves per model", ge=1)
    """Particles per opponent model scored exactly by the slam stage: its budget, counted in
    particles (each costs one solve per strain its rollouts reach), never in seconds."""
    slam_stage_chance: float = knob(
        0.3,
        "chance of 12+ tricks that starts the slam stage",
        ge=0.0,
        le=1.0,
    )
    """The slam stage also starts when the oracle gives our side 12+ tricks (its best strain and
    declarer) with at least this mean chance over the stage's particles, and a slam bid joins
    the candidates at 6 (7) in a strain where our side takes 12 (13) tricks with this chance."""
    slam_stage_margin: float = knob(
        1.0,
        "standard errors a slam-stage deviation must win by",
        ge=0.0,
    )
    """The stage's safety margin, in standard errors of the paired difference on its particles
    (``margin`` for the main search): a few dozen exact particles still hold the sampling error
    of a few dozen, and a slam that makes on a bare majority of them fails at the table. On 300
    validation deals against bfg, at 0: 10 slams bid, 60% making DD, -0.01 (0.10) IMPs/board
    over ``slam_stage=off``; at 1: 7 slams, 86% making, +0.08 (0.08)."""
    doubled_p_min: float = knob(
        1e-4,
        "p_min where the opponents doubled our contract",
        ge=0.0,
        le=1.0,
    )
    """``p_min`` where the opponents have doubled our side's contract
    (:func:`laws.calls.doubled_against_caller`). The policy is most sure of itself where it is
    most wrong: it passes the double with a prior near 1, so at 0.03 there is nothing to compare.
    For ``default``'s search where doubled, on 1,000 validation deals against an exploiter of the
    shipped policy: +0.32 (0.08) IMPs/board over the policy at 0.03, +0.47 (0.10) at 1e-3 and
    +0.62 (0.12) at 1e-4 (Lockhart et al.'s floor); on 2,000 against bfg and ``bfg,doubles=on``,
    +0.005 (0.011) and +0.017 (0.015) at 1e-4 (docs/evaluation.md)."""
    doubled_punish: int = knob(2, "punish where the opponents doubled our contract", ge=0, le=13)
    """``punish`` where the opponents have doubled our side's contract: they have shown that
    they double, so the rollouts double our contracts that go down this many or more. For
    ``default``, against the same exploiter +0.69 (0.13) instead of +0.62 (0.12); +0.003 and
    +0.017 against the bfg rows. For ``search`` (both settings against 0.03 and 0), on 2,000 fresh
    deals: +0.28 (0.07) against a new exploiter, +0.007 (0.008) and -0.015 (0.018) against the
    bfg rows."""

    doubled_close_bids: float = knob(
        1.0,
        "close_bids where the opponents doubled our contract",
        ge=0.0,
        le=1.0,
    )
    """``close_bids`` where the opponents have doubled our side's contract: off (1), as
    ``default``'s search where doubled was measured (above). That search runs these settings, so
    ``close_bids`` leaves ``default``'s calls as they were."""

    verify_fresh: bool = knob(False, "verify on particles dealt anew")
    """Check a change (``verify``) on particles dealt and filtered anew, drawn ``verify`` times
    from each opponent model's weights, instead of the most drawn of the particles that chose
    it: the particles that chose a change hold a picture of the hidden hands that favours it
    (they are why it was chosen), and a fresh sample does not. Read as ``verify``: -0.11 (0.07)
    (run 28)."""
    doubled_verify: int = knob(0, "verify where the opponents doubled our contract", ge=0)
    """``verify`` where the opponents have doubled our side's contract: off (0), so that
    ``default``'s search where doubled, which runs these settings, bids as it did."""

    def where_doubled(self) -> SearchConfig:
        """The configuration for positions where the opponents have doubled our contract."""
        return replace(
            self,
            p_min=self.doubled_p_min,
            punish=self.doubled_punish,
            close_bids=self.doubled_close_bids,
            verify=self.doubled_verify,
            tie_prior=1.0,
        )


@dataclass
class SearchResult:
    """What one search saw: enough for tests, logs and benchmarks to check its reasoning."""

    call: Bid
    candidates: list[int]
    prior: FloatArray
    posterior: FloatArray
    values: FloatArray
    """Mean value (our side's duplicate points) per candidate, NaN if not searched."""
    effective_rollouts: float
    searched: bool
    seconds: float = 0.0
    stats: dict[str, float] = field(default_factory=dict)
    model_values: dict[str, list[float]] = field(default_factory=dict)
    """Mean value per candidate under each opponent model (by name)."""

    @property
    def changed(self) -> bool:
        """Whether the search overrode the policy's most likely call."""
        return bid_index(self.call) != int(np.argmax(self.prior))

    @property
    def gain(self) -> float:
        """The search's estimated gain of the call made over the policy's most likely call, the
        least over its opponent models (in the unit of ``value``): 0 where they are one call;
        NaN where either is not among the candidates (a layer made the call) or nothing was
        rolled out."""
        call, best = bid_index(self.call), int(np.argmax(self.prior))
        if call == best:
            return 0.0
        if call not in self.candidates or best not in self.candidates or not self.model_values:
            return math.nan
        i, j = self.candidates.index(call), self.candidates.index(best)
        return float(min(v[i] - v[j] for v in self.model_values.values()))


@dataclass
class Verdict:
    """What :meth:`BorelSearch.judge` decided from the scores of a set of candidates."""

    pick: int
    posterior: FloatArray
    means: npt.NDArray[np.float64]
    """Mean value [opponent model, candidate]."""
    r_eff: list[float]
    """Effective rollouts per opponent model."""
