"""Real play with our shipped ``default`` agent in every seat of both rooms, in one process."""

from __future__ import annotations

from pathlib import Path

from bridgebot.laws.calls import final_contract
from bridgebot.laws.notation import parse_call
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.match import run_match
from endplay.types import Player

from bridgebot.agents import make_agent


def test_eight_default_seats_in_one_process_play_two_boards_over_tcp(tmp_path: Path) -> None:
    """Eight card players of one process solve at once through the one solver door; before it
    this died within a second (DDS is not reentrant). A small worlds budget: the bug is
    concurrency, not budget. The other pair plays ``play=auction`` (worlds weighed by the
    auction, its models read on the first card of each seat), so both card players of the
    agents play real boards."""
    cfg = MatchConfig(
        make_agent=make_agent,
        us="default,worlds=3,lead_worlds=2",
        them="default,play=auction,worlds=2,lead_worlds=2",
        out=tmp_path,
        boards=2,
        seed=1,
        scoring="play",
    )
    assert cfg.use_tcp
    summary = run_match(cfg, progress=lambda b: None)
    boards = read_journal(tmp_path / "journal.jsonl").boards
    assert summary.boards == 2 and [b.board for b in boards] == [1, 2]
    played = 0
    for b in boards:
        for room in b.rooms:
            assert set(room.seats) == {cfg.us, cfg.them}
            if final_contract(Player.find(b.dealer), [parse_call(c) for c in room.auction]):
                played += 1
                assert len(room.play) == 52 and room.tricks is not None
    assert played >= 2
