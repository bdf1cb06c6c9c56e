"""The card-play yardstick (benchmarks/bench_cardplay.py with --candidate, and its rooms in
benchmarks/cardplay_match.py; issue 61): a player against itself with the same seeds reads
exactly 0, the rooms seat each player where they should, a different player reads by role, and
a rerun takes every chunk from the journal."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from bridgebot.engine.agent import PlayView
from bridgebot.engine.cardplay import BaselinePlayer
from bridgebot.laws.board_sets import load_npz
from bridgebot.laws.calls import PASS
from endplay.types import Bid, Card, Contract, ContractBid, Denom, Player

ROOT = Path(__file__).resolve().parents[1]
DEALS = ROOT / "tests" / "datafiles" / "ddgen-v1.npz"
TINY = "pimc,worlds=2,lead_worlds=2"


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    """bench_cardplay as a module, its folder on sys.path (for its sibling cardplay_match)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        yield importlib.import_module("bench_cardplay")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def run(bench: ModuleType, monkeypatch: pytest.MonkeyPatch, *flags: str) -> int:
    monkeypatch.setattr(sys, "argv", ["bench_cardplay.py", "--deals", str(DEALS), *flags])
    code: int = bench.main()
    return code


def no_play(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("a journaled chunk was played again")


def test_a_player_against_itself_reads_exactly_zero_and_resumes(
    bench: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    journal, out = tmp_path / "cp.jsonl", tmp_path / "cp.json"
    flags = ["--candidate", TINY, "--candidate", "baseline", "--reference", TINY,
             "--bidding", "policy:models/default", "--boards", "3", "--chunk", "2", "--journal", str(journal)]  # fmt: skip
    assert run(bench, monkeypatch, *flags, "--json", str(out)) == 0
    text = capsys.readouterr().out
    figures = json.loads(out.read_text())
    same, base = figures["candidates"]
    assert same["boards"] == base["boards"] == 3  # none of these three is passed out
    for role in ("total", "declarer", "defence", "lead"):
        assert same["imps"][role] == [0.0, 0.0]
    for role, cost in same["dd_cost"].items():
        assert cost["A"] == cost["B"] and cost["A_minus_B"] == [0.0, 0.0], role
    assert same["leads_differ"] == 0
    assert "+0.000 ± 0.000" in text and "CPU s per card (median, p95)" in text
    for f in (same, base):  # the same decisions timed for both: 52 a board, rooms AB and BA
        assert f["cpu_per_card_s"]["A"]["cards"] == f["cpu_per_card_s"]["B"]["cards"] == 3 * 52
    # The baseline gives tricks away against double-dummy play as declarer: more than the Monte
    # Carlo player on these boards, and its IMPs are the rooms' scores.
    assert base["dd_cost"]["declarer"]["A"][0] > base["dd_cost"]["declarer"]["B"][0]
    played: dict[str, list[dict[str, Any]]] = {TINY: [], "baseline": []}
    for line in journal.read_text().splitlines():
        row = json.loads(line)
        candidate = json.loads(row["key"])["candidate"]
        if candidate is not None:
            played[candidate] += row["result"][0]["boards"]
    assert [len(b) for b in played.values()] == [3, 3]
    for b in played[TINY]:  # the rooms themselves are the same: the same cards by the same seeds
        assert b["tricks"]["AB"] == b["tricks"]["BA"] == b["tricks"]["BB"] == b["tricks"]["BL"]
    for b in played["baseline"]:
        if b["leads"]["A"] == b["leads"]["B"]:
            assert b["tricks"]["BL"] == b["tricks"]["BB"] and b["imps"]["lead"] == 0

    monkeypatch.setattr(bench, "chunk_job", no_play)  # every chunk from the journal now
    assert run(bench, monkeypatch, *flags) == 0
    assert capsys.readouterr().out == text

    # A run killed while writing its last chunk leaves a torn line: that chunk is played again,
    # on a line of its own, and the figures are the same (but for the time it took again).
    monkeypatch.undo()
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][: len(lines[-1]) // 2])
    assert run(bench, monkeypatch, *flags) == 0

    def untimed(out: str) -> list[str]:
        return [line for line in out.splitlines() if "CPU s per card" not in line]

    assert untimed(capsys.readouterr().out) == untimed(text)
    assert all(json.loads(line) for line in journal.read_text().splitlines()[-1:])


def test_leads_only_costs_each_players_lead_on_the_real_deal(
    bench: ModuleType,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--leads-only: a player against itself reads 0; the baseline's leads cost what the
    solver says each costs on the real deal."""
    from bridgebot.engine.cardplay_cost import dd_costs
    from bridgebot.laws.cards import deal_owners
    from bridgebot.laws.notation import parse_call

    out = tmp_path / "leads.json"
    flags = ["--candidate", TINY, "--candidate", "baseline", "--reference", TINY, "--leads-only",
             "--bidding", "policy:models/default", "--boards", "3", "--chunk", "2",
             "--journal", str(tmp_path / "leads.jsonl"), "--json", str(out)]  # fmt: skip
    assert run(bench, monkeypatch, *flags) == 0
    assert "double-dummy cost of the lead" in capsys.readouterr().out
    same, base = json.loads(out.read_text())["candidates"]
    assert same["lead_cost"]["A_minus_B"] == [0.0, 0.0] and same["leads_differ"] == 0
    rows = [json.loads(line) for line in (tmp_path / "leads.jsonl").read_text().splitlines()]
    auctions = {
        rec["board"]: rec["auction"]
        for row in rows
        if json.loads(row["key"])["candidate"] is None
        for rec in row["result"]
    }
    boards = [
        b
        for row in rows
        if json.loads(row["key"])["candidate"] == "baseline"
        for b in row["result"][0]["boards"]
    ]
    assert len(boards) == base["boards"] == 3
    for deal, b in zip(load_npz(DEALS, boards=3), boards, strict=True):
        contract = bench.final_contract(deal.dealer, [parse_call(c) for c in auctions[b["board"]]])
        lead = (contract.declarer.lho, Card(b["leads"]["A"]))
        assert dd_costs(deal_owners(deal.deal), contract, [lead])[0].cost == b["cost"]["A"]


def test_the_rooms_seat_each_player_where_it_belongs(bench: ModuleType) -> None:
    from cardplay_match import Seats, play_room

    deal = load_npz(DEALS, boards=1)[0]
    auction: tuple[Bid, ...] = (ContractBid(1, Denom.nt), PASS, PASS, PASS)
    seen: dict[str, list[tuple[Player, Player, int]]] = {"A": [], "B": [], "L": []}

    class Recording(BaselinePlayer):
        def __init__(self, who: str) -> None:
            self.who = who

        def play(self, view: PlayView) -> Card:
            seen[self.who].append((view.seat, view.controller, len(view.played)))
            return super().play(view)

    def seats(who: str) -> Seats:
        return Seats(who, 1, lambda spec, seed: Recording(spec))

    contract = Contract(f"1N{deal.dealer.abbr}")
    declarer = contract.declarer
    play_room(deal, auction, contract, seats("A"), seats("B"), lead=seats("L"))
    assert {c for _, c, _ in seen["A"]} == {declarer}  # declarer decides dummy's cards too
    assert {s for s, _, _ in seen["A"]} == {declarer, declarer.partner}
    assert {s for s, _, _ in seen["B"]} == {declarer.lho, declarer.rho}
    assert seen["L"] == [(declarer.lho, declarer.lho, 0)]  # the opening lead alone
    assert (declarer.lho, declarer.lho, 0) not in seen["B"]
    assert len(seen["A"]) + len(seen["B"]) + len(seen["L"]) == 52


def test_a_bad_card_player_is_one_line(
    bench: ModuleType, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(bench, monkeypatch, "--candidate", "pimc,worlds=0", "--boards", "1") == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "worlds must be an integer >= 1" in err
    assert run(bench, monkeypatch, "--candidate", "gib") == 2
    assert "no card player 'gib'" in capsys.readouterr().err


def test_the_named_card_players() -> None:
    """``pimc`` and ``dd`` are today's player, blind to the auction; ``auction`` weighs its worlds
    by the shipped policy (partner) and epbotnet (opponents), from 8 candidates a world."""
    from bridgebot.engine.cardplay import DDCardPlayer
    from bridgebot.engine.cardplay_auction import AuctionReader

    from bridgebot.card_players import LazyDDPlayer, named_card_player
    from tests.engine.test_cardplay import view_of

    h, s = Denom.hearts, Denom.spades
    auction = (ContractBid(1, h), PASS, ContractBid(2, h), ContractBid(2, s), ContractBid(4, h))
    view = view_of("32.9872.QJ92.432", [], contract="4HN", auction=(*auction, PASS, PASS, PASS))
    for spec, reads in (("pimc", False), ("dd", False), ("auction", True)):
        player = named_card_player(f"{spec},worlds=2,lead_worlds=2", 7)
        assert isinstance(player, LazyDDPlayer) and player.player is None  # built on first card
        try:
            assert player.play(view) in view.legal
            inner = player.player
            assert isinstance(inner, DDCardPlayer) and inner.lead_worlds == 2
            assert isinstance(inner.auction_reader, AuctionReader) == reads
            assert inner.oversample == (8 if reads else 4)
        finally:
            player.close()
    assert isinstance(named_card_player("baseline", 1), BaselinePlayer)
