"""Files every part writes and reads: a write that a crash leaves old or new, never half of
either, and a file's sha256.

Why in ``core``: every part writes records this way (model cards, journals' repairs, standings,
deal caches, data files, checkpoints) and names a file by its digest (data sets, marks), and
``core`` is the one package every part imports.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
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
