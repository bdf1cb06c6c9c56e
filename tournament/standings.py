"""Tournament standings: one typed record (``standings.json``), built from the matches' boards.

The standings are a function of the finished matches only (each match's own journal), so a
resumed tournament ranks exactly as an uninterrupted one. Ranking (also in the README):

1. victory points, summed over every match (WBF 2013 continuous scale, :mod:`laws.event_scoring`);
2. among entrants level on VPs: the VPs they scored in the matches between themselves;
3. then the IMP quotient, IMPs won / IMPs lost over all their matches;
4. still level: the same rank, listed by name.

Beside the ranking: for every pair of entrants the IMPs per board with its standard error (all
their boards together, both legs of a double round robin), and a pairs view of the same field:
every room of every match that played a deal is a table of a pairs event on that deal, scored by
matchpoints (Neuberg for deals played at fewer tables) and by Butler IMPs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bridgebot.core.errors import validation_fault
from bridgebot.core.files import write_text_file
from bridgebot.core.stats import finite, mean_stderr
from bridgebot.laws.event_scoring import TableScore, rank_pairs, victory_points
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import US, seatings
from pydantic import BaseModel, ConfigDict, Field, ValidationError

SCHEMA = 1


class StandingsError(ValueError):
    """A standings file that cannot be read (names the file and the reason)."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MatchRow(_Model):
    """One finished match, from the home team's (``us``) side."""

    round: int
    home: str
    away: str
    boards: int
    imps_home: int
    """IMPs won by home: the sum of the boards home won."""
    imps_away: int
    vp_home: float
    vp_away: float


class EntrantRow(_Model):
    """One entrant's line of the ranking."""

    rank: int
    name: str
    spec: str
    """The agent spec, or ``external`` for an outside program."""
    played: int
    vps: float
    imps_won: int
    imps_lost: int
    quotient: float | None
    """IMPs won / IMPs lost; ``None`` when it lost none (ranks above any number)."""
    boards: int
    imps_per_board: float | None
    stderr: float | None
    mp_percent: float | None
    """Pairs view: matchpoint percentage over every table it sat at."""
    butler_per_board: float | None
    """Pairs view: Butler IMPs per board result."""


class PairRow(_Model):
    """``entrant`` against ``opponent``: all the boards between them, from ``entrant``'s side."""

    entrant: str
    opponent: str
    boards: int
    imps_per_board: float
    stderr: float | None


class PairedRow(_Model):
    """Gauntlet rows compared on the same boards: the first entrant's IMPs/board against
    ``first`` minus against ``second``, board by board (positive: ``first`` is the weaker)."""

    entrant: str
    first: str
    second: str
    boards: int
    difference: float
    stderr: float | None


class Standings(_Model):
    """The whole ``standings.json``: what was played and who leads."""

    schema_version: int = SCHEMA
    format: str
    scoring: str
    boards_per_match: int
    matches_scheduled: int
    matches_played: int
    entrants: list[EntrantRow]
    """In rank order."""
    matches: list[MatchRow]
    pairs: list[PairRow] = Field(default_factory=list)
    paired: list[PairedRow] = Field(default_factory=list)
    """Gauntlet only: every two rows differenced on the boards they share."""

    @property
    def complete(self) -> bool:
        return self.matches_played == self.matches_scheduled


def write_standings(path: Path, standings: Standings) -> None:
    """Write ``standings.json`` atomically (a kill leaves the old file or the new one)."""
    write_text_file(path, standings.model_dump_json(indent=2) + "\n")


def load_standings(path: Path) -> Standings:
    """Read ``standings.json``; a missing or malformed file is a :class:`StandingsError`."""
    try:
        return Standings.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise StandingsError(f"{path}: cannot read ({exc})") from exc
    except ValidationError as exc:
        raise StandingsError(f"{path}: not a standings file ({validation_fault(exc)})") from exc


@dataclass(frozen=True)
class PlayedMatch:
    """A finished match as the standings need it: who, which round, and its boards."""

    round: int
    home: str
    away: str
    boards: tuple[BoardResult, ...]

    @property
    def imps_home(self) -> int:
        return sum(max(b.imps, 0) for b in self.boards)

    @property
    def imps_away(self) -> int:
        return sum(max(-b.imps, 0) for b in self.boards)

    def row(self) -> MatchRow:
        vp_home, vp_away = victory_points(len(self.boards), self.imps_home, self.imps_away)
        return MatchRow(
            round=self.round,
            home=self.home,
            away=self.away,
            boards=len(self.boards),
            imps_home=self.imps_home,
            imps_away=self.imps_away,
            vp_home=vp_home,
            vp_away=vp_away,
        )


def _table_scores(match: PlayedMatch, fmt: str = "team") -> list[TableScore]:
    """Every room of the match as a pairs-event table on deal (round, board)."""
    rooms = {s.room: s for s in seatings(fmt)}
    out = []
    for b in match.boards:
        for room in b.rooms:
            home_ns = rooms[room.room].teams[0] == US
            ns, ew = (match.home, match.away) if home_ns else (match.away, match.home)
            out.append(TableScore((match.round, b.board), ns, ew, room.score()))
    return out


