"""Worker pools that start whole: a Ctrl-C or SIGTERM that arrives while a pool starts its
processes waits until every worker has been handed its start-up data.

A spawned worker reads its start-up data from a pipe its parent writes after starting it. An
interrupt of the parent between the two closed the pipe half-written, and the worker printed a
traceback (``EOFError: Ran out of input``) on the parent's stderr beside "interrupted" (seen in
CI's ``test_match_stops_on_sigterm``). Holding the two signals for the few
milliseconds a pool takes to start makes the stop clean: the pool is ended, then the signal is
delivered as if it had come a moment later.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing.pool import Pool
from types import FrameType
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

#: The signals that stop a command (bridgebot.cli turns SIGTERM into what SIGINT does).
_STOPS = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def stops_held() -> Iterator[list[int]]:
    """Within the block, SIGINT and SIGTERM are recorded instead of handled; the old handlers
    are back on leaving it. Off the main thread, where Python takes no handlers (and a signal
    never runs), nothing is held.

    Yields the list of the signal numbers that arrived, in order, for the caller to read after
    the block; delivering them is the caller's (:func:`_deliver`).
    """
    arrived: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield arrived
        return

    def record(signum: int, frame: FrameType | None) -> None:
        arrived.append(signum)

    previous = {s: signal.signal(s, record) for s in _STOPS}
    try:
        yield arrived
    finally:
        for s, handler in previous.items():
            signal.signal(s, signal.SIG_DFL if handler is None else handler)


def _deliver(arrived: list[int]) -> None:
    """Raise each held signal now, under the handler it would have met."""
    for signum in arrived:
        signal.raise_signal(signum)


def spawn_pool(
    workers: int,
    initializer: Callable[..., object] | None = None,
    initargs: tuple[Any, ...] = (),
) -> Pool:
    """A ``multiprocessing.Pool`` of ``workers`` spawned (not forked) processes, started with
    Ctrl-C and SIGTERM held (:func:`stops_held`).

    Returns the started pool. Raises whatever the held signal's handler raises
    (``KeyboardInterrupt`` for Ctrl-C, and for SIGTERM under ``bridgebot``'s handler) after the
    pool has been terminated and joined, when one arrived while it started; whatever
    ``Pool`` raises otherwise.
    """
    with stops_held() as arrived:
        pool = multiprocessing.get_context("spawn").Pool(workers, initializer, initargs)
    if arrived:
        pool.terminate()
        pool.join()
        _deliver(arrived)
    return pool


def fork_pool(workers: int, initializer: Callable[[], object] | None = None) -> Pool:
    """A ``multiprocessing.Pool`` of ``workers`` forked processes whose stops are the parent's:
    each ignores SIGINT (Ctrl-C at a terminal reaches the whole process group; the parent ends
    the pool) and takes SIGTERM's default action, then runs ``initializer``.

    A forked worker inherits the parent's handlers, and ``bridgebot``'s SIGTERM handler raises
    ``KeyboardInterrupt``: ``Pool.terminate`` (which leaving a ``with`` block calls) sends
    SIGTERM, so every worker printed a traceback at the end of a run that went well (``bridgebot
    ddgen``).

    Returns the started pool; raises what ``Pool`` raises.
    """
    return multiprocessing.get_context("fork").Pool(workers, _forked, (initializer,))


def _forked(initializer: Callable[[], object] | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if initializer is not None:
        initializer()


def submit_whole(
    pool: ProcessPoolExecutor, fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs
) -> Future[T]:
    """``pool.submit(fn, *args, **kwargs)`` with Ctrl-C and SIGTERM held: a spawning executor
    starts a worker inside ``submit`` when it has none idle, so each submit is a pool start.

    Returns the future. Raises what the held signal's handler raises, after the submit; ending
    the pool is then the caller's (its ``with`` block or its ``shutdown``).
    """
    with stops_held() as arrived:
        future = pool.submit(fn, *args, **kwargs)
    _deliver(arrived)
    return future
