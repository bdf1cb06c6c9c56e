"""The ``bridgebot`` command: one dispatcher, one module per subcommand.

Each subcommand lives next to the code it drives and exposes ``HELP`` (one line), ``EXAMPLES``
(text shown under ``--help``), ``add_arguments(parser)`` and ``run(args) -> int``. Modules are
imported only when their subcommand is chosen or help is asked for, so ``bridgebot seat`` never
imports torch. The command-line contract is in DESIGN.md; extend it, never break it.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

#: subcommand -> module implementing it
COMMANDS: dict[str, str] = {
    "tm": "server.tm_cli",
    "seat": "server.seat_cli",
    "match": "tournament.cli",
    "tournament": "tournament.tournament_cli",
    "train": "models.cli",
    "export": "models.cli",
    "teach": "models.teach_cli",
    "ddgen": "models.ddgen",
}


def _load(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name])


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bridgebot",
        description="A contract-bridge bot server speaking the Blue Chip table-manager protocol.",
        epilog="Run 'bridgebot COMMAND --help' for a command's options and examples.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        if only is not None and name != only:
            sub.add_parser(name, help=f"(see 'bridgebot {name} --help')", add_help=False)
            continue
        module = _load(name)
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=module.HELP,
            epilog=getattr(module, "EXAMPLES", None),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    # Import only the chosen subcommand's module; top-level --help imports them all.
    chosen = next((a for a in args_list if a in COMMANDS), None)
    parser = build_parser(only=chosen)
    args = parser.parse_args(args_list)
    module = _load(args.command)
    try:
        return int(module.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
