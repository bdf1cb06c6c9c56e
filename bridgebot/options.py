"""The command line's one vocabulary: every flag that more than one command takes, defined once.

A flag means one thing in every command (docs/design.md, "Command line"):

- ``--deals FILE``: a deal file, PBN, LIN or the npz of ``bridgebot ddgen``; its board numbers,
  dealers and vulnerabilities are kept as written (:mod:`bridgebot.laws.board_sets`);
- ``--boards N``: a number of boards; with ``--deals``, at most N of the file's boards (all of them
  by default);
- ``--seed N``: the seeded deal stream (deal ``i`` is board ``i + 1``);
- ``--reconnect-timeout SECONDS``: how long a seat that left may take to come back; 0 waits for
  ever; one default (:data:`RECONNECT_TIMEOUT`);
- ``--log-level`` and ``--log-format``: on every command.

A command does not add these itself: it declares which it takes, with its defaults, in a module
constant ``SHARED_OPTIONS`` (a plain mapping, so a command module never imports this root), and
:func:`bridgebot.cli.build_parser` adds them through :func:`add_shared_options`. Keys:

``deals`` (bool)            takes ``--deals FILE``
``boards`` (int or None)    takes ``--boards N`` with this default for seeded boards
``seed`` (int or None)      takes ``--seed N`` with this default (None: no default)
``seed_also`` (str)         what else the seed seeds here ("; it also seeds the agents")
``source_required`` (bool)  one of ``--deals`` and ``--seed`` must be given
``log_level`` (str)         the default of ``--log-level`` (every command has it; "warning")
``log_level_help`` (str)    what the command logs at the chosen level
``reconnect_timeout`` (bool) takes ``--reconnect-timeout``
``match`` (bool)            takes the options ``match`` and ``tournament`` share: ``--scoring``,
                            ``--out``, ``--resume``, ``--workers``, ``--backend``,
                            ``--ray-address``, ``--rooms``, ``--seat-timeout``
``workers_help`` (str)      what ``--workers`` counts in this command

A command reads the boards it was asked for with :func:`bridgebot.laws.board_sets.load_boards`
(``deals=args.deals, seed=args.seed, boards=args.boards, default=args.boards_default``), whose
errors are :class:`bridgebot.cli.UserError`: one line, exit status 2. Older spellings that scripts still
use are rewritten by :func:`modernize` before parsing, with one line on stderr naming the new one.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from bridgebot.core.argtypes import positive_int, seed_number
from bridgebot.core.errors import UserError
from bridgebot.core.logs import FORMATS, LEVELS

#: The one default of ``--reconnect-timeout`` (seconds; 0 on the command line waits for ever).
RECONNECT_TIMEOUT = 300.0


class Renamed(NamedTuple):
    """An older spelling: the flag to use instead when its value is a number, and when it is
    not (None: that value already means the new thing), and what a text value is called
    (``N``: the old flag took numbers only, and any other value is refused)."""

    when_number: str | None
    when_text: str | None
    text: str = "FILE"


#: Older spellings still accepted, by (command, flag). A number or not tells the old meaning
#: from the new one: ``tm --boards 32`` is new, ``tm --boards deals.pbn`` old.
DEPRECATED: dict[tuple[str, str], Renamed] = {
    ("tm", "--boards"): Renamed(None, "--deals"),  # tm --boards FILE -> --deals FILE
    ("tm", "--count"): Renamed("--boards", "--boards", "N"),  # tm --count N -> --boards N
    ("ddgen", "--deals"): Renamed("--boards", None),  # ddgen --deals N -> --boards N
    ("teach", "--count"): Renamed("--boards", "--boards", "N"),  # teach --count N -> --boards N
    # tm --scoring IMP|MP -> --teams-scoring (match's --scoring is dd|play, another thing)
    ("tm", "--scoring"): Renamed(None, "--teams-scoring", "IMP|MP"),
    # seat --seed N seeds the agent, not a deal stream -> --agent-seed N
    ("seat", "--seed"): Renamed("--agent-seed", "--agent-seed", "N"),
    # train's and export's deal files -> --deals FILE (--val FILE: --val-deals FILE); a key
    # "COMMAND MODE" renames a flag of that mode only (imitation's --data is the teacher's file).
    ("train", "--dd"): Renamed("--deals", "--deals"),
    ("train", "--slam-dd"): Renamed("--slam-deals", "--slam-deals"),
    ("train ddnet", "--data"): Renamed("--deals", "--deals"),
    ("train belief", "--data"): Renamed("--deals", "--deals"),
    ("train slamnet", "--val"): Renamed("--val-deals", "--val-deals"),
    ("train doubles", "--deals"): Renamed("--boards", None),  # --deals N -> --boards N
    ("export", "--dd"): Renamed("--deals", "--deals"),
    # The benchmarks (benchmarks/*.py) speak the same vocabulary.
    ("bench_search", "--data"): Renamed(None, "--deals"),  # --data FILE -> --deals FILE
    ("bench_ddnet", "--data"): Renamed(None, "--deals"),
    ("bench_ddnet", "--solver-deals"): Renamed("--solver-boards", "--solver-boards", "N"),
    ("bench_cardplay", "--data"): Renamed(None, "--deals"),
    ("bench_bidding_strength", "--dd"): Renamed(None, "--deals"),  # --dd FILE -> --deals FILE
    ("bench_policy", "--dd"): Renamed(None, "--deals"),
    ("bench_policy", "--deals"): Renamed("--boards", None),  # --deals N -> --boards N
    ("bench_teacher", "--deals"): Renamed("--boards", None),
    ("bench_teacher", "--dd"): Renamed("--solver-boards", None),  # --dd N -> --solver-boards N
    ("bench_slam_information", "--slam-dd"): Renamed("--slam-deals", "--slam-deals"),
}


def _is_number(text: str) -> bool:
    return text.strip().lstrip("+-").isdigit()


def modernize(
    command: str, argv: Sequence[str], warn: Any = None, program: str | None = None
) -> list[str]:
    """``argv`` with the deprecated spellings of ``command`` rewritten, one line on stderr each,
    naming ``program`` (``bridgebot COMMAND`` by default).

    ``tm --boards 32`` is already the new spelling (a number), ``tm --boards deals.pbn`` the old
    one (a file); ``ddgen --deals 1000`` is old (a number) while a file would be new. A command
    with modes passes its mode first (``train doubles ...``): a key ``(COMMAND MODE, flag)`` of
    :data:`DEPRECATED` renames that mode's flag only, and the line names the mode. A flag
    that took numbers only (``teach --count abc``) raises :class:`UserError`."""
    out: list[str] = []
    i = 0
    items = list(argv)
    # A command with modes (``train doubles``) may rename a flag of one mode only.
    scopes = [f"{command} {items[0]}", command] if items else [command]
    said: set[str] = set()  # a repeated flag (--dd a --dd b) is named once
    while i < len(items):
        arg = items[i]
        flag, eq, value = arg.partition("=")
        key = next(((s, flag) for s in scopes if (s, flag) in DEPRECATED), None)
        if key is not None and flag.startswith("--"):
            if not eq and i + 1 < len(items):
                value, i = items[i + 1], i + 1
            elif not eq:
                out.append(arg)
                i += 1
                continue
            renamed = DEPRECATED[key]
            number = _is_number(value)
            new = renamed.when_number if number else renamed.when_text
            if not number and renamed.text == "N":
                raise UserError(
                    f"{flag} {value!r}: not a whole number ({flag} N is deprecated; use {new} N)"
                )
            if new is not None and new != flag:
                what = "N" if number else renamed.text
                who = program or f"bridgebot {key[0]}"
                message = f"{who}: {flag} {what} is deprecated; use {new} {what}"
                if message not in said:
                    said.add(message)
                    print(message, file=sys.stderr) if warn is None else warn(message)
                flag = new
            out.extend((flag, value))
            i += 1
            continue
        out.append(arg)
        i += 1
    return out


def benchmark_args(parser: argparse.ArgumentParser, script: str) -> argparse.Namespace:
    """A benchmark's arguments (``benchmarks/SCRIPT.py``), its old spellings rewritten first:
    the benchmarks speak the command line's vocabulary (``--deals FILE``, ``--boards N``)."""
    try:
        argv = modernize(script, sys.argv[1:], program=f"benchmarks/{script}.py")
    except UserError as exc:
        parser.error(str(exc))
    return parser.parse_args(argv)


