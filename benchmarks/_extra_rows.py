"""Rows of compare_optiland.py that involve optics alone (issue 17).

- a competing memory-bound job: a subprocess that copies a 256 MiB array over
  and over on the other core while the NumPy rows run again;
- chunked tracing: ``iter_bundle(method=Streamed(...))`` against one batch at 1e6
  rays (rate ratio), and the peak resident memory of a chunked spot diagram
  run in a fresh process (benchmarks/chunked_spot.py);
- host reads: how many times a Torch trace reads a tensor on the host.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

_COPY_LOOP = """
import numpy as np
a = np.ones(1 << 25); b = np.empty_like(a)
while True:
    np.copyto(b, a); np.copyto(a, b)
"""


@contextlib.contextmanager
def competing_job():
    """A memory-bound process (array copies, one core) running for the block's duration."""
    process = subprocess.Popen([sys.executable, "-c", _COPY_LOOP])
    try:
        yield
    finally:
        process.kill()
        process.wait()


def chunked_rates(rays=10**6, chunk=1 << 18, repeats=3):
    """(one batch, chunked) rays per second of trace_bundle on the Cooke triplet, and the ratio."""
    import chunked_spot

    rates, _ = chunked_spot.throughput(rays, chunk, repeats)
    one = rates["trace_bundle, one batch"]
    chunked = rates["iter_bundle, chunked"]
    return one, chunked, chunked / one


def chunked_peak_rss(rays, chunk=1 << 20):
    """Peak RSS (MiB) and seconds of a chunked spot diagram of ``rays`` rays, fresh process."""
    import chunked_spot

    result = chunked_spot.rss(rays, chunk)
    return result["peak_rss_mib"], result["seconds"], result["rays"]


def host_reads(system, sync_free=None):
    """Host reads of tensors during one eager Torch trace (no grad) of ``system``.

    ``sync_free`` as in ``optics.solvers.solver_settings``: None lets the
    solver choose (on CPU tensors the early-exit Newton loop, one read per
    step), True is the mode a GPU trace runs in.
    """
    from _systems import FIELD, build, pupil

    from optics import backend as be
    from optics.solvers import solver_settings
    from optics.trace import trace_rays

    with (
        be.using("torch", precision="float64", device="cpu"),
        be.no_grad(),
        solver_settings(sync_free=sync_free),
    ):
        optic = build(system)
        px, py = (be.asarray(a) for a in pupil(1000))
        trace_rays(optic, FIELD, (px, py))
        with be.count_host_reads() as reads:
            trace_rays(optic, FIELD, (px, py))
    return reads["count"]
