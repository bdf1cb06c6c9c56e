"""Rooms over TCP: our table manager and seat clients on 127.0.0.1, and an external seat program."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from bridgebot.laws.calls import final_contract
from bridgebot.laws.notation import card_text, parse_call, parse_vul
from bridgebot.laws.play import trick_winner
from bridgebot.laws.scoring import imps, ns_score, strain_index
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.match import run_match
from bridgebot.tournament.rooms import ExternalSeat
from endplay.parsers import pbn
from endplay.types import Card, Deal, Player

from bridgebot.agents import make_agent


def _tricks_from_play(
    deal: str, dealer: Player, auction: tuple[str, ...], play: tuple[str, ...]
) -> int:
    """Replay the recorded cards with the table laws and count declarer's tricks."""
    contract = final_contract(dealer, [parse_call(c) for c in auction])
    assert contract is not None
    hands = Deal(deal)
    leader = contract.declarer.lho
    won = 0
    for t in range(13):
        trick = [Card(c) for c in play[4 * t : 4 * t + 4]]
        for i, card in enumerate(trick):
            hands[Player((leader.value + i) % 4)].remove(card)  # raises if not held
        leader = trick_winner(leader, trick, contract.denom)
        won += leader.value % 2 == contract.declarer.value % 2
    return won


def test_play_scored_team_match_over_tcp(tmp_path: Path) -> None:
    cfg = MatchConfig(make_agent=make_agent, us="random", them="random,pass_bias=0.2", out=tmp_path, boards=3, seed=5,
                      scoring="play")  # fmt: skip
    summary = run_match(cfg, progress=lambda b: None)
    boards = read_journal(tmp_path / "journal.jsonl").boards
    assert summary.boards == 3 and [b.board for b in boards] == [1, 2, 3]
    played = 0
    for b in boards:
        for room in b.rooms:
            contract = final_contract(Player.find(b.dealer), [parse_call(c) for c in room.auction])
            if contract is None:
                assert room.score_ns == 0 and room.play == ()
                continue
            played += 1
            assert len(room.play) == 52
            tricks = _tricks_from_play(b.deal, Player.find(b.dealer), room.auction, room.play)
            assert room.tricks == tricks
            assert room.score_ns == ns_score(contract, tricks, parse_vul(b.vul))
    assert played > 0
    # The rooms' own table managers recorded the same boards; our PBN carries the play.
    for name in ("open", "closed"):
        tm_lines = (tmp_path / "rooms" / name / "journal.jsonl").read_text().splitlines()
        assert len(tm_lines) == 3
        with open(tmp_path / f"room-{name}.pbn") as f:
            records = pbn.load(f)
        for rec, b in zip(records, boards, strict=True):
            assert [card_text(c) for c in rec.play] == list(b.room(name).play)


def test_dd_scored_match_over_tcp_uses_the_table(solved_npz: Path, tmp_path: Path) -> None:
    cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=4, deals=solved_npz,
                      scoring="dd", rooms="tcp")  # fmt: skip
    run_match(cfg, progress=lambda b: None)
    with np.load(solved_npz) as z:
        dd = z["dd"]
    for b in read_journal(tmp_path / "journal.jsonl").boards:
        for room in b.rooms:
            contract = final_contract(Player.find(b.dealer), [parse_call(c) for c in room.auction])
            if contract is not None:
                expected = dd[b.board - 1, contract.declarer.value, strain_index(contract.denom)]
                assert room.tricks == expected


def test_external_seat_is_announced_and_waited_for(tmp_path: Path) -> None:
    """``bridgebot seat`` in its own process stands in for WBridge5 at North of the open room."""
    externals: list[subprocess.Popen[bytes]] = []
    announced: list[str] = []

    def announce(text: str) -> None:
        announced.append(text)
        m = re.search(r"waiting for (\w+) \(team (\w+)\) to connect to ([\d.]+) port (\d+)", text)
        assert m, text
        seat, team, host, port = m.groups()
        argv = [sys.executable, "-m", "bridgebot", "seat", "--host", host, "--port", port,
                "--seat", seat, "--team", team, "--agent", "random", "--agent-seed", "9"]  # fmt: skip
        externals.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE))

    cfg = MatchConfig(make_agent=make_agent, us="random", them="random", out=tmp_path, boards=2, seed=2, scoring="play",
                      external=(ExternalSeat.parse("open:North"),))  # fmt: skip
    try:
        summary = run_match(cfg, progress=lambda b: None, announce=announce)
    finally:
        outputs = [p.communicate(timeout=60) for p in externals]
        codes = [p.returncode for p in externals]
    assert len(announced) == 1 and "room open: waiting for North (team bridgebot)" in announced[0]
    assert codes == [0], outputs
    assert summary.boards == 2
    boards = read_journal(tmp_path / "journal.jsonl").boards
    assert [b.room("open").seats for b in boards] == [
        ("bridgebot", "random", "random", "random")
    ] * 2
    assert json.loads((tmp_path / "summary.json").read_text())["scoring"] == "play"


def test_compatible_format_over_tcp_seats_our_bot_once_per_room(tmp_path: Path) -> None:
    cfg = MatchConfig(make_agent=make_agent, us="random,pass_bias=0.9", them="random,pass_bias=0.2", out=tmp_path,
                      boards=1, seed=3, fmt="compatible", scoring="play")  # fmt: skip
    run_match(cfg, progress=lambda b: None)
    (board,) = read_journal(tmp_path / "journal.jsonl").boards
    us, them = cfg.us, cfg.them
    assert [(r.room, r.seats) for r in board.rooms] == [
        ("ref", (them, them, them, them)),
        ("N", (us, them, them, them)),
        ("E", (them, us, them, them)),
        ("S", (them, them, us, them)),
        ("W", (them, them, them, us)),
    ]
    ref = board.room("ref").score_ns
    signs = {"N": 1, "E": -1, "S": 1, "W": -1}
    expected = sum(s * imps(board.room(r).score_ns - ref) for r, s in signs.items())
    assert board.imps == expected
