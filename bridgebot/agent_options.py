"""What each agent of the registry takes: one pydantic model per agent, the type, range, default
and meaning of every key of its spec (``NAME[:PATH][,key=value,...]``, :mod:`bridgebot.specs`).

The keys that set an engine config are not declared here: they come from the config's fields
(:mod:`engine.knobs`), named as the field with the group's prefix, with the field's default, bounds
and one-line meaning. ``search`` takes every field of :class:`engine.search.SearchConfig` under its
own name; the learned agents take :class:`engine.control_ask.ControlRule` as ``controls_*`` and
:class:`engine.tendencies.DoubleRate` as ``wild_doubles_*``. :func:`config` builds the config back
from the options. A model lists the keys it took once (:attr:`AgentOptions.renamed`, still read,
with a warning) and those it dropped (:attr:`AgentOptions.removed`, refused with the section of
docs/evaluation.md that keeps their measurement).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, ClassVar, Literal, TypeVar, get_type_hints

from pydantic import BaseModel, ConfigDict, Field

from bridgebot.engine.cardplay import AUCTION_LEAD_WORLDS, LEAD_WORLDS, WORLDS
from bridgebot.engine.control_ask import ControlRule
from bridgebot.engine.knobs import knobs
from bridgebot.engine.search import DEFAULT_OPPONENTS, SearchConfig
from bridgebot.engine.tendencies import DoubleRate, Reading
from bridgebot.shipped import OPPONENT_NETS, shipped_model

C = TypeVar("C")

#: The sections of docs/evaluation.md that keep the measurements of removed options, by their
#: titles (which name ``engine/aces.py``, the module of both conventions then: control asking is
#: now ``engine/control_ask.py`` and ``engine/control_layer.py``, and ace asking is gone).
ACE_ASKING = "Ace asking (`aces=on`, `engine/aces.py`)"
CONTROL_ASKING = "Control asking (`controls`, `engine/aces.py`; on in the shipped `default`)"


class AgentOptions(BaseModel):
    """The options every agent takes. A subclass takes the fields of engine configs as keys with
    ``configs=((Config, "prefix_"), ...)`` in its class statement (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    configs: ClassVar[tuple[tuple[type, str], ...]] = ()
    """The engine configs whose fields are keys here, each with its keys' prefix."""
    renamed: ClassVar[dict[str, str]] = {}
    """Old keys still read, each with its new name."""
    removed: ClassVar[dict[str, str]] = {}
    """Keys refused, each with the section of docs/evaluation.md that keeps its measurement."""

    seed: int | None = Field(None, description="the agent's seed (default: the runner's)")
    doubles: bool = Field(False, description="the penalty-double layer on top (on/off)")

    def __init_subclass__(cls, configs: tuple[tuple[type, str], ...] = (), **kwargs: Any) -> None:
        """Adds a key per field of each of ``configs`` before pydantic collects the fields."""
        super().__init_subclass__(**kwargs)
        if not configs:
            return
        cls.configs = (*cls.configs, *configs)
        annotations = dict(inspect.get_annotations(cls))
        for config_type, prefix in configs:
            hints = get_type_hints(config_type)
            for f, knob in knobs(config_type):
                key = prefix + f.name
                annotations[key] = hints[f.name]
                field = Field(
                    f.default, description=knob.help, ge=knob.ge, gt=knob.gt, le=knob.le, lt=knob.lt
                )
                setattr(cls, key, field)
        cls.__annotations__ = annotations


def config(options: AgentOptions, config_type: type[C]) -> C:
    """The ``config_type`` (one of ``options.configs``) that ``options`` set; its own checks
    raise ``ValueError``."""
    prefix = dict(options.configs)[config_type]
    return config_type(**{f.name: getattr(options, prefix + f.name) for f, _ in knobs(config_type)})


class RandomOptions(AgentOptions):
    pass_bias: float = Field(
        0.6, ge=0.0, le=1.0, description="probability of passing outright when pass is legal"
    )


class BfgOptions(AgentOptions):
    """bfg is deterministic: ``seed`` is accepted and unused."""


#: The card players an agent's ``play=`` names (``bridgebot.card_players``).
CardPlayerName = Literal["dd", "pimc", "auction", "baseline"]


class CardPlayerOptions(AgentOptions):
    """How the agent plays its cards: the double-dummy player or the instant baseline."""

    play: CardPlayerName = Field(
        "baseline",
        description="card player: dd (pimc, its own name), auction (its worlds weighed by the "
        "auction), baseline",
    )
    worlds: int = Field(WORLDS, ge=1, description="worlds solved per card (play=dd, play=auction)")
    lead_worlds: int | None = Field(
        None,
        ge=1,
        description=f"worlds for the opening lead (unset: {LEAD_WORLDS} for play=dd, "
        f"{AUCTION_LEAD_WORLDS} for play=auction)",
    )


class CardPlayOptions(CardPlayerOptions):
    """The card player, and the threads of the agent's models."""

    threads: int = Field(1, ge=1, description="onnxruntime threads per model")


class SlamOptions(
    CardPlayOptions, configs=((ControlRule, "controls_"), (DoubleRate, "wild_doubles_"))
):
    """The slam layer and control asking on top of it, and the reading of the opponents'
    doubles, for the agents that bid with a learned policy."""

    removed: ClassVar[dict[str, str]] = {
        **dict.fromkeys(
            ("aces", "ace_ask", "ace_one_missing", "ace_grand", "ace_direct"), ACE_ASKING
        ),
        "controls_dd": CONTROL_ASKING,
    }

    slams: bool = Field(
        True,
        description="the slam layer (engine.slams) on the agent's call, where the model "
        "directory has one (slam/)",
    )
    their_doubles: Literal["read", "ignore"] = Field(
        "ignore",
        description="what the slam estimates make of the opponents' doubles: ignore them "
        "(estimate as if the opponents had passed; an opponent who doubles at every turn then "
        "cannot talk the pair out of its slams) or read them as the estimator learned them, as "
        "our own policy's doubles, which show values",
    )
    controls: bool | None = Field(
        None,
        description="the control-asking convention (engine.control_ask: 4NT asks for controls, "
        "ace 2 king 1, answered in seven steps 5C-6D) on top of the slam layer; unset: on where "
        "the model directory has its control estimator (slam/controls/; the shipped model, a "
        "policy alone, has none); on: needs that estimator; off: never (a partner that does "
        "not play it)",
    )
    policy_doubles: Reading = Field(
        "auto",
        description="what the policy makes of the opponents' doubles (engine.tendencies): read "
        "them as it learned them; ignore them (as if the opponents had passed; our contract "
        "doubled excepted); auto: ignore them once the opponents have doubled at least "
        "wild_doubles_rate of the calls of theirs this seat has seen, wild_doubles_seen or more",
    )


class PolicyOptions(SlamOptions):
    greedy: bool = Field(True, description="the likeliest legal call; off samples from the policy")
    temperature: float = Field(1.0, gt=0.0, description="softmax temperature when sampling")


class DefaultOptions(PolicyOptions):
    play: CardPlayerName = Field(
        "auction",
        description="card player: auction (the default since issue 61: the double-dummy Monte "
        "Carlo player with its worlds weighed by the auction), dd (= pimc, the one before it), "
        "baseline",
    )
    doubled: Literal["search", "policy"] = Field(
        "search",
        description="who calls where the opponents doubled our contract: the search "
        "(as the search agent searches there: p_min=0.0001, punish=2; "
        "engine.search.SearchWhereDoubled) or the policy",
    )


class SearchOptions(SlamOptions, configs=((SearchConfig, ""),)):
    """The search's own options, then every field of :class:`engine.search.SearchConfig` (whose
    docstrings say more) under its own name."""

    renamed: ClassVar[dict[str, str]] = {
        "slam": "slam_stage",
        "slam_particles": "slam_stage_particles",
        "slam_chance": "slam_stage_chance",
        "slam_margin": "slam_stage_margin",
    }

    play: CardPlayerName = Field(
        "auction",
        description="card player, as default's: the agent users seat when the result matters "
        "plays its cards with the double-dummy player that reads the auction, not the instant "
        "baseline",
    )
    dd: Literal["net", "solver"] = Field("net", description="rollout scoring: estimator or solver")
    ddnet: Path = Field(
        shipped_model("ddnet"), description="the trick estimator's model directory (dd=net)"
    )
    sampler: Literal["belief", "uniform"] = Field("belief", description="how particles are dealt")
    belief: Path = Field(
        shipped_model("belief"), description="the belief net's directory (sampler=belief)"
    )
    opponents: str = Field(
        DEFAULT_OPPONENTS,
        description="'+'-separated opponent models: self, "
        + ", ".join(OPPONENT_NETS)
        + " or a policy directory",
    )

    def config(self) -> SearchConfig:
        """The search's :class:`SearchConfig`."""
        return config(self, SearchConfig)


class EpbotOptions(CardPlayerOptions):
    """``epbot:CARD``: EPBot bids playing the card named ``CARD`` (a file of its ``CC/`` without
    ``.bbsa``; underscores for spaces); the card player plays. ``seed`` seeds the card player."""

    opponents: str = Field("WBridge5-Sayc", description="the card EPBot assumes the opponents play")
    path: Path | None = Field(
        None, description="the EPBot folder (libEPBot.so and CC/); default: $BRIDGEBOT_EPBOT"
    )
