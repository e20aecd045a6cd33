"""Optiland's half of make_reference.py; runs under Optiland's interpreter, never imports optics.

Reads one JSON request per line on stdin and answers one JSON line each:
``{"file": path, "indices": [n after each non-coordinate-break surface, or null
for a mirror], "rays": [[hx, hy, px, py], ...], "wavelength": µm}``.  The file
is read with Optiland's own Zemax reader, then three of its known
misreadings are corrected so that both programs describe the same system:

- glasses: every medium becomes an ideal material with the index optics
  computes at the primary wavelength (Optiland matches names fuzzily);
- a floating stop: Optiland takes the stop's semi-diameter for its diameter,
  so the aperture value is doubled;
- vignetting factors: set to 0 (optics does not apply them, and says so);
- a toroid's radius of rotation: Optiland takes PARM 2 for it; the request
  carries PARM 1's value (``toroids``: {Optiland surface index: radius});
- Newton–Raphson surfaces: Optiland's tolerance (1e-10 mm) is set to 0, that
  is to round-off, so that its rays are accurate to better than 1e-9;
- where optics reads a file by a documented approximation, Optiland is given
  the same system: ``epd`` (a FLOA stop without DIAM, sized by optics) and
  ``fields`` (object heights, telecentric, for image-height fields in
  telecentric object space, solved by optics).

Optiland does not scale lengths by UNIT; make_reference.py scales its answers.

Where Optiland's own launch fails (its paraxial trace refuses a folded
geometry), the request's ``launch`` rays (optics' object-space rays for the
same named rays, paraxial aiming) are traced through Optiland's surfaces
instead: the reply then has the error, the rays and no paraxial data.

The reply holds Optiland's paraxial data, the traced rays at the image
(global coordinates) and the indices Optiland's own glasses give.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings

warnings.filterwarnings("ignore")

import numpy as np  # noqa: E402
from optiland.fileio import load_zemax_file  # noqa: E402
from optiland.materials import IdealMaterial  # noqa: E402
from optiland.rays import RealRays  # noqa: E402


def _float(value):
    return float(np.asarray(value).reshape(-1)[0])


def measure(request):
    with contextlib.redirect_stdout(io.StringIO()):
        optic = load_zemax_file(request["file"])
    wavelength = request["wavelength"]
    surfaces = list(optic.surfaces)
    own_indices = []
    for surface in surfaces:
        try:
            own_indices.append(_float(surface.material_post.n(wavelength)))
        except Exception:  # noqa: BLE001 - a mirror or an exotic material
            own_indices.append(None)
    indices = request["indices"]
    if len(indices) != len(surfaces):
        return {"error": f"{len(surfaces)} Optiland surfaces, {len(indices)} indices"}
    for surface, n in zip(surfaces, indices):
        if n is not None:
            surface._material_post = IdealMaterial(n=n, k=0.0)
    for index, radius in request.get("toroids", {}).items():
        surfaces[int(index)].geometry.R_rot = float(radius)
    for surface in surfaces:
        if hasattr(surface.geometry, "tol"):
            surface.geometry.tol = 0.0
    if optic.aperture.ap_type == "float_by_stop_size":
        optic.set_aperture("float_by_stop_size", 2.0 * optic.aperture.value)
    for field in optic.fields.fields:
        field.vx, field.vy = 0.0, 0.0
    if "epd" in request:  # optics sized a FLOA stop that has no DIAM: the same pupil
        optic.set_aperture("EPD", request["epd"])
    if "fields" in request:  # optics' object heights for telecentric image-height fields
        optic.fields.fields = []
        optic.set_field_type(request["fields"]["type"])
        for x, y in request["fields"]["values"]:
            optic.add_field(y=y, x=x)
        optic.obj_space_telecentric = request["fields"]["telecentric"]
    try:
        optic.update()
        return _paraxial_and_rays(optic, request, own_indices)
    except Exception as exc:  # noqa: BLE001 - Optiland's launch refuses the geometry
        if "launch" not in request:
            raise
        error = f"{type(exc).__name__}: {exc}"
    # Trace optics' launched object-space rays through Optiland's surfaces (no paraxial data).
    start = request["launch"]
    n = len(start["x"])
    rays = RealRays(
        *(np.asarray(start[k], dtype=float) for k in "xyzLMN"),
        np.ones(n),
        np.full(n, float(request["wavelength"])),
    )
    optic.surfaces.trace(rays, skip=1)
    out = {k: np.asarray(getattr(rays, k), dtype=float).reshape(-1).tolist() for k in "xyzLMN"}
    return {"error": error, "rays": out, "optiland_indices": own_indices}


def _paraxial_and_rays(optic, request, own_indices):
    wavelength = request["wavelength"]
    p = optic.paraxial
    paraxial = {
        "efl": _float(p.f2()),
        "epd": _float(p.EPD()),
        "ep_position": _float(p.EPL()),
        "xpd": _float(p.XPD()),
        "xp_position": _float(p.XPL()),
        "fno": _float(p.FNO()),
    }
    rays = np.asarray(request["rays"], dtype=float)
    traced = optic.trace_generic(rays[:, 0], rays[:, 1], rays[:, 2], rays[:, 3], wavelength)
    out = {k: np.asarray(getattr(traced, k), dtype=float).reshape(-1).tolist() for k in "xyzLMN"}
    return {
        "paraxial": paraxial,
        "rays": out,
        "optiland_indices": own_indices,
        "aperture": [optic.aperture.ap_type, _float(optic.aperture.value)],
    }


def main():
    for line in sys.stdin:
        try:
            reply = measure(json.loads(line))
        except Exception as exc:  # noqa: BLE001 - reported to the driver
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
