"""The registry: every agent a spec may name, with its options model and how it is built.

This module is the only one that knows which classes make up an agent: algorithm modules in
``engine`` import only downwards, and runners below the command line (seat client, matches,
tournaments) receive ``bridgebot.agents.make_agent`` as an :class:`engine.agent.AgentFactory`
from their caller. A new agent (an outside bidder, for one) is one :class:`AgentKind` in
:data:`REGISTRY`: its options model (:mod:`bridgebot.agent_options`) and its builder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from bridgebot.agent_options import (
    AgentOptions,
    BfgOptions,
    CardPlayOptions,
    DefaultOptions,
    EpbotOptions,
    PolicyOptions,
    RandomOptions,
    SearchOptions,
    SlamOptions,
    config,
)
from bridgebot.card_players import card_player
from bridgebot.engine.agent import Agent, AgentSpecError
from bridgebot.engine.control_ask import ControlRule
from bridgebot.engine.search import BatchPolicy
from bridgebot.engine.tendencies import DoubleRate
from bridgebot.shipped import DEFAULT_MODEL_DIR, shipped_model

if TYPE_CHECKING:
    from bridgebot.engine.control_asking import ControlAsking
    from bridgebot.engine.policy import Policy, PolicyAgent
    from bridgebot.engine.search import SearchAgent
    from bridgebot.engine.slams import SlamEstimator

OptionsT = TypeVar("OptionsT", bound=AgentOptions)


@dataclass(frozen=True)
class AgentKind(Generic[OptionsT]):
    """One agent of the registry: its options model and how to build it."""

    name: str
    options: type[OptionsT]
    build: Callable[[OptionsT, str | None, int, str], Agent]
    """(options, path, seed, name) -> the agent, without the ``doubles`` layer."""
    path: Literal["none", "optional", "required"]
    summary: str


# -- the factories ---------------------------------------------------------------------------------


def _random(options: RandomOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.random_agent import RandomAgent

    return RandomAgent(seed=seed, pass_bias=options.pass_bias)


def _bfg(options: BfgOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.bfg import BfgAgent

    return BfgAgent()


def _policy_and_slam(
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


def _policy(options: PolicyOptions, path: str | None, seed: int, name: str) -> Agent:
    return _policy_agent(options, *_models(path, options, name), seed, name)


def _models(
    path: str | None, options: SlamOptions, name: str
) -> tuple[Policy, SlamEstimator | None, ControlAsking | None]:
    """What a learned agent bids with, each model file opened once: the policy, the slam
    estimator and the control asking (:func:`_policy_and_slam`, :func:`_control_asking`)."""
    policy, slam = _policy_and_slam(path, options, name)
    return policy, slam, _control_asking(options, slam, name)


def _policy_agent(
    options: PolicyOptions,
    policy: Policy,
    slam: SlamEstimator | None,
    convention: ControlAsking | None,
    seed: int,
    name: str,
) -> PolicyAgent:
    from bridgebot.engine.policy import PolicyAgent

    return PolicyAgent(
        policy,
        card_player=card_player(options, seed),
        seed=seed,
        greedy=options.greedy,
        temperature=options.temperature,
        name=name,
        slam=slam,
        aces=convention,  # the keyword engine.policy and engine.search.agent still take
        their_doubles=options.policy_doubles,
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


def _control_asking(
    options: SlamOptions, slam: SlamEstimator | None, name: str = ""
) -> ControlAsking | None:
    """The control asking the agent plays (:func:`asking_convention`) over its slam estimator,
    with its own control estimator; ``controls=on`` without that estimator is an error."""
    if slam is None:
        return None
    slam_dir = slam.model.onnx_path.parent
    if asking_convention(options, slam_dir) is None:
        return None
    from bridgebot.engine.control_asking import ControlAsking
    from bridgebot.engine.control_estimator import ControlEstimator, controls_dir
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


def _default(options: DefaultOptions, path: str | None, seed: int, name: str) -> Agent:
    """The policy; with ``doubled=search``, the search where the opponents doubled our contract
    (:class:`engine.search.SearchWhereDoubled`; the search's own settings for those positions,
    ``doubled_p_min`` and ``doubled_punish``)."""
    from bridgebot.engine.search import SearchWhereDoubled

    models = _models(path, options, name)
    agent = _policy_agent(options, *models, seed, name)
    if options.doubled == "policy":
        return agent
    # The search stage bids as the policy does where slams are decided: every slam option carries,
    # and it shares the policy agent's models (one stack: each model file opened once).
    slam_fields = set(SlamOptions.model_fields) - set(CardPlayOptions.model_fields)
    search = SearchOptions.model_validate(
        {"threads": options.threads, "play": "baseline", **options.model_dump(include=slam_fields)}
    )
    return SearchWhereDoubled(agent, _search_agent(search, *models, seed, name), name=name)


def _search(options: SearchOptions, path: str | None, seed: int, name: str) -> Agent:
    return _search_agent(options, *_models(path, options, name), seed, name)


def _search_agent(
    options: SearchOptions,
    policy: Policy,
    slam: SlamEstimator | None,
    convention: ControlAsking | None,
    seed: int,
    name: str,
) -> SearchAgent:
    """The search over ``policy``, with the slam layer and the convention around it."""
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
    search = BorelSearch(policy, oracle, options.config(), sampler, opponent_models(options, name))
    return SearchAgent(
        search,
        card_player(options, seed),
        seed=seed,
        name=name,
        slam=slam,
        aces=convention,  # the keyword engine.policy and engine.search.agent still take
        their_doubles=options.policy_doubles,
        double_rate=config(options, DoubleRate),
    )


def opponent_models(options: SearchOptions, name: str) -> list[tuple[str, BatchPolicy | None]]:
    """The opponent models named by ``opponents=a+b``: ``self`` (our policy, ``None``),
    ``bfgnet`` (the shipped imitation of bfg) or a policy directory."""
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
        where = shipped_model("bfgnet") if model == "bfgnet" else Path(model)
        try:
            out.append((model, Policy(where, threads=options.threads)))
        except ModelError as e:
            raise AgentSpecError(f"agent {name}: opponent model {model!r}: {e}") from e
    return out


# -- epbot: an outside bidder, found at run time (engine.epbot) ------------------------------------


def _epbot(options: EpbotOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.epbot import EPBotAgent
    from bridgebot.engine.epbot_cards import find_card, read_card
    from bridgebot.engine.epbot_native import epbot_folder

    try:
        folder = epbot_folder(options.path)
        card, opponents = (read_card(find_card(folder, c)) for c in (path or "", options.opponents))
        return EPBotAgent(folder, card, opponents, card_player(options, seed), name)
    except AgentSpecError as e:
        raise AgentSpecError(f"agent {name}: {e}") from None


REGISTRY: dict[str, AgentKind[Any]] = {
    kind.name: kind
    for kind in (
        AgentKind("random", RandomOptions, _random, "none", "uniformly random legal calls"),
        AgentKind("bfg", BfgOptions, _bfg, "none", "bfgbidding's Acol, baseline card play"),
        AgentKind("policy", PolicyOptions, _policy, "required", "a learned policy, greedy"),
        AgentKind(
            "default",
            DefaultOptions,
            _default,
            "optional",
            "the shipped policy, searched where doubled, DD play",
        ),
        AgentKind("search", SearchOptions, _search, "optional", "Borel search over the policy"),
        AgentKind(
            "epbot", EpbotOptions, _epbot, "optional", "EPBot (outside) with a card: epbot:CARD"
        ),
    )
}


def known_agents() -> list[str]:
    return sorted(REGISTRY)
