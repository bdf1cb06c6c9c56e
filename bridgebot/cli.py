"""The ``bridgebot`` command: one dispatcher, one module per subcommand.

Each subcommand lives next to the code it drives and exposes ``HELP`` (one line), ``EXAMPLES``
(text shown under ``--help``), ``add_arguments(parser)`` and ``run(args) -> int``. Modules are
imported only when their subcommand is chosen or help is asked for, so ``bridgebot seat`` never
imports torch; no module imports an optional extra (torch, ray) at its top or in
``add_arguments``, so ``--help`` of every command works without them and only running a command
that needs one says which extra to install. ``--version`` prints the installed version. The
command-line contract is in docs/design.md; extend it, never break it.

The dispatcher is also where the composition root meets the runners: a command whose ``run``
takes two arguments gets ``run(args, services)``, the :class:`bridgebot.services.Services` of this
process (the agent factory, so the seat client, matches and tournaments build agents without
importing what they are made of; the agents' marks; the double-dummy match the trainers evaluate
a network by, so ``models`` never imports the tournament; the command's own words), typed where
it is read by a protocol of the command's part; the rest get ``run(args)``. The shipped policy the
trainers default to and the penalty-double model the league's opponents double by are option
defaults (``args.shipped_policy``, ``args.penalty_doubles``, found by ``bridgebot/shipped.py``).

A user's mistake is one line on stderr and exit status 2, never a traceback: a command raises
:class:`UserError` (or reports and returns non-zero itself), and :func:`main` also turns the
mistakes every command can meet into that line: a file or directory that cannot be read or
written, an agent spec that names nothing, an optional extra that is not installed.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import signal
import sys
from collections.abc import Callable, Sequence
from types import FrameType, ModuleType
from typing import TYPE_CHECKING, NoReturn

from bridgebot.core.errors import UserError
from bridgebot.core.logs import add_log_format_argument, configure_logging, set_log_format
from bridgebot.options import add_shared_options, modernize
from bridgebot.services import Services
from bridgebot.shipped import DEFAULT_MODEL_DIR, PENALTY_DOUBLES

if TYPE_CHECKING:
    from bridgebot.models.cli import TrainServices
    from bridgebot.server.seat_cli import SeatServices
    from bridgebot.tournament.match_cli import MatchServices

    def _services_fit(s: Services) -> tuple[SeatServices, MatchServices, TrainServices]:
        """Never run: mypy checks here that the services give each part what it reads."""
        return s, s, s


#: The distribution that installs the command (pyproject.toml's project name).
DISTRIBUTION = "bluechip-bridgebot"

#: Optional packages -> the extra of pyproject.toml that installs them.
EXTRAS = {"torch": "train", "ray": "distributed"}

#: subcommand -> module implementing it
COMMANDS: dict[str, str] = {
    "tm": "bridgebot.server.tm_cli",
    "seat": "bridgebot.server.seat_cli",
    "play": "bridgebot.tournament.play_cli",
    "match": "bridgebot.tournament.match_cli",
    "tournament": "bridgebot.tournament.tournament_cli",
    "train": "bridgebot.models.cli",
    "export": "bridgebot.models.cli",
    "teach": "bridgebot.models.teach_cli",
    "ddgen": "bridgebot.models.ddgen",
    "explain": "bridgebot.explain_cli",
    "conform": "bridgebot.conform.cli",
}


def version() -> str:
    """The installed distribution's version (``bridgebot --version``)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return "(not installed: run pip install -e .)"


def _load(name: str) -> ModuleType:
    return importlib.import_module(COMMANDS[name])


