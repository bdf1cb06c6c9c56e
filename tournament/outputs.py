"""Every file a match writes besides its journal, rebuilt from the journal's records alone.

``summary.json``, ``room-NAME.pbn`` and ``room-NAME.lin`` per room, ``report.md`` with its
``running_mean.svg``, and ``report.html``: because each is a function of the journal, a resumed
match, or a match whose journal was copied elsewhere, gives the same files as an uninterrupted one.
``summary.json`` is written last (and atomically), so a match interrupted while it wrote its
outputs has none; :func:`missing_outputs` names what a match directory lacks, so that a resumed
tournament finishes every output of a match whose boards are all played.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bridgebot.core.files import write_text_file
from bridgebot.engine.agent import AgentFactory
from bridgebot.tournament.html_report import explain_boards, write_html
from bridgebot.tournament.lin import write_lin
from bridgebot.tournament.records import BoardResult, MatchHeader, MatchSummary
from bridgebot.tournament.report import (
    largest_swings,
    markdown_report,
    match_summary,
    room_board,
    write_pbn,
)


def write_outputs(
    out: Path,
    header: MatchHeader,
    boards: Sequence[BoardResult],
    make_agent: AgentFactory,
    title: str | None = None,
) -> MatchSummary:
    """Write every output of the match in ``out`` (the report's calls explained by our agent's
    policy, built by ``make_agent``; the reports headed ``title``, ``us against them`` by
    default); return its summary."""
    ordered = sorted(boards, key=lambda b: b.board)
    summary = match_summary(header, ordered)
    event = f"{header.us} v {header.them}"
    for room in rooms_of(ordered):
        write_pbn(out / f"room-{room}.pbn", ordered, room, event)
        write_lin(out / f"room-{room}.lin", [room_board(b.room(room), event) for b in ordered])
    explanations = explain_boards(make_agent, header.us, largest_swings(ordered))
    text, svg = markdown_report(header, ordered, explanations=explanations, title=title)
    (out / "report.md").write_text(text, encoding="utf-8")
    (out / "running_mean.svg").write_text(svg, encoding="utf-8")
    write_html(out, header, ordered, explanations, title=title)
    # Last: a summary says every other output is there (an interrupted run leaves none).
    write_text_file(out / SUMMARY, summary.model_dump_json(indent=2) + "\n")
    return summary


#: The file a match writes last: where it is, every output of the match is.
SUMMARY = "summary.json"


def rooms_of(boards: Sequence[BoardResult]) -> list[str]:
    """The rooms the match's ``boards`` were played in (none without a board)."""
    return [r.room for r in boards[0].rooms] if boards else []


def output_names(rooms: Sequence[str]) -> list[str]:
    """Every file :func:`write_outputs` writes for a match played in ``rooms``, the summary
    last."""
    per_room = [f"room-{room}.{kind}" for room in rooms for kind in ("pbn", "lin")]
    return [*per_room, "report.md", "running_mean.svg", "report.html", SUMMARY]


def missing_outputs(out: Path, boards: Sequence[BoardResult]) -> list[str]:
    """The outputs of the match in ``out`` whose journal holds ``boards`` that are not there
    (a run interrupted while it wrote them, or by a version that wrote the summary first)."""
    return [name for name in output_names(rooms_of(boards)) if not (out / name).is_file()]
