"""The model card: what a ``model.json`` promises about the ONNX network beside it.

Every model directory the engine serves (the bidding policy, the double-dummy estimator, the belief
net) holds one ``.onnx`` file and one ``model.json``. :class:`ModelCard` is that file's schema,
:func:`load_model` its one reader and :meth:`ModelCard.write` its one writer (the trainers in
``models`` call it; nothing here needs torch). A card says

- what the network computes: the feature layout it was trained on (a network fed features laid
  out differently bids nonsense without failing, so an unknown ``feature_version`` is refused),
  its output layout where it has one, and its one input and one output tensor;
- how it was made: :class:`Training`, the command, seed, configuration and data of the run, with
  the run it started from nested in ``init``; data files are :class:`DataSet` records naming the
  command that regenerates them, since the path a trainer was given means nothing elsewhere;
- what it measured (``metrics``) and that the ONNX graph computes what torch computed
  (:class:`Export`).

Example (the shipped estimator, shortened)::

    {"format": 2, "onnx": "ddnet.onnx", "feature_version": "ddnet-rows209-v1",
     "input": {"name": "rows", "shape": ["batch", 209]}, "output": {...},
     "training": {"kind": "ddnet", "command": "bridgebot train ddnet ...", "seed": 0,
                  "data": [{"name": "data/dd.npz", "deals": 33840, "regenerate": null, ...}]},
     "metrics": {"exact": 0.498, ...}, "export": {"parity_max_abs_diff": 9.5e-06, ...}}
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from bridgebot.core.errors import UserError, validation_fault
from bridgebot.core.files import note_read, write_text_file
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    SerializerFunctionWrapHandler,
    ValidationError,
    field_validator,
    model_serializer,
)

#: The card's file name inside a model directory.
CARD_FILE = "model.json"
#: The schema version :class:`ModelCard` reads and writes.
FORMAT: Literal[2] = 2


class ModelError(UserError):
    """A model directory that cannot be served; the message names the file and, for a card, the
    field at fault."""


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Tensor(_Record):
    """One ONNX input or output: its name and shape (``["batch", width]``)."""

    name: str
    shape: tuple[str | int, ...]
    dtype: str = "float32"


class DataSet(_Record):
    """A data file a model was trained on, named so that someone without the file can remake it."""

    name: str = Field(description="the path the trainer was given, e.g. data/dd_2026b.npz")
    deals: int | None = Field(default=None, description="deals in the file")
    regenerate: str | None = Field(
        default=None, description="the command that makes the same file again; null when unknown"
    )
    sha256: str | None = Field(default=None, description="of the file, when it was at hand")
    note: str = ""
    settings: dict[str, dict[str, JsonValue]] | None = Field(
        default=None,
        description="the agents that made the file, by role (a label file's spec and follow): "
        "every option as the code read it, defaults included, so that the regenerating command's "
        "spec text is read as it was meant after a default changes",
    )

    @model_serializer(mode="wrap")
    def _omit_unknown_settings(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``settings`` is written only where the file recorded them, so a record made before
        it existed reads and writes back byte for byte."""
        data: dict[str, Any] = handler(self)
        if data.get("settings") is None:
            data.pop("settings", None)
        return data


