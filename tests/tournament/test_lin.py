"""tournament.lin: a hand-written LIN line as the golden, and round trips through endplay's reader
(complete boards, played boards, and the aborted boards a table manager's journal holds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from bridgebot.laws.board_sets import lin_records as loads
from bridgebot.server.records import TableRecord
from bridgebot.tournament.lin import board_lin, dumps, journal_board
from bridgebot.tournament.report import room_board
from endplay.types import Card, Player, Vul

DEAL = "N:KQ92.Q.KQT62.AKT 864.AK84.753.J74 AT3.J62.A84.Q863 J75.T9753.J9.952"
AUCTION = ("Pass", "1S", "Pass", "3S", "Pass", "4S", "Pass", "Pass", "Pass")

#: Written by hand: players South, West, North, East; md starts with the dealer's digit
#: (1 = South) and lists South, West and North (East is the rest), each suit low to high as
#: endplay writes it; sv e = East-West vulnerable; one mb per call; pg after the auction.
GOLDEN = (
    "pn|bfg,default;seed=3,bfg,default;seed=3|st||"
    "md|1S3TAH26JD48AC368Q,S57JH3579TD9JC259,S29QKHQD26TQKCTKA,|rh||"
    "ah|Board 3|sv|e|"
    "mb|p|mb|1S|mb|p|mb|3S|mb|p|mb|4S|mb|p|mb|p|mb|p|pg||"
)


def _room(play: tuple[str, ...] = (), tricks: int | None = 10) -> TableRecord:
    return TableRecord(
        board=3,
        dealer="S",
        vul="EW",
        deal=DEAL,
        room="closed",
        seats=("bfg", "default,seed=3", "bfg", "default,seed=3"),
        auction=AUCTION,
        contract="4S",
        declarer="W",
        tricks=tricks,
        score_ns=-620,
        play=play,
    )


def test_golden_lin_written_by_hand() -> None:
    assert board_lin(room_board(_room(), "test")) == GOLDEN


def test_golden_reads_back_through_endplay() -> None:
    (back,) = loads(GOLDEN)
    assert back.deal.to_pbn() == DEAL
    assert back.dealer == Player.south and back.vul == Vul.ew and back.board_num == 3
    assert [str(c) for c in back.auction] == [str(c) for c in room_board(_room(), "t").auction]
    assert back.info["South"] == "bfg" and back.info["West"] == "default;seed=3"
    assert back.contract is not None and back.contract.declarer == Player.west


def test_played_board_round_trips() -> None:
    # West declares 4S; North leads: four complete tricks.
    play = ("DK", "D3", "D4", "D9", "DQ", "D5", "D8", "DJ", "CA", "C4", "C3", "C2")
    original = room_board(_room(play=play), "t")
    (back,) = loads(dumps([original]))
    assert [str(c) for c in back.play] == [str(c) for c in original.play]
    assert back.deal.to_pbn() == DEAL and back.board_num == 3


def _journal_entry(auction: list[str], play: list[str]) -> TableRecord:
    """A table manager's journal line for a board aborted part-way (its cards rank first, as the
    table manager wrote them before :class:`TableRecord`)."""
    return TableRecord.model_validate(
        {
            "table": 1,
            "board": 5,
            "dealer": "N",
            "vul": "NS",
            "deal": DEAL,
            "auction": auction,
            "alerts": {"1": "8 to 13 total points"},
            "play": play,
            "contract": None,
            "declarer": None,
            "tricks": None,
            "score_ns": None,
            "passed_out": False,
            "aborted": "East did not come back",
        }
    )


def test_aborted_in_the_play_keeps_complete_tricks() -> None:
    # North 1NT, all pass: East leads; the board stops after a trick and two cards.
    entry = _journal_entry(["1NT", "Pass", "Pass", "Pass"], ["S4", "S3", "S5", "SK", "HQ", "H2"])
    board = journal_board(entry)
    # Journals written before laws.notation hold the wire's rank-first form: the same board.
    old = journal_board(
        _journal_entry(["1NT", "Pass", "Pass", "Pass"], ["4S", "3S", "5S", "KS", "QH", "2H"])
    )
    assert old.play == board.play
    text = board_lin(board)
    assert text.endswith("pc|S4|pc|S3|pc|S5|pc|SK|pg||")
    (back,) = loads(text)
    assert back.play == [Card(c) for c in ("S4", "S3", "S5", "SK")]
    assert back.deal.to_pbn() == DEAL and back.board_num == 5 and back.vul == Vul.ns
    assert back.auction[1].announcement == "8 to 13 total points"


def test_aborted_in_the_auction_round_trips() -> None:
    entry = _journal_entry(["1NT", "2C"], [])
    (back,) = loads(board_lin(journal_board(entry)))
    assert [str(c) for c in back.auction][:1] == ["1NT"] and len(back.auction) == 2
    assert back.play == []


def test_match_deals_from_a_lin_file(tmp_path: Path) -> None:
    """Each record keeps its own number (the second is board 5), dealer and vulnerability."""
    from bridgebot.laws.board_sets import BoardSetError, load_deal_file

    path = tmp_path / "deals.lin"
    path.write_text(
        GOLDEN + "\n" + board_lin(journal_board(_journal_entry(["1NT", "2C"], []))) + "\n"
    )
    first, second = load_deal_file(path)
    assert first.pbn == DEAL and first.dealer == Player.south and first.vul == Vul.ew
    assert second.number == 5 and second.dealer == Player.north and second.vul == Vul.ns
    assert load_deal_file(path, boards=3) == [first, second]  # at most 3: all 2 of them
    assert load_deal_file(path, boards=1) == [first]
    (tmp_path / "bad.lin").write_text("pn|a,b,c,d|md|1SAKQ|")
    with pytest.raises(BoardSetError, match=r"bad.lin: "):
        load_deal_file(tmp_path / "bad.lin", boards=1)
