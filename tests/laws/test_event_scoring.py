"""Victory points, matchpoints (Neuberg) and Butler on hand-made boards with known answers."""

from __future__ import annotations

import itertools

import pytest
from bridgebot.laws.event_scoring import (
    TableScore,
    board_matchpoints,
    butler_datum,
    butler_imps,
    matchpoints,
    neuberg,
    rank_pairs,
    victory_points,
    vp_raw,
    vp_table,
)

# The reference values of the WBF 2013 continuous scale (boards, margin, winner's VPs).
REFERENCE = [
    (16, 1, 10.31), (16, 5, 11.48), (16, 10, 12.80), (16, 20, 15.00), (16, 45, 18.66),
    (20, 1, 10.28), (20, 2, 10.55), (20, 30, 16.23),
    (32, 10, 12.05), (32, 60, 18.37),
]  # fmt: skip


@pytest.mark.parametrize(("boards", "margin", "vp"), REFERENCE)
def test_vp_reference_values(boards: int, margin: int, vp: float) -> None:
    won = victory_points(boards, margin, 0)
    assert won[0] == pytest.approx(vp, abs=0.01)
    assert won[0] + won[1] == pytest.approx(20.0)
    # the loser's side of the same match, read from the other team
    assert victory_points(boards, 0, margin) == (won[1], won[0])


@pytest.mark.parametrize("margin", [60, 61, 75, 200])
def test_vp_blitz_at_and_beyond_the_maximum(margin: int) -> None:
    assert victory_points(16, 100 + margin, 100) == (20.0, 0.0)


def test_vp_draw_is_ten_each() -> None:
    assert victory_points(32, 57, 57) == (10.0, 10.0)


@pytest.mark.parametrize("boards", range(1, 65))
def test_vp_table_is_concave_and_near_the_formula(boards: int) -> None:
    table = vp_table(boards)
    steps = [round((b - a) * 100) for a, b in itertools.pairwise(table)]
    assert all(s >= 0 for s in steps)
    assert all(later <= earlier for earlier, later in itertools.pairwise(steps))
    assert table[-1] == 20.0 and table[0] == 10.0
    if boards <= 32:  # the usual match lengths: no value moves by more than one hundredth
        for margin, vp in enumerate(table):
            assert abs(vp - round(vp_raw(boards, margin), 2)) <= 0.0100001


def test_vp_adjustment_moves_a_rounded_value() -> None:
    # 16 boards: rounding gives 13.52, 13.74, 13.97 at margins 13-15, so the 15th IMP would be
    # worth more than the 14th; the published table raises 13.74 to 13.75.
    assert round(vp_raw(16, 14), 2) == 13.74
    assert vp_table(16)[13:16] == (13.52, 13.75, 13.97)


def test_vp_bad_input() -> None:
    with pytest.raises(ValueError, match="at least one board"):
        vp_raw(0, 3)
    with pytest.raises(ValueError, match="never negative"):
        vp_raw(16, -1)


def test_matchpoints_with_ties() -> None:
    # four tables: two 420s tie with each other and beat the others
    assert matchpoints([420, 420, 170, -50]) == [5, 5, 2, 0]
    assert matchpoints([100, 100, 100]) == [2, 2, 2]
    assert matchpoints([-600]) == [0]
    scores = [430, -100, 430, 50, 620, -100]
    mps = matchpoints(scores)
    assert sum(mps) == len(scores) * (len(scores) - 1)  # every comparison hands out 2 points
    assert mps == [7, 1, 7, 4, 10, 1]


def test_neuberg_for_a_board_at_fewer_tables() -> None:
    # three tables instead of four: 3 of a top of 4 becomes (3 + 1) * 4 / 3 - 1 of a top of 6
    assert board_matchpoints([100, 100, -100], most=4) == pytest.approx([13 / 3, 13 / 3, 1 / 3])
    assert neuberg(4, 3, 4) == pytest.approx(17 / 3)  # an outright top of 3 tables: 5.67 of 6
    assert neuberg(0, 3, 4) == pytest.approx(1 / 3)
    # at the full number of tables nothing changes
    assert board_matchpoints([420, 420, 170, -50], most=4) == [5, 5, 2, 0]
    # the scaled points still average half the top
    scaled = board_matchpoints([90, 110, -50], most=5)
    assert sum(scaled) / 3 == pytest.approx(5 - 1)
    with pytest.raises(ValueError):
        neuberg(1, 5, 4)


def test_butler_datum_drops_highest_and_lowest() -> None:
    scores = [420, 170, -50, 620, 450]
    # 620 and -50 dropped: (420 + 170 + 450) / 3 = 346.7 -> 350
    assert butler_datum(scores) == 350
    assert butler_imps(scores) == [2, -5, -9, 7, 3]


def test_butler_ties_and_rounding() -> None:
    assert butler_imps([100, 100, 100, 100]) == [0, 0, 0, 0]
    # two tables: nothing would be left, the plain mean is used; 425 rounds away from zero
    assert butler_datum([420, 430]) == 430
    assert butler_datum([-420, -430]) == -430
    assert butler_datum([4, -3]) == 0
    assert butler_datum([-100, 90, 90]) == 90
    with pytest.raises(ValueError):
        butler_datum([])


def test_rank_pairs_over_boards_played_at_different_numbers_of_tables() -> None:
    scores = [
        # board 1 at four tables
        TableScore(1, "A", "B", 420),
        TableScore(1, "C", "D", 420),
        TableScore(1, "E", "F", 170),
        TableScore(1, "G", "H", -50),
        # board 2 at three tables only (G-H did not play it): Neuberg scales it to four
        TableScore(2, "A", "B", 100),
        TableScore(2, "C", "D", -100),
        TableScore(2, "E", "F", 100),
    ]
    totals = {p.pair: p for p in rank_pairs(scores)}
    # A: 5 of 6 on board 1; on board 2 a raw 3 of 4 -> (3 + 1) * 4 / 3 - 1
    assert totals["A"].matchpoints == pytest.approx(5 + 13 / 3)
    assert totals["A"].top == 12
    assert totals["B"].matchpoints == pytest.approx(1 + (6 - 13 / 3))
    assert totals["H"].matchpoints == 6 and totals["H"].boards == 1
    assert totals["H"].percent == 100.0
    # every board hands out half its top per seat on average
    assert sum(p.matchpoints for p in totals.values()) == pytest.approx(4 * 6 + 3 * 6)
    # Butler: board 1's datum (420 + 170) / 2 = 295 -> 300; board 2's 100 (one 100 and -100 out)
    assert totals["A"].butler == 3 + 0  # +120 -> 3 IMPs
    assert totals["G"].butler == -8 and totals["H"].butler == 8  # -350
    assert totals["D"].butler == -3 + 5  # -120 on board 1, +200 on board 2
    ranked = [p.pair for p in rank_pairs(scores)]
    assert ranked[0] == "H" and ranked[-1] == "G"


def test_rank_pairs_same_pair_in_both_seats() -> None:
    # an entrant of a team match sits North-South at one table and East-West at the other
    scores = [TableScore(1, "X", "Y", 620), TableScore(1, "Y", "X", 170)]
    totals = {p.pair: p for p in rank_pairs(scores)}
    assert totals["X"].matchpoints == 4 and totals["X"].top == 4 and totals["X"].boards == 2
    assert totals["Y"].percent == 0.0
    # two tables: datum (620 + 170) / 2 = 395 -> 400; +220 and -230 are 6 IMPs each
    assert totals["X"].butler == 12 and totals["Y"].butler == -12
