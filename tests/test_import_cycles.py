"""No import cycle among the project's modules: every import counts, function-local ones too.

A cycle hidden by a function-local import still means two modules that cannot be understood, tested
or moved apart. Importing ``a.b.c`` also runs the ``__init__`` of ``a.b`` (and of ``a``) where
that has not run yet: those edges count too, so a package that re-exports its modules closes a
cycle for whoever imports one of them from outside it. The project's folders install as ``bridgebot.<folder>`` (``engine/search/borel.py`` is
``bridgebot.engine.search.borel``); the top-level ``bridgebot/`` folder is ``bridgebot`` itself.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Folders installed into the namespace (pyproject's package-dir), by folder name; every module of
#: every one of them must be in no cycle.
FOLDERS = (
    "bridgebot",
    "core",
    "laws",
    "protocol",
    "engine",
    "server",
    "conform",
    "tournament",
    "models",
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    if parts[0] != "bridgebot":
        parts.insert(0, "bridgebot")
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


def imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The project modules ``path`` imports, anywhere in it (the innermost known module of each
    dotted name, so ``from bridgebot.engine import search`` names ``bridgebot.engine.search``,
    and ``from bridgebot.engine import Agent`` the package ``bridgebot.engine``), and the ones it
    names by a string (``"bridgebot.models.cli"``, as ``bridgebot/cli.py``'s command table names
    the modules it loads with importlib): a dotted string that is a project module's name."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if "." in node.value and node.value in modules and node.value != name:
                found.add(node.value)
            continue
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def edges(path: Path, name: str, modules: set[str]) -> set[str]:
    """What importing ``name`` runs: the modules it imports (:func:`imports`) and, with each, the
    packages above it whose ``__init__`` the import runs (:func:`packages_run`)."""
    found = imports(path, name, modules)
    return found.union(*(packages_run(target, name, modules) for target in found))


def packages_run(target: str, name: str, modules: set[str]) -> set[str]:
    """The project packages whose ``__init__`` importing ``target`` from ``name`` runs: those
    above ``target`` that are neither ``name`` nor above it."""
    parts = target.split(".")
    above = {".".join(parts[:k]) for k in range(1, len(parts))}
    return {p for p in above if p in modules and p != name and not name.startswith(p + ".")}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_hidden_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_an_imported_name_is_its_module_or_its_package(tmp_path: Path) -> None:
    path = tmp_path / "codec.py"
    path.write_text("from bridgebot.protocol import wire, parse\nfrom . import errors\n")
    known = {"bridgebot.protocol", "bridgebot.protocol.wire", "bridgebot.protocol.errors"}
    found = imports(path, "bridgebot.protocol.codec", known)
    assert found == {"bridgebot.protocol.wire", "bridgebot.protocol", "bridgebot.protocol.errors"}
    path.write_text("from bridgebot.protocol import wire\n")
    assert imports(path, "bridgebot.protocol.codec", known) == {"bridgebot.protocol.wire"}


def test_a_cycle_through_a_package_init_is_found(tmp_path: Path) -> None:
    """``other`` imports ``pkg.b``, which runs ``pkg/__init__``, which imports ``pkg.a``, which
    imports ``other``: no module imports another of the cycle by name but one."""
    files = {
        "pkg/__init__.py": "from pkg.a import x\n",
        "pkg/a.py": "import other\nx = 1\n",
        "pkg/b.py": "y = 2\n",
        "other.py": "def f():\n    from pkg.b import y\n    return y\n",
    }
    names = {
        "pkg/__init__.py": "pkg",
        "pkg/a.py": "pkg.a",
        "pkg/b.py": "pkg.b",
        "other.py": "other",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(exist_ok=True)
        (tmp_path / rel).write_text(text)
    modules = set(names.values())
    graph = {names[rel]: edges(tmp_path / rel, names[rel], modules) for rel in files}
    assert graph["other"] == {"pkg.b", "pkg"}  # the __init__ that importing pkg.b runs
    assert graph["pkg.a"] == {"other"}  # its own package has run before it: no edge
    assert cycles(graph) == [["other", "pkg", "pkg.a"]]
    (tmp_path / "pkg/__init__.py").write_text("")  # a package that re-exports nothing
    graph["pkg"] = edges(tmp_path / "pkg/__init__.py", "pkg", modules)
    assert cycles(graph) == []


#: The modules of card play: bidding (the policy agent, the search) imports none of them.
CARD_PLAY = ("bridgebot.engine.cardplay", "bridgebot.engine.worlds", "bridgebot.card_players")


def reached(graph: dict[str, set[str]], start: set[str]) -> set[str]:
    """Every module importing ``start`` runs, ``start`` included."""
    seen, todo = set(start), list(start)
    while todo:
        for nxt in graph[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def test_bidding_imports_nothing_of_card_play() -> None:
    """``engine.policy`` and the search take their card player from the composition root
    (``bridgebot/card_players.py``): neither reaches a module of card play, by any import."""
    modules = project_modules()
    graph = {name: edges(path, name, set(modules)) for name, path in modules.items()}
    bidding = {"bridgebot.engine.policy"} | {
        m for m in modules if m.startswith("bridgebot.engine.search")
    }
    play = {m for m in reached(graph, bidding) if m.startswith(CARD_PLAY)}
    assert play == set(), f"bidding imports card play: {sorted(play)}"
    # The check reaches through function-local imports and __init__ edges: it sees the card
    # player the composition root builds.
    assert "bridgebot.engine.cardplay" in reached(graph, {"bridgebot.learned"})


def test_no_import_cycle_in_the_project() -> None:
    modules = project_modules()
    assert "bridgebot.engine.search" in modules and "bridgebot.cli" in modules
    assert {m.split(".")[1] for m in modules if m.count(".")} >= set(FOLDERS) - {"bridgebot"}
    graph = {name: edges(path, name, set(modules)) for name, path in modules.items()}
    bad = cycles(graph)
    assert bad == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in bad)
