"""Board sources and records: the 16-board cycle, seeded generation, PBN in and out."""

from __future__ import annotations

import json
from pathlib import Path

import endplay.parsers.pbn as pbn
import pytest
from bridgebot.laws import calls as rules
from bridgebot.laws.board_sets import BoardSetError, generate, load_deal_file, load_pbn_text
from bridgebot.protocol.table import TableResult
from bridgebot.server.records import RecordWriter
from endplay.types import Player, Vul


def test_generation_is_seeded_and_complete() -> None:
    a, b, c = generate(7, 5), generate(7, 5), generate(8, 5)
    assert [str(x.deal) for x in a] == [str(x.deal) for x in b]
    assert [str(x.deal) for x in a] != [str(x.deal) for x in c]
    for board in a:
        cards = [str(card) for p in Player for card in board.deal[p]]
        assert len(cards) == 52 == len(set(cards))
    # Board n is deal n - 1 of the stream, with the cycle's dealer and vulnerability.
    assert [(x.number, x.dealer, x.vul) for x in a[:2]] == [
        (1, Player.north, Vul.none), (2, Player.east, Vul.ns),
    ]  # fmt: skip
    assert [str(x.deal) for x in generate(7, 2, first=4)] == [str(x.deal) for x in a[3:]]


def test_records_round_trip_through_pbn(tmp_path: Path) -> None:
    boards = generate(3, 2)
    played = TableResult(board=boards[0], auction=[rules.PASS] * 4)  # passed out
    writer = RecordWriter(tmp_path)
    writer.write(played)
    aborted = TableResult(board=boards[1], auction=[rules.PASS], aborted="East timed out")
    writer.write(aborted)
    writer.close()
    back = load_deal_file(tmp_path / "boards.pbn")
    assert [b.number for b in back] == [1] and str(back[0].deal) == str(boards[0].deal)
    assert pbn.loads((tmp_path / "boards.pbn").read_text())[0].auction == [rules.PASS] * 4
    lines = [json.loads(x) for x in (tmp_path / "journal.jsonl").read_text().splitlines()]
    assert [(e["board"], e["passed_out"], e["aborted"]) for e in lines] == [
        (1, True, None), (2, False, "East timed out"),
    ]  # fmt: skip


def test_bad_board_files_name_the_file_and_board(tmp_path: Path) -> None:
    with pytest.raises(BoardSetError, match=r"x\.pbn: no boards found"):
        load_pbn_text("% nothing here\n", source="x.pbn")
    with pytest.raises(BoardSetError, match=r"board 4 .* no complete deal"):
        load_pbn_text('[Board "4"]\n[Deal "N:AKQJ.. ... ... ..."]\n', source="y.pbn")
