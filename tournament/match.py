"""Run a duplicate match end to end: deal set -> rooms -> journal -> summary, PBN and report.

The journal is written (and synced) as each board finishes, before anything else happens; the
outputs are rebuilt from it at the end, so ``resume=True`` after a kill plays only the boards that
are missing and the final files are the same as for an uninterrupted run.

Board streams (:mod:`tournament.lanes`) run in worker processes (``workers``) or on Ray
(:mod:`tournament.distributed`), each with its own agents built once; boards are handed out in
small chunks so a batching agent still sees several boards at a time.

With ``dd_cost`` (``--dd-cost``) every board is costed double-dummy where it is played
(:mod:`tournament.ddcost`) and journaled with its costs. A journal written without the flag and
resumed with it gets the missing costs computed here, on the driver, from its records (the
cards are all there), before the rest is played: the outputs are those of a match costed from
the start. Those costs are not written back (the journal is append-only), so each such resume
computes them again, the same. Resumed without the flag, a costed journal keeps its costs, and
the outputs show them only where every board carries them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from bridgebot.core.logs import progress_bar
from bridgebot.core.stats import mean_stderr
from bridgebot.core.workers import spawn_pool
from bridgebot.laws.board_sets import load_boards
from bridgebot.laws.boards import BoardDeal
from bridgebot.tournament.config import (
    BACKENDS,
    DEFAULT_BOARDS,
    SCORINGS,
    MatchConfig,
    MatchError,
    Watch,
)
from bridgebot.tournament.ddcost import COSTED_FORMAT, with_costs
from bridgebot.tournament.ddmatch import play_dd_boards, seated_agents
from bridgebot.tournament.ddtables import ensure_dd
from bridgebot.tournament.distributed import import_ray, play_ray
from bridgebot.tournament.journal import Journal
from bridgebot.tournament.lanes import chunks, init_stream, play_chunk, stderr_line, tcp_rooms
from bridgebot.tournament.outputs import write_outputs
from bridgebot.tournament.records import BoardResult, MatchSummary
from bridgebot.tournament.rooms import MatchStopped
from bridgebot.tournament.seatings import seatings


class Progress:
    """Boards played, as a tqdm bar on stderr with the running IMPs per board.

    Drawn only on a terminal (a log or a pipe gets the summary at the end, not redrawn lines).
    """

    def __init__(self, total: int, done: Sequence[int]) -> None:
        self.imps = list(done)
        self.bar = progress_bar(total, "board", "match", initial=len(self.imps))

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
    watch: Watch | None = None,
) -> MatchSummary:
    """Play (or finish) the match ``cfg`` describes and write its outputs; return the summary.
    ``watch`` is shown every board as it is finished (the boards of a resumed match first) and,
    with TCP rooms in this process, every room's table as it plays."""
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
    if cfg.dd_cost and cfg.scoring != "play":
        raise MatchError("--dd-cost costs the cards played: it needs --scoring play")
    if cfg.dd_cost and cfg.fmt != COSTED_FORMAT:
        raise MatchError(
            f"--dd-cost compares the two pairs of a {COSTED_FORMAT} match: it needs --format "
            f"{COSTED_FORMAT}, not {cfg.fmt}"
        )
    if cfg.boards is not None and cfg.boards < 1:
        raise MatchError(f"--boards must be at least 1, not {cfg.boards}")
    deals = load_boards(
        deals=cfg.deals,
        seed=cfg.seed if cfg.seed is not None else 1,
        boards=cfg.boards,
        default=DEFAULT_BOARDS,
    )
    try:
        cfg.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise MatchError(f"--out {cfg.out}: cannot create the directory ({exc.strerror})") from None
    header = cfg.header(len(deals))
    with Journal(cfg.out / "journal.jsonl", header, resume=cfg.resume) as journal:
        done = {b.board for b in journal.done}
        beyond = done - {d.number for d in deals}
        if beyond:  # issue 44: --resume --boards 10 on 64 finished boards was silently ignored
            raise MatchError(
                f"{journal.path}: cannot resume with {len(deals)} boards: the journal holds "
                f"{len(done)} finished ones, {len(beyond)} of them beyond those (a resume may add "
                "boards, never drop them)"
            )
        todo = [d for d in deals if d.number not in done]
        results = list(journal.done)
        if cfg.dd_cost:  # a journal written without --dd-cost: cost its boards here
            results = [b if b.dd_cost is not None else with_costs(b) for b in results]
        bar: Progress | None = None
        if progress is None:
            progress = bar = Progress(len(deals), [b.imps for b in journal.done])
        report = progress

        def finish(board: BoardResult) -> None:
            journal.write(board)
            results.append(board)
            report(board)
            if watch is not None:
                watch.match_board(board.rooms[0].board, board.imps, board.rooms)

        if watch is not None:
            for board in journal.done:
                watch.match_board(board.rooms[0].board, board.imps, board.rooms)

        if todo:
            if cfg.scoring == "dd":
                # Solving is the slow part of a seeded match: use every core unless told. It runs
                # here, on the driver, with either backend (--workers counts Ray actors with ray).
                local = cfg.workers > 1 and cfg.backend == "local"
                solvers = cfg.workers if local else None
                todo = ensure_dd(todo, cache=cfg.out / "dd_cache.npz", workers=solvers)
            try:
                _play(cfg, todo, finish, announce, watch)
            except MatchStopped as exc:
                raise MatchStopped(
                    f"{exc}. {len(results)} of {len(deals)} boards are finished and journaled in "
                    f"{cfg.out / 'journal.jsonl'}; run the same command with --resume to play "
                    "the rest"
                ) from None
    if bar is not None:
        bar.close()
    return write_outputs(cfg.out, header, results, cfg.make_agent)


def _play(
    cfg: MatchConfig,
    todo: list[BoardDeal],
    finish: Callable[[BoardResult], None],
    announce: Callable[[str], None] | None,
    watch: Watch | None = None,
) -> None:
    seed = 0 if cfg.seed is None else cfg.seed
    if cfg.backend == "ray":
        play_ray(cfg, chunks(todo, cfg.chunk), seed, finish)
        return
    if cfg.workers <= 1:
        with seated_agents(cfg.make_agent, cfg.us, cfg.them, seatings(cfg.fmt), seed) as agents:
            if cfg.use_tcp:
                say = announce or stderr_line
                asyncio.run(tcp_rooms(cfg, todo, agents, finish, say, watch=watch))
                return
            for chunk in chunks(todo, cfg.chunk):
                play_dd_boards(chunk, cfg.fmt, cfg.us, cfg.them, agents, on_board=finish)
        return
    tasks = [(cfg, c) for c in chunks(todo, cfg.chunk)]
    init = (cfg.make_agent, cfg.us, cfg.them, cfg.fmt, seed)
    pool = spawn_pool(cfg.workers, initializer=init_stream, initargs=init)
    try:
        for boards in pool.imap_unordered(play_chunk, tasks):
            for board in boards:
                finish(board)
        pool.close()  # the workers exit in their own time, closing their agents
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
