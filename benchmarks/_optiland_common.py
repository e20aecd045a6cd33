"""What every Optiland-side benchmark helper shares; runs under Optiland's interpreter.

Never imports optics.  The helpers (``_optiland_*.py``) receive a lens as
plain data from the benchmark driver and build it with Optiland's public API
through :func:`build`; the long-running ones answer one JSON request per line
through :func:`serve`.

The lens data (``spec``): ``surfaces``, a list from the object surface to the
image, each ``{"radius", "thickness"}`` and optionally ``"material"`` (a
``[name, catalog]`` pair), ``"index"`` (a constant refractive index),
``"stop": true`` and ``"chebyshev"`` (Optiland's Chebyshev keyword
arguments); ``epd`` (mm); ``fields`` (y angles, degrees); ``wavelengths``
(µm) with ``primary``, or one ``wavelength``.  :func:`rows_spec` turns the
row form of the optimization and tolerancing benchmarks into it.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys

import optiland.backend as obe
from optiland.materials import IdealMaterial
from optiland.optic import Optic


def build(spec):
    """An Optiland ``Optic`` from the plain-data ``spec`` (see the module docstring)."""
    lens = Optic()
    for index, surface in enumerate(spec["surfaces"]):
        kwargs = {"index": index, "radius": surface["radius"], "thickness": surface["thickness"]}
        if surface.get("material"):
            kwargs["material"] = tuple(surface["material"])
        elif surface.get("index"):
            kwargs["material"] = IdealMaterial(n=surface["index"])
        if surface.get("stop"):
            kwargs["is_stop"] = True
        if surface.get("chebyshev"):
            kwargs.update(surface_type="chebyshev", **surface["chebyshev"])
        lens.surfaces.add(**kwargs)
    lens.set_aperture(aperture_type="EPD", value=spec["epd"])
    lens.fields.set_type(field_type="angle")
    for value in spec["fields"]:
        lens.fields.add(y=value)
    wavelengths = spec.get("wavelengths", [spec.get("wavelength")])
    primary = spec.get("primary", wavelengths[0])
    for value in wavelengths:
        lens.wavelengths.add(value=value, is_primary=value == primary)
    return lens


def rows_spec(problem):
    """``spec`` of a problem given as ``rows`` (radius, thickness, index or None, stop)."""
    surfaces = [{"radius": float("inf"), "thickness": float("inf")}]
    for radius, thickness, index, stop in problem["rows"]:
        surfaces.append({"radius": radius, "thickness": thickness, "index": index, "stop": stop})
    surfaces.append({"radius": float("inf"), "thickness": 0.0})
    return {**problem, "surfaces": surfaces}


def spot_inputs(lens, problem):
    """``input_data`` of one ``rms_spot_size`` operand per field of a rows problem (hexapolar)."""
    top = max(problem["fields"])
    return [
        {
            "optic": lens,
            "surface_number": -1,
            "Hx": 0.0,
            "Hy": y / top,
            "num_rays": problem["rings"],
            "wavelength": problem["wavelength"],
            "distribution": "hexapolar",
        }
        for y in problem["fields"]
    ]


def configure(backend, grad=False):
    """Optiland's backend: NumPy, or torch in float64 on the CPU with grad mode on or off."""
    obe.set_backend(backend)
    if backend == "torch":
        obe.set_precision("float64")
        obe.set_device("cpu")
        if grad:
            obe.grad_mode.enable()
        else:
            obe.grad_mode.disable()


def serve(setup, handle):
    """The JSON-lines loop: ``setup(first request)``, reply ``{"ready": version}``, then
    ``handle(request) -> reply`` for each later line (an exception becomes ``{"error"}``).
    """
    setup(json.loads(sys.stdin.readline()))
    print(json.dumps({"ready": importlib.metadata.version("optiland")}), flush=True)
    for line in sys.stdin:
        try:
            reply = handle(json.loads(line))
        except Exception as exc:  # reported to the driver, which stops
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        print(json.dumps(reply), flush=True)
