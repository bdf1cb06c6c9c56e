"""A command's ``main`` run in the test's own process, reported as a finished process would be.

The training commands import torch and the engine: a dozen of them as subprocesses spent most of
their tests' time importing. In-process they share one import, and the records they write still
name the words they were given (``bridgebot.cli.main`` and the scripts record their ``argv``, not
the test process's)."""

from __future__ import annotations

import io
import subprocess
from collections.abc import Callable, Sequence
from contextlib import redirect_stderr, redirect_stdout


def run_main(
    command: Callable[[list[str]], int], argv: Sequence[str]
) -> subprocess.CompletedProcess[str]:
    """``command(argv)``, its stdout and stderr captured; an argparse error's ``SystemExit``
    becomes its exit status. Returns the status and the output as ``subprocess.run`` would."""
    out, err = io.StringIO(), io.StringIO()
    words = list(argv)
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code = command(words)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return subprocess.CompletedProcess(words, code, out.getvalue(), err.getvalue())


def bridgebot(*argv: str) -> subprocess.CompletedProcess[str]:
    """``bridgebot ARGV`` in this process."""
    from bridgebot.cli import main

    return run_main(main, argv)
