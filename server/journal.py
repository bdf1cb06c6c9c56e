"""Journals: files of JSON lines, each line one pydantic record, each write flushed and fsynced.

The table manager's ``journal.jsonl`` (:mod:`server.records`) and a match's ``journal.jsonl``
(:mod:`tournament.journal`) are both such files: a header line, then one line per finished board.
Both are read here, through the models, so that a damaged line is reported with its file and line
number instead of surfacing later as a ``KeyError`` in a report.

A kill inside a write leaves at worst an unterminated last line: it is not a record (the board it
was writing is played again), so readers stop at the last newline and writers that append after a
resume first cut the file back to it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from bridgebot.core.errors import validation_fault
from pydantic import BaseModel, TypeAdapter, ValidationError

T = TypeVar("T")


class JournalError(ValueError):
    """A complete journal line that is not a record of this journal; names the file and line."""


@dataclass(frozen=True)
class JournalLines(Generic[T]):
    """The records of a journal file, each with its line number."""

    records: list[tuple[int, T]]
    good_bytes: int
    """Length of the file up to the end of its last complete line."""
    torn: bool
    """Whether an unterminated last line (a kill inside a write) was left out."""


def parse_line(
    adapter: TypeAdapter[T], raw: bytes, path: Path, number: int, context: Any = None
) -> T:
    """One journal line as a record; :class:`JournalError` names ``path:number`` and the fault.
    ``context`` goes to the models' validators (pydantic's validation context)."""
    try:
        return adapter.validate_json(raw, context=context)
    except ValidationError as exc:
        faults = validation_fault(exc, limit=3)
        raise JournalError(f"{path}:{number}: not a journal record ({faults})") from None


def read_lines(path: Path, adapter: TypeAdapter[T], context: Any = None) -> JournalLines[T]:
    """Every complete line of ``path`` as a record (blank lines skipped); a missing file is empty."""
    if not path.exists():
        return JournalLines([], 0, torn=False)
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    records = [
        (number, parse_line(adapter, raw, path, number, context))
        for number, raw in enumerate(data[:end].split(b"\n")[:-1], start=1)
        if raw.strip()
    ]
    return JournalLines(records, end, torn=bool(data[end:].strip()))


def record_line(record: BaseModel) -> bytes:
    """The journal line of ``record``: compact JSON, UTF-8, one newline."""
    return record.model_dump_json().encode() + b"\n"


class JournalWriter:
    """Appends records to a journal file; each is on disk (fsynced) when :meth:`append` returns."""

    def __init__(self, path: Path, keep_bytes: int | None = None) -> None:
        """``keep_bytes``: cut the file back to this length first (the end of its last complete
        line, :attr:`JournalLines.good_bytes`), so a torn line is not continued."""
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = path.open("ab")
        if keep_bytes is not None:
            self._file.truncate(keep_bytes)
            self._file.seek(0, os.SEEK_END)

    @property
    def empty(self) -> bool:
        return self._file.tell() == 0

    def append(self, record: BaseModel) -> None:
        self._file.write(record_line(record))
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()
