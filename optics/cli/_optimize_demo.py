"""The optimization part of ``optics demo``: the Cooke triplet recovered from a perturbed start."""

from __future__ import annotations

import time

from .. import backend as be
from ..io import load
from ..optimize import Operand, Problem, has_autograd, optimize

#: Relative changes applied to the six radii of the built-in Cooke triplet.
PERTURBATION = (0.03, -0.03, 0.02, -0.02, 0.03, -0.03)


def demo_optimization(print_fn=print, steps=None):
    """Perturb the built-in Cooke triplet's radii and optimize them back, printing progress.

    Runs on the configured backend: L-BFGS with autograd gradients when it is
    Torch, SciPy's damped least squares with finite differences on NumPy.

    Parameters
    ----------
    print_fn : callable
        Receives each output line (``print`` by default).
    steps : int, optional
        Optimizer steps (default 40 for L-BFGS, 25 for least squares).

    Returns
    -------
    OptimizationResult
    """
    lens = load("cooke_triplet")
    for i, change in enumerate(PERTURBATION, start=1):
        lens.surfaces[i].geometry.radius = lens.surfaces[i].geometry.radius * (1.0 + change)
    problem = Problem(
        lens,
        [f"surfaces[{i}].radius" for i in range(1, 7)],
        [Operand("rms_spot", weight=3.0), Operand("efl", target=50.0)],
    )
    driver = "lbfgs" if has_autograd() else "least_squares"
    steps = (40 if driver == "lbfgs" else 25) if steps is None else steps
    print_fn(
        f"Optimizing the Cooke triplet from a perturbed start (radii changed by up to 3%): "
        f"6 radius variables, RMS spot (3 fields x 3 wavelengths) and EFL = 50 mm, "
        f"driver {driver} on {be.get_backend()}"
    )

    def report(record):
        if record.step % 5 == 0:
            print_fn(f"  step {record.step:3d}   merit {record.merit:.6g}")

    started = time.perf_counter()
    result = optimize(problem, driver, steps=steps, callback=report)
    before, after = result.operands_before, result.operands_after
    print_fn(
        f"merit {result.merit_before:.6g} -> {result.merit_after:.6g} in {result.steps} steps "
        f"({time.perf_counter() - started:.1f} s); RMS spot {before[0]['value'] * 1e3:.2f} -> "
        f"{after[0]['value'] * 1e3:.2f} um, "
        f"EFL {before[1]['value']:.3f} -> {after[1]['value']:.3f} mm"
    )
    return result
