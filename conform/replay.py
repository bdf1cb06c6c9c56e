"""Replay a transcript (docs/protocol.md section 6 format) through the kit's checkers.

``replay_tm`` checks the table manager's side of a transcript, ``replay_seat`` one seat's side:
the same observers the live commands use, fed from a file instead of sockets. The golden
transcripts pass them (tests/conform/test_replay.py), which is the check that the kit's
expectations agree with the protocol as real programs speak it.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

from bridgebot.conform.net import Abort
from bridgebot.conform.report import SEAT_RULES, TM_RULES, Recorder
from bridgebot.conform.seat_check import SeatObserver
from bridgebot.conform.tm_check import TableObserver

_LINE = re.compile(r"^(?P<src>[^:]+?)\s*->\s*(?P<dst>[^:]+?)\s*:\s(?P<text>.*)$")


def _who(label: str) -> str:
    """``WBridge5(East)`` -> ``East``; ``North`` -> ``North``; ``TM`` -> ``TM``."""
    inner = re.search(r"\((\w+)\)", label)
    name = (inner.group(1) if inner else label).strip()
    return "TM" if name.upper() == "TM" else name.capitalize()


def events(path: Path) -> list[tuple[str, str, str]]:
    """``(from, to, text)`` of every message line; comments and blank lines dropped."""
    out = []
    for raw in path.read_text().splitlines():
        if raw.lstrip().startswith("--"):
            continue
        m = _LINE.match(raw)
        if m is None:
            continue
        out.append((_who(m["src"]), _who(m["dst"]), m["text"].rstrip()))
    return out


def replay_tm(path: Path, style: str = "canonical") -> Recorder:
    """Check the table manager's lines of a transcript."""
    record = Recorder(TM_RULES)
    table = TableObserver(record, style=style)
    with contextlib.suppress(Abort):  # a relay the kit cannot follow ends the replay, recorded
        for src, dst, text in events(path):
            if dst == "TM":
                table.seat_sent(src, text)
            else:
                table.tm_sent(dst, text)
    return record


def replay_seat(path: Path, seat: str) -> Recorder:
    """Check the lines ``seat`` sent in a transcript."""
    record = Recorder(SEAT_RULES)
    observer = SeatObserver(record, seat)
    for src, dst, text in events(path):
        if src == seat and dst == "TM":
            observer.seat_sent(text)
        elif src == "TM" and dst == seat:
            observer.tm_sent(text)
    return record
