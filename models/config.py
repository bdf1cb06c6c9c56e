"""The trainers' configurations: one pydantic model per trainer, the command line made from it.

Each trainer (imitation, selfplay, league and exploit, ddnet, belief, doubles) takes one frozen
:class:`TrainerConfig`; its fields, defaults and descriptions are the only source of the command's
options (:func:`add_config_arguments` writes them into argparse, :func:`config_from_args` reads
them back), and the whole configuration goes into the model card, so a default cannot drift
between the library and the command line. A field ``some_name`` is the option ``--some-name``;
``tuple[str, ...]`` fields are repeated options, ``tuple[int, ...]`` fields comma separated.
"""

from __future__ import annotations

import argparse
import types
from collections.abc import Collection
from typing import Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ConfigDict

C = TypeVar("C", bound="TrainerConfig")


class TrainerConfig(BaseModel):
    """Base of the trainers' configurations: frozen, no unknown fields, every field described."""

    model_config = ConfigDict(frozen=True, extra="forbid")


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
        if get_origin(annotation) is tuple:
            if get_args(annotation)[0] is str:
                kwargs["action"] = "append"
                kwargs["help"] += " (repeat the option for several)"
            else:
                kwargs["type"] = _int_tuple
                kwargs["metavar"] = "N,N,..."
        elif annotation is bool:
            kwargs["action"] = argparse.BooleanOptionalAction
        else:
            kwargs["type"] = annotation
        if field.is_required():
            kwargs["required"] = True
        else:
            kwargs["default"] = field.default
            kwargs["help"] += f" (default: {_shown(field.default)})"
        parser.add_argument("--" + name.replace("_", "-"), **kwargs)


def config_from_args(config: type[C], args: argparse.Namespace, **values: object) -> C:
    """The configuration the parsed ``args`` describe; ``values`` set fields the options do not."""
    given = {k: getattr(args, k) for k in config.model_fields if hasattr(args, k)}
    return config.model_validate({**given, **values})
