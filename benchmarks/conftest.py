"""Benchmark helpers: measured overheads are also printed in the terminal summary."""

from __future__ import annotations

import pytest

_REPORT: list[str] = []


@pytest.fixture
def report():
    """Append one line to the summary printed after the benchmarks."""
    return _REPORT.append


def pytest_terminal_summary(terminalreporter):
    if _REPORT:
        terminalreporter.section("optics backend targets")
        for line in _REPORT:
            terminalreporter.write_line(line)
