"""Independent check of protocol lines against table-master-parser, a third-party Blue Chip grammar.

table-master-parser (npm, 1.2.10; richardschneider) is the parser bridge-player is built on. It is
not our code and was not written from our reading of the spec, so a line it accepts is evidence
that a real peer can read it. Node runs once per batch (``check_lines``): feed it a whole session.

Use from tests::

    from tests.grammar_check import check_lines, unexpected_rejections
    assert unexpected_rejections(lines_we_sent) == []

If node or the package is missing this raises ``GrammarCheckUnavailable`` so the calling test fails
with the reason (CI installs both: ``npm install --prefix tests/grammar``); it never skips.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

GRAMMAR_DIR = Path(__file__).resolve().parent / "grammar"
CHECK_JS = GRAMMAR_DIR / "check.js"
PACKAGE_DIR = GRAMMAR_DIR / "node_modules" / "table-master-parser"


class GrammarCheckUnavailable(RuntimeError):
    """node or table-master-parser is not installed."""


@dataclass(frozen=True)
class KnownRejection:
    """A form that table-master-parser rejects although real peers use it, and why that is fine."""

    name: str
    pattern: re.Pattern[str]
    example: str
    why: str

    def matches(self, line: str) -> bool:
        return self.pattern.fullmatch(line) is not None


def _k(name: str, pattern: str, example: str, why: str) -> KnownRejection:
    return KnownRejection(name, re.compile(pattern, re.IGNORECASE), example, why)


#: Every form the parser is known to reject, each with the reason it is still right to send it.
KNOWN_REJECTED: list[KnownRejection] = [
    _k(
        "ready to start",
        r"(north|east|south|west) ready to start\.?",
        "North ready to start",
        "Parser bug: its readyToStart rule omits the word 'ready' (docs/protocol.md 7). The line is the "
        "spec's and every TM expects it; only matters when the parser is used on the TM side.",
    ),
    _k(
        "parenthesised seated",
        r'(north|east|south|west) \("[^"]*"\) seated',
        'North ("Bots") seated',
        "The spec's form and the one the ComputerBridge client needs; table-master-parser only "
        "takes the quoted/bare forms, which is why Dialect.seated exists (docs/protocol.md 2.1 #2).",
    ),
    _k(
        "spec Teams (full stop after N/S)",
        r'teams : n/s : "[^"]*"\. e/w : "[^"]*"(\. playing (imp|mp))?',
        'Teams : N/S : "A". E/W : "B"',
        "The v18 spec's literal form (Dialect.teams='spec'); the parser and Ben reject it, so it "
        "is never our default (docs/protocol.md 2.1 #4).",
    ),
    _k(
        "colonless Teams",
        r'teams: n/s "[^"]*" e/w "[^"]*"(\. playing (imp|mp))?',
        'Teams: N/S "north-south" E/W "east-west"',
        "OpenSpiel's form, accepted by WBridge5 (Dialect.teams='colonless'); only for WBridge5.",
    ),
    _k(
        "Illegal card",
        r"illegal card\.?",
        "Illegal card",
        "The spec's reply to an illegal card; the grammar has 'Illegal bid' but no 'Illegal card' "
        "(bridge-player throws on it, docs/protocol.md 4). A TM still must send it.",
    ),
    _k(
        "ANYPL connect",
        r'connecting "[^"]*" as anypl using protocol version \d+.*',
        'Connecting "WBridge5" as ANYPL using protocol version 18',
        "WBridge5's Autoconnect form; the grammar only knows the four seat names.",
    ),
    _k(
        "received dummy",
        r"(north|east|south|west) received dummy\.?",
        "North received dummy",
        "Abolished confirmation that GIB and bridge-player still send; the grammar dropped it, and "
        "a TM ignores it.",
    ),
    _k(
        "Dummy plays",
        r"dummy plays \S+(\..*)?",
        "Dummy plays 8C",
        "Spec form for declarer's dummy card; no peer sends it and we never do (we name the seat), "
        "but a TM accepts it. The grammar does not know it.",
    ),
    _k(
        "error text",
        r"(error|expected|unexpected|illegal hand|team name|seat was|seat already"
        r"|protocol version|disconnect)\b.*",
        "Seat was already taken",
        "Free-text refusals a TM sends before closing (ComputerBridge, bridge_env texts); they have "
        "no grammar by design.",
    ),
    _k(
        "bracketed Timing (OpenSpiel)",
        r"timing\b.*\[.*",
        (
            "Timing - N/S : this board  [1:15],  total  [0:11:23].  E/W :"
            " this board  [1:18],  total  [0:10:23]"
        ),
        "OpenSpiel's fake Timing line with bracketed times; informational only, never sent by us "
        "unless relaying a raw line.",
    ),
]


#: Lines the parser accepts but reads as something else (it matches a prefix and ignores the rest).
#: ``ready for dummy's card to trick N`` comes out as ``readyForDummy``: harmless for bridge-player,
#: which only uses the parser on what a TM sends, but a TM built on it would misread the line.
KNOWN_MISREAD: dict[str, str] = {
    "North ready for dummy's card to trick 3": "readyForDummy",
}


def known_rejection(line: str) -> KnownRejection | None:
    """The known-rejected form ``line`` has, if any."""
    norm = " ".join(line.split())
    for known in KNOWN_REJECTED:
        if known.matches(norm):
            return known
    return None


def _run(lines: list[str]) -> list[dict[str, object]]:
    node = shutil.which("node")
    if node is None:
        raise GrammarCheckUnavailable(
            "node is not on PATH: install Node.js (>= 18) to run the independent grammar check"
        )
    if not PACKAGE_DIR.is_dir():
        raise GrammarCheckUnavailable(
            f"table-master-parser is not installed under {PACKAGE_DIR.parent}: "
            "run `npm install --prefix tests/grammar`"
        )
    for line in lines:
        if "\n" in line or "\r" in line:
            raise ValueError(f"a line to check contains a terminator: {line!r}")
    proc = subprocess.run(
        [node, str(CHECK_JS)],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=GRAMMAR_DIR,
        timeout=120,
        check=False,
    )
    results = [json.loads(out) for out in proc.stdout.splitlines() if out.strip()]
    fatal = [r for r in results if "fatal" in r]
    if fatal or proc.returncode != 0:
        reason = fatal[0]["fatal"] if fatal else proc.stderr.strip()
        raise GrammarCheckUnavailable(f"check.js failed (exit {proc.returncode}): {reason}")
    if len(results) != len(lines):
        raise GrammarCheckUnavailable(
            f"check.js answered {len(results)} lines for {len(lines)}: {proc.stderr.strip()}"
        )
    return results


def check_lines(lines: list[str]) -> list[tuple[str, str | None]]:
    """(line, error-or-None) for each line, in order; one node process for the whole batch."""
    if not lines:
        return []
    return [
        (line, None if r["ok"] else str(r.get("error", "rejected")))
        for line, r in zip(lines, _run(lines), strict=True)
    ]


def parse_values(lines: list[str]) -> list[dict[str, object] | None]:
    """What the parser made of each line (its ``kind`` and fields), None where it rejected it."""
    out: list[dict[str, object] | None] = []
    for r in _run(lines):
        value = r.get("value") if r["ok"] else None
        out.append(value if isinstance(value, dict) else None)
    return out


def unexpected_rejections(lines: list[str]) -> list[tuple[str, str]]:
    """Lines the parser rejects that are not a known-rejected form: should be empty."""
    return [
        (line, error)
        for line, error in check_lines(lines)
        if error is not None and known_rejection(line) is None
    ]
