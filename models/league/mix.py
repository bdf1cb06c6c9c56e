"""The league's opponent mixture (``--mix``): its kinds, its parsing, the field's cards it may
name, and the league's one error."""

from __future__ import annotations

from bridgebot.core.errors import UserError
from bridgebot.engine.agent import AgentSpecError
from bridgebot.models.config import LeagueConfig
from bridgebot.models.field import Field

KINDS = ("self", "selfx", "init", "initx", "snap", "oracle", "exploit", "bfg", "bfgx", "field")


class LeagueError(ValueError):
    """A league option or checkpoint that cannot be used (the message names it)."""


def parse_mix(text: str) -> dict[str, float]:
    """``self=1,selfx=2,...`` -> weights; unknown kinds or negative weights are refused."""
    out: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, eq, value = part.partition("=")
        if not eq or kind not in KINDS:
            raise LeagueError(f"--mix: {part!r} is not KIND=WEIGHT with KIND in {', '.join(KINDS)}")
        try:
            w = float(value)
        except ValueError:
            raise LeagueError(f"--mix: weight of {kind} must be a number, not {value!r}") from None
        if w < 0:
            raise LeagueError(f"--mix: weight of {kind} must be >= 0")
        out[kind] = w
    if not out or sum(out.values()) <= 0:
        raise LeagueError("--mix: needs at least one positive weight")
    return out


def open_field(cfg: LeagueConfig, mix: dict[str, float]) -> Field | None:
    """The EPBot cards of ``--field`` where the mix plays them; None where it does not. Without
    EPBot, or with a card it lacks, a :class:`LeagueError` saying what to set."""
    if not mix.get("field"):
        return None
    try:
        return Field(cfg.field)
    except (UserError, AgentSpecError) as e:
        raise LeagueError(f"--mix asks for field (EPBot's training cards): {e}") from None


def opponents_of(mix: dict[str, float], field: Field | None) -> list[str]:
    """What the model card records as the run's opponents: the mix's kinds, then each EPBot card."""
    kinds = [k for k in KINDS if mix.get(k, 0) > 0]
    return kinds + (list(field.specs) if field is not None else [])
