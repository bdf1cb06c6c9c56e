"""The 16-board cycle and vulnerable sides: scalar forms against the table printed on every
duplicate board, and the numpy twins against the scalar forms."""

from __future__ import annotations

import numpy as np
import pytest
from bridgebot.laws.boards import (
    dealer_of,
    dealer_vul_arrays,
    side_vulnerable,
    side_vulnerable_arrays,
    vul_of,
)
from endplay.types import Player, Vul

#: Boards 1-16 as printed on duplicate boards: dealer and vulnerability.
PRINTED = [
    ("N", "None"), ("E", "NS"), ("S", "EW"), ("W", "All"),
    ("N", "NS"), ("E", "EW"), ("S", "All"), ("W", "None"),
    ("N", "EW"), ("E", "All"), ("S", "None"), ("W", "NS"),
    ("N", "All"), ("E", "None"), ("S", "NS"), ("W", "EW"),
]  # fmt: skip
_VUL = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}


@pytest.mark.parametrize("board", range(1, 49))
def test_the_cycle_matches_the_printed_boards(board: int) -> None:
    dealer, vul = PRINTED[(board - 1) % 16]
    assert dealer_of(board) is Player.find(dealer)
    assert vul_of(board) is _VUL[vul]


def test_boards_count_from_one() -> None:
    with pytest.raises(ValueError, match="start at 1"):
        dealer_of(0)
    with pytest.raises(ValueError, match="start at 1"):
        dealer_vul_arrays([3, 0])


def test_the_array_twin_equals_the_scalar_form() -> None:
    boards = np.arange(1, 100)
    dealers, vuls = dealer_vul_arrays(boards)
    assert [Player(int(d)) for d in dealers] == [dealer_of(int(b)) for b in boards]
    assert [Vul(int(v)) for v in vuls] == [vul_of(int(b)) for b in boards]


def test_vulnerable_sides() -> None:
    assert side_vulnerable(Vul.ns, Player.south) and not side_vulnerable(Vul.ns, Player.east)
    assert side_vulnerable(Vul.ew, Player.west) and not side_vulnerable(Vul.ew, Player.north)
    assert all(side_vulnerable(Vul.both, p) for p in Player)
    assert not any(side_vulnerable(Vul.none, p) for p in Player)
    vuls = np.repeat([v.value for v in Vul], 4)
    seats = np.tile(np.arange(4), 4)
    want = [side_vulnerable(Vul(int(v)), Player(int(s))) for v, s in zip(vuls, seats, strict=True)]
    assert side_vulnerable_arrays(vuls, seats).tolist() == want
