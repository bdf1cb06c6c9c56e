"""The state folder of long runs: what a run named by the user has done, kept outside the work
tree, so that the same command resumes it in a later session on the same machine.

The work tree is laid anew each session, and with it ``data/`` and ``runs/``; the machine's cache
is not. ``$BRIDGEBOT_RUNS`` names the folder (default ``$XDG_CACHE_HOME/bridgebot/runs``, and
``~/.cache/bridgebot/runs`` where that is unset). A command given ``--run NAME`` (``bridgebot
teach``, ``ddgen``, ``train imitation|selfplay|league|exploit``, ``scripts/search_teach.py``)
works on ``RUNS/NAME/<the name of --out>`` instead of ``--out``: the label file, the deal file or
the training run's folder (its ``ckpt.pt``), checkpointed there as the command always
checkpoints. When the command ends well, the result is copied to ``--out``, so ``--out`` means
what it always meant. The same command in a new session finds the state and resumes it; where it
is missing the command says so in one line and starts clean (from ``--out`` where that exists, as
without ``--run``). A fresh start is a new NAME, or the old folder removed.

The folder also keeps the log of test-set reads (:func:`reads_log`), so that every read of a
test set is counted across sessions.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bridgebot.core.files import replace_file

#: The variable that names the state folder.
ENV = "BRIDGEBOT_RUNS"

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def runs_root(environ: Mapping[str, str] | None = None) -> Path:
    """The state folder: ``$BRIDGEBOT_RUNS``, else ``$XDG_CACHE_HOME/bridgebot/runs``, else
    ``~/.cache/bridgebot/runs`` (an empty variable counts as unset, as XDG says)."""
    env = os.environ if environ is None else environ
    if env.get(ENV):
        return Path(env[ENV]).expanduser()
    cache = env.get("XDG_CACHE_HOME")
    base = Path(cache).expanduser() if cache else Path.home() / ".cache"
    return base / "bridgebot" / "runs"


def run_name(text: str) -> str:
    """The type of ``--run``: letters, digits, ``.``, ``_`` and ``-``, starting with a letter or
    digit (a folder name, never a path); raises ArgumentTypeError for other text."""
    if not _NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a run name (letters, digits, '.', '_', '-'; no '/')"
        )
    return text


def add_run(parser: argparse.ArgumentParser) -> None:
    """``--run NAME``: keep the run's state under ``$BRIDGEBOT_RUNS/NAME``."""
    parser.add_argument(
        "--run",
        type=run_name,
        default=None,
        metavar="NAME",
        help=f"keep this run's state in ${ENV}/NAME (default ~/.cache/bridgebot/runs/NAME), "
        "outside the work tree: the same command resumes it in a later session, and the "
        "result is copied to --out when it ends well",
    )


def reads_log(environ: Mapping[str, str] | None = None) -> Path:
    """The log of test-set reads (one JSON line a read): ``field_reads.jsonl`` in the state
    folder, so that reads made in earlier sessions are counted too."""
    return runs_root(environ) / "field_reads.jsonl"


@dataclass(frozen=True)
class RunState:
    """Where a command works: ``path`` (``out`` itself without a run name; else the run's copy
    in its state folder) and ``out``, the path the user named. ``note`` is the one line to show
    the user (empty without a run name)."""

    path: Path
    out: Path
    note: str = ""

    @property
    def kept(self) -> bool:
        """Whether the work is kept in a state folder (a run name was given)."""
        return self.path != self.out

    def publish(self) -> None:
        """Copy the run's state to ``out`` (each file whole: a temporary file renamed over the
        old), where it is kept in a state folder and there is any; nothing otherwise."""
        if not self.kept or not self.path.exists():
            return
        if self.path.is_dir():
            _copy_tree(self.path, self.out)
        else:
            _copy_file(self.path, self.out)


def open_run(name: str | None, out: Path, tell: TextIO | None = None) -> RunState:
    """The place a command with ``--out out`` (a file or a folder) and ``--run name`` works.

    Without a name: ``out`` itself. With one: ``RUNS/name/<out's name>``; where that is missing,
    the folder is made and, when ``out`` exists, ``out`` is copied there first (the command then
    continues it, as it would without a run name). ``note`` says which it was, in one line:
    ``run NAME: resuming from PATH``, or ``no state for run NAME under RUNS: starting clean``
    (``no FILE in run NAME under RUNS: ...`` where the run's folder holds other files; ``...
    starting from OUT`` where ``out`` was copied), and is written to ``tell`` (a
    command's stderr) where given. Raises OSError where the folder cannot be made."""
    state = _opened(name, out)
    if state.note and tell is not None:
        print(state.note, file=tell, flush=True)
    return state


def _opened(name: str | None, out: Path) -> RunState:
    if name is None:
        return RunState(out, out)
    root = runs_root()
    path = root / name / out.name
    if path.exists():
        return RunState(path, out, f"run {name}: resuming from {path}")
    missing = (
        f"no state for run {name} under {root}"
        if not path.parent.is_dir()
        else f"no {path.name} in run {name} under {root}"  # the run's other files are there
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    start = "clean"
    if out.is_dir():
        _copy_tree(out, path)
        start = f"from {out}"
    elif out.is_file():
        _copy_file(out, path)
        start = f"from {out}"
    return RunState(path, out, f"{missing}: starting {start}")


def _copy_file(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    replace_file(dst, lambda tmp: shutil.copyfile(src, tmp))


def _copy_tree(src: Path, dst: Path) -> None:
    for f in sorted(src.rglob("*")):
        if f.is_file() and not f.name.endswith(".tmp" + f.suffix):  # not a killed save's
            _copy_file(f, dst / f.relative_to(src))
