"""A duplicate tournament: entrants meet in team matches, ranked by victory points.

Each match is an ordinary ``bridgebot match`` (:func:`tournament.match.run_match`) in its own
directory, with its own journal, PBN files and report; this module only decides who meets whom on
which boards, runs the matches, and ranks the field (:mod:`tournament.standings`).

- Formats (:mod:`tournament.schedule`): ``round-robin`` (circle method; a bye when the field is
  odd), ``double-round-robin`` (the same pairings again with home and away swapped, on new boards)
  and ``gauntlet`` (the first entrant against each of the others, every match on the same boards,
  so the rows are paired).
- Every match of a round plays the same boards, written once to ``OUT/deals/round-RR.pbn``; round
  R takes deals ``(R - 1) * K + 1 .. R * K`` of the deal source. Double-dummy tables are solved
  once for the whole tournament (``OUT/dd_cache.npz``) and handed to each match's own cache.
- Matches run in parallel in worker processes (``workers``), or one after another each spread
  over Ray actors (``backend="ray"``). An outside entrant is one program per seat, so at most
  ``instances`` of its matches run at once (default one).
- A match is finished when its journal holds all its boards; ``resume`` skips finished matches
  (rebuilding from the journal any output a kill left unwritten) and lets an unfinished one
  resume at its first missing board, so a tournament killed at any moment replays nothing. Worker processes die with the driver, so a killed tournament leaves no
  match running behind it.
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
from bridgebot.core.errors import validation_fault
from bridgebot.core.files import replace_file, write_text_file
from bridgebot.core.workers import submit_whole
from bridgebot.engine.agent import AgentFactory
from bridgebot.laws.board_sets import load_boards
from bridgebot.laws.boards import BoardDeal
from bridgebot.laws.cards import deal_owners
from bridgebot.tournament.config import MatchConfig
from bridgebot.tournament.ddtables import ensure_dd
from bridgebot.tournament.journal import read_journal
from bridgebot.tournament.match import run_match
from bridgebot.tournament.outputs import missing_outputs
from bridgebot.tournament.records import (
    AgentMarks,
    TournamentEntrant,
    TournamentHeader,
    rebuilt_agents,
)
from bridgebot.tournament.rooms import ExternalSeat, Network
from bridgebot.tournament.schedule import Entrant, Pairing, TournamentError, next_matches, schedule
from bridgebot.tournament.seatings import THEM, US, seatings
from bridgebot.tournament.standings import (
    PlayedMatch,
    Standings,
    build_standings,
    markdown_standings,
    write_standings,
)
from endplay.parsers import pbn
from endplay.types import Board, Player
from pydantic import ValidationError

#: The agent built (and never asked) at seats an outside program takes: the cheapest there is.
EXTERNAL_STANDIN = "random"
EXTERNAL = "external"


@dataclass(frozen=True)
class TournamentConfig:
    entrants: tuple[Entrant, ...]
    out: Path
    fmt: str = "round-robin"
    boards_per_match: int = 32
    deals: Path | None = None
    seed: int = 1
    scoring: str = "dd"
    resume: bool = False
    workers: int = 1
    """Matches in parallel (worker processes); with ``backend="ray"`` the Ray actors per match."""
    backend: str = "local"
    ray_address: str | None = None
    rooms: str = "auto"
    seat_timeout: float | None = None
    solver_workers: int | None = None
    """Processes solving double-dummy tables (default: as many as ``workers``)."""
    make_agent: AgentFactory = field(kw_only=True)
    """Builds the entrants' agents (the composition root's ``make_agent``)."""
    agent_marks: Callable[[str], AgentMarks] | None = field(default=None, kw_only=True)
    """What identifies an entrant's agent, for each match's journal (``MatchConfig``'s)."""

    def header(self) -> TournamentHeader:
        """What identifies the tournament; ``--resume`` refuses a different one."""
        return TournamentHeader(
            format=self.fmt,
            entrants=tuple(
                TournamentEntrant(
                    name=e.name,
                    spec=e.spec if e.spec is not None else EXTERNAL,
                    agent=(
                        self.agent_marks(e.spec)
                        if e.spec is not None and self.agent_marks is not None
                        else None
                    ),
                )
                for e in self.entrants
            ),
            boards_per_match=self.boards_per_match,
            scoring=self.scoring,
            deals=str(self.deals) if self.deals is not None else None,
            seed=self.seed,
        )


def _check(cfg: TournamentConfig) -> list[Pairing]:
    names = [e.name for e in cfg.entrants]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise TournamentError(
            f"entrant names must differ: {', '.join(twice)} twice (name them NAME=SPEC)"
        )
    if cfg.boards_per_match < 1:
        raise TournamentError(f"--boards-per-match must be at least 1, not {cfg.boards_per_match}")
    if cfg.workers < 1:
        raise TournamentError(f"--workers must be at least 1, not {cfg.workers}")
    if any(e.external for e in cfg.entrants) and cfg.backend != "local":
        raise TournamentError("outside entrants connect to this machine: use --backend local")
    return schedule(names, cfg.fmt)


def round_deals(cfg: TournamentConfig, rounds: int) -> dict[int, list[BoardDeal]]:
    """Deals of every round: the next ``boards_per_match`` boards of the deal set, their
    numbers, dealers and vulnerabilities as the file (or the seeded stream) gives them."""
    k = cfg.boards_per_match
    deals = load_boards(deals=cfg.deals, seed=cfg.seed, boards=rounds * k, default=rounds * k)
    if len(deals) < rounds * k:
        raise TournamentError(
            f"{cfg.deals}: {rounds} rounds of {k} boards need {rounds * k} boards, the file has "
            f"{len(deals)}"
        )
    return {r: deals[(r - 1) * k : r * k] for r in range(1, rounds + 1)}


def _write_round_file(path: Path, deals: Sequence[BoardDeal]) -> None:
    """The round's boards as PBN, written once and atomically (resumed matches read the same)."""
    if path.exists():
        return
    boards = [Board(d.deal.copy(), board_num=d.number, vul=d.vul, dealer=d.dealer) for d in deals]
    write_text_file(path, pbn.dumps(boards))


def _write_dd_cache(path: Path, deals: Sequence[BoardDeal]) -> None:
    """A match's DD cache (the deal sets' npz layout) holding its round's solved tables."""
    tables = [d.dd for d in deals]
    missing = [d.number for d, t in zip(deals, tables, strict=True) if t is None]
    if missing:
        raise ValueError(f"boards {missing} have no double-dummy table")
    owners = np.stack([deal_owners(d.pbn) for d in deals])
    dd = np.stack([t for t in tables if t is not None])
    replace_file(path, lambda tmp: np.savez_compressed(tmp, owners=owners, dd=dd))


def _external_seats(entrant: Entrant, team: str) -> tuple[ExternalSeat, ...]:
    """Every seat that team ``us``/``them`` takes in the team format, left to ``entrant``."""
    if not entrant.external:
        return ()
    return tuple(
        ExternalSeat(s.room, p)
        for s in seatings("team")
        for p in Player
        if s.teams[p.value] == team
    )


def match_config(cfg: TournamentConfig, pairing: Pairing, deals_file: Path) -> MatchConfig:
    """The ``match`` that plays ``pairing``: its own directory, the round's boards."""
    by_name = {e.name: e for e in cfg.entrants}
    home, away = by_name[pairing.home], by_name[pairing.away]
    external = (*_external_seats(home, US), *_external_seats(away, THEM))
    out = cfg.out / "matches" / pairing.key
    # An outside program is told, and recorded, by its entrant name (its team name at the table).
    net = Network(us_name=home.name, them_name=away.name) if external else Network()
    return MatchConfig(
        us=home.spec or EXTERNAL_STANDIN,
        them=away.spec or EXTERNAL_STANDIN,
        out=out,
        boards=cfg.boards_per_match,
        deals=deals_file,
        seed=cfg.seed,
        fmt="team",
        scoring=cfg.scoring,
        resume=(out / "journal.jsonl").exists(),
        workers=cfg.workers if cfg.backend == "ray" else 1,
        rooms=cfg.rooms,
        external=external,
        net=net,
        seat_timeout=cfg.seat_timeout,
        backend=cfg.backend,
        ray_address=cfg.ray_address,
        make_agent=cfg.make_agent,
        agent_marks=cfg.agent_marks,
    )


def finished_boards(match: MatchConfig) -> int:
    """Boards in the match's journal (0 when it has none yet)."""
    return len({b.board for b in read_journal(match.out / "journal.jsonl").boards})


def played_match(pairing: Pairing, match: MatchConfig) -> PlayedMatch:
    boards = sorted(read_journal(match.out / "journal.jsonl").boards, key=lambda b: b.board)
    return PlayedMatch(pairing.round, pairing.home, pairing.away, tuple(boards))


# -- running matches -----------------------------------------------------------------------------


def _die_with_parent(parent: int) -> None:
    """Worker initialiser: be killed when the tournament process dies (Linux), so a killed
    tournament never leaves a match writing its journal while ``--resume`` plays it again."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() != parent:  # the tournament died before the line above took effect
        os._exit(1)
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


def _quiet(_: object) -> None:
    """A match's per-board progress, silenced: the tournament prints one line per match."""


def _stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def play_match(match: MatchConfig, label: str, say: Callable[[str], None] = _stderr) -> None:
    """Run one match to its end (in a worker process or here); its 'connect to' lines go to
    ``say``, prefixed with the match's name."""
    run_match(match, progress=_quiet, announce=lambda text: say(f"{label}: {text}"))


def run_tournament(
    cfg: TournamentConfig, progress: Callable[[str], None] | None = None
) -> Standings:
    """Play (or finish) the tournament ``cfg`` describes; write and return its standings."""
    say = progress or _stderr
    pairings = _check(cfg)
    per_round = round_deals(cfg, max(p.round for p in pairings))  # a bad deal source: stop here
    cfg.out.mkdir(parents=True, exist_ok=True)
    with _locked(cfg.out):
        _claim(cfg)
        return _run_claimed(cfg, pairings, per_round, say)


@contextmanager
def _locked(out: Path) -> Iterator[None]:
    """Hold ``OUT/.lock`` for the whole run: two tournaments must never write one directory."""
    with open(out / ".lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise TournamentError(f"{out}: another tournament is running there") from exc
        yield


def _run_claimed(
    cfg: TournamentConfig,
    pairings: list[Pairing],
    per_round: dict[int, list[BoardDeal]],
    say: Callable[[str], None],
) -> Standings:
    (cfg.out / "deals").mkdir(exist_ok=True)
    files = {r: cfg.out / "deals" / f"round-{r:02d}.pbn" for r in per_round}
    for r, deals in per_round.items():
        _write_round_file(files[r], deals)
    matches = {p: match_config(cfg, p, files[p.round]) for p in pairings}
    todo = [p for p in pairings if finished_boards(matches[p]) < cfg.boards_per_match]
    for p in pairings:  # finished before a kill, outputs maybe not: rebuilt, nothing replayed
        if p not in todo and missing_outputs(matches[p].out, played_match(p, matches[p]).boards):
            play_match(replace(matches[p], resume=True), p.key, say)
    if cfg.scoring == "dd" and todo:
        by_round = _solve(cfg, {r: per_round[r] for r in sorted({p.round for p in todo})})
        for p in todo:
            matches[p].out.mkdir(parents=True, exist_ok=True)
            _write_dd_cache(matches[p].out / "dd_cache.npz", by_round[p.round])
    done = [played_match(p, matches[p]) for p in pairings if p not in todo]
    standings = _publish(cfg, pairings, done)
    if done:
        say(f"resuming: {len(done)} of {len(pairings)} matches already played")

    def finished(p: Pairing) -> None:
        nonlocal standings
        played = played_match(p, matches[p])
        done.append(played)
        standings = _publish(cfg, pairings, done)
        row = played.row()
        boards = [b.imps for b in played.boards]
        say(
            f"[{len(done)}/{len(pairings)}] round {p.round}: {p.home} v {p.away} "
            f"{row.imps_home}-{row.imps_away} IMPs, {row.vp_home:.2f}-{row.vp_away:.2f} VPs "
            f"({sum(boards) / len(boards):+.2f} IMPs/board over {len(boards)} boards)"
        )

    _run(cfg, todo, matches, finished, say)
    return standings


#: Deals per solver process and call: DDS refuses batches of more than 40 tables.
SOLVER_BATCH = 32


def _solve(cfg: TournamentConfig, rounds: dict[int, list[BoardDeal]]) -> dict[int, list[BoardDeal]]:
    """The rounds' deals with DD tables, solved once for the tournament (``OUT/dd_cache.npz``)."""
    workers = cfg.solver_workers or cfg.workers
    deals = [d for r in rounds for d in rounds[r]]
    step = SOLVER_BATCH * workers
    solved: list[BoardDeal] = []
    for i in range(0, len(deals), step):
        solved += ensure_dd(deals[i : i + step], cache=cfg.out / "dd_cache.npz", workers=workers)
    out: dict[int, list[BoardDeal]] = {}
    for r, deals_r in rounds.items():
        out[r], solved = solved[: len(deals_r)], solved[len(deals_r) :]
    return out


def _run(
    cfg: TournamentConfig,
    todo: list[Pairing],
    matches: dict[Pairing, MatchConfig],
    finished: Callable[[Pairing], None],
    say: Callable[[str], None],
) -> None:
    """Run ``todo`` in order: in parallel processes, or here (one worker, or Ray)."""
    if cfg.backend == "ray":
        # One cluster for the whole tournament (each match would otherwise start its own).
        from bridgebot.tournament.distributed import _connect, import_ray

        ray = import_ray()
        started = _connect(ray, cfg.ray_address)
        try:
            for p in todo:
                play_match(matches[p], p.key, say)
                finished(p)
        finally:
            if started:
                ray.shutdown()
        return
    if cfg.workers == 1:
        for p in todo:
            play_match(matches[p], p.key, say)
            finished(p)
        return
    instances = {e.name: e.instances for e in cfg.entrants if e.external}
    pending = list(todo)
    running: dict[Future[None], Pairing] = {}
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(
        cfg.workers, mp_context=ctx, initializer=_die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        while pending or running:
            for p in next_matches(pending, list(running.values()), cfg.workers, instances):
                pending.remove(p)
                running[submit_whole(pool, play_match, matches[p], p.key)] = p
            ready, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in ready:
                p = running.pop(future)
                future.result()  # a match that failed stops the tournament (resume continues)
                finished(p)


#: The file in ``OUT`` that says which tournament the directory holds.
HEADER_FILE = "bridgebot.tournament.json"


def _claim(cfg: TournamentConfig) -> None:
    """Write ``OUT/bridgebot.tournament.json``, or check it is this tournament when resuming."""
    path = cfg.out / HEADER_FILE
    header = cfg.header()
    if not path.exists():
        write_header(path, header)
        return
    old = read_header(path)
    if not cfg.resume:
        raise TournamentError(f"{path}: a tournament is already there; pass --resume")
    diff = header.differences(old)
    if diff:
        changes = ", ".join(f"{k}: was {was!r}, now {now!r}" for k, (now, was) in diff.items())
        raise TournamentError(f"{path}: cannot resume a different tournament ({changes})")
    changed = old.agent_changes(header)
    if changed:
        raise TournamentError(rebuilt_agents(path, changed, "its matches were played"))


def read_header(path: Path) -> TournamentHeader:
    """Read a tournament's header file; a bad one is a :class:`TournamentError` naming the file
    and field."""
    try:
        return TournamentHeader.model_validate_json(path.read_bytes())
    except OSError as exc:
        raise TournamentError(f"{path}: unreadable ({exc.strerror})") from None
    except ValidationError as exc:
        raise TournamentError(f"{path}: not a tournament header: {validation_fault(exc)}") from None


def write_header(path: Path, header: TournamentHeader) -> None:
    """Write a tournament's header file atomically."""
    write_text_file(path, header.model_dump_json(indent=2) + "\n")


def _publish(cfg: TournamentConfig, pairings: list[Pairing], done: list[PlayedMatch]) -> Standings:
    """Rewrite ``standings.json`` and ``report.md`` from the finished matches."""
    standings = build_standings(
        entrants=[(e.name, e.spec or EXTERNAL) for e in cfg.entrants],
        matches=done,
        scheduled=len(pairings),
        fmt=cfg.fmt,
        scoring=cfg.scoring,
        boards_per_match=cfg.boards_per_match,
    )
    write_standings(cfg.out / "standings.json", standings)
    write_text_file(cfg.out / "report.md", markdown_standings(standings))
    return standings
