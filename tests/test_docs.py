"""The documentation is part of the repository's contract: every page and section the code cites
exists, nothing names a file outside the repository, the command line docs/design.md promises is
the one the parsers accept, and docs/data.md's example reads what ``bridgebot ddgen`` writes."""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
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
            continue  # a command shown by its modes alone
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


def readme_section(title: str) -> str:
    """The README's section under ``## title``, up to the next one."""
    return (ROOT / "README.md").read_text().split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


#: "printing +1.34 ± 0.75 IMPs/board" in the README; "+1.34 IMPs/board ± 0.75" from the match.
README_FIGURE = re.compile(r"printing ([+-]\d+\.\d\d) ± (\d+\.\d\d) IMPs/board")
PRINTED_FIGURE = re.compile(r": ([+-]\d+\.\d\d) IMPs/board ± (\d+\.\d\d) over ")


@pytest.mark.slow
def test_the_quick_start_prints_the_readmes_figure_and_writes_its_outputs(tmp_path: Path) -> None:
    """The README's first command (``bridgebot match --out out/match``, run as written but for
    the directory) prints the figure the README quotes, and writes the files the README lists.

    The match's double-dummy tables are put in its cache first (``dd_cache.npz``, where a
    repeated run finds them; tests/datafiles/quickstart-dd.npz is that file from a run of the
    command), so the test takes seconds instead of the 20 s of CPU the solver takes; two of its
    tables are solved again here, and a deal the file lacks would be solved by the command."""
    import shutil
    import sys

    from bridgebot.laws.cards import owners_pbn
    from bridgebot.tournament.ddtables import solve_dd

    section = readme_section("Two commands")
    line = next(ln for ln in section.splitlines() if "bridgebot match" in ln)
    argv = line.split("bridgebot ", 1)[1].split()
    assert argv[argv.index("--out") + 1] == "out/match"
    out = tmp_path / "out" / "match"
    out.mkdir(parents=True)
    cache = ROOT / "tests" / "datafiles" / "quickstart-dd.npz"
    with np.load(cache) as z:
        for row in (0, 63):
            assert (solve_dd(owners_pbn(z["owners"][row])) == z["dd"][row]).all()
    shutil.copy(cache, out / "dd_cache.npz")
    proc = subprocess.run(
        [sys.executable, "-m", "bridgebot", *argv],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    printed = PRINTED_FIGURE.search(proc.stdout)
    quoted = README_FIGURE.search(" ".join(section.split()))
    assert printed is not None and quoted is not None, proc.stdout
    assert quoted.groups() == printed.groups()
    written = {p.name for p in out.iterdir()}
    paragraph = section.split("It prints", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"`(?:out/match/)?([\w-]+\.\w+)`", paragraph))
    assert written == listed


