"""``bridgebot tm`` as a careless user runs it (issue 16): every mistake is one line on stderr and
a non-zero exit, never a traceback, and ``--resume`` neither waits on a finished session nor mixes
two sessions in one journal. In process (the dispatcher's ``main``), so no interpreter starts."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from bridgebot.laws.board_sets import generate, load_deal_file
from bridgebot.protocol.table import TableResult
from bridgebot.server.records import RecordWriter
from bridgebot.server.tm_cli import session_of

from bridgebot.cli import main

GOOD = "AT43.T853.KT.KT6 J7.Q76.Q85.QJ873 K985.A.AJ76.9542 Q62.KJ942.9432.A"
TWICE = "AT43.T853.KT.KT6 J7.Q76.Q85.QJ873 K985.A.AJ76.9542 Q62.KJ942.9432.K"


def record(number: int, deal: str) -> str:
    return f'[Board "{number}"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Deal "N:{deal}"]\n\n'


def one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in captured.err, captured.err
    assert lines[0].startswith("bridgebot tm: ")
    return lines[0]


def test_a_port_out_of_range_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tm", "--port", "99999", "--seed", "1", "--out", "unused"]) == 2
    assert "--port must be 0..65535, got 99999" in one_line_error(capsys)
    assert not Path("unused").exists()


def test_an_out_that_cannot_be_created_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert main(["tm", "--seed", "1", "--out", str(blocker / "run")]) == 2
    assert f"cannot create --out {blocker / 'run'}" in one_line_error(capsys)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (record(-2, GOOD), "board -2 (record 1): numbers start at 1"),
        (record(1, TWICE), "board 1 (record 1): a card is dealt twice (CK)"),
        (record(3, GOOD) + record(3, GOOD), "records 1 and 2 are both board 3"),
    ],
)
def test_a_bad_deal_file_is_refused_before_anyone_is_seated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, reason: str
) -> None:
    deals = tmp_path / "deals.pbn"
    deals.write_text(text)
    assert main(["tm", "--deals", str(deals), "--out", str(tmp_path / "o")]) == 2
    assert one_line_error(capsys) == f"bridgebot tm: {deals}: {reason}"
    assert not (tmp_path / "o").exists()  # nothing started


def finished_session(out: Path, seed: int, count: int) -> None:
    """The records a finished ``--seed SEED --count COUNT`` session leaves (boards passed out)."""
    boards = generate(seed, count)
    args = argparse.Namespace(deals=None, seed=seed, tables=1)
    writer = RecordWriter(out, session_of(args, boards))
    for b in boards:
        writer.write(TableResult(board=b), 1)
    writer.close()


def test_resume_of_a_finished_session_says_so_and_exits_zero(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finished_session(tmp_path, 7, 3)
    assert main(["tm", "--seed", "7", "--boards", "3", "--out", str(tmp_path), "--resume"]) == 0
    assert "is complete (3 boards in the journal); nothing to resume" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--seed", "8", "--boards", "3"], "seed 7 in the journal, 8 now"),
        (["--seed", "7", "--boards", "4"], "count 3 in the journal, 4 now"),
        (["--seed", "7", "--boards", "3", "--tables", "2"], "tables 1 in the journal, 2 now"),
    ],
)
def test_resume_with_different_parameters_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], named: str
) -> None:
    finished_session(tmp_path, 7, 3)
    journal = (tmp_path / "journal.jsonl").read_text()
    assert main(["tm", *argv, "--out", str(tmp_path), "--resume"]) == 2
    line = one_line_error(capsys)
    assert "cannot resume a different session" in line and named in line
    assert (tmp_path / "journal.jsonl").read_text() == journal  # nothing touched


def test_resume_with_another_deal_file_of_the_same_size_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "deals.pbn", tmp_path / "other.pbn"
    a.write_text(record(1, GOOD))
    hands = GOOD.split()
    b.write_text(record(1, " ".join([hands[1], hands[0], *hands[2:]])))  # N and E swapped
    out = tmp_path / "o"
    first = argparse.Namespace(deals=str(a), seed=None, tables=1)
    writer = RecordWriter(out, session_of(first, load_deal_file(a)))  # header only: nothing played
    writer.close()
    argv = ["tm", "--deals", str(b), "--out", str(out), "--resume"]
    assert main(argv) == 2
    assert "boards_file 'deals.pbn' in the journal, 'other.pbn' now" in one_line_error(capsys)


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--web-port", "0", "--human-seat", "Southwest"], "'Southwest' is not a seat"),
        (["--web-port", "0", "--human-seat", "3:S"], "no table '3' (1..1)"),
        (["--human-seat", "South"], "--human-seat is for the live tables: give --web-port too"),
    ],
)
def test_live_table_mistakes_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], reason: str
) -> None:
    assert main(["tm", "--seed", "1", "--out", str(tmp_path / "run"), *argv]) == 2
    assert reason in one_line_error(capsys)


def test_a_web_port_in_use_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["tm", "--seed", "1", "--web-port", str(port), "--out", str(tmp_path)])
    assert code == 2
    assert f"cannot serve the live tables on 127.0.0.1:{port}" in one_line_error(capsys)
