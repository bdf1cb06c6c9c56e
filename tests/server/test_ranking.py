"""A ``tm --tables 4`` session ranks its tables by matchpoints and Butler (real TCP, real seats)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from bridgebot.laws.event_scoring import butler_imps, matchpoints
from bridgebot.server.ranking import SessionRanking, pair_name, rank_session, session_scores
from bridgebot.server.records import TableRecord, read_journal
from bridgebot.server.seat import SeatClient
from endplay.types import Player

from bridgebot.agents import make_agent

BRIDGEBOT = [sys.executable, "-m", "bridgebot"]


async def test_tm_with_four_tables_ranks_them(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = await asyncio.create_subprocess_exec(
        *BRIDGEBOT, "tm", "--port", "0", "--seed", "3", "--boards", "3", "--tables", "4",
        "--out", str(out), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    first = (await asyncio.wait_for(proc.stdout.readline(), 60)).decode()
    port = int(first.strip().rsplit(":", 1)[1])
    clients = [
        SeatClient(
            "127.0.0.1", port, p, f"T{t}{'NS' if p.value % 2 == 0 else 'EW'}",
            make_agent(f"random,pass_bias={0.1 * t}", 10 * t + p.value),
        )
        for t in range(4)
        for p in Player
    ]  # fmt: skip
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
    _, err = await asyncio.wait_for(proc.communicate(), 30)
    assert proc.returncode == 0, err.decode()
    assert "ranking of 4 tables over 3 boards (ranking.md):" in err.decode()

    ranking = SessionRanking.model_validate_json((out / "ranking.json").read_bytes())
    assert ranking.tables == 4 and ranking.boards == 3 and len(ranking.pairs) == 8
    # recompute from the journal, board by board, with the plain scoring functions
    entries = read_journal(out / "journal.jsonl").records  # the session header is not a board
    assert sorted({e.table for e in entries}) == [1, 2, 3, 4]
    expected_mp: dict[str, float] = {}
    expected_butler: dict[str, int] = {}
    for board in (1, 2, 3):
        rows = sorted((e for e in entries if e.board == board), key=lambda e: e.table)
        assert len(rows) == 4
        scores = [e.score() for e in rows]
        for e, mp, b in zip(rows, matchpoints(scores), butler_imps(scores), strict=True):
            ns = pair_name(e.table, "NS", e.ns_team)
            ew = pair_name(e.table, "EW", e.ew_team)
            expected_mp[ns] = expected_mp.get(ns, 0) + mp
            expected_mp[ew] = expected_mp.get(ew, 0) + 6 - mp
            expected_butler[ns] = expected_butler.get(ns, 0) + b
            expected_butler[ew] = expected_butler.get(ew, 0) - b
    for p in ranking.pairs:
        assert p.matchpoints == pytest.approx(expected_mp[p.pair])
        assert p.top == 18 and p.boards == 3
        assert p.butler_imps == expected_butler[p.pair]
    percents = [p.percent for p in ranking.pairs]
    assert percents == sorted(percents, reverse=True)
    assert "| 1 | " in (out / "ranking.md").read_text()


def record(
    table: int, board: int, score: int | None, aborted: str | None = None, **teams: str
) -> str:
    """A journal line of ``board`` at ``table`` scoring ``score`` for North-South (the ranking
    reads the score only: the auction is not the one that made it)."""
    deal = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
    line = TableRecord(table=table, board=board, dealer="N", vul="None", deal=deal,
                       auction=("Pass",) * 4, score_ns=score, aborted=aborted, **teams)  # fmt: skip
    return line.model_dump_json()


def test_aborted_board_counts_at_fewer_tables_and_torn_line_is_ignored(tmp_path: Path) -> None:
    lines = [
        record(1, 1, 420), record(2, 1, 170), record(3, 1, 170),
        record(1, 2, -100), record(2, 2, None, "timeout"), record(3, 2, 50),
    ]  # fmt: skip
    (tmp_path / "journal.jsonl").write_text("\n".join(lines) + '\n{"table": 1, "boa')
    assert len(session_scores(tmp_path / "journal.jsonl")) == 5
    ranking = rank_session(tmp_path)
    by_pair = {p.pair: p for p in ranking.pairs}
    # board 1 at three tables: 4 of 4 for table 1 NS; board 2 at two: 2 of 2 -> (2+1)*3/2-1 = 3.5
    assert by_pair["table 3 NS"].matchpoints == pytest.approx(1 + 3.5)
    assert by_pair["table 1 NS"].matchpoints == pytest.approx(4 + (0 + 1) * 3 / 2 - 1)
    assert by_pair["table 2 NS"].boards == 1 and by_pair["table 2 NS"].top == 4
    # table 2 EW played one board, 3 of 4: 75%, the best
    assert ranking.pairs[0].pair == "table 2 EW" and ranking.pairs[0].percent == 75.0
    # table 2 NS and table 3 NS tie on board 1 (170 each): 1 each
    assert by_pair["table 2 NS"].matchpoints == 1


def test_pairs_named_by_the_teams_the_journal_records(tmp_path: Path) -> None:
    lines = [record(1, 1, 420, ns_team="WBridge5", ew_team="Bots"), record(2, 1, -50)]
    (tmp_path / "journal.jsonl").write_text("".join(e + "\n" for e in lines))
    names = [p.pair for p in rank_session(tmp_path).pairs]
    assert names == ["table 1 NS (WBridge5)", "table 2 EW", "table 1 EW (Bots)", "table 2 NS"]
