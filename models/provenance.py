"""Where a model came from, as its card records it (no torch needed here).

:func:`data_record` names a data file by the command that regenerates it: ``bridgebot ddgen`` and
``bridgebot teach`` store their generator and seed in the file (its ``meta`` array), which is
enough to say how to make the same file again; a file without them is recorded with its size and
hash and an honest "unknown".
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from bridgebot.core.files import file_sha256
from bridgebot.engine.modelcard import DataSet
from bridgebot.models.datameta import DDGEN_VERSION, TEACH_VERSION, DataMeta, read_meta


def git_commit() -> str:
    """The checkout's HEAD, with ``+dirty`` when models/ or engine/ have uncommitted changes."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True, timeout=10
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "models", "engine"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
        return out.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def regenerate_command(name: str, meta: DataMeta | None, deals: int) -> str | None:
    """The ``bridgebot`` command that makes file ``name`` again from its stored ``meta``."""
    if meta is None:
        return None
    if meta.generator == DDGEN_VERSION:
        keep = f" --filter {meta.filter}" if meta.filter else ""
        return f"bridgebot ddgen --boards {deals} --seed {meta.seed}{keep} --out {name}"
    if meta.generator == TEACH_VERSION and meta.source == "random":
        teachers = f" --teacher {','.join(meta.teachers)}" if meta.teachers else ""
        return f"bridgebot teach --boards {deals} --seed {meta.seed}{teachers} --out {name}"
    return None


def ours(meta_json: str) -> bool:
    """Whether a file's meta claims to be ddgen's or teach's (a malformed one of ours is an error;
    another program's, whose generator is some other text, is recorded as it is)."""
    try:
        generator = json.loads(meta_json).get("generator")
    except (ValueError, AttributeError):
        return True  # not even a JSON object: read_meta names the fault
    return not isinstance(generator, str) or generator in (DDGEN_VERSION, TEACH_VERSION)


def data_record(path: str | Path) -> DataSet:
    """The card's record of a data file a trainer read: name, deals, regenerating command, hash."""
    p = Path(path)
    foreign = ""
    with np.load(p, allow_pickle=False) as z:
        deals = int(z["owners"].shape[0])
        if "meta" in z.files and not ours(str(z["meta"])):
            # Made by another program: its meta is kept verbatim, it names no bridgebot command.
            meta, foreign = None, f"; its meta, not ddgen's or teach's: {z['meta']}"
        else:
            meta = read_meta(p, z)
    command = regenerate_command(str(path), meta, deals)
    note = (
        ""
        if command
        else "the file does not say how it was made: its generating command is unknown" + foreign
    )
    return DataSet(
        name=str(path), deals=deals, regenerate=command, sha256=file_sha256(p), note=note
    )


def data_records(paths: Iterable[str | Path]) -> tuple[DataSet, ...]:
    return tuple(data_record(p) for p in paths)
