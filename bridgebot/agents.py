"""The composition root of the agents: :func:`make_agent` builds the agent a spec string names.

The parts, by job: the spec grammar and its checks (:mod:`bridgebot.specs`), each agent's options
(:mod:`bridgebot.agent_options`, the engine configs' fields among them), the registry of agents and
their builders (:mod:`bridgebot.registry`; the learned agents' parts, :mod:`bridgebot.learned`) and
the card players (:mod:`bridgebot.card_players`).
Two options belong to every agent: ``seed`` (overrides the seed the runner passes) and
``doubles=on`` (the penalty doubles of :mod:`engine.doubles`: the last layer of an agent's
pipeline, :mod:`bridgebot.learned`; a wrapper around an agent that has none). Scripts outside the
project call ``bridgebot.agents.make_agent(spec, seed)``; :class:`AgentSpec`, :func:`known_agents`
and :func:`with_card_player` are importable from here too.
"""

from __future__ import annotations

from bridgebot.card_players import with_card_player
from bridgebot.engine.agent import Agent, AgentSpecError, BatchBidder
from bridgebot.registry import known_agents
from bridgebot.specs import AgentSpec, kind_of

__all__ = [
    "AgentSpec",
    "AgentSpecError",
    "known_agents",
    "make_agent",
    "with_card_player",
]


def make_agent(spec: str | AgentSpec, seed: int = 0) -> Agent:
    """Build an agent from its spec. ``seed`` is used unless the spec sets ``seed=``.

    The caller owns the agent: use it as a context manager (or call ``close``) when done.
    """
    parsed = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    kind = kind_of(parsed.name)
    if parsed.options.seed is not None:
        seed = parsed.options.seed
    if seed < 0:  # numpy's generators take none (issue 44: seat --agent-seed -1 was a traceback)
        raise AgentSpecError(f"seed {seed}: a seed is 0 or more")
    if not parsed.options.doubles or kind.layered:
        return kind.build(parsed.options, parsed.path, seed, str(parsed))
    from bridgebot.engine.doubles import (
        BatchPenaltyDoublesWrapper,
        DoublesModel,
        PenaltyDoublesWrapper,
    )
    from bridgebot.shipped import PENALTY_DOUBLES

    model = DoublesModel.load(PENALTY_DOUBLES)  # before the agent, which would need closing
    inner_spec = parsed.without("doubles")
    inner = kind.build(inner_spec.options, parsed.path, seed, str(inner_spec))
    if isinstance(inner, BatchBidder):
        return BatchPenaltyDoublesWrapper(inner, str(parsed), model)
    return PenaltyDoublesWrapper(inner, str(parsed), model)
