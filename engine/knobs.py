"""Config fields that an agent spec sets: each is declared once, on the engine's config.

An engine config (:class:`engine.search.SearchConfig`, :class:`engine.control_ask.ControlRule`,
:class:`engine.tendencies.DoubleRate`) is a dataclass; each field an agent spec may set is
declared with :func:`knob`: its default, its meaning in one line (the spec's help) and its bounds.
``bridgebot.agent_options`` builds the spec's keys from these fields (:func:`knobs`), so a new
field is a new key and a changed default changes the key's: nothing is copied. No pydantic here:
the bounds are plain numbers.
"""

from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from typing import Any

#: The key of a field's metadata that holds its :class:`Knob`.
KNOB = "knob"


@dataclass(frozen=True)
class Knob:
    """What an agent spec says of one config field: its meaning in one line and its bounds
    (None: unbounded on that side)."""

    help: str
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None

    def bounds(self) -> dict[str, float]:
        """The bounds that are set, by name (``ge``, ``gt``, ``le``, ``lt``)."""
        named = {"ge": self.ge, "gt": self.gt, "le": self.le, "lt": self.lt}
        return {k: v for k, v in named.items() if v is not None}


def knob(
    default: Any,
    help: str,
    *,
    ge: float | None = None,
    gt: float | None = None,
    le: float | None = None,
    lt: float | None = None,
) -> Any:
    """A dataclass field with ``default`` that agent specs set (see the module docstring)."""
    return field(default=default, metadata={KNOB: Knob(help, ge, gt, le, lt)})


def knobs(config: type) -> list[tuple[Field[Any], Knob]]:
    """The fields of the dataclass ``config`` that agent specs set, in order, with their knobs.
    Every field its constructor takes must be one: a field declared without :func:`knob` is a
    ``TypeError`` here, so a new field cannot be left out of the specs by accident."""
    out: list[tuple[Field[Any], Knob]] = []
    for f in fields(config):
        if not f.init:
            continue
        found = f.metadata.get(KNOB)
        if not isinstance(found, Knob):
            raise TypeError(f"{config.__name__}.{f.name} is not declared with engine.knobs.knob")
        out.append((f, found))
    return out
