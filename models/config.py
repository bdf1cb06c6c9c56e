"""The trainers' configurations: one pydantic model per trainer, the command line made from it.

Each trainer (imitation, selfplay, league and exploit, ddnet, belief, doubles) takes one frozen
:class:`TrainerConfig`; its fields, defaults and descriptions are the only source of the command's
options (:func:`add_config_arguments` writes them into argparse, :func:`config_from_args` reads
them back), and the whole configuration goes into the model card, so a default cannot drift
between the library and the command line. A field ``some_name`` is the option ``--some-name``
unless the configuration's ``FLAGS`` names another (the command line's vocabulary, docs/design.md:
a deal file is ``--deals FILE``, a number of boards ``--boards N``; the field keeps its name, so
the model cards written before still read); ``tuple[str, ...]`` fields are repeated options,
``tuple[int, ...]`` fields comma separated.
"""

from __future__ import annotations

import argparse
import types
from collections.abc import Collection, Mapping
from typing import Any, ClassVar, Literal, TypeVar, Union, get_args, get_origin

import annotated_types
from bridgebot.core.argtypes import bounded, finite_number, whole_number
from bridgebot.engine.epbot_cards import TRAINING_CARDS, names_report_card, training_cards
from pydantic import BaseModel, ConfigDict, Field, field_validator

C = TypeVar("C", bound="TrainerConfig")


