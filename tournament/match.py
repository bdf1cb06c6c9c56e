"""Run a duplicate match end to end: deal set -> rooms -> journal -> summary, PBN and report.

The journal is written (and synced) as each board finishes, before anything else happens; the
outputs are rebuilt from it at the end, so ``resume=True`` after a kill plays only the boards that
are missing and the final files are the same as for an uninterrupted run.

Board streams run in worker processes (``workers``), each with its own agents built once; boards
are handed out in small chunks so a batching agent still sees several boards at a time.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bridgebot.engine.agent import Agent
from bridgebot.tournament.ddmatch import build_agents, play_dd_boards
from bridgebot.tournament.deals import BoardDeal, ensure_dd, load_deals
from bridgebot.tournament.formats import THEM, US, seatings
from bridgebot.tournament.journal import Journal
from bridgebot.tournament.records import BoardResult
from bridgebot.tournament.report import write_outputs
from bridgebot.tournament.rooms import ExternalSeat, MatchStopped, Network, play_rooms
from bridgebot.tournament.stats import mean_stderr
from endplay.types import Player
from tqdm import tqdm

SCORINGS = ("dd", "play")
BACKENDS = ("local", "ray")


class MatchError(ValueError):
    """A match that cannot start: bad options, or a scoring mode this build cannot run."""


@dataclass(frozen=True)
class MatchConfig:
    us: str
    them: str
    out: Path
    boards: int = 64
    deals: Path | None = None
    seed: int | None = None
    fmt: str = "team"
    scoring: str = "dd"
    resume: bool = False
    workers: int = 1
    chunk: int = 8
    rooms: str = "auto"
    """``inprocess`` (bidding only, DD scoring), ``tcp`` (table managers and seat clients), or
    ``auto``: in-process for DD scoring without external seats, TCP otherwise."""
    external: tuple[ExternalSeat, ...] = ()
    seat_timeout: float | None = None
    backend: str = "local"
    """``local`` (worker processes on this machine) or ``ray`` (:mod:`tournament.distributed`)."""
    ray_address: str | None = None
    """The Ray cluster to join (``None``: the one already started here, or a new local one)."""
    net: Network = field(default_factory=Network)
    """Where TCP rooms listen, whom they admit, how long they wait for outside seats."""

    @property
    def use_tcp(self) -> bool:
        if self.rooms == "auto":
            return self.scoring == "play" or bool(self.external)
        return self.rooms == "tcp"

    def header(self) -> dict[str, Any]:
        """What identifies the match in the journal; ``--resume`` refuses a different one."""
        return {
            "us": self.side_name(US),
            "them": self.side_name(THEM),
            "format": self.fmt,
            "scoring": self.scoring,
            "deals": str(self.deals) if self.deals is not None else None,
            "seed": self.seed,
            "boards": self.boards,
        }

    def side_name(self, side: str) -> str:
        """How results name a side: its agent spec, or its team name (``--us-name`` or
        ``--them-name``) when outside programs play every one of its seats."""
        seats = [
            ExternalSeat(s.room, Player(i))
            for s in seatings(self.fmt)
            for i, team in enumerate(s.teams)
            if team == side
        ]
        if seats and all(e in self.external for e in seats):
            return self.net.us_name if side == US else self.net.them_name
        return self.us if side == US else self.them


_worker_agents: dict[str, tuple[Agent, Agent, Agent, Agent]] = {}


def _init_worker(us: str, them: str, fmt: str, seed: int) -> None:
    from bridgebot.server.logs import configure_logging

    # A spawned worker starts with structlog's defaults (every wire line at debug): quiet it,
    # logging in the format the command chose (--log-format reaches it through the environment).
    configure_logging("warning")
    _worker_agents.clear()
    _worker_agents.update(build_agents(us, them, seatings(fmt), seed))


def _play_chunk(args: tuple[MatchConfig, list[BoardDeal]]) -> list[BoardResult]:
    cfg, deals = args
    if not cfg.use_tcp:
        return play_dd_boards(deals, cfg.fmt, cfg.us, cfg.them, _worker_agents)
    out: list[BoardResult] = []
    stream = f"-{os.getpid()}"  # each worker's table managers keep their own records
    asyncio.run(_tcp_rooms(cfg, deals, _worker_agents, out.append, _stderr_line, stream))
    return out


def _chunks(deals: Sequence[BoardDeal], size: int) -> Iterator[list[BoardDeal]]:
    for i in range(0, len(deals), size):
        yield list(deals[i : i + size])


class Progress:
    """Boards played, as a tqdm bar on stderr with the running IMPs per board.

    Drawn only on a terminal (a log or a pipe gets the summary at the end, not redrawn lines).
    """

    def __init__(self, total: int, done: Sequence[int]) -> None:
        self.imps = list(done)
        self.bar = tqdm(
            total=total,
            initial=len(self.imps),
            unit="board",
            desc="match",
            file=sys.stderr,
            dynamic_ncols=True,
            disable=None,
        )

    def __call__(self, board: BoardResult) -> None:
        self.imps.append(board.imps)
        mean, se = mean_stderr(self.imps)
        spread = f" ± {se:.2f}" if len(self.imps) > 1 else ""
        self.bar.set_postfix_str(f"{mean:+.2f} IMPs/board{spread}", refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def run_match(
    cfg: MatchConfig,
    progress: Callable[[BoardResult], None] | None = None,
    announce: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Play (or finish) the match ``cfg`` describes and write its outputs; return the summary."""
    if cfg.scoring not in SCORINGS:
        raise MatchError(f"unknown scoring {cfg.scoring!r}; known: {', '.join(SCORINGS)}")
    if cfg.rooms not in ("auto", "tcp", "inprocess"):
        raise MatchError(f"unknown rooms {cfg.rooms!r}; known: auto, tcp, inprocess")
    if not cfg.use_tcp and (cfg.scoring == "play" or cfg.external):
        raise MatchError("scoring by play and external seats need --rooms tcp")
    if cfg.external and cfg.workers > 1:
        raise MatchError("external seats need one board stream (--workers 1)")
    if cfg.backend not in BACKENDS:
        raise MatchError(f"unknown backend {cfg.backend!r}; known: {', '.join(BACKENDS)}")
    if cfg.external and cfg.backend != "local":
        raise MatchError("external seats connect to this machine: they need --backend local")
    if cfg.ray_address is not None and cfg.backend != "ray":
        raise MatchError("--ray-address is for --backend ray")
    if cfg.backend == "ray":
        from bridgebot.tournament.distributed import import_ray

        import_ray()  # a missing install is reported before any deal is solved or board played
    names = {s.room for s in seatings(cfg.fmt)}  # also validates the format name
    for ext in cfg.external:
        if ext.room not in names:
            raise MatchError(
                f"external seat {ext.room}:{ext.seat.name}: no room {ext.room!r} in format "
                f"{cfg.fmt} (rooms: {', '.join(sorted(names))})"
            )
    if cfg.boards < 1:
        raise MatchError(f"--boards must be at least 1, not {cfg.boards}")
    deals = load_deals(deals=cfg.deals, seed=cfg.seed, boards=cfg.boards)
    try:
        cfg.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MatchError(f"--out {cfg.out}: cannot create the directory ({exc.strerror})") from None
    header = cfg.header()
    with Journal(cfg.out / "journal.jsonl", header, resume=cfg.resume) as journal:
        done = {b.board for b in journal.done}
        todo = [d for d in deals if d.board not in done]
        results = list(journal.done)
        bar: Progress | None = None
        if progress is None:
            progress = bar = Progress(len(deals), [b.imps for b in journal.done])
        report = progress

        def finish(board: BoardResult) -> None:
            journal.write(board)
            results.append(board)
            report(board)

        if todo:
            if cfg.scoring == "dd":
                # Solving is the slow part of a seeded match: use every core unless told. It runs
                # here, on the driver, with either backend (--workers counts Ray actors with ray).
                local = cfg.workers > 1 and cfg.backend == "local"
                solvers = cfg.workers if local else None
                todo = ensure_dd(todo, cache=cfg.out / "dd_cache.npz", workers=solvers)
            try:
                _play(cfg, todo, finish, announce)
            except MatchStopped as exc:
                raise MatchStopped(
                    f"{exc}. {len(results)} of {len(deals)} boards are finished and journaled in "
                    f"{cfg.out / 'journal.jsonl'}; run the same command with --resume to play "
                    "the rest"
                ) from None
    if bar is not None:
        bar.close()
    return write_outputs(cfg.out, header, results)


