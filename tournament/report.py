"""Outputs built from the journal only: summary.json, one PBN file per room, and a Markdown report.

Because every output is a function of the journal, a resumed match, or a match whose journal was
copied elsewhere, gives the same files as an uninterrupted one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from bridgebot.core.stats import Summary, finite, running_mean, summarize
from bridgebot.laws.cards import SEATS
from bridgebot.server.records import TableRecord
from bridgebot.tournament.ddcost import cost_summary
from bridgebot.tournament.doubled import doubled_section
from bridgebot.tournament.records import BoardResult, MatchHeader, MatchSummary
from endplay.parsers import pbn
from endplay.types import Board, Deal, Player

_SUIT_SYMBOLS = ("S", "H", "D", "C")
#: Histogram bins of IMPs per board (inclusive bounds).
BINS = ((-24, -13), (-12, -7), (-6, -3), (-2, -1), (0, 0), (1, 2), (3, 6), (7, 12), (13, 24))


def boards_text(n: int) -> str:
    """``1 board``, ``2 boards``."""
    return f"{n} board{'' if n == 1 else 's'}"


def match_title(header: MatchHeader) -> str:
    """A match's report title unless its command names one (``bridgebot play``: the person)."""
    return f"{header.us} against {header.them}"


def match_summary(header: MatchHeader, boards: Sequence[BoardResult]) -> MatchSummary:
    """The ``summary.json`` contents; ``dd_cost`` where every board was costed
    (:func:`tournament.ddcost.cost_summary`)."""
    s = summarize([b.imps for b in boards])
    return MatchSummary(
        us=header.us,
        them=header.them,
        format=header.format,
        scoring=header.scoring,
        deals=header.deals,
        seed=header.seed,
        boards=s.boards,
        imps_per_board=finite(s.imps_per_board),
        stderr=finite(s.stderr),
        ci95=(finite(s.ci_low), finite(s.ci_high)),
        total_imps=s.total_imps,
        passed_out=sum(b.passed_out for b in boards),
        same_contract=sum(b.same_contract for b in boards),
        dd_cost=cost_summary(header.format, boards),
    )


def room_board(room: TableRecord, event: str) -> Board:
    """An endplay Board for one room's play of a board (deal, auction, play, result)."""
    board = Board(
        Deal(room.deal),
        room.calls(),
        room.cards(),
        board_num=room.board,
        vul=room.vulnerability(),
        dealer=room.dealer_seat(),
        contract=room.final_contract(),
    )
    board.info["Event"] = event
    board.info["Scoring"] = "IMP"
    board.info["Room"] = room.room
    for seat, name in zip(Player, room.seats or (), strict=True):
        board.info[seat.name.capitalize()] = name
    return board


def write_pbn(path: Path, boards: Sequence[BoardResult], room: str, event: str) -> None:
    records = [room_board(b.room(room), event) for b in boards]
    path.write_text(pbn.dumps(records), encoding="utf-8")


def hand_diagram(deal_pbn: str) -> list[str]:
    """A monospace diagram: North on top, West and East side by side, South below."""
    deal = Deal(deal_pbn)

    def lines(p: Player) -> list[str]:
        hand_pbn = deal[p].to_pbn().split(".")
        return [f"{s} {h or '-'}" for s, h in zip(_SUIT_SYMBOLS, hand_pbn, strict=True)]

    north, east, south, west = (lines(p) for p in Player)
    out = [" " * 16 + x for x in north]
    out += [f"{w:<32}{e}" for w, e in zip(west, east, strict=True)]
    out += [" " * 16 + x for x in south]
    return out


def _auction_rows(room: TableRecord, dealer: str) -> list[str]:
    start = SEATS.index(dealer)
    cells = [""] * start + list(room.auction)
    rows = ["  ".join(f"{c:<4}" for c in cells[i : i + 4]) for i in range(0, len(cells), 4)]
    return ["N     E     S     W", *rows]


def svg_running_mean(imps: Sequence[int]) -> str:
    mean, se = running_mean(imps)
    n = len(mean)
    w, h, pad = 600, 240, 30
    lows = [m - 1.96 * s if not math.isnan(s) else m for m, s in zip(mean, se, strict=True)]
    highs = [m + 1.96 * s if not math.isnan(s) else m for m, s in zip(mean, se, strict=True)]
    top = max([*highs, 1.0])
    bottom = min([*lows, -1.0])

    def x(i: int) -> float:
        return pad + (w - 2 * pad) * (i / max(n - 1, 1))

    def y(v: float) -> float:
        return pad + (h - 2 * pad) * (top - v) / (top - bottom)

    band = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(highs)]
    band += [f"{x(i):.1f},{y(v):.1f}" for i, v in reversed(list(enumerate(lows)))]
    line = [f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(mean)]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}">'
        f'<rect width="{w}" height="{h}" fill="white"/>'
        f'<line x1="{pad}" y1="{y(0):.1f}" x2="{w - pad}" y2="{y(0):.1f}" stroke="gray"/>'
        f'<polygon points="{" ".join(band)}" fill="#9cf" fill-opacity="0.5"/>'
        f'<polyline points="{" ".join(line)}" fill="none" stroke="#036" stroke-width="2"/>'
        f'<text x="{pad}" y="{pad - 10}" font-size="12">running IMPs/board, 95% band;'
        f" range {bottom:.1f} to {top:.1f}</text>"
        "</svg>\n"
    )


