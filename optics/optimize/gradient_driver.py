"""Gradient drivers: Adam and L-BFGS on exact gradients (Torch or JAX).

Both move the scaled variables u (one unit ≈ one natural step of each
parameter), which is what makes one learning rate serve radii, thicknesses
and coefficients at once: the default Adam rate moves each parameter by about
0.3% of its size per step, and L-BFGS starts from steps of about 1%.
Bounds are enforced by projection after each step.
"""

from __future__ import annotations

from .gradient_steps import gradient_steps

#: Default learning rates (in scaled units: 1 ≈ 1% of a radius) per algorithm.
LEARNING_RATES = {"adam": 0.3, "lbfgs": 1.0}


def run_gradient(problem, recorder, algorithm, learning_rate=None):
    """Drive ``problem`` with a gradient algorithm until ``recorder`` says stop.

    Parameters
    ----------
    problem : Problem
    recorder : Recorder
        Receives step k's merit and gradient at the point before its update
        and, when the step limit ends the run, the point after the last update.
    algorithm : {"adam", "lbfgs"}
    learning_rate : float, optional
        Default :data:`LEARNING_RATES`.

    Returns
    -------
    ndarray, shape (n,)
        The last scaled point (the caller picks the best recorded one).
    """
    lr = LEARNING_RATES[algorithm] if learning_rate is None else float(learning_rate)
    lower, upper = problem.variables.scaled_bounds()
    optimizer = gradient_steps(algorithm, problem.start(), lr, lower, upper)
    u = optimizer.values()
    # The optimizer sees the merit in units of its start value: Adam's epsilon
    # and L-BFGS's first step are absolute, the merit's units are not.
    unit = problem.merit_float(u) or 1.0

    def loss(leaves):
        return problem.merit_value(leaves) / unit

    for step in range(recorder.stop.steps):
        merit, gradient = optimizer.step(loss)
        recorder.invalid_steps += optimizer.take_invalid_trials()
        if optimizer.stalled:
            recorder.message = recorder.message or optimizer.stalled
            recorder.record(step, merit * unit, u, gradient * unit)
            return u
        if recorder.record(step, merit * unit, u, gradient * unit):
            return u
        u = optimizer.values()
    merit, gradient = problem.value_and_gradient(u)
    recorder.record(recorder.stop.steps, merit, u, gradient)
    return u


def run_adam(problem, recorder, learning_rate=None):
    """Adam (see :func:`run_gradient`)."""
    return run_gradient(problem, recorder, "adam", learning_rate)


def run_lbfgs(problem, recorder, learning_rate=None):
    """L-BFGS with a strong-Wolfe line search, one iteration per step (see :func:`run_gradient`)."""
    return run_gradient(problem, recorder, "lbfgs", learning_rate)
