"""Gradient checks: a lens metric's autograd derivative next to central finite differences.

``optics gradcheck`` runs :func:`check_gradients`, a tool users run to trust
their gradients: for each parameter path (see :mod:`optics.params`) it
reports the derivative of the metric by autograd (Torch, float64) and by
central differences at two steps h and h/2,

    fd(h) = (f(v + h) - f(v - h)) / (2h),   h = max(relative_step |v|, MIN_RELATIVE_CHANGE |f / f'|)

and the relative difference between autograd and the Richardson combination
of the two, fd_R = (4 fd(h/2) - fd(h)) / 3, whose error is O(h⁴) where each
difference alone has O(h²).  The step is relative to the parameter's value, |v| (1 when v = 0), or
larger where that would change the metric by less than MIN_RELATIVE_CHANGE of
itself (the scale |f / f'| uses the autograd derivative f'): coefficients of
polynomial terms are often tiny in their own units, and a step of 6e-6 |v|
would then drown in the trace's round-off.  The two differences should agree
with each other
(otherwise the metric is not smooth at this step, e.g. a ray switching between
valid and vignetted) before either is compared with autograd.

Newton–Raphson surfaces are solved to the round-off floor of the solver
(``tol = 0``) for the duration of the check, so that the finite differences
are not limited by the solver tolerance (a default ``tol`` of 1e-10 mm moves a
root by up to that much, which a difference quotient divides by 2h).
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from . import backend as be
from ._paraxial import paraxial
from .analysis.spot import spot_statistics
from .errors import OpticsError
from .params import ParameterPathError, get_param, set_param
from .solvers import solver_settings
from .trace import trace_bundle

__all__ = ["METRICS", "ParameterCheck", "check_gradients", "efl", "rms_spot"]

#: Default relative step: eps^(1/3) of float64 balances truncation (~h²) and round-off (~eps/h).
DEFAULT_RELATIVE_STEP = 2.0 ** (-52 / 3)
#: Smallest relative change of the metric a difference may rely on.  A trace's round-off is
#: about 1e-13 of the metric, so a change of ~1e-6 keeps that noise near 1e-7 of the derivative.
MIN_RELATIVE_CHANGE = 2.0**-20


def rms_spot(optic):
    """Mean over the fields of the RMS spot radius about the centroid (mm).

    Primary wavelength, hexapolar pupil sampling with 6 rings (127 rays).
    """
    bundle = trace_bundle(optic, wavelengths=[optic.primary_wavelength], pupil=6)
    radii = spot_statistics(bundle.rays, 0.0, 0.0, axis=-1)["rms_radius_centroid"]  # (1, F)
    return be.sum(radii) / len(bundle.fields)


def efl(optic):
    """Paraxial effective focal length (mm) at the primary wavelength."""
    return paraxial(optic).efl


METRICS = {"rms_spot": rms_spot, "efl": efl}


@dataclass(frozen=True)
class ParameterCheck:
    """The derivative of the metric with respect to one parameter, three ways.

    Attributes
    ----------
    path : str
        The parameter path.
    autograd : float
        d metric / d parameter by autograd (metric units per parameter unit).
    fd, fd_half_step : float
        Central finite differences at steps h and h/2.
    rel_err : float
        |autograd - fd_R| / max(|autograd|, |fd_R|) with the Richardson
        combination fd_R = (4 fd_half_step - fd) / 3; 0 when both are 0.
    """

    path: str
    autograd: float
    fd: float
    fd_half_step: float
    rel_err: float

    def as_dict(self) -> dict:
        """Plain data for JSON."""
        return asdict(self)


def relative_error(a: float, b: float) -> float:
    """|a - b| / max(|a|, |b|), 0 when both are 0 (NaN stays NaN)."""
    scale = max(abs(a), abs(b))
    return 0.0 if scale == 0 else abs(a - b) / scale


def check_gradients(
    optic, paths, metric="rms_spot", *, relative_step=DEFAULT_RELATIVE_STEP, backend=None
) -> dict:
    """Compare autograd and finite-difference derivatives of a metric.

    Parameters
    ----------
    optic : Optic
        The system; its parameters are restored to their values afterwards.
    paths : list of str
        Parameter paths, e.g. ``["surfaces[3].radius", "surfaces[6].coefficients[1][2]"]``.
    metric : {"rms_spot", "efl"} or callable
        The metric: a name from :data:`METRICS` or a function optic -> 0-d array.
    relative_step : float
        The finite-difference step relative to |value| (see the module docstring).
    backend : str, optional
        The differentiating backend ("torch" or "jax"); by default the first
        installed one of :func:`optics.backend.autodiff_backends`.

    Returns
    -------
    dict
        ``{"metric", "value", "params": [ParameterCheck.as_dict(), ...]}``.

    Raises
    ------
    ParameterPathError
        A path is malformed, unknown or does not hold a finite number.
    OpticsError
        Unknown metric, or no differentiating backend is installed.
    """
    name, function = _metric(metric)
    paths = list(paths)
    if not paths:
        raise ParameterPathError("gradcheck needs at least one parameter path")
    start = [_start_value(optic, path) for path in paths]
    with (
        be.using(backend or (be.autodiff_backends() or ["torch"])[0], precision="float64"),
        solver_settings(tolerance=0.0),
        _restored(optic, paths),
    ):

        def loss(leaves):
            for path, leaf in zip(paths, leaves):
                set_param(optic, path, leaf)
            return function(optic)

        from .optimize import value_and_gradient  # here: optimize takes 0.3 s to import

        value, gradient = value_and_gradient(loss, start)
        _write(optic, paths, start)
        checks = []
        for i, path in enumerate(paths):
            step = _step(start[i], value, float(gradient[i]), relative_step)
            fd = _central_difference(optic, function, paths, start, i, step)
            fd_half = _central_difference(optic, function, paths, start, i, step / 2)
            grad = float(gradient[i])
            richardson = (4.0 * fd_half - fd) / 3.0
            checks.append(ParameterCheck(path, grad, fd, fd_half, relative_error(grad, richardson)))
    return {"metric": name, "value": float(value), "params": [c.as_dict() for c in checks]}


def _metric(metric):
    if callable(metric):
        return getattr(metric, "__name__", "metric"), metric
    if metric not in METRICS:
        raise OpticsError(f"unknown metric {metric!r}; choose one of {', '.join(METRICS)}")
    return metric, METRICS[metric]


def _step(value, metric_value, derivative, relative_step) -> float:
    """max(relative_step |v| (|v| -> 1 if v = 0), MIN_RELATIVE_CHANGE |f / f'|)."""
    step = relative_step * (abs(value) or 1.0)
    if derivative != 0 and math.isfinite(derivative) and math.isfinite(metric_value):
        step = max(step, MIN_RELATIVE_CHANGE * abs(metric_value / derivative))
    return step


def _start_value(optic, path) -> float:
    value = float(be.item(get_param(optic, path)))
    if not math.isfinite(value):
        raise ParameterPathError(f"parameter path {path!r} holds {value}, not a finite number")
    return value


def _write(optic, paths, values):
    for path, value in zip(paths, values):
        set_param(optic, path, float(value))


def _central_difference(optic, function, paths, start, i, step) -> float:
    """(f(v + h) - f(v - h)) / 2h in parameter i, the others at their start values."""
    values = []
    with be.no_grad():
        for sign in (1.0, -1.0):
            shifted = list(start)
            shifted[i] = start[i] + sign * step
            _write(optic, paths, shifted)
            values.append(float(be.item(function(optic))))
    _write(optic, paths, start)
    return (values[0] - values[1]) / (2.0 * step)


@contextmanager
def _restored(optic, paths):
    """Put the parameters back exactly as they were (objects included)."""
    saved = [get_param(optic, path) for path in paths]
    try:
        yield
    finally:
        for path, value in zip(paths, saved):
            set_param(optic, path, value)
