"""Every file a match writes besides its journal, rebuilt from the journal's records alone.

``summary.json``, ``room-NAME.pbn`` and ``room-NAME.lin`` per room, ``report.md`` with its
``running_mean.svg``, and ``report.html``: because each is a function of the journal, a resumed
match, or a match whose journal was copied elsewhere, gives the same files as an uninterrupted one.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

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
    (out / "summary.json").write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
    event = f"{header.us} v {header.them}"
    rooms = [r.room for r in ordered[0].rooms] if ordered else []
    for room in rooms:
        write_pbn(out / f"room-{room}.pbn", ordered, room, event)
        write_lin(out / f"room-{room}.lin", [room_board(b.room(room), event) for b in ordered])
    explanations = explain_boards(make_agent, header.us, largest_swings(ordered))
    text, svg = markdown_report(header, ordered, explanations=explanations, title=title)
    (out / "report.md").write_text(text, encoding="utf-8")
    (out / "running_mean.svg").write_text(svg, encoding="utf-8")
    write_html(out, header, ordered, explanations, title=title)
    return summary