class TrainerConfig(BaseModel):
    """Base of the trainers' configurations: frozen, no unknown fields, every field described."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: field -> its option where it is not ``--field-name`` (the older spellings still work:
    #: ``bridgebot.options.DEPRECATED``)
    FLAGS: ClassVar[Mapping[str, str]] = {}
    #: Fields naming a policy directory that the command line defaults to the shipped policy:
    #: required of a library caller, optional on the command line, where :func:`config_from_args`
    #: takes ``args.shipped_policy`` (resolved by the composition root through
    #: ``bridgebot/shipped.py`` and handed down, so the default works from any directory).
    SHIPPED_POLICY: ClassVar[tuple[str, ...]] = ()


#: The league's default opponent mixture (kinds of ``models.league.mix.KINDS`` and their weights).
DEFAULT_MIX = "self=1,selfx=2,init=1,initx=1,snap=1,oracle=1,exploit=2,bfg=1.5,bfgx=1.5"
#: The recommended mixture with EPBot's training cards (``field``; needs ``$BRIDGEBOT_EPBOT``):
#: the outside bidders keep today's share of the deals (3 of 13), two thirds of it the field, so
#: a generation costs what it does today (a field call costs less CPU than a bfg call).
FIELD_MIX = "self=1,selfx=2,init=1,initx=1,snap=1,oracle=1,exploit=2,bfg=0.5,bfgx=0.5,field=2"


class ImitationConfig(TrainerConfig):
    """``bridgebot train imitation``: every setting of a run (recorded in the model card)."""

    data: str = Field(description="teacher file from 'bridgebot teach' (.npz)")
    out: str = Field(description="run directory (ckpt.pt, log.jsonl, policy.pt); resumes from it")
    epochs: float = Field(default=4.0, gt=0, description="passes over the training decisions")
    batch: int = Field(default=512, ge=1, description="decisions per step")
    lr: float = Field(default=1e-3, gt=0, description="peak learning rate (cosine decay)")
    hidden: int = Field(default=512, ge=1, description="width of the trunk's layers")
    layers: int = Field(default=3, ge=1, description="layers of the trunk")
    holdout: int = Field(default=5000, description="last N deals: accuracy only, never trained on")
    seed: int = Field(default=1, ge=0, description="seed of the weights and the minibatch order")
    threads: int = Field(
        default=1, ge=1, description="torch threads (1 is fastest on a busy machine)"
    )
    save_every: int = Field(default=1000, description="steps between checkpoints")
    max_minutes: float = Field(default=0.0, description="stop (resumably) after this; 0: no limit")


class SelfPlayConfig(TrainerConfig):
    """``bridgebot train selfplay``: every setting of a run (recorded in the model card)."""

    FLAGS: ClassVar[Mapping[str, str]] = {"dd": "--deals"}
    init: str = Field(description="starting checkpoint (an imitation policy.pt)")
    dd: str = Field(
        description="DD deal file, e.g. from 'bridgebot ddgen'; its last 2,000 deals are held out"
    )
    out: str = Field(description="run directory (ckpt.pt, log.jsonl, policy.pt); resumes from it")
    deals_per_iter: int = Field(
        default=1024, ge=1, description="deals bid at both tables per iteration"
    )
    iters: int = Field(default=300, ge=1, description="PPO iterations")
    lr: float = Field(default=3e-5, gt=0, description="learning rate")
    ppo_epochs: int = Field(default=2, ge=1, description="passes over an iteration's decisions")
    minibatch: int = Field(default=2048, ge=1, description="decisions per PPO step")
    clip: float = Field(default=0.2, description="PPO ratio clip")
    entropy: float = Field(default=0.003, description="entropy bonus weight")
    value_coef: float = Field(default=0.5, description="value loss weight")
    eval_every: int = Field(default=10, description="iterations between validation matches")
    eval_bfg_every: int = Field(
        default=0, description="match bfg every N iterations (a multiple of --eval-every); 0: never"
    )
    eval_bfg_deals: int = Field(default=200, description="validation deals of those matches")
    eval_deals: int = Field(default=1000, description="validation deals just before the held-out")
    max_minutes: float = Field(default=0.0, description="stop (resumably) after this; 0: no limit")
    seed: int = Field(default=1, ge=0, description="seed of the deals, dealers and samples")
    threads: int = Field(
        default=1, ge=1, description="torch threads (1 is fastest on a busy machine)"
    )


class LeagueConfig(TrainerConfig):
    """``bridgebot train league`` and ``train exploit``: every setting of a run (the card's).

    ``train exploit`` uses the exploiter's fields, ``init`` being the policy to beat.
    """

    FLAGS: ClassVar[Mapping[str, str]] = {"dd": "--deals", "slam_dd": "--slam-deals"}

    init: str = Field(description="starting policy: model directory (ONNX) or .pt")
    dd: tuple[str, ...] = Field(
        description="DD deal file, e.g. from 'bridgebot ddgen'; the last file's last 2,000 deals "
        "are held out"
    )
    out: str = Field(description="run directory (resumes from OUT/ckpt.pt)")
    gens: int = Field(default=6, ge=1, description="generations")
    learner_iters: int = Field(default=200, ge=1, description="learner iterations per generation")
    exploiter_iters: int = Field(default=100, description="exploiter budget (iterations)")
    deals_per_iter: int = Field(
        default=1024, ge=1, description="deals bid at both tables per iteration"
    )
    lr: float = Field(default=1e-4, gt=0, description="learner learning rate")
    exploiter_lr: float = Field(default=2e-4, gt=0, description="exploiter learning rate")
    ppo_epochs: int = Field(default=2, ge=1, description="passes over an iteration's decisions")
    minibatch: int = Field(default=2048, ge=1, description="decisions per PPO step")
    clip: float = Field(default=0.2, description="PPO ratio clip")
    entropy: float = Field(default=0.003, description="entropy bonus weight")
    value_coef: float = Field(default=0.5, description="value loss weight")
    explore: float = Field(default=0.05, description="X/XX probability floor at generation 0")
    explore_gens: int = Field(default=3, description="the floor reaches 0 at this generation")
    exploiter_explore: float = Field(default=0.05, description="the exploiter's X/XX floor")
    policy_doubles: Literal["read", "auto"] = Field(
        default="read",
        description="what the exploiters' frozen target makes of their doubles: read them, or "
        "auto: read them as passes (our contract doubled excepted) after an iteration in which "
        "the exploiter doubled 0.12 or more of its calls, as the agents' policy_doubles=auto "
        "does at the table",
    )
    mix: str = Field(default=DEFAULT_MIX, description="opponent kinds and their weights")
    field: tuple[str, ...] = Field(
        default=TRAINING_CARDS,
        description="EPBot cards the mix's 'field' kind plays, one per deal (comma-separated or "
        "repeated; needs $BRIDGEBOT_EPBOT); never WBridge5-Sayc or WBridge5-21GF, the report cards",
    )
    snapshots: int = Field(default=4, description="past generations kept as opponents")
    eval_deals: int = Field(default=1000, description="validation deals just before the held-out")
    save_minutes: float = Field(default=3.0, description="minutes between checkpoints")
    max_minutes: float = Field(default=0.0, description="stop (resumably) after this; 0: no limit")
    seed: int = Field(default=1, ge=0, description="seed of the deals and samples")
    threads: int = Field(default=1, ge=1, description="torch threads")
    slam_dd: tuple[str, ...] = Field(
        default=(),
        description="slam-rich DD deal file for the learner's curriculum (training only, never "
        "evaluated on; e.g. 'bridgebot ddgen --filter slam')",
    )
    slam_frac: float = Field(
        default=0.0, ge=0.0, le=1.0, description="share of the learner's deals from --slam-deals"
    )
    strong_frac: float = Field(
        default=0.0,
        ge=0.0,
        le=1.0,
        description="share of the learner's deals from the training deals where a side holds "
        "26+ HCP",
    )
    slam_weight: float = Field(
        default=0.0,
        ge=0.0,
        description="weight of the slam term: the IMPs the learner's side gives up against the "
        "best slam its cards make double dummy, at each table (0: off)",
    )
    slam_fail_weight: float = Field(
        default=1.0,
        ge=1.0,
        description="the slam term's multiplier on a slam the learner's side bid and went down in "
        "(1: symmetric, break-even near half the slams making; 5 moves it to three quarters)",
    )
    convention: str | None = Field(
        default=None,
        description="agent whose slam layer and asking convention the learner's pair plays in "
        "training, the learner's network as its policy (e.g. 'default'; models.convention); "
        "unset: the network alone",
    )
    estimators_lr: float = Field(
        default=0.0,
        ge=0.0,
        description="with --convention: train the layers' slam and control estimators in the "
        "loop with the learner at this learning rate (models.convention.Listeners; OUT/gen{g}_slam "
        "holds them); 0: keep them as the agent has them",
    )

    @field_validator("field", mode="before")
    @classmethod
    def _training_cards_only(cls, value: object) -> object:
        """Comma-separated names split; a report card refused (engine.epbot_cards)."""
        if isinstance(value, str):
            value = (value,)
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return training_cards(value, "--field")
        return value

    @field_validator("convention")
    @classmethod
    def _no_report_card(cls, value: str | None) -> str | None:
        """An agent spec that names a report card (``epbot:WBridge5-Sayc``) is refused."""
        card = names_report_card(value or "")
        if card:
            training_cards([card], "--convention")
        return value


#: The league's fields that ``train exploit`` has no use for.
LEARNER_ONLY = frozenset(
    {"init", "gens", "learner_iters", "lr", "explore", "explore_gens", "mix", "snapshots",
     "slam_dd", "slam_frac", "strong_frac", "slam_weight", "slam_fail_weight", "convention", "estimators_lr",
     "field"}
)  # fmt: skip


class DDNetConfig(TrainerConfig):
    """``bridgebot train ddnet``: every setting of a run (recorded in the model card)."""

    FLAGS: ClassVar[Mapping[str, str]] = {"data": "--deals"}
    data: tuple[str, ...] = Field(
        description="DD deal file (owners, dd), e.g. from 'bridgebot ddgen'; the files are read "
        "in order and the last file's last 2,000 deals are held out"
    )
    out: str = Field(description="model directory to write (ddnet.onnx and model.json)")
    epochs: int = Field(default=8, ge=1, description="passes over the training rows")
    batch: int = Field(default=1024, ge=1, description="rows per step")
    lr: float = Field(default=2e-3, gt=0, description="peak learning rate (one-cycle schedule)")
    hidden: tuple[int, ...] = Field(default=(256, 256, 128), description="hidden layer widths")
    seed: int = Field(
        default=0, ge=0, description="seed of the weights, the order and the shuffles"
    )
    threads: int = Field(default=2, ge=1, description="torch threads")
    max_deals: int | None = Field(default=None, description="train on at most N deals")

    @field_validator("data", mode="before")
    @classmethod
    def _one_file(cls, value: object) -> object:
        """A single path (the cards of the nets trained before several files were allowed)."""
        return (value,) if isinstance(value, str) else value


class BeliefConfig(TrainerConfig):
    """``bridgebot train belief``: every setting of a run (recorded in the model card)."""

    FLAGS: ClassVar[Mapping[str, str]] = {"data": "--deals"}
    data: str = Field(
        description="DD deal file (its owners), e.g. from 'bridgebot ddgen'; its last 2,000 "
        "deals are held out"
    )
    out: str = Field(description="model directory to write (belief.onnx and model.json)")
    SHIPPED_POLICY: ClassVar[tuple[str, ...]] = ("policy",)
    policy: str = Field(description="policy model directory that bids the auctions")
    opponents: str = Field(
        default="",
        description="'+'-separated policy directories that also bid against the policy, each "
        "on an equal share of the deals (e.g. models/bfgnet); only the policy's calls are examples",
    )
    epochs: int = Field(default=4, ge=1, description="passes over the training decisions")
    batch: int = Field(default=1024, ge=1, description="decisions per step")
    lr: float = Field(default=2e-3, gt=0, description="peak learning rate (one-cycle schedule)")
    hidden: tuple[int, ...] = Field(default=(256, 256, 256), description="hidden layer widths")
    seed: int = Field(default=0, ge=0, description="seed of the weights and the order")
    threads: int = Field(default=1, ge=1, description="torch and onnxruntime threads")
    max_deals: int | None = Field(default=None, description="train on at most N deals")


class SlamNetConfig(TrainerConfig):
    """``bridgebot train slamnet``: every setting of a run (recorded in the model card)."""

    FLAGS: ClassVar[Mapping[str, str]] = {
        "dd": "--deals",
        "val": "--val-deals",
        "slam_dd": "--slam-deals",
    }
    SHIPPED_POLICY: ClassVar[tuple[str, ...]] = ("policy",)
    policy: str = Field(description="policy model directory whose auctions it reads")
    dd: tuple[str, ...] = Field(
        description="DD deal files, as the league takes them: the last file's last 3,000 deals "
        "(the league's held-out and validation deals) are never trained on"
    )
    val: str = Field(
        default="",
        description="validation DD deal file that chooses the thresholds (e.g. 'bridgebot ddgen "
        "--seed 9001'); never a test set; needed but with --partner-controls",
    )
    out: str = Field(default="", description="model directory to write (empty: the policy's slam/)")
    epochs: int = Field(default=3, ge=1, description="passes over the training decisions")
    batch: int = Field(default=1024, ge=1, description="decisions per step")
    lr: float = Field(default=1e-3, gt=0, description="peak learning rate (cosine schedule)")
    hidden: tuple[int, ...] = Field(default=(256, 256), description="hidden layer widths")
    grid: str = Field(
        default="0.5,0.6,0.3;0.55,0.65,0.35;0.6,0.7,0.4;0.65,0.75,0.45;0.7,0.8,0.5",
        description="';'-separated thresholds 'small,grand,keep' tried on --val-deals",
    )
    min_making: float = Field(
        default=0.7,
        ge=0.0,
        le=1.0,
        description="least share of the slams bid that make DD on --val-deals for a threshold to be "
        "chosen",
    )
    seed: int = Field(default=0, ge=0, description="seed of the dealers, weights and order")
    threads: int = Field(default=1, ge=1, description="torch threads")
    max_deals: int | None = Field(default=None, description="train on at most N deals")
    auctions: int = Field(
        default=4,
        ge=1,
        description="auctions per training deal, the dealer moving round the table (each with "
        "a vulnerability of its own)",
    )
    slam_dd: tuple[str, ...] = Field(
        default=(),
        description="slam-rich DD deal file added to the training deals (e.g. 'bridgebot ddgen "
        "--filter slam'), weighted so each kind of deal keeps its share of the uniform deals",
    )
    partner_controls: bool = Field(
        default=False,
        description="train the control asking's estimator instead (engine.control_estimator, the agents' "
        "controls=on): partner's control step is one more input; written to the policy's "
        "slam/controls/ (thresholds: the agents' controls_* options, no sweep)",
    )


class DoublesConfig(TrainerConfig):
    """``bridgebot train doubles``: every setting of a fit (recorded in the written file)."""

    FLAGS: ClassVar[Mapping[str, str]] = {"dd": "--deals", "deals": "--boards"}
    dd: str = Field(description="training deals with DD tables, e.g. from 'bridgebot ddgen' (.npz)")
    deals: int = Field(
        default=20000, description="the file's first N boards (the held-out 2,000 excluded)"
    )
    SHIPPED_POLICY: ClassVar[tuple[str, ...]] = ("model",)
    model: str = Field(description="policy that bids the auctions")
    out: str = Field(description="model file to write (.json)")
    seed: int = Field(
        default=1, ge=0, description="seed of the dealers, vulnerabilities and samples"
    )


def _int_tuple(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not comma-separated integers") from None


def _shown(value: object) -> str:
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


def add_config_arguments(
    parser: argparse.ArgumentParser, config: type[TrainerConfig], skip: Collection[str] = ()
) -> None:
    """One option per field of ``config`` (but those in ``skip``), with its default and help."""
    for name, field in config.model_fields.items():
        if name in skip:
            continue
        kwargs: dict[str, Any] = {"dest": name, "help": field.description or ""}
        annotation = field.annotation
        args = get_args(annotation)
        if get_origin(annotation) in (Union, types.UnionType) and type(None) in args:
            (annotation,) = (a for a in args if a is not type(None))
        repeated = False
        if get_origin(annotation) is tuple:
            if get_args(annotation)[0] is str:
                kwargs["action"] = "append"
                kwargs["help"] += " (repeat the option for several)"
                repeated = True
            else:
                kwargs["type"] = _int_tuple
                kwargs["metavar"] = "N,N,..."
        elif annotation is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        elif get_origin(annotation) is Literal:
            kwargs["choices"] = get_args(annotation)
        else:
            kwargs["type"] = _bounded(annotation, field.metadata)
        if name in config.SHIPPED_POLICY:
            kwargs["default"] = None
            kwargs["help"] += " (default: the shipped policy, agent 'default')"
        elif field.is_required():
            kwargs["required"] = True
        else:
            # argparse appends to a default list in place: repeated options start from None and
            # config_from_args leaves the field to its default when none was given.
            kwargs["default"] = None if repeated else field.default
            kwargs["help"] += f" (default: {_shown(field.default)})"
        flag = config.FLAGS.get(name, "--" + name.replace("_", "-"))
        if name in config.FLAGS:  # the vocabulary's: a deal file, or a number of boards
            kwargs.setdefault("metavar", "N" if flag == "--boards" else "FILE")
        parser.add_argument(flag, **kwargs)


def _bounded(annotation: Any, metadata: Collection[object]) -> Any:
    """The argparse type of a field: a number checked against the field's ``ge``/``gt`` bounds
    as the option is parsed, so that ``--seed -1`` or ``--batch 0`` is one line naming the option
    (exit 2), not a traceback from numpy or torch; other annotations as they are."""
    if annotation not in (int, float):
        return annotation
    ge = next((m.ge for m in metadata if isinstance(m, annotated_types.Ge)), None)
    gt = next((m.gt for m in metadata if isinstance(m, annotated_types.Gt)), None)
    number = whole_number if annotation is int else finite_number
    return bounded(number, ge=ge, gt=gt, name=annotation.__name__)  # type: ignore[arg-type]


def config_from_args(config: type[C], args: argparse.Namespace, **values: object) -> C:
    """The configuration the parsed ``args`` describe; ``values`` set fields the options do not.
    A field of ``config.SHIPPED_POLICY`` left out is ``args.shipped_policy`` (the composition
    root's)."""
    given = {
        k: getattr(args, k)
        for k in config.model_fields
        if hasattr(args, k) and getattr(args, k) is not None
    }
    shipped = getattr(args, "shipped_policy", None)
    for k in config.SHIPPED_POLICY:
        if k not in given and k not in values and shipped is not None:
            given[k] = str(shipped)
    return config.model_validate({**given, **values})
