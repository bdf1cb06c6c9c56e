"""Files every part writes and reads: a write that a crash leaves old or new, never half of
either; a file's sha256; and a recorder of the files (and packages) code reads, by which an
agent's marks see everything its builder read (:func:`recording_reads`).

Why in ``core``: every part writes records this way (model cards, journals' repairs, standings,
deal caches, data files, checkpoints) and names a file by its digest (data sets, marks), and
``core`` is the one package every part imports.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path


def replace_file(path: str | Path, write: Callable[[Path], object], sync: bool = False) -> None:
    """Call ``write`` on a temporary file beside ``path``, then rename it over ``path``.

    The temporary name keeps ``path``'s suffix (``x.npz.tmp.npz``), so writers that add one
    (numpy's ``savez``) write where they are told. ``sync`` flushes it to disk first, for
    records that must survive a power cut, not only a kill."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp" + p.suffix)
    write(tmp)
    if sync:
        with tmp.open("rb+") as f:
            os.fsync(f.fileno())
    os.replace(tmp, p)


def write_text_file(path: str | Path, text: str, sync: bool = False) -> None:
    """:func:`replace_file` for a text file (UTF-8)."""
    replace_file(path, lambda tmp: tmp.write_text(text, encoding="utf-8"), sync)


def write_bytes_file(path: str | Path, data: bytes, sync: bool = False) -> None:
    """:func:`replace_file` for bytes."""
    replace_file(path, lambda tmp: tmp.write_bytes(data), sync)


def file_sha256(path: str | Path) -> str:
    """The sha256 of the file at ``path``, in hex, read in blocks; ``OSError`` where it cannot
    be read."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass
class Reads:
    """What code read while :func:`recording_reads` watched it: each file by its resolved path
    with the sha256 of the bytes read, and each package whose code decides by its version."""

    files: dict[Path, str] = field(default_factory=dict)
    packages: dict[str, str] = field(default_factory=dict)


_RECORDING: ContextVar[Reads | None] = ContextVar("bridgebot_reads", default=None)


@contextmanager
def recording_reads() -> Iterator[Reads]:
    """Collect, in the :class:`Reads` it yields, every file and package that the code run inside
    reports (:func:`note_read`, :func:`note_file`, :func:`note_package`): the marks of an agent
    are what its builder read (``bridgebot.marks``). Recorders do not nest: an inner one
    collects alone until it ends."""
    reads = Reads()
    token = _RECORDING.set(reads)
    try:
        yield reads
    finally:
        _RECORDING.reset(token)


def note_read(path: str | Path, data: bytes | None = None, *, sha256: str | None = None) -> None:
    """Report that ``path`` was read: ``data``, the bytes read (hashed only while a recorder
    watches), or their ``sha256`` where the reader has it already. Every reader of a file that
    decides what an agent does reports it, a cached read too, so that the recorder sees it."""
    reads = _RECORDING.get()
    if reads is None:
        return
    if sha256 is None:
        sha256 = hashlib.sha256(b"" if data is None else data).hexdigest()
    reads.files[Path(path).resolve()] = sha256


def note_file(path: str | Path) -> None:
    """Report a file that is read outside Python (a native library loaded by ``ctypes``): while
    a recorder watches, its sha256 is read now."""
    if _RECORDING.get() is not None:
        note_read(path, sha256=file_sha256(path))


def note_package(name: str, version: str) -> None:
    """Report a package whose code decides (``bfgbidding``), at ``version``."""
    reads = _RECORDING.get()
    if reads is not None:
        reads.packages[name] = version
