"""benchmarks/bench_slam.py: a smoke run on the committed ddgen file (the shipped ``default``
against bfg and the yardstick), its bad-input answers; and of the rows' library it plays with,
``benchmarks/dd_rows.py``: the yardstick pair bidding a slam, the rates, the chunks' policy check."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from bridgebot.engine.agent import bidding_view
from bridgebot.engine.random_agent import RandomAgent
from bridgebot.laws.boards import cycle_board
from bridgebot.laws.calls import PASS
from bridgebot.laws.notation import auction_texts, call_text, parse_call
from bridgebot.tournament.ddmatch import bid_room
from bridgebot.tournament.ddtables import solve_dd
from endplay.types import Player, Vul

ROOT = Path(__file__).resolve().parents[1]
DEALS = ROOT / "tests" / "datafiles" / "ddgen-v1.npz"


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    """The script as a module; its folder on sys.path, which spawned workers inherit, so that
    they find the module's worker function by name."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        yield importlib.import_module("bench_slam")
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


@pytest.fixture(scope="module")
def dd_rows(bench: ModuleType) -> ModuleType:
    """``benchmarks/dd_rows.py``, the library bench_slam plays and shows its rows with (the
    yardstick pair among them)."""
    return sys.modules["dd_rows"]


def test_a_tiny_run_prints_and_writes_every_figure(
    bench: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "slam.json"
    rc = bench.main(
        ["--deals", str(DEALS), "--opponents", "bfg", "--candidate", "policy:models/default",
         "--yardstick", "--json", str(out)]
    )  # fmt: skip
    assert rc == 0
    text, progress = capsys.readouterr()
    assert "vs bfg" in text and "vs yardstick" in text and "slam in one room only" in text
    assert "policy:models/default minus default:" in text
    assert "bench_slam: 12/12 boards" in progress  # 4 matches of 3 boards
    figures = json.loads(out.read_text())
    rows = {(r["us"], r["them"]): r for r in figures["rows"]}
    assert set(rows) == {
        (us, them) for us in ("default", "policy:models/default") for them in ("bfg", "yardstick")
    }
    for r in rows.values():
        assert r["boards"] == 3 and len(r["per_board"]["imps"]) == 3
        for side in r["sides"].values():
            assert set(side) >= {"chances", "bid_on_chance", "slams", "slams_made", "grands"}
            rates = side["rates"]
            if side["slams"]:
                assert rates["making"] == side["slams_made"] / side["slams"]
                assert 0 <= rates["making_se"] <= 0.5
            else:  # no slam bid: no making rate, rather than 0% (these three boards have none)
                assert rates["making"] is None and rates["making_se"] is None
            assert set(side["missed"]) == {"imps", "per_board", "se"}
            assert side["slams_made"] <= side["slams"]
        # The candidate is the shipped model by another name: it bids alike, so the rows agree.
        assert rows[("policy:models/default", r["them"])]["per_board"] == r["per_board"]
    # The yardstick reaches its side's best contract on every board: it never gives anything up.
    yardstick = rows[("default", "yardstick")]["sides"]["them"]
    assert yardstick["missed"]["imps"] == yardstick["failed"]["imps"] == 0
    assert yardstick["total"]["imps"] >= 0


def test_two_workers_give_the_figures_of_one(bench: ModuleType, tmp_path: Path) -> None:
    runs = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        argv = ["--deals", str(DEALS), "--opponents", "bfg", "--chunk", "2", "--workers", workers]
        assert bench.main([*argv, "--json", str(out)]) == 0
        runs.append(json.loads(out.read_text())["rows"])
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--deals", "no/such.npz"], "no/such.npz"),
        (["--deals", str(DEALS), "--opponents", "nosuchbot"], "nosuchbot"),
        (["--deals", str(DEALS), "--candidate", "policy:no/such/dir"], "no/such/dir"),
        (["--deals", str(DEALS), "--opponents", "yardstick"], "--yardstick"),
        (["--deals", str(DEALS), "--boards", "9"], "9 boards asked for"),
        (["--deals", str(DEALS), "--workers", "0"], "--workers"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    bench: ModuleType, argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert bench.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and err[0].startswith("bench_slam: ")


def test_the_yardstick_bids_the_slam_its_hands_make(dd_rows: ModuleType) -> None:
    """North-South make exactly 12 tricks in spades (tests/tournament/test_slams.py's deal)."""
    pbn = "N:AKQJ2.AK32.A32.2 543.JT98.QJT.KQJ T9876.Q4.K54.543 .765.9876.AT9876"
    board = cycle_board(1, pbn, solve_dd(pbn))
    ys = [dd_rows.Yardstick({1: board}) for _ in range(2)]
    passers = [RandomAgent(pass_bias=1.0) for _ in range(2)]
    [auction] = bid_room([board], [ys[0], passers[0], ys[1], passers[1]], "open")
    assert auction_texts(auction) == ("6S", "Pass", "Pass", "Pass")
    # Against the yardstick as East-West too: they have nothing to bid over 6S.
    [auction] = bid_room([board], [ys[0], ys[1], dd_rows.Yardstick({1: board}), passers[0]], "o")
    assert auction_texts(auction) == ("6S", "Pass", "Pass", "Pass")
    # East deals and opens 1C, East-West's one making contract. South (6S makes for either of
    # them) passes: North is the pair's first choice of declarer and names spades itself.
    east = replace(board, dealer=Player.east)
    [auction] = bid_room([east], [ys[0], ys[1], dd_rows.Yardstick({1: east}), passers[0]], "o")
    assert auction_texts(auction) == ("1C", "Pass", "Pass", "6S", "Pass", "Pass", "Pass")


def test_the_yardstick_with_the_last_word_bids_what_it_can_declare(
    dd_rows: ModuleType,
) -> None:
    """North-South make 4S with South declaring (10 tricks) but 9 tricks with North declaring,
    and 3NT by North. After 1S (North) 2C (East), South passes: North named spades, so bidding 4S
    would leave North the declarer and partner may still act. When North's pass would end the
    auction, North bids the best contract it declares itself: 3NT, not 4S."""
    pbn = "N:AKQ4.AJT8.54.J76 93.Q972.Q.A85432 J862.53.KJT87.K9 T75.K64.A9632.QT"
    board = cycle_board(1, pbn, solve_dd(pbn))
    assert board.dd is not None
    assert board.dd[Player.north.value].tolist() == [5, 9, 7, 9, 9]
    assert board.dd[Player.south.value].tolist() == [6, 9, 7, 10, 9]
    yardstick, deal = dd_rows.Yardstick({1: board}), board.deal
    auction = [parse_call(c) for c in ("1S", "2C")]
    south = bidding_view(Player.north, Vul.none, deal[Player.south], auction, 1)
    assert call_text(yardstick.bid(south)) == "Pass"
    auction += [PASS, PASS]
    north = bidding_view(Player.north, Vul.none, deal[Player.north], auction, 1)
    assert call_text(yardstick.bid(north)) == "3NT"


def test_several_rows_end_with_each_pairs_lowest_row(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bar "in each row" reads from one line: the pair's lowest IMPs, slam rate and making."""
    assert (
        bench.main(["--deals", str(DEALS), "--opponents", "bfg;bfg,doubles=on", "--yardstick"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    [lowest] = [line for line in lines if "its lowest of" in line]
    assert lowest.strip().startswith("default, its lowest of 2 rows:")  # the yardstick apart
    assert "slam on chance" in lowest and "making" in lowest


def test_rates_carry_binomial_standard_errors(dd_rows: ModuleType) -> None:
    p, se = dd_rows.rate(68, 253)
    assert p == pytest.approx(0.2688, abs=1e-4) and se == pytest.approx(0.0279, abs=1e-4)
    assert all(x != x for x in dd_rows.rate(0, 0))  # no slams bid: no rate (NaN), not 0%


def test_the_lowest_row_is_each_figures_own_minimum(bench: ModuleType) -> None:
    def row(them: str, imps: float, chance: float | None, making: float | None) -> dict[str, Any]:
        rates = {"slam_on_chance": chance, "making": making}
        return {"them": them, "imps_per_board": imps, "sides": {"us": {"rates": rates}}}

    rows = {
        ("default", "bfg"): row("bfg", 1.35, 0.27, 0.73),
        ("default", "ex"): row("ex", 0.96, 0.20, None),  # no slam bid: no making rate
        ("default", "old"): row("old", 0.12, 0.24, 0.68),
        ("default", "yardstick"): row("yardstick", -5.0, 0.03, 0.5),  # apart
        ("other", "bfg"): row("bfg", -9.0, 0.0, 0.0),  # another pair's row
    }
    assert bench.lowest_rows(rows, "default") == (
        "  default, its lowest of 3 rows: +0.12 IMPs/board (old); slam on chance 20% (ex); "
        "making 68% (old)"
    )


def test_a_chunk_refuses_a_policy_file_changed_since_the_run_started(
    dd_rows: ModuleType, tmp_path: Path
) -> None:
    """Each chunk checks both sides' policy files against the sha256 the run started with: a
    model directory changed mid-run (a ``git stash`` over ``models/``) stops the run in one line
    instead of mixing two models' boards into one row."""
    import shutil

    model = tmp_path / "model"
    shutil.copytree(ROOT / "models" / "default", model)
    spec = f"default:{model}"
    job = {
        "us": spec, "them": "bfg", "deals": str(DEALS), "first": 0, "n": 1, "offset": 0,
        "seed": 1, "policies": [dd_rows.fingerprint(spec), None],
    }  # fmt: skip
    assert len(dd_rows.play_chunk(job)) == 1  # unchanged: it plays
    shutil.copy(ROOT / "tests" / "layered_default" / "policy.onnx", model / "policy.onnx")
    with pytest.raises(dd_rows.PolicyChangedError, match=r"changed before boards \[0, \+1\)"):
        dd_rows.play_chunk(job)
