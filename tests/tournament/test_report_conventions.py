"""The match report reads our calls as our seat alerts them: the layered agent's 4NT (the
shipped model of issue 42, ``tests.policies.LAYERED``) is its control ask and the answer a control answer, as ``bridgebot explain`` and the seat's alert say
(issue 42: the report built its explainer without the convention and read the 4NT as a natural
bid, "4NT: 21-21 HCP, 5+ spades, 5+ clubs ...")."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from bridgebot.laws.board_sets import generate
from bridgebot.laws.notation import vul_text
from bridgebot.server.records import TableRecord
from bridgebot.tournament.html_report import explain_boards
from bridgebot.tournament.records import BoardResult

from bridgebot.agents import make_agent
from tests.policies import layered

RECORD = Path(__file__).resolve().parents[1] / "engine" / "data" / "pipeline_record.json.gz"


def a_board_with_our_control_ask() -> tuple[BoardResult, str]:
    """A board of the pipeline record where ``default`` asked and was answered, as a match
    journals it (both rooms, the seats named by their specs); and the room with the ask."""
    with gzip.open(RECORD, "rt") as f:
        record = json.load(f)
    entry = record["agents"]["default"]
    number = entry["changed"]["answer"][0]
    (deal,) = generate(record["seed"], 1, first=number)
    (played,) = [b for b in entry["boards"] if b["board"] == number]
    us, them = layered("default"), record["opponent"]
    rooms = []
    for room, seats in (("open", (us, them, us, them)), ("closed", (them, us, them, us))):
        rooms.append(
            TableRecord(
                board=number,
                dealer=deal.dealer.abbr,
                vul=vul_text(deal.vul),
                deal=deal.pbn,
                room=room,
                seats=seats,
                auction=tuple(played[room].split()),
                passed_out=True,
                score_ns=0,
            )
        )
    asked = next(r.room for r in rooms if "4NT" in r.auction)
    return BoardResult(rooms=tuple(rooms), imps=0), asked


def test_the_report_reads_our_control_ask_as_the_seat_alerts_it() -> None:
    board, room = a_board_with_our_control_ask()
    texts = explain_boards(make_agent, layered("default"), [board])[(board.board, room)]
    auction = next(r.auction for r in board.rooms if r.room == room)
    ask = auction.index("4NT")
    assert texts[ask] is not None and texts[ask].startswith("4NT: Control ask"), texts[ask]
    answer = texts[ask + 2]
    assert answer is not None and "Control answer" in answer, answer
