"""Shared set-up of the compiled-engine tests: skip without numba, and report what the compared games hit."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from tests.fast.harness import TALLY, coverage_lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Print how often each card use, window and Event occurred in the games compared in this run."""
    if TALLY:
        terminalreporter.section("fast engine: what the compared games exercised")
        for line in coverage_lines():
            terminalreporter.write_line(line)
