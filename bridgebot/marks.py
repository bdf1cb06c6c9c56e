"""What identifies the agent a spec builds, beyond the spec's text: its settings and everything
its builder read.

The same spec text can mean two agents: ``search`` before and after its ``close_bids`` default
changed (docs/evaluation.md, run 26), ``default`` before and after a new model shipped, or after a
new opponent net, EPBot library or penalty-double model. Every record that must not mix two
agents (a match journal that ``--resume`` appends to, a benchmark's journaled rows, a label file)
keeps these marks beside the spec and compares them when it is read again:

- :func:`settings`: every option as this code reads it, defaults included, with the model path
  (:meth:`AgentSpec.settings`; a shipped file by its package's path, the same in every checkout);
- :func:`reads`: every file the builder read while it built the agent (each network and model
  card, EPBot's library and convention cards, the penalty-double model), each with the sha256
  of the bytes it read, and the packages whose code decides (bfg's), each with its version. They
  are recorded, not listed here: the agent is built under :func:`core.files.recording_reads`,
  to which every reader reports (``engine.modelcard.read_model_file`` and the others), so a file
  a new part of an agent reads is in its marks without a line here;
- :func:`fingerprint`: one digest of all those reads, for a benchmark's journal row.

:func:`agent_marks` gives them as a match journal's :class:`tournament.records.AgentMarks`; the
command line hands it to the match runner (``bridgebot.services.Services.agent_marks``), so
``tournament`` never imports the composition root.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from bridgebot.core.files import recording_reads
from bridgebot.shipped import DEFAULT_MODEL_DIR, record_name
from bridgebot.specs import AgentSpec
from bridgebot.tournament.records import AgentMarks

#: The agents whose spec names a model directory (the shipped one where it names none).
MODEL_KINDS = ("default", "search", "policy")


def policy_file(spec: str | AgentSpec) -> Path | None:
    """The policy file ``spec`` bids with: for ``default`` and ``search`` the shipped one unless
    a path is given; ``policy:DIR``: ``DIR/policy.onnx``; a path to a ``.onnx``: that file. None
    for an agent without one (bfg, epbot, random). Raises :class:`AgentSpecError` for a spec
    that does not parse."""
    parsed = _parsed(spec)
    if parsed.name not in MODEL_KINDS:
        return None
    where = Path(parsed.path) if parsed.path else DEFAULT_MODEL_DIR
    return where if where.suffix == ".onnx" else where / "policy.onnx"


def reads(spec: str | AgentSpec) -> tuple[dict[str, str], dict[str, str]]:
    """What ``spec``'s builder reads, as (files, packages): each file it read while it built the
    agent (seed 0, closed at once), by its record name (:func:`bridgebot.shipped.record_name`),
    with the sha256 of the bytes read; each package whose code decides, with its version; both
    sorted by name. Raises :class:`AgentSpecError` for a spec that does not build."""
    from bridgebot.agents import make_agent

    parsed = _parsed(spec)
    with recording_reads() as read:
        make_agent(parsed, 0).close()
    files = {record_name(path): sha for path, sha in read.files.items()}
    return dict(sorted(files.items())), dict(sorted(read.packages.items()))


def fingerprint(spec: str | AgentSpec) -> str | None:
    """The sha256, in hex, of everything ``spec``'s builder reads (:func:`reads`: each file's
    name and sha256, each package's version); None for an agent that reads nothing (random).
    Raises :class:`AgentSpecError` for a spec that does not build."""
    files, packages = reads(spec)
    if not files and not packages:
        return None
    text = json.dumps({"files": files, "packages": packages}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def settings(spec: str | AgentSpec) -> dict[str, Any]:
    """Every option of ``spec`` as this code reads it, defaults included, as JSON values
    (:meth:`AgentSpec.settings`), each that names a file or folder (the spec's ``path``; any
    absolute path, as a model directory's default is) by its record name
    (:func:`bridgebot.shipped.record_name`): a shipped model is named the same in every checkout
    and install, so a record made in one folder resumes, and a journaled row counts, in
    another. Raises :class:`AgentSpecError` for a spec that does not parse."""
    return {key: named_setting(key, value) for key, value in _parsed(spec).settings().items()}


def named_setting(key: str, value: Any) -> Any:
    """``value`` of the setting ``key`` as :func:`settings` records it: by its record name
    where it names a file or folder (``key`` is ``path``, or the value is an absolute path),
    else as it is. A record made before settings named files so reads the same through it,
    where the file is where it was."""
    names_a_file = isinstance(value, str) and (key == "path" or Path(value).is_absolute())
    return record_name(value) if names_a_file else value


def settings_digest(spec: str | AgentSpec) -> str:
    """The first 16 hex digits of the sha256 of :func:`settings` (keys sorted): a short mark for
    a journal row, equal for two specs exactly when every setting is."""
    text = json.dumps(settings(spec), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def agent_marks(spec: str | AgentSpec) -> AgentMarks:
    """``spec``'s marks, as a match journal's header records them for each side: its settings,
    what its builder reads (:func:`reads`) and, apart, its policy file's sha256. Raises
    :class:`AgentSpecError` for a spec that does not build."""
    parsed = _parsed(spec)
    files, packages = reads(parsed)
    policy = policy_file(parsed)
    return AgentMarks(
        policy=None if policy is None else files.get(record_name(policy)),
        settings=settings(parsed),
        files=files,
        packages=packages,
    )


def _parsed(spec: str | AgentSpec) -> AgentSpec:
    return spec if isinstance(spec, AgentSpec) else AgentSpec.parse(spec)
