"""Real-ray aiming: rays launched so that they cross the stop where the pupil says.

Each ray solves for the effective paraxial pupil coordinates it launches with (docs/aiming.md);
the batched problem and its continuation are in :mod:`._aim_solve`.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import accel
from .. import backend as be
from ..errors import SolveError
from ..solvers import (
    ROUND_OFF_CONSTANT,
    implicit_correction_2x2,
    normalized_solve_masked,
    resolve_settings,
)
from ._aim_solve import AimProblem, solve
from .launch import launch_from
from .prepared import aiming_mode, frames_of, trace_to_surface

#: Newton steps allowed per aim stage.
MAX_ITERATIONS = 30


def launch(optic, qx, qy, px, py, wavelength, first_order):
    """:func:`optics.trace.launch.launch_rays` in the optic's aiming mode; unaimed rays invalid."""
    if aiming_mode(optic) != "real":
        return launch_from(optic, first_order, qx, qy, px, py, wavelength)
    result = aim(optic, qx, qy, px, py, wavelength, first_order)
    rays = launch_from(optic, first_order, qx, qy, result.px, result.py, wavelength)
    return rays.replace(valid=be.logical_and(rays.valid, result.converged))


@dataclass(frozen=True)
class AimResult:
    """Aimed effective pupil coordinates for rays of the broadcast input shape.

    Attributes
    ----------
    px, py : array
        Effective paraxial pupil coordinates to launch with (attached when gradients record).
    converged : bool array
        False where the ray could not be aimed (it is invalid).
    residual_norm, tolerance : array, float
        |S − (px, py) · r_stop| in mm at the solution (detached), and its bound in mm.
    r_stop : array
        The stop radius in mm that (px, py) = 1 means.
    """

    px: Any
    py: Any
    converged: Any
    residual_norm: Any
    r_stop: Any
    tolerance: float


def stop_radius(optic, first_order):
    """r_stop in mm as docs/aiming.md defines it (attached; NaN if the edge ray fails first)."""
    if optic.aperture.type == "stop_diameter":
        return be.asarray(optic.aperture.value) / 2.0
    zero = be.zeros_like(be.asarray(first_order.epd))
    wavelength = be.asarray(optic.primary_wavelength)
    rays = launch_from(optic, first_order, zero, zero, zero + 1.0, zero, wavelength)
    x, y, reached = trace_to_surface(optic, rays, optic.stop_index)
    return be.where(reached, be.hypot(x, y), math.nan)


def aim(optic, qx, qy, px, py, wavelength, first_order, *, tol=None, max_iter=None):
    """Effective pupil coordinates that put each ray on (px, py) · r_stop at the stop.

    q (slopes, or object heights in mm), (px, py) and the wavelength (µm) broadcast together;
    ``tol`` (mm) and ``max_iter`` (per stage) default as docs/aiming.md says.
    """
    inputs = [be.asarray(v) for v in (qx, qy, px, py, wavelength)]
    shape = tuple(np.broadcast_shapes(*(tuple(v.shape) for v in inputs)))
    field_shape = tuple(np.broadcast_shapes(*(tuple(inputs[i].shape) for i in (0, 1, 4))))
    r_stop = stop_radius(optic, first_order)
    accel.read_later([r_stop], lambda values: _check_stop_radius(optic, values[0]))
    settings = resolve_settings(
        _default_tolerance(optic, r_stop, inputs[0]) if tol is None else tol,
        MAX_ITERATIONS if max_iter is None else max_iter,
    )
    tol, max_iter = settings.tolerance, settings.max_iterations

    def flat(value, to_shape):
        return be.reshape(be.broadcast_to(value, to_shape), (-1,))

    # The solve records nothing: no_grad() on tape backends, and on JAX (whose no_grad
    # cannot stop a tracer) a detached optic and first-order data.
    free_optic, free_first_order = be.detach_all((optic, first_order))
    with be.no_grad():
        # 1. chief rays, one per field and wavelength.
        field_q = [be.detach(flat(inputs[i], field_shape)) for i in (0, 1, 4)]
        zeros = be.zeros_like(field_q[0])
        origin = be.stack([zeros, zeros], axis=-1)
        chief = AimProblem(free_optic, *field_q, origin, free_first_order)
        p_chief, ok_chief, _ = solve(chief, be.zeros_like(chief.target), tol, max_iter, "field")
        J_chief = chief.jacobian(p_chief)
        # 2. every ray, from its chief ray's linear prediction.
        expand = _expander(field_shape, shape)
        r = be.detach(r_stop)
        target = be.stack([flat(inputs[2], shape) * r, flat(inputs[3], shape) * r], axis=-1)
        q_all = [be.detach(flat(inputs[i], shape)) for i in (0, 1, 4)]
        problem = AimProblem(free_optic, *q_all, target, free_first_order)
        p_c, J_c = expand(p_chief), expand(J_chief)
        step, singular = normalized_solve_masked(J_c, target)
        start = be.where(singular[:, None], p_c, p_c + step)
        start = be.where(be.isfinite(start), start, p_c)
        p, converged, residual_norm = solve(problem, start, tol, max_iter, "pupil", chief=p_c)
        converged = converged & expand(ok_chief)
    if be.grad_active():
        with be.no_grad():
            J_bar = problem.jacobian(p)  # exact at the solution: dp/dθ = -J⁻¹ ∂R/∂θ
        target = be.stack([flat(inputs[2], shape) * r_stop, flat(inputs[3], shape) * r_stop], -1)
        q_attached = [flat(inputs[i], shape) for i in (0, 1, 4)]
        attached = AimProblem(optic, *q_attached, target, first_order)
        eye = be.broadcast_to(be.eye(2, dtype=J_bar.dtype), tuple(J_bar.shape))
        J_bar = be.where(converged[:, None, None], J_bar, eye)
        R = be.where(converged[:, None], attached.residual(be.detach(p)), 0.0)
        p = implicit_correction_2x2(R, p, J_bar, name="real ray aiming (implicit correction)")
    shaped = [be.reshape(v, shape) for v in (p[:, 0], p[:, 1], converged, residual_norm)]
    return AimResult(*shaped, r_stop=r_stop, tolerance=tol)


