"""The slam accounting of the league's reward (models/slam.py) on boards made by hand."""

from __future__ import annotations

import numpy as np
import pytest
from bridgebot.laws.calls import FIRST_BID
from bridgebot.models.slam import (
    fail_weight_for,
    side_best,
    side_hcp,
    slam_counts,
    slam_shortfall,
    strong_deals,
)


def _bid(level: int, strain: int) -> int:
    return FIRST_BID + (level - 1) * 5 + strain


def _auctions(table0: tuple[int, int] | None, table1: tuple[int, int] | None) -> np.ndarray:
    """One deal's two auctions, North dealing: North opens the given bid (or all pass)."""
    rows = [[_bid(*b) if b else 0, 0, 0, 0, -1, -1] for b in (table0, table1)]
    return np.array(rows)


def _table(ns_spades: int = 12, ew_best: int = 5) -> np.ndarray:
    """One deal's DD table: North-South take ``ns_spades`` in spades (6 elsewhere), East-West
    ``ew_best`` in every strain."""
    dd = np.full((1, 4, 5), 6, dtype=np.uint8)
    dd[0, 0::2, 3] = ns_spades
    dd[0, 1::2, :] = ew_best
    return dd


def test_side_best_is_the_highest_scoring_making_contract() -> None:
    dd = _table()
    score, tricks = side_best(dd, np.array([0]), 0)  # nobody vulnerable
    assert (score[0], tricks[0]) == (980, 12)  # 6S making: 180 + 300 + 500
    score, tricks = side_best(dd, np.array([1]), 0)  # N-S vulnerable
    assert score[0] == 1430
    score, tricks = side_best(dd, np.array([0]), 1)  # E-W make nothing: the board passed out
    assert (score[0], tricks[0]) == (0, 5)


def test_a_missed_slam_costs_the_imps_it_gives_up_at_that_table_only() -> None:
    dd = _table()
    # Table 0: the learner N-S stop in 4S making 12 (480); table 1: the learner E-W defend
    # 6S by the opponents (-980 for N-S... from the learner's side +: the N-S score is 980).
    ns = np.array([480, 980])
    short = slam_shortfall(dd, np.array([0]), ns, _auctions((4, 3), (6, 3)), np.array([0]))
    assert short.tolist() == [-11, 0]  # 500 points short at table 0; E-W have no slam


def test_a_failed_grand_costs_against_the_small_slam_and_a_sacrifice_costs_nothing() -> None:
    dd = _table()
    grand = _auctions((7, 3), None)
    assert slam_shortfall(dd, np.array([0]), np.array([-50, 0]), grand, np.array([0]))[0] == -14
    # The opponents sacrificed in 7H doubled, down 6: N-S +1400 is more than their slam.
    sac = _auctions((6, 3), None)
    assert slam_shortfall(dd, np.array([0]), np.array([1400, 0]), sac, np.array([0]))[0] == 0


def test_a_failed_slam_costs_as_much_as_a_missed_one_and_no_slam_no_term() -> None:
    dd = _table(ns_spades=11)
    # Table 0: the learner N-S bid 6S, one down (-50) where 4S+1 (450) was their best.
    # Table 1: the learner E-W defend 4S+1; nothing of theirs is at stake.
    ns = np.array([-50, 450])
    short = slam_shortfall(dd, np.array([0]), ns, _auctions((6, 3), (4, 3)), np.array([0]))
    assert short.tolist() == [-11, 0]
    short = slam_shortfall(dd, np.array([0]), np.array([450, 450]), _auctions((4, 3), (4, 3)),
                           np.array([0]))  # fmt: skip
    assert short.tolist() == [0, 0]


def test_the_fail_weight_charges_only_the_slams_that_went_down() -> None:
    dd = _table(ns_spades=11)
    fails = _auctions((6, 3), (4, 3))
    short = slam_shortfall(dd, np.array([0]), np.array([-50, 450]), fails, np.array([0]), 4.0)
    assert short.tolist() == [-44, 0]
    # A missed slam is charged once, whatever the weight on failures.
    dd = _table()
    short = slam_shortfall(dd, np.array([0]), np.array([480, 980]), _auctions((4, 3), (6, 3)),
                           np.array([0]), 4.0)  # fmt: skip
    assert short.tolist() == [-11, 0]


def test_the_fail_weight_puts_the_break_even_where_asked() -> None:
    assert fail_weight_for(0.5) == 1.0
    assert fail_weight_for(0.75) == 5.0
    assert fail_weight_for(0.75, slam_weight=2.0) == 4.0
    for making in (0.6, 0.7, 0.8):
        w, f = 2.0, fail_weight_for(making, 2.0)
        gain, loss = 11 * (1 + w), 11 * (1 + w * f)  # bid and make; bid and go down
        assert abs(making * gain - (1 - making) * loss) < 1e-9
    with pytest.raises(ValueError):
        fail_weight_for(1.0)


def test_slam_counts_reads_the_auctions() -> None:
    dd = np.concatenate([_table(), _table()])
    pad = [-1] * 4
    auctions = np.array(
        [
            [_bid(6, 3), 0, 0, 0, *pad],  # table 0, deal 0: learner North bids 6S, makes
            [_bid(4, 3), 0, 0, 0, *pad],  # deal 1: stops in game
            [_bid(6, 3), 0, 0, 0, *pad],  # table 1: the opponents N-S bid it
            [0, 0, 0, 0, *pad],  # passed out
        ]
    )
    c = slam_counts(auctions, np.array([0, 0]), dd)
    assert c["chances"] == 2  # the learner N-S at table 0 on both deals; E-W have none
    assert (c["bid_on_chance"], c["bid"], c["made"], c["grands_bid"]) == (1, 1, 1, 0)


def test_strong_deals_by_side_hcp() -> None:
    owners = np.zeros((2, 52), dtype=np.uint8)
    owners[0, :] = np.arange(52) % 4  # A, K, Q, J of each suit go N, E, S, W: 10 HCP each
    owners[1, :] = 1  # East holds everything but North's aces and kings: N-S 28, E-W 12
    owners[1, 0::13] = owners[1, 1::13] = 0
    assert side_hcp(owners).tolist() == [[20, 20], [28, 12]]
    assert strong_deals(owners).tolist() == [1]
    assert strong_deals(owners, min_hcp=29).tolist() == []
