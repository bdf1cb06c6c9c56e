"""The rules the kit checks, what it found, and how that is shown and saved.

Every check has a stable rule name (``tm.card-relay``, ``seat.call-legal``), the section of
docs/protocol.md it comes from, and one line of meaning; docs/conformance.md lists the same
catalogue (a test keeps the two equal). A finding is ``pass``, ``fail`` (something a known peer
rejects, or the program went silent or could not be reached) or ``warn`` (a habit every known
peer tolerates but the protocol text does not ask for).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

import structlog
from pydantic import BaseModel

Status = Literal["pass", "warn", "fail"]

_log = structlog.get_logger("conform")


@dataclass(frozen=True)
class Rule:
    name: str
    section: str
    meaning: str


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.name: r for r in rules}


#: What ``bridgebot conform tm`` checks of a table manager.
TM_RULES = _rules(
    Rule("tm.connect", "1", "the table manager accepts a TCP connection at HOST:PORT"),
    Rule("tm.answer", "3.1", "every line a seat is owed comes within --answer-timeout"),
    Rule("tm.seated", "2.1 #2", "the seated line names the seat asked for and the team"),
    Rule("tm.teams", "2.1 #4", "the Teams line names both teams, with no full stop after N/S"),
    Rule("tm.start-of-board", "2.2 #1", "Start of board opens every board, only between boards"),
    Rule("tm.board", "2.2 #3", "the board line: number, dealer, one of the four vulnerabilities"),
    Rule("tm.cards", "2.2 #5", "each seat gets its own 13 cards in the canonical hand layout"),
    Rule("tm.deal", "2.2 #5", "the four hands dealt are a deal: 52 different cards"),
    Rule("tm.call-relay", "2.3 #3", "each call goes to the three others, as made, never back"),
    Rule("tm.alert", "2.3 #3", "an alert's text goes to the opponents only, never to partner"),
    Rule("tm.relay-case", "2.3 #3, 2.4 #4", "relayed calls and cards in canonical case (Ben)"),
    Rule("tm.relay-legal", "2.3, 2.4", "every relayed call and card is legal and new"),
    Rule("tm.to-lead", "2.4 #2", "'<Player> to lead' to the leader at every trick ('Dummy')"),
    Rule("tm.dummy-cards", "2.4 #5", "'Dummy's cards : ...' with dummy's hand, once asked"),
    Rule("tm.card-relay", "2.4 #4", "each card goes to the three others, dummy's to dummy too"),
    Rule("tm.timing", "2.5 #1", "a Timing line ends every board, passed out ones included"),
    Rule("tm.end-of-session", "2.5 #2", "End of session after the last board"),
    Rule("tm.illegal-bid", "2.3 #4", "an illegal call gets 'Illegal bid' and may be replaced"),
    Rule("tm.illegal-card", "2.4 #7", "an illegal card gets 'Illegal card' and may be replaced"),
    Rule("tm.out-of-turn", "3.1 rule 4, 2.7", "a call or card out of turn gets an error line"),
    Rule("tm.junk-connection", "5.1, 5.3", "a junk connection beside the table does not stop it"),
    Rule("tm.unexpected", "3.1", "nothing is sent that the protocol does not call for there"),
)

#: What ``bridgebot conform seat`` checks of a seat program.
SEAT_RULES = _rules(
    Rule("seat.connect", "1", "the program connects to the kit's table manager"),
    Rule("seat.answer", "3.2", "every line the program owes comes within --answer-timeout"),
    Rule("seat.connecting", "2.1 #1", "the Connecting line: quoted team, its seat, version 18"),
    Rule("seat.handshake", "2.1 #3, 2.1 #5", "ready for teams, then ready to start once"),
    Rule("seat.ready-for-deal", "2.2 #2", "ready for deal after every Start of board"),
    Rule("seat.ready-for-cards", "2.2 #4", "ready for cards after the board line"),
    Rule("seat.ready-for-bid", "2.3 #1", "ready for <bidder>'s bid before every other call"),
    Rule("seat.call", "2.3 #2", "a call at the program's turn only, in its own name"),
    Rule("seat.call-legal", "2.3 #4", "every call is legal"),
    Rule("seat.ready-for-card", "2.4 #1", "ready for <player>'s card to trick <t>, right t"),
    Rule("seat.lead-prompt", "2.4 #2", "a lead only after '<Player> to lead' / 'Dummy to lead'"),
    Rule("seat.card", "2.4 #3", "a card at the program's turn only; dummy's under dummy's name"),
    Rule("seat.card-legal", "2.4 #7", "every card is held and follows suit"),
    Rule("seat.ready-for-dummy", "2.4 #5", "each seat but dummy asks for dummy once"),
    Rule("seat.restart", "4.3", "a mid-board Start of board restarts the board at ready for deal"),
    Rule("seat.end-of-session", "2.5 #2", "nothing more is sent after End of session"),
    Rule("seat.trailing-stop", "4.2", "no full stop after a ready line (a Blue Chip TM refused)"),
    Rule("seat.case", "1, 4.2", "seat names and keywords in canonical case (warn)"),
    Rule("seat.variant", "4.2", "other tolerated variants: double blanks, 1N, 10H, notes (warn)"),
    Rule("seat.repeat", "3.1 rule 2", "a ready line sent twice (warn; tables ignore it)"),
    Rule("seat.early-dummy", "2.4 #5", "ready for dummy before the opening lead (warn)"),
    Rule("seat.received-dummy", "2.4 #5", "'received dummy', abolished by v18 (warn)"),
    Rule("seat.unexpected", "3.1 rule 4", "nothing unreadable, nothing out of its place"),
    Rule("seat.roles", "2.3, 2.4", "the program had every role the scenarios deal it (warn)"),
)

RULES = {**TM_RULES, **SEAT_RULES}

#: Findings kept per rule in the report (the count is always complete).
KEEP = 20


class Finding(BaseModel):
    rule: str
    status: Status
    detail: str
    line: str | None = None
    expected: str | None = None
    where: str = ""
    section: str
    board: int | None = None
    """The board the kit was playing when it found this (None: before the first one)."""
    transcript_line: int | None = None
    """The line of the ``--transcript`` file written last when it was found: the offending
    line, or for a silence the last line of the exchange."""


class RuleResult(BaseModel):
    rule: str
    status: Status
    section: str
    meaning: str
    checks: int
    warnings: int
    failures: int
    findings: list[Finding]


class ConformReport(BaseModel):
    """The JSON report (``--report``): the same content as the output lines."""

    command: str
    target: str
    status: Status
    exit_status: int
    seconds: float
    boards: int
    roles: list[str] = []
    notes: list[str] = []
    rules: list[RuleResult]
    not_reached: list[str]
    transcript: str | None = None


@dataclass
class _Tally:
    checks: int = 0
    warnings: int = 0
    failures: int = 0
    findings: list[Finding] = field(default_factory=list)


class Recorder:
    """Collects findings; ``echo`` gets a line for each failure as it happens (progress).

    ``locate`` says where the run is, ``(board number, transcript line)``, and is asked for
    each finding: a kit sets it to its own board and :attr:`Transcript.lines`."""

    def __init__(self, rules: dict[str, Rule], echo: Callable[[str], None] | None = None) -> None:
        self.rules = rules
        self.echo = echo
        self._tally: dict[str, _Tally] = {}
        self.locate: Callable[[], tuple[int | None, int | None]] = lambda: (None, None)

    def ok(self, rule: str) -> None:
        self._get(rule).checks += 1

    def warn(
        self,
        rule: str,
        detail: str,
        line: str | None = None,
        expected: str | None = None,
        where: str = "",
        at: tuple[int | None, int | None] | None = None,
    ) -> None:
        self._add(rule, "warn", detail, line, expected, where, at)

    def fail(
        self,
        rule: str,
        detail: str,
        line: str | None = None,
        expected: str | None = None,
        where: str = "",
        at: tuple[int | None, int | None] | None = None,
    ) -> None:
        """``at``: where the offending line was, as ``locate`` said then (default: now)."""
        self._add(rule, "fail", detail, line, expected, where, at)

    def check(
        self,
        rule: str,
        good: bool,
        detail: str,
        line: str | None = None,
        expected: str | None = None,
        where: str = "",
    ) -> bool:
        """``fail`` unless ``good``; returns ``good``."""
        if good:
            self.ok(rule)
        else:
            self.fail(rule, detail, line, expected, where)
        return good

    def _get(self, rule: str) -> _Tally:
        if rule not in self.rules:
            raise KeyError(f"unknown rule {rule}")
        return self._tally.setdefault(rule, _Tally())

    def _add(
        self,
        rule: str,
        status: Status,
        detail: str,
        line: str | None,
        expected: str | None,
        where: str,
        at: tuple[int | None, int | None] | None,
    ) -> None:
        t = self._get(rule)
        t.checks += 1
        if status == "fail":
            t.failures += 1
        else:
            t.warnings += 1
        board, transcript_line = self.locate() if at is None else at
        finding = Finding(
            rule=rule,
            status=status,
            detail=detail,
            line=line,
            expected=expected,
            where=where,
            section=self.rules[rule].section,
            board=board,
            transcript_line=transcript_line,
        )
        if len(t.findings) < KEEP:
            t.findings.append(finding)
        if self.echo is not None and status == "fail" and t.failures <= 3:
            self.echo(finding_line(finding))

    @property
    def failed(self) -> bool:
        return any(t.failures for t in self._tally.values())

    def failed_rules(self) -> list[str]:
        return [r for r, t in self._tally.items() if t.failures]

    def checks(self, rule: str) -> int:
        t = self._tally.get(rule)
        return 0 if t is None else t.checks

    def failures(self, rule: str) -> int:
        t = self._tally.get(rule)
        return 0 if t is None else t.failures

    def status_of(self, rule: str) -> Status | None:
        t = self._tally.get(rule)
        if t is None:
            return None
        return "fail" if t.failures else "warn" if t.warnings else "pass"

    def results(self) -> list[RuleResult]:
        out = []
        for name, rule in self.rules.items():
            t = self._tally.get(name)
            if t is None:
                continue
            status = self.status_of(name)
            assert status is not None
            out.append(
                RuleResult(
                    rule=name,
                    status=status,
                    section=rule.section,
                    meaning=rule.meaning,
                    checks=t.checks,
                    warnings=t.warnings,
                    failures=t.failures,
                    findings=t.findings,
                )
            )
        return out

    def not_reached(self) -> list[str]:
        return [r for r in self.rules if r not in self._tally]


def finding_line(f: Finding) -> str:
    """``fail tm.to-lead: <detail>; line '...'; expected '...'; board 3, transcript line 212
    (docs/protocol.md 2.4 #2)``."""
    parts = [f"{f.status} {f.rule}: {f.detail}"]
    if f.where:
        parts.append(f"at {f.where}")
    if f.line is not None:
        parts.append(f"line {f.line!r}")
    if f.expected is not None:
        parts.append(f"expected {f.expected!r}")
    place = [f"board {f.board}"] if f.board is not None else []
    if f.transcript_line is not None:
        place.append(f"transcript line {f.transcript_line}")
    if place:
        parts.append(", ".join(place))
    return "; ".join(parts) + f" (docs/protocol.md {f.section})"


def result_line(r: RuleResult) -> str:
    """One output line per rule: the first finding of a warn or fail, else the count."""
    if r.status == "pass":
        return f"pass {r.rule} ({r.checks} checked)"
    first = next(f for f in r.findings if f.status == r.status)
    more = (r.failures if r.status == "fail" else r.warnings) - 1
    return finding_line(first) + (f" (+{more} more)" if more > 0 else "")


def write_output(report: ConformReport, out: TextIO | None = None) -> None:
    out = out or sys.stdout  # looked up now: tests and callers may have replaced it
    for r in report.rules:
        print(result_line(r), file=out)
    counts = {s: sum(r.status == s for r in report.rules) for s in ("pass", "warn", "fail")}
    tail = f"; not reached: {', '.join(report.not_reached)}" if report.not_reached else ""
    roles = f"; roles: {', '.join(report.roles)}" if report.roles else ""
    print(
        f"{report.command}: {report.status}: {counts['pass']} pass, {counts['warn']} warn, "
        f"{counts['fail']} fail in {report.seconds:.1f} s, {report.boards} board(s){roles}{tail}",
        file=out,
    )
    for note in report.notes:
        print(f"note: {note}", file=out)
    if report.transcript:
        print(f"transcript: {report.transcript}", file=out)
    out.flush()


def save_report(report: ConformReport, path: Path) -> None:
    path.write_text(json.dumps(report.model_dump(), indent=2) + "\n")


class Transcript:
    """The whole exchange in the docs/protocol.md section 6 format (``North -> TM : text``),
    written to ``path`` (None: nowhere). The file is made (or emptied) at the first line, so a run
    that could not start leaves none and an earlier run's transcript as it was."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._file: TextIO | None = None
        self.lines = 0
        """Lines written so far, comments included: the number of the last one (1-based)."""

    def line(self, src: str, dst: str, text: str) -> None:
        _log.debug("line", src=src, dst=dst, text=text)  # --log-level debug shows the exchange
        self._write(f"{src} -> {dst} : {text}\n")

    def comment(self, text: str) -> None:
        self._write(f"   -- {text} --\n")

    def _write(self, text: str) -> None:
        self.lines += 1
        if self.path is not None:
            if self._file is None:
                self._file = self.path.open("w")
            self._file.write(text)
            self._file.flush()

    def close(self, *, made: bool = True) -> None:
        """Close the file; ``made`` (a run that went its course) makes it even where nothing was
        said, so the report's transcript is this run's."""
        if self._file is None and made and self.path is not None:
            self._file = self.path.open("w")
        if self._file is not None:
            self._file.close()
            self._file = None
