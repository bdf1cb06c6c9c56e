"""One seed, one set of boards: ``bridgebot tm``, ``match``, ``teach`` and ``ddgen`` with
``--seed 7`` deal the same boards (deal ``i`` of :mod:`bridgebot.laws.deals` is board ``i + 1``).

Each command runs in process through the dispatcher, as a user types it. ``match`` plays the
boards and journals them; ``teach`` and ``ddgen`` write their npz files; ``tm`` is asked to resume
a finished session whose header holds the digest of the match's boards (dealer, vulnerability
and deal of each), which it accepts only if ``--seed 7`` deals exactly those boards.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest
from bridgebot.laws.board_sets import load_boards
from bridgebot.laws.cards import deal_owners
from bridgebot.laws.deals import random_owners_batch
from bridgebot.laws.notation import parse_vul
from bridgebot.protocol.table import TableBoard, TableResult
from bridgebot.server.records import RecordWriter
from bridgebot.server.tm_cli import session_of
from bridgebot.tournament.journal import read_journal
from endplay.types import Deal, Player, Vul

from bridgebot.cli import main

SEED, BOARDS = 7, 3


def test_tm_match_teach_and_ddgen_deal_the_same_boards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed = str(SEED)
    match_dir, tm_dir = tmp_path / "match", tmp_path / "tm"
    argv = ["--us", "random", "--them", "random", "--seed", seed, "--boards", str(BOARDS)]
    assert main(["match", *argv, "--workers", "1", "--out", str(match_dir)]) == 0
    played = read_journal(match_dir / "journal.jsonl").boards
    assert [b.board for b in played] == list(range(1, BOARDS + 1))
    match_owners = np.stack([deal_owners(b.deal) for b in played])

    teach, ddgen = tmp_path / "teach.npz", tmp_path / "dd.npz"
    common = ["--seed", seed, "--workers", "1", "--quiet"]
    assert main(["teach", "--boards", str(BOARDS), "--out", str(teach), *common]) == 0
    assert main(["ddgen", "--boards", str(BOARDS), "--out", str(ddgen), *common]) == 0
    with np.load(teach) as t, np.load(ddgen) as d:
        np.testing.assert_array_equal(t["owners"], match_owners)
        np.testing.assert_array_equal(d["owners"], match_owners)
        assert [
            (Player(int(p)), Vul(int(v))) for p, v in zip(t["dealer"], t["vul"], strict=True)
        ] == [(Player.find(b.dealer), parse_vul(b.vul)) for b in played]

    # tm: the finished session of the match's boards, resumed with --seed 7 (refused if it differs).
    boards = [
        TableBoard(b.board, Player.find(b.dealer), parse_vul(b.vul), Deal(b.deal)) for b in played
    ]
    session = session_of(argparse.Namespace(deals=None, seed=SEED, tables=1), boards)
    writer = RecordWriter(tm_dir, session)
    for b in boards:
        writer.write(TableResult(board=b), 1)
    writer.close()
    capsys.readouterr()
    tm = ["tm", "--seed", seed, "--boards", str(BOARDS), "--out", str(tm_dir), "--resume"]
    assert main(tm) == 0, capsys.readouterr().err
    assert "is complete" in capsys.readouterr().err

    # And the stream is laws.deals, deal i as board i + 1.
    np.testing.assert_array_equal(match_owners, random_owners_batch(SEED, 0, BOARDS))


def test_the_shipped_example_deals_are_boards_1_to_8_of_seed_7() -> None:
    examples = Path(__file__).resolve().parents[1] / "tournament" / "examples" / "deals.pbn"
    assert load_boards(deals=examples, boards=None, default=0) == load_boards(
        seed=7, boards=8, default=0
    )