class Training(_Record):
    """How a network's weights were made: one trainer run."""

    kind: str = Field(description="imitation, selfplay, league, exploiter, ddnet, belief, doubles")
    command: str = ""
    seed: int | None = None
    data: tuple[DataSet, ...] = ()
    config: dict[str, JsonValue] = Field(
        default_factory=dict, description="the trainer's configuration, every field"
    )
    init: JsonValue = Field(
        default=None, description="the model the run started from: its own record, or a path"
    )
    teachers: tuple[str, ...] = Field(
        default=(), description="imitation: who bid the teacher auctions (bfg, epbot:CARD)"
    )
    opponents: tuple[str, ...] = Field(
        default=(),
        description="league: every opponent kind of the mix, and each EPBot card as epbot:CARD",
    )

    @model_serializer(mode="wrap")
    def _omit_empty_lists(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``teachers`` and ``opponents`` are written only where a run had them, so a record
        made before they existed reads and writes back byte for byte."""
        data: dict[str, Any] = handler(self)
        for key in ("teachers", "opponents"):
            if not data.get(key):
                data.pop(key, None)
        return data

    @field_validator("data", mode="before")
    @classmethod
    def _paths_are_data_sets(cls, value: object) -> object:
        """Checkpoints written before data sets were records name their files by path only."""
        if isinstance(value, str):
            value = [value]
        if isinstance(value, list | tuple):
            return [{"name": v} if isinstance(v, str) else v for v in value]
        return value


class Export(_Record):
    """The ONNX export and its parity check against torch on real inputs (``parity_*``)."""

    command: str = ""
    checkpoint: str | None = None
    git_commit: str = "unknown"
    torch: str | None = None
    onnxruntime: str | None = None
    parity_states: int | None = None
    parity_max_abs_diff: float | None = Field(
        default=None, description="largest |onnx - torch| logit gap; null when never checked"
    )
    parity_same_argmax: float | None = None
    parity_states_from: str | None = None


class ModelCard(_Record):
    """The schema of ``model.json``; :func:`load_model` reads it, :meth:`write` writes it."""

    format: Literal[2] = FORMAT
    onnx: str = Field(description="the network's file name, in the card's directory")
    feature_version: str
    output_version: str | None = None
    input: Tensor
    output: Tensor
    network: dict[str, JsonValue] = Field(default_factory=dict)
    training: Training
    metrics: dict[str, JsonValue] = Field(default_factory=dict)
    export: Export
    notes: dict[str, JsonValue] = Field(
        default_factory=dict, description="what else the model's makers wrote down"
    )

    def write(self, directory: str | Path) -> Path:
        """Write ``directory/model.json`` atomically (a crash leaves the old card or the new)."""
        path = Path(directory) / CARD_FILE
        write_text_file(path, self.model_dump_json(indent=2) + "\n")
        return path

    @classmethod
    def read(cls, path: str | Path) -> ModelCard:
        """Parse one card file, read once per process (:func:`read_model_file`; a card is
        frozen, so the one parsed is shared); every failure is a :class:`ModelError` naming
        file and field."""
        p = Path(path)
        try:
            file = read_model_file(p)
        except OSError as e:
            raise ModelError(f"{p}: cannot read the model card ({e.strerror})") from None
        try:
            return _cached(_CARDS, file.sha256, lambda: cls.model_validate_json(file.data))
        except ValidationError as e:
            raise ModelError(f"{p}: {validation_fault(e)}") from None


@dataclass(frozen=True)
class Expected:
    """What a reader needs of a model directory: its file, layouts and tensor widths."""

    onnx: str
    feature_versions: Collection[str]
    inputs: int
    outputs: int
    remedy: str
    output_version: str | None = None


@dataclass(frozen=True)
class ModelFiles:
    """A model directory that passed :func:`load_model`."""

    onnx_path: Path
    card_path: Path
    card: ModelCard


def load_model(path: str | Path, expected: Expected) -> ModelFiles:
    """Read and check the card of a model directory (or of an ``.onnx`` file beside its card).

    Refuses, naming the file and the field: a missing card or network, a card that is not this
    schema, a network for another file, a feature or output layout this build does not compute,
    and tensor widths other than the reader's.
    """
    p = Path(path)
    if p.is_file() and p.suffix == ".onnx":
        onnx_path, card_path = p, p.with_name(CARD_FILE)
    else:
        directory = p.parent if p.is_file() else p
        onnx_path, card_path = directory / expected.onnx, directory / CARD_FILE
    if not card_path.is_file():
        raise ModelError(f"{card_path}: no model.json beside the model")
    card = ModelCard.read(card_path)
    if card.onnx != onnx_path.name:
        raise ModelError(f"{card_path}: field onnx: {card.onnx!r} is not {onnx_path.name!r}")
    if not onnx_path.is_file():
        raise ModelError(f"{onnx_path}: model file not found")
    if card.feature_version not in expected.feature_versions:
        raise ModelError(
            f"{card_path}: field feature_version: feature version {card.feature_version!r} is not "
            f"one this build knows ({', '.join(sorted(expected.feature_versions))}); "
            f"{expected.remedy}"
        )
    if card.output_version != expected.output_version:
        raise ModelError(
            f"{card_path}: field output_version: output layout {card.output_version!r} is not "
            f"{expected.output_version!r}; {expected.remedy}"
        )
    widths = (card.input.shape[-1:], card.output.shape[-1:])
    if widths != ((expected.inputs,), (expected.outputs,)):
        raise ModelError(
            f"{card_path}: fields input.shape, output.shape: {list(card.input.shape)} -> "
            f"{list(card.output.shape)} do not match {expected.inputs} inputs -> "
            f"{expected.outputs} outputs"
        )
    return ModelFiles(onnx_path, card_path, card)


# -- each model file read once per process, each network's session made once --------------------

#: How many model files, parsed cards and sessions a process keeps (the least recently used goes
#: first): a match's agents read about ten files; a trainer that evaluates one checkpoint after
#: another keeps the latest ones only.
CACHE_SIZE = 32


@dataclass(frozen=True)
class ModelFile:
    """A model file as this process read it: its bytes, their sha256, and the file's identity
    when read (device, inode, size, modification and change times), by which a file replaced
    or rewritten since is read again."""

    path: Path
    identity: tuple[int, ...]
    data: bytes
    sha256: str


_LOCK = threading.RLock()
_FILES: OrderedDict[Path, ModelFile] = OrderedDict()
_CARDS: OrderedDict[str, ModelCard] = OrderedDict()
_SESSIONS: OrderedDict[tuple[str, int], Any] = OrderedDict()

T = TypeVar("T")


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _cached(cache: OrderedDict[Any, T], key: Hashable, make: Callable[[], T]) -> T:
    """``cache[key]``, made by ``make`` where missing; the least recently used entries beyond
    :data:`CACHE_SIZE` are dropped."""
    with _LOCK:
        if key in cache:
            cache.move_to_end(key)
            return cache[key]
        value = make()
        cache[key] = value
        while len(cache) > CACHE_SIZE:
            cache.popitem(last=False)
        return value


def read_model_file(path: str | Path) -> ModelFile:
    """The file at ``path`` (a network or a card), opened once per process while it stays the
    same file: a later call on an unchanged file returns the bytes read before. Every call
    reports the read (:func:`core.files.note_read`, with the sha256 of those bytes), so an
    agent's marks name each file its builder used, cached or not. ``OSError`` where it cannot be
    read."""
    p = Path(path).resolve()
    identity = _identity(os.stat(p))
    with _LOCK:
        found = _FILES.get(p)
        if found is None or found.identity != identity:
            with p.open("rb") as f:
                identity, data = _identity(os.fstat(f.fileno())), f.read()
            _FILES.pop(p, None)
            found = _cached(
                _FILES, p, lambda: ModelFile(p, identity, data, hashlib.sha256(data).hexdigest())
            )
        else:
            _FILES.move_to_end(p)
    note_read(p, sha256=found.sha256)
    return found


def forget_model_files() -> None:
    """Drop every file, card and session this process keeps (a forked child starts without
    them: an onnxruntime session is not safe across ``fork``)."""
    with _LOCK:
        _FILES.clear()
        _CARDS.clear()
        _SESSIONS.clear()


os.register_at_fork(after_in_child=forget_model_files)


def cpu_session_bytes(graph: bytes, threads: int = 1) -> Any:
    """An onnxruntime session, as :func:`cpu_session` makes, of a graph held in memory (a graph
    derived from a model file, :func:`engine.policy.hand_split_graph`); one per graph and
    ``threads`` in a process, shared by every caller."""
    key = (hashlib.sha256(graph).hexdigest(), threads)
    return _cached(_SESSIONS, key, lambda: _new_session(graph, threads))


def _new_session(graph: bytes, threads: int) -> Any:
    import onnxruntime as ort

    return ort.InferenceSession(
        graph, sess_options=_session_options(threads), providers=["CPUExecutionProvider"]
    )


def _session_options(threads: int) -> Any:
    """``threads`` intra-op threads, one inter-op thread, warnings off."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = max(1, threads)
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    return opts


def cpu_session(onnx_path: Path, threads: int = 1) -> Any:
    """An onnxruntime session of ``onnx_path`` on the CPU with ``threads`` intra-op threads (one
    inter-op thread, warnings off), made from the file's bytes as :func:`read_model_file` read
    them: one session per network and ``threads`` in a process, shared by every agent that
    runs it (a session's ``run`` may be called from several threads at once, and it keeps no
    state between runs). A file that cannot be read, or that onnxruntime cannot load, is a
    :class:`ModelError`."""
    try:
        file = read_model_file(onnx_path)
    except OSError as e:
        raise ModelError(f"{onnx_path}: cannot read the network ({e.strerror or e})") from None
    try:
        return _cached(_SESSIONS, (file.sha256, threads), lambda: _new_session(file.data, threads))
    except Exception as e:  # onnxruntime raises its own exception types
        raise ModelError(f"{onnx_path}: onnxruntime cannot load it ({e})") from e
