"""The learned agents' parts, each model file opened once per agent: the policy, the slam
estimator, control asking over it (with its own estimator), the layers around the policy, the
search and its opponent models, built from an agent's options (:mod:`bridgebot.agent_options`).
A model error names the agent, in one :class:`AgentSpecError` line.

**A layer is one entry in a list.** The layers an agent plays around its base are built here,
once per agent, from :data:`LAYERS`: one builder per layer, in the pipeline's order, each taking
the agent's options and its :class:`Models` and returning its layer or None. ``default``,
``policy:PATH`` and ``search`` (and ``default``'s search where doubled, which plays the policy
agent's layers) take the list as it is; a new layer is one class
(:class:`engine.pipeline.Layer`) and one builder named in :data:`LAYERS`, touching no agent
class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bridgebot.agent_options import PolicyOptions, SearchOptions, SlamOptions, config
from bridgebot.card_players import card_player
from bridgebot.engine.agent import AgentSpecError
from bridgebot.engine.batch_policy import BatchPolicy
from bridgebot.engine.control_ask import ControlRule
from bridgebot.engine.pipeline import Layer
from bridgebot.engine.tendencies import DoubleRate
from bridgebot.shipped import DEFAULT_MODEL_DIR, OPPONENT_NETS, PENALTY_DOUBLES, shipped_model

if TYPE_CHECKING:
    from bridgebot.engine.control_layer import ControlAsking
    from bridgebot.engine.policy import Policy, PolicyAgent
    from bridgebot.engine.search import SearchAgent
    from bridgebot.engine.slams import SlamEstimator


def policy_and_slam(
    path: str | None, options: SlamOptions, name: str
) -> tuple[Policy, SlamEstimator | None]:
    """The policy of a model directory (the shipped one without ``path``) and, with
    ``options.slams``, the slam estimator in its ``slam/`` if it has one (reading the opponents'
    doubles as ``options.their_doubles`` says); a model error names the agent."""
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.policy import Policy
    from bridgebot.engine.slams import SlamEstimator, estimator_dir

    directory = Path(path) if path else DEFAULT_MODEL_DIR
    try:
        policy = Policy(directory, threads=options.threads)
        found = estimator_dir(directory) if options.slams else None
        reads = options.their_doubles == "read"
        return policy, (
            SlamEstimator(found, threads=options.threads, their_doubles=reads) if found else None
        )
    except ModelError as e:
        raise AgentSpecError(f"agent {name}: {e}") from e


@dataclass(frozen=True)
class Models:
    """What a learned agent bids with, each model file opened once: the ``policy``, the ``slam``
    estimator (None: the model directory has none, or ``slams=off``) and the control ``asking``
    over it (None: the agent does not play it)."""

    policy: Policy
    slam: SlamEstimator | None
    asking: ControlAsking | None


def models(path: str | None, options: SlamOptions, name: str) -> Models:
    """The :class:`Models` of the agent ``name`` (:func:`policy_and_slam`,
    :func:`control_asking`)."""
    policy, slam = policy_and_slam(path, options, name)
    return Models(policy, slam, control_asking(options, slam, name))


#: Builds one layer from an agent's options and models, or None where the agent has none.
LayerBuilder = Callable[[SlamOptions, Models], Layer | None]


def slam_layer(options: SlamOptions, models: Models) -> Layer | None:
    """The slam layer (:class:`engine.slams.SlamLayer`) where the agent has a slam estimator."""
    from bridgebot.engine.slams import SlamLayer

    return None if models.slam is None else SlamLayer(models.slam)


def convention_layer(options: SlamOptions, models: Models) -> Layer | None:
    """The asking convention (:class:`engine.control_layer.ConventionLayer`) where the agent
    plays it (it reads its own slam estimator, so it plays with ``slams=off`` too)."""
    from bridgebot.engine.control_layer import ConventionLayer

    return None if models.asking is None else ConventionLayer(models.asking)


def penalty_doubles_layer(options: SlamOptions, models: Models) -> Layer | None:
    """The penalty doubles (:class:`engine.doubles.PenaltyDoublesLayer`, the shipped model)
    with ``doubles=on``; last, so that they see the call every other layer made."""
    if not options.doubles:
        return None
    from bridgebot.engine.doubles import DoublesModel, PenaltyDoublesLayer

    return PenaltyDoublesLayer(DoublesModel.load(PENALTY_DOUBLES))


#: The layers a learned agent plays around its base, in the pipeline's order (the one list).
LAYERS: list[LayerBuilder] = [slam_layer, convention_layer, penalty_doubles_layer]


def layers(options: SlamOptions, models: Models) -> list[Layer]:
    """The layers of :data:`LAYERS` an agent with ``options`` and ``models`` plays, in order."""
    return [layer for build in LAYERS if (layer := build(options, models)) is not None]


def policy_agent(options: PolicyOptions, models: Models, seed: int, name: str) -> PolicyAgent:
    """The policy of ``models`` with its :func:`layers` around it and the card player
    ``options`` name."""
    from bridgebot.engine.policy import PolicyAgent

    return PolicyAgent(
        models.policy,
        card_player(options, seed),
        layers(options, models),
        seed=seed,
        greedy=options.greedy,
        temperature=options.temperature,
        name=name,
        policy_doubles=options.policy_doubles,
        double_rate=config(options, DoubleRate),
    )


def asking_convention(options: SlamOptions, slam_dir: Path | None) -> str | None:
    """The asking convention (``engine.control_ask.CONTROLS``) an agent with ``options`` plays
    over the slam estimator in ``slam_dir`` (None: no slam layer): control asking with
    ``controls=on`` or, unset, where the control estimator sits in ``slam_dir``; else None."""
    from bridgebot.engine.control_ask import CONTROLS
    from bridgebot.engine.control_estimator import controls_dir

    if slam_dir is None or not options.slams:
        return None
    if options.controls is None:
        return CONTROLS if controls_dir(slam_dir) is not None else None
    return CONTROLS if options.controls else None


def control_asking(
    options: SlamOptions, slam: SlamEstimator | None, name: str = ""
) -> ControlAsking | None:
    """The control asking the agent plays (:func:`asking_convention`) over its slam estimator,
    with its own control estimator; ``controls=on`` without that estimator (or without the slam
    estimator it sits beside, in a model directory that has no ``slam/``) is an error."""
    if slam is None:
        if options.controls and options.slams:
            raise AgentSpecError(
                f"agent {name}: controls=on needs the slam estimator and its control estimator "
                "in the model directory's slam/ (this model has none: it bids slams by its "
                "policy alone)"
            )
        return None
    slam_dir = slam.model.onnx_path.parent
    if asking_convention(options, slam_dir) is None:
        return None
    from bridgebot.engine.control_estimator import ControlEstimator, controls_dir
    from bridgebot.engine.control_layer import ControlAsking
    from bridgebot.engine.modelcard import ModelError

    found = controls_dir(slam_dir)
    if found is None:
        raise AgentSpecError(
            f"agent {name}: controls=on needs the control estimator in {slam_dir}/controls "
            "(bridgebot train slamnet --partner-controls)"
        )
    try:
        # It reads the observation as the slam estimator it sits beside does.
        estimator = ControlEstimator(
            found, threads=options.threads, their_doubles=slam.their_doubles
        )
    except ModelError as e:
        raise AgentSpecError(f"agent {name}: {e}") from e
    return ControlAsking(slam, estimator, config(options, ControlRule))


def search_agent(options: SearchOptions, models: Models, seed: int, name: str) -> SearchAgent:
    """The search over the policy of ``models``, with its :func:`layers` around it."""
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.search import (
        BorelSearch,
        EstimatorOracle,
        ObservationSampler,
        ParticleSampler,
        SearchAgent,
        SolverOracle,
        TrickOracle,
        deal_uniform,
    )

    oracle: TrickOracle
    if options.dd == "solver":
        oracle = SolverOracle()
    else:
        from bridgebot.engine.ddestimate import DDEstimator

        try:
            oracle = EstimatorOracle(DDEstimator(options.ddnet, options.threads))
        except ModelError as e:
            raise AgentSpecError(f"agent {name}: {e}") from e
    sampler: ParticleSampler | ObservationSampler = deal_uniform
    if options.sampler == "belief":
        from bridgebot.engine.belief import BeliefNet, BeliefSampler

        try:
            sampler = BeliefSampler(BeliefNet(options.belief, options.threads))
        except ModelError as e:
            raise AgentSpecError(f"agent {name}: {e}") from e
    policy = models.policy
    search = BorelSearch(policy, oracle, options.config(), sampler, opponent_models(options, name))
    return SearchAgent(
        search,
        card_player(options, seed),
        layers(options, models),
        seed=seed,
        name=name,
        policy_doubles=options.policy_doubles,
        double_rate=config(options, DoubleRate),
    )


def opponent_models(options: SearchOptions, name: str) -> list[tuple[str, BatchPolicy | None]]:
    """The opponent models named by ``opponents=a+b``: ``self`` (our policy, ``None``), a
    shipped opponent net (``bridgebot.shipped.OPPONENT_NETS``: ``bfgnet``, the imitation of
    bfg; ``epbotnet``, of EPBot's BEN-SAYC card) or a policy directory.

    Raises :class:`AgentSpecError` on an empty name or a directory that holds no policy."""
    from bridgebot.engine.modelcard import ModelError
    from bridgebot.engine.policy import Policy

    out: list[tuple[str, BatchPolicy | None]] = []
    for model in options.opponents.split("+"):
        model = model.strip()
        if not model:
            raise AgentSpecError(f"agent {name}: empty name in opponents={options.opponents!r}")
        if model == "self":
            out.append((model, None))
            continue
        where = shipped_model(model) if model in OPPONENT_NETS else Path(model)
        try:
            out.append((model, Policy(where, threads=options.threads)))
        except ModelError as e:
            raise AgentSpecError(f"agent {name}: opponent model {model!r}: {e}") from e
    return out
