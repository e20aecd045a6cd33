"""Real-image-height fields: the coupled 2×2 solve for the object-space field.

q solves I(q, θ) = h, I the chief ray's global image (x, y): graph-free damped Newton from the
paraxial seed, then one grad-attached correction if ``be.grad_active()`` (docs/fields.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import backend as be
from ..errors import SolveError
from ..solvers import ROUND_OFF_CONSTANT, implicit_correction_2x2, normalized_solve_masked
from ._aim_solve import DifferenceProblem
from .aim import launch
from .object_field import object_space_field, unit_field_image_height
from .prepared import prepare, propagate

#: Newton steps allowed per solve; from the paraxial seed the Cooke triplet needs 2.
MAX_ITERATIONS = 50


def field_parameters(system, hx, hy):
    """Object-space field parameters (qx, qy) for normalized fields (hx, hy) of any type.

    Parameters
    ----------
    system : Optic or PreparedSystem
        A prepared system keeps the result for fields given as Python numbers.
    hx, hy : float, sequence or array, shapes broadcasting to one shape S
        Normalized field coordinates, broadcast together.

    Returns
    -------
    qx, qy : array, shape S
        Slopes tan(angle) for an object at infinity, else object heights in mm.
    """
    return prepare(system).cached_fields(hx, hy, _field_parameters)


def _field_parameters(optic, hx, hy, first_order):
    if optic.fields.type == "real_image_height":
        return _real_image_height(optic, hx, hy, first_order, None, MAX_ITERATIONS)
    return object_space_field(optic, hx, hy, first_order)


@dataclass(frozen=True)
class FieldSolveResult:
    """Outcome of :func:`solve_fields` for m field points.

    Attributes
    ----------
    q : array, shape (m, 2)
        Object-space field parameters (attached to θ and h when gradients record).
    n_iter : int
        Newton steps the batch took.
    residual_norm, tolerance : array (m,), float
        |I(q̄) − h| in mm at the primal solution (detached), and its bound in mm.
    """

    q: Any
    n_iter: int
    residual_norm: Any
    tolerance: float


def solve_real_image_height(system, hx, hy, *, tol=None, max_iter=MAX_ITERATIONS):
    """Object-space field parameters (qx, qy) for normalized real-image-height fields.

    Parameters
    ----------
    system : Optic or PreparedSystem
        A system whose ``fields.type`` is ``"real_image_height"``.
    hx, hy : float or array
        Normalized fields, broadcast together, may be attached: the requested global image
        height is (hx, hy) · ``optic.fields.max_magnitude`` mm.
    tol, max_iter : float (optional), int
        Tolerance on |I − h| in mm (dtype-aware by default); most Newton steps.

    Returns
    -------
    qx, qy : array, shape of ``broadcast(hx, hy)``
        Slopes tan(angle) for an object at infinity, object heights in mm otherwise.

    Raises
    ------
    SolveError
        Naming the field that cannot be solved, why, and its residual.
    """
    system = prepare(system)
    return _real_image_height(system.optic, hx, hy, system.first_order, tol, max_iter)


def _real_image_height(optic, hx, hy, first_order, tol, max_iter):
    # Arrays as given (gradients kept); numbers and lists as configured-precision floats.
    hx, hy = (v if be.is_array(v) else be.asarray(np.asarray(v, float).tolist()) for v in (hx, hy))
    shape = tuple(np.broadcast_shapes(tuple(hx.shape), tuple(hy.shape)))
    pair = [x if tuple(x.shape) == shape else be.broadcast_to(x, shape) for x in (hx, hy)]
    flat = be.reshape(be.stack(pair, axis=-1), (-1, 2))
    unique = None  # one field point (the common case), or abstract targets (jit, vmap)
    if math.prod(shape) != 1 and not be.is_compiling(flat):
        # One primal solve per distinct field point; every occurrence keeps its own
        # grad-attached target in the correction (equal values need not be one parameter).
        keys = be.to_numpy(be.detach(flat))
        _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
        unique = (be.asarray(first), be.asarray(np.reshape(inverse, -1)))
    q = _solve(optic, flat * optic.fields.max_magnitude, first_order, tol, max_iter, unique).q
    return be.reshape(q[:, 0], shape), be.reshape(q[:, 1], shape)


def solve_fields(system, targets, *, tol=None, max_iter=MAX_ITERATIONS):
    """Solve for the object-space field parameters of requested chief-ray image heights.

    Parameters
    ----------
    system : Optic or PreparedSystem
        Any field type: only the geometry and aperture matter.
    targets : array, shape (m, 2)
        Requested global (x, y) on the image surface in mm; may be attached.
    tol, max_iter : float (optional), int
        Tolerance on |I − h| in mm, by default ``ROUND_OFF_CONSTANT · eps · max(1, max|h|,
        total track, |object distance|)``; most Newton steps.

    Returns
    -------
    FieldSolveResult

    Raises
    ------
    SolveError
        See :func:`solve_real_image_height`.
    """
    system = prepare(system)
    return _solve(system.optic, be.asarray(targets), system.first_order, tol, max_iter)


def _solve(optic, targets, first_order, tol, max_iter, unique=None):
    """Solve targets (n, 2); with ``unique = (first, inverse)`` only targets[first], expanded."""
    distinct = targets if unique is None else targets[unique[0]]
    problem = _FieldProblem(optic, distinct, first_order)
    tol = problem.default_tolerance() if tol is None else tol
    primal = problem.detached()  # graph-free iterations on every backend (JAX: stop_gradient)
    seed = be.detach(distinct) * problem.per_unit  # the paraxial q₀ = h / m
    # Static when values are abstract (jit, vmap): no host reads, failures become NaN.
    result, J_bar = primal.newton(seed, tol, max_iter, problem.static)
    if not problem.static:
        _raise_if_failed(result, problem, tol, max_iter)
    q = result.q
    expand = (lambda v: v) if unique is None else (lambda v: v[unique[1]])
    if be.grad_active():
        if J_bar is None:
            with be.no_grad():
                J_bar = primal.jacobian(q)
        image = problem.points(q)  # the one grad-attached chief-ray trace
        residual, q, J_bar = expand(image) - targets, be.detach(expand(q)), expand(J_bar)
        if problem.static:  # the same correction; a singular J̄ gives no step (q is NaN then)
            q = q - normalized_solve_masked(be.detach(J_bar), residual)[0]
        else:
            name = "real-image-height field solve (implicit correction)"
            q = implicit_correction_2x2(residual, q, J_bar, name=name)
    else:
        q = expand(q)
    if problem.static:  # what _raise_if_failed would refuse: the field's rays are NaN (invalid)
        failed = ~expand(result.converged) | expand(result.singular)
        q = be.where(failed[..., None], math.nan, q)
    return FieldSolveResult(q, result.n_iter, expand(result.residual_norm), tol)


def _raise_if_failed(result, problem, tol, max_iter):
    """Raise SolveError naming the first field that did not converge, why, and its residual."""
    converged = be.to_numpy(result.converged)
    if converged.all():
        return
    k = int(np.flatnonzero(~converged)[0])
    target = be.to_numpy(be.detach(problem.target))[k]
    norm = float(be.to_numpy(result.residual_norm)[k])
    where = f"field at image height (x, y) = ({target[0]:.9g}, {target[1]:.9g}) mm"
    top = problem.field_scale
    if top > 0:
        where += f" (normalized ({target[0] / top:.6g}, {target[1] / top:.6g}))"
    if not math.isfinite(norm):
        reason = "the chief ray misses a surface or is totally internally reflected"
    elif bool(be.to_numpy(result.singular)[k]):
        reason = "the Jacobian dI/dq is singular (x and y responses are degenerate)"
    elif bool(be.to_numpy(result.stalled)[k]):
        reason = "no damped Newton step reduces the residual"
    else:
        reason = f"no convergence in {max_iter} Newton iterations"
    raise SolveError(
        f"real-image-height field solve failed for the {where}: {reason}; "
        f"chief-ray residual |I - h| = {norm:.3e} mm (tolerance {tol:.3e} mm)"
    )


class _FieldProblem(DifferenceProblem):
    """The chief-ray image point I(q) − target, its seed and tolerance, for m fields."""

    def __init__(self, optic, target, first_order):
        self.optic = optic
        self.target = target
        self.first_order = first_order
        self.wavelength = be.asarray(optic.primary_wavelength, dtype=target.dtype)
        self.field_scale = optic.fields.max_magnitude
        self._evaluated = []
        with be.no_grad():
            unit = unit_field_image_height(optic, first_order)
        #: Values that cannot be read on the host (jit, vmap): the fixed-shape solve.  A parameter
        #: the paraxial data ignore (a conic, a tilt) shows only in a real ray (here q = 0's).
        self.static = be.is_compiling(unit, target)
        if not self.static and be.is_compiling():
            with be.no_grad():
                axial = self.points(be.zeros_like(be.detach(target)))
            self.static = be.is_compiling(axial)
        if not self.static:  # static: no seed where unit is 0 or NaN, and those fields fail
            unit = float(be.item(unit))
            if not math.isfinite(unit) or unit == 0.0:
                raise SolveError(
                    "real-image-height field solve: the paraxial image height per unit "
                    f"object-space field is {unit!r} mm, so no paraxial seed exists (afocal "
                    "system, image at the pupil, or a field-independent image); use angle or "
                    "object-height fields"
                )
        self.per_unit = 1.0 / unit  # q per mm of image height
        # Typical |q| of the system's fields: sizes the difference step.
        self.q_scale = abs(self.per_unit) * (self.field_scale if self.field_scale > 0 else 1.0)

    def default_tolerance(self):
        """ROUND_OFF_CONSTANT · eps · (largest length the chief ray sees), mm."""
        lengths = [self.first_order.total_track]
        if not self.optic.object_at_infinity:
            lengths.append(self.optic.surfaces[0].thickness)
        if self.static:  # a 0-d array
            lengths = [be.max(be.abs(be.detach(self.target)))] + [be.abs(v) for v in lengths]
            largest = be.maximum(be.max(be.stack([be.asarray(v) for v in lengths])), 1.0)
        else:
            height = float(np.max(np.abs(be.to_numpy(self.target)), initial=0.0))
            largest = max(1.0, height, *(abs(float(be.item(v))) for v in lengths))
        return ROUND_OFF_CONSTANT * be.machine_eps(self.target) * largest

    def detached(self):
        """This problem with every array in it detached (itself off JAX)."""
        return be.detach_all(self)

    def points(self, q):
        """Chief-ray image-surface (x, y) in mm for q of shape (..., 2); NaN where it fails."""
        # The chief ray of the optic's aiming mode (real: through the stop centre).
        rays = launch(self.optic, q[..., 0], q[..., 1], 0.0, 0.0, self.wavelength, self.first_order)
        rays = propagate(self.optic, rays, clip=False)  # a field is geometry, not vignetting
        xy = be.stack([rays.x, rays.y], axis=-1)
        return be.where(rays.valid[..., None], xy, math.nan)


def field_jacobian(system, q):
    """∂I/∂q (m, 2, 2) in mm per unit q at q (m, 2), by the solve's central differences."""
    system = prepare(system)
    q = be.detach(be.asarray(q))
    with be.no_grad():
        return _FieldProblem(system.optic, q, system.first_order).jacobian(q)
