"""Every runner closes the agents it builds: when the match ends, when a board fails, and in each
worker process of a match played by several."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from bridgebot.engine.agent import Agent, BiddingView, PlayView
from bridgebot.laws.board_sets import load_npz
from bridgebot.tournament.ddmatch import run_dd_match
from bridgebot.tournament.match import MatchConfig, run_match
from endplay.types import Bid, Card


class Recorded(Agent):
    """Passes every call; its spec is a directory where it notes being built and closed, and
    ``fail@N`` in it makes it raise on board N."""

    def __init__(self, spec: str, seed: int) -> None:
        self.name = spec
        where, _, fail = spec.partition("@")
        self.notes = Path(where)
        self.fail = int(fail) if fail else None
        self.tag = f"{os.getpid()}-{seed}"
        (self.notes / f"built-{self.tag}").touch()

    def bid(self, view: BiddingView) -> Bid:
        if view.board == self.fail:
            raise RuntimeError(f"board {view.board} fails")
        return view.legal[0]

    def play(self, view: PlayView) -> Card:
        return view.legal[0]

    def close(self) -> None:
        (self.notes / f"closed-{self.tag}").touch()


def recorded(spec: str, seed: int = 0) -> Agent:
    """The agent factory of these tests (module level, so worker processes can unpickle it)."""
    return Recorded(spec, seed)


def notes(where: Path, kind: str) -> set[str]:
    return {p.name.removeprefix(f"{kind}-") for p in where.glob(f"{kind}-*")}


def test_dd_match_closes_its_agents(tmp_path: Path, solved_npz: Path) -> None:
    spec = str(tmp_path)
    run_dd_match(spec, spec, load_npz(solved_npz), boards=3, make_agent=recorded)
    assert len(notes(tmp_path, "built")) == 8  # four seats in each of two rooms
    assert notes(tmp_path, "closed") == notes(tmp_path, "built")


def test_dd_match_closes_its_agents_when_a_board_fails(tmp_path: Path, solved_npz: Path) -> None:
    with pytest.raises(RuntimeError, match="board 2 fails"):
        run_dd_match(
            str(tmp_path), f"{tmp_path}@2", load_npz(solved_npz), boards=3, make_agent=recorded
        )
    assert len(notes(tmp_path, "built")) == 8
    assert notes(tmp_path, "closed") == notes(tmp_path, "built")


@pytest.mark.parametrize("rooms", ["inprocess", "tcp"])
def test_match_closes_its_agents_when_a_board_fails(
    tmp_path: Path, solved_npz: Path, rooms: str
) -> None:
    where = tmp_path / "notes"
    where.mkdir()
    cfg = MatchConfig(
        us=str(where), them=f"{where}@2", out=tmp_path / "out", boards=3, deals=solved_npz,
        rooms=rooms, chunk=1, make_agent=recorded,
    )  # fmt: skip
    with pytest.raises(Exception, match=r"board 2 fails|failed to call on board 2"):
        run_match(cfg, progress=lambda b: None)
    assert len(notes(where, "built")) == 8
    assert notes(where, "closed") == notes(where, "built")


def test_match_workers_close_their_agents(tmp_path: Path, solved_npz: Path) -> None:
    where = tmp_path / "notes"
    where.mkdir()
    cfg = MatchConfig(
        us=str(where), them=str(where), out=tmp_path / "out", boards=4, deals=solved_npz,
        workers=2, chunk=1, make_agent=recorded,
    )  # fmt: skip
    summary = run_match(cfg, progress=lambda b: None)
    assert summary.boards == 4
    built = notes(where, "built")
    workers = {tag.partition("-")[0] for tag in built} - {str(os.getpid())}  # here: the report's
    assert len(workers) == 2
    assert notes(where, "closed") == built
