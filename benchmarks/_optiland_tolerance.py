"""Time Optiland 0.6.3's Monte Carlo tolerancing (run with Optiland's interpreter, never by optics).

Usage: python _optiland_tolerance.py '<json problem>' TRIALS

The problem (lens rows, fields, wavelength, rings, items) comes from
benchmarks/test_bench_tolerance.py, so both libraries tolerance the same
lens: the same 26 random components (20 items; a decenter or tilt is drawn in
x and in y), back focus as compensator, RMS spot over 3 fields.  Prints one
JSON object: {"per_trial_s", "cpu_per_trial_s" (process CPU time),
"nominal_rms": [per field], "mean_rms": [per field]}.  Only Optiland's public API is used.
"""

import json
import math
import sys
import time
import warnings

warnings.filterwarnings("ignore")

from _optiland_common import build, rows_spec, spot_inputs  # noqa: E402
from optiland.tolerancing.core import Tolerancing  # noqa: E402
from optiland.tolerancing.monte_carlo import MonteCarlo  # noqa: E402
from optiland.tolerancing.perturbation import DistributionSampler  # noqa: E402


def uniform(center, half_width, seed):
    return DistributionSampler(
        "uniform", seed=seed, low=center - half_width, high=center + half_width
    )


def tolerancing(problem):
    lens = build(rows_spec(problem))
    tol = Tolerancing(lens)
    for inputs in spot_inputs(lens, problem):
        tol.add_operand(operand_type="rms_spot_size", target=0.0, input_data=inputs)
    seed = 0
    for item in problem["items"]:
        seed += 1
        kind, surface, width = item["kind"], item["surface"], item["plus_minus"]
        if kind in ("radius", "thickness"):
            nominal = (
                lens.surfaces[surface].geometry.radius
                if kind == "radius"
                else (problem["rows"][surface - 1][1])
            )
            tol.add_perturbation(kind, uniform(float(nominal), width, seed), surface_number=surface)
        elif kind == "index":
            nominal = problem["rows"][surface - 1][2]
            tol.add_perturbation(
                "index",
                uniform(nominal, width, seed),
                surface_number=surface,
                wavelength=problem["wavelength"],
            )
        else:  # decenter (mm) or tilt (degrees: Optiland's tilts are radians), in x and y
            scale = math.pi / 180 if kind == "tilt" else 1.0
            for axis in ("x", "y"):
                seed += 1
                tol.add_perturbation(
                    kind, uniform(0.0, width * scale, seed), surface_number=surface, axis=axis
                )
    tol.add_compensator("thickness", surface_number=len(problem["rows"]))
    return tol


def main():
    problem, trials = json.loads(sys.argv[1]), int(sys.argv[2])
    tol = tolerancing(problem)
    nominal = [float(v) for v in tol.evaluate()]
    mc = MonteCarlo(tol)
    mc.run(1)  # warm-up
    started, cpu = time.perf_counter(), time.process_time()
    mc.run(trials)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    table = mc.get_results()
    rms = [c for c in table.columns if "rms" in c.lower() or "spot" in c.lower()]
    print(
        json.dumps(
            {
                "per_trial_s": seconds / trials,
                "cpu_per_trial_s": cpu / trials,
                "nominal_rms": nominal,
                "mean_rms": [float(table[c].mean()) for c in rms],
                "perturbations": len(tol.perturbations),
            }
        )
    )


if __name__ == "__main__":
    main()
