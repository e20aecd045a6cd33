"""Real-ray aiming: rays launched so that they cross the stop where the pupil says.

Under ``[aiming] mode = "real"`` the normalized pupil point (px, py) is the
point (px, py) · r_stop on the stop surface, in the stop's local frame; the
chief ray (0, 0) goes through the stop centre.  r_stop is the stop's radius
for a ``stop_diameter`` aperture, otherwise the height at which the real
on-axis ray through the paraxial entrance-pupil edge (EPD/2) crosses the stop.

The unknowns of each ray are its *effective* paraxial pupil coordinates
p = (px', py'): the point (px', py') · EPD/2 on the paraxial entrance-pupil
plane that :func:`optics.trace.launch.launch_rays` aims at.  For an object at
infinity they move the launch point across the field's fixed direction; for a
finite object they turn the direction from the fixed object point.  So the
aimed rays launch exactly as paraxial ones do (the compiled path needs no
change), and p = (px, py) is the paraxial seed.

The solve, batched over every ray (one 2×2 system per ray):

1. the chief rays (one per field and wavelength) by
   :func:`optics.solvers.newton_2x2` from p = 0; fields that fail go again by
   continuation from the axis outward (the field scaled by s = 1/k, 2/k, ...,
   1, each stage seeded by the previous one), for wide-angle lenses whose
   real pupil moves far from the paraxial one;
2. every ray from the linear prediction p_c + J_c⁻¹ (px, py) · r_stop of its
   chief ray's solution p_c and Jacobian J_c (Newton, the residual and the
   four difference rays of J in one batched trace per step); rays that fail go
   again by continuation in the pupil radius from the chief ray;
3. only while ``be.grad_active()``: one grad-attached trace to the stop and
   :func:`optics.solvers.implicit_correction_2x2` (p = p̄ − J̄⁻¹ R(p̄, θ)), so
   dp/dθ is exact to first order and the graph does not depend on the
   iteration count.

The residual is R(p) = S(p) − (px, py) · r_stop, S the local (x, y) on the
stop in mm; its Jacobian is a central difference in the same batched trace
(step eps^(1/3) · max(1, |p|)).  Clear apertures are ignored while aiming.
A ray that does not converge (it cannot reach that stop point) is invalid.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import backend as be
from ..frames import surface_frames
from ..solvers import (
    ROUND_OFF_CONSTANT,
    SINGULAR_CONSTANT,
    implicit_correction_2x2,
    newton_2x2,
    normalized_solve_masked,
    resolve_settings,
)
from .launch import launch_rays
from .propagate import trace_to_surface

#: Newton steps allowed per aim stage.
MAX_ITERATIONS = 30
#: Continuation for rays the direct solve misses: first step in s, smallest step
#: before a ray is given up, most stages.
FIRST_STEP = 0.125
SMALLEST_STEP = 2.0**-10
MAX_STAGES = 64
#: Newton steps per continuation stage (a good prediction converges in 2-4).
STAGE_ITERATIONS = 8


def aiming_mode(optic, override=None) -> str:
    """The aiming mode that applies: ``override`` or the optic's ``[aiming] mode``.

    Object-space telecentric systems launch by numerical aperture about an
    axis-parallel chief ray, so they are always aimed "paraxially".
    """
    mode = optic.aiming if override is None else override
    return "paraxial" if optic.fields.object_telecentric else mode


def launch(optic, qx, qy, px, py, wavelength, first_order, *, aiming=None):
    """Rays leaving the object, aimed as the aiming mode says.

    Parameters as :func:`optics.trace.launch.launch_rays`; ``aiming``
    overrides the optic's mode ("paraxial" or "real").  Real-aimed rays whose
    aim does not converge are invalid.
    """
    if aiming_mode(optic, aiming) != "real":
        return launch_rays(optic, qx, qy, px, py, wavelength, first_order)
    result = aim(optic, qx, qy, px, py, wavelength, first_order)
    rays = launch_rays(optic, qx, qy, result.px, result.py, wavelength, first_order)
    return rays.replace(valid=be.logical_and(rays.valid, result.converged))


@dataclass(frozen=True)
class AimResult:
    """Aimed effective pupil coordinates for rays of the broadcast input shape.

    Attributes
    ----------
    px, py : array
        Effective paraxial pupil coordinates to launch with (grad-attached
        when gradients are recording).
    converged : bool array
        False where the ray could not be aimed (it is invalid).
    residual_norm : array
        |S − (px, py) · r_stop| in mm at the solution (detached).
    r_stop : array
        The stop radius in mm that (px, py) = 1 means.
    tolerance : float
        Convergence tolerance in mm.
    """

    px: Any
    py: Any
    converged: Any
    residual_norm: Any
    r_stop: Any
    tolerance: float


def stop_radius(optic, first_order):
    """r_stop in mm: D/2 of a ``stop_diameter`` aperture, else the real EPD-edge ray's height.

    The real ray is the on-axis one through the paraxial entrance-pupil edge
    (px, py) = (1, 0) at the primary wavelength; its distance from the stop
    centre in the stop's local frame is returned (grad-attached).
    """
    if optic.aperture.type == "stop_diameter":
        return be.asarray(optic.aperture.value) / 2.0
    zero = be.zeros_like(be.asarray(first_order.epd))
    wavelength = be.asarray(optic.primary_wavelength)
    rays = launch_rays(optic, zero, zero, zero + 1.0, zero, wavelength, first_order)
    x, y, _ = trace_to_surface(optic, rays, optic.stop_index)
    return be.hypot(x, y)


def aim(optic, qx, qy, px, py, wavelength, first_order, *, tol=None, max_iter=None):
    """Effective pupil coordinates that put each ray on (px, py) · r_stop at the stop.

    Parameters
    ----------
    optic : Optic
    qx, qy : array
        Object-space field parameters (slopes, or object heights in mm).
    px, py : array
        Normalized stop coordinates.
    wavelength : array
        Micrometres.  All inputs broadcast together.
    first_order : ParaxialData
        The paraxial entrance pupil (launch geometry).
    tol : float, optional
        Tolerance on the stop miss in mm; by default
        ``ROUND_OFF_CONSTANT · eps · max(1, r_stop, track to the stop)`` (about
        1e-12 mm in float64), or the enclosing :func:`optics.solvers.solver_settings`.
    max_iter : int, optional
        Newton steps per stage.

    Returns
    -------
    AimResult
        Arrays in the broadcast shape of the inputs.
    """
    inputs = [be.asarray(v) for v in (qx, qy, px, py, wavelength)]
    shape = tuple(np.broadcast_shapes(*(tuple(v.shape) for v in inputs)))
    field_shape = tuple(np.broadcast_shapes(*(tuple(inputs[i].shape) for i in (0, 1, 4))))
    r_stop = stop_radius(optic, first_order)
    settings = resolve_settings(
        _default_tolerance(optic, r_stop, inputs[0]) if tol is None else tol,
        MAX_ITERATIONS if max_iter is None else max_iter,
    )
    tol, max_iter = settings.tolerance, settings.max_iterations

    def flat(value, to_shape):
        return be.reshape(be.broadcast_to(value, to_shape), (-1,))

    with be.no_grad():
        # 1. chief rays, one per field and wavelength.
        field_q = [be.detach(flat(inputs[i], field_shape)) for i in (0, 1, 4)]
        zeros = be.zeros_like(field_q[0])
        chief = _Problem(optic, *field_q, be.stack([zeros, zeros], axis=-1), first_order)
        p_chief, ok_chief, _ = _solve(chief, be.zeros_like(chief.target), tol, max_iter, "field")
        J_chief = chief.jacobian(p_chief)
        # 2. every ray, from its chief ray's linear prediction.
        expand = _expander(field_shape, shape)
        r = be.detach(r_stop)
        target = be.stack([flat(inputs[2], shape) * r, flat(inputs[3], shape) * r], axis=-1)
        q_all = [be.detach(flat(inputs[i], shape)) for i in (0, 1, 4)]
        problem = _Problem(optic, *q_all, target, first_order)
        p_c, J_c = expand(p_chief), expand(J_chief)
        step, singular = normalized_solve_masked(J_c, target, constant=SINGULAR_CONSTANT)
        start = be.where(singular[:, None], p_c, p_c + step)
        start = be.where(be.isfinite(start), start, p_c)
        p, converged, residual_norm = _solve(problem, start, tol, max_iter, "pupil", chief=p_c)
        converged = converged & expand(ok_chief)
    if be.grad_active():
        with be.no_grad():
            J_bar = problem.jacobian(p)  # exact at the solution: dp/dθ = -J⁻¹ ∂R/∂θ
        target = be.stack([flat(inputs[2], shape) * r_stop, flat(inputs[3], shape) * r_stop], -1)
        q_attached = [flat(inputs[i], shape) for i in (0, 1, 4)]
        attached = _Problem(optic, *q_attached, target, first_order)
        eye = be.broadcast_to(be.eye(2, dtype=J_bar.dtype), tuple(J_bar.shape))
        J_bar = be.where(converged[:, None, None], J_bar, eye)
        R = be.where(converged[:, None], attached.residual(p), 0.0)
        p = implicit_correction_2x2(R, p, J_bar, name="real ray aiming (implicit correction)")
    return AimResult(
        px=be.reshape(p[:, 0], shape),
        py=be.reshape(p[:, 1], shape),
        converged=be.reshape(converged, shape),
        residual_norm=be.reshape(residual_norm, shape),
        r_stop=r_stop,
        tolerance=tol,
    )


def _default_tolerance(optic, r_stop, like):
    """ROUND_OFF_CONSTANT · eps · (largest length an aimed ray sees up to the stop), mm."""
    stop = optic.stop_index
    lengths = [1.0, abs(float(be.item(r_stop)))]
    lengths.append(abs(sum(float(be.item(s.thickness)) for s in optic.surfaces[1:stop])))
    if not optic.object_at_infinity:
        lengths.append(abs(float(be.item(optic.surfaces[0].thickness))))
    return ROUND_OFF_CONSTANT * be.machine_eps(be.asarray(like)) * max(lengths)


def _expander(field_shape, shape):
    """Map flat per-field arrays (one row per field point) to flat per-ray ones."""
    index = np.arange(math.prod(field_shape)).reshape(field_shape)
    index = np.broadcast_to(index, shape).reshape(-1).copy()
    if np.array_equal(index, np.arange(index.size)):
        return lambda v: v
    positions = be.asarray(index)
    return lambda v: v[positions]


def _solve(problem, start, tol, max_iter, kind, chief=None):
    """Newton from ``start``; rays that fail go again by continuation (see module notes).

    Returns the solution, the converged mask and |R| at the solution.
    """
    result = problem.newton(start, tol, max_iter)
    p, converged, norm = result.q, result.converged, result.residual_norm
    failed = be.logical_not(converged)
    if not be.item(be.any(failed)):
        return p, converged, norm
    sub = problem.subset(failed)
    if kind == "field":  # from the on-axis chief ray (p = 0 on a centred system)
        origin = be.zeros_like(sub.target)
        velocity = be.zeros_like(origin)
    else:  # from the chief ray, first along its linear prediction
        origin = chief[failed]
        velocity, singular = normalized_solve_masked(sub.jacobian(origin), sub.target)
        velocity = be.where(singular[:, None] | ~be.isfinite(velocity), 0.0, velocity)
    q, ok = _continue(sub, origin, velocity, tol, min(max_iter, STAGE_ITERATIONS), kind)
    R = sub.residual(q)
    # Back to every ray: row k of the subset is the k-th failed ray.
    rows = be.asarray(np.maximum(np.cumsum(be.to_numpy(failed)) - 1, 0))
    took = failed & ok[rows]
    norm = be.where(failed, be.hypot(R[:, 0], R[:, 1])[rows], norm)
    return be.where(took[:, None], q[rows], p), converged | took, norm


def _continue(problem, p, velocity, tol, max_iter, kind):
    """Adaptive continuation in s from 0 (solved: ``p``) to 1, one s and step per ray.

    Each stage predicts p(s + ds) ≈ p(s) + ds · dp/ds (the secant of the last
    accepted stage) and corrects by Newton; a stage that fails halves the ray's
    step, one that succeeds doubles it.  A ray whose step falls below
    :data:`SMALLEST_STEP` has failed.
    """
    s = be.zeros_like(p[:, 0])
    step = s + FIRST_STEP
    done = s > 1.0
    failed = done
    for _ in range(MAX_STAGES):
        active = ~done & ~failed
        if not be.item(be.any(active)):
            break
        s_try = be.where(active, be.minimum(s + step, 1.0), s)
        seed = p + velocity * (s_try - s)[:, None]
        seed = be.where(be.isfinite(seed), seed, p)
        result = problem.scaled(s_try, kind).newton(seed, tol, max_iter)
        ok = active & result.converged
        moved = be.where(ok, s_try - s, 1.0)
        velocity = be.where(ok[:, None], (result.q - p) / moved[:, None], velocity)
        p = be.where(ok[:, None], result.q, p)
        s = be.where(ok, s_try, s)
        done = done | (ok & (s >= 1.0))
        step = be.where(ok, 2.0 * step, 0.5 * step)
        failed = failed | (active & ~ok & (step < SMALLEST_STEP))
    return p, done


class _Problem:
    """The stop residual and its Jacobian for a flat batch of rays (qx, qy, λ, target)."""

    def __init__(self, optic, qx, qy, wavelength, target, first_order):
        self.optic, self.first_order = optic, first_order
        self.qx, self.qy, self.wavelength, self.target = qx, qy, wavelength, target
        self._evaluated = []

    def subset(self, rows):
        """The problem of some rays only."""
        return _Problem(
            self.optic,
            self.qx[rows],
            self.qy[rows],
            self.wavelength[rows],
            self.target[rows],
            self.first_order,
        )

    def scaled(self, s, kind):
        """The problem with the field (``kind = "field"``) or the target scaled by s (n,)."""
        if kind == "field":
            return _Problem(
                self.optic, self.qx * s, self.qy * s, self.wavelength, self.target, self.first_order
            )
        return _Problem(
            self.optic,
            self.qx,
            self.qy,
            self.wavelength,
            self.target * s[:, None],
            self.first_order,
        )

    def newton(self, start, tol, max_iter):
        """:func:`optics.solvers.newton_2x2` on this problem (R and J in one batched trace)."""
        return newton_2x2(
            self.residual_and_jacobian,
            self.jacobian,
            start,
            tol=tol,
            max_iter=max_iter,
            round_off_constant=ROUND_OFF_CONSTANT,
            singular_constant=SINGULAR_CONSTANT,
        )

    def stop_xy(self, p):
        """Local stop (x, y) in mm for p of shape (k, n, 2); NaN where a ray fails."""
        k, n = int(p.shape[0]), int(p.shape[1])
        rays = launch_rays(
            self.optic,
            self.qx,
            self.qy,
            p[..., 0],
            p[..., 1],
            self.wavelength,
            self.first_order,
        )
        rays = rays.replace(
            **{
                name: be.reshape(be.broadcast_to(getattr(rays, name), (k, n)), (-1,))
                for name in ("x", "y", "z", "L", "M", "N", "wavelength", "opd", "valid")
            }
        )
        x, y, valid = trace_to_surface(self.optic, rays, self.optic.stop_index)
        xy = be.reshape(be.stack([x, y], axis=-1), (k, n, 2))
        return be.where(be.reshape(valid, (k, n))[..., None], xy, math.nan)

    def residual(self, p):
        """R(p) = S(p) − target, shape (n, 2)."""
        return self.stop_xy(p[None])[0] - self.target

    def residual_and_jacobian(self, p):
        """R(p), tracing the four difference rays of J(p) in the same batch (J kept)."""
        plus, minus = _difference_points(p)
        xy = self.stop_xy(be.concatenate([p[None], plus, minus]))
        self._evaluated.append((p, _difference_jacobian(xy[1:], plus, minus)))
        return xy[0] - self.target

    def jacobian(self, p):
        """Central-difference ∂S/∂p, shape (n, 2, 2); from a kept evaluation at p if any."""
        J, found = None, None
        for p_k, J_k in reversed(self._evaluated):
            same = be.all(p_k == p, axis=-1)
            J = J_k if J is None else be.where((same & ~found)[:, None, None], J_k, J)
            found = same if found is None else found | same
        if J is None or not be.item(be.all(found)):
            plus, minus = _difference_points(p)
            J = _difference_jacobian(self.stop_xy(be.concatenate([plus, minus])), plus, minus)
        self._evaluated = [(p, J)]
        return J


def _difference_points(p):
    """p ± δ e_j, each shape (2, n, 2), axis 0 the perturbed coordinate j."""
    step = (be.machine_eps(p) ** (1.0 / 3.0)) * be.maximum(be.max(be.abs(p), axis=-1), 1.0)
    zero = be.zeros_like(step)
    offsets = be.stack([be.stack([step, zero], axis=-1), be.stack([zero, step], axis=-1)])
    return p + offsets, p - offsets


def _difference_jacobian(xy, plus, minus):
    """J from the stop (x, y) of [plus, minus] (shape (4, n, 2))."""
    difference = xy[:2] - xy[2:]
    columns = [difference[j] / (plus[j, :, j] - minus[j, :, j])[:, None] for j in (0, 1)]
    return be.stack(columns, axis=-1)


class PupilAimWarning(UserWarning):
    """Paraxial aiming sends a field's chief ray visibly off the stop centre."""


