"""What identifies the agent a spec builds, beyond the spec's text: its settings and its policy.

The same spec text can mean two agents: ``search`` before and after its ``close_bids`` default
changed (docs/evaluation.md, run 26), or ``default`` before and after a new model shipped. Every
record that must not mix two agents (a match journal that ``--resume`` appends to, a benchmark's
journaled rows, a label file) keeps these marks beside the spec and compares them when it is
read again:

- :func:`settings`: every option as this code reads it, defaults included, with the model path
  (:meth:`AgentSpec.settings`);
- :func:`fingerprint`: the sha256 of the policy file the agent bids with (``default``,
  ``search``, ``policy``), None for an agent without one (``bfg``, ``epbot``, ``random``).

:func:`agent_marks` gives both as a match journal's :class:`tournament.records.AgentMarks`; the
command line hands it to the match runner (``args.agent_marks``), so ``tournament`` never
imports the composition root.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from bridgebot.core.files import file_sha256
from bridgebot.shipped import DEFAULT_MODEL_DIR
from bridgebot.specs import AgentSpec
from bridgebot.tournament.records import AgentMarks

#: The agents whose spec names a model directory (the shipped one where it names none).
MODEL_KINDS = ("default", "search", "policy")


def policy_file(spec: str) -> Path | None:
    """The policy file ``spec`` bids with: for ``default`` and ``search`` the shipped one unless
    a path is given; ``policy:DIR``: ``DIR/policy.onnx``; a path to a ``.onnx``: that file. None
    for an agent without one (bfg, epbot, random). Raises :class:`AgentSpecError` for a spec
    that does not parse."""
    return _policy_file(AgentSpec.parse(spec))


def fingerprint(spec: str) -> str | None:
    """The sha256 of ``spec``'s policy file (:func:`policy_file`), in hex; None where the agent
    has none or the file is missing (building the agent says which)."""
    return _fingerprint(AgentSpec.parse(spec))


def settings(spec: str) -> dict[str, Any]:
    """Every option of ``spec`` as this code reads it, defaults included, as JSON values
    (:meth:`AgentSpec.settings`). Raises :class:`AgentSpecError` for a spec that does not
    parse."""
    return AgentSpec.parse(spec).settings()


def settings_digest(spec: str) -> str:
    """The first 16 hex digits of the sha256 of :func:`settings` (keys sorted): a short mark for
    a journal row, equal for two specs exactly when every setting is."""
    text = json.dumps(settings(spec), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def agent_marks(spec: str) -> AgentMarks:
    """``spec``'s policy sha256 and settings, as a match journal's header records them for each
    side. Raises :class:`AgentSpecError` for a spec that does not parse."""
    parsed = AgentSpec.parse(spec)
    return AgentMarks(policy=_fingerprint(parsed), settings=parsed.settings())


def _policy_file(parsed: AgentSpec) -> Path | None:
    if parsed.name not in MODEL_KINDS:
        return None
    where = Path(parsed.path) if parsed.path else DEFAULT_MODEL_DIR
    return where if where.suffix == ".onnx" else where / "policy.onnx"


def _fingerprint(parsed: AgentSpec) -> str | None:
    path = _policy_file(parsed)
    return file_sha256(path) if path is not None and path.is_file() else None
