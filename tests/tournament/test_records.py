"""A match's records: journal header and board lines, the rooms a resume keeps, summary.json;
round trips, files written before the models, and damaged lines named by file and line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.server.journal import JournalError
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.journal import JOURNAL_LINE, Journal, read_journal
from bridgebot.tournament.match import run_match
from bridgebot.tournament.records import BoardResult, MatchHeader, MatchSummary
from bridgebot.tournament.rooms import KeptRoom, KeptRooms
from pydantic import ValidationError

from bridgebot.agents import make_agent
from tests.tournament.rooms_helper import board, room

#: Files written by the code before the models (``random`` against ``random``, seed 3, two
#: boards): a match scored by play and one scored double-dummy, a kept room, a summary.
EXAMPLE_DEALS = Path(__file__).parents[2] / "tournament" / "examples" / "deals.pbn"
JOURNALS = Path(__file__).parents[1] / "journals"

SEATS = ("us", "them", "us", "them")


def two_rooms(imps: int = 10) -> BoardResult:
    auction = ("1NT", "Pass", "3NT", "Pass", "Pass", "X", "Pass", "Pass", "Pass")
    return board(
        imps,
        room("open", SEATS, auction, "3NTXN", 10, 950, play=("SA",)),
        room("closed", SEATS[::-1], auction[:3] + ("Pass",) * 3, "3NTN", 9, 400),
    )


def test_board_line_round_trips() -> None:
    b = two_rooms()
    line = b.model_dump_json()
    assert JOURNAL_LINE.validate_json(line) == b
    assert (b.board, b.dealer, b.vul) == (1, "N", "None")
    assert not b.same_contract and not b.passed_out
    assert b.room("open").contract_result_text() == "3NTXN+1"


def test_header_and_summary_round_trip() -> None:
    header = MatchConfig(
        make_agent=make_agent, us="a", them="b", out=Path("x"), boards=4, seed=9
    ).header()
    assert JOURNAL_LINE.validate_json(header.model_dump_json()) == header
    summary = MatchSummary(us="a", them="b", format="team", scoring="dd", deals=None, seed=9,
                           boards=1, imps_per_board=3.0, stderr=None, ci95=(3.0, 3.0),
                           total_imps=3, passed_out=0, same_contract=1)  # fmt: skip
    assert MatchSummary.model_validate_json(summary.model_dump_json()) == summary


def test_a_board_line_holds_one_board_scored_in_every_room() -> None:
    b = two_rooms()
    other = b.rooms[1].model_copy(update={"board": 2})
    with pytest.raises(ValidationError, match="another board"):
        BoardResult(rooms=(b.rooms[0], other), imps=0)
    with pytest.raises(ValidationError, match="not all different"):
        BoardResult(rooms=(b.rooms[0], b.rooms[0]), imps=0)
    unscored = b.rooms[1].model_copy(update={"score_ns": None, "aborted": "East timed out"})
    with pytest.raises(ValidationError, match="a name and a score"):
        BoardResult(rooms=(b.rooms[0], unscored), imps=0)


def test_journals_written_before_the_models_are_read() -> None:
    played = read_journal(JOURNALS / "old-match-journal.jsonl")
    assert played.header == MatchHeader(us="random", them="random", format="team",
                                         scoring="play", deals=None, seed=3, boards=2)  # fmt: skip
    first, second = played.boards
    assert (first.board, first.imps, second.board, second.imps) == (1, -20, 2, -16)
    closed = first.room("closed")
    # written "7NTxxW" with "ns_score", cards with endplay's suit symbols ("♥6")
    assert (closed.contract, closed.declarer, closed.tricks, closed.score_ns) == (
        "7NTXX", "W", 8, 2200,
    )  # fmt: skip
    assert closed.play[:2] == ("H6", "HA") and len(closed.cards()) == 52
    assert (
        first.deal
        == closed.deal
        == "N:Q532.976.T95.KJ5 AJ7.AJ85.J842.62 KT964.KT.K3.8743 8.Q432.AQ76.AQT9"
    )
    assert (
        MatchSummary.model_validate_json((JOURNALS / "old-summary.json").read_bytes()).boards == 2
    )


def test_rooms_kept_before_the_models_are_read(tmp_path: Path) -> None:
    kept = tmp_path / "rooms-kept.jsonl"
    shutil.copy(JOURNALS / "old-rooms-kept.jsonl", kept)
    deals = {d.number: d for d in generate(3, 2)}
    rooms = KeptRooms.load(kept, deals)
    closed = rooms.results[1]["closed"]
    assert (closed.contract, closed.declarer, closed.deal) == ("7NTXX", "W", deals[1].pbn)
    assert rooms.done("closed") == {1} and rooms.done("open") == set()
    rooms.add(2, closed.model_copy(update={"board": 2, "deal": deals[2].pbn,
                                           "dealer": "E", "vul": "NS"}))  # fmt: skip
    again = KeptRooms.load(kept, deals)
    assert again.done("closed") == {1, 2}
    assert KeptRoom.model_validate_json(kept.read_text().splitlines()[1]).room.board == 2


def test_resume_across_the_upgrade(tmp_path: Path) -> None:
    """A match journaled by the code before the models, killed after board 1, resumes: board 1
    is kept as it was, board 2 is played and journaled in the new form after it. (Its deals come
    from a file: a seeded journal of that code is refused, next test.)"""
    deals = tmp_path / "deals.pbn"
    shutil.copy(EXAMPLE_DEALS, deals)
    lines = (JOURNALS / "old-match-journal-dd.jsonl").read_text(encoding="utf-8").splitlines()
    header = {**json.loads(lines[0]), "deals": str(deals), "seed": None}
    (tmp_path / "journal.jsonl").write_text(
        "\n".join([json.dumps(header), lines[1]]) + "\n", encoding="utf-8"
    )
    before = read_journal(tmp_path / "journal.jsonl").boards
    cfg = MatchConfig(
        make_agent=make_agent, us="random", them="random", out=tmp_path, boards=2, deals=deals,
        resume=True,
    )  # fmt: skip
    summary = run_match(cfg, progress=lambda b: None)
    after = read_journal(tmp_path / "journal.jsonl")
    assert after.boards[0] == before[0] and [b.board for b in after.boards] == [1, 2]
    assert json.loads((tmp_path / "journal.jsonl").read_text().splitlines()[2])["type"] == "board"
    assert summary.boards == 2 and summary.total_imps == sum(b.imps for b in after.boards)
    assert set(json.loads((tmp_path / "summary.json").read_text())) >= {
        "boards", "imps_per_board", "stderr", "us", "them", "scoring", "format",
    }  # fmt: skip


def test_a_seeded_journal_of_another_deal_stream_is_refused(tmp_path: Path) -> None:
    """Seeded boards before ``laws.deals`` came from another generator: resuming such a journal
    would deal its remaining boards from today's stream, so it is refused, saying why."""
    lines = (JOURNALS / "old-match-journal-dd.jsonl").read_text(encoding="utf-8").splitlines()
    (tmp_path / "journal.jsonl").write_text("\n".join(lines[:2]) + "\n", encoding="utf-8")
    cfg = MatchConfig(
        make_agent=make_agent, us="random", them="random", out=tmp_path, boards=2, seed=3,
        resume=True,
    )  # fmt: skip
    with pytest.raises(JournalError, match=r"stream: journal None, now '.+another generator"):
        run_match(cfg, progress=lambda b: None)
    assert (tmp_path / "journal.jsonl").read_text().splitlines() == lines[:2]  # untouched


def test_a_damaged_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    header, first, second = (JOURNALS / "old-match-journal.jsonl").read_text().splitlines()
    broken = json.loads(first)
    del broken["rooms"][1]["auction"]
    path.write_text("\n".join([header, second, json.dumps(broken)]) + "\n")
    with pytest.raises(JournalError, match=rf"{path}:3: not a journal record \(.*auction"):
        read_journal(path)
    path.write_text("\n".join([header, '{"type": "boards"}']) + "\n")
    with pytest.raises(JournalError, match=rf"{path}:2: not a journal record"):
        read_journal(path)
    path.write_text("\n".join([header, second, header]) + "\n")
    with pytest.raises(JournalError, match=rf"{path}:3: a second match header"):
        read_journal(path)
    path.write_text("\n".join([header, second]) + "\n")
    other = MatchHeader(us="random", them="default", format="team", scoring="play", deals=None,
                        seed=3, boards=4)  # fmt: skip
    with pytest.raises(JournalError, match="them: journal 'random', now 'default'"):
        Journal(path, other, resume=True)