def _vps(rows: Sequence[MatchRow], name: str, among: set[str] | None = None) -> float:
    total = 0.0
    for r in rows:
        if among is not None and not {r.home, r.away} <= among:
            continue
        total += r.vp_home if r.home == name else r.vp_away if r.away == name else 0.0
    return round(total, 2)


def build_standings(
    *,
    entrants: Sequence[tuple[str, str]],
    matches: Sequence[PlayedMatch],
    scheduled: int,
    fmt: str,
    scoring: str,
    boards_per_match: int,
) -> Standings:
    """Rank ``entrants`` (name, spec) on the finished ``matches`` (see the module doc)."""
    rows = [m.row() for m in sorted(matches, key=lambda m: (m.round, m.home, m.away))]
    won = {n: 0 for n, _ in entrants}
    lost = {n: 0 for n, _ in entrants}
    played = {n: 0 for n, _ in entrants}
    board_imps: dict[str, list[int]] = {n: [] for n, _ in entrants}
    between: dict[tuple[str, str], list[int]] = {}
    for m in matches:
        won[m.home] += m.imps_home
        lost[m.home] += m.imps_away
        won[m.away] += m.imps_away
        lost[m.away] += m.imps_home
        played[m.home] += 1
        played[m.away] += 1
        imps = [b.imps for b in m.boards]
        board_imps[m.home] += imps
        board_imps[m.away] += [-x for x in imps]
        between.setdefault((m.home, m.away), []).extend(imps)
        between.setdefault((m.away, m.home), []).extend(-x for x in imps)
    pairs_view = {p.pair: p for p in rank_pairs([t for m in matches for t in _table_scores(m)])}
    vps = {n: _vps(rows, n) for n, _ in entrants}

    def quotient(n: str) -> float:
        return won[n] / lost[n] if lost[n] else math.inf

    def key(n: str) -> tuple[float, float, float]:
        level = {o for o, _ in entrants if vps[o] == vps[n]}
        head_to_head = _vps(rows, n, among=level) if len(level) > 1 else 0.0
        return (-vps[n], -head_to_head, -quotient(n))

    order = sorted((n for n, _ in entrants), key=lambda n: (key(n), n))
    specs = dict(entrants)
    ranked: list[EntrantRow] = []
    for i, n in enumerate(order):
        rank = ranked[-1].rank if ranked and key(order[i - 1]) == key(n) else i + 1
        mean, se = mean_stderr(board_imps[n]) if board_imps[n] else (math.nan, math.nan)
        pair = pairs_view.get(n)
        ranked.append(
            EntrantRow(
                rank=rank,
                name=n,
                spec=specs[n],
                played=played[n],
                vps=vps[n],
                imps_won=won[n],
                imps_lost=lost[n],
                quotient=None if lost[n] == 0 else round(quotient(n), 4),
                boards=len(board_imps[n]),
                imps_per_board=finite(mean),
                stderr=finite(se),
                mp_percent=None if pair is None else round(pair.percent, 2),
                butler_per_board=None if pair is None else round(pair.butler_per_board, 3),
            )
        )
    pairs = []
    for (a, b), imps in sorted(between.items()):
        mean, se = mean_stderr(imps)
        pairs.append(
            PairRow(
                entrant=a,
                opponent=b,
                boards=len(imps),
                imps_per_board=round(mean, 4),
                stderr=finite(se),
            )
        )
    return Standings(
        paired=_paired_rows(entrants[0][0], matches) if fmt == "gauntlet" and entrants else [],
        format=fmt,
        scoring=scoring,
        boards_per_match=boards_per_match,
        matches_scheduled=scheduled,
        matches_played=len(matches),
        entrants=ranked,
        matches=rows,
        pairs=pairs,
    )


def _paired_rows(hero: str, matches: Sequence[PlayedMatch]) -> list[PairedRow]:
    """The gauntlet's rows differenced board by board (every match played the same boards)."""
    rows: dict[str, dict[int, int]] = {}
    for m in matches:
        if hero in (m.home, m.away):
            sign = 1 if m.home == hero else -1
            other = m.away if sign == 1 else m.home
            rows[other] = {b.board: sign * b.imps for b in m.boards}
    out = []
    names = sorted(rows)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            shared = sorted(set(rows[a]) & set(rows[b]))
            if not shared:
                continue
            mean, se = mean_stderr([rows[a][k] - rows[b][k] for k in shared])
            out.append(PairedRow(entrant=hero, first=a, second=b, boards=len(shared),
                                 difference=round(mean, 4), stderr=finite(se)))  # fmt: skip
    return out


# -- the cross-table: data for any report, and its Markdown -----------------------------------------


@dataclass(frozen=True)
class CrossCell:
    """What ``row`` scored against ``column`` in one match: IMPs each way and VPs."""

    round: int
    imps_for: int
    imps_against: int
    vps: float


