"""Double-dummy solving of many positions at once: the engine of the Monte Carlo card player.

A :class:`Position` is a compact, picklable description of a play position (the cards every seat
still holds, trump, who led the current trick and the cards already played to it), so it can be
shipped to worker processes cheaply. :func:`solve_positions` scores every legal card of the player
to move in each position with DDS (through endplay), batching boards the way DDS likes them.
:class:`DDSolver` adds worker processes and a deadline: the Monte Carlo player asks for many
worlds and takes whatever is solved when its time is up.

Card indices are the layout of :mod:`bridgebot.laws.cards` (docs/data.md).
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from bridgebot.core.workers import submit_whole
from bridgebot.laws.cards import card_index, index_card, owners_pbn
from endplay.types import Deal, Denom, Player, Vul

#: DDS solves at most this many boards per call (endplay's check is off by one, so stay below).
MAX_BATCH = 200
#: DDS computes at most this many (deal, strain) tables per ``CalcAllTables`` call.
MAX_TABLE_STRAINS = 200
#: Held for the length of every in-process DDS call (see the module doc).
SOLVER_LOCK = threading.Lock()

TrickArray = npt.NDArray[np.int8]


def dd_tables(
    owners: npt.NDArray[np.integer], strains: Sequence[int] | None = None
) -> npt.NDArray[np.uint8]:
    """Full DD tables, uint8[B, 4, 5] (declarer N..W x strain C, D, H, S, NT), of ``owners[B, 52]``.

    ``strains`` (indices into C, D, H, S, NT) limits the work to those strains; the other columns
    are then 0. Batched ``calc_all_tables`` calls (DDS shares work across a batch; about 1.1x
    faster than one ``calc_dd_table`` per deal here), each inside :data:`SOLVER_LOCK`. The layout
    is the ``dd`` array of docs/data.md.
    """
    from endplay.dds import calc_all_tables

    wanted = sorted(set(range(5) if strains is None else strains))
    if not wanted or not all(0 <= s < 5 for s in wanted):
        raise ValueError(f"strains must be indices 0..4 (C, D, H, S, NT), not {strains}")
    out = np.zeros((len(owners), 4, 5), dtype=np.uint8)
    # endplay's Denom order is S, H, D, C, NT: strain index s (C, D, H, S, NT) is Denom 3 - s.
    exclude = [Denom(4 if s == 4 else 3 - s) for s in range(5) if s not in wanted]
    per_call = MAX_TABLE_STRAINS // len(wanted)
    for start in range(0, len(owners), per_call):
        deals = [Deal(owners_pbn(row)) for row in owners[start : start + per_call]]
        with SOLVER_LOCK:
            tables = calc_all_tables(deals, exclude=exclude)
        # endplay's to_list() is [strain S, H, D, C, NT][declarer N, E, S, W].
        arr = np.array([t.to_list() for t in tables], dtype=np.uint8)
        out[start : start + len(deals)] = arr[:, [3, 2, 1, 0, 4], :].transpose(0, 2, 1)
    for s in range(5):
        if s not in wanted:
            out[:, :, s] = 0
    return out


@dataclass(frozen=True)
class Position:
    """A play position: ``remaining[i]`` = seat holding card ``i`` (-1 if played to an earlier
    trick; cards of the current trick still count as held by the seat that played them)."""

    remaining: tuple[int, ...]
    trump: int
    """endplay ``Denom`` value (0 spades .. 3 clubs, 4 notrump)."""
    leader: int
    """Seat (0..3) who led the current trick."""
    trick: tuple[int, ...] = ()
    """Card indices already played to the current trick, in order."""

    def to_deal(self) -> Deal:
        deal = Deal(owners_pbn(np.asarray(self.remaining)))
        deal.first = Player(self.leader)
        deal.trump = Denom(self.trump)
        for i in self.trick:
            deal.play(index_card(i))
        return deal

    @property
    def to_move(self) -> int:
        return (self.leader + len(self.trick)) % 4


class SolverError(RuntimeError):
    """DDS refused a position (an impossible deal built by the caller)."""


def solve_positions(positions: Sequence[Position]) -> TrickArray:
    """Tricks the side to move takes from here (current trick included) after each of its legal
    cards: an ``int8 [len(positions), 52]`` array, -1 where the card is not a legal play."""
    from endplay.dds import solve_all_boards

    out = np.full((len(positions), 52), -1, dtype=np.int8)
    for start in range(0, len(positions), MAX_BATCH):
        chunk = positions[start : start + MAX_BATCH]
        try:
            deals = [p.to_deal() for p in chunk]
            with SOLVER_LOCK:
                solved = solve_all_boards(deals)
        except Exception as exc:  # endplay raises plain RuntimeError/ValueError from DDS codes
            raise SolverError(f"double-dummy solver rejected a position: {exc}") from exc
        for k, board in enumerate(solved):
            for card, tricks in board:
                out[start + k, card_index(card)] = tricks
    return out


def one_solver_thread() -> None:
    """One DDS thread in this process: for worker processes, whose number is the parallelism
    (the initializer of every pool that solves: this module's, ``ddgen``'s)."""
    from endplay import _dds

    _dds.SetMaxThreads(1)


def par(dd: npt.NDArray[np.uint8], vul: Vul, dealer: Player) -> tuple[int, list[str]]:
    """Par of a full DD table in the layout of :func:`dd_tables`: the N/S score and the par
    contracts as endplay writes them (``4♠S``...), from DDS's par routine."""
    import endplay._dds as _dds  # endplay builds a DDTable only from this struct
    from endplay.dds import par as dds_par
    from endplay.dds.ddtable import DDTable

    res = _dds.ddTableResults()
    order = (Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt)
    for seat in range(4):
        for k, denom in enumerate(order):
            res.resTable[denom.value][seat] = int(dd[seat, k])
    with SOLVER_LOCK:
        result = dds_par(DDTable(res), vul, dealer)
    return int(result.score), [str(c) for c in result]


