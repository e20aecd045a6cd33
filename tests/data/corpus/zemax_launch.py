"""Step 1 of the rayoptics anchor on the Zemax corpus: the start rays (run by our interpreter).

    . .venv/bin/activate; PYTHONPATH=$PWD python tests/data/corpus/zemax_launch.py

For every corpus file with reference rays (tests/data/zemax/corpus_reference.json), the
same rays (field, pupil) are launched by optics with paraxial aiming and no vignetting
factors, and each is written as a start point and direction: on the object plane for a
finite object, else START mm before the first surface's vertex, in the frame of the
first surface.  Step 2 (zemax_rayoptics.py) traces these lines with rayoptics, so
the comparison is of the two readings and traces of the file, not of aiming
conventions.  Writes /tmp/zemax_launch.json.
"""

import json
import math
import sys
import warnings
from pathlib import Path

import numpy as np

import optics

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT.parent / "shared" / "zemax" / "files"
START = 10.0


def main(out=Path("/tmp/zemax_launch.json")):
    reference = json.loads((ROOT / "tests/data/zemax/corpus_reference.json").read_text())
    launched = {}
    for name, entry in sorted(reference["files"].items()):
        if "rays" not in entry:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optic = optics.load(CORPUS / name, glass_fallback=entry["glass_fallback"])
        optic.fields.vignetting, optic.aiming = None, "paraxial"
        rows = entry["rays"]
        hx, hy, px, py = (np.array([r[k] for r in rows]) for k in ("hx", "hy", "px", "py"))
        first = optics.trace_surfaces(optic, (hx, hy), (px, py))[0]
        x, y, z, L, M, N = (np.asarray(getattr(first, k), float) for k in "xyzLMN")
        finite = math.isfinite(optic.surfaces[0].thickness)
        start_z = -optic.surfaces[0].thickness if finite else -START
        t = (start_z - z) / N
        launched[name] = {
            "names": [r["name"] for r in rows],
            "wavelength": float(optic.primary_wavelength),
            "start_z": start_z,
            "start": [[float(v) for v in ray] for ray in zip(x + t * L, y + t * M, L, M, N)],
        }
    out.write_text(json.dumps(launched))
    print(f"{len(launched)} files -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
