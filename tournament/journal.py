"""The match journal: one JSON line per finished board, written and synced before anything else.

The first line describes the match (:class:`tournament.records.MatchHeader`); every later line is
a board (:class:`tournament.records.BoardResult`). A match killed at any moment leaves at worst a
partial last line, which :func:`read_journal` drops (and :class:`Journal` truncates before
appending), so ``--resume`` replays nothing twice and loses no finished board. Lines are read
and written by :mod:`server.journal`, like the table manager's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from bridgebot.server.journal import JournalError, JournalWriter, read_lines
from bridgebot.tournament.records import BoardResult, MatchHeader, rebuilt_agents
from pydantic import Field, TypeAdapter

JOURNAL_LINE: TypeAdapter[MatchHeader | BoardResult] = TypeAdapter(
    Annotated[MatchHeader | BoardResult, Field(discriminator="type")]
)
"""A line of a match journal, told apart by its ``type``: ``match`` or ``board``."""


@dataclass(frozen=True)
class JournalContents:
    header: MatchHeader | None
    boards: list[BoardResult]
    good_bytes: int
    """Length of the file up to the end of its last complete line."""


def read_journal(path: Path) -> JournalContents:
    """Header and boards of a journal, validated; a partial (unterminated) last line is ignored.
    A line that is not a record is a :class:`JournalError` naming the file and line."""
    lines = read_lines(path, JOURNAL_LINE)
    header: MatchHeader | None = None
    boards: list[BoardResult] = []
    for number, line in lines.records:
        if isinstance(line, BoardResult):
            boards.append(line)
        elif header is not None:
            raise JournalError(f"{path}:{number}: a second match header")
        else:
            header = line
    return JournalContents(header, boards, lines.good_bytes)


class Journal:
    """Append-only writer; each record is flushed and fsynced before :meth:`write` returns.

    Opening an existing journal with ``resume`` checks its header against ``header``: another
    match (:meth:`MatchHeader.differences`), or the same specs building other agents (a new
    policy file, a changed default: :meth:`MatchHeader.agent_changes`), is a
    :class:`JournalError` that names what changed. A journal written before headers held the
    agents' marks resumes unchecked, and keeps its header line.
    """

    def __init__(self, path: Path, header: MatchHeader, resume: bool) -> None:
        self.path = path
        existing = read_journal(path)
        if existing.header is not None and not resume:
            raise JournalError(
                f"{path}: a journal is already there; pass --resume or another --out"
            )
        if existing.header is not None:
            mismatched = existing.header.differences(header)
            if mismatched:
                detail = ", ".join(
                    f"{k}: journal {a!r}, now {b!r}" for k, (a, b) in mismatched.items()
                )
                if "stream" in mismatched:
                    detail += "; its seeded boards were dealt by another generator: start anew"
                raise JournalError(f"{path}: cannot resume a different match ({detail})")
            changed = existing.header.agent_changes(header)
            if changed:
                raise JournalError(rebuilt_agents(path, changed, "its boards were bid"))
        self.done = existing.boards
        self._writer = JournalWriter(path, keep_bytes=existing.good_bytes)
        if existing.header is None:
            self._writer.append(header)

    def write(self, board: BoardResult) -> None:
        self._writer.append(board)

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