class DDSolver:
    """Solves batches of positions, in this process (``workers=0``: DDS uses its own threads and
    the ctypes call releases the GIL) or in ``workers`` spawned processes, within a deadline.

    Spawned rather than forked processes, because the seat client runs agents next to an event
    loop and other threads; the pool starts on first use and lives until :meth:`close`.
    """

    def __init__(self, workers: int = 0, chunk: int = 4) -> None:
        if workers < 0:
            raise ValueError(f"workers must be >= 0, not {workers}")
        if chunk < 1:
            raise ValueError(f"chunk must be >= 1, not {chunk}")
        self.workers = workers
        self.chunk = chunk
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=one_solver_thread,
            )
        return self._pool

    def solve(
        self, positions: Sequence[Position], deadline: float | None = None
    ) -> tuple[TrickArray, npt.NDArray[np.bool_]]:
        """Solve ``positions``, stopping at ``deadline`` (a ``time.monotonic()`` value).

        Returns the trick array of :func:`solve_positions` and a mask of the positions actually
        solved. The first chunk is always solved whatever the deadline, so a caller always gets
        an answer; the rest is solved chunk by chunk while time remains.
        """
        n = len(positions)
        out = np.full((n, 52), -1, dtype=np.int8)
        done = np.zeros(n, dtype=np.bool_)
        if n == 0:
            return out, done
        starts = list(range(0, n, self.chunk))
        if self.workers == 0:
            for start in starts:
                if done.any() and deadline is not None and time.monotonic() >= deadline:
                    break
                end = min(start + self.chunk, n)
                out[start:end] = solve_positions(positions[start:end])
                done[start:end] = True
            return out, done
        pool = self._get_pool()
        futures: dict[Future[TrickArray], int] = {
            submit_whole(pool, solve_positions, list(positions[s : s + self.chunk])): s
            for s in starts
        }
        pending = set(futures)
        while pending:
            timeout = None
            if deadline is not None and done.any():
                timeout = max(0.0, deadline - time.monotonic())
            finished, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            if not finished:
                break
            for fut in finished:
                s = futures[fut]
                res = fut.result()
                out[s : s + len(res)] = res
                done[s : s + len(res)] = True
        for fut in pending:
            fut.cancel()
        return out, done

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def __enter__(self) -> DDSolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
