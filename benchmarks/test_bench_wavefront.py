"""Wavefront + Zernike fit, FFT PSF and MTF for 3 fields of the Cooke triplet, next to Optiland.

Times one call of each analysis for the three fields (0, 0), (0, 0.7), (0, 1)
on NumPy and on Torch (float64, no gradients), and Optiland 0.6.3's
``ZernikeOPD``, ``FFTPSF`` and ``FFTMTF`` on the same system and sampling in
the same run (Optiland runs in its own interpreter, ``OPTILAND_PYTHON``,
default /work/optiland-venv/bin/python, as a subprocess started once; the
Optiland cases are skipped when it is not there).  Sampling on both sides:
the wavefront over ~1000 rays (our Gauss–Legendre rule with 16 rings × 64
angles, Optiland's hexapolar pupil with 18 rings: 1027 rays) and a 37-term
Fringe fit; PSF and MTF with N = 64 pupil samples on a G = 128 FFT grid.
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

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from compare_optiland import prescription

from optics import backend as be
from optics.analysis.mtf import mtf
from optics.analysis.psf import psf
from optics.analysis.wavefront import wavefront
from optics.io import load

FIELDS = ((0.0, 0.0), (0.0, 0.7), (0.0, 1.0))
RINGS, OPTILAND_RINGS, SAMPLES, GRID = 16, 18, 64, 128
FREQUENCIES = (10.0, 25.0, 50.0, 100.0)
ROUNDS = 5
OPTILAND = os.environ.get("OPTILAND_PYTHON", "/work/optiland-venv/bin/python")


def _wavefront(optic):
    return [wavefront(optic, field, rings=RINGS) for field in FIELDS]


def _psf(optic):
    return [psf(optic, field, samples=SAMPLES, grid=GRID).strehl for field in FIELDS]


def _mtf(optic):
    return mtf(optic, FIELDS, FREQUENCIES, samples=SAMPLES, grid=GRID)


CASES = {"wavefront": _wavefront, "psf": _psf, "mtf": _mtf}


@pytest.fixture(scope="module")
def optiland():
    """The Optiland helper process (skips when Optiland's interpreter is missing)."""
    if not Path(OPTILAND).exists():
        pytest.skip(f"no Optiland interpreter at {OPTILAND} (set OPTILAND_PYTHON)")
    script = Path(__file__).with_name("_optiland_wavefront_helper.py")
    process = subprocess.Popen(
        [OPTILAND, "-W", "ignore", str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    setup = {
        "spec": prescription("cooke"),
        "fields": [list(f) for f in FIELDS],
        "rings": OPTILAND_RINGS,
        "samples": SAMPLES,
        "grid": GRID,
    }

    def ask(request):
        process.stdin.write(json.dumps(request) + "\n")
        reply = json.loads(process.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"Optiland helper: {reply['error']}")
        return reply

    ask(setup)
    yield ask
    process.stdin.close()
    process.wait(timeout=60)


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_wavefront_analyses_against_optiland(benchmark, report, optiland, case, backend_name):
    threads = None
    if backend_name == "torch":
        torch = pytest.importorskip("torch")
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
    with be.using(backend_name):
        optic = load("cooke_triplet")

        def run():
            with be.no_grad():
                return CASES[case](optic)

        benchmark.pedantic(run, rounds=ROUNDS, warmup_rounds=1)
    if threads is not None:
        torch.set_num_threads(threads)
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
