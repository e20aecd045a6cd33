"""Outputs are checked before the work, and finished work survives SIGINT, SIGTERM and SIGHUP.

``optics tolerance`` refuses an output that is its own lens file (by name,
hard link or symbolic link), sits in a missing folder or names an unknown
format before any trial runs; an interrupted Monte Carlo writes the trials it
finished; ``optics optimize`` writes its best lens on SIGTERM as on Ctrl-C; a
compensation cut short stops the run instead of becoming a trial.
"""

from __future__ import annotations

import csv
import os
import signal
import time

import numpy as np
import pytest
from test_tolerance_sensitivity import ITEMS, cooke, section

import optics
from optics.cli import main
from optics.io import save
from optics.tolerance import ToleranceModel, _runner, monte_carlo

posix_signals = pytest.mark.skipif(not hasattr(signal, "SIGHUP"), reason="POSIX signals")


@pytest.fixture
def lens(tmp_path):
    optic = cooke(section(ITEMS[1:2], trials=4, seed=3))
    return save(optic, tmp_path / "cooke.toml")


def _refused_at_once(capsys, argv, needle, monkeypatch):
    def no_trial(*args, **kwargs):
        raise AssertionError("a trial ran before the output was checked")

    monkeypatch.setattr(_runner, "run_trial", no_trial)
    start = time.perf_counter()
    assert main(argv) == 2
    assert time.perf_counter() - start < 10
    err = [line for line in capsys.readouterr().err.splitlines() if ": warning:" not in line]
    assert len(err) == 1 and needle in err[0], err


def test_tolerance_refuses_its_own_lens_file_as_output(lens, capsys, monkeypatch):
    before = lens.read_bytes()
    argv = ["tolerance", str(lens), "--monte-carlo", "2", "--workers", "1", "-o", str(lens)]
    _refused_at_once(capsys, argv, "is the input file", monkeypatch)
    assert lens.read_bytes() == before


def test_tolerance_refuses_a_hard_link_to_its_lens_file(lens, capsys, monkeypatch):
    link = lens.with_name("trials.csv")
    os.link(lens, link)
    argv = ["tolerance", str(lens), "--monte-carlo", "2", "--workers", "1", "-o", str(link)]
    _refused_at_once(capsys, argv, "is the input file", monkeypatch)


def test_tolerance_refuses_a_symbolic_link_to_its_lens_file(lens, capsys, monkeypatch):
    link = lens.with_name("trials.csv")
    link.symlink_to(lens)
    argv = ["tolerance", str(lens), "--monte-carlo", "2", "--workers", "1", "-o", str(link)]
    _refused_at_once(capsys, argv, "is the input file", monkeypatch)


def test_tolerance_refuses_an_output_in_a_missing_folder_before_any_trial(
    lens, capsys, monkeypatch
):
    out = lens.parent / "missing" / "trials.csv"
    argv = ["tolerance", str(lens), "--monte-carlo", "2", "--workers", "1", "-o", str(out)]
    _refused_at_once(capsys, argv, "does not exist", monkeypatch)


def test_tolerance_refuses_an_unknown_plot_format_before_any_trial(lens, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    out = lens.parent / "mc.txt"
    argv = ["tolerance", str(lens), "--monte-carlo", "2", "--workers", "1", "--plot", str(out)]
    _refused_at_once(capsys, argv, "cannot write a figure as .txt files", monkeypatch)


def _interrupt_at(monkeypatch, trial, signum):
    """Make trial ``trial`` deliver ``signum`` to this process (as a kill would)."""
    real = _runner.run_trial

    def run_trial(model, index, seed_sequence, backend=None):
        if index == trial:
            os.kill(os.getpid(), signum)
            time.sleep(1)  # the handler raises here
        return real(model, index, seed_sequence, backend)

    monkeypatch.setattr(_runner, "run_trial", run_trial)


@pytest.fixture
def ctrl_c_raises():
    """Python's own SIGINT handler (KeyboardInterrupt) for the test, as a terminal run has.

    A process started in the background by a non-interactive shell (``cmd &``, nohup, some
    CI runners) inherits SIGINT ignored, and Python then leaves it ignored: without this
    the SIGINT case would depend on how the suite was launched.
    """
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


@posix_signals
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_an_interrupted_monte_carlo_writes_the_trials_it_finished(
    lens, capsys, monkeypatch, name, ctrl_c_raises
):
    _interrupt_at(monkeypatch, 2, getattr(signal, name))
    out = lens.parent / "trials.csv"
    argv = ["tolerance", str(lens), "--monte-carlo", "4", "--workers", "1", "-o", str(out)]
    assert main(argv) == 130
    assert "interrupted after 2 of 4 trials" in capsys.readouterr().err
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(row["trial"]) for row in rows] == [0, 1]
    assert all(float(row["criterion"]) > 0 for row in rows)
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # handlers restored


