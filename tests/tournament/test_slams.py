"""Slam accounting (``tournament.slams``) on hand-made boards, tables from the real DDS solver.

North-South hold a spade slam that makes exactly (12 tricks for either declarer, 7 or 8 in the
other strains); East-West make seven tricks in clubs and nothing else. Board 1: North deals,
nobody vulnerable.
"""

from __future__ import annotations

import pytest
from bridgebot.laws.boards import BoardDeal, cycle_board
from bridgebot.laws.notation import parse_call
from bridgebot.laws.scoring import imps
from bridgebot.server.records import TableRecord
from bridgebot.tournament.ddmatch import dd_room_result
from bridgebot.tournament.ddtables import solve_dd
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import THEM, US, seatings
from bridgebot.tournament.slams import reference, side_room, slam_figures
from endplay.types import Player

PBN = "N:AKQJ2.AK32.A32.2 543.JT98.QJT.KQJ T9876.Q4.K54.543 .765.9876.AT9876"
NS, EW = 0, 1


@pytest.fixture(scope="module")
def board() -> BoardDeal:
    return cycle_board(1, PBN, solve_dd(PBN))


def room(board: BoardDeal, auction: str, name: str = "open") -> TableRecord:
    seating = next(s for s in seatings("team") if s.room == name)
    calls = tuple(parse_call(c) for c in auction.split())
    return dd_room_result(board, seating, ["a", "b", "a", "b"], calls)


def test_the_deal_is_what_the_cases_below_assume(board: BoardDeal) -> None:
    assert board.dd is not None
    assert board.dd[Player.north.value].tolist() == [5, 7, 8, 12, 7]
    assert board.dd[Player.south.value].tolist() == [5, 7, 8, 12, 7]
    assert board.dd[Player.west.value].tolist() == [7, 5, 3, 1, 3]
    assert board.dd[Player.east.value].tolist() == [7, 5, 3, 1, 3]


def test_stopping_in_game_with_a_making_slam_is_a_missed_slam(board: BoardDeal) -> None:
    assert board.dd is not None
    r = side_room(room(board, "1S P 4S P P P"), board.dd, NS)
    assert (r.chance, r.grand_chance, r.level, r.made) == (True, False, 4, True)
    assert (r.reference.level, r.reference.strain, r.reference.score) == (6, 3, 980)
    assert r.kind == "missed"
    assert r.imps == imps(480 - 980) == -11
    # East-West passed a making 4S they could not outbid: nothing given up.
    e = side_room(room(board, "1S P 4S P P P"), board.dd, EW)
    assert (e.chance, e.level, e.reference.score, e.imps, e.kind) == (False, 0, -480, 0, "rest")


def test_a_grand_one_trick_short_is_a_failed_slam(board: BoardDeal) -> None:
    assert board.dd is not None
    r = side_room(room(board, "7S P P P"), board.dd, NS)
    assert (r.level, r.made, r.slam, r.grand, r.kind) == (7, False, True, True, "failed")
    assert r.imps == imps(-50 - 980) == -14
    assert not r.misplaced  # no strain makes 13


def test_a_slam_in_the_wrong_strain_is_a_misplaced_failed_slam(board: BoardDeal) -> None:
    """6H goes down (7 tricks); 6S makes: the slam was there, the strain was wrong."""
    assert board.dd is not None
    r = side_room(room(board, "1S P 2H P 6H P P P"), board.dd, NS)
    assert (r.level, r.made, r.kind, r.misplaced) == (6, False, "failed", True)
    assert not side_room(room(board, "1S P 6S P P P"), board.dd, NS).misplaced  # it makes


def test_a_sacrifice_over_a_slam_that_makes_is_still_a_missed_slam(board: BoardDeal) -> None:
    """West declares 5C (down four, +200 to North-South): North-South could have bid on to 6S."""
    assert board.dd is not None
    record = room(board, "1S P P 5C P P P")
    assert record.declarer == "W" and record.score_ns == 200
    ns = side_room(record, board.dd, NS)
    assert (ns.level, ns.reference.score, ns.kind) == (0, 980, "missed")
    assert ns.imps == imps(200 - 980) == -13
    # East-West's reference is passing 1S (which makes 12 tricks: -230); their 5C lost 200.
    ew = side_room(record, board.dd, EW)
    assert (ew.level, ew.made, ew.reference.level, ew.reference.score) == (5, False, 0, -230)
    assert (ew.imps, ew.kind) == (imps(-200 + 230), "rest")


def test_a_sacrifice_no_making_contract_outranks_costs_nothing(board: BoardDeal) -> None:
    """East opens 7C: no North-South contract above it makes, so passing is their reference;
    doubling it gains against that."""
    assert board.dd is not None
    record = room(board, "P 7C X P P P")
    assert record.score_ns == 1400  # seven clubs doubled, down six, not vulnerable
    ns = side_room(record, board.dd, NS)
    assert ns.chance and ns.reference.level == 0 and ns.reference.score == 300
    assert (ns.kind, ns.imps) == ("rest", imps(1400 - 300))


def test_reference_with_no_bid_by_the_other_side_is_the_best_making_contract(
    board: BoardDeal,
) -> None:
    assert board.dd is not None
    best = reference(board.dd, board.vul, NS, board.dealer, ())
    assert (best.level, best.strain, best.declarer, best.score) == (6, 3, Player.north, 980)
    # East-West's best is 1C making (+70 by either of them), against a passed-out board's 0.
    assert reference(board.dd, board.vul, EW, board.dealer, ()).score == 70


def test_match_figures_count_each_side_once_per_board(board: BoardDeal) -> None:
    """Open room: we (North-South) stop in 4S; closed room: they (North-South) bid 6S."""
    assert board.dd is not None
    rooms = (room(board, "1S P 4S P P P", "open"), room(board, "1S P 6S P P P", "closed"))
    result = BoardResult(rooms=rooms, imps=imps(480 - 980))
    figures = slam_figures([result], [board.dd])
    us, them = figures.teams[US], figures.teams[THEM]
    assert (us.chances, us.bid_on_chance, us.slams, us.missed, us.rest) == (1, 0, 0, [-11], [0])
    assert (them.chances, them.bid_on_chance, them.slams, them.slams_made) == (1, 1, 1, 1)
    assert them.missed == [0] and them.failed == [0] and them.total == [0]
    assert figures.one_room == [True] and figures.one_room_imps == [-11]
    assert us.as_dict()["missed"] == {
        "imps": -11,
        "per_board": -11.0,
        "se": pytest.approx(float("nan"), nan_ok=True),
    }
