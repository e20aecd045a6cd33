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
- ``mtf``: one ``FFTMTF`` of all fields with the same N and G;
- ``through_focus``: ``ThroughFocusMTF`` of all fields at one frequency;
- ``mtf_field``: ``MTFvsField`` at one frequency and wavelength.
"""

from __future__ import annotations

import time

from _optiland_common import build, configure, serve
from optiland.analysis import MTFvsField, ThroughFocusMTF
from optiland.mtf import FFTMTF
from optiland.psf import FFTPSF
from optiland.wavefront import ZernikeOPD

SETUP: dict = {}
_LENSES: dict = {}


def _fields():
    return [tuple(f) for f in SETUP["fields"]]


def wavefront(lens):
    for field in _fields():
        ZernikeOPD(lens, field, SETUP["spec"]["primary"], num_rings=SETUP["rings"], num_terms=37)


def psf(lens):
    for field in _fields():
        FFTPSF(
            lens,
            field,
            SETUP["spec"]["primary"],
            num_rays=SETUP["samples"],
            grid_size=SETUP["grid"],
        ).strehl_ratio()


def mtf(lens):
    FFTMTF(
        lens,
        fields=_fields(),
        wavelength=SETUP["spec"]["primary"],
        num_rays=SETUP["samples"],
        grid_size=SETUP["grid"],
    )


def through_focus(lens):
    focus = SETUP["focus"]
    ThroughFocusMTF(
        lens,
        spatial_frequency=focus["frequency"],
        delta_focus=focus["step"],
        num_steps=focus["steps"],
        fields=_fields(),
        wavelength=SETUP["spec"]["primary"],
        num_rays=SETUP["samples"],
    )


def mtf_field(lens):
    MTFvsField(
        lens,
        frequencies=[SETUP["focus"]["frequency"]],
        num_fields=SETUP["field_points"],
        wavelengths=[SETUP["spec"]["primary"]],
        num_rays=SETUP["samples"],
    )


CASES = {
    "wavefront": wavefront,
    "psf": psf,
    "mtf": mtf,
    "through_focus": through_focus,
    "mtf_field": mtf_field,
}


def run(request):
    """Run one case ``repeat`` times on one Optiland backend; the seconds of each."""
    backend = request.get("backend", "numpy")
    configure(backend, False)
    if backend == "torch":
        import torch

        torch.set_num_threads(1)
    if backend not in _LENSES:
        _LENSES[backend] = build(SETUP["spec"])
    seconds = []
    for _ in range(request["repeat"]):
        started = time.perf_counter()
        CASES[request["case"]](_LENSES[backend])
        seconds.append(time.perf_counter() - started)
    return {"seconds": seconds}


if __name__ == "__main__":
    serve(SETUP.update, run)
