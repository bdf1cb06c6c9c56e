"""The Ray backend of ``bridgebot match`` on a real single-node Ray cluster (two CPUs).

Ray 2.60 no longer has local mode, so the module starts one real local cluster and every test
shares it. Each test checks the Ray backend against the local backend on the same boards: the
journal records must be the same, board by board.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.distributed import RayClusterError
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.match import run_match
from bridgebot.tournament.records import BoardResult

from bridgebot.agents import make_agent
from bridgebot.cli import main


@pytest.fixture(scope="module", autouse=True)
def ray_cluster() -> Iterator[None]:
    """One local Ray cluster for the module; the backend joins it instead of starting its own."""
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING)
    try:
        yield
    finally:
        ray.shutdown()


def _records(out: Path) -> dict[int, dict[str, Any]]:
    contents = read_journal(out / "journal.jsonl")
    assert len({b.board for b in contents.boards}) == len(contents.boards), "a board twice"
    return {b.board: b.model_dump() for b in contents.boards}


def _match(out: Path, deals: Path, **kw: Any) -> dict[str, Any]:
    cfg = MatchConfig(
        make_agent=make_agent, out=out, deals=deals, **{"us": "random", "them": "random", **kw}
    )
    return run_match(cfg, progress=lambda b: None)


@pytest.mark.parametrize(
    ("us", "them", "workers", "chunk"),
    [
        # One stream takes its chunks in order: even agents whose random stream runs across boards
        # (random, never reset) give the local backend's records.
        ("random", "random,pass_bias=0.3", 1, 3),
        # Two streams, chunks handed to whichever is free: deterministic agents, batch bidding.
        ("default", "bfg", 2, 3),
    ],
)
def test_ray_backend_gives_the_local_records(
    big_npz: Path, tmp_path: Path, us: str, them: str, workers: int, chunk: int
) -> None:
    common: dict[str, Any] = dict(us=us, them=them, boards=16, chunk=chunk)
    local = _match(tmp_path / "local", big_npz, **common)
    seen: list[BoardResult] = []
    cfg = MatchConfig(
        make_agent=make_agent,
        out=tmp_path / "ray",
        deals=big_npz,
        backend="ray",
        workers=workers,
        **common,
    )
    distributed = run_match(cfg, progress=seen.append)
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert sorted(b.board for b in seen) == list(range(1, 17))  # the progress bar saw every board
    assert (
        read_journal(tmp_path / "ray" / "journal.jsonl").header
        == read_journal(tmp_path / "local" / "journal.jsonl").header
    )
    assert distributed == local
    assert (tmp_path / "ray" / "report.md").read_text() == (
        tmp_path / "local" / "report.md"
    ).read_text()


def test_ray_backend_real_play_through_table_managers(solved_npz: Path, tmp_path: Path) -> None:
    """Scoring by play: each stream runs real table managers and seat clients inside its actor."""
    common: dict[str, Any] = dict(boards=4, chunk=2, scoring="play", rooms="tcp")
    local = _match(tmp_path / "local", solved_npz, **common)
    distributed = _match(tmp_path / "ray", solved_npz, backend="ray", **common)
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert all(
        r.play
        for b in read_journal(tmp_path / "ray" / "journal.jsonl").boards
        for r in b.rooms
        if r.contract
    )
    assert distributed == local


class _Killed(BaseException):
    """Stands in for a kill of the driver: nothing after it runs."""


def test_resume_after_an_interrupted_ray_match(big_npz: Path, tmp_path: Path) -> None:
    # Deterministic agents, so the resumed boards must come out as in an uninterrupted match.
    teams: dict[str, Any] = dict(us="default", them="bfg")
    _match(tmp_path / "local", big_npz, boards=16, chunk=2, **teams)
    out = tmp_path / "ray"
    written: list[int] = []

    def die_after_five(board: BoardResult) -> None:
        written.append(board.board)
        if len(written) == 5:
            raise _Killed

    cfg = MatchConfig(
        make_agent=make_agent, out=out, deals=big_npz, boards=16, chunk=2, backend="ray", **teams
    )
    with pytest.raises(_Killed):
        run_match(cfg, progress=die_after_five)
    journal = out / "journal.jsonl"
    before = read_journal(journal).boards
    # Every board the driver had reported is in the journal (the line comes first).
    assert [b.board for b in before] == written
    with open(journal, "ab") as f:  # and a kill in the middle of writing the next line
        f.write(b'{"type": "board", "board": 6, "dea')
    kept = journal.read_bytes()[: read_journal(journal).good_bytes]

    resumed: list[int] = []
    summary = run_match(
        MatchConfig(**{**cfg.__dict__, "resume": True}),
        progress=lambda b: resumed.append(b.board),
    )
    assert sorted(resumed) == list(range(6, 17))  # only the missing boards were played
    assert journal.read_bytes().startswith(kept)
    assert _records(out) == _records(tmp_path / "local")
    assert summary.boards == 16


def test_cli_ray_backend_seeded_compatible_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Deals from a seed (solved on the driver, cached) and the five rooms of compatible play."""
    argv = ["match", "--us", "random", "--them", "random", "--seed", "3", "--boards", "4",
            "--format", "compatible"]  # fmt: skip
    assert main([*argv, "--out", str(tmp_path / "local")]) == 0
    capsys.readouterr()
    assert main([*argv, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    out, _ = capsys.readouterr()
    summary = json.loads((tmp_path / "ray" / "summary.json").read_text())
    assert f"{summary['imps_per_board']:+.2f} IMPs/board" in out
    assert summary["format"] == "compatible"
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert sorted(_records(tmp_path / "ray")) == [1, 2, 3, 4]
    assert (tmp_path / "ray" / "dd_cache.npz").exists()


def test_more_streams_than_cluster_cpus_is_refused(solved_npz: Path, tmp_path: Path) -> None:
    with pytest.raises(RayClusterError, match="--workers 3: the Ray cluster has 2 CPUs"):
        _match(tmp_path, solved_npz, boards=8, backend="ray", workers=3)
    assert read_journal(tmp_path / "journal.jsonl").boards == []


def test_missing_ray_names_the_extra(
    solved_npz: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes ``import ray`` raise ImportError
    out = tmp_path / "m"
    code = main(["match", "--us", "random", "--them", "random", "--deals", str(solved_npz),
                 "--boards", "4", "--backend", "ray", "--out", str(out)])  # fmt: skip
    _, err = capsys.readouterr()
    assert code == 2
    assert "--backend ray needs Ray" in err
    assert "install the distributed extra: pip install -e .[distributed]" in err
    assert not (out / "journal.jsonl").exists()  # refused before anything was started


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"backend": "spark"}, "unknown backend 'spark'; known: local, ray"),
        ({"ray_address": "10.0.0.1:6379"}, "--ray-address is for --backend ray"),
    ],
)
def test_backend_option_errors(
    kw: dict[str, Any], message: str, solved_npz: Path, tmp_path: Path
) -> None:
    with pytest.raises(ValueError, match=message):
        _match(tmp_path, solved_npz, boards=2, **kw)


def test_tournament_on_ray_gives_the_local_records(solved_npz: Path, tmp_path: Path) -> None:
    """``bridgebot tournament --backend ray``: every match sharded on the cluster, same boards."""
    from bridgebot.tournament.event import TournamentConfig, run_tournament
    from bridgebot.tournament.schedule import Entrant

    entrants = (
        Entrant.parse("random"),
        Entrant.parse("random,seed=2"),
    )  # one match: actors are slow
    runs = {}
    for backend in ("local", "ray"):
        cfg = TournamentConfig(make_agent=make_agent,
            entrants=entrants, out=tmp_path / backend, boards_per_match=2, deals=solved_npz,
            backend=backend,
        )  # fmt: skip
        runs[backend] = run_tournament(cfg, progress=lambda _: None)
        assert runs[backend].complete
    assert runs["ray"] == runs["local"]
    for match in (tmp_path / "local" / "matches").iterdir():
        assert _records(match) == _records(tmp_path / "ray" / "matches" / match.name)
