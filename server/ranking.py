"""A table manager session as a pairs event: its tables ranked by matchpoints and Butler.

``bridgebot tm --tables N`` deals one set of boards to every table, so each board is a pairs
event over the tables that finished it: each table's North-South pair against every other
table's, and the same for East-West. Built from the session's journal alone (the record of
truth, also after ``--resume``); an aborted board simply counts at fewer tables (Neuberg).
Writes ``DIR/ranking.json`` (:class:`SessionRanking`) and ``DIR/ranking.md``. The scoring itself
is :func:`laws.event_scoring.rank_pairs`, shared with ``bridgebot tournament``.
"""

from __future__ import annotations

from pathlib import Path

from bridgebot.core.files import write_text_file
from bridgebot.laws.event_scoring import TableScore, rank_pairs
from bridgebot.server.records import read_journal
from pydantic import BaseModel, ConfigDict


class PairLine(BaseModel):
    """One pair of the session: a table's North-South or East-West seats."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    rank: int
    pair: str
    boards: int
    matchpoints: float
    top: float
    percent: float
    butler_imps: int
    butler_per_board: float


class SessionRanking(BaseModel):
    """``ranking.json``: every pair of the session, best first."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tables: int
    boards: int
    """Boards finished at one table at least."""
    pairs: list[PairLine]


def pair_name(table: int, direction: str, team: str | None = None) -> str:
    """``table 2 NS``, with the team seated there when the journal records it: ``table 2 NS
    (WBridge5)``; the same program may sit at several tables, so the table stays in the name."""
    return f"table {table} {direction}" + (f" ({team})" if team else "")


def session_scores(journal: Path) -> list[TableScore]:
    """Every finished (not aborted) board of the session's journal as a table score."""
    return [
        TableScore(
            r.board,
            pair_name(r.table, "NS", r.ns_team),
            pair_name(r.table, "EW", r.ew_team),
            r.score(),
        )
        for r in read_journal(journal).records
        if r.aborted is None
    ]


def rank_session(out: str | Path) -> SessionRanking:
    """Rank the session recorded in ``out`` and write ``ranking.json`` and ``ranking.md``."""
    out_dir = Path(out)
    scores = session_scores(out_dir / "journal.jsonl")
    totals = rank_pairs(scores)
    lines: list[PairLine] = []
    for i, p in enumerate(totals):
        previous = totals[i - 1] if i else None
        level = previous is not None and (previous.percent, previous.butler) == (
            p.percent,
            p.butler,
        )
        lines.append(
            PairLine(
                rank=lines[-1].rank if level else i + 1,
                pair=p.pair,
                boards=p.boards,
                matchpoints=round(p.matchpoints, 3),
                top=p.top,
                percent=round(p.percent, 2),
                butler_imps=p.butler,
                butler_per_board=round(p.butler_per_board, 3),
            )
        )
    ranking = SessionRanking(
        tables=len({s.ns for s in scores}),
        boards=len({s.board for s in scores}),
        pairs=lines,
    )
    _write(out_dir / "ranking.json", ranking.model_dump_json(indent=2) + "\n")
    _write(out_dir / "ranking.md", markdown_ranking(ranking))
    return ranking


def markdown_ranking(ranking: SessionRanking) -> str:
    out = [
        "# Session ranking",
        "",
        f"{ranking.tables} tables, {ranking.boards} boards. Matchpoints: 2 per table beaten on "
        "a board, 1 per tie (Neuberg's formula for a board finished at fewer tables); Butler: "
        "IMPs against the datum, the mean without the highest and lowest score, to the nearest 10.",
        "",
        "| rank | pair | boards | matchpoints | % | Butler IMPs | per board |",
        "| ---: | :--- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for p in ranking.pairs:
        out.append(
            f"| {p.rank} | {p.pair} | {p.boards} | {p.matchpoints:.2f} of {p.top:g} | "
            f"{p.percent:.2f} | {p.butler_imps:+d} | {p.butler_per_board:+.2f} |"
        )
    return "\n".join(out) + "\n"


def summary_lines(ranking: SessionRanking) -> list[str]:
    """What the ``tm`` command prints at the end of a session of several tables."""
    head = f"ranking of {ranking.tables} tables over {ranking.boards} boards (ranking.md):"
    return [head] + [
        f"  {p.rank}. {p.pair}: {p.percent:.2f}% matchpoints, Butler {p.butler_imps:+d} IMPs"
        for p in ranking.pairs
    ]


def _write(path: Path, text: str) -> None:
    write_text_file(path, text)
