"""The match journal: one JSON line per finished board, written and synced before anything else.

The first line describes the match (agents, format, scoring, deal source, seed); every later line is
a board record (``tournament.records.BoardResult``). A match killed at any moment leaves at worst a
partial last line, which :func:`read_journal` drops (and :class:`Journal` truncates before appending),
so ``--resume`` replays nothing twice and loses no finished board.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridgebot.tournament.records import BoardResult, RecordError

#: Header keys a resumed match may change: more boards extend the match (deal sets are prefixes).
EXTENDABLE = frozenset({"type", "boards"})


class JournalError(ValueError):
    """A journal that cannot be resumed: wrong match, or a damaged line (named by number)."""


@dataclass(frozen=True)
class JournalContents:
    header: dict[str, Any] | None
    boards: list[BoardResult]
    good_bytes: int
    """Length of the file up to the end of its last complete line."""


def read_journal(path: Path) -> JournalContents:
    """Header and boards of a journal; a partial (unterminated) last line is ignored."""
    if not path.exists():
        return JournalContents(None, [], 0)
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    header: dict[str, Any] | None = None
    boards: list[BoardResult] = []
    for number, raw in enumerate(data[:end].splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise JournalError(f"{path}:{number}: not JSON ({exc})") from exc
        kind = obj.get("type")
        if kind == "match":
            if header is not None:
                raise JournalError(f"{path}:{number}: a second match header")
            header = obj
        elif kind == "board":
            try:
                boards.append(BoardResult.from_json(obj))
            except RecordError as exc:
                raise JournalError(f"{path}:{number}: {exc}") from exc
        else:
            raise JournalError(f"{path}:{number}: unknown record type {kind!r}")
    return JournalContents(header, boards, end)


class Journal:
    """Append-only writer; each record is flushed and fsynced before :meth:`write` returns."""

    def __init__(self, path: Path, header: dict[str, Any], resume: bool) -> None:
        self.path = path
        existing = read_journal(path)
        if existing.header is not None and not resume:
            raise JournalError(
                f"{path}: a journal is already there; pass --resume or another --out"
            )
        if existing.header is not None and resume:
            mismatched = {
                k: (existing.header.get(k), v)
                for k, v in header.items()
                if k not in EXTENDABLE and existing.header.get(k) != v
            }
            if mismatched:
                detail = ", ".join(
                    f"{k}: journal {a!r}, now {b!r}" for k, (a, b) in mismatched.items()
                )
                raise JournalError(f"{path}: cannot resume a different match ({detail})")
        self.done = existing.boards
        path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(path, "ab")  # noqa: SIM115 - held for the whole match
        self._file.truncate(existing.good_bytes)
        if existing.header is None:
            self._append({"type": "match", **header})

    def _append(self, obj: dict[str, Any]) -> None:
        self._file.write(json.dumps(obj, ensure_ascii=False).encode() + b"\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def write(self, board: BoardResult) -> None:
        self._append(board.to_json())

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
