"""The one board loader: the npz layout, PBN and LIN files (numbers, dealers and vulnerabilities
kept as written), seeded deals with rotating dealer/vulnerability, the DD cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bridgebot.laws.board_sets import (
    BoardSetError,
    generate,
    load_boards,
    load_deal_file,
    load_npz,
    load_pbn_text,
)
from endplay.types import Deal, Player, Vul


def test_generated_deals_rotate_dealer_and_vulnerability() -> None:
    deals = generate(seed=4, boards=17)
    assert generate(seed=4, boards=17) == deals
    assert [d.dealer for d in deals[:5]] == [
        Player.north,
        Player.east,
        Player.south,
        Player.west,
        Player.north,
    ]
    assert [d.vul for d in deals[:4]] == [Vul.none, Vul.ns, Vul.ew, Vul.both]
    assert deals[16].vul == Vul.none and deals[16].number == 17  # the cycle starts again
    for d in deals:
        assert sorted(len(d.deal[p]) for p in Player) == [13, 13, 13, 13]
    assert len({d.pbn for d in deals}) == 17


def test_pbn_file_keeps_its_tags_and_reports_bad_files(tmp_path: Path) -> None:
    deal = generate(seed=1, boards=1)[0].pbn
    path = tmp_path / "two.pbn"
    path.write_text(
        f'[Board "1"]\n[Dealer "W"]\n[Vulnerable "All"]\n[Deal "{deal}"]\n\n'
        f'[Board "2"]\n[Dealer "S"]\n[Vulnerable "None"]\n[Deal "{deal}"]\n'
    )
    boards = load_deal_file(path)
    assert [(b.number, b.dealer, b.vul) for b in boards] == [
        (1, Player.west, Vul.both), (2, Player.south, Vul.none),
    ]  # fmt: skip
    assert Deal(boards[0].pbn) == Deal(deal)
    assert load_deal_file(path, boards=3) == boards  # at most 3: the file's 2
    assert load_boards(deals=path, boards=1, default=64) == boards[:1]
    with pytest.raises(BoardSetError, match=r"nope.npz: no such deal file"):
        load_boards(deals=tmp_path / "nope.npz", boards=None, default=64)
    with pytest.raises(BoardSetError, match=r"nope.pbn: no such deal file"):
        load_boards(deals=tmp_path / "nope.pbn", boards=None, default=64)
    bad = tmp_path / "bad.npz"
    np.savez(bad, something=np.zeros(3))
    with pytest.raises(BoardSetError, match=r"bad.npz: not an npz deal file"):
        load_npz(bad)


def _record(number: int, dealer: str, vul: str, deal: str) -> str:
    return f'[Board "{number}"]\n[Dealer "{dealer}"]\n[Vulnerable "{vul}"]\n[Deal "{deal}"]\n'


def test_a_file_numbering_two_boards_alike_is_refused_with_one_line() -> None:
    a, b = (d.pbn for d in generate(seed=2, boards=2))
    text = _record(5, "W", "None", a) + "\n" + _record(5, "N", "All", b)
    with pytest.raises(BoardSetError) as err:
        load_pbn_text(text, source="twice.pbn")
    assert str(err.value) == "twice.pbn: records 1 and 2 are both board 5"


def test_pbn_tags_off_the_cycle_are_kept_and_missing_ones_follow_it() -> None:
    """Issue 27: endplay replaces a Dealer tag by the cycle's (board 5: North) unless the record
    has a contract; the loader keeps the file's West."""
    a, b, c = (d.pbn for d in generate(seed=3, boards=3))
    text = (
        _record(5, "W", "None", a)
        + "\n"
        + _record(6, "N", "All", b)
        + "\n"
        + f'[Board "9"]\n[Deal "{c}"]\n'
    )
    boards = load_pbn_text(text, source="x.pbn")
    assert [(x.number, x.dealer, x.vul) for x in boards] == [
        (5, Player.west, Vul.none), (6, Player.north, Vul.both), (9, Player.north, Vul.ew),
    ]  # fmt: skip
    assert [x.pbn for x in boards] == [Deal(p).to_pbn() for p in (a, b, c)]


def test_bad_boards_name_the_file_and_board() -> None:
    with pytest.raises(BoardSetError, match=r"^x\.pbn: no boards found$"):
        load_pbn_text("% nothing here\n", source="x.pbn")
    with pytest.raises(BoardSetError, match=r"^y\.pbn: board 4 \(record 1\) has no complete deal"):
        load_pbn_text('[Board "4"]\n[Deal "N:AKQJ.. ... ... ..."]\n', source="y.pbn")
    with pytest.raises(BoardSetError, match=r"at least 1"):
        generate(seed=1, boards=0)
