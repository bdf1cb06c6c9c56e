"""The suite-wide log check of tests/conftest.py: an undeclared error log fails a test, a declared
one passes, and a declared one that never comes fails too."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

TESTS = """
import pytest
import structlog

log = structlog.get_logger("t")

def test_undeclared():
    log.error("boom")

@pytest.mark.expect_error_log("boom")
def test_declared():
    log.error("boom")

@pytest.mark.expect_error_log("boom")
def test_declared_never_came():
    log.warning("boom")

def test_warnings_pass(logs):
    log.warning("careful", seat="north")
    assert [(e["event"], e["log_level"]) for e in logs] == [("careful", "warning")]
"""


def test_error_logs_fail_unless_declared(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((Path(__file__).parent / "conftest.py").read_text())
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    pytester.makepyfile(test_logs=TESTS)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=4, errors=2)
    result.stdout.fnmatch_lines(
        [
            "unexpected error log: [[]{'event': 'boom', 'log_level': 'error'}[]]",
            "declared error log never came: [[]'boom'[]]",
        ]
    )
