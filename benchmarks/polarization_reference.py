"""Write tests/data/polarization_optiland.json: Optiland 0.6.3's polarized transmission.

Run under the project's interpreter with Optiland's own venv beside it::

    python benchmarks/polarization_reference.py /work/venv-optiland/bin/python

The lens is the Cooke triplet sample with each glass replaced by its index at the
wavelength (an ideal material on both sides, so no glass data differ); the rays are
meridional (Px = 0: the x and y states mean the same in both bases) and skew (only
the unpolarized transmission is compared there).
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "tests" / "data" / "polarization_optiland.json"
WAVELENGTH = 0.55
RAYS = [
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 0.0, 0.0, 0.7],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.6],
    [0.0, 1.0, 0.0, -0.6],
    [0.0, 0.7, 0.5, 0.3],
    [0.0, 1.0, -0.4, -0.2],
]


def spec():
    """The Cooke triplet with constant indices at WAVELENGTH, as Optiland helper data."""
    from optics import backend as be
    from optics.io import load
    from optics.materials import index_at

    optic = load("cooke_triplet")
    surfaces = []
    for surface in optic.surfaces:
        row = {"radius": float(surface.geometry.radius), "thickness": float(surface.thickness)}
        if surface.material.to_spec() != "air":
            row["index"] = float(be.to_numpy(index_at(surface.material, WAVELENGTH)))
        if surface.is_stop:
            row["stop"] = True
        surfaces.append(row)
    fields = [float(abs(y)) for _, y in optic.fields.values]
    return {
        "surfaces": surfaces,
        "epd": float(optic.aperture.value),
        "fields": fields,
        "wavelength": WAVELENGTH,
    }


def main(python):
    lens = spec()
    request = {"spec": lens, "wavelength": WAVELENGTH, "rays": RAYS}
    done = subprocess.run(
        [python, str(HERE / "_optiland_polarization.py")],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    record = {
        "source": f"Optiland {result['version']} (MIT licence), PolarizedRays.i after "
        "trace_generic and update_intensity, Fresnel coatings on every lens surface, "
        "written by benchmarks/polarization_reference.py",
        "spec": lens,
        "wavelength": WAVELENGTH,
        "rays": RAYS,
        "intensity": {k: result[k] for k in ("H", "V", "unpolarized")},
    }
    assert all(math.isfinite(v) for k in ("H", "V", "unpolarized") for v in result[k])
    OUT.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/work/venv-optiland/bin/python")
