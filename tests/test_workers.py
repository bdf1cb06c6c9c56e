"""Worker pools start whole (core/workers.py): a stop that arrives while a pool starts its
processes is delivered once the pool is up and ended, so no worker is cut off half-started and
prints a traceback of its own."""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import popen_spawn_posix

import pytest
from bridgebot.core.workers import fork_pool, spawn_pool, stops_held, submit_whole


def test_stops_are_recorded_in_the_block_and_handled_after_it() -> None:
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with stops_held() as arrived:
        signal.raise_signal(signal.SIGINT)
        signal.raise_signal(signal.SIGTERM)
    assert arrived == [signal.SIGINT, signal.SIGTERM]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_a_ctrl_c_while_a_pool_starts_waits_for_the_pool(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C lands as each worker is launched, before its start-up data is written: the
    moment that once left a worker reading a closed pipe."""
    real = popen_spawn_posix.Popen._launch  # type: ignore[attr-defined]
    launched: list[int] = []

    def launch(self: popen_spawn_posix.Popen, process_obj: object) -> None:
        signal.raise_signal(signal.SIGINT)
        real(self, process_obj)
        launched.append(self.pid)

    monkeypatch.setattr(popen_spawn_posix.Popen, "_launch", launch)
    # Python's own Ctrl-C, whatever an earlier test in this process left as SIGINT's handler.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            spawn_pool(2)
        assert len(launched) == 2  # both workers were started whole, then ended
        assert not [p for p in multiprocessing.active_children() if p.pid in launched]
        # An executor starts a worker in submit: the same moment, held the same way.
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        with pytest.raises(KeyboardInterrupt), pool:
            submit_whole(pool, abs, -1)
        assert len(launched) == 3
    finally:
        signal.signal(signal.SIGINT, previous)
    assert "Traceback" not in capfd.readouterr().err


def test_a_pool_started_undisturbed_works() -> None:
    pool = spawn_pool(2)
    try:
        assert pool.map(abs, [-1, -2, 3]) == [1, 2, 3]
        pool.close()
    finally:
        pool.join()


def test_forked_workers_take_the_default_sigterm_whatever_the_parents_handler() -> None:
    """``Pool.terminate`` sends SIGTERM; a worker forked under bridgebot's handler (which raises
    ``KeyboardInterrupt``) printed a traceback and exited 1 at the end of a ddgen run. Ctrl-C is
    the parent's to handle: the workers ignore it."""
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        pool = fork_pool(1)
    finally:
        signal.signal(signal.SIGTERM, previous)
    try:
        handlers = pool.apply(_stop_handlers)
        pool.close()
    finally:
        pool.join()
    assert handlers == (signal.SIG_IGN, signal.SIG_DFL)


def _stop_handlers() -> tuple[object, object]:
    return signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
