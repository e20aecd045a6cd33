"""Writes optiland_thin_film.json: Optiland 0.6.3's thin films for tests/test_coatings_optiland.py.

Run in a separate environment that has Optiland (MIT licence, HarrisonKramer/optiland)::

    python -m venv /work/venv-optiland
    /work/venv-optiland/bin/pip install torch==2.13.0 optiland==0.6.3
    /work/venv-optiland/bin/python tests/data/coatings/make_optiland_reference.py

Only ``optiland.thin_film.ThinFilmStack`` with ``IdealMaterial`` (constant n, k) is used,
so no material database is involved; ``vtk`` (a plotting import of Optiland's package
``__init__``) is replaced by an empty module when it is not installed.
"""

from __future__ import annotations

import importlib.machinery
import importlib.metadata
import importlib.util
import json
import math
import sys
import types
from pathlib import Path


class _Placeholder(types.ModuleType):
    """An empty stand-in for ``vtk`` and its submodules (any attribute is a dummy class)."""

    __path__ = []

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (), {})


class _StubFinder:
    """Imports ``vtk`` and ``vtk.*`` as placeholders when vtk is not installed."""

    def find_spec(self, name, path=None, target=None):
        if name == "vtk" or name.startswith("vtk."):
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec):
        return _Placeholder(spec.name)

    def exec_module(self, module):
        pass


if importlib.util.find_spec("vtk") is None:  # only Optiland's 3-D viewer needs it
    sys.meta_path.append(_StubFinder())

import numpy as np  # noqa: E402  (after the vtk stand-in)
from optiland.materials import IdealMaterial  # noqa: E402
from optiland.thin_film import ThinFilmStack  # noqa: E402

#: name -> (incident (n, k), [(n, k, thickness µm), ...], substrate (n, k))
STACKS = {
    "dielectric AR on glass": ((1.0, 0.0), [(1.38, 0.0, 0.0996), (2.1, 0.0, 0.0612)], (1.52, 0.0)),
    "absorbing films": ((1.0, 0.0), [(1.45, 0.02, 0.08), (2.3, 0.1, 0.05)], (1.5168, 0.0)),
    "silver mirror": ((1.0, 0.0), [(1.46, 0.0, 0.09), (0.055, 3.32, 0.05)], (1.5, 0.0)),
}
WAVELENGTHS = [0.45, 0.55, 0.7]
ANGLES = [0.0, 20.0, 45.0, 70.0]


def main():
    out = {
        "source": f"optiland {importlib.metadata.version('optiland')} "
        "optiland.thin_film.ThinFilmStack.compute_rtRTA "
        "(MIT licence, github.com/HarrisonKramer/optiland), by make_optiland_reference.py",
        "wavelengths_um": WAVELENGTHS,
        "angles_deg": ANGLES,
        "stacks": {},
    }
    for name, (incident, layers, substrate) in STACKS.items():
        stack = ThinFilmStack(IdealMaterial(*incident), IdealMaterial(*substrate))
        for n, k, d in layers:
            stack.add_layer(IdealMaterial(n, k), d)
        entry = {"incident": incident, "layers": layers, "substrate": substrate}
        for pol in "sp":
            got = stack.compute_rtRTA(np.array(WAVELENGTHS), np.radians(ANGLES), pol)
            entry[pol] = {
                "R": np.asarray(got["R"]).tolist(),
                "T": np.asarray(got["T"]).tolist(),
                "r_re": np.real(got["r"]).tolist(),
                "r_im": np.imag(got["r"]).tolist(),
            }
        out["stacks"][name] = entry
    path = Path(__file__).with_name("optiland_thin_film.json")
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(path, math.fsum(len(v) for v in out["stacks"].values()))


if __name__ == "__main__":
    main()
