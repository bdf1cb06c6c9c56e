"""The wire's dialect on the command line: the options by which ``tm`` and ``seat`` speak the lines
peers disagree on (docs/protocol.md, section 7; ``protocol.dialect``), in one table, added by one
function, so each side's options are written once and read the same way."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class DialectOption:
    """One option: its flag, the values it takes (None for a switch), its default, its help."""

    flag: str
    choices: tuple[str, ...] | None
    default: str | None
    help: str


#: Each side's options, in the order ``--help`` shows them.
OPTIONS: dict[str, tuple[DialectOption, ...]] = {
    "tm": (
        DialectOption(
            "--dialect-seated", ("paren", "quoted", "bare"), "paren",
            'seated line: paren = North ("T") seated (spec, default); quoted = North "T" '
            "seated (bridge-player, ZBridge); bare = North T seated (bridge_env)",
        ),
        DialectOption(
            "--dialect-teams", ("canonical", "spec", "colonless"), "canonical",
            'Teams line: canonical = Teams : N/S : "A" E/W : "B" (default; Ben needs it); '
            'spec = with a full stop after the N/S name; colonless = Teams: N/S "A" E/W "B"',
        ),
        DialectOption(
            "--teams-scoring", ("IMP", "MP"), None,
            "append '. Playing IMP|MP' to the Teams line (ComputerBridge's habit)",
        ),
    ),
    "seat": (
        DialectOption(
            "--dummy-form", ("self", "all", "never"), "self",
            'who says "ready for dummy\'s card": self = dummy only (ComputerBridge, default), '
            "all = every seat while dummy plays (Ben, bridge_env), never = always the seat name",
        ),
        DialectOption(
            "--early-dummy", None, None,
            "ask for dummy right after the auction (bridge-player's order) instead of after "
            "the opening lead",
        ),
    ),
}  # fmt: skip


def add_dialect_arguments(parser: argparse.ArgumentParser, side: Literal["tm", "seat"]) -> None:
    """Add ``side``'s options of :data:`OPTIONS` to ``parser``."""
    for option in OPTIONS[side]:
        if option.choices is None:
            parser.add_argument(option.flag, action="store_true", help=option.help)
        else:
            parser.add_argument(
                option.flag, choices=option.choices, default=option.default, help=option.help
            )
