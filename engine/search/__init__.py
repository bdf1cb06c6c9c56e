"""Test-time search for bidding: extended Borel search over policy rollouts, vectorised.

The algorithm is Lockhart et al. 2020's extended Borel search (Algorithms 1-2; docs/papers.md), with
the particle sampler of Qiu et al. 2024's belief Monte Carlo search (Algorithms 3-4) as an
option. Both papers spend 1-2 minutes a decision; this module aims at well under a second on a
2-core CPU, by doing every step for all particles at once:

1. **Candidates**: the top-``k`` calls of the prior policy with probability at least ``p_min``.
   With a single candidate there is nothing to search.
2. **Particles**: ``particles`` deals of the 39 unseen cards to the other three seats, consistent with
   our hand (uniform, or from a belief network's card marginals).
3. **Filter**: the likelihood of the observed auction under the rollout policy, for every particle
   and every call the other three seats made, in one batched policy call; then ``rollouts``
   particles are drawn in proportion to it (sampling-importance-resampling, the batched form of
   the paper's "skip the particle with probability 1 - pi(a'|h')"). Identical draws are merged
   and counted, since greedy rollouts of one particle always end the same way.
4. **Rollouts**: each candidate is appended and the auction is finished by the policy for all four
   seats, every (candidate, particle) row advancing together, one policy call per step. Greedy by
   default, as Lockhart et al. do at test time.
5. **Values**: the final contract of each row is scored for our side from its double-dummy trick
   count: exact (the solver, each particle solved once per strain the rollouts reached, cached) or
   estimated (the learned estimator of :mod:`engine.ddestimate`, microseconds a table).
6. **Posterior** (Lockhart et al.): ``prior x exp(mean value x sqrt(R) / t)`` over the candidates,
   where ``R`` is the number of rollouts (the effective number when draws repeat); below ``r_min``
   rollouts the prior stands. The call is the posterior's most likely one (or a sample).
7. **The slam stage** (``slam_stage=on``, off by default; ``slam=on`` is its old spelling):
   where a slam is decided (a candidate bids a slam or goes past game, or the oracle gives our
   side 12+ tricks on the particles), the slam bids of our best strain join the candidates and
   the leading candidates are scored again by the solver on a few dozen particles
   (``slam_stage_particles``), since the learned estimator's slam estimates are its weakest. Where the policy has a single candidate (no search otherwise), the
   stage still looks when that call leaves our side in a contract at the three level or higher
   (a game bid, a pass of partner's game: :func:`slam_zone`), since that is where the policy
   misses slams. Its budget is counted in particles and solves, never seconds.

The rollout policy is any :class:`engine.batch_policy.BatchPolicy` (logits for a batch of
480-feature observations); :mod:`engine.policy` provides the ONNX one. No torch here.

The package's modules, in the order of the steps: :mod:`.protocols` (the parts' types), :mod:`.config`,
:mod:`.particles` (steps 1-2; the filter of step 3 is :mod:`engine.likelihood`'s, shared with card
play), :mod:`.rollouts` (4-5), :mod:`.oracles` (5), :mod:`.borel` (6-7), :mod:`.agent` (the agents
and the bases of the pipeline). Every public name is importable from the package itself.
"""

from __future__ import annotations

from bridgebot.engine.likelihood import auction_log_likelihood, masked_softmax
from bridgebot.engine.search.agent import (
    DEFAULT_OPPONENTS,
    DOUBLED_OPPONENTS,
    SearchAgent,
    SearchWhereDoubled,
)
from bridgebot.engine.search.borel import (
    GAME_LEVEL,
    BorelSearch,
    beyond_game,
    posterior,
    slam_zone,
)
from bridgebot.engine.search.config import (
    SearchConfig,
    SearchResult,
    Verdict,
)
from bridgebot.engine.search.oracles import (
    EstimatorOracle,
    SolverOracle,
    one_hot_tricks,
    slam_chances,
)
from bridgebot.engine.search.particles import candidates_from_prior, deal_uniform, resample
from bridgebot.engine.search.protocols import (
    N_TRICKS,
    NEG_INF,
    BatchPolicy,
    FloatArray,
    IntArray,
    ObservationSampler,
    ParticleSampler,
    TrickOracle,
    U8Array,
)
from bridgebot.engine.search.rollouts import (
    Contracts,
    auction_over_arrays,
    expected_imps,
    final_contracts,
    punished,
    rollout,
    score_for_side,
    split_logits,
)

__all__ = [
    "DEFAULT_OPPONENTS",
    "DOUBLED_OPPONENTS",
    "GAME_LEVEL",
    "NEG_INF",
    "N_TRICKS",
    "BatchPolicy",
    "BorelSearch",
    "Contracts",
    "EstimatorOracle",
    "FloatArray",
    "IntArray",
    "ObservationSampler",
    "ParticleSampler",
    "SearchAgent",
    "SearchConfig",
    "SearchResult",
    "SearchWhereDoubled",
    "SolverOracle",
    "TrickOracle",
    "U8Array",
    "Verdict",
    "auction_log_likelihood",
    "auction_over_arrays",
    "beyond_game",
    "candidates_from_prior",
    "deal_uniform",
    "expected_imps",
    "final_contracts",
    "masked_softmax",
    "one_hot_tricks",
    "posterior",
    "punished",
    "resample",
    "rollout",
    "score_for_side",
    "slam_chances",
    "slam_zone",
    "split_logits",
]
