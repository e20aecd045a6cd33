"""Step 2 of the rayoptics anchor: trace the start rays of zemax_launch.py with rayoptics.

    /work/venv-ro/bin/python tests/data/corpus/zemax_rayoptics.py

rayoptics 0.9.10 reads each corpus file itself (``open_model``); its object gap is set
to the start plane's distance and every start line is traced with
``rayoptics.raytr.trace.trace`` at our primary wavelength (or the file's nearest one).
Writes zemax_corpus.rayoptics.json beside this script: per file the start rays, the
image-surface point and direction of each ray in the image surface's local frame (a
string where rayoptics lost the ray), and the index of every gap at that wavelength
(the test compares rays only where both codes trace the same media).  Files rayoptics
cannot read are listed with its error.
"""

import contextlib
import io
import json
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from rayoptics_rays import open_model, trace  # noqa: E402

CORPUS = Path(__file__).resolve().parents[4] / "shared" / "zemax" / "files"


def main(launch=Path("/tmp/zemax_launch.json")):
    warnings.simplefilter("ignore")
    out = {}
    for name, entry in json.loads(launch.read_text()).items():
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                opm = open_model(str(CORPUS / name))
                sm = opm["seq_model"]
                sm.gaps[0].thi = -entry["start_z"]
                opm.update_model()
        except Exception as exc:  # noqa: BLE001  (rayoptics' own reading errors)
            out[name] = {"error": f"{type(exc).__name__}: {exc}"[:160]}
            continue
        want = entry["wavelength"] * 1000.0
        wavelength = min(sm.wvlns, key=lambda w: abs(w - want))
        rays = []
        for sx, sy, L, M, N in entry["start"]:
            try:
                ray = trace(sm, np.array([sx, sy, 0.0]), np.array([L, M, N]), wavelength)[0]
                rays.append([float(v) for v in (*ray[-1][0], *ray[-1][1])])
            except Exception as exc:  # noqa: BLE001  (a ray rayoptics loses)
                rays.append(type(exc).__name__)
        out[name] = {
            **entry,
            "rayoptics_wavelength_nm": float(wavelength),
            "indices": [float(g.medium.rindex(wavelength)) for g in sm.gaps],
            "image": rays,
        }
    path = Path(__file__).parent / "zemax_corpus.rayoptics.json"
    path.write_text(json.dumps({"source": "rayoptics 0.9.10", "files": out}, indent=0) + "\n")


if __name__ == "__main__":
    main()
