"""The registry: every agent a spec may name, with its options model and how it is built.

This module and :mod:`bridgebot.learned` (the learned agents' parts) are the only ones that know
which classes make up an agent: algorithm modules in ``engine`` import only downwards, and runners
below the command line (seat client, matches, tournaments) receive ``bridgebot.agents.make_agent``
as an :class:`engine.agent.AgentFactory` from their caller. A new agent (an outside bidder, for
one) is one :class:`AgentKind` in :data:`REGISTRY`: its options model
(:mod:`bridgebot.agent_options`) and its builder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar

from bridgebot import learned
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
)
from bridgebot.card_players import card_player
from bridgebot.engine.agent import Agent, AgentSpecError

OptionsT = TypeVar("OptionsT", bound=AgentOptions)


@dataclass(frozen=True)
class AgentKind(Generic[OptionsT]):
    """One agent of the registry: its options model and how to build it."""

    name: str
    options: type[OptionsT]
    build: Callable[[OptionsT, str | None, int, str], Agent]
    """(options, path, seed, name) -> the agent; with :attr:`layered`, ``doubles=on`` included
    (its penalty doubles are a layer of the agent's pipeline), else without it (the caller wraps
    the agent in :class:`engine.doubles.PenaltyDoublesWrapper`)."""
    path: Literal["none", "optional", "required"]
    summary: str
    inner_agents: Callable[[OptionsT], dict[str, AgentOptions]] | None = None
    """options -> the options of the agents built inside this one, by name (``default``'s
    search where doubled): :meth:`bridgebot.specs.AgentSpec.settings` names their settings too,
    so a default that changes in an inner agent changes what the spec's settings say."""
    layered: bool = False
    """Whether the agent bids through the pipeline (:mod:`bridgebot.learned`: its layers,
    ``doubles=on``'s among them)."""


# -- the factories ---------------------------------------------------------------------------------


def _random(options: RandomOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.random_agent import RandomAgent

    return RandomAgent(seed=seed, pass_bias=options.pass_bias)


def _bfg(options: BfgOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.bfg import BfgAgent

    return BfgAgent()


def _policy(options: PolicyOptions, path: str | None, seed: int, name: str) -> Agent:
    return learned.policy_agent(options, learned.models(path, options, name), seed, name)


def _default(options: DefaultOptions, path: str | None, seed: int, name: str) -> Agent:
    """The policy; with ``doubled=search``, the search where the opponents doubled our contract
    (:class:`engine.search.SearchWhereDoubled`; the search's own settings for those positions,
    ``doubled_p_min`` and ``doubled_punish``)."""
    from bridgebot.engine.search import SearchWhereDoubled

    models = learned.models(path, options, name)
    agent = learned.policy_agent(options, models, seed, name)
    search = _doubled_search(options)
    if search is None:
        return agent
    # It shares the policy agent's models (one stack: each model file opened once).
    return SearchWhereDoubled(agent, learned.search_agent(search, models, seed, name), name=name)


def _default_inner(options: DefaultOptions) -> dict[str, AgentOptions]:
    """``default``'s search where doubled, by name (:attr:`AgentKind.inner_agents`)."""
    search = _doubled_search(options)
    return {} if search is None else {"doubled": search}


def _doubled_search(options: DefaultOptions) -> SearchOptions | None:
    """With ``doubled=search``, the options of ``default``'s search where the opponents doubled
    our contract (None with ``doubled=policy``). It bids as the policy does where slams are
    decided: every slam option carries (``doubles`` does not: the policy agent's layers, the
    penalty doubles among them, are the ones it plays)."""
    if options.doubled == "policy":
        return None
    from bridgebot.engine.search import DOUBLED_OPPONENTS

    slam_fields = set(SlamOptions.model_fields) - set(CardPlayOptions.model_fields)
    return SearchOptions.model_validate(
        {
            "threads": options.threads,
            "play": "baseline",
            "opponents": DOUBLED_OPPONENTS,
            **options.model_dump(include=slam_fields),
        }
    )


def _search(options: SearchOptions, path: str | None, seed: int, name: str) -> Agent:
    return learned.search_agent(options, learned.models(path, options, name), seed, name)


# -- epbot: an outside bidder, found at run time (engine.epbot) ------------------------------------


def _epbot(options: EpbotOptions, path: str | None, seed: int, name: str) -> Agent:
    from bridgebot.engine.epbot import EPBotAgent
    from bridgebot.engine.epbot_cards import find_card, read_convention_card
    from bridgebot.engine.epbot_native import epbot_folder

    try:
        folder = epbot_folder(options.path)
        card, opponents = (
            read_convention_card(find_card(folder, c)) for c in (path or "", options.opponents)
        )
        return EPBotAgent(folder, card, opponents, card_player(options, seed), name)
    except AgentSpecError as e:
        raise AgentSpecError(f"agent {name}: {e}") from None


REGISTRY: dict[str, AgentKind[Any]] = {
    kind.name: kind
    for kind in (
        AgentKind("random", RandomOptions, _random, "none", "uniformly random legal calls"),
        AgentKind("bfg", BfgOptions, _bfg, "none", "bfgbidding's Acol, baseline card play"),
        AgentKind(
            "policy", PolicyOptions, _policy, "required", "a learned policy, greedy", layered=True
        ),
        AgentKind(
            "default",
            DefaultOptions,
            _default,
            "optional",
            "the shipped policy, searched where doubled, DD play",
            inner_agents=_default_inner,
            layered=True,
        ),
        AgentKind(
            "search",
            SearchOptions,
            _search,
            "optional",
            "Borel search over the policy",
            layered=True,
        ),
        AgentKind(
            "epbot", EpbotOptions, _epbot, "optional", "EPBot (outside) with a card: epbot:CARD"
        ),
    )
}


def known_agents() -> list[str]:
    return sorted(REGISTRY)
