"""``bridgebot match --dd-cost``: real play over TCP on 127.0.0.1, every card costed by the real
solver, each side's cost per role in summary.json, the printed summary and report.html; the
journal keeps the costs, a journal without them resumes with the flag; the flag off, or without
``--scoring play``, adds nothing or is refused."""

from __future__ import annotations

import contextlib
import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bridgebot.core.stats import mean_stderr
from bridgebot.laws.scoring import dd_tricks
from bridgebot.tournament.ddtables import solve_dd
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.seatings import FORMATS
from endplay.types import Player

from bridgebot.cli import main

# Small world budgets: the cost is of the cards played, whoever chose them.
US_SPEC = "default,worlds=3,lead_worlds=2"
THEM_SPEC = "default,worlds=2,lead_worlds=2"
PLAY = ["--us", US_SPEC, "--them", THEM_SPEC, "--scoring", "play", "--boards", "2", "--seed", "1"]
ROLES = ("declarer", "defence", "lead", "total")


def _match(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["match", *argv])
        except SystemExit as exc:  # argparse's own errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def costed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    """A 2-board real-play match of the shipped agent with ``--dd-cost``: its directory and
    what it printed."""
    out = tmp_path_factory.mktemp("ddcost")
    code, printed, err = _match(*PLAY, "--dd-cost", "--out", str(out))
    assert code == 0, err
    yield out, printed


def _summary(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    return data


def test_every_played_room_is_costed_and_the_costs_add_up_to_its_tricks(
    costed: tuple[Path, str],
) -> None:
    """Declarer's tricks = the deal's double-dummy tricks for the contract at the start, plus
    what the defence's cards gave away, minus what declarer's gave back (exact costs)."""
    out, _ = costed
    boards = read_journal(out / "journal.jsonl").boards
    assert [b.board for b in boards] == [1, 2]
    played = 0
    for b in boards:
        assert b.dd_cost is not None
        table = solve_dd(b.deal)
        for room in b.rooms:
            contract = room.final_contract()
            if contract is None:
                assert room.room not in b.dd_cost
                continue
            played += 1
            cost = b.dd_cost[room.room]
            assert len(room.play) == 52 and room.tricks is not None
            assert 0 <= cost.lead <= cost.defence and cost.declarer >= 0
            assert room.tricks == dd_tricks(contract, table) + cost.defence - cost.declarer
    assert played >= 2


def test_summary_holds_each_sides_cost_per_role_paired_by_board(costed: tuple[Path, str]) -> None:
    out, printed = costed
    summary = _summary(out)
    boards = read_journal(out / "journal.jsonl").boards
    # Each side's cost per board, summed over the rooms where it played the role, from the
    # journal's records: the declaring pair by the seat, the defence the other pair.
    teams = {s.room: s.teams for s in FORMATS["team"]}
    per: dict[str, list[dict[str, int]]] = {"us": [], "them": []}
    declared = {"us": 0, "them": 0}
    for b in boards:
        assert b.dd_cost is not None
        if not b.dd_cost:
            continue
        got = {side: dict.fromkeys(ROLES, 0) for side in per}
        for room, cost in b.dd_cost.items():
            record = b.room(room)
            side = teams[room][Player.find(record.declarer or "").value]
            other = "them" if side == "us" else "us"
            declared[side] += 1
            got[side]["declarer"] += cost.declarer
            got[other]["defence"] += cost.defence
            got[other]["lead"] += cost.lead
        for side in per:
            got[side]["total"] = got[side]["declarer"] + got[side]["defence"]
            per[side].append(got[side])
    costs = summary["dd_cost"]
    assert costs["boards"] == len(per["us"]) >= 1
    for side in ("us", "them"):
        assert costs[side]["declared"] == declared[side]
        for role in ROLES:
            mean, _ = mean_stderr([row[role] for row in per[side]])
            assert costs[side][role]["mean"] == pytest.approx(mean, abs=1e-4)
            assert costs[side][role]["mean"] >= 0
            assert set(costs[side][role]) == {"mean", "stderr"}
    for role in ROLES:
        diff = [u[role] - t[role] for u, t in zip(per["us"], per["them"], strict=True)]
        mean, se = mean_stderr(diff)
        assert costs["difference"][role]["mean"] == pytest.approx(mean, abs=1e-4)
        if costs["boards"] > 1:
            assert costs["difference"][role]["stderr"] == pytest.approx(se, abs=1e-4)
    assert "double-dummy cost of the cards" in printed
    assert f"us {US_SPEC}: declarer" in printed and "us minus them: declarer" in printed
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "<h2>Double-dummy cost of the cards</h2>" in page and 'class="ddcost"' in page


def test_a_journal_without_costs_resumes_with_them_and_without(
    costed: tuple[Path, str], tmp_path: Path
) -> None:
    """The same boards journaled without costs (as a match without the flag, or before it,
    writes them): resumed with ``--dd-cost`` the missing costs are computed and the outputs are
    the costed match's; resumed without it, summary.json and report.html have none."""
    out, _ = costed
    lines = (out / "journal.jsonl").read_text(encoding="utf-8").splitlines()
    bare = [lines[0]]
    for line in lines[1:]:
        board = json.loads(line)
        assert "dd_cost" in board
        del board["dd_cost"]
        bare.append(BoardResult.model_validate(board).model_dump_json())
        assert "dd_cost" not in bare[-1]
    (tmp_path / "journal.jsonl").write_text("\n".join(bare) + "\n", encoding="utf-8")

    code, _, err = _match(*PLAY, "--out", str(tmp_path), "--resume")
    assert code == 0, err
    assert "dd_cost" not in _summary(tmp_path)
    assert "Double-dummy cost" not in (tmp_path / "report.html").read_text(encoding="utf-8")

    code, printed, err = _match(*PLAY, "--dd-cost", "--out", str(tmp_path), "--resume")
    assert code == 0, err
    assert _summary(tmp_path) == _summary(out)
    assert "us minus them" in printed


