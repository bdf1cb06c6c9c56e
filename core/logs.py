"""Logging set-up shared by the command-line tools: structlog to stderr at a chosen level.

Two renderings, one set-up: structlog's console renderer for people (the default; one readable
line per event, colours on a terminal) and JSON lines for machines (``--log-format json``, a
global option of every ``bridgebot`` command, each line one object with ``event``, ``level``,
``timestamp`` in UTC and the bound context such as ``seat`` and ``table``).

Wire lines are logged once each at debug (seat and table bound by the table manager and the seat
client), so ``--log-level debug`` shows a whole session; the default levels keep stderr quiet.
The chosen format is also put in the environment (:data:`FORMAT_ENV`) so that worker processes
started by a match log the same way.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import Any

import structlog

LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("console", "json")
#: Environment variable carrying the format to child processes.
FORMAT_ENV = "BRIDGEBOT_LOG_FORMAT"


def add_log_format_argument(parser: argparse.ArgumentParser) -> None:
    """Add the global ``--log-format`` (console for people, json for machines)."""
    parser.add_argument(
        "--log-format",
        choices=FORMATS,
        default=None,
        help="how log lines on stderr look: console (default, for people) or json (one JSON "
        "object per line, for machines); may be given before or after the command",
    )


def set_log_format(fmt: str) -> None:
    """Choose the format for every later :func:`configure_logging` (here and in children)."""
    if fmt not in FORMATS:
        raise ValueError(f"log format {fmt!r} is not one of {', '.join(FORMATS)}")
    os.environ[FORMAT_ENV] = fmt


def log_format() -> str:
    fmt = os.environ.get(FORMAT_ENV, "console")
    return fmt if fmt in FORMATS else "console"


def configure_logging(level: str, fmt: str | None = None) -> None:
    """Send structlog's output to stderr, filtered at ``level``, one line per event."""
    fmt = fmt or log_format()
    renderers: list[Any]
    if fmt == "json":
        renderers = [
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(sort_keys=True),
        ]
    else:
        renderers = [structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())]
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *renderers,
        ],
        cache_logger_on_first_use=False,
    )


def outcome_line(text: str, event: str, **fields: Any) -> None:
    """A command's closing line on stderr, shown whatever ``--log-level``: ``text`` for people;
    with ``--log-format json``, one object shaped like a log line (``event``, ``level`` info,
    ``timestamp``, and ``fields``), so that a program reading the log reads every line of it."""
    line = text
    if log_format() == "json":
        record = {"event": event, "level": "info", **fields}
        stamped = structlog.processors.TimeStamper(fmt="iso", utc=True)(None, "info", record)
        line = json.dumps(stamped, sort_keys=True, default=str)
    print(line, file=sys.stderr, flush=True)


def progress_bar(total: int, unit: str, desc: str, *, initial: int = 0, show: bool = True) -> Any:
    """The one progress bar of the long commands (match, teach, ddgen, train ...): tqdm on
    stderr, counting ``unit`` from ``initial`` to ``total`` (a resumed run starts part way).

    It draws only when stderr is a terminal (tqdm's ``disable=None``) and not at all when the
    command was asked to be quiet, so logs and pipes never fill with redrawn lines."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        initial=initial,
        unit=unit,
        desc=desc,
        file=sys.stderr,
        dynamic_ncols=True,
        disable=None if show else True,
    )
