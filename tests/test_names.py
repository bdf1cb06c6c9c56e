"""Names say what they hold: the names the vocabulary review found meaning two or three unrelated
things (issue 42) now mean one each.

``BoardResult`` was both what one table did on a board (the protocol's, now ``TableResult``) and a
match's board with every room and the IMPs (``tournament.records``); ``TeachSet`` was both the
teacher file as read (``models.data``) and a run of ``teach`` accumulating it (now ``TeachRun``);
``events`` was the scoring of a field (``laws.event_scoring``), what a table manager tells its
observer (``server.table_events``) and, as ``event``, the tournament itself.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from tests.test_import_cycles import project_modules


def _classes() -> dict[str, list[str]]:
    """Class name -> the project modules that define one at their top level."""
    found: dict[str, list[str]] = defaultdict(list)
    for name, path in project_modules().items():
        for node in ast.parse(path.read_text(), str(path)).body:
            if isinstance(node, ast.ClassDef):
                found[node.name].append(name)
    return found


def test_each_reviewed_class_name_is_one_class() -> None:
    classes = _classes()
    assert classes["BoardResult"] == ["bridgebot.tournament.records"]
    assert classes["TableResult"] == ["bridgebot.protocol.table_board"]
    assert classes["TeachSet"] == ["bridgebot.models.data"]
    assert classes["TeachRun"] == ["bridgebot.models.teach"]


def test_no_two_parts_name_a_module_events() -> None:
    """One module per meaning: no bare ``events`` module; the tournament keeps ``event``."""
    modules = project_modules()
    assert [m for m in modules if m.rpartition(".")[2] in ("events", "event")] == [
        "bridgebot.tournament.event"
    ]
    assert {"bridgebot.laws.event_scoring", "bridgebot.server.table_events"} <= set(modules)