def test_the_flag_off_adds_nothing(tmp_path: Path) -> None:
    code, printed, err = _match(
        "--us", "random", "--them", "random", "--boards", "2", "--out", str(tmp_path)
    )
    assert code == 0, err
    assert "dd_cost" not in _summary(tmp_path)
    assert "dd_cost" not in (tmp_path / "journal.jsonl").read_text(encoding="utf-8")
    assert "double-dummy cost" not in printed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "--dd-cost costs the cards played: it needs --scoring play"),
        (
            ["--scoring", "play", "--format", "compatible"],
            "--dd-cost compares the two pairs of a team match: it needs --format team, not "
            "compatible",
        ),
    ],
)
def test_dd_cost_is_refused_without_real_play_of_two_pairs(
    argv: list[str], message: str, tmp_path: Path
) -> None:
    code, _, err = _match(
        "--us", "random", "--them", "random", "--dd-cost", "--out", str(tmp_path), *argv
    )
    assert code == 2
    assert err.strip() == f"bridgebot match: {message}"
    assert not (tmp_path / "journal.jsonl").exists()


def test_costs_name_the_rooms_that_played_a_contract(costed: tuple[Path, str]) -> None:
    """A board's costs for a room that has no contract, or missing for one that has, are
    refused as the journal is read."""
    out, _ = costed
    board = read_journal(out / "journal.jsonl").boards[0]
    assert board.dd_cost
    data = json.loads(board.model_dump_json())
    data["dd_cost"]["lobby"] = {"declarer": 0, "defence": 0, "lead": 0}
    with pytest.raises(ValueError, match="costs for rooms"):
        BoardResult.model_validate(data)


def test_costs_are_solved_off_the_event_loop_and_every_board_is_journaled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The solver's costs of a board take seconds; on the loop's thread they would stop every
    table of the match (and every outside seat's messages) while they ran. They run on a thread
    of their own, and each board, the last one included, is journaled with its costs."""
    from bridgebot.tournament import rooms

    threads: list[str] = []
    real = rooms.with_costs

    def spy(board: BoardResult) -> BoardResult:
        threads.append(threading.current_thread().name)
        return real(board)

    monkeypatch.setattr(rooms, "with_costs", spy)
    code, _, err = _match(*PLAY, "--dd-cost", "--workers", "1", "--out", str(tmp_path))
    assert code == 0, err
    assert len(threads) == 2 and all(t.startswith("dd-cost") for t in threads), threads
    boards = read_journal(tmp_path / "journal.jsonl").boards
    assert [b.board for b in boards] == [1, 2]
    assert all(b.dd_cost for b in boards)


def test_a_board_that_cannot_be_costed_stops_the_match_and_resumes_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A complete board whose costing fails is not lost: the match stops saying why, its rooms
    stay kept, and the same command with ``--resume`` journals it with its costs."""
    from bridgebot.tournament import ddcost, rooms

    real = rooms.with_costs

    def fails_on_board_2(board: BoardResult) -> BoardResult:
        if board.board == 2:
            raise ddcost.CostError("a solver that broke down")
        return real(board)

    argv = [*PLAY, "--dd-cost", "--workers", "1", "--out", str(tmp_path)]
    monkeypatch.setattr(rooms, "with_costs", fails_on_board_2)
    code, _, err = _match(*argv)
    assert code != 0
    assert "board 2: cannot cost its play: a solver that broke down" in err
    assert [b.board for b in read_journal(tmp_path / "journal.jsonl").boards] == [1]
    monkeypatch.setattr(rooms, "with_costs", real)
    code, _, err = _match(*argv, "--resume")
    assert code == 0, err
    boards = read_journal(tmp_path / "journal.jsonl").boards
    assert [b.board for b in boards] == [1, 2] and all(b.dd_cost for b in boards)


def test_a_costed_board_the_journal_cannot_take_fails_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A board costed off the loop is journaled by a task of the loop: when the journal cannot
    take it (a full disk), the match fails saying so; it never ends as if all were well with the
    board missing."""
    from bridgebot.tournament.journal import Journal

    real = Journal.write

    def full_on_board_2(self: Journal, board: BoardResult) -> None:
        if board.board == 2:
            raise OSError(28, "No space left on device")
        real(self, board)

    monkeypatch.setattr(Journal, "write", full_on_board_2)
    with pytest.raises(OSError, match="No space left on device"):
        _match(*PLAY, "--dd-cost", "--workers", "1", "--out", str(tmp_path))
    assert [b.board for b in read_journal(tmp_path / "journal.jsonl").boards] == [1]
