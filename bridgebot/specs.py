"""The spec grammar: one string names an agent the same way everywhere.

Grammar: ``NAME[:PATH][,key=value,...]``, for example ``random``, ``random,seed=3``, ``bfg``,
``bfg,doubles=on``, ``default``, ``default,worlds=32,lead_worlds=16``, ``policy:models/default``,
``search:models/default,particles=64``, ``search,opponents=bfgnet+self``.

:meth:`AgentSpec.parse` validates a spec against its agent's options model
(:mod:`bridgebot.agent_options`) before anything is built, so a bad value, an unknown key or a
removed one is one :class:`AgentSpecError` line naming the agent and the option; a renamed key is
read as its new name, with one line on stderr that names it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from bridgebot.agent_options import AgentOptions, config
from bridgebot.engine.agent import AgentSpecError
from bridgebot.registry import REGISTRY, AgentKind, known_agents

#: The renamed keys already named on stderr in this process (each is named once).
_SAID: set[str] = set()


@dataclass(frozen=True)
class AgentSpec:
    """A parsed and validated spec: ``str(spec)`` gives the text back as written (a renamed key
    under its new name)."""

    name: str
    path: str | None
    options: AgentOptions
    written: dict[str, str] = field(default_factory=dict)
    """The options as written, in order (for ``str`` and for agent names)."""

    @classmethod
    def parse(cls, text: str) -> AgentSpec:
        """Parse and validate ``text``; :class:`AgentSpecError` says what is wrong, in one line."""
        text = text.strip()
        if not text:
            raise AgentSpecError("empty agent spec")
        head, *opts = text.split(",")
        name, _, path = (part.strip() for part in head.partition(":"))
        name = name.lower()
        written: dict[str, str] = {}
        for opt in opts:
            key, eq, value = opt.partition("=")
            if not eq or not key.strip():
                raise AgentSpecError(f"agent option {opt!r} in {text!r} is not key=value")
            written[key.strip()] = value.strip()
        kind = kind_of(name)
        if kind.path == "none" and path:
            raise AgentSpecError(_no_path(kind, text))
        if kind.path == "required" and not path:
            raise AgentSpecError(f"agent {name} needs a model path: {name}:DIR or {name}:FILE.onnx")
        written = _current_keys(kind, written)
        try:
            options = kind.options.model_validate(written)
        except ValidationError as exc:
            raise AgentSpecError(_option_problem(kind, text, written, exc.errors())) from None
        for config_type, _ in options.configs:
            try:
                config(options, config_type)
            except ValueError as e:
                raise AgentSpecError(f"agent {name}: {e}") from None
        return cls(name, path or None, options, written)

    def __str__(self) -> str:
        s = self.name + (f":{self.path}" if self.path else "")
        return s + "".join(f",{k}={v}" for k, v in self.written.items())

    def settings(self) -> dict[str, Any]:
        """Every option of this spec as this code reads it, defaults included, with its model
        path, as JSON values: two specs with the same text mean different agents where a
        default changed between them, and their settings say so. The options of an agent built
        inside this one (``default``'s search where doubled) are there too, each key under the
        inner agent's name (``doubled.particles``)."""
        kind = kind_of(self.name)
        agents = kind.inner_agents(self.options) if kind.inner_agents is not None else {}
        inner = {
            f"{agent}.{key}": value
            for agent, options in agents.items()
            for key, value in options.model_dump(mode="json").items()
        }
        return {"path": self.path, **self.options.model_dump(mode="json"), **inner}

    def with_path(self, path: str | Path) -> AgentSpec:
        """This spec bidding with the model at ``path`` (``default,x=1`` -> ``default:PATH,x=1``)."""
        return replace(self, path=str(path))

    def without(self, key: str) -> AgentSpec:
        """This spec less option ``key``."""
        written = {k: v for k, v in self.written.items() if k != key}
        options = self.options.model_copy(
            update={key: type(self.options).model_fields[key].default}
        )
        return AgentSpec(self.name, self.path, options, written)


def kind_of(name: str) -> AgentKind[Any]:
    """The registry's agent ``name``; an unknown name is an :class:`AgentSpecError`."""
    kind = REGISTRY.get(name)
    if kind is None:
        raise AgentSpecError(f"unknown agent {name!r}; known agents: {', '.join(known_agents())}")
    return kind


def _current_keys(kind: AgentKind[Any], written: dict[str, str]) -> dict[str, str]:
    """``written`` with renamed keys under their new names (one line on stderr each, once per
    process); a removed key is an :class:`AgentSpecError` naming where its measurement stays."""
    out: dict[str, str] = {}
    for key, value in written.items():
        section = kind.options.removed.get(key)
        if section is not None:
            raise AgentSpecError(
                f"agent {kind.name}: option {key} was removed (it did not pay); its measurement "
                f'stays in docs/evaluation.md, "{section}"'
            )
        new = kind.options.renamed.get(key)
        if new is not None:
            if new in written:
                raise AgentSpecError(f"agent {kind.name}: option {key} is {new}; give {new} once")
            line = f"agent {kind.name}: option {key} is deprecated; use {new}"
            if line not in _SAID:
                _SAID.add(line)
                print(line, file=sys.stderr)
            key = new
        out[key] = value
    return out


def _no_path(kind: AgentKind[Any], text: str) -> str:
    if set(kind.options.model_fields) == set(AgentOptions.model_fields):
        return (
            f"agent {kind.name} takes no path and no options besides seed and doubles, got {text!r}"
        )
    return f"agent {kind.name} takes no path, got {text!r}"


#: What a value must be, by pydantic error type (the rest use pydantic's own words).
_EXPECTED = {
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_parsing": "a number",
    "bool_parsing": "'on' or 'off'",
    "finite_number": "a finite number",
}


def _option_problem(
    kind: AgentKind[Any], text: str, written: dict[str, str], errors: list[ErrorDetails]
) -> str:
    unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
    if unknown:
        if set(kind.options.model_fields) == set(AgentOptions.model_fields):
            return _no_path(kind, text)
        known = ", ".join(kind.options.model_fields)
        return f"agent {kind.name}: unknown options {unknown}; it takes {known}"
    error = errors[0]
    key = str(error["loc"][0])
    ctx = error.get("ctx", {})
    bounds = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
    expected = _EXPECTED.get(error["type"])
    if error["type"] == "literal_error":
        expected = str(ctx["expected"])
    elif expected is None and ctx and set(ctx) <= set(bounds):
        expected = " and ".join(f"{bounds[b]} {v}" for b, v in ctx.items())
    if expected is None:
        expected = error["msg"].removeprefix("Input should be ")
    return f"agent {kind.name}: option {key} must be {expected}, not {written.get(key)!r}"
