"""Agent specs: one string names an agent the same way in the CLI, the tournament and the tests.

Grammar: ``NAME[:PATH][,key=value,...]``, for example ``random``, ``random,seed=3``, ``bfg``,
``default``, ``policy:models/default``, ``search:models/default,particles=64``.

Each package that provides an agent registers a factory here with :func:`register`; factories are
looked up lazily by module path so that importing this module stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from bridgebot.engine.agent import Agent


class AgentSpecError(ValueError):
    """An agent spec string that names no known agent or carries bad options."""


@dataclass(frozen=True)
class AgentSpec:
    name: str
    path: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        text = text.strip()
        if not text:
            raise AgentSpecError("empty agent spec")
        head, *opts = text.split(",")
        name, _, path = head.partition(":")
        options: dict[str, str] = {}
        for opt in opts:
            key, eq, value = opt.partition("=")
            if not eq or not key.strip():
                raise AgentSpecError(f"agent option {opt!r} in {text!r} is not key=value")
            options[key.strip()] = value.strip()
        return cls(name=name.strip().lower(), path=path.strip() or None, options=options)

    def __str__(self) -> str:
        s = self.name + (f":{self.path}" if self.path else "")
        return s + "".join(f",{k}={v}" for k, v in self.options.items())


Factory = Callable[[AgentSpec, int], Agent]

#: name -> "module:function"; the function takes (spec, seed) and returns an Agent.
_REGISTRY: dict[str, str] = {
    "random": "bridgebot.engine.agents:_make_random",
    "search": "bridgebot.engine.search:make_search_agent",
    "bfg": "bridgebot.engine.bfg:make_bfg_agent",
    "policy": "bridgebot.engine.policy:make_policy_agent",
    "default": "bridgebot.engine.policy:make_default_agent",
}


def register(name: str, target: str) -> None:
    """Register ``target`` ("module:function") as the factory for agent ``name``."""
    _REGISTRY[name] = target


def known_agents() -> list[str]:
    return sorted(_REGISTRY)


def make_agent(spec: str | AgentSpec, seed: int = 0) -> Agent:
    """Build an agent from its spec. ``seed`` is used unless the spec sets ``seed=``."""
    parsed = spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
    target = _REGISTRY.get(parsed.name)
    if target is None:
        raise AgentSpecError(
            f"unknown agent {parsed.name!r}; known agents: {', '.join(known_agents())}"
        )
    if "seed" in parsed.options:
        seed = _int_option(parsed, "seed")
    if "doubles" in parsed.options:
        return _with_doubles(parsed, seed)
    module_name, _, func_name = target.partition(":")
    factory: Factory = getattr(importlib.import_module(module_name), func_name)
    return factory(parsed, seed)


def _with_doubles(spec: AgentSpec, seed: int) -> Agent:
    """``NAME,...,doubles=on``: the agent without the option, wrapped in the penalty-double layer."""
    value = spec.options["doubles"].lower()
    rest = {k: v for k, v in spec.options.items() if k != "doubles"}
    inner = make_agent(AgentSpec(spec.name, spec.path, rest), seed)
    if value in ("off", "0", "no", "false"):
        return inner
    if value not in ("on", "1", "yes", "true"):
        raise AgentSpecError(f"agent {spec}: option doubles must be 'on' or 'off', not {value!r}")
    from bridgebot.engine.doubles import DoublingAgent

    return DoublingAgent(inner, name=str(spec))


def _int_option(spec: AgentSpec, key: str) -> int:
    try:
        return int(spec.options[key])
    except ValueError:
        raise AgentSpecError(f"agent {spec.name}: option {key} must be an integer") from None


def _float_option(spec: AgentSpec, key: str, default: float) -> float:
    if key not in spec.options:
        return default
    try:
        return float(spec.options[key])
    except ValueError:
        raise AgentSpecError(f"agent {spec.name}: option {key} must be a number") from None


def _make_random(spec: AgentSpec, seed: int) -> Agent:
    from bridgebot.engine.random_agent import RandomAgent

    unknown = set(spec.options) - {"seed", "pass_bias"}
    if unknown:
        raise AgentSpecError(f"agent random: unknown options {sorted(unknown)}")
    return RandomAgent(seed=seed, pass_bias=_float_option(spec, "pass_bias", 0.6))
