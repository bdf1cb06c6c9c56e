"""Golden scores and IMPs, checked on every run.

The IMP table below is the WBF scale of Law 78B as printed in the Laws (difference ranges -> IMPs);
the hand-computed scores are worked out from the Law 77 scoring table, independently of endplay.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from bridgebot.laws.boards import side_vulnerable
from bridgebot.laws.scoring import (
    PENALTY_ORDER,
    STRAIN_ORDER,
    contract_score,
    dd_tricks,
    imps,
    imps_array,
    ns_score,
    score_array,
)
from endplay.types import Contract, Denom, Penalty, Player, Vul

# Law 78B: (lowest difference, highest difference, IMPs).
WBF_SCALE = [
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5),
    (220, 260, 6), (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10), (500, 590, 11),
    (600, 740, 12), (750, 890, 13), (900, 1090, 14), (1100, 1290, 15), (1300, 1490, 16),
    (1500, 1740, 17), (1750, 1990, 18), (2000, 2240, 19), (2250, 2490, 20), (2500, 2990, 21),
    (3000, 3490, 22), (3500, 3990, 23), (4000, 7600, 24),
]  # fmt: skip


def test_imps_full_wbf_table_both_signs() -> None:
    for low, high, expected in WBF_SCALE:
        for diff in range(low, high + 1, 10):
            assert imps(diff) == expected, diff
            assert imps(-diff) == -expected, -diff


def test_imps_array_equals_scalar() -> None:
    diffs = np.arange(-7600, 7610, 10)
    assert imps_array(diffs).tolist() == [imps(int(d)) for d in diffs]


# (level, strain, penalty, declarer vulnerable, tricks, score): worked by hand from Law 77.
HAND_SCORES = [
    (1, Denom.clubs, Penalty.passed, False, 7, 70),
    (1, Denom.nt, Penalty.passed, False, 8, 120),
    (2, Denom.spades, Penalty.passed, True, 8, 110),
    (3, Denom.nt, Penalty.passed, False, 9, 400),
    (3, Denom.nt, Penalty.passed, True, 10, 630),
    (4, Denom.hearts, Penalty.passed, True, 10, 620),
    (4, Denom.spades, Penalty.passed, False, 11, 450),
    (5, Denom.diamonds, Penalty.passed, False, 11, 400),
    (6, Denom.spades, Penalty.passed, True, 12, 1430),
    (6, Denom.nt, Penalty.passed, False, 12, 990),
    (7, Denom.nt, Penalty.passed, True, 13, 2220),
    (7, Denom.clubs, Penalty.passed, False, 13, 1440),
    (2, Denom.hearts, Penalty.doubled, False, 8, 470),  # the classic "doubled into game"
    (2, Denom.hearts, Penalty.doubled, True, 9, 870),
    (1, Denom.nt, Penalty.redoubled, True, 7, 760),
    (7, Denom.nt, Penalty.redoubled, True, 13, 2980),
    (4, Denom.spades, Penalty.passed, False, 9, -50),
    (4, Denom.spades, Penalty.passed, True, 7, -300),
    (3, Denom.nt, Penalty.doubled, False, 7, -300),
    (3, Denom.nt, Penalty.doubled, False, 5, -800),
    (3, Denom.nt, Penalty.doubled, True, 6, -800),
    (4, Denom.hearts, Penalty.redoubled, False, 7, -1000),
    (7, Denom.nt, Penalty.doubled, True, 0, -3800),
    (7, Denom.nt, Penalty.redoubled, False, 0, -7000),
]


@pytest.mark.parametrize(("level", "strain", "penalty", "vul", "tricks", "score"), HAND_SCORES)
def test_hand_computed_scores(
    level: int, strain: Denom, penalty: Penalty, vul: bool, tricks: int, score: int
) -> None:
    assert contract_score(level, strain, penalty, vul, tricks) == score
    arr = score_array(
        level, STRAIN_ORDER.index(strain), PENALTY_ORDER.index(penalty), int(vul), tricks
    )
    assert int(arr) == score


def test_score_array_equals_endplay_over_every_input() -> None:
    grid = list(itertools.product(range(1, 8), range(5), range(3), range(2), range(14)))
    lv, st, pe, vu, tr = (np.array(col) for col in zip(*grid, strict=True))
    got = score_array(lv, st, pe, vu, tr)
    want = [
        contract_score(lv_, STRAIN_ORDER[s], PENALTY_ORDER[p], bool(v), t)
        for lv_, s, p, v, t in grid
    ]
    assert got.tolist() == want
    assert len(want) == 7 * 5 * 3 * 2 * 14


def test_score_array_passed_out_and_broadcast() -> None:
    assert score_array(0, 4, 2, 1, 0).tolist() == 0
    out = score_array(np.array([[4], [3]]), 3, 0, 0, np.array([10, 9]))
    assert out.tolist() == [[420, -50], [170, 140]]


def test_score_array_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="tricks"):
        score_array(1, 0, 0, 0, 14)
    with pytest.raises(ValueError, match="level"):
        score_array(8, 0, 0, 0, 7)
    with pytest.raises(ValueError, match="level"):
        contract_score(0, Denom.nt, Penalty.passed, False, 7)


def test_ns_score_sign_and_vulnerability() -> None:
    four_spades_e = Contract(
        level=4, denom=Denom.spades, declarer=Player.east, penalty=Penalty.passed
    )
    assert ns_score(four_spades_e, 10, Vul.ew) == -620
    assert ns_score(four_spades_e, 10, Vul.ns) == -420
    three_nt_s = Contract(level=3, denom=Denom.nt, declarer=Player.south, penalty=Penalty.doubled)
    assert ns_score(three_nt_s, 7, Vul.both) == -500
    assert ns_score(None, 0, Vul.both) == 0
    assert side_vulnerable(Vul.ns, Player.west) is False
    assert side_vulnerable(Vul.ew, Player.west) is True


def test_dd_tricks_reads_the_shared_layout() -> None:
    dd = np.zeros((4, 5), dtype=np.uint8)
    dd[Player.west.value, 2] = 11  # West, hearts (strain axis C, D, H, S, NT)
    contract = Contract(level=4, denom=Denom.hearts, declarer=Player.west, penalty=Penalty.passed)
    assert dd_tricks(contract, dd) == 11
