"""Every agent spec written in the README, docs/, docker/ and benchmarks/ parses (AgentSpec.parse
and its option checks; nothing is built, so no EPBot, model or deal file is needed), in the current
names: a renamed key is a failure here, and a removed key stands only in the section of
docs/evaluation.md that its error names (where its measurement stays)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bridgebot.engine.agent import AgentSpecError

from bridgebot.agents import AgentSpec, known_agents
from bridgebot.card_players import CARD_PLAYERS, named_card_player
from bridgebot.specs import kind_of

ROOT = Path(__file__).resolve().parents[1]
FLAGS = "agent|us|them|candidate|baseline|spec|opponents"
#: ``--us X``, ``--opponents "a;b"``, and compose's ``"--agent", "X"``.
FLAG = re.compile(rf"--({FLAGS})[ =](\"[^\"]*\"|'[^']*'|[^\s`\"')\]]+)")
LISTED = re.compile(rf"\"--({FLAGS})\",\s*(\"[^\"]*\")")
#: A backticked spec with options: ``default,doubles=on``, ``policy:DIR,greedy=0``.
TICKED = re.compile(r"`([a-z]+(?::[^`,\s]*)?(?:,[a-z_]+=[^`,\s]*)+)`")
HEADING = re.compile(r"^#+ (.+)$", re.M)


def written_files() -> list[Path]:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    docker = sorted(p for p in (ROOT / "docker").rglob("*") if p.is_file())
    benchmarks = sorted(
        p
        for p in (ROOT / "benchmarks").rglob("*")
        if p.is_file() and p.suffix in {".py", ".md", ".toml", ".sh", ".txt"}
    )
    return docs + docker + benchmarks


def specs_in(text: str) -> list[tuple[int, str]]:
    """(offset, spec) of every agent spec in ``text``: the values of the spec flags (each part of
    ``--opponents "a;b"``) and backticked specs with options, less shell and format
    placeholders and prose (a value whose head is no agent and that has no path or option)."""
    text = re.sub(r"\\\n\s*", " ", text)  # a command continued over lines
    found: list[tuple[int, str]] = []
    for m in [*FLAG.finditer(text), *LISTED.finditer(text)]:
        value = m.group(2).strip("\"'") if m.group(2)[0] in "\"'" else m.group(2).rstrip(",.;:")
        parts = value.split(";") if m.group(1) == "opponents" else [value]
        found += [(m.start(), part.strip()) for part in parts]
    found += [(m.start(), m.group(1)) for m in TICKED.finditer(text)]
    agents = set(known_agents())
    return [
        (at, spec)
        for at, spec in found
        if spec
        and not set(spec) & set("${}()<>")
        and (re.split(r"[:,]", spec)[0] in agents or ("," in spec or ":" in spec))
        and spec != "..."
    ]


def section_at(text: str, offset: int) -> str | None:
    """The heading of the section of ``text`` that holds ``offset``."""
    before = [m.group(1) for m in HEADING.finditer(text, 0, offset)]
    return before[-1] if before else None


def problems(texts: dict[str, str]) -> list[str]:
    """What is wrong with the specs of ``texts`` (by file name), a line each."""
    out: list[str] = []
    for name, text in texts.items():
        flat = re.sub(r"\\\n\s*", " ", text)
        for at, spec in specs_in(text):
            if spec.split(",")[0] in set(CARD_PLAYERS) - set(known_agents()):
                out += card_player_problems(name, spec)
                continue
            try:
                AgentSpec.parse(spec)
            except AgentSpecError as e:
                where = re.search(r'docs/evaluation\.md, "(.+)"$', str(e))
                if not (
                    where
                    and name == "docs/evaluation.md"
                    and section_at(flat, at) == where.group(1)
                ):
                    out.append(f"{name}: {spec!r}: {e}")
                continue
            kind = kind_of(spec.split(",")[0].split(":")[0].lower())
            keys = [opt.partition("=")[0].strip() for opt in spec.split(",")[1:]]
            out += [
                f"{name}: {spec!r}: {key} is {kind.options.renamed[key]} now"
                for key in keys
                if key in kind.options.renamed
            ]
    return out


#: The card players whose spec builds nothing heavy (the Monte Carlo players load their models on
#: the first card); ``epbot-lead`` needs EPBot and ``bfg`` an outside package.
LIGHT_CARD_PLAYERS = ("pimc", "dd", "auction", "baseline")


def card_player_problems(name: str, spec: str) -> list[str]:
    """A card player's spec (``bench_cardplay.py --candidate auction,draw=distinct``) read as
    :func:`bridgebot.card_players.named_card_player` reads it: its names and keys checked."""
    if spec.split(",")[0] not in LIGHT_CARD_PLAYERS:
        return []
    try:
        named_card_player(spec, 0).close()
    except AgentSpecError as e:
        return [f"{name}: {spec!r}: {e}"]
    return []


def test_every_written_spec_parses() -> None:
    texts = {p.relative_to(ROOT).as_posix(): p.read_text(errors="replace") for p in written_files()}
    found = {spec for text in texts.values() for _, spec in specs_in(text)}
    assert len(found) > 50 and "default" in found and "bfg,doubles=on" in found
    assert problems(texts) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('bridgebot match --us "default,aces=on" --them bfg', ["default,aces=on", "bfg"]),
        ('--opponents "bfg;bfg,doubles=on"', ["bfg", "bfg,doubles=on"]),
        ('["seat", "--agent", "default"]', ["default"]),
        ("plays `search,slam=on`, not `search`", ["search,slam=on"]),
        ("--agent human --them $AGENT --us {spec} --opponents or", []),
    ],
)
def test_the_specs_are_found_where_they_are_written(text: str, expected: list[str]) -> None:
    assert [spec for _, spec in specs_in(text)] == expected


def test_a_card_players_spec_is_read_as_a_card_player() -> None:
    """``--candidate auction,draw=distinct`` names a card player (bench_cardplay's yardstick),
    checked by its own reader: a good one passes, a bad key is found."""
    good = "bench_cardplay.py --candidate auction,draw=distinct,lead_worlds=32 --reference pimc"
    assert problems({"notes.md": good}) == []
    (bad,) = problems({"notes.md": "--candidate auction,draw=sometimes"})
    assert "draw must be one of" in bad


def test_a_removed_key_outside_its_section_and_a_renamed_key_are_found() -> None:
    """The check fails on a planted spec of each kind, and lets a removed key stand in the
    section of docs/evaluation.md that keeps its measurement."""
    section = "### Ace asking (`aces=on`, `engine/aces.py`)\n\n"
    assert problems({"docs/evaluation.md": section + "`default,aces=on`"}) == []
    (removed,) = problems({"docs/evaluation.md": "### Elsewhere\n\n`default,aces=on`"})
    assert "option aces was removed" in removed
    (removed,) = problems({"README.md": section + "`default,aces=on`"})
    (renamed,) = problems({"docs/design.md": "`search,slam=on,particles=64`"})
    assert renamed.endswith("slam is slam_stage now"), renamed
