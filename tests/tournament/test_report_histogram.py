"""The report's histogram counts every board, also the compatible format's swings past 24 IMPs."""

from __future__ import annotations

import re
from pathlib import Path

from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.match import run_match
from bridgebot.tournament.report import markdown_report

from bridgebot.agents import make_agent


def test_histogram_shows_every_board_beyond_24_imps(solved_npz: Path, tmp_path: Path) -> None:
    cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=4, deals=solved_npz,
                      fmt="compatible")  # fmt: skip
    run_match(cfg, progress=lambda b: None)
    boards = read_journal(tmp_path / "journal.jsonl").boards
    swings = [-60, 40, 0, 24]  # the compatible format sums four IMP terms: up to +/-96
    boards = [b.model_copy(update={"imps": v}) for b, v in zip(boards, swings, strict=True)]
    text, _ = markdown_report(cfg.header(), boards)
    hist = text.split("| IMPs | boards | |")[1].split("## Running mean")[0]
    rows = dict(re.findall(r"^\| ([^|]+?) \| (\d+) \|", hist, re.MULTILINE))
    assert sum(int(n) for n in rows.values()) == 4
    assert rows["-25 or less"] == "1" and rows["25 or more"] == "1" and rows["13 to 24"] == "1"
