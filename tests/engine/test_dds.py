"""The double-dummy wrapper against fixed deals whose results are known."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from bridgebot.engine.dds import (
    DDSolver,
    Position,
    SolverError,
    dd_tables,
    solve_positions,
)
from bridgebot.laws.cards import card_index, owners_pbn
from bridgebot.laws.scoring import STRAIN_ORDER
from endplay.types import Card, Deal, Denom, Player

# Three deals of a development set of random deals with their tables (DDS 2.9 via endplay), copied here
# so the test runs without the data: tricks for declarer N, E, S, W x strains C, D, H, S, NT.
GOLDEN = [
    (
        "N:98763.83.96.AQT8 AK5.QT95.KT2.K64 Q42.KJ62.753.J93 JT.A74.AQJ84.752",
        [[5, 2, 2, 7, 2], [8, 10, 9, 6, 9], [5, 2, 2, 7, 2], [8, 10, 9, 6, 9]],
    ),
    (
        "N:A8.8763.QJ92.J92 4.AKQ952.87.AQ63 T962.T4.AT3.T875 KQJ753.J.K654.K4",
        [[3, 4, 2, 3, 2], [10, 9, 11, 10, 10], [3, 4, 2, 3, 2], [10, 9, 11, 10, 10]],
    ),
    (
        "N:K9875.62.KT63.J9 AJ643.JT8.4.AT53 Q.AKQ9753.J.K742 T2.4.AQ98752.Q86",
        [[7, 5, 8, 6, 8], [6, 8, 5, 7, 5], [7, 5, 8, 6, 8], [5, 8, 4, 7, 5]],
    ),
]


def owners_of(pbn: str) -> np.ndarray:
    deal = Deal(pbn)
    owners = np.full(52, -1, dtype=np.int64)
    for p in Player:
        for c in deal[p]:
            owners[card_index(c)] = p.value
    return owners


def test_owners_pbn_reproduces_the_deal() -> None:
    for pbn, _ in GOLDEN:
        assert owners_pbn(owners_of(pbn)) == pbn


@pytest.mark.parametrize("which", [0, 1, 2])
def test_opening_lead_scores_agree_with_the_dd_table(which: int) -> None:
    """The best opening lead leaves declarer exactly the table's tricks, in every strain."""
    pbn, table = GOLDEN[which]
    owners = tuple(int(x) for x in owners_of(pbn))
    positions = []
    cases = []
    for declarer in (Player.north, Player.east):
        for j in (0, 4):  # clubs and notrump keep the test quick
            trump = STRAIN_ORDER[j]
            positions.append(Position(owners, trump.value, declarer.lho.value))
            cases.append(table[declarer.value][j])
    tricks = solve_positions(positions)
    for row, declarer_tricks in zip(tricks, cases, strict=True):
        legal = row[row >= 0]
        assert len(legal) == 13  # every card of the leader's hand is a legal lead
        assert 13 - legal.max() == declarer_tricks


def test_mid_trick_positions_continue_the_lead_scores() -> None:
    """After a lead worth s tricks to the leader's side, the next player's best is 13 - s."""
    pbn, _ = GOLDEN[0]
    owners = tuple(int(x) for x in owners_of(pbn))
    lead = Position(owners, Denom.nt.value, Player.east.value)
    [scores] = solve_positions([lead])
    cards = [i for i in range(52) if scores[i] >= 0][:3]
    after = [Position(owners, Denom.nt.value, Player.east.value, (i,)) for i in cards]
    assert all(p.to_move == Player.south.value for p in after)
    replies = solve_positions(after)
    for i, row in zip(cards, replies, strict=True):
        assert row.max() == 13 - scores[i]
        # South must follow suit when able.
        followed = [j for j in range(52) if row[j] >= 0]
        assert all(owners[j] == Player.south.value for j in followed)