def deal_file(path: str | Path) -> Path:
    """``path``, a deal file that exists; else exit with one line saying how to make one."""
    where = Path(path)
    if not where.exists():
        sys.exit(
            f"{where}: no such deal file; make one with "
            f"`bridgebot ddgen --seed N --boards M --out {where}` (docs/data.md)"
        )
    return where


def seconds_or_forever(text: str) -> float | None:
    """argparse type: seconds, 0 meaning no limit (None)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if value < 0 or value != value:
        raise argparse.ArgumentTypeError(f"must be 0 (for ever) or more, got {text}")
    return value or None


def add_shared_options(parser: argparse.ArgumentParser, shared: Mapping[str, Any]) -> None:
    """Add the shared flags a command declares in ``SHARED_OPTIONS`` (see the module's text)."""
    if shared.get("deals") or "boards" in shared or "seed" in shared:
        g = parser.add_argument_group("boards (the same flags in every command)")
        src: Any = g
        if shared.get("deals") and "seed" in shared and shared.get("source_required"):
            src = g.add_mutually_exclusive_group(required=True)
        if shared.get("deals"):
            src.add_argument(
                "--deals",
                metavar="FILE",
                help="deal file: PBN, LIN or a double-dummy .npz as 'bridgebot ddgen' writes; "
                "its board numbers, dealers and vulnerabilities are kept as written",
            )
        if "seed" in shared:
            default = shared["seed"]
            shown = "" if default is None else f" (default {default})"
            src.add_argument(
                "--seed",
                type=seed_number,
                default=default,
                metavar="N",
                help=f"the seeded deal stream: deal i is board i + 1"
                f"{shared.get('seed_also', '')}{shown}",
            )
        if "boards" in shared:
            default = shared["boards"]
            with_file = "; with --deals, at most N of its boards (default: all)"
            shown = "" if default is None else f" (default {default})"
            g.add_argument(
                "--boards",
                type=positive_int,
                default=None,
                metavar="N",
                help=f"number of boards{shown}{with_file if shared.get('deals') else ''}",
            )
            parser.set_defaults(boards_default=default)
    if shared.get("match"):
        add_match_options(parser, str(shared.get("workers_help", "processes working at once")))
    if shared.get("reconnect_timeout"):
        parser.add_argument(
            "--reconnect-timeout",
            type=seconds_or_forever,
            default=RECONNECT_TIMEOUT,
            metavar="SECONDS",
            help="a seat that leaves has this long to come back, else its board is abandoned and "
            f"the session ends cleanly; 0: wait for ever (default {RECONNECT_TIMEOUT:g})",
        )
    g = parser.add_argument_group("logging (every command)")
    what = shared.get("log_level_help", "what is logged on stderr")
    g.add_argument(
        "--log-level",
        choices=LEVELS,
        default=shared.get("log_level", "warning"),
        help=f"{what} (default %(default)s)",
    )
    g.add_argument(
        "--log-format",
        choices=FORMATS,
        default=None,
        help="console (default, for people) or json (one object per line, for machines)",
    )


def add_match_options(parser: argparse.ArgumentParser, workers_help: str) -> None:
    """The options of a duplicate match, shared by ``match`` and ``tournament``."""
    from pathlib import Path

    g = parser.add_argument_group("matches (the same in 'match' and 'tournament')")
    g.add_argument("--out", type=Path, required=True, metavar="DIR", help="output directory")
    g.add_argument(
        "--scoring",
        choices=("dd", "play"),
        default="dd",
        help="dd: the double-dummy result of the final contract; play: real card play over TCP "
        "(default %(default)s)",
    )
    g.add_argument("--resume", action="store_true", help="continue from the journal in --out")
    g.add_argument("--workers", type=positive_int, default=1, metavar="N", help=workers_help)
    g.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local (default): worker processes on this machine; ray: shard the boards across a "
        "Ray cluster (the distributed extra), the journal is still written here",
    )
    g.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="with --backend ray: the cluster to join (HOST:PORT of a head started with "
        "'ray start --head', or 'auto'); default: start a local one",
    )
    g.add_argument(
        "--rooms",
        choices=("auto", "tcp", "inprocess"),
        default="auto",
        help="tcp: real table managers and seat clients on 127.0.0.1; inprocess: bidding only, "
        "for --scoring dd; auto (default): inprocess unless scoring by play or outside seats",
    )
    g.add_argument(
        "--seat-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds a seat client of ours waits for a line before giving up (default: no limit)",
    )
