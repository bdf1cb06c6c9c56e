"""How a duplicate event ranks its field: victory points, matchpoints (with Neuberg) and Butler.

Pure functions of numbers, no I/O: they sit beside :mod:`laws.scoring` with the other laws of the
game, so a team tournament, a table manager's session and a benchmark all rank the same way.

- **Victory points** (WBF continuous 20-point scale of 2013): for ``boards`` boards and an IMP
  margin ``M``, with ``B = 15 * sqrt(boards)`` and ``tau = (sqrt(5) - 1) / 2`` the winner gets
  ``min(20, 10 + 10 * (1 - tau ** (3M / B)) / (1 - tau ** 3))`` and the loser the rest. The
  published tables round each integer margin to two decimals and then raise some values by 0.01
  so that no IMP is worth more than the one before (the scale stays concave after rounding);
  :func:`vp_table` builds such a table and :func:`victory_points` reads it.
- **Matchpoints**: on one board every table's North-South score is compared with every other
  table's: 2 points per score beaten, 1 per tie (East-West get the complement). A board played at
  fewer tables than the most is scaled up with Neuberg's formula, ``(mp + 1) * most / tables - 1``.
- **Butler**: each table's score is IMPed against a datum, the mean of the board's scores without
  the highest and the lowest, rounded to a multiple of 10.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cache

from bridgebot.laws.scoring import imps

#: The 20-point scale: a draw is 10-10, a blitz 20-0.
VP_TOTAL = 20.0
_TAU = (math.sqrt(5.0) - 1.0) / 2.0


def vp_raw(boards: int, margin: float) -> float:
    """The winner's victory points before rounding (``margin`` >= 0 IMPs over ``boards``)."""
    if boards < 1:
        raise ValueError(f"a match has at least one board, not {boards}")
    if margin < 0:
        raise ValueError(f"the margin is the winner's, so never negative (got {margin})")
    blitz = 15.0 * math.sqrt(boards)
    won = 10.0 + 10.0 * (1.0 - math.pow(_TAU, 3.0 * margin / blitz)) / (1.0 - _TAU**3)
    return min(VP_TOTAL, won)


@cache
def vp_table(boards: int) -> tuple[float, ...]:
    """The winner's VPs for margins 0, 1, ... up to the first margin worth 20, as published.

    Values are rounded to hundredths; then, while some IMP is worth more than the IMP before it
    (a rounding artefact), the value before it is raised by 0.01. Kept in integer hundredths so
    the adjustment is exact.
    """
    top = math.ceil(15.0 * math.sqrt(boards))
    cents = [round(vp_raw(boards, m) * 100) for m in range(top + 1)]
    changed = True
    while changed:
        changed = False
        for m in range(2, len(cents)):
            if cents[m] - cents[m - 1] > cents[m - 1] - cents[m - 2]:
                cents[m - 1] += 1
                changed = True
                break
    return tuple(c / 100 for c in cents)


def victory_points(boards: int, imps_for: int, imps_against: int) -> tuple[float, float]:
    """Both teams' victory points for a match of ``boards`` boards that ended ``for``-``against``."""
    margin = abs(imps_for - imps_against)
    table = vp_table(boards)
    winner = table[margin] if margin < len(table) else VP_TOTAL
    loser = round(VP_TOTAL - winner, 2)
    return (winner, loser) if imps_for >= imps_against else (loser, winner)


def matchpoints(ns_scores: Sequence[int]) -> list[int]:
    """North-South matchpoints of each table on one board: 2 per score beaten, 1 per tie.

    East-West's matchpoints at a table are ``2 * (len(ns_scores) - 1)`` minus North-South's.
    """
    return [
        sum(2 if s > other else 1 if s == other else 0 for other in ns_scores) - 1
        for s in ns_scores
    ]


