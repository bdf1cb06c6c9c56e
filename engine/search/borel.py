"""The search itself: the posterior over the candidates and :class:`BorelSearch`, the steps of
the package docstring for one decision."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt
from bridgebot.engine.agent import BiddingView
from bridgebot.engine.features import (
    encode_arrays,
    hand_to_array,
    legal_masks_arrays,
    vul_flags,
)
from bridgebot.engine.likelihood import auction_log_likelihood, masked_softmax
from bridgebot.engine.search.config import SearchConfig, SearchResult, Verdict
from bridgebot.engine.search.oracles import SolverOracle, one_hot_tricks, slam_chances
from bridgebot.engine.search.particles import candidates_from_prior, deal_uniform, resample
from bridgebot.engine.search.protocols import (
    N_TRICKS,
    BatchPolicy,
    FloatArray,
    IntArray,
    ObservationSampler,
    ParticleSampler,
    TrickOracle,
    U8Array,
)
from bridgebot.engine.search.rollouts import (
    expected_imps,
    final_contracts,
    punished,
    rollout,
    score_for_side,
)
from bridgebot.laws.calls import ALL_CALLS, FIRST_BID, bid_index, call_index

#: The level of game in each strain (C, D, H, S, NT).
GAME_LEVEL = (5, 5, 4, 4, 3)


def beyond_game(call: int) -> bool:
    """Whether ALL_CALLS index ``call`` is a bid above game in its strain (4NT, 5H, 6C, ...):
    a slam bid, or a bid that takes the auction past game towards one."""
    if call < FIRST_BID:
        return False
    level, strain = (call - FIRST_BID) // 5 + 1, (call - FIRST_BID) % 5
    return level > GAME_LEVEL[strain]


def close_bid_change(
    best: npt.ArrayLike, call: npt.ArrayLike, prior_of_call: npt.ArrayLike, least: float
) -> npt.NDArray[np.bool_]:
    """Whether moving from the policy's best call ``best`` to ``call`` (ALL_CALLS indices) is a
    close call between two bids: both are bids and ``call``'s prior is at least ``least``
    (``SearchConfig.close_bids``, ``train distill --close-bids``). Elementwise over scalars or
    arrays of one shape; a bool array of that shape (0-d for scalars)."""
    b, c = np.asarray(best), np.asarray(call)
    return np.asarray(
        (b != c) & (np.minimum(b, c) >= FIRST_BID) & (np.asarray(prior_of_call) >= least)
    )


def slam_zone(history: IntArray, seat: int, dealer: int, call: int) -> bool:
    """Whether ``seat``'s call (an ALL_CALLS index) after ``history`` leaves its own side in a
    contract at the three level or higher: a bid at that level, or a pass of partner's.

    Where the policy has a single candidate, the slam stage looks only at these calls (a game
    bid, a pass of partner's game, a slam): they are where a missed slam is decided.
    """
    if call >= FIRST_BID:
        return (call - FIRST_BID) // 5 + 1 >= 3
    if call != 0:  # a double or redouble: the contract is the opponents'
        return False
    bids = np.flatnonzero(history >= FIRST_BID)
    if not bids.size:
        return False
    last = int(bids[-1])
    by = (dealer + last) % 4
    return by % 2 == seat % 2 and (int(history[last]) - FIRST_BID) // 5 + 1 >= 3


# -- the search ------------------------------------------------------------------------------------


def posterior(
    prior: FloatArray, candidates: list[int], mean_values: FloatArray, r: float, temperature: float
) -> FloatArray:
    """Lockhart et al.'s posterior over the candidates: prior x exp(V / (t sqrt R)).

    V = R x mean value. Zero outside the candidates; ``mean_values`` is indexed like ``candidates``.
    """
    logp = np.log(np.maximum(prior[candidates].astype(np.float64), 1e-30))
    logp += np.asarray(mean_values, dtype=np.float64) * np.sqrt(r) / temperature
    logp -= logp.max()
    w = np.exp(logp)
    out = np.zeros_like(prior, dtype=np.float32)
    out[candidates] = (w / w.sum()).astype(np.float32)
    return out


class BorelSearch:
    """One search per decision; construct once per agent (it holds the DD cache)."""

    def __init__(
        self,
        policy: BatchPolicy,
        oracle: TrickOracle,
        config: SearchConfig | None = None,
        sampler: ParticleSampler | ObservationSampler | None = None,
        opponents: Sequence[tuple[str, BatchPolicy | None]] | None = None,
    ) -> None:
        self.policy = policy
        self.oracle = oracle
        self.config = config or SearchConfig()
        self.sampler: ParticleSampler | ObservationSampler = sampler or deal_uniform
        self.opponents: list[tuple[str, BatchPolicy | None]] = list(opponents or [("self", None)])
        """Opponent models by name; ``None`` is our own policy (the opponents bid like us)."""
        if not self.opponents:
            raise ValueError("BorelSearch needs at least one opponent model")
        self.exact = oracle if isinstance(oracle, SolverOracle) else SolverOracle()
        """The solver, for the slam stage (the search's own oracle when that is the solver)."""

    @staticmethod
    def observation(view: BiddingView) -> tuple[FloatArray, IntArray]:
        """The policy's features [1, 480] for ``view`` and the history as ALL_CALLS indices."""
        seat, dealer = view.seat.value, view.dealer.value
        history = np.array([bid_index(c) for c in view.auction], dtype=np.int64)
        hand = hand_to_array(view.hand)
        vus, vth = vul_flags(np.array([view.vul.value]), np.array([seat]))
        hist = history[None, :] if history.size else np.full((1, 1), -1, dtype=np.int64)
        feats = encode_arrays(hand[None, :], np.array([(seat - dealer) % 4]), vus, vth, hist)
        return feats, history

    def prior(self, view: BiddingView) -> tuple[FloatArray, IntArray]:
        """The policy's distribution over ALL_CALLS for ``view`` and the history as indices."""
        feats, history = self.observation(view)
        hist = history[None, :] if history.size else np.full((1, 1), -1, dtype=np.int64)
        mask = legal_masks_arrays(hist)
        return masked_softmax(self.policy.logits(feats), mask)[0], history

    def particles(
        self, view: BiddingView, hand: U8Array, n: int, rng: np.random.Generator
    ) -> U8Array:
        """``n`` deals consistent with our hand, from the configured sampler."""
        seat = view.seat.value
        if isinstance(self.sampler, ObservationSampler):
            feats, _ = self.observation(view)
            return self.sampler.sample(feats[0], seat, hand, n, rng)
        return self.sampler(seat, hand, n, rng)

    def search(self, view: BiddingView, rng: np.random.Generator) -> SearchResult:
        cfg = self.config
        start = time.perf_counter()
        prior, history = self.prior(view)
        cands = candidates_from_prior(prior, cfg.k, cfg.p_min)
        nan = np.full(len(cands), np.nan, dtype=np.float32)
        single = len(cands) == 1
        if single and not (cfg.slam_stage and slam_zone(history, view.seat.value, view.dealer.value,
                                                  cands[0])):  # fmt: skip
            return SearchResult(
                ALL_CALLS[cands[0]], cands, prior, prior, nan, 0.0, False,
                time.perf_counter() - start,
            )  # fmt: skip
        hand = hand_to_array(view.hand)
        stats: dict[str, float] = {}

        # Particles, dealt once and shared by every opponent model (paired comparisons).
        t0 = time.perf_counter()
        particles = self.particles(view, hand, cfg.particles, rng)
        weights = self.model_weights(particles, view, history)
        stats["filter_s"] = time.perf_counter() - t0
        if single:
            # The policy has one call, at game or above: only the slam stage may add another.
            stats["slam_screen"] = 1.0
            stage = self.slam_stage(view, history, prior, cands, particles, weights, rng, stats)
            if stage is None:
                return SearchResult(
                    ALL_CALLS[cands[0]], cands, prior, prior, nan, 0.0, True,
                    time.perf_counter() - start, stats,
                )  # fmt: skip
            cands, verdict = stage
            return self.result(cands, prior, verdict, start, stats)

        scored: list[tuple[npt.NDArray[np.float64], IntArray]] = []
        drawn: list[tuple[IntArray, IntArray]] = []
        for i, (name, model) in enumerate(self.opponents):
            w = weights[i]
            stats[f"ess_{name}"] = float(w.sum() ** 2 / (w**2).sum())
            draws = resample(w, cfg.rollouts, rng)
            unique, counts = np.unique(draws, return_counts=True)
            scores = self.values(particles[unique], cands, view, history, model, rng, stats)
            scored.append((scores, counts))
            drawn.append((unique, counts))
        verdict = self.judge(prior, cands, scored, rng)
        if cfg.verify and verdict.pick != cands[0]:
            verdict = self.verified(verdict, cands, particles, drawn, view, history, rng, stats)
        for name, r_eff in zip(self.names, verdict.r_eff, strict=True):
            stats[f"r_eff_{name}"] = r_eff
        if cfg.slam_stage:
            stage = self.slam_stage(view, history, prior, cands, particles, weights, rng, stats)
            if stage is not None:
                cands, verdict = stage
        return self.result(cands, prior, verdict, start, stats)

    def result(
        self,
        cands: list[int],
        prior: FloatArray,
        verdict: Verdict,
        start: float,
        stats: dict[str, float],
    ) -> SearchResult:
        """The :class:`SearchResult` of a searched decision."""
        return SearchResult(
            call=ALL_CALLS[verdict.pick],
            candidates=cands,
            prior=prior,
            posterior=verdict.posterior,
            values=verdict.means.min(axis=0).astype(np.float32),
            effective_rollouts=min(verdict.r_eff),
            searched=True,
            seconds=time.perf_counter() - start,
            stats=stats,
            model_values={
                n: [float(v) for v in verdict.means[i]] for i, n in enumerate(self.names)
            },
        )

    @property
    def names(self) -> list[str]:
        """The opponent models' names, in order."""
        return [name for name, _ in self.opponents]

    def judge(
        self,
        prior: FloatArray,
        cands: list[int],
        scored: Sequence[tuple[npt.NDArray[np.float64], IntArray]],
        rng: np.random.Generator,
        margin: float | None = None,
        ties: bool = True,
    ) -> Verdict:
        """The call, from each opponent model's scores [candidate, particle] and the particles'
        draw counts: the posterior per model (the prior below ``r_min`` effective rollouts), and
        a call other than the policy's (``cands[0]``) only if every model's posterior picks it
        and it beats the policy's call by ``min_gain`` plus ``margin`` (default: the config's)
        paired standard errors; with ``ties``, a near-tie (``tie_prior``) also needs ``tie_gain``."""
        cfg = self.config
        margin = cfg.margin if margin is None else margin
        temperature = cfg.imp_temperature if cfg.value == "imps" else cfg.temperature
        m = len(scored)
        means_by = np.zeros((m, len(cands)), dtype=np.float64)
        d_mean = np.zeros((m, len(cands)), dtype=np.float64)
        d_se = np.zeros((m, len(cands)), dtype=np.float64)
        posts, r_effs, ok = [], [], True
        for i, (scores, counts) in enumerate(scored):
            r_eff = float(counts.sum() ** 2 / (counts.astype(np.float64) ** 2).sum())
            r_effs.append(r_eff)
            cw = counts.astype(np.float64) / counts.sum()
            means_by[i] = scores @ cw
            # Paired difference to the policy's call on the same particles, and its error.
            diff = scores - scores[0][None, :]
            d_mean[i] = diff @ cw
            var = ((diff - d_mean[i][:, None]) ** 2) @ cw
            d_se[i] = np.sqrt(var / max(r_eff, 1.0))
            if r_eff >= cfg.r_min:
                posts.append(
                    posterior(prior, cands, means_by[i].astype(np.float32), r_eff, temperature)
                )
            else:
                ok = False
                posts.append(prior)
        post = np.mean(np.stack(posts), axis=0).astype(np.float32)
        if cfg.sample_choice and ok:
            pick = int(rng.choice(len(post), p=post.astype(np.float64) / post.sum()))
        else:
            picks = {int(np.argmax(p)) for p in posts}
            pick = cands[0]
            if ok and len(picks) == 1:
                choice = picks.pop()
                j = cands.index(choice) if choice in cands else 0
                close = bool(close_bid_change(cands[0], choice, prior[choice], cfg.close_bids))
                if ties and j and prior[choice] >= cfg.tie_prior:
                    close = close or bool(np.min(d_mean[:, j]) < cfg.tie_gain)
                if (
                    j
                    and not close
                    and bool(np.all(d_mean[:, j] > cfg.min_gain + margin * d_se[:, j]))
                ):
                    pick = choice
        return Verdict(pick, post, means_by, r_effs)

    def verified(
        self,
        verdict: Verdict,
        cands: list[int],
        particles: U8Array,
        drawn: Sequence[tuple[IntArray, IntArray]],
        view: BiddingView,
        history: IntArray,
        rng: np.random.Generator,
        stats: dict[str, float],
    ) -> Verdict:
        """``verdict`` if its change of the policy's call (``cands[0]``) survives the solver's
        check (``SearchConfig.verify``), else the same verdict with the policy's call: under each
        opponent model, the two calls rolled out again on the model's ``verify`` most drawn
        particles (``drawn``: unique particle indices and their draw counts; with
        ``verify_fresh``, ``verify`` draws from particles dealt and filtered anew), scored by the
        solver, and the change must gain ``min_gain`` plus ``margin`` paired standard errors.
        The budget is counted in particles and their solves, never in seconds."""
        cfg = self.config
        t0 = time.perf_counter()
        pair = [cands[0], verdict.pick]
        solved = self.exact.solved
        holds = True
        if cfg.verify_fresh:
            particles = self.particles(view, hand_to_array(view.hand), cfg.particles, rng)
            drawn = [
                np.unique(resample(w, cfg.verify, rng), return_counts=True)
                for w in self.model_weights(particles, view, history)
            ]
        for (_, model), (unique, counts) in zip(self.opponents, drawn, strict=True):
            top = np.argsort(-counts, kind="stable")[: cfg.verify]
            scores = self.values(
                particles[unique[top]], pair, view, history, model, rng, stats, self.exact
            )
            w = counts[top].astype(np.float64)
            r_eff = float(w.sum() ** 2 / (w**2).sum())
            w /= w.sum()
            diff = scores[1] - scores[0]
            mean = float(diff @ w)
            se = float(np.sqrt(((diff - mean) ** 2) @ w / max(r_eff, 1.0)))
            if not mean > cfg.min_gain + cfg.margin * se:
                holds = False
                break
        stats["verify_solves"] = float(self.exact.solved - solved)
        stats["verify_held"] = float(holds)
        stats["verify_s"] = time.perf_counter() - t0
        return verdict if holds else replace(verdict, pick=cands[0])

    def slam_stage(
        self,
        view: BiddingView,
        history: IntArray,
        prior: FloatArray,
        cands: list[int],
        particles: U8Array,
        weights: list[npt.NDArray[np.float64]],
        rng: np.random.Generator,
        stats: dict[str, float],
    ) -> tuple[list[int], Verdict] | None:
        """Search again, exactly, where a slam is decided; ``None`` where none is.

        Each opponent model draws ``slam_stage_particles`` of its filtered particles. The stage
        runs when a candidate is a slam bid or a bid above game (4NT, 5 of a major: it forces past
        game), or when the oracle gives our side 12+ tricks with a mean chance of at least
        ``slam_stage_chance`` on those particles. Then the 6 (7) bid of the strain where our side
        most likely takes 12 (13) tricks joins the candidates if legal and that chance reaches
        ``slam_stage_chance`` (at the least prior of a candidate, ``p_min``), and every candidate
        is rolled out on the stage's particles and scored by the solver (:class:`SolverOracle`,
        through :mod:`engine.dds`): :meth:`judge` then decides, as for the main search but with
        ``slam_stage_margin`` standard errors. The
        budget is counted in particles and the solves they need (``slam_solves``), so a seeded
        search repeats on any machine.
        """
        cfg = self.config
        t0 = time.perf_counter()
        seat = view.seat.value
        draws = [
            np.unique(resample(w, cfg.slam_stage_particles, rng), return_counts=True)
            for w in weights
        ]
        everyone = np.unique(np.concatenate([u for u, _ in draws]))
        mass = np.zeros(particles.shape[0], dtype=np.float64)
        for unique, counts in draws:
            mass[unique] += counts
        p12, p13 = slam_chances(self.oracle, particles[everyone], seat)  # [u, 5] each
        share = mass[everyone] / mass[everyone].sum()
        chance12, chance13 = share @ p12, share @ p13  # per strain
        stats["slam_chance"] = float(chance12.max())
        high = int(history.max()) if history.size else 0
        deciding = (
            any(beyond_game(c) for c in cands) or stats["slam_chance"] >= cfg.slam_stage_chance
        )
        if not deciding:
            stats["slam_s"] = time.perf_counter() - t0
            return None
        added: list[int] = []
        for level, chance in ((6, chance12), (7, chance13)):
            strain = int(np.argmax(chance))
            call = call_index(level, strain)
            if chance[strain] >= cfg.slam_stage_chance and call > high and call not in cands:
                added.append(call)
        stage_cands = cands + added
        if len(stage_cands) == 1:  # a single call and no slam to add: nothing to compare
            stats["slam_s"] = time.perf_counter() - t0
            return None
        stage_prior = prior.copy()
        stage_prior[added] = np.maximum(stage_prior[added], cfg.p_min)
        stage_prior /= stage_prior.sum()
        solved = self.exact.solved
        scored = []
        for (_, model), (unique, counts) in zip(self.opponents, draws, strict=True):
            scores = self.values(
                particles[unique], stage_cands, view, history, model, rng, stats, self.exact
            )
            scored.append((scores, counts))
        verdict = self.judge(
            stage_prior, stage_cands, scored, rng, cfg.slam_stage_margin, ties=False
        )
        stats["slam_stage"] = 1.0
        stats["slam_added"] = float(len(added))
        stats["slam_solves"] = float(self.exact.solved - solved)
        stats["slam_s"] = time.perf_counter() - t0
        return stage_cands, verdict

    def model_weights(
        self, particles: U8Array, view: BiddingView, history: IntArray
    ) -> list[npt.NDArray[np.float64]]:
        """Each opponent model's particle weights (unnormalised, positive).

        With the filter on, a particle weighs the auction's likelihood: partner's calls under our
        policy, the opponents' under the model. With it off (the belief sampler, which has read
        the auction as our policy would bid it), a model other than ours reweights by the
        opponents' likelihood ratio, model over our policy (``reweight``), else all weigh 1.
        """
        cfg = self.config
        seat, dealer, vul = view.seat.value, view.dealer.value, view.vul.value
        theirs = {(seat + 1) % 4, (seat + 3) % 4}
        ones = np.ones(particles.shape[0], dtype=np.float64)
        if not len(history):
            return [ones for _ in self.opponents]

        def loglik(
            policy: BatchPolicy, seats: set[int], noise: float = 0.0
        ) -> npt.NDArray[np.float64]:
            return auction_log_likelihood(
                policy, particles, dealer, vul, history, seat, seats, noise
            )

        out: list[npt.NDArray[np.float64]] = []
        base: npt.NDArray[np.float64] | None = None
        for _, model in self.opponents:
            if cfg.filter:
                if base is None:
                    base = loglik(self.policy, {(seat + 2) % 4})
                opp = loglik(model or self.policy, theirs, cfg.opponent_noise)
                log_w = base + opp
            elif model is not None and cfg.reweight:
                if base is None:
                    base = loglik(self.policy, theirs)
                log_w = loglik(model, theirs) - base
            else:
                out.append(ones)
                continue
            log_w = log_w * cfg.filter_power
            out.append(np.exp(log_w - log_w.max()))
        return out

    def values(
        self,
        deals: U8Array,
        cands: list[int],
        view: BiddingView,
        history: IntArray,
        model: BatchPolicy | None,
        rng: np.random.Generator,
        stats: dict[str, float],
        oracle: TrickOracle | None = None,
    ) -> npt.NDArray[np.float64]:
        """Our side's duplicate score [candidate, particle] after rolling each candidate out,
        its tricks from ``oracle`` (the search's own by default)."""
        cfg = self.config
        oracle = oracle or self.oracle
        seat, dealer, vul = view.seat.value, view.dealer.value, view.vul.value
        # Candidate-major rows (candidate c, particle j) -> row c * u + j.
        t0 = time.perf_counter()
        u, c = deals.shape[0], len(cands)
        rows_owners = np.tile(deals, (c, 1))
        base = np.full((c * u, len(history) + 1), -1, dtype=np.int64)
        base[:, : len(history)] = history
        base[:, len(history)] = np.repeat(np.array(cands, dtype=np.int64), u)
        n0 = np.full(c * u, len(history) + 1, dtype=np.int64)
        finished, _ = rollout(
            self.policy, rows_owners, dealer, vul, base, n0,
            greedy=cfg.greedy, rng=rng,
            max_calls=cfg.max_rollout_calls, opponent=model, our_seat=seat,
        )  # fmt: skip
        stats["rollout_s"] = stats.get("rollout_s", 0.0) + time.perf_counter() - t0
        t0 = time.perf_counter()
        contracts = final_contracts(finished, dealer)
        played = np.flatnonzero(contracts.level > 0)
        probs = np.zeros((c * u, N_TRICKS), dtype=np.float64)
        probs[:, 0] = 1.0  # a passed-out row scores 0 whatever the tricks
        if played.size:
            p = oracle.trick_probs(
                rows_owners[played], contracts.declarer[played], contracts.strain[played]
            )
            probs[played] = one_hot_tricks(p.argmax(axis=1)) if cfg.tricks == "likeliest" else p
        if cfg.punish:
            contracts = punished(contracts, probs, seat, cfg.punish)
        stats["dd_s"] = stats.get("dd_s", 0.0) + time.perf_counter() - t0
        # Our side's score for every trick count [row, 14], then its expectation (points) or the
        # expected IMPs over the policy's call on the same particle (imps).
        per_trick = np.stack(
            [score_for_side(contracts, np.full(c * u, t), vul, seat) for t in range(N_TRICKS)],
            axis=1,
        ).astype(np.float64)
        if cfg.value != "imps":
            out: npt.NDArray[np.float64] = (probs * per_trick).sum(axis=1).reshape(c, u)
            return out
        return expected_imps(
            probs.reshape(c, u, N_TRICKS),
            per_trick.reshape(c, u, N_TRICKS),
            (contracts.declarer * 5 + contracts.strain).reshape(c, u),
        )
