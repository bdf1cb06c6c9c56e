"""Board sources and records: the 16-board cycle, seeded generation, PBN in and out."""

from __future__ import annotations

import json
from pathlib import Path

import endplay.parsers.pbn as pbn
import pytest
from bridgebot.laws import calls as rules
from bridgebot.protocol.table import BoardResult
from bridgebot.server.boards import (
    BoardFileError,
    dealer_of,
    from_pbn_file,
    from_pbn_text,
    generate,
    vul_of,
)
from bridgebot.server.records import RecordWriter
from endplay.types import Player, Vul


def test_the_duplicate_cycle() -> None:
    # Boards 1-4, 8, 13, 16 and 17 (the cycle repeats) as printed on every duplicate board.
    assert [dealer_of(n) for n in (1, 2, 3, 4, 5)] == [*Player, Player.north]
    expected = {1: Vul.none, 2: Vul.ns, 3: Vul.ew, 4: Vul.both, 8: Vul.none, 13: Vul.both,
                16: Vul.ew, 17: Vul.none}  # fmt: skip
    assert {n: vul_of(n) for n in expected} == expected


def test_generation_is_seeded_and_complete() -> None:
    a, b, c = generate(7, 5), generate(7, 5), generate(8, 5)
    assert [str(x.deal) for x in a] == [str(x.deal) for x in b]
    assert [str(x.deal) for x in a] != [str(x.deal) for x in c]
    for board in a:
        cards = [str(card) for p in Player for card in board.deal[p]]
        assert len(cards) == 52 == len(set(cards))


def test_records_round_trip_through_pbn(tmp_path: Path) -> None:
    boards = generate(3, 2)
    played = BoardResult(board=boards[0], auction=[rules.PASS] * 4)  # passed out
    writer = RecordWriter(tmp_path)
    writer.write(played)
    aborted = BoardResult(board=boards[1], auction=[rules.PASS], aborted="East timed out")
    writer.write(aborted)
    writer.close()
    back = from_pbn_file(tmp_path / "boards.pbn")
    assert [b.number for b in back] == [1] and str(back[0].deal) == str(boards[0].deal)
    assert pbn.loads((tmp_path / "boards.pbn").read_text())[0].auction == [rules.PASS] * 4
    lines = [json.loads(x) for x in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert [(e["board"], e["passed_out"], e["aborted"]) for e in lines] == [
        (1, True, None), (2, False, "East timed out"),
    ]  # fmt: skip


def test_bad_board_files_name_the_file_and_board(tmp_path: Path) -> None:
    with pytest.raises(BoardFileError, match=r"x\.pbn: no boards found"):
        from_pbn_text("% nothing here\n", source="x.pbn")
    with pytest.raises(BoardFileError, match=r"board 4 .* no complete deal"):
        from_pbn_text('[Board "4"]\n[Deal "N:AKQJ.. ... ... ..."]\n', source="y.pbn")