def test_a_small_ending_with_a_known_answer() -> None:
    """N: SA SK, E: HA HK, S: DA DK, W: CA CK; in notrump the leader takes both tricks, and in
    hearts East ruffs whatever is led."""
    owners = [-1] * 52
    for text, seat in (("SA", 0), ("SK", 0), ("HA", 1), ("HK", 1)):
        owners[card_index(Card(text))] = seat
    for text, seat in (("DA", 2), ("DK", 2), ("CA", 3), ("CK", 3)):
        owners[card_index(Card(text))] = seat
    nt = Position(tuple(owners), Denom.nt.value, Player.north.value)
    hearts = Position(tuple(owners), Denom.hearts.value, Player.north.value)
    both = solve_positions([nt, hearts])
    assert both[0, card_index(Card("SA"))] == 2
    assert both[0, card_index(Card("SK"))] == 2
    assert both[1, card_index(Card("SA"))] == 0
    assert (both[0] >= 0).sum() == 2  # only North's two cards are scored


def test_an_impossible_position_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # DDS writes dump.txt into the working directory on an error
    owners = [-1] * 52
    owners[0] = 0  # North holds one card, nobody else holds any
    with pytest.raises(SolverError):
        solve_positions([Position(tuple(owners), Denom.nt.value, 0)])


def test_worker_processes_agree_with_in_process_solving_and_deadlines_keep_one_chunk() -> None:
    pbn, _ = GOLDEN[1]
    owners = owners_of(pbn)
    positions = []
    for trump in (Denom.spades, Denom.hearts, Denom.nt):
        positions.append(Position(tuple(int(x) for x in owners), trump.value, Player.south.value))
    direct = solve_positions(positions)
    with DDSolver(workers=1, chunk=1) as solver:
        tricks, done = solver.solve(positions)
        assert done.all()
        assert np.array_equal(tricks, direct)
    local = DDSolver(workers=0, chunk=1)
    tricks, done = local.solve(positions, deadline=time.monotonic() - 1.0)
    assert done.tolist() == [True, False, False]
    assert np.array_equal(tricks[0], direct[0])
    assert (tricks[1:] == -1).all()


def test_dd_tables_match_the_golden_tables_whole_and_by_strain() -> None:
    owners = np.stack([owners_of(pbn) for pbn, _ in GOLDEN])
    assert dd_tables(owners).tolist() == [table for _, table in GOLDEN]
    only_nt = dd_tables(owners[:1], strains=[4])
    assert only_nt[0, :, 4].tolist() == [row[4] for row in GOLDEN[0][1]]
    assert not only_nt[0, :, :4].any()
    with pytest.raises(ValueError, match="strains"):
        dd_tables(owners, strains=[5])


_HAMMER = """
import threading, numpy as np
from endplay.types import Deal, Player
from bridgebot.engine.dds import Position, dd_tables, solve_positions
from bridgebot.laws.cards import card_index
deals = {deals!r}
owners = []
for pbn in deals:
    o = np.full(52, -1, dtype=np.int64)
    for p in Player:
        for c in list(Deal(pbn)[p])[:7]:  # seven-card endings keep the test quick
            o[card_index(c)] = p.value
    owners.append(o)
owners = np.stack(owners)
positions = [Position(tuple(int(x) for x in o), t, 1) for o in owners for t in (0, 4)]
want_play = solve_positions(positions)
want_nt = dd_tables(owners, strains=[4])
bad = []
def seat(k):
    for i in range(3):
        if (k + i) % 2:
            got = solve_positions(positions[k % 2 :: 2])
            ok = np.array_equal(got, want_play[k % 2 :: 2])
        else:
            ok = np.array_equal(dd_tables(owners, strains=[4]), want_nt)
        if not ok:
            bad.append(k)
threads = [threading.Thread(target=seat, args=(k,)) for k in range(8)]
for t in threads: t.start()
for t in threads: t.join()
print("wrong answers from threads", bad) if bad else print("ok")
raise SystemExit(1 if bad else 0)
"""


def test_eight_threads_may_solve_at_once(tmp_path: Path) -> None:
    """Eight seats of one process solving at once (the card players, ``search``, DD tables): every
    answer equals the one-thread answer. DDS is not reentrant, so without the one door this
    crashes the process (``Sum 5 is not four``, a segmentation fault): hence a child process."""
    script = _HAMMER.format(deals=[pbn for pbn, _ in GOLDEN])
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,  # DDS writes dump.txt here if it fails
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"rc {proc.returncode}: {proc.stdout}{proc.stderr[-2000:]}"
    assert proc.stdout.strip() == "ok"
