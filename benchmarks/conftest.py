"""Benchmark helpers: measured overheads are also printed in the terminal summary."""

from __future__ import annotations

import timeit

import pytest

_REPORT: list[str] = []


def best_microseconds(call, number=20000, repeat=7):
    """Fastest mean time of one ``call()`` over ``repeat`` runs of ``number`` calls, in µs."""
    return min(timeit.repeat(call, number=number, repeat=repeat)) / number * 1e6


@pytest.fixture
def report():
    """Append one line to the summary printed after the benchmarks."""
    return _REPORT.append


def pytest_terminal_summary(terminalreporter):
    if _REPORT:
        terminalreporter.section("optics backend targets")
        for line in _REPORT:
            terminalreporter.write_line(line)
