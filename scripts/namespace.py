"""The installed ``bridgebot`` namespace of a checkout, as a tree of links.

The top-level folders install as ``bridgebot.protocol``, ``bridgebot.engine``, ... (pyproject's
package-dir mapping). Tools that must see the namespace without installing it (mypy in
``scripts/typecheck``; a baseline revision in ``benchmarks/bench_agent_cost.py``) link it from the
mapping in the checkout's own pyproject.toml, so the tree and the package cannot drift.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path


def namespace_tree(source: Path, tree: Path) -> dict[str, str]:
    """Link the packages of the checkout ``source`` into ``tree/bridgebot`` (made afresh);
    return {folder under ``tree/bridgebot`` ('' for ``bridgebot`` itself): the folder it links
    to, relative to ``source``}. Put ``tree`` on the import path to import that checkout."""
    mapping: dict[str, str] = tomllib.loads((source / "pyproject.toml").read_text())["tool"][
        "setuptools"
    ]["package-dir"]
    shutil.rmtree(tree, ignore_errors=True)
    top = tree / "bridgebot"
    top.mkdir(parents=True)
    for entry in sorted((source / mapping["bridgebot"]).iterdir()):
        if entry.suffix in (".py", ".typed"):
            (top / entry.name).symlink_to(entry)
    links = {"": mapping["bridgebot"]}
    for name, folder in mapping.items():
        parts = name.split(".")
        if len(parts) != 2:  # bridgebot itself, and data subpackages inside a linked folder
            continue
        (top / parts[1]).symlink_to(source / folder, target_is_directory=True)
        links[parts[1]] = folder
    return links
