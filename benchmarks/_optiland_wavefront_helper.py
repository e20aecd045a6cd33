"""Optiland side of benchmarks/test_bench_wavefront.py; runs under Optiland's interpreter.

It never imports optics.  The first stdin line is ``{"spec": prescription,
"fields": [[hx, hy], ...], "rings": R, "samples": N, "grid": G}``; the reply
is ``{"ready": version}``.  Each later line ``{"case": name, "backend":
"numpy" | "torch", "repeat": k}`` runs the case k times on that Optiland
backend (torch: float64, CPU, no gradients, one thread) and replies
``{"seconds": [...]}``.  Cases, for every
field at the primary wavelength, with Optiland's public API:

- ``wavefront``: ``ZernikeOPD`` (chief-ray reference sphere, hexapolar
  sampling with R rings, 37 Fringe terms): the OPD map and its Zernike fit;
- ``psf``: ``FFTPSF`` with N pupil samples on a G grid, and its Strehl ratio;
- ``mtf``: one ``FFTMTF`` of all fields with the same N and G.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
import time

from _optiland_helper import _build, _configure
from optiland.mtf import FFTMTF
from optiland.psf import FFTPSF
from optiland.wavefront import ZernikeOPD


def main():
    setup = json.loads(sys.stdin.readline())
    lenses = {}
    fields = [tuple(f) for f in setup["fields"]]
    wavelength = setup["spec"]["primary"]
    rings, samples, grid = setup["rings"], setup["samples"], setup["grid"]

    def wavefront(lens):
        for field in fields:
            ZernikeOPD(lens, field, wavelength, num_rings=rings, num_terms=37)

    def psf(lens):
        for field in fields:
            FFTPSF(lens, field, wavelength, num_rays=samples, grid_size=grid).strehl_ratio()

    def mtf(lens):
        FFTMTF(lens, fields=fields, wavelength=wavelength, num_rays=samples, grid_size=grid)

    cases = {"wavefront": wavefront, "psf": psf, "mtf": mtf}
    print(json.dumps({"ready": importlib.metadata.version("optiland")}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        try:
            backend = request.get("backend", "numpy")
            _configure(backend, False)
            if backend == "torch":
                import torch

                torch.set_num_threads(1)
            if backend not in lenses:
                lenses[backend] = _build(setup["spec"])
            seconds = []
            for _ in range(request["repeat"]):
                started = time.perf_counter()
                cases[request["case"]](lenses[backend])
                seconds.append(time.perf_counter() - started)
            reply = {"seconds": seconds}
        except Exception as exc:  # reported to the driver, which fails the benchmark
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)


if __name__ == "__main__":
    main()
