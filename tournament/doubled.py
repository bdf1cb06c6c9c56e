"""Doubled contracts by side: how many each team declared, how many failed, and what they cost.

A bot that sacrifices recklessly shows here at once: its side declares many doubled contracts
that go down, and the boards where it did carry most of its losses. Used by the match report and
by ``benchmarks/bench_crosstable.py`` (one definition of the cost for both).

For each team, ``declared`` counts rooms where that team declared a doubled or redoubled
contract, ``failed`` those that went down, and ``imps`` sums the board's IMPs for that team over
the boards with at least one such failed contract of theirs (negative = lost).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import THEM, US, seatings
from endplay.types import Penalty


@dataclass(frozen=True)
class DoubledCost:
    """One team's doubled contracts over a set of boards."""

    team: str
    declared: int
    failed: int
    boards: int
    imps: int

    @property
    def imps_per_board(self) -> float:
        return self.imps / self.boards if self.boards else 0.0


def doubled_costs(boards: Sequence[BoardResult], fmt: str = "team") -> dict[str, DoubledCost]:
    """``{"us": ..., "them": ...}`` for boards of a match in format ``fmt`` (IMPs are ``us``'s)."""
    teams = {s.room: s.teams for s in seatings(fmt)}
    declared = {US: 0, THEM: 0}
    failed = {US: 0, THEM: 0}
    imps = {US: 0, THEM: 0}
    for b in boards:
        hit: set[str] = set()
        for room in b.rooms:
            contract = room.final_contract()
            if contract is None or contract.penalty is Penalty.passed or room.tricks is None:
                continue
            team = teams[room.room][contract.declarer.value]
            declared[team] += 1
            if room.tricks < contract.level + 6:
                failed[team] += 1
                hit.add(team)
        for team in hit:
            imps[team] += b.imps if team == US else -b.imps
    return {t: DoubledCost(t, declared[t], failed[t], len(boards), imps[t]) for t in (US, THEM)}


def doubled_section(boards: Sequence[BoardResult], fmt: str, names: dict[str, str]) -> list[str]:
    """Markdown lines of the report's section (``names`` maps ``us``/``them`` to agent specs)."""
    costs = doubled_costs(boards, fmt)
    out = [
        "## Doubled contracts by side",
        "",
        "| side | doubled contracts declared | went down | IMPs on those boards | per board |",
        "| :--- | ---: | ---: | ---: | ---: |",
    ]
    for team in (US, THEM):
        c = costs[team]
        out.append(
            f"| {names.get(team, team)} | {c.declared} | {c.failed} | {c.imps:+d} | "
            f"{c.imps_per_board:+.2f} |"
        )
    out += [
        "",
        "IMPs are the side's own, on boards where it declared a doubled contract that failed.",
        "",
    ]
    return out
