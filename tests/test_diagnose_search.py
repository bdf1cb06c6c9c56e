"""benchmarks/diagnose_search.py (issue 60, step 1) and its real-play columns: the same contract
reached twice is played once and reads exactly 0, a passed-out board scores 0 unplayed, a tiny
real run prints the columns over the positions that have them (a journal written without them
still reads), and a journal is not resumed with another card player."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bridgebot.laws.board_sets import generate
from bridgebot.laws.boards import side_vulnerable
from bridgebot.laws.calls import final_contract
from bridgebot.laws.notation import parse_call
from bridgebot.laws.scoring import contract_score
from endplay.types import Bid

from benchmarks import diagnose_search as diag
from benchmarks.cardplay_match import Seats
from bridgebot.card_players import named_card_player

#: A card player cheap enough for a test: the auction-reading player on two worlds a card.
TINY = "auction,worlds=2,lead_worlds=2"
#: A search cheap enough for a test (the smoke run's).
SEARCH = ["--spec", "search,particles=64,rollouts=16", "--solver-particles", "2"]


def calls(text: str) -> tuple[Bid, ...]:
    return tuple(parse_call(c) for c in text.split())


def test_one_contract_is_played_once_and_a_passed_out_board_not_at_all() -> None:
    deal = generate(9501, 1)[0]
    seats = Seats(TINY, 9501, named_card_player)
    try:
        auctions = [
            calls("1S P 4S P P P"),
            calls("1S P 2S P 4S P P P"),  # the same 4S by the same declarer, another auction
            calls("P P P P"),
            calls("1NT P P P"),
        ]
        got = diag.play_auctions(seats, deal, auctions, 0)
        assert got["plays"] == 2 and len(seats.times) == 2 * 52  # 4S and 1NT, 52 cards each
    finally:
        seats.close()
    first, again, passed, _ = got["scores"]
    assert again == first and passed == 0.0
    assert got["contracts"][0] == got["contracts"][1] and got["contracts"][2] == "passed out"
    assert got["tricks"][2] is None
    # The scores are the declaring side's duplicate scores of the tricks taken, for North-South.
    for i in (0, 3):
        contract = final_contract(deal.dealer, auctions[i])
        assert contract is not None
        vulnerable = side_vulnerable(deal.vul, contract.declarer)
        level, strain, penalty = contract.level, contract.denom, contract.penalty
        expected = contract_score(level, strain, penalty, vulnerable, got["tricks"][i])
        assert got["scores"][i] == (expected if contract.declarer.value % 2 == 0 else -expected)


def test_a_real_run_adds_the_real_play_columns_and_reads_an_older_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "d.jsonl"
    assert diag.main([*SEARCH, "--boards", "2", "--journal", str(journal)]) == 0
    plain = capsys.readouterr().out
    assert "real play" not in plain and "| all |" in plain
    old = len(diag.read_journal(journal)[0])
    assert old > 0  # positions journaled without the real-play fields
    assert (
        diag.main([*SEARCH, "--boards", "6", "--journal", str(journal), "--real-play", TINY]) == 0
    )
    out = capsys.readouterr().out
    rows, done = diag.read_journal(journal)
    assert done == set(range(1, 7))
    played = [r for r in rows if "real play" in r]
    assert played and len(rows) == old + len(played)  # the old positions kept, without play
    assert f"real play by {TINY} on {len(played)} of {len(rows)} decisions" in out
    head = next(line for line in out.splitlines() if line.startswith("| decisions"))
    assert head.endswith("| real play | play IMPs | play err | play err IMPs | n played |")
    all_row = next(line for line in out.splitlines() if line.startswith("| all |"))
    cells = [c.strip() for c in all_row.strip("|").split("|")]
    assert len(cells) == head.count("|") - 1
    assert cells[1] == str(len(rows)) and cells[-1] == str(len(played))
    same = [r for r in played if r["play_contracts"][0] == r["play_contracts"][1]]
    assert same, "no position of these boards reaches one contract both ways"
    for r in played:
        assert r["player"] == TINY and r["play err"] == r["real bidders"] - r["real play"]
        if r in same:
            assert r["real play"] == 0.0 and r["play imps"] == 0
            assert r["plays"] == (0 if r["play_contracts"][0] == "passed out" else 1)
        else:
            assert r["plays"] >= 1


def test_a_journal_line_without_real_play_still_reads(tmp_path: Path) -> None:
    base = {"auction": "1C", "seat": "north", "candidates": ["1S", "2S"], "prior": [0.6, 0.3],
            "pick": "1S", "other": "2S", "search": 10.0, "search_top": 8.0, "solver": 5.0,
            "true deal": 0.0, "real bidders": -30.0, "imps": -1, "near": 0.2}  # fmt: skip
    played = {"real play": 50.0, "play imps": 2, "play err": -80.0, "player": TINY, "plays": 2}
    rows = [
        {**base, "board": 1, "kind": "close, kept"},
        {**base, "board": 2, "kind": "other, kept"},
        {**base, "board": 2, "kind": "other, kept", **played},
    ]
    journal = tmp_path / "d.jsonl"
    lines = [json.dumps(r) for r in rows] + [json.dumps({"done_board": b}) for b in (1, 2)]
    # A board's row without its done line (a killed run) and a torn last line are dropped.
    lines += [json.dumps({**base, "board": 3, "kind": "other, kept"}), '{"done_bo']
    journal.write_text("\n".join(lines))
    read, done = diag.read_journal(journal)
    assert read == rows and done == {1, 2}
    text = diag.table(read).splitlines()
    assert text[0].endswith("| play err | play err IMPs | n played |")
    close, other, both = text[2:]
    assert close.endswith("| - | - | - | - | 0 |")  # no played position of this kind
    assert other.startswith("| other, kept | 2 |") and other.endswith(
        "| +50 (nan) | +2.00 | -80 (nan) | -3.00 | 1 |"
    )
    assert both.startswith("| all | 3 |") and both.endswith("| 1 |")
    assert "real play" not in diag.table(read[:2])  # no columns where no row has them


def test_a_journal_is_not_resumed_with_another_card_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = tmp_path / "d.jsonl"
    row = {"board": 1, "real play": 0.0, "player": TINY}
    journal.write_text(json.dumps(row) + "\n" + json.dumps({"done_board": 1}) + "\n")
    assert diag.main(["--journal", str(journal), "--real-play"]) == 2  # the default, auction
    err = capsys.readouterr().err
    assert TINY in err and "'auction'" in err and len(err.strip().splitlines()) == 1
    assert diag.main(["--real-play", "nosuch"]) == 2
    assert "no card player 'nosuch'" in capsys.readouterr().err
