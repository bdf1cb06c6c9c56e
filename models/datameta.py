"""The ``meta`` of a data file: how ``bridgebot ddgen`` or ``bridgebot teach`` made it.

Beside its arrays, a file either command writes holds one string scalar ``meta``, a JSON object:
the generator (the command and its file version), the seed of the deal stream and the number of
deals; a teacher file adds where its deals came from, the teachers other than bfg (EPBot's
cards), the bfg or EPBot version that bid and the teachers' counts.
Generator, seed and source say which deals a file holds, so a rerun of the same command continues
the file only when they agree (:meth:`DataMeta.differs`), and with the count they name the command
that makes the file again (:mod:`models.provenance`). :class:`DataMeta` is the schema,
:func:`read_meta` its one reader and :meth:`DataMeta.array` its one writer::

    {"count": 42336, "generator": "ddgen-v1", "seed": 20261123}
    {"count": 2000, "filter": "slam", "generator": "ddgen-v1", "scanned": 14457, "seed": 5}
    {"bfg_version": "0.0.21", "calls": 25, "count": 3, "errors": 0, "fallbacks": 0,
     "generator": "teach-v1", "seed": 7, "source": "random"}

Keys the schema does not name are kept (``extra="allow"``): only programs write this JSON, so an
unknown key is another version's record, not a typo; it is read, and a resume that rewrites the file
writes it back. A file without ``meta`` (made elsewhere, docs/data.md) is read as having none.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from bridgebot.core.errors import validation_fault
from bridgebot.models.data import DataError
from numpy.lib.npyio import NpzFile
from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: The generators of this project's files (the command and its file version).
DDGEN_VERSION = "ddgen-v1"
TEACH_VERSION = "teach-v1"

#: The fields that say which deals a file holds: a run continues a file only if they agree.
IDENTITY = ("generator", "seed", "source", "filter", "teachers")


class DataMeta(BaseModel):
    """The ``meta`` JSON of a ddgen or teach file."""

    model_config = ConfigDict(frozen=True, extra="allow")

    generator: str = Field(description="ddgen-v1 or teach-v1: the command and its file version")
    seed: int = Field(description="the random-deal stream (--seed): deal k is (seed, k)")
    count: int = Field(ge=0, description="deals in the file")
    source: str | None = Field(
        default=None, description="teach: 'random', or 'deals:NAME:N' for the deals of a file"
    )
    bfg_version: str | None = Field(default=None, description="teach: the bfgbidding that bid")
    calls: int | None = Field(default=None, ge=0, description="teach: calls bfg was asked for")
    errors: int | None = Field(default=None, ge=0, description="teach: bfg's errors")
    fallbacks: int | None = Field(default=None, ge=0, description="teach: illegal bfg answers")
    teachers: tuple[str, ...] | None = Field(
        default=None,
        description="teach --teacher: the agents that bid, deal k by teachers[k % len] (the "
        "file's 'teacher' array); absent: bfg alone",
    )
    epbot_version: int | None = Field(default=None, description="teach: the EPBot that bid")
    filter: str | None = Field(
        default=None, description="ddgen --filter: the test every deal passed (models.dealfilter)"
    )
    scanned: int | None = Field(
        default=None, ge=0, description="ddgen --filter: stream deals examined to find the count"
    )

    def differs(self, run: DataMeta) -> tuple[str, object, object] | None:
        """The first field of :data:`IDENTITY` where this file and ``run`` differ, with this
        file's value and the run's; None when the run continues the file."""
        for key in IDENTITY:
            mine, theirs = getattr(self, key), getattr(run, key)
            if mine != theirs:
                return key, mine, theirs
        return None

    @property
    def maker(self) -> str:
        """The command that writes files of this generator (``ddgen``, ``teach``)."""
        return self.generator.rsplit("-", 1)[0]

    def array(self) -> np.str_:
        """The ``meta`` scalar to store: the fields given (never a default filled in), sorted."""
        return np.str_(json.dumps(self.model_dump(exclude_unset=True), sort_keys=True))


def teachers_of(path: str | Path) -> tuple[str, ...]:
    """Who bid the auctions of teacher file ``path``: its meta's teachers, ``("bfg",)`` for a
    file of ``teach`` that names none, ``()`` for a file that does not say."""
    with np.load(path, allow_pickle=False) as z:
        meta = read_meta(path, z)
    if meta is None or meta.generator != TEACH_VERSION:
        return ()
    return meta.teachers or ("bfg",)


def continued_meta(path: Path, z: NpzFile, run: DataMeta, error: type[Exception]) -> DataMeta:
    """The meta of ``z`` (the open npz file ``path``) that run ``run`` goes on from: the one
    resume check of ``ddgen`` and ``teach``. Raises ``error`` (the command's own
    :class:`core.errors.UserError`) naming the file where it has no meta or the run would
    continue another run's deals (:meth:`DataMeta.differs`), and :class:`DataError` for a meta
    that is not this schema."""
    meta = read_meta(path, z)
    if meta is None:
        raise error(f"{path}: has no 'meta', so it was not made by {run.maker}; cannot resume")
    difference = meta.differs(run)
    if difference:
        key, was, now = difference
        raise error(
            f"{path}: cannot continue, its {key} is {was!r}, this run's is {now!r} "
            "(use another --out)"
        )
    return meta


def read_meta(path: str | Path, z: NpzFile) -> DataMeta | None:
    """The meta of ``z`` (the open npz file ``path``); None when it has none. A meta that is not
    this schema is a :class:`DataError` naming the file and the field."""
    if "meta" not in z.files:
        return None
    try:
        return DataMeta.model_validate_json(str(z["meta"]))
    except ValidationError as e:
        raise DataError(f"{path}: array meta: {validation_fault(e)}") from None
