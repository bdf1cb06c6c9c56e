"""argparse types for numbers, shared by every command line, ``models``' trainers included.

Each takes the flag's text and returns the number, or raises :class:`argparse.ArgumentTypeError`
with one line saying what is wanted, which argparse prints as ``--flag: ...`` and exits 2: a
negative seed, a batch of 0 or a share above 1 is the user's mistake, never a traceback from
numpy or torch (issue 44). They live here, under everything, because ``models`` may not import the
command-line layer (``bridgebot.options`` uses them too); the TCP ports of ``seat``, ``match``
and the pages are here beside them. :func:`add_workers` is the one flag two trainers (``ddgen``,
``teach``) spell alike.
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from typing import Any


def whole_number(text: str) -> int:
    """Any integer; raises ArgumentTypeError for other text."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def seed_number(text: str) -> int:
    """The type of every ``--seed``: a whole number of at least 0 (numpy's generators take no
    negative seed; issue 44 found it a traceback in five commands)."""
    value = whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, got {value}")
    return value


def finite_number(text: str) -> float:
    """Any finite number; raises ArgumentTypeError for other text, nan and infinities."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return value


def bounded(
    number: Callable[[str], Any],
    *,
    ge: float | None = None,
    gt: float | None = None,
    name: str = "",
) -> Callable[[str], Any]:
    """``number`` (:func:`whole_number` or :func:`finite_number`) checked against a lower bound:
    at least ``ge``, above ``gt``; the type's name for argparse is ``name`` (else the number's)."""

    def parse(text: str) -> Any:
        value = number(text)
        if ge is not None and not value >= ge:
            raise argparse.ArgumentTypeError(f"must be at least {ge:g}, got {text}")
        if gt is not None and not value > gt:
            raise argparse.ArgumentTypeError(f"must be above {gt:g}, got {text}")
        return value

    parse.__name__ = name or number.__name__  # argparse names the type in its own messages
    return parse


def port_number(text: str) -> int:
    """A TCP port to connect to or to listen on where it is fixed: 1..65535."""
    return _port(text, 1)


def listening_port(text: str) -> int:
    """A TCP port to listen on: 0..65535, 0 for a free one (the command prints which)."""
    return _port(text, 0)


def _port(text: str, low: int) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not low <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number ({low}..65535)")
    return port


#: An integer of at least 1 (boards, a batch, workers, threads).
positive_int = bounded(whole_number, ge=1, name="positive_int")
#: A finite number above 0 (a learning rate, epochs, a weight).
positive_float = bounded(finite_number, gt=0, name="positive_float")
#: A finite number of at least 0 (a weight that may be switched off).
nonnegative_float = bounded(finite_number, ge=0, name="nonnegative_float")


def add_workers(parser: argparse.ArgumentParser) -> None:
    """``--workers N``: processes, at least 1, by default one per CPU."""
    parser.add_argument(
        "--workers",
        type=positive_int,
        default=os.cpu_count() or 1,
        help="worker processes (default: CPUs)",
    )


def share(text: str) -> float:
    """A share of a whole, at least 0 and below 1 (what is held out: all of it leaves nothing)."""
    value = finite_number(text)
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 0 and below 1, got {text}")
    return value
