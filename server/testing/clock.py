"""Clocks for tests: a hand-moved clock for the Timing line, and an event loop whose clock skips
idle time, so that a 30-second handshake limit fires at once in a test and nothing sleeps.

Every timer of the table manager and the seat client (handshake, per-board timeout, reconnection,
closing, idle reads, retries) is an ``asyncio`` timer on the running loop's clock: ``wait_for``,
``asyncio.timeout``, ``sleep`` and ``loop.time()`` all read ``loop.time()``, and the loop fires
them with ``call_at``. :class:`VirtualClockLoop` only changes that clock. Use it as the loop of a
test (``asyncio.Runner(loop_factory=VirtualClockLoop)``, or the ``virtual_time`` marker of the
project's tests); the code under test is unchanged and still talks over real sockets.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import selectors
from collections.abc import Callable
from typing import Any, TypeVar, TypeVarTuple, Unpack

_T = TypeVar("_T")
_Ts = TypeVarTuple("_Ts")


class FakeClock:
    """A clock that moves only when a test says so (the machine's Timing clock): call it for the
    time; add to ``now`` to let seconds pass."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class _SkippingSelector(selectors.DefaultSelector):
    """The loop's selector: a wait for the next timer that finds nothing to read or write within
    ``settle`` real seconds ends at once, and the time it would have slept is added to
    ``skipped``. While a job runs in an executor, waits are real (the job wakes the loop)."""

    def __init__(self, settle: float) -> None:
        super().__init__()
        self.settle = settle
        self.skipped = 0.0
        self.jobs = 0

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None or timeout <= self.settle or self.jobs:
            return super().select(timeout)  # no timer to skip to, a short one, or a thread busy
        ready = super().select(self.settle)  # a peer on 127.0.0.1 answers well within this
        if not ready:
            self.skipped += timeout - self.settle
        return ready


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock jumps over the time it would spend idle.

    ``time()`` is the monotonic clock plus every jump so far, so timers still fire in order and
    never early. When the loop has nothing ready and would sleep until its next timer, it waits
    ``settle`` seconds of real time for input (the other end of a loopback socket is another task
    of this loop, or the kernel finishing a send); if none comes, it moves the clock to the timer.
    While an executor job is running (a seat client's agent thinking), the loop waits in real time,
    since the job may yet say something. Peers in other processes are not idle when this loop is:
    tests that wait on a subprocess keep the ordinary loop.
    """

    def __init__(self, settle: float = 0.01) -> None:
        self._selector_ = _SkippingSelector(settle)
        super().__init__(self._selector_)

    def time(self) -> float:
        return super().time() + self._selector_.skipped

    @property
    def skipped(self) -> float:
        """Seconds of idle time skipped so far."""
        return self._selector_.skipped

    def run_in_executor(
        self,
        executor: concurrent.futures.Executor | None,
        func: Callable[[Unpack[_Ts]], _T],
        *args: *_Ts,
    ) -> asyncio.Future[_T]:
        future = super().run_in_executor(executor, func, *args)
        self._selector_.jobs += 1
        future.add_done_callback(self._job_done)
        return future

    def _job_done(self, _: asyncio.Future[Any]) -> None:
        self._selector_.jobs -= 1