class _Parser(argparse.ArgumentParser):
    """argparse with a user's mistake as one line (the contract: one line, exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")


def _text(module: ModuleType, name: str, attr: str) -> str | None:
    """A command's ``HELP`` or ``EXAMPLES``: a string, or a mapping by command name when one
    module serves several commands (``train`` and ``export``)."""
    value = getattr(module, attr, None)
    if isinstance(value, dict):
        found = value.get(name)
        return None if found is None else str(found)
    return value


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="bridgebot",
        description="A contract-bridge bot server speaking the Blue Chip table-manager protocol.",
        epilog="Run 'bridgebot COMMAND --help' for a command's options and examples.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    add_log_format_argument(parser)
    parser.set_defaults(
        shipped_policy=str(DEFAULT_MODEL_DIR),
        penalty_doubles=str(PENALTY_DOUBLES),
    )
    sub = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )
    for name in COMMANDS:
        if only is not None and name != only:
            sub.add_parser(name, help=f"(see 'bridgebot {name} --help')", add_help=False)
            continue
        module = _load(name)
        text = _text(module, name, "HELP")
        p = sub.add_parser(
            name,
            help=text,
            description=text,
            epilog=_text(module, name, "EXAMPLES"),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        _add_shared(p, getattr(module, "SHARED_OPTIONS", {}))
    return parser


def _add_shared(parser: argparse.ArgumentParser, shared: dict[str, object]) -> None:
    """The shared flags a command declares, on the parser that parses them: a command with
    modes (``train imitation``) takes them after its mode, so each mode's parser gets them."""
    modes = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not modes:
        add_shared_options(parser, shared)
        return
    for child in modes[0].choices.values():
        _add_shared(child, shared)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    typed = list(args_list)  # the command's words, for the records that name it
    restore = _sigterm_as_sigint()
    args_list, log_format = _take_log_format(args_list)
    # Import only the chosen subcommand's module; top-level --help imports them all.
    chosen = next((a for a in args_list if a in COMMANDS), None)
    try:
        if chosen is not None:  # older spellings still work, with one line naming the new one
            at = args_list.index(chosen) + 1
            args_list[at:] = modernize(chosen, args_list[at:])
        parser = build_parser(only=chosen)
        args, unknown = parser.parse_known_args(args_list)
        if unknown:  # named by the command's own parser ("bridgebot ddgen: ..."), not the root's
            command_parser(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
        if log_format is not None:
            set_log_format(log_format)
        # Every command logs in the chosen format, at its --log-level.
        configure_logging(getattr(args, "log_level", None) or "warning")
        return _run(_load(args.command), args, Services.of(typed))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        problem = user_error(exc)
        if problem is None:
            raise  # a bug of ours: the traceback is what a report needs
        print(f"bridgebot{f' {chosen}' if chosen else ''}: {problem}", file=sys.stderr)
        return 2
    finally:
        restore()


def _run(module: ModuleType, args: argparse.Namespace, services: Services) -> int:
    """The command's ``run(args, services)`` where it takes the services, else ``run(args)``."""
    run = module.run
    takes = len(inspect.signature(run).parameters) > 1
    return int((run(args, services) if takes else run(args)) or 0)


def _sigterm_as_sigint() -> Callable[[], object]:
    """Make SIGTERM (``kill``, ``docker stop``) stop the command as Ctrl-C does: records closed,
    "interrupted", exit status 130; returns what puts the old handler back. Without it SIGTERM
    killed the process mid-write, and a process that is PID 1 in a container ignores a signal it
    has no handler for: ``docker stop`` waited 10 s and killed it (issue 44)."""
    try:
        previous = signal.signal(signal.SIGTERM, _as_sigint)
    except ValueError:  # off the main thread (a test calling main there): no handler is set
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL if previous is None else previous)


def _as_sigint(signum: int, frame: FrameType | None) -> None:
    """Whatever SIGINT would do now: asyncio.run's handler cancels the main task, Python's
    raises KeyboardInterrupt; where SIGINT is ignored (a job started with ``&``), the latter."""
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler):
        raise KeyboardInterrupt
    handler(signal.SIGINT, frame)


def command_parser(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> argparse.ArgumentParser:
    """The innermost parser ``args`` went through: ``bridgebot train imitation``'s for
    ``train imitation ...``, the root's when no command was chosen."""
    found = parser
    while subs := [a for a in found._actions if isinstance(a, argparse._SubParsersAction)]:
        name = getattr(args, subs[0].dest, None)
        if name not in subs[0].choices:
            break
        found = subs[0].choices[name]
    return found


def user_error(exc: BaseException) -> str | None:
    """The one line to show for ``exc`` if it is the user's mistake, else None."""
    from bridgebot.engine.agent import AgentSpecError

    if isinstance(exc, UserError | AgentSpecError):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError):
        root = (exc.name or "").partition(".")[0]
        extra = EXTRAS.get(root)
        if extra is None:
            return None
        # torch first and pinned exactly: any looser spec pulls gigabytes of CUDA wheels.
        first = "pip install torch==2.13.0 && " if extra == "train" else ""
        return (
            f"needs the '{extra}' extra ({root} is not installed): "
            f"{first}pip install -e '.[{extra}]'"
        )
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return None


def _take_log_format(args: list[str]) -> tuple[list[str], str | None]:
    """Remove the global ``--log-format X`` from anywhere on the line (before or after the
    command); argparse checks the value when it is put back in front."""
    rest: list[str] = []
    value: str | None = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--log-format" and i + 1 < len(args):
            value, i = args[i + 1], i + 2
            continue
        if a.startswith("--log-format="):
            value, i = a.split("=", 1)[1], i + 1
            continue
        rest.append(a)
        i += 1
    return (rest if value is None else ["--log-format", value, *rest]), value