@dataclass(frozen=True)
class CrossTable:
    """Entrants in rank order; ``cells[(row, column)]`` lists their matches (two in a double RR)."""

    names: tuple[str, ...]
    cells: dict[tuple[str, str], tuple[CrossCell, ...]]
    vps: dict[str, float]


def cross_table(standings: Standings) -> CrossTable:
    """The cross-table of ``standings`` as data (the Markdown and HTML reports both draw it)."""
    cells: dict[tuple[str, str], list[CrossCell]] = {}
    for m in standings.matches:
        cells.setdefault((m.home, m.away), []).append(
            CrossCell(m.round, m.imps_home, m.imps_away, m.vp_home)
        )
        cells.setdefault((m.away, m.home), []).append(
            CrossCell(m.round, m.imps_away, m.imps_home, m.vp_away)
        )
    return CrossTable(
        names=tuple(e.name for e in standings.entrants),
        cells={k: tuple(sorted(v, key=lambda c: c.round)) for k, v in cells.items()},
        vps={e.name: e.vps for e in standings.entrants},
    )


def _cell_text(cells: Sequence[CrossCell]) -> str:
    return " / ".join(f"{c.imps_for}-{c.imps_against} ({c.vps:.2f})" for c in cells)


def markdown_standings(standings: Standings) -> str:
    """The standings, the cross-table, the pairs of entrants and the pairs view, in Markdown."""
    out = [
        "# Tournament standings",
        "",
        f"Format {standings.format}, scoring {standings.scoring}, "
        f"{standings.boards_per_match} boards a match, {standings.matches_played} of "
        f"{standings.matches_scheduled} matches played"
        + ("." if standings.complete else " (unfinished: resume with --resume)."),
        "",
        "Ranked by victory points (WBF 2013 continuous scale); level entrants by the VPs of their "
        "matches against each other, then by the IMP quotient (IMPs won / IMPs lost).",
        "",
        "| rank | entrant | played | VPs | IMPs won | IMPs lost | quotient | IMPs/board | se |",
        "| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for e in standings.entrants:
        quotient = "-" if e.quotient is None else f"{e.quotient:.3f}"
        out.append(
            f"| {e.rank} | {e.name} | {e.played} | {e.vps:.2f} | {e.imps_won} | {e.imps_lost} | "
            f"{quotient} | {_num(e.imps_per_board, '+.2f')} | {_num(e.stderr, '.2f')} |"
        )
    table = cross_table(standings)
    out += [
        "",
        "## Cross-table",
        "",
        "Each cell: the row's IMPs - the column's IMPs (the row's VPs), one per match.",
        "",
        "| | " + " | ".join(table.names) + " | VPs |",
        "| :--- |" + " :---: |" * len(table.names) + " ---: |",
    ]
    for row in table.names:
        cells = [
            "x" if row == col else _cell_text(table.cells.get((row, col), ()))
            for col in table.names
        ]
        out.append(f"| {row} | " + " | ".join(cells) + f" | {table.vps[row]:.2f} |")
    out += [
        "",
        "## Every pair of entrants",
        "",
        "IMPs per board of the first against the second over all their boards, with its standard "
        "error; claim only a difference larger than two standard errors.",
        "",
        "| entrant | opponent | boards | IMPs/board | se |",
        "| :--- | :--- | ---: | ---: | ---: |",
    ]
    for p in standings.pairs:
        if p.entrant < p.opponent:
            out.append(
                f"| {p.entrant} | {p.opponent} | {p.boards} | {p.imps_per_board:+.2f} | "
                f"{_num(p.stderr, '.2f')} |"
            )
    if standings.paired:
        out += [
            "",
            "## Gauntlet rows, paired",
            "",
            "The first entrant's IMPs/board against one opponent minus against another, board by "
            "board on the same deals: positive means the first opponent is the weaker.",
            "",
            "| entrant | against | minus against | boards | difference | se |",
            "| :--- | :--- | :--- | ---: | ---: | ---: |",
        ]
        for r in standings.paired:
            out.append(
                f"| {r.entrant} | {r.first} | {r.second} | {r.boards} | {r.difference:+.2f} | "
                f"{_num(r.stderr, '.2f')} |"
            )
    out += [
        "",
        "## Pairs view",
        "",
        "Every room that played a deal is a table of a pairs event on it: matchpoints (2 per "
        "table beaten, 1 per tie; Neuberg for a deal played at fewer tables) and Butler IMPs "
        "against the datum (mean without the highest and lowest score, to the nearest 10).",
        "",
        "| entrant | matchpoints % | Butler IMPs/board |",
        "| :--- | ---: | ---: |",
    ]
    by_mp = sorted(standings.entrants, key=lambda e: (-(e.mp_percent or 0.0), e.name))
    for e in by_mp:
        out.append(
            f"| {e.name} | {_num(e.mp_percent, '.2f')} | {_num(e.butler_per_board, '+.2f')} |"
        )
    return "\n".join(out) + "\n"


def _num(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)
