"""Run a duplicate match end to end: deal set -> rooms -> journal -> summary, PBN and report.

The journal is written (and synced) as each board finishes, before anything else happens; the
outputs are rebuilt from it at the end, so ``resume=True`` after a kill plays only the boards that
are missing and the final files are the same as for an uninterrupted run.

Board streams (:mod:`tournament.streams`) run in worker processes (``workers``) or on Ray
(:mod:`tournament.distributed`), each with its own agents built once; boards are handed out in
small chunks so a batching agent still sees several boards at a time.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from bridgebot.tournament.config import BACKENDS, SCORINGS, MatchConfig, MatchError
from bridgebot.tournament.ddmatch import build_agents, play_dd_boards
from bridgebot.tournament.deals import BoardDeal, ensure_dd, load_deals
from bridgebot.tournament.distributed import import_ray, play_ray
from bridgebot.tournament.formats import seatings
from bridgebot.tournament.journal import Journal
from bridgebot.tournament.outputs import write_outputs
from bridgebot.tournament.records import BoardResult, MatchSummary
from bridgebot.tournament.rooms import MatchStopped
from bridgebot.tournament.stats import mean_stderr
from bridgebot.tournament.streams import chunks, init_stream, play_chunk, stderr_line, tcp_rooms


class Progress:
    """A one-line progress bar on a terminal; a line every tenth of the match otherwise."""

    def __init__(self, total: int, done: Sequence[int], stream: TextIO | None = None) -> None:
        self.total = total
        self.imps = list(done)
        self.stream = stream if stream is not None else sys.stderr
        self._last_tenth = -1

    def __call__(self, board: BoardResult) -> None:
        self.imps.append(board.imps)
        n = len(self.imps)
        mean, se = mean_stderr(self.imps)
        width = 30
        filled = width * n // max(self.total, 1)
        text = f"[{'#' * filled}{'.' * (width - filled)}] {n}/{self.total} boards, "
        text += f"{mean:+.2f} IMPs/board" + (f" ± {se:.2f}" if n > 1 else "")
        if self.stream.isatty():
            self.stream.write("\r" + text + ("\n" if n == self.total else ""))
        else:
            tenth = 10 * n // max(self.total, 1)
            if tenth == self._last_tenth:
                return
            self._last_tenth = tenth
            self.stream.write(text + "\n")
        self.stream.flush()


def run_match(
    cfg: MatchConfig,
    progress: Callable[[BoardResult], None] | None = None,
    announce: Callable[[str], None] | None = None,
) -> MatchSummary:
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
        report = progress or Progress(len(deals), [b.imps for b in journal.done])

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
    return write_outputs(cfg.out, header, results)


def _play(
    cfg: MatchConfig,
    todo: list[BoardDeal],
    finish: Callable[[BoardResult], None],
    announce: Callable[[str], None] | None,
) -> None:
    seed = 0 if cfg.seed is None else cfg.seed
    if cfg.backend == "ray":
        play_ray(cfg, chunks(todo, cfg.chunk), seed, finish)
        return
    if cfg.workers <= 1:
        agents = build_agents(cfg.us, cfg.them, seatings(cfg.fmt), seed)
        if cfg.use_tcp:
            asyncio.run(tcp_rooms(cfg, todo, agents, finish, announce or stderr_line))
            return
        for chunk in chunks(todo, cfg.chunk):
            play_dd_boards(chunk, cfg.fmt, cfg.us, cfg.them, agents, on_board=finish)
        return
    ctx = multiprocessing.get_context("spawn")
    tasks = [(cfg, c) for c in chunks(todo, cfg.chunk)]
    with ctx.Pool(
        cfg.workers, initializer=init_stream, initargs=(cfg.us, cfg.them, cfg.fmt, seed)
    ) as pool:
        for boards in pool.imap_unordered(play_chunk, tasks):
            for board in boards:
                finish(board)
