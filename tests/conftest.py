"""Shared fixtures and markers. Scripted peers, clocks and the golden board live in the shipped
``bridgebot.server.testing``; the transcripts they replay live in tests/peers/.

* Every test runs with structlog captured; an ``error`` or ``critical`` event fails the test unless
  the test declares it with ``@pytest.mark.expect_error_log("event", ...)`` (and a declared one
  that never comes fails it too). The ``logs`` fixture is the list of captured events, for tests
  that check what was logged.
* ``@pytest.mark.virtual_time`` runs an async test on :class:`VirtualClockLoop`: every asyncio
  timer (the table manager's and seat client's timeouts, ``wait_for``, ``sleep``) fires without
  the real wait. Tests that wait on another process keep the ordinary loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import structlog
from bridgebot.server.testing import VirtualClockLoop
from structlog.testing import capture_logs
from structlog.typing import EventDict

FAILING_LEVELS = ("error", "critical")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "virtual_time: run this async test on a loop whose clock skips idle time"
    )
    config.addinivalue_line(
        "markers",
        "expect_error_log(*events): these error-level log events are part of the test; any other "
        "fails it",
    )


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> Mapping[str, Any]:
    """The event loop of each async test: virtual time where the test asks for it."""
    if item.get_closest_marker("virtual_time") is not None:
        return {"virtual_time": VirtualClockLoop}
    return {"asyncio": asyncio.new_event_loop}


@pytest.fixture(autouse=True)
def logs(request: pytest.FixtureRequest) -> Iterator[list[EventDict]]:
    """Every structlog event of the test, captured (nothing is rendered); fails the test on an
    error-level event it did not declare with ``expect_error_log``.

    A CLI's ``run`` called in process configures structlog for the whole process, printing to
    the stream pytest captured for that test; the configuration is restored afterwards so that a
    later test's log line does not go to a closed file (it crashed seat clients in later tests)."""
    saved = structlog.get_config()
    try:
        with capture_logs() as events:
            yield events
    finally:
        structlog.configure(**saved)
    expected = {e for m in request.node.iter_markers("expect_error_log") for e in m.args}
    errors = [e for e in events if e.get("log_level") in FAILING_LEVELS]
    unexpected = [e for e in errors if e.get("event") not in expected]
    if unexpected:
        pytest.fail(f"unexpected error log: {unexpected}", pytrace=False)
    missing = expected - {e.get("event") for e in errors}
    if missing:
        pytest.fail(f"declared error log never came: {sorted(missing)}", pytrace=False)