#: Largest chief-ray miss of the stop centre, in stop radii, that paraxial aiming passes quietly.
OFF_CENTRE_FRACTION = 0.01


def warn_if_off_centre(optic, fields, at_stop, first_order):
    """One grouped :class:`PupilAimWarning` for fields whose paraxially aimed chief misses.

    Parameters
    ----------
    optic : Optic
    fields : sequence of (hx, hy)
        The normalized fields, length F.
    at_stop : Rays, shape (W, F)
        The chief rays just after the stop surface (global coordinates), as
        the trace already has them (clear apertures open).
    first_order : ParaxialData

    Notes
    -----
    One host sync, after the trace.  A chief ray that fails before the stop
    counts as missing it.
    """
    frame = surface_frames(optic.surfaces[: optic.stop_index + 1])[-1]
    x, y, *_ = frame.to_local(at_stop.x, at_stop.y, at_stop.z, at_stop.L, at_stop.M, at_stop.N)
    with be.no_grad():
        r_stop = be.detach(stop_radius(optic, first_order))
        miss = be.detach(be.hypot(x, y)) / r_stop
        bad = be.logical_not(be.logical_and(at_stop.valid, miss <= OFF_CENTRE_FRACTION))
        bad = be.to_numpy(be.any(bad, axis=0))
        miss = be.to_numpy(be.max(be.where(at_stop.valid, miss, math.inf), axis=0))
    if not bad.any():
        return
    named = [
        f"({fields[i][0]:.4g}, {fields[i][1]:.4g}) "
        + ("(misses the stop)" if not math.isfinite(miss[i]) else f"({100 * miss[i]:.3g} %)")
        for i in np.flatnonzero(bad)
    ]
    warnings.warn(
        f"paraxial aiming: the chief ray crosses the stop more than "
        f"{100 * OFF_CENTRE_FRACTION:g} % of the stop radius from its centre for normalized "
        f'field(s) {", ".join(named)}; set [aiming] mode = "real" in the lens file '
        "(or --aiming real)",
        PupilAimWarning,
        stacklevel=3,
    )
