"""Wavefront + Zernike fit, FFT PSF and MTF for 3 fields of the Cooke triplet, next to Optiland.

Times one call of each analysis for the three fields (0, 0), (0, 0.7), (0, 1)
on NumPy and on Torch (float64, no gradients), and Optiland 0.6.3's
``ZernikeOPD``, ``FFTPSF`` and ``FFTMTF`` on the same system and sampling in
the same run (Optiland runs in its own interpreter, ``OPTILAND_PYTHON``,
default /work/optiland-venv/bin/python, as a subprocess started once; the
Optiland cases are skipped when it is not there).  compare_optiland.py
reports the same cases, interleaved with Optiland's, through
:func:`our_case` and :func:`optiland_helper`.  Sampling on both sides:
the wavefront over ~1000 rays (our Gauss–Legendre rule with 16 rings × 64
angles, Optiland's hexapolar pupil with 18 rings: 1027 rays) and a 37-term
Fringe fit; PSF and MTF with N = 64 pupil samples on a G = 128 FFT grid
(monochromatic, as Optiland's; our PSF also measures its accuracy at N/2);
the through-focus MTF at 28 cycles/mm, 11 focus positions 0.02 mm apart
(Optiland's ``ThroughFocusMTF``), and the MTF versus 11 fields at 28
cycles/mm (``MTFvsField``), both with N = 64.
Torch runs on one thread on both sides (``torch.set_num_threads(1)``): on a
shared two-core machine torch's thread pool otherwise turns a 7 µs
elementwise op into milliseconds of spin-waiting, and the timings measure the
load, not the code (for the same reason run the file with
``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1`` on a shared machine; the
Optiland helper inherits the environment).  The NumPy case is compared with Optiland on NumPy, the
Torch case with Optiland on Torch.  The ratio Optiland / optics is in
``extra_info`` and the terminal summary.

Run: ``python -m pytest benchmarks/test_bench_wavefront.py --benchmark-only``.
"""

from __future__ import annotations

import contextlib
import statistics
import sys
from pathlib import Path

import pytest
from _optiland_driver import OPTILAND_PYTHON, Helper, prescription

from optics import backend as be
from optics.analysis._mtf import mtf
from optics.analysis._psf import psf
from optics.analysis._through_focus import mtf_vs_field, through_focus_mtf
from optics.analysis._wavefront import wavefront
from optics.io import load

FIELDS = ((0.0, 0.0), (0.0, 0.7), (0.0, 1.0))
RINGS, OPTILAND_RINGS, SAMPLES, GRID = 16, 18, 64, 128
FREQUENCIES = (10.0, 25.0, 50.0, 100.0)
ROUNDS = 5
FOCUS_FREQUENCY, FOCUS_STEP, FOCUS_STEPS, FIELD_POINTS = 28.0, 0.02, 11, 11
DEFOCUS = [FOCUS_STEP * (k - FOCUS_STEPS // 2) for k in range(FOCUS_STEPS)]


def _wavefront(optic):
    return [wavefront(optic, field, rings=RINGS) for field in FIELDS]


def _psf(optic):
    return [
        psf(optic, field, samples=SAMPLES, grid=GRID, polychromatic=False).strehl
        for field in FIELDS
    ]


def _mtf(optic):
    return mtf(optic, FIELDS, FREQUENCIES, samples=SAMPLES, grid=GRID, polychromatic=False)


def _through_focus(optic):
    return through_focus_mtf(
        optic, FOCUS_FREQUENCY, DEFOCUS, fields=FIELDS, polychromatic=False, samples=SAMPLES
    )


def _mtf_field(optic):
    return mtf_vs_field(
        optic, [FOCUS_FREQUENCY], points=FIELD_POINTS, polychromatic=False, samples=SAMPLES
    )


CASES = {
    "wavefront": _wavefront,
    "psf": _psf,
    "mtf": _mtf,
    "through_focus": _through_focus,
    "mtf_field": _mtf_field,
}


def optiland_helper(python=None):
    """The Optiland side: a :class:`Helper` running ``_optiland_wavefront_helper.py``."""
    setup = {
        "spec": prescription("cooke"),
        "fields": [list(f) for f in FIELDS],
        "rings": OPTILAND_RINGS,
        "samples": SAMPLES,
        "grid": GRID,
        "focus": {"frequency": FOCUS_FREQUENCY, "step": FOCUS_STEP, "steps": FOCUS_STEPS},
        "field_points": FIELD_POINTS,
    }
    return Helper("_optiland_wavefront_helper.py", setup, python)


@contextlib.contextmanager
def one_torch_thread(backend_name):
    """torch on one thread inside the block when ``backend_name`` is torch (see the docstring)."""
    if backend_name != "torch":
        yield
        return
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def our_case(case, backend_name):
    """A zero-argument callable running ``case`` for the three fields on ``backend_name``."""
    with be.using(backend_name):
        optic = load("cooke_triplet")

    def run():
        with be.using(backend_name), be.no_grad():
            return CASES[case](optic)

    return run


@pytest.fixture(scope="module")
def optiland():
    """The Optiland helper's ``ask`` (skips when Optiland's interpreter is missing)."""
    if not Path(OPTILAND_PYTHON).exists():
        pytest.skip(f"no Optiland interpreter at {OPTILAND_PYTHON} (set OPTILAND_PYTHON)")
    helper = optiland_helper()
    yield helper.ask
    helper.close()


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_wavefront_analyses_against_optiland(benchmark, report, optiland, case, backend_name):
    if backend_name == "torch":
        pytest.importorskip("torch")
    run = our_case(case, backend_name)
    with one_torch_thread(backend_name):
        benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    ours = benchmark.stats.stats.median
    request = {"case": case, "backend": backend_name, "repeat": ROUNDS + 1}
    theirs = statistics.median(optiland(request)["seconds"][1:])
    ratio = theirs / ours
    benchmark.extra_info.update(optiland_s=theirs, optics_s=ours, optiland_over_optics=ratio)
    report(
        f"{case:9s} 3 fields, {backend_name:5s}: optics {ours * 1e3:7.1f} ms, "
        f"Optiland {theirs * 1e3:7.1f} ms, ratio {ratio:5.1f}x"
    )


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "--benchmark-only", "-q"]))
