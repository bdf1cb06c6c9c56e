"""Resuming a table manager's session from its records after a crash or a kill.

``journal.jsonl`` is the truth: :class:`server.records.RecordWriter` writes a board's PBN record,
then its journal line, each fsynced, before the next board starts. A kill can therefore leave

* a torn last journal line (killed inside the write): dropped, the board is played again;
* a PBN record whose journal line was never written (killed between the two writes): dropped from
  ``boards.pbn``, the board is played again;
* nothing else: every board with a complete journal line is finished and is not played again.

:func:`prepare` repairs both files in place (atomically: write aside, fsync, rename) and returns,
per table, the board numbers already finished, which ``TableManager(skip=...)`` leaves out. After a
resume every finished board is in both files exactly once. The Timing totals of the resumed
session start again from zero (they are thinking time of this process, not of the match).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bridgebot.core.files import write_bytes_file
from bridgebot.server.journal import JournalError, parse_line
from bridgebot.server.records import JOURNAL_LINE, SessionHeader, SessionLine

_BOARD_TAG = re.compile(r'^\[Board "(\d+)"\]', re.MULTILINE)
_TABLE_TAG = re.compile(r'^\[Table "(\d+)"\]', re.MULTILINE)


class ResumeError(ValueError):
    """Records that cannot be resumed from; the message names the file and the line."""


@dataclass
class Resumed:
    """What :func:`prepare` found and mended."""

    done: dict[int, set[int]] = field(default_factory=dict)
    """Table number -> board numbers already finished (played or aborted)."""
    torn_lines: int = 0
    """Incomplete journal lines dropped (a kill inside a write)."""
    orphan_records: int = 0
    """PBN records without a journal line, or repeated, dropped."""
    session: SessionHeader | None = None
    """The session's parameters from the journal's header line (None: an older journal)."""

    @property
    def boards(self) -> int:
        return sum(len(b) for b in self.done.values())


def prepare(out_dir: str | Path) -> Resumed:
    """Repair ``DIR/journal.jsonl`` and ``DIR/boards.pbn`` after a kill; return what is done.

    A missing directory or journal means nothing is done yet. A journal line that is complete
    (ends with a newline) but is not a journal record is not a kill's doing: ``ResumeError``.
    """
    out = Path(out_dir)
    found = Resumed()
    journal = out / "journal.jsonl"
    if not journal.exists():
        return found
    keep: list[bytes] = []
    played: set[tuple[int, int]] = set()
    lines = journal.read_bytes().split(b"\n")
    for number, raw in enumerate(lines[:-1], start=1):  # lines[-1] has no newline
        try:
            line = parse_line(JOURNAL_LINE, raw, journal, number)
        except JournalError as exc:
            raise ResumeError(str(exc)) from None
        if isinstance(line, SessionLine):
            if number != 1:
                raise ResumeError(f"{journal}:{number}: a session header after the first line")
            found.session = line.session
            keep.append(raw + b"\n")
            continue
        key = (line.table, line.board)
        if key[1] in found.done.get(key[0], set()):
            continue  # a board journaled twice (not written by us); keep the first
        found.done.setdefault(key[0], set()).add(key[1])
        if line.aborted is None:
            played.add(key)
        keep.append(raw + b"\n")
    if lines[-1].strip():
        found.torn_lines = 1
    if found.torn_lines:
        _replace(journal, b"".join(keep))
    pbn = out / "boards.pbn"
    if pbn.exists():
        text, dropped = _filter_pbn(pbn.read_text(encoding="utf-8"), played)
        if dropped:
            found.orphan_records = dropped
            _replace(pbn, text.encode("utf-8"))
    return found


def check_fresh(out_dir: str | Path) -> None:
    """Refuse to start a session in a folder that holds one (its journal has a line): without
    ``--resume`` its boards would be played again and appended after the first session's
    (issue 62: boards 1-13, then 1-5). ``ResumeError`` names the journal and ``--resume``."""
    journal = Path(out_dir) / "journal.jsonl"
    if journal.is_file() and journal.stat().st_size > 0:
        raise ResumeError(f"{journal}: a session is already there; pass --resume or another --out")


def check_session(found: Resumed, session: SessionHeader, journal: str | Path) -> None:
    """Refuse to resume a session with different parameters (it would mix two sessions in one
    journal); ``ResumeError`` names each difference. An older journal without a header passes."""
    if found.session is None:
        return
    was, now = found.session.model_dump(), session.model_dump()
    diffs = [
        f"{key} {was[key]!r} in the journal, {now[key]!r} now"
        for key in now
        if was[key] != now[key]
    ]
    if diffs:
        raise ResumeError(f"{journal}: cannot resume a different session: " + "; ".join(diffs))


def remaining(found: Resumed, boards: Iterable[int], tables: int) -> int:
    """How many (table, board) pairs are still to play."""
    numbers = list(boards)
    return sum(n not in found.done.get(t, set()) for t in range(1, tables + 1) for n in numbers)


def _filter_pbn(text: str, played: set[tuple[int, int]]) -> tuple[str, int]:
    """Keep the header and the first record of each journaled, played board."""
    chunks = [c for c in re.split(r"\n\s*\n", text) if c.strip()]
    seen: set[tuple[int, int]] = set()
    header: list[str] = []  # "% PBN 2.1" lines, written just above the first record
    kept: list[str] = []
    dropped = 0
    for chunk in chunks:
        lines = chunk.splitlines()
        while lines and lines[0].startswith("%"):
            header.append(lines.pop(0))
        chunk = "\n".join(lines)
        board = _BOARD_TAG.search(chunk)
        if board is None:
            if chunk.strip():
                kept.append(chunk)
            continue
        table = _TABLE_TAG.search(chunk)
        key = (int(table.group(1)) if table else 1, int(board.group(1)))
        if key in played and key not in seen:
            seen.add(key)
            kept.append(chunk)
        else:
            dropped += 1
    body = "".join(c.rstrip("\n") + "\n\n" for c in kept)
    return ("\n".join(header) + "\n" if header else "") + body, dropped


def _replace(path: Path, data: bytes) -> None:
    write_bytes_file(path, data, sync=True)
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
