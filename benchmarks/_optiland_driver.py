"""The optics side of talking to Optiland's helpers (``_optiland_*.py``), shared by the benchmarks.

Optiland lives in its own interpreter (never a dependency of optics); a
benchmark either runs a helper once (:func:`run_helper`: arguments on the
command line, one JSON line back) or keeps one running and asks it one JSON
request per line (:class:`Helper`).  :func:`prescription` is the plain-data
lens that the helpers build with ``_optiland_common.build``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from _systems import build

HERE = Path(__file__).resolve().parent
#: Optiland's interpreter (``OPTILAND_PYTHON``), the default of every benchmark.
OPTILAND_PYTHON = os.environ.get("OPTILAND_PYTHON", "/work/optiland-venv/bin/python")


class OptilandError(RuntimeError):
    """An Optiland helper failed or stopped; the message holds its error."""


def prescription(system):
    """The plain-data prescription of benchmark system ``system`` (``_systems.py``)."""
    optic = build(system)
    surfaces = []
    for surface in optic.surfaces:
        geometry = surface.geometry
        row = {"radius": float(geometry.radius), "thickness": float(surface.thickness)}
        if hasattr(surface.material, "catalog"):
            row["material"] = [surface.material.name, surface.material.catalog]
        if surface.is_stop:
            row["stop"] = True
        if geometry.type_name == "chebyshev":
            row["chebyshev"] = {
                "coefficients": geometry.coefficients,
                "norm_x": geometry.norm_x,
                "norm_y": geometry.norm_y,
                "tol": geometry.tol,
                "max_iter": geometry.max_iter,
            }
        surfaces.append(row)
    surfaces[-1]["thickness"] = 0.0
    return {
        "surfaces": surfaces,
        "epd": float(optic.aperture.value),
        "fields": [float(y) for _, y in optic.fields.values],
        "wavelengths": [float(w) for w in optic.wavelengths.values],
        "primary": float(optic.primary_wavelength),
    }


def run_helper(script, *args, python=None, timeout=1800):
    """Run ``script`` (a helper file name here) once with ``args``; its last stdout line as JSON."""
    done = subprocess.run(
        [python or OPTILAND_PYTHON, "-W", "ignore", str(HERE / script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise OptilandError(f"the Optiland helper {script} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


class Helper:
    """A helper subprocess answering one JSON request per line.

    Parameters
    ----------
    script : str
        File name of the helper in benchmarks/.
    setup : dict
        The first request; the helper replies ``{"ready": version}``.
    python : str, optional
        Optiland's interpreter (default :data:`OPTILAND_PYTHON`).
    """

    def __init__(self, script, setup, python=None):
        self.process = subprocess.Popen(
            [python or OPTILAND_PYTHON, "-W", "ignore", str(HERE / script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.version = self.ask(setup)["ready"]

    def ask(self, request):
        """Send one request, return the reply (OptilandError on an error reply)."""
        self.process.stdin.write(json.dumps(request) + "\n")
        line = self.process.stdout.readline()
        if not line:
            raise OptilandError("the Optiland helper stopped (see its messages above)")
        reply = json.loads(line)
        if "error" in reply:
            raise OptilandError(f"Optiland helper: {reply['error']} (request {request})")
        return reply

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=60)