def largest_swings(boards: Sequence[BoardResult], n: int = 5) -> list[BoardResult]:
    return sorted(boards, key=lambda b: (-abs(b.imps), b.board))[:n]


def markdown_report(
    header: MatchHeader,
    boards: Sequence[BoardResult],
    swings: int = 5,
    explanations: Mapping[tuple[int, str], Sequence[str | None]] | None = None,
    title: str | None = None,
) -> tuple[str, str]:
    """The report text (headed ``title``, :func:`match_title` by default) and the SVG of the
    running mean it links to (``running_mean.svg``)."""
    imps = [b.imps for b in boards]
    s: Summary = summarize(imps)
    out = [
        f"# {title or match_title(header)}",
        "",
        f"Format {header.format}, scoring {header.scoring}, {boards_text(s.boards)}"
        + (f", deals {header.deals}" if header.deals else f", seed {header.seed}")
        + ".",
        "",
        "| boards | IMPs/board | standard error | 95% bootstrap interval | total IMPs |",
        "| ---: | ---: | ---: | :---: | ---: |",
        f"| {s.boards} | {s.imps_per_board:+.2f} | {s.stderr:.2f} | "
        f"[{s.ci_low:+.2f}, {s.ci_high:+.2f}] | {s.total_imps:+d} |",
        "",
        "Claim only a difference larger than two standard errors.",
        "",
        "## Board results",
        "",
        "| IMPs | boards | |",
        "| :--- | ---: | :--- |",
    ]
    # The compatible format sums four IMP terms (up to +/-96 a board): open-ended end bins, shown
    # when a board falls there, so every board is counted.
    below = sum(v < BINS[0][0] for v in imps)
    above = sum(v > BINS[-1][1] for v in imps)
    rows = [(f"{BINS[0][0] - 1} or less", below)] if below else []
    for low, high in BINS:
        label = str(low) if low == high else f"{low} to {high}"
        rows.append((label, sum(low <= v <= high for v in imps)))
    rows += [(f"{BINS[-1][1] + 1} or more", above)] if above else []
    out += [f"| {label} | {count} | {'#' * count} |" for label, count in rows]
    out += ["", "## Running mean", "", "![running mean](running_mean.svg)", ""]
    out += doubled_section(boards, header.format, {"us": header.us, "them": header.them})
    passed = [b.board for b in boards if b.passed_out]
    same = [b.board for b in boards if b.same_contract and not b.passed_out]
    out += [
        "## Passed-out boards",
        "",
        f"{boards_text(len(passed))}: {', '.join(map(str, passed)) or 'none'}.",
        "",
        "## Same contract in every room",
        "",
        f"{boards_text(len(same))}: {', '.join(map(str, same)) or 'none'}; "
        f"{sum(b.imps for b in boards if b.same_contract)} IMPs came from them.",
        "",
        "## Largest swings",
        "",
    ]
    for b in largest_swings(boards, swings):
        out += [
            f"### Board {b.board}: {b.imps:+d} IMPs (dealer {b.dealer}, vul {b.vul})",
            "",
            "```",
        ]
        out += hand_diagram(b.deal)
        for room in b.rooms:
            result = room_result_text(room)
            out += ["", f"{room.room}: {' '.join(room.seats or ())} -> {result}"]
            out += _auction_rows(room, b.dealer)
        out += ["```", ""]
        out += _explanation_rows(b, explanations or {})
    rooms = [r.room for r in boards[0].rooms] if boards else []
    out += ["## Every board", "", "| board | " + " | ".join(rooms) + " | IMPs |"]
    out.append("| ---: |" + " :--- |" * len(rooms) + " ---: |")
    for b in boards:
        cells = [room_result_text(r) for r in b.rooms]
        out.append(f"| {b.board} | " + " | ".join(cells) + f" | {b.imps:+d} |")
    return "\n".join(out) + "\n", svg_running_mean(imps)


def _explanation_rows(
    b: BoardResult, explanations: Mapping[tuple[int, str], Sequence[str | None]]
) -> list[str]:
    """Our calls of a board with our policy's explanation (engine.explain), one row each."""
    rows = [
        f"| {room.room} | {'NESW'[('NESW'.index(b.dealer) + i) % 4]} | {room.auction[i]} | {text} |"
        for room in b.rooms
        for i, text in enumerate(explanations.get((b.board, room.room), ()))
        if text
    ]
    if not rows:
        return []
    return ["| room | seat | call | explanations |", "| :--- | :---: | :---: | :--- |", *rows, ""]


def room_result_text(room: TableRecord) -> str:
    """``4HXS-1 (+100)`` (the result as :func:`laws.notation.result_text` writes it, then
    North-South's score), or ``passed out (0)``."""
    if room.contract is None or room.tricks is None:
        return "passed out (0)"
    return f"{room.contract_result_text()} ({room.score():+d})"
