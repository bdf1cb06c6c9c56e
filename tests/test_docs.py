"""The documentation is part of the repository's contract: every page and section the code cites
exists, nothing names a file outside the repository, the command line docs/design.md promises is
the one the parsers accept, and docs/data.md's example reads what ``bridgebot ddgen`` writes."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

THIS = Path(__file__).resolve()
ROOT = THIS.parents[1]
DOCS = ROOT / "docs"


def tracked_texts() -> dict[str, str]:
    """Every tracked text file of the repository but this one (which spells out the patterns it
    looks for), by its repository path."""
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    texts = {}
    for name in names:
        path = ROOT / name
        if path.suffix in {".onnx", ".npz", ".png"} or not path.is_file() or path == THIS:
            continue
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    return tracked_texts()


def headings(page: Path) -> list[str]:
    return [line.lstrip("#").strip() for line in page.read_text().splitlines() if line[:1] == "#"]


def test_every_page_the_repository_names_exists(texts: dict[str, str]) -> None:
    named = {(m, f) for f, t in texts.items() for m in re.findall(r"\bdocs/[\w-]+\.md\b", t)}
    missing = sorted((page, f) for page, f in named if not (ROOT / page).is_file())
    assert missing == []
    # Relative links between the pages, and from the README into them.
    pages = [*DOCS.glob("*.md"), ROOT / "README.md"]
    broken = [
        (page.name, link)
        for page in pages
        for link in re.findall(r"\]\(([\w./-]+\.md)(?:#[\w-]*)?\)", page.read_text())
        if not (page.parent / link).is_file()
    ]
    assert broken == []


#: "docs/protocol.md 2.8", "docs/protocol.md section 6.1", "docs/protocol.md's section 6",
#: "docs/protocol.md sections 2-5", "docs/protocol.md §4", "docs/protocol.md 2.1 #2".
NUMBERED = re.compile(
    r"docs/protocol\.md(?:'s)?,? (?:sections? |§ ?)?(\d+(?:\.\d+)?)(?:-(\d+)| #(\d+))?"
)
#: docs/protocol.md, "the one rule"
TITLED = re.compile(r'docs/protocol\.md, "([^"]+)"')


def protocol_sections() -> dict[str, str]:
    """Section number ("2", "2.1") -> its text, up to the next heading."""
    parts = re.split(
        r"^#{2,3} (\d+(?:\.\d+)?)\.? .*$", (DOCS / "protocol.md").read_text(), flags=re.M
    )
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_every_protocol_section_the_code_cites_exists(texts: dict[str, str]) -> None:
    sections = protocol_sections()
    titles = headings(DOCS / "protocol.md")
    assert {"2.1", "2.8", "3.1", "6.1", "6.2", "7"} <= set(sections)
    missing: set[tuple[str, str]] = set()
    for name, text in texts.items():
        for m in NUMBERED.finditer(text):
            first, last, item = m.groups()
            cited = {first, *map(str, range(int(first), int(last) + 1))} if last else {first}
            missing |= {(s, name) for s in cited if s not in sections}
            # "2.1 #2": the second numbered item of section 2.1
            if item and not re.search(rf"^{item}\. ", sections.get(first, ""), flags=re.M):
                missing.add((f"{first} #{item}", name))
        for m in TITLED.finditer(text):
            if not any(m.group(1).lower() in title.lower() for title in titles):
                missing.add((m.group(1), name))
    assert sorted(missing) == []


#: The shapes in which a path outside the repository was once written: the development
#: machine's shared folder, and the reference papers by their file number there.
OUTSIDE = re.compile(
    r"\.\./shared|/shared/(?:data|seeds)|\"shared\" / \"data\"|\bseeds files? 00\d"
)


#: The one exception: CI points the epbot agent's tests at EPBot where the machine has it.
EPBOT_LINE = (
    ".ci/run",
    'if [ -d ../shared/epbot ]; then export BRIDGEBOT_EPBOT="$(cd ../shared/epbot && pwd)"; fi',
)


def test_no_tracked_file_points_outside_the_repository(texts: dict[str, str]) -> None:
    hits = [
        (name, line)
        for name, text in texts.items()
        for line in text.splitlines()
        if OUTSIDE.search(line) and (name, line) != EPBOT_LINE
    ]
    assert hits == []
    assert EPBOT_LINE[1] in texts[EPBOT_LINE[0]].splitlines()


def design_command_lines() -> dict[str, list[str]]:
    """``bridgebot COMMAND`` -> the options docs/design.md shows for it."""
    text = (DOCS / "design.md").read_text()
    section = text.split("## Command line", 1)[1]
    block = section.split("```", 2)[1]
    shown: dict[str, list[str]] = {}
    options: list[str] = []
    for line in block.splitlines():
        words = line.split()
        if words[:1] == ["bridgebot"]:
            options = shown.setdefault(words[1], [])
        options += re.findall(r"(?<![\w-])--[a-z][a-z-]*", line)
    return shown


def test_the_command_line_in_design_md_is_the_one_the_parsers_accept() -> None:
    from bridgebot.cli import COMMANDS, build_parser

    shown = design_command_lines()
    assert sorted(shown) == sorted(COMMANDS)  # every command is in the picture, nothing else
    for command, options in shown.items():
        if not options:
            continue  # `train` shows its modes only (its parser imports torch)
        parser = build_parser(only=command)
        (sub,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parsers = [sub.choices[command]]
        for action in sub.choices[command]._actions:  # `conform tm|seat`: the options of both
            if isinstance(action, argparse._SubParsersAction):
                parsers += list(action.choices.values())
        accepted = {o for p in parsers for a in p._actions for o in a.option_strings}
        assert sorted(set(options) - accepted) == [], command


def test_the_data_format_example_reads_a_file_ddgen_writes(tmp_path: Path) -> None:
    """docs/data.md's reading example, run on a real ``ddgen`` file, gives the deal the project
    writes, and the table's axes are the ones the page describes (declarer N, E, S, W; strain C,
    D, H, S, NT): each entry is what the double-dummy solver gives for that deal."""
    from bridgebot.laws.cards import owners_pbn
    from bridgebot.models.ddgen import generate
    from endplay.dds import calc_dd_table
    from endplay.types import Deal, Denom, Player

    path = tmp_path / "dd.npz"
    generate(path, count=1, seed=5, workers=1, progress=False)
    text = (DOCS / "data.md").read_text()
    (snippet,) = (b for b in text.split("```python")[1:] if "def deal_pbn" in b)
    scope: dict[str, Any] = {}
    exec(snippet.split("```")[0].replace('"data/dd.npz"', repr(str(path))), scope)

    owners, dd, deal_pbn = scope["owners"], scope["dd"], scope["deal_pbn"]
    assert deal_pbn(0) == owners_pbn(owners[0])
    table = calc_dd_table(Deal(deal_pbn(0)))
    strains = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)
    for d, player in enumerate(Player):
        for s, denom in enumerate(strains):
            assert dd[0, d, s] == table[denom, player]