def _play(
    cfg: MatchConfig,
    todo: list[BoardDeal],
    finish: Callable[[BoardResult], None],
    announce: Callable[[str], None] | None,
) -> None:
    seed = 0 if cfg.seed is None else cfg.seed
    if cfg.backend == "ray":
        from bridgebot.tournament.distributed import play_ray

        play_ray(cfg, _chunks(todo, cfg.chunk), seed, finish)
        return
    if cfg.workers <= 1:
        agents = build_agents(cfg.us, cfg.them, seatings(cfg.fmt), seed)
        if cfg.use_tcp:
            asyncio.run(_tcp_rooms(cfg, todo, agents, finish, announce or _stderr_line))
            return
        for chunk in _chunks(todo, cfg.chunk):
            play_dd_boards(chunk, cfg.fmt, cfg.us, cfg.them, agents, on_board=finish)
        return
    ctx = multiprocessing.get_context("spawn")
    tasks = [(cfg, c) for c in _chunks(todo, cfg.chunk)]
    with ctx.Pool(
        cfg.workers, initializer=_init_worker, initargs=(cfg.us, cfg.them, cfg.fmt, seed)
    ) as pool:
        for boards in pool.imap_unordered(_play_chunk, tasks):
            for board in boards:
                finish(board)


def _stderr_line(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _stdout_line(text: str) -> None:
    print(text, flush=True)


async def _tcp_rooms(
    cfg: MatchConfig,
    deals: list[BoardDeal],
    agents: dict[str, tuple[Agent, Agent, Agent, Agent]],
    finish: Callable[[BoardResult], None],
    announce: Callable[[str], None],
    stream: str = "",
) -> None:
    await play_rooms(
        deals,
        cfg.fmt,
        seatings(cfg.fmt),
        {US: cfg.us, THEM: cfg.them},
        agents,
        cfg.scoring,
        cfg.out / f"rooms{stream}",
        finish,
        external=cfg.external,
        announce=announce,
        timeout=cfg.seat_timeout,
        net=cfg.net,
        announce_json=_stdout_line,
        kept=None if stream else cfg.out / "rooms-kept.jsonl",  # worker streams never resume
    )
