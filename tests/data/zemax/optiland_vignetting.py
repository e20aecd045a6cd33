"""Optiland 0.6.3's side of tests/data/zemax/vignetting_reference.json (run with Optiland's
interpreter; never imported by optics or its tests).

stdin: one JSON object {"file", "indices" (optics' index of every medium at the primary
wavelength), "rays" ([hx, hy, px, py] rows), "wavelength"}; stdout: {"x": [...], ... "N"}.
optics' side: load the file, ``optic.aiming = "paraxial"``, and
``tests/data/zemax/make_reference.py``'s ``indices(optic)`` for "indices".
"""

import contextlib
import io
import json
import sys

import numpy as np
from optiland.fileio import load_zemax_file
from optiland.materials import IdealMaterial

req = json.loads(sys.stdin.read())
with contextlib.redirect_stdout(io.StringIO()):
    optic = load_zemax_file(req["file"])
for s, n in zip(optic.surfaces, req["indices"]):
    if n is not None:
        s._material_post = IdealMaterial(n=n, k=0.0)
optic.update()
print("vig", [(f.y, f.vx, f.vy) for f in optic.fields.fields], file=sys.stderr)
r = np.asarray(req["rays"], float)
# Optiland's trace_generic compresses Px by (1 - vx) and its paraxial aiming does it again
# (twice); its distribution trace (spot diagrams) lets the aiming do it once: that path.
rt = optic.ray_tracer
t = rt.ray_generator.generate_rays(r[:, 0], r[:, 1], r[:, 2], r[:, 3], req["wavelength"])
optic.surfaces.trace(t)
twice = optic.trace_generic(r[:, 0], r[:, 1], r[:, 2], r[:, 3], req["wavelength"])
print(
    "twice-vs-once max y diff",
    float(np.max(np.abs(np.asarray(twice.y) - np.asarray(t.y)))),
    file=sys.stderr,
)
print(json.dumps({k: np.asarray(getattr(t, k), float).ravel().tolist() for k in "xyzLMN"}))
