"""Shared fixtures. Scripted peers live in tests/peers/ and in server/testing.py."""

from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def _restore_structlog() -> Iterator[None]:
    """A CLI's ``run`` called in process configures structlog for the whole process, printing to
    the stream pytest captured for that test; restore the configuration so that a later test's
    log line does not go to a closed file (it crashed seat clients in later tests)."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)