def neuberg(mp: float, tables: int, most: int) -> float:
    """Matchpoints scored on a board played at ``tables`` tables, rescaled to ``most`` tables.

    Neuberg's formula in the 2-per-beaten form: ``(mp + 1) * most / tables - 1``; the top then
    becomes ``2 * (most - 1)`` whatever the number of tables.
    """
    if not 1 <= tables <= most:
        raise ValueError(f"a board at {tables} tables cannot be scaled to {most}")
    return (mp + 1.0) * most / tables - 1.0


def board_matchpoints(ns_scores: Sequence[int], most: int | None = None) -> list[float]:
    """North-South matchpoints per table on one board, Neuberg-scaled to ``most`` tables."""
    tables = len(ns_scores)
    target = tables if most is None else most
    return [neuberg(mp, tables, target) for mp in matchpoints(ns_scores)]


def butler_datum(ns_scores: Sequence[int]) -> int:
    """The board's datum: the mean without the highest and the lowest score, to the nearest 10.

    With fewer than three scores nothing would be left, so the plain mean is used. Halves are
    rounded away from zero, so that the datum of the negated scores is the negated datum.
    """
    if not ns_scores:
        raise ValueError("a datum needs at least one score")
    kept = sorted(ns_scores)[1:-1] if len(ns_scores) >= 3 else list(ns_scores)
    mean = sum(kept) / len(kept)
    tens = math.floor(abs(mean) / 10.0 + 0.5)
    return int(math.copysign(tens * 10, mean)) if tens else 0


def butler_imps(ns_scores: Sequence[int]) -> list[int]:
    """North-South IMPs against the datum at each table (East-West get the negation)."""
    datum = butler_datum(ns_scores)
    return [imps(s - datum) for s in ns_scores]


@dataclass(frozen=True)
class TableScore:
    """One table's result on one board, as a pairs event sees it."""

    board: Hashable
    """What identifies the deal (a board number, or (round, number) when rounds have own deals)."""
    ns: str
    """The North-South pair (or entrant) at this table."""
    ew: str
    ns_score: int


@dataclass
class PairTotal:
    """A pair's (or entrant's) pairs-scored total over every board it played, in either seat."""

    pair: str
    boards: int = 0
    """Board results counted (a pair seated twice on one board counts twice)."""
    matchpoints: float = 0.0
    """Matchpoints after Neuberg's scaling, in the 2-per-beaten form."""
    top: float = 0.0
    """The sum of the tops of those boards (``2 * (most - 1)`` each)."""
    butler: int = 0
    """IMPs against the datum."""

    @property
    def percent(self) -> float:
        return 100.0 * self.matchpoints / self.top if self.top else 50.0

    @property
    def butler_per_board(self) -> float:
        return self.butler / self.boards if self.boards else 0.0


def rank_pairs(scores: Sequence[TableScore]) -> list[PairTotal]:
    """Matchpoints and Butler for every pair over every table that played each board.

    Boards played at fewer tables than the most-played board are Neuberg-scaled, so every board
    weighs the same. Ranked by matchpoint percentage, then Butler IMPs, then name.
    """
    by_board: dict[Hashable, list[TableScore]] = {}
    for s in scores:
        by_board.setdefault(s.board, []).append(s)
    most = max((len(t) for t in by_board.values()), default=1)
    top = 2.0 * (most - 1)
    totals: dict[str, PairTotal] = {}
    for tables in by_board.values():
        ns_scores = [t.ns_score for t in tables]
        mps = board_matchpoints(ns_scores, most)
        butler = butler_imps(ns_scores)
        for t, mp, b in zip(tables, mps, butler, strict=True):
            for pair, points, imp in ((t.ns, mp, b), (t.ew, top - mp, -b)):
                total = totals.setdefault(pair, PairTotal(pair))
                total.boards += 1
                total.matchpoints += points
                total.top += top
                total.butler += imp
    return sorted(totals.values(), key=lambda p: (-p.percent, -p.butler, p.pair))
