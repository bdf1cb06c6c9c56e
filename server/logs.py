"""Logging set-up shared by the command-line tools: structlog to stderr at a chosen level.

Wire lines are logged once each at debug (seat and table bound by the table manager and the seat
client), so ``--log-level debug`` shows a whole session; the default levels keep stderr quiet.
"""

from __future__ import annotations

import argparse
import logging
import sys

import structlog

LEVELS = ("debug", "info", "warning", "error")


def add_log_level_argument(parser: argparse.ArgumentParser, default: str, what: str) -> None:
    """Add ``--log-level``; ``what`` says what is logged at that level."""
    parser.add_argument(
        "--log-level",
        choices=LEVELS,
        default=default,
        help=f"{what} (default %(default)s)",
    )


def configure_logging(level: str) -> None:
    """Send structlog's output to stderr, filtered at ``level``, one readable line per event."""
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        processors=[
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            structlog.dev.ConsoleRenderer(colors=False),
        ],
        cache_logger_on_first_use=False,
    )