def test_the_readmes_explain_example_is_what_explain_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The Outputs section's ``explain`` line is the last line the command it names prints."""
    from bridgebot.cli import main

    text = " ".join(readme_section("Outputs").split())
    example = re.search(
        r"e\.g\. `(2C: [^`]+)` \(the last line `bridgebot explain \"([^\"]+)\"`", text
    )
    assert example is not None
    assert main(["explain", example.group(2)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == example.group(1)


def _seat_alert(auction: list[str], call: str) -> str | None:
    """The alert ``bridgebot seat --agent default`` sends with ``call`` after ``auction`` on board
    1 (North deals, nobody vulnerable), with its default ``--alert-hands``."""
    from bridgebot.engine.agent import bidding_view
    from bridgebot.server.seat_cli import _alerter
    from endplay.types import Bid, Hand, Player, Vul

    from bridgebot.agents import make_agent

    (seat,) = [p for p in every_parser() if p.prog.split()[1:] == ["seat"]]
    hands = next(a.default for a in seat._actions if a.dest == "alert_hands")
    with make_agent("default", 0) as agent:
        alerter = _alerter(agent, hands)
        assert alerter is not None
        view = bidding_view(Player.north, Vul.none, Hand(), [Bid(c) for c in auction], 1)
        return alerter(view, Bid(call))


def test_the_readmes_alerts_are_what_our_seat_sends() -> None:
    """The alerts the README quotes are the ones the shipped ``default`` sends: the seat's
    example of an artificial call, and the play page's 4NT, an ask read from partner's answers
    (issue 62: the page still advertised control asking, which the shipped model no longer
    plays, and the seat's example was a raise, natural)."""
    from bridgebot.protocol.codec import Direction, parse
    from bridgebot.protocol.messages import CallMsg

    seat_text = " ".join(readme_section("Seat our bot at a table").split())
    example = re.search(r"after ([\w ]+), `(\w+ bids \w+ Alert\. [^`]+)`", seat_text)
    assert example is not None
    msg = parse(example.group(2), Direction.TO_TM)
    assert isinstance(msg, CallMsg) and msg.alert is not None
    assert _seat_alert(example.group(1).split(), str(msg.call)) == msg.alert

    play = " ".join(readme_section("Play against the bot").split())
    assert "Control ask" not in play and "controls" not in play
    ask = re.search(r"where its (\w+) is an ask .*?\(after ([\w ]+): `(Asks for [^`]+)`", play)
    assert ask is not None
    assert _seat_alert(ask.group(2).split(), ask.group(1)) == ask.group(3)


def test_the_readmes_victory_points_are_the_scales() -> None:
    """The tournament section's worked VPs are what ``laws.event_scoring`` gives."""
    from bridgebot.laws.event_scoring import victory_points

    text = " ".join(readme_section("Run a tournament").split())
    worked = re.search(
        r"A (\d+)-IMP win over (\d+) boards is ([\d.]+)-([\d.]+); (\d+) IMPs is ([\d.]+)-([\d.]+)",
        text,
    )
    assert worked is not None
    imps, boards, won, lost, imps2, won2, lost2 = worked.groups()
    assert victory_points(int(boards), int(imps), 0) == (float(won), float(lost))
    assert victory_points(int(boards), int(imps2), 0) == (float(won2), float(lost2))


def every_parser(parser: argparse.ArgumentParser | None = None) -> list[argparse.ArgumentParser]:
    """The command line's parser and every command's and mode's below it (``train doubles``)."""
    from bridgebot.cli import build_parser

    found = [build_parser() if parser is None else parser]
    for action in found[0]._actions:
        if isinstance(action, argparse._SubParsersAction):
            found += [q for p in action.choices.values() for q in every_parser(p)]
    return found


def test_every_commands_examples_keep_their_lines() -> None:
    """A command's ``--help`` examples are printed as written: a line continued with a single
    backslash inside the Python string runs two example lines into one (``match``'s Ray line)."""
    joined = [
        (p.prog, line)
        for p in every_parser()
        for line in (p.epilog or "").splitlines()
        if re.search(r"\S {3,}--", line)
    ]
    assert joined == []


def test_the_readmes_measurements_name_the_benchmark_that_made_them() -> None:
    """Each row of the README's "Measured" table names a benchmark or a command in its last
    column, and every benchmark the README names exists (a figure says what made it)."""
    text = (ROOT / "README.md").read_text()
    rows = [r for r in readme_section("Measured (2-core CPU, see `benchmarks/`)").splitlines()
            if r.startswith("| ") and not r.startswith("| what") and "---" not in r]  # fmt: skip
    assert len(rows) > 10
    unnamed = [
        r[:60] for r in rows if not re.search(r"bench_\w+\.py|bridgebot \w+", r.split(" | ")[-1])
    ]
    assert unnamed == []
    named = set(re.findall(r"\b(bench_\w+)\.py", text))
    assert "bench_play" in named
    assert sorted(n for n in named if not (ROOT / "benchmarks" / f"{n}.py").is_file()) == []
