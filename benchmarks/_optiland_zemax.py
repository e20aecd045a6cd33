"""Optiland's Zemax reader, timed (runs under Optiland's interpreter; never imports optics).

Usage: python _optiland_zemax.py FILE.zmx REPEATS — prints one JSON line
``{"median_s": s, "surfaces": n}``: the median time of ``load_zemax_file(FILE)``
(read the file and build the optic), after one warm-up call.
"""

from __future__ import annotations

import contextlib
import io
import json
import statistics
import sys
import time
import warnings

warnings.filterwarnings("ignore")

from optiland.fileio import load_zemax_file  # noqa: E402


def main(path, repeats):
    with contextlib.redirect_stdout(io.StringIO()):
        optic = load_zemax_file(path)  # warm-up: imports, glass data, numba
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            load_zemax_file(path)
            times.append(time.perf_counter() - start)
    print(json.dumps({"median_s": statistics.median(times), "surfaces": len(optic.surfaces)}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
