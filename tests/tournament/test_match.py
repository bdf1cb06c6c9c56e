"""``bridgebot match`` end to end: outputs, PBN round trip, report, resume after a kill, errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bridgebot.laws.calls import final_contract
from bridgebot.laws.notation import parse_call
from bridgebot.tournament.config import MatchConfig, MatchError
from bridgebot.tournament.journal import JournalError, read_journal
from bridgebot.tournament.match import run_match
from endplay.parsers import pbn

from bridgebot.agents import make_agent
from bridgebot.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["match", *argv])
    except SystemExit as exc:  # argparse's own errors (one line too)
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_match_writes_every_output(
    solved_npz: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "m"
    code, out, _ = _run(
        capsys, "--us", "random", "--them", "random,pass_bias=0.3", "--deals", str(solved_npz),
        "--boards", "8", "--out", str(out_dir),
    )  # fmt: skip
    assert code == 0
    summary = json.loads((out_dir / "summary.json").read_text())
    journal = read_journal(out_dir / "journal.jsonl")
    imps = [b.imps for b in journal.boards]
    assert summary["boards"] == 8 == len(imps)
    assert summary["imps_per_board"] == pytest.approx(sum(imps) / 8, abs=1e-4)
    assert (summary["us"], summary["them"], summary["scoring"], summary["format"]) == (
        "random", "random,pass_bias=0.3", "dd", "team",
    )  # fmt: skip
    assert summary["ci95"][0] <= summary["imps_per_board"] <= summary["ci95"][1]
    assert f"{summary['imps_per_board']:+.2f} IMPs/board" in out
    # No solver time with a DD npz: no cache file was needed.
    assert not (out_dir / "dd_cache.npz").exists()

    # PBN round trip: endplay reads both rooms back with the journal's auctions and results.
    for room in ("open", "closed"):
        with open(out_dir / f"room-{room}.pbn") as f:
            records = pbn.load(f)
        assert len(records) == 8
        for rec, board in zip(records, journal.boards, strict=True):
            r = board.room(room)
            assert rec.board_num == board.board
            assert rec.deal.to_pbn() == board.deal
            assert [str(c) for c in rec.auction] == [str(parse_call(c)) for c in r.auction]
            assert rec.info["Room"] == room
            expected = r.final_contract()
            if expected is None:
                assert final_contract(rec.dealer, rec.auction) is None
            else:
                assert rec.contract.level == expected.level
                assert rec.contract.declarer == expected.declarer
                assert rec.contract.penalty == expected.penalty
                assert rec.contract.result == r.tricks - expected.level - 6

    report = (out_dir / "report.md").read_text()
    for heading in ("## Board results", "## Running mean", "## Passed-out boards",
                    "## Same contract in every room", "## Largest swings", "## Every board"):  # fmt: skip
        assert heading in report
    biggest = max(journal.boards, key=lambda b: (abs(b.imps), -b.board))
    assert f"### Board {biggest.board}: {biggest.imps:+d} IMPs" in report
    assert report.count("\n| ") >= 8 + 9  # every board row and every histogram bin
    assert (out_dir / "running_mean.svg").read_text().startswith("<svg")


def test_compatible_format_from_a_seed_solves_and_caches(tmp_path: Path) -> None:
    cfg = MatchConfig(
        make_agent=make_agent,
        us="random",
        them="random",
        out=tmp_path,
        boards=2,
        seed=3,
        fmt="compatible",
    )
    summary = run_match(cfg, progress=lambda b: None)
    assert summary.boards == 2 and summary.format == "compatible"
    assert sorted(p.name for p in tmp_path.glob("room-*.pbn")) == [
        "room-E.pbn", "room-N.pbn", "room-S.pbn", "room-W.pbn", "room-ref.pbn",
    ]  # fmt: skip
    assert (tmp_path / "dd_cache.npz").exists()


def test_resume_after_a_kill(big_npz: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "k"
    argv = [sys.executable, "-m", "bridgebot", "match", "--us", "random", "--them", "random",
            "--deals", str(big_npz), "--boards", "600", "--out", str(out_dir)]  # fmt: skip
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    journal = out_dir / "journal.jsonl"
    try:
        deadline = time.monotonic() + 120  # a bound on waiting, not a timing assertion
        while time.monotonic() < deadline and proc.poll() is None:
            if journal.exists() and journal.read_bytes().count(b"\n") > 10:
                break
            time.sleep(0.005)
        assert proc.poll() is None, "the match finished before it could be interrupted"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    before = read_journal(journal).boards
    assert 10 <= len(before) < 600
    # A kill in the middle of writing a line: the partial record is dropped on resume.
    with open(journal, "ab") as f:
        f.write(b'{"type": "board", "board": 99')
    kept = journal.read_bytes()[: read_journal(journal).good_bytes]

    code = subprocess.run([*argv, "--resume"], capture_output=True, text=True)
    assert code.returncode == 0, code.stderr
    after = read_journal(journal).boards
    assert journal.read_bytes().startswith(kept)
    assert sorted(b.board for b in after) == list(range(1, 601))
    assert after[: len(before)] == before
    assert json.loads((out_dir / "summary.json").read_text())["boards"] == 600


def test_resume_refuses_a_different_match(solved_npz: Path, tmp_path: Path) -> None:
    base = dict(us="random", them="random", out=tmp_path, boards=4, deals=solved_npz)
    run_match(MatchConfig(make_agent=make_agent, **base), progress=lambda b: None)  # type: ignore[arg-type]
    with pytest.raises(JournalError, match="already there"):
        run_match(MatchConfig(make_agent=make_agent, **base), progress=lambda b: None)  # type: ignore[arg-type]
    with pytest.raises(JournalError, match="them: journal 'random', now 'random,pass_bias=1'"):
        run_match(
            MatchConfig(
                make_agent=make_agent, **{**base, "them": "random,pass_bias=1"}, resume=True
            ),  # type: ignore[arg-type]
            progress=lambda b: None,
        )
    summary = run_match(
        MatchConfig(make_agent=make_agent, **base, resume=True), progress=lambda b: None
    )  # type: ignore[arg-type]
    assert summary.boards == 4
    # More boards on resume extend the match; the first four are kept as they were.
    first = (tmp_path / "journal.jsonl").read_bytes()
    summary = run_match(
        MatchConfig(make_agent=make_agent, **{**base, "boards": 6}, resume=True),  # type: ignore[arg-type]
        progress=lambda b: None,
    )
    assert summary.boards == 6
    assert (tmp_path / "journal.jsonl").read_bytes().startswith(first)
    # Fewer boards than are finished is refused, not ignored (issue 44: --resume --boards 10 on
    # a finished 64-board match said nothing and reported the 64).
    whole = (tmp_path / "journal.jsonl").read_bytes()
    with pytest.raises(MatchError, match=r"cannot resume with 4 boards: the journal holds 6 "
                       r"finished ones, 2 of them beyond those"):  # fmt: skip
        run_match(MatchConfig(make_agent=make_agent, **base, resume=True), progress=lambda b: None)  # type: ignore[arg-type]
    assert (tmp_path / "journal.jsonl").read_bytes() == whole


def test_parallel_workers_play_every_board_once(solved_npz: Path, tmp_path: Path) -> None:
    cfg = MatchConfig(
        make_agent=make_agent,
        us="random",
        them="random",
        out=tmp_path,
        boards=8,
        deals=solved_npz,
        workers=2,
        chunk=2,
    )
    summary = run_match(cfg, progress=lambda b: None)
    boards = read_journal(tmp_path / "journal.jsonl").boards
    assert sorted(b.board for b in boards) == list(range(1, 9))
    assert summary.boards == 8


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--us", "nosuchbot"], "--us: unknown agent 'nosuchbot'"),
        (["--deals", "missing.pbn"], "missing.pbn: no such deal file"),
        (["--scoring", "play", "--rooms", "inprocess"], "need --rooms tcp"),
        (["--external", "lobby:North"], "no room 'lobby' in format team"),
        (["--external", "open"], "--external: external seat 'open' is not ROOM:SEAT"),
        (["--boards", "0"], "--boards: must be at least 1, got 0"),
    ],
)
def test_errors_name_the_cause(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _run(capsys, "--us", "random", "--them", "random", "--out", str(tmp_path), *argv)
    assert code == 2
    assert message in err
