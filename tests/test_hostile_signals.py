"""Ctrl-C or SIGTERM during ``optics optimize --driver global``: the best design so far is kept.

The command runs in a subprocess (a real signal, from outside, while the search
is under way).  Each start's local run used to catch the interrupt itself and
the search went on to the next start, so neither Ctrl-C nor a job scheduler's
SIGTERM stopped it (issue 37.4).  Now the search stops, the best finished
start's lens is written to ``-o``, the exit status is 130 and the input lens is
byte for byte what it was.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import optics

ROOT = Path(__file__).resolve().parents[1]
posix_signals = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")


def _digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _default_sigint():
    # A child of a non-interactive shell inherits SIGINT ignored; restore the default so
    # that Python installs its KeyboardInterrupt handler, as in a terminal.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@posix_signals
@pytest.mark.parametrize(
    "name", ["SIGTERM", pytest.param("SIGINT", marks=pytest.mark.slow)]
)  # about 10 s each: Ctrl-C runs with --runslow (tests/test_outputs_guard.py has it in-process)
def test_a_signal_during_a_global_search_writes_the_best_design_so_far(tmp_path, name):
    lens = tmp_path / "cooke.toml"
    lens.write_text(optics.samples.path("cooke_triplet").read_text())
    before = _digest(lens)
    out = tmp_path / "best.toml"
    command = [
        sys.executable, "-m", "optics", "optimize", str(lens), "--backend", "numpy",
        "--vary", "radius:1:15:30", "--vary", "radius:2:-500:-100",
        "--operand", "efl=50", "--operand", "rms_spot",
        "--driver", "global", "--starts", "5000", "--steps", "30", "-o", str(out),
    ]  # fmt: skip
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_default_sigint,
    )
    lines, started = [], threading.Event()

    def read_stderr():
        for line in process.stderr:
            lines.append(line)
            started.set()  # the first line is the start's paraxial-aiming warning

    reader = threading.Thread(target=read_stderr, daemon=True)
    reader.start()
    try:
        assert started.wait(120), "the search never started"
        time.sleep(3.0)  # well into the search: start 0 has recorded steps
        assert process.poll() is None, "the search ended before the signal"
        sent = time.perf_counter()
        process.send_signal(getattr(signal, name))
        status = process.wait(timeout=60)
        stopped = time.perf_counter() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(5)
    err = "".join(lines)
    assert status == 130, err
    assert stopped < 30, stopped
    assert "Traceback" not in err and "wrote the best lens so far" in err, err
    best = optics.load(out)
    assert len(best.surfaces) == len(optics.load(lens).surfaces)
    assert 15.0 <= float(best.surfaces[1].geometry.radius) <= 30.0
    assert _digest(lens) == before  # the input is untouched
