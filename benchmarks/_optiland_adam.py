"""Time one TorchAdamOptimizer step of Optiland 0.6.3 (run with Optiland's interpreter).

Usage: python _optiland_adam.py '<json problem>' REPEATS

The problem (lens rows, fields, wavelength, target EFL) comes from
benchmarks/test_bench_optimize.py so both libraries optimize the same lens.
Prints one JSON object: {"per_step_s": median seconds per step, "all": [...]}.
A step's cost is the slope (T(n_big) - T(n_small)) / (n_big - n_small) of
``optimize(n_steps=n)``, which cancels the optimizer's set-up and its final
evaluation.
"""

import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import optiland.backend as be  # noqa: E402

be.set_backend("torch")
be.set_precision("float64")

from _optiland_common import build, rows_spec, spot_inputs  # noqa: E402
from optiland import optimization  # noqa: E402


def main():
    problem, repeats = json.loads(sys.argv[1]), int(sys.argv[2])
    lens = build(rows_spec(problem))
    merit = optimization.OptimizationProblem()
    for inputs in spot_inputs(lens, problem):
        merit.add_operand(operand_type="rms_spot_size", target=0.0, weight=1.0, input_data=inputs)
    merit.add_operand(
        operand_type="f2", target=problem["efl"], weight=1.0, input_data={"optic": lens}
    )
    for i in range(1, len(problem["rows"]) + 1):
        merit.add_variable(lens, "radius", surface_number=i)
    adam = optimization.TorchAdamOptimizer(merit)

    def run(n):
        start = time.perf_counter()
        adam.optimize(n_steps=n, lr=1e-4, disp=False)
        return time.perf_counter() - start

    run(3)  # warm-up
    slopes = sorted((run(6) - run(1)) / 5 for _ in range(repeats))
    print(json.dumps({"per_step_s": slopes[len(slopes) // 2], "all": slopes}))


if __name__ == "__main__":
    main()