def test_a_cut_short_compensation_stops_the_run_instead_of_becoming_a_trial(monkeypatch):
    from optics.tolerance import _model

    model = ToleranceModel(cooke(section(ITEMS[1:2])))
    real = _model.optimize

    def interrupted_optimize(problem, driver, **options):
        def stop(record):
            raise KeyboardInterrupt

        return real(problem, driver, callback=stop, **options)

    monkeypatch.setattr(_model, "optimize", interrupted_optimize)
    with pytest.raises(KeyboardInterrupt):
        model.evaluate(np.array([0.01]))
    with pytest.raises(KeyboardInterrupt):  # and the Monte Carlo has nothing finished to keep
        monte_carlo(model, 3, workers=1)


@posix_signals
def test_optimize_writes_its_best_lens_on_sigterm(tmp_path, capsys, monkeypatch):
    import optics.optimize as optimize_module

    real = optimize_module.optimize

    def signalled(problem, driver=None, **options):
        def kill(record):
            if record.step >= 1:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)

        return real(problem, driver, callback=kill, **options)

    monkeypatch.setattr(optimize_module, "optimize", signalled)
    out = tmp_path / "best.toml"
    argv = ["optimize", "singlet", "--backend", "numpy", "--steps", "20", "-o", str(out)]
    assert main(argv) == 130
    assert "wrote the best lens so far" in capsys.readouterr().err
    assert len(optics.load(out).surfaces) == len(optics.load("singlet").surfaces)


def test_optimize_refuses_a_start_outside_its_bounds(tmp_path, capsys):
    text = optics.samples.path("singlet").read_text()
    text = text.replace(
        '{ path = "surfaces[2].thickness", min = 80.0, max = 120.0 }',
        '{ path = "surfaces[2].thickness", min = 200.0, max = 300.0 }',
    )
    lens = tmp_path / "singlet.toml"
    lens.write_text(text)
    assert main(["optimize", str(lens), "--backend", "numpy", "-o", str(tmp_path / "o.toml")]) == 2
    err = capsys.readouterr().err
    assert "variable surfaces[2].thickness: the start" in err and "outside its bounds" in err
    assert not (tmp_path / "o.toml").exists()


def test_a_failed_save_of_the_optimized_lens_keeps_its_values_in_the_error(
    tmp_path, capsys, monkeypatch
):
    import optics.io as io_module
    from optics.errors import LensFileError

    def full_disk(optic, path):
        raise LensFileError(f"{path}: cannot write the lens file: No space left on device")

    monkeypatch.setattr(io_module, "save", full_disk)
    out = tmp_path / "best.toml"
    argv = ["optimize", "singlet", "--backend", "numpy", "--steps", "2", "-o", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "No space left on device" in err[0]
    assert "the optimized values, not lost: surfaces[1].curvature = " in err[0]


def test_two_outputs_naming_one_file_are_refused(lens, capsys, monkeypatch):
    out = str(lens.parent / "same.png")
    argv = ["tolerance", str(lens), "--monte-carlo", "2", "-o", out, "--plot", out]
    _refused_at_once(capsys, argv, "name the same file", monkeypatch)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_an_atomic_write_never_replaces_a_fifo_behind_a_link(tmp_path):
    import stat

    from optics._atomic import write_bytes_atomically

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "figure.png"
    link.symlink_to(fifo)
    with pytest.raises(OSError, match="not a regular file; refusing to replace it"):
        write_bytes_atomically(link, b"data")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure.png", "pipe"]
