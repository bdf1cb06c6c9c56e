"""Writing a file so that a crash leaves the old one or the new one, never half of either.

Why in ``laws``: every part writes records this way (model cards, journals' repairs, standings,
deal caches, data files, checkpoints), and ``laws`` is the one package every part imports.
"""

from __future__ import annotations

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
