"""Optiland 0.6.3's polarized transmission of given rays; runs under Optiland's interpreter.

Never imports optics.  Reads one JSON object on stdin: ``spec`` (see
_optiland_common.build), ``wavelength`` (µm) and ``rays``, a list of [Hx, Hy, Px, Py];
prints ``{"version", "H", "V", "unpolarized"}``: each ray's intensity at the image
(launched with intensity 1) for x (H), y (V) and unpolarized input.  Used by
benchmarks/polarization_reference.py to write tests/data/polarization_optiland.json.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import types


def _without_vtk():
    """Optiland's package imports its 3-D viewer (vtk) eagerly; a stub when vtk is absent."""
    if importlib.util.find_spec("vtk") is not None:
        return

    class _Stub(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return type(name, (), {})

    for name in ("vtk", "vtk.util", "vtk.util.numpy_support"):
        module = _Stub(name)
        module.__path__ = []
        sys.modules[name] = module


def main():
    _without_vtk()
    import importlib.metadata

    import numpy as np
    from _optiland_common import build, configure
    from optiland.rays import create_polarization

    configure("numpy")
    request = json.loads(sys.stdin.read())
    lens = build(request["spec"])
    for surface in lens.surfaces.surfaces[1:-1]:
        surface.set_fresnel_coating()  # bare Fresnel interfaces (Optiland's default: none)
    rays = np.array(request["rays"], dtype=float)
    out = {"version": importlib.metadata.version("optiland")}
    for name in ("H", "V", "unpolarized"):
        state = create_polarization(name)
        lens.set_polarization(state)
        traced = lens.trace_generic(*rays.T, request["wavelength"])
        traced.update_intensity(state)  # what Optiland's trace() does, trace_generic() not
        out[name] = [float(v) for v in np.asarray(traced.i)]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
