"""Imports point one way (docs/design.md, "Dependency direction"), and the bans hold: no torch
outside ``models``, neither asyncio nor onnxruntime in ``protocol``. Every import counts,
function-local ones too, and so does a module named by a string (the commands of
``bridgebot/cli.py``'s table, loaded by importlib): the graph of ``tests/test_import_cycles.py``.

The cycle test alone let an upward import through as long as nothing imported back; this one
names the part each module belongs to and the parts it may import.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_cycles import imports, project_modules

#: Each part -> the parts it may import (besides itself): the diagram of docs/design.md, edge for
#: edge. ``bridgebot`` (the composition root) may import anything; a module it names (a command)
#: keeps the rules of the part it lives in.
MAY_IMPORT: dict[str, frozenset[str]] = {
    "core": frozenset(),
    "laws": frozenset({"core"}),
    "protocol": frozenset({"core", "laws"}),
    "engine": frozenset({"core", "laws"}),
    "server": frozenset({"core", "laws", "protocol", "engine"}),
    # The conformance kit reads the protocol on its own: framing and the laws, no machine of ours.
    "conform": frozenset({"core", "laws", "protocol"}),
    "tournament": frozenset({"core", "laws", "protocol", "engine", "server"}),
    "models": frozenset({"core", "laws", "engine"}),
}
#: Outside packages a part must never import, anywhere in it: part -> banned top-level names.
BANNED: dict[str, frozenset[str]] = {
    "core": frozenset({"torch", "asyncio", "onnxruntime"}),
    "laws": frozenset({"torch", "asyncio", "onnxruntime"}),
    "protocol": frozenset({"torch", "asyncio", "onnxruntime"}),
    "engine": frozenset({"torch", "asyncio"}),
    "server": frozenset({"torch"}),
    "conform": frozenset({"torch", "onnxruntime"}),
    "tournament": frozenset({"torch"}),
    "bridgebot": frozenset({"torch"}),
}


def part_of(module: str) -> str:
    """``bridgebot.engine.search`` -> ``engine``; the root's own modules -> ``bridgebot``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in MAY_IMPORT else "bridgebot"


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a part it may not import, as ``importer -> imported``."""
    bad = []
    for name, targets in sorted(graph.items()):
        part = part_of(name)
        if part == "bridgebot":
            continue
        for target in sorted(targets):
            other = part_of(target)
            if other != part and other not in MAY_IMPORT[part]:
                bad.append(f"{name} -> {target}")
    return bad


def outside_imports(path: Path) -> set[str]:
    """The top-level names of every package ``path`` imports, anywhere in it."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.partition(".")[0])
    return found


def banned(modules: dict[str, Path]) -> list[str]:
    bad = []
    for name, path in sorted(modules.items()):
        for package in sorted(outside_imports(path) & BANNED.get(part_of(name), frozenset())):
            bad.append(f"{name} imports {package}")
    return bad


def _graph() -> tuple[dict[str, Path], dict[str, set[str]]]:
    modules = project_modules()
    return modules, {name: imports(path, name, set(modules)) for name, path in modules.items()}


def test_imports_point_down_and_the_bans_hold() -> None:
    modules, graph = _graph()
    assert upward(graph) == [], "imports against the direction of docs/design.md"
    assert banned(modules) == []


def test_a_planted_upward_import_or_banned_package_is_found(tmp_path: Path) -> None:
    """The checks above can fail: an engine module that imports the tournament inside a
    function, and a protocol module that imports asyncio, are both reported."""
    modules, graph = _graph()
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import numpy\n\n\ndef helper():\n"
        "    from bridgebot.tournament.match import run_match\n\n"
        "    import asyncio\n\n    return run_match, asyncio\n"
    )
    graph["bridgebot.engine.planted"] = imports(planted, "bridgebot.engine.planted", set(modules))
    assert upward(graph) == ["bridgebot.engine.planted -> bridgebot.tournament.match"]
    assert banned({**modules, "bridgebot.protocol.planted": planted}) == [
        "bridgebot.protocol.planted imports asyncio"
    ]
    assert banned({**modules, "bridgebot.engine.planted": planted}) == [
        "bridgebot.engine.planted imports asyncio"
    ]


def test_a_planted_upward_import_from_models_is_found(tmp_path: Path) -> None:
    """``models`` sits on ``engine`` only: a trainer that imports the tournament's match or the
    server's logs (as it once did for its evaluation and progress bars) is reported."""
    modules, graph = _graph()
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from bridgebot.engine.agent import Agent\n"
        "from bridgebot.server.seat import SeatClient\n\n\n"
        "def evaluate():\n    from bridgebot.tournament.ddmatch import run_dd_match\n\n"
        "    return Agent, SeatClient, run_dd_match\n"
    )
    graph["bridgebot.models.planted"] = imports(planted, "bridgebot.models.planted", set(modules))
    assert upward(graph) == [
        "bridgebot.models.planted -> bridgebot.server.seat",
        "bridgebot.models.planted -> bridgebot.tournament.ddmatch",
    ]


def test_the_commands_named_in_the_cli_are_edges_of_the_graph() -> None:
    """Every module ``bridgebot/cli.py`` names in its command table (loaded by importlib) is an
    edge of the root in the graph, so the checks above reach it: each is a project module, and
    each keeps the rules of the part it lives in."""
    from bridgebot.cli import COMMANDS

    modules, graph = _graph()
    named = set(COMMANDS.values())
    assert named <= set(modules), "a command names no module of the project"
    assert named <= graph["bridgebot.cli"]
    reached = {part_of(m) for m in named}
    assert reached >= {"server", "conform", "tournament", "models"}
    bad = [line for line in upward(graph) if line.split(" -> ")[0] in named]
    assert bad == []


def test_a_module_named_by_a_string_is_checked_as_an_import(tmp_path: Path) -> None:
    """A string naming a module counts as importing it: a command table in ``engine`` that names
    a tournament command is an upward edge; the root naming a models command is not, but that
    command's own upward import is still reported."""
    modules, graph = _graph()
    table = tmp_path / "table.py"
    table.write_text(
        'COMMANDS = {"match": "bridgebot.tournament.match_cli", "log": "bridgebot.core.logs"}\n'
    )
    command = tmp_path / "command.py"
    command.write_text("from bridgebot.tournament.match import run_match\n")
    known = {*modules, "bridgebot.models.planted_cli"}
    graph["bridgebot.engine.planted"] = imports(table, "bridgebot.engine.planted", known)
    assert graph["bridgebot.engine.planted"] == {
        "bridgebot.tournament.match_cli",
        "bridgebot.core.logs",
    }
    table.write_text('COMMANDS = {"train": "bridgebot.models.planted_cli"}\n')
    graph["bridgebot.planted"] = imports(table, "bridgebot.planted", known)
    graph["bridgebot.models.planted_cli"] = imports(command, "bridgebot.models.planted_cli", known)
    assert upward(graph) == [
        "bridgebot.engine.planted -> bridgebot.tournament.match_cli",
        "bridgebot.models.planted_cli -> bridgebot.tournament.match",
    ]
