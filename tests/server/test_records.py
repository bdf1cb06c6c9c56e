"""The table manager's journal records: round trips, journals written before the models, and
damaged lines named by file and line."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.laws.calls import PASS
from bridgebot.protocol.table import TableResult
from bridgebot.server.journal import JournalError
from bridgebot.server.records import (
    JOURNAL_LINE,
    RecordWriter,
    SessionHeader,
    SessionLine,
    TableRecord,
    read_journal,
    table_record,
)
from bridgebot.server.resume import ResumeError, check_session, prepare
from bridgebot.server.tm_cli import session_of
from endplay.types import Bid, Card, Contract, Player
from pydantic import ValidationError

#: Written by the code before the models: the session header, a board played at table 1 of a
#: match room (cards rank first, ``8H``), and an aborted board.
OLD_TM_JOURNAL = Path(__file__).parents[1] / "journals" / "old-tm-journal.jsonl"


def played_result() -> TableResult:
    """Board 1 of seed 3: 1S by North, alerted, and the first trick."""
    board = generate(3, 1)[0]
    auction = [Bid("1S"), PASS, PASS, PASS]
    trick = [(Player.east, Card("C2")), (Player.south, Card("CA")), (Player.west, Card("CK")),
             (Player.north, Card("C3"))]  # fmt: skip
    return TableResult(
        board=board,
        auction=auction,
        play=trick,
        contract=Contract("1SN"),
        declarer_tricks=8,
        alerts={0: "5+ spades"},
        ns_seconds=1.23456,
        ew_seconds=2.0,
        ns_team="bridgebot",
        ew_team="wb5",
    )


def test_table_record_of_a_played_board_round_trips() -> None:
    record = table_record(played_result(), table=2)
    assert (record.contract, record.declarer, record.tricks, record.score_ns) == ("1S", "N", 8, 110)
    assert record.play == ("C2", "CA", "CK", "C3") and record.ns_seconds == 1.235
    line = record.model_dump_json()
    assert JOURNAL_LINE.validate_json(line) == record
    assert record.calls()[0].announcement == "5+ spades"
    contract = record.final_contract()
    assert contract is not None and contract.result == 1
    assert record.contract_result_text() == "1SN+1"


def test_session_line_round_trips() -> None:
    session = session_of(argparse.Namespace(deals=None, seed=3, tables=2), generate(3, 2))
    line = SessionLine(session=session).model_dump_json()
    assert line.startswith('{"session": {') or line.startswith('{"session":{')
    assert JOURNAL_LINE.validate_json(line) == SessionLine(session=session)


def test_records_refuse_what_is_not_a_board() -> None:
    good = table_record(played_result()).model_dump()
    for field, bad in (("dealer", "Q"), ("vul", "Both"), ("auction", ["1Z"]), ("play", ["Z9"]),
                       ("deal", "N:AKQ"), ("declarer", None), ("tricks", 14)):  # fmt: skip
        with pytest.raises(ValidationError, match=field):
            TableRecord.model_validate({**good, field: bad})
    with pytest.raises(ValidationError, match="passed out, yet a contract"):
        TableRecord.model_validate({**good, "passed_out": True})


def test_journal_written_before_the_models_is_read(tmp_path: Path) -> None:
    journal = read_journal(OLD_TM_JOURNAL)
    assert journal.session == SessionHeader(
        boards_file=None, seed=3, count=2, tables=1,
        deals_sha256="22cc8d845b75b235bec73dc341d71a94591c64b3e8c2024fa8ec8a88603ca033",
    )  # fmt: skip
    played, aborted = journal.records
    assert (played.board, played.contract, played.declarer, played.score_ns) == (1, "6S", "N", -250)
    assert played.play[:4] == ("H8", "HT", "H2", "H7")  # written "8H", "TH", ...
    assert len(played.cards()) == 52 and played.ns_team == "bridgebot"
    assert (aborted.board, aborted.table, aborted.aborted) == (2, 2, "East timed out")
    assert aborted.score_ns is None and not aborted.passed_out


def test_resume_across_the_upgrade(tmp_path: Path) -> None:
    """A session journaled by the code before the models resumes: same session, boards done, and
    new lines appended after the old ones are read with them."""
    shutil.copy(OLD_TM_JOURNAL, tmp_path / "journal.jsonl")
    found = prepare(tmp_path)
    assert found.done == {1: {1}, 2: {2}} and found.torn_lines == 0
    # That session dealt seed 3 from the generator before laws.deals (the intended exception to
    # "same seed, same boards"): today's seed 3 is refused by its deals' digest, and with the
    # old digest the old header reads as the same session.
    args = argparse.Namespace(deals=None, seed=3, tables=1)
    now = session_of(args, generate(3, 2))
    with pytest.raises(ResumeError, match="deals_sha256"):
        check_session(found, now, tmp_path / "journal.jsonl")
    old_deals = {"deals_sha256": found.session.deals_sha256}
    check_session(found, now.model_copy(update=old_deals), tmp_path / "journal.jsonl")
    with pytest.raises(ResumeError, match="seed 3 in the journal, 4 now"):
        args.seed = 4
        later = session_of(args, generate(4, 2)).model_copy(update=old_deals)
        check_session(found, later, tmp_path / "journal.jsonl")
    writer = RecordWriter(tmp_path)
    writer.write(played_result(), table=1)
    writer.close()
    assert [(r.table, r.board) for r in read_journal(tmp_path / "journal.jsonl").records] == [
        (1, 1), (2, 2), (1, 1),
    ]  # fmt: skip


def test_a_damaged_line_is_named_by_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    lines = OLD_TM_JOURNAL.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join([lines[0], lines[1], '{"board": 3, "dealer": "N"}', lines[2]]) + "\n")
    with pytest.raises(JournalError, match=rf"{path}:3: not a journal record \(.*vul"):
        read_journal(path)
    path.write_text("\n".join([lines[0], "not json", lines[1]]) + "\n")
    with pytest.raises(JournalError, match=rf"{path}:2: not a journal record"):
        read_journal(path)
    path.write_text("\n".join([lines[1], lines[0]]) + "\n")
    with pytest.raises(JournalError, match=rf"{path}:2: a session header after the first line"):
        read_journal(path)


def test_a_torn_last_line_is_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "journal.jsonl"
    text = OLD_TM_JOURNAL.read_text(encoding="utf-8")
    path.write_text(text + text.splitlines()[1][:50])
    journal = read_journal(path)
    assert journal.torn and len(journal.records) == 2
    assert journal.good_bytes == len(text.encode())
