"""Measure wavefront reference numbers with Optiland 0.6.3 (run with Optiland's interpreter).

    /work/optiland-venv/bin/python tests/data/wavefront/make_reference.py

Reads the lens files beside this script (and optics' Cooke triplet sample),
builds each system with Optiland's public API, and writes reference.json:
paraxial data and the chief ray's image point (to check that both programs
describe the same system), OPD in waves at named pupil points (Optiland's
Wavefront, chief-ray strategy, i.e. the same reference sphere as optics), and
the FFT MTF at five frequencies and the FFT Strehl ratio.  Never imported by
optics or collected by pytest.
"""

from __future__ import annotations

import importlib.metadata
import json
import math
import sys
from pathlib import Path

import numpy as np
import tomllib
from optiland.distribution import BaseDistribution
from optiland.materials import IdealMaterial
from optiland.mtf import FFTMTF
from optiland.optic import Optic
from optiland.psf import FFTPSF
from optiland.wavefront import Wavefront

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parents[2] / "optics" / "samples"
SYSTEMS = {
    "cooke_triplet": SAMPLES / "cooke_triplet.toml",
    "paraboloid": HERE / "paraboloid.toml",
    "tilted_singlet": HERE / "tilted_singlet.toml",
    "finite_doublet": HERE / "finite_doublet.toml",
}
PUPIL_POINTS = {
    "centre": (0.0, 0.0),
    "top": (0.0, 1.0),
    "bottom": (0.0, -1.0),
    "right": (1.0, 0.0),
    "left": (-1.0, 0.0),
    "upper_right": (0.5, 0.5),
    "inner": (-0.3, 0.7),
    "lower_right_rim": (math.sqrt(0.5), -math.sqrt(0.5)),
}
MTF_FREQUENCIES = [10.0, 25.0, 50.0, 80.0, 120.0]
MTF_RAYS, MTF_GRID = 128, 256


class Points(BaseDistribution):
    """Fixed named pupil points."""

    def __init__(self, px, py):
        super().__init__()
        self.x, self.y = np.asarray(px, float), np.asarray(py, float)

    def generate_points(self, num_points):  # the points are fixed
        return None


def material(spec):
    if spec is None or spec == "air":
        return "air"
    if spec == "mirror":
        return "mirror"
    if isinstance(spec, dict) and "index" in spec:
        return IdealMaterial(n=spec["index"])
    if isinstance(spec, str):  # the catalogs optics resolves these names to
        return (spec, {"SK16": "hikari", "F2": "schott"}.get(spec, "schott"))
    return (spec["name"], spec.get("catalog"))


def build(data):
    lens = Optic()
    surfaces = data["surfaces"]
    for index, surface in enumerate(surfaces):
        kwargs = {"index": index, "thickness": surface.get("thickness", 0.0)}
        kwargs["radius"] = surface.get("radius", np.inf)
        if "conic" in surface:
            kwargs["conic"] = surface["conic"]
        if index < len(surfaces) - 1:
            kwargs["material"] = material(surface.get("material"))
        if surface.get("stop"):
            kwargs["is_stop"] = True
        if "decenter" in surface:
            kwargs["dx"], kwargs["dy"] = surface["decenter"]
        if "tilt" in surface:
            rx, ry, rz = (math.radians(v) for v in surface["tilt"])
            kwargs.update(rx=rx, ry=ry, rz=rz)
        if index == len(surfaces) - 1:
            kwargs["thickness"] = 0.0
        lens.surfaces.add(**kwargs)
    lens.set_aperture(aperture_type="EPD", value=data["aperture"]["value"])
    lens.fields.set_type(field_type=data["fields"]["type"])
    for value in data["fields"]["values"]:
        lens.fields.add(y=value)
    primary = data["wavelengths"].get("primary", 0)
    for i, value in enumerate(data["wavelengths"]["values"]):
        lens.wavelengths.add(value=value, is_primary=i == primary)
    return lens


def measure(name, path):
    data = tomllib.loads(path.read_text())
    lens = build(data)
    top = max(abs(v) for v in data["fields"]["values"]) or 1.0
    fields = [(0.0, v / top) for v in data["fields"]["values"]]
    wavelength = float(lens.primary_wavelength)
    names = list(PUPIL_POINTS)
    px = [PUPIL_POINTS[n][0] for n in names]
    py = [PUPIL_POINTS[n][1] for n in names]
    wavefront = Wavefront(
        lens, fields=fields, wavelengths=[wavelength], distribution=Points(px, py)
    )
    out = {
        "lens_file": str(path.relative_to(HERE.parents[2])),
        "paraxial": {
            "efl": float(lens.paraxial.f2()),
            "xp_position": float(lens.paraxial.XPL()),
            "epd": float(lens.paraxial.EPD()),
        },
        "wavelength": wavelength,
        "fields": [],
    }
    mtf = FFTMTF(lens, fields=fields, wavelength=wavelength, num_rays=MTF_RAYS, grid_size=MTF_GRID)
    for k, field in enumerate(fields):
        chief = lens.trace_generic(*field, Px=0.0, Py=0.0, wavelength=wavelength)
        opd = np.asarray(wavefront.get_data(field, wavelength).opd, float)
        tangential, sagittal = (np.asarray(c, float) for c in mtf.mtf[k])
        strehl = FFTPSF(lens, field, wavelength, num_rays=MTF_RAYS, grid_size=MTF_GRID)
        freq_t = np.asarray(mtf._frequency_steps[k][0], float) * np.arange(MTF_GRID // 2)
        freq_s = np.asarray(mtf._frequency_steps[k][1], float) * np.arange(MTF_GRID // 2)
        out["fields"].append(
            {
                "field": list(field),
                "chief_image": [float(chief.x[0]), float(chief.y[0]), float(chief.z[0])],
                "opd_waves": {n: float(v) for n, v in zip(names, opd)},
                "pupil_points": {n: list(PUPIL_POINTS[n]) for n in names},
                "mtf_frequencies": MTF_FREQUENCIES,
                "mtf_tangential": list(np.interp(MTF_FREQUENCIES, freq_t, tangential)),
                "mtf_sagittal": list(np.interp(MTF_FREQUENCIES, freq_s, sagittal)),
                "strehl": strehl.strehl_ratio(),
            }
        )
    return out


def main():
    reference = {
        "generator": "tests/data/wavefront/make_reference.py",
        "optiland": importlib.metadata.version("optiland"),
        "mtf_sampling": {"num_rays": MTF_RAYS, "grid_size": MTF_GRID},
        "systems": {name: measure(name, path) for name, path in SYSTEMS.items()},
    }
    target = HERE / "reference.json"
    target.write_text(json.dumps(reference, indent=1) + "\n")
    print(f"wrote {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