def _check_stop_radius(optic, r_stop):
    if not math.isfinite(r_stop):
        raise SolveError(
            f"real ray aiming: the real on-axis ray through the paraxial entrance-pupil edge "
            f"does not reach the stop (surface {optic.stop_index}), so the stop radius that "
            "(px, py) = 1 means is undefined; use an aperture of type 'stop_diameter' or a "
            "smaller aperture"
        )


def _default_tolerance(optic, r_stop, like):
    """ROUND_OFF_CONSTANT · eps · (largest readable length a ray sees up to the stop), mm."""
    track = sum(s.thickness for s in optic.surfaces[1 : optic.stop_index])
    candidates = [r_stop, track]
    if not optic.object_at_infinity:
        candidates.append(optic.surfaces[0].thickness)
    lengths = [1.0]
    for length in candidates:
        if not be.is_abstract(length):
            value = abs(float(be.item(be.detach(length))))
            lengths.append(value if math.isfinite(value) else 1.0)
    return ROUND_OFF_CONSTANT * be.machine_eps(be.asarray(like)) * max(lengths)


def _expander(field_shape, shape):
    """Map flat per-field arrays (one row per field point) to flat per-ray ones."""
    index = np.arange(math.prod(field_shape)).reshape(field_shape)
    index = np.broadcast_to(index, shape).reshape(-1).copy()
    if np.array_equal(index, np.arange(index.size)):
        return lambda v: v
    positions = be.asarray(index)
    return lambda v: v[positions]


class PupilAimWarning(UserWarning):
    """Paraxial aiming sends a field's chief ray visibly off the stop centre.

    ``misses``: {(hx, hy): the chief ray's distance from the stop centre in stop radii}.
    """


#: Largest chief-ray miss of the stop centre, in stop radii, that paraxial aiming passes quietly.
OFF_CENTRE_FRACTION = 0.01


def warn_if_off_centre(optic, fields, at_stop, first_order):
    """One grouped :class:`PupilAimWarning` for fields whose paraxially aimed chief misses.

    ``at_stop``: the F ``fields``' chief rays after the stop (global, apertures open), (W, F) or
    (C, W, F) for C stacked configurations (a warning each); failing before the stop misses.
    """
    frame = frames_of(optic)[optic.stop_index]
    x, y, *_ = frame.to_local(at_stop.x, at_stop.y, at_stop.z, at_stop.L, at_stop.M, at_stop.N)
    with be.no_grad():
        r_stop = be.reshape(be.detach(stop_radius(optic, first_order)), (-1, 1, 1))  # (C, 1, 1)
        miss = be.detach(be.hypot(x, y)) / r_stop  # (C, W, F)
        bad = be.logical_not(be.logical_and(at_stop.valid, miss <= OFF_CENTRE_FRACTION))
        bad = be.any(bad, axis=-2)  # (C, F)
        miss = be.max(be.where(at_stop.valid, miss, math.inf), axis=-2)
    # Read after the trace, with its other checks (never under jax.jit: nothing to read).
    count = len(fields)  # indexed per element: the Array API has no implicit trailing axes
    for c in range(bad.shape[0]):  # one warning per stacked configuration (C = 1: the optic)
        values = [r_stop[c, 0, 0], *(bad[c, i] for i in range(count))]
        values += [miss[c, i] for i in range(count)]
        accel.read_later(values, lambda read: _report_off_centre(fields, read))


def _report_off_centre(fields, read):
    """The warning of :func:`warn_if_off_centre` from its values read on the host."""
    count = len(fields)
    indices, misses = [i for i in range(count) if read[1 + i]], read[1 + count :]
    if not indices or not math.isfinite(read[0]):
        return  # nothing flagged, or no stop radius to measure by (real aiming says why)
    named = [
        f"({fields[i][0]:.4g}, {fields[i][1]:.4g})"
        + ("" if math.isfinite(misses[i]) else " (misses the stop)")
        for i in indices
    ]
    # The misses go on an attribute, not in the text: a text that changed with the
    # wavelength would defeat Python's once-per-location de-duplication.
    warning = PupilAimWarning(
        f"paraxial aiming: the chief ray crosses the stop more than "
        f"{100 * OFF_CENTRE_FRACTION:g} % of the stop radius from its centre for normalized "
        f'field(s) {", ".join(named)}; set [aiming] mode = "real" in the lens file '
        "(or --aiming real)"
    )
    warning.misses = {tuple(fields[i]): float(misses[i]) for i in indices}
    warnings.warn(warning, stacklevel=3)
