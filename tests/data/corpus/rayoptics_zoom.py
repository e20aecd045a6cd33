"""zoom_two_group.rayoptics.json: the zoom lens's real rays per configuration, by rayoptics.

Run by rayoptics' interpreter from the project root (see rayoptics_rays.py)::

    /work/venv-ro/bin/python tests/data/corpus/rayoptics_zoom.py

rayoptics 0.9.10 reads tests/data/zoom_two_group.zmx (its base prescription; it does
not read the multi-configuration rows), and each configuration's two spacings are set
on its gaps.  Per configuration: the image y of the rays at the full field (Hy = 1,
Py = 0, 1, -1) and of the axial marginal ray (Hy = 0, Py = 1), paraxially aimed.
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from rayoptics_rays import open_model, paraxially_aimed  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
# (surfaces[2].thickness, surfaces[5].thickness, the full field in degrees) of each
# configuration, as in tests/data/zoom_two_group.toml.
CONFIGURATIONS = [(9.0, 66.022, 8.0), (19.0, 49.8125, 12.0), (29.0, 42.6715, 20.0)]


def main():
    opm = open_model(str(ROOT / "tests" / "data" / "zoom_two_group.zmx"))
    sm = opm["seq_model"]
    field_y, axial_y = [], []
    for t2, t5, field in CONFIGURATIONS:
        sm.gaps[2].thi, sm.gaps[5].thi = t2, t5
        rays = paraxially_aimed(opm, [field] * 3 + [0.0], [0.0, 1.0, -1.0, 1.0])
        field_y.append([r[1] for r in rays[:3]])
        axial_y.append(rays[3][1])
    out = {
        "source": "rayoptics 0.9.10, tests/data/corpus/rayoptics_zoom.py",
        "field_y": field_y,
        "axial_y": axial_y,
    }
    path = Path(__file__).parent / "zoom_two_group.rayoptics.json"
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
