"""Real-image-height fields: the coupled 2×2 solve for the object-space field.

A ``real_image_height`` field asks for the chief ray — launched toward the
paraxial entrance-pupil centre at the primary wavelength, or through the stop
centre under real aiming (:mod:`optics.trace.aim`) — to land at a requested
global (x, y) on the image surface.  Its object-space parameters
q = (qx, qy) (ray slopes tan(angle) for an object at infinity, object heights
in mm otherwise) are the root of

    R(q, θ, h) = I(q, θ) − h = 0,

I the chief ray's global image-surface intercept (x, y) in mm, θ the system
parameters and h the requested height.  x and y are solved together: tilted,
decentered, freeform and anamorphic systems couple them, and an axis response
can reverse sign.

The solve (see docs/fields.md and docs/implicit-differentiation.md):

1. seed q₀ = h / m with m the paraxial image height per unit q (a singular
   paraxial scale raises);
2. :func:`optics.solvers.newton_2x2`: damped Newton with backtracking, graph-free,
   the scale-invariant singularity test on each 2×2 Jacobian, convergence per
   field at ``ROUND_OFF_CONSTANT · eps · length`` (mm);
3. only while ``be.grad_active()``: :func:`optics.solvers.implicit_correction_2x2`,
   q = q̄ − J̄⁻¹ R(q̄, θ, h) with one grad-attached chief-ray trace and J̄
   detached at the solution, so dq/dθ = −J⁻¹ ∂R/∂θ and dq/dh = J⁻¹ exactly
   to first order, whatever the number of iterations.

The Jacobian J = ∂I/∂q is a central difference of the primal trace (four
chief rays per field, in the same batched trace), identical on NumPy and
Torch; its step δ = eps^(1/3) · max(|q|, q_scale) balances truncation
(∝ δ²) against round-off (∝ eps/δ), for a relative error near eps^(2/3).
Clear apertures are ignored while solving (a field is defined by geometry, not
by vignetting); a chief ray that misses a surface or is totally internally
reflected makes the residual NaN, which the line search refuses.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import backend as be
from ..errors import SolveError
from ..solvers import (
    ROUND_OFF_CONSTANT,
    SINGULAR_CONSTANT,
    implicit_correction_2x2,
    newton_2x2,
    newton_2x2_static,
    normalized_solve_masked,
)
from ._field_failure import raise_if_failed
from .aim import launch
from .object_field import object_space_field, unit_field_image_height
from .prepared import prepare, propagate

#: Newton steps allowed per solve; from the paraxial seed the Cooke triplet needs 2.
MAX_ITERATIONS = 50


def field_parameters(system, hx, hy):
    """Object-space field parameters (qx, qy) for normalized fields of any type.

    Slopes tan(angle) for an object at infinity, object heights (mm) otherwise;
    ``real_image_height`` fields are solved here (one solve per distinct field
    point), every other type is a closed form of :mod:`optics.trace.object_field`.

    Parameters
    ----------
    system : Optic or PreparedSystem
        A prepared system keeps the result for fields given as Python numbers.
    hx, hy : float, sequence or array
        Normalized field coordinates; they broadcast together.
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
        Object-space field parameters (slopes, or object heights in mm);
        grad-attached to θ and h when gradients are recording.
    n_iter : int
        Newton steps the batch took.
    residual_norm : array, shape (m,)
        |I(q̄) − h| in mm at the primal solution (detached).
    tolerance : float
        The convergence tolerance on ``residual_norm`` in mm.
    """

    q: Any
    n_iter: int
    residual_norm: Any
    tolerance: float


def solve_real_image_height(system, hx, hy, *, tol=None, max_iter=MAX_ITERATIONS):
    """Object-space field parameters (qx, qy) for normalized real-image-height fields.

    Each distinct field point is solved once, at the primary wavelength; the
    result is shared by every pupil ray and wavelength of that point.

    Parameters
    ----------
    system : Optic or PreparedSystem
        A system whose ``fields.type`` is ``"real_image_height"``.
    hx, hy : float or array
        Normalized fields: the requested global image height is
        (hx, hy) · ``optic.fields.max_magnitude`` mm.  They broadcast
        together; tensors that require grad stay attached.
    tol : float, optional
        Convergence tolerance on |I − h| in mm; dtype-aware by default.
    max_iter : int
        Most Newton steps.

    Returns
    -------
    qx, qy : array, shape of ``broadcast(hx, hy)``
        Slopes tan(angle) for an object at infinity, object heights in mm
        otherwise.

    Raises
    ------
    SolveError
        When a field's paraxial scale is singular, its Jacobian is singular,
        its chief ray fails or Newton does not converge (the message names
        the field and the residual).
    """
    system = prepare(system)
    return _real_image_height(system.optic, hx, hy, system.first_order, tol, max_iter)


def _real_image_height(optic, hx, hy, first_order, tol, max_iter):
    hx, hy = _as_float_array(hx), _as_float_array(hy)
    shape = tuple(np.broadcast_shapes(tuple(hx.shape), tuple(hy.shape)))
    top = optic.fields.max_magnitude
    flat = be.reshape(be.stack(_broadcast_pair(hx, hy, shape), axis=-1), (-1, 2))
    # One field point (the common case), or targets abstract (jit, vmap): no bookkeeping.
    if math.prod(shape) == 1 or be.is_compiling(flat):
        q = _solve(optic, flat * top, first_order, tol, max_iter).q
        return be.reshape(q[:, 0], shape), be.reshape(q[:, 1], shape)
    # One primal solve per distinct field point; every occurrence keeps its own
    # grad-attached target in the correction (equal values need not be one parameter).
    keys = be.to_numpy(be.detach(flat))
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    unique = (be.asarray(first), be.asarray(np.reshape(inverse, -1)))
    q = _solve(optic, flat * top, first_order, tol, max_iter, unique).q
    return be.reshape(q[:, 0], shape), be.reshape(q[:, 1], shape)


def _as_float_array(value):
    """An array as given (gradients kept); numbers and lists as configured-precision floats."""
    return value if be.is_array(value) else be.asarray(np.asarray(value, dtype=float).tolist())


def _broadcast_pair(a, b, shape):
    """a and b broadcast to ``shape`` (views; gradients kept)."""
    return [x if tuple(x.shape) == shape else be.broadcast_to(x, shape) for x in (a, b)]


def solve_fields(system, targets, *, tol=None, max_iter=MAX_ITERATIONS):
    """Solve for the object-space field parameters of requested chief-ray image heights.

    Parameters
    ----------
    system : Optic or PreparedSystem
        The system (any field type: only its geometry and aperture matter).
    targets : array, shape (m, 2)
        Requested global (x, y) on the image surface in mm; may be attached.
    tol : float, optional
        Tolerance on |I − h| in mm; default ``ROUND_OFF_CONSTANT · eps ·
        max(1, max|h|, total track, |object distance|)``.
    max_iter : int
        Most Newton steps.

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
    """Solve for targets (n, 2); with ``unique = (first, inverse)`` solve only
    targets[first] and expand by ``inverse``, each row corrected with its own target."""
    distinct = targets if unique is None else targets[unique[0]]
    problem = _FieldProblem(optic, distinct, first_order)
    tol = problem.default_tolerance() if tol is None else tol
    primal = problem.detached()  # graph-free iterations on every backend (JAX: stop_gradient)
    options = dict(
        tol=tol,
        max_iter=max_iter,
        round_off_constant=ROUND_OFF_CONSTANT,
        singular_constant=SINGULAR_CONSTANT,
    )
    J_bar = None
    if problem.static:  # values abstract (jit, vmap): no host reads, failures become NaN
        result, J_bar = newton_2x2_static(primal.residual_and_jacobian, problem.seed(), **options)
    else:
        result = newton_2x2(primal.residual, primal.jacobian, problem.seed(), **options)
        problem.check(result, tol, max_iter)
    q, residual_norm = result.q, result.residual_norm
    expand = (lambda v: v) if unique is None else (lambda v: v[unique[1]])
    if be.grad_active():
        if J_bar is None:
            with be.no_grad():
                J_bar = primal.jacobian(q)
        image = problem.image_xy(q)  # the one grad-attached chief-ray trace
        residual, q, J_bar = expand(image) - targets, be.detach(expand(q)), expand(J_bar)
        if problem.static:  # the same correction; a singular J̄ gives no step (q is NaN then)
            q = q - normalized_solve_masked(be.detach(J_bar), residual)[0]
        else:
            name = "real-image-height field solve (implicit correction)"
            q = implicit_correction_2x2(residual, q, J_bar, name=name)
    else:
        q = expand(q)
    if problem.static:  # what check() would refuse: the field's rays are NaN (invalid)
        failed = ~expand(result.converged) | expand(result.singular)
        q = be.where(failed[..., None], math.nan, q)
    return FieldSolveResult(
        q=q, n_iter=result.n_iter, residual_norm=expand(residual_norm), tolerance=tol
    )


class _FieldProblem:
    """The residual, Jacobian, seed and diagnostics of one batched field solve."""

    def __init__(self, optic, targets, first_order):
        self.optic = optic
        self.targets = targets
        self.first_order = first_order
        self.wavelength = be.asarray(optic.primary_wavelength, dtype=targets.dtype)
        self.field_scale = optic.fields.max_magnitude
        self._evaluated = []  # (q, J) of recent residual evaluations, for jacobian()
        with be.no_grad():
            unit = unit_field_image_height(optic, first_order)
        #: Values that cannot be read on the host (jit, vmap): the fixed-shape solve.  A
        #: parameter the paraxial data ignore (a conic, a tilt) shows only in a real ray.
        self.static = be.is_compiling(unit, targets) or (
            be.is_compiling() and be.is_compiling(self._axial_image())
        )
        if self.static:
            self.per_unit = 1.0 / unit  # no seed where it is 0 or NaN: those fields fail
            self.q_scale = be.abs(self.per_unit) * (self.field_scale or 1.0)
            return
        unit = float(be.item(unit))
        if not math.isfinite(unit) or unit == 0.0:
            raise SolveError(
                "real-image-height field solve: the paraxial image height per unit object-space "
                f"field is {unit!r} mm, so no paraxial seed exists (afocal system, image at the "
                "pupil, or a field-independent image); use angle or object-height fields"
            )
        self.per_unit = 1.0 / unit  # q per mm of image height
        # Typical |q| of the system's fields: sizes the difference step.
        self.q_scale = abs(self.per_unit) * (self.field_scale if self.field_scale > 0 else 1.0)

    def _axial_image(self):
        """(x, y) of the q = 0 chief ray: a value that depends on every surface."""
        with be.no_grad():
            return self.image_xy(be.zeros_like(be.detach(self.targets)))

    def default_tolerance(self):
        """ROUND_OFF_CONSTANT · eps · (largest length the chief ray sees), mm."""
        lengths = [self.first_order.total_track]
        if not self.optic.object_at_infinity:
            lengths.append(self.optic.surfaces[0].thickness)
        if self.static:  # a 0-d array
            lengths = [be.max(be.abs(be.detach(self.targets)))] + [be.abs(v) for v in lengths]
            largest = be.maximum(be.max(be.stack([be.asarray(v) for v in lengths])), 1.0)
        else:
            lengths = [float(np.max(np.abs(be.to_numpy(self.targets)), initial=0.0))] + [
                abs(float(be.item(v))) for v in lengths
            ]
            largest = max([1.0, *lengths])
        return ROUND_OFF_CONSTANT * be.machine_eps(self.targets) * largest

    def detached(self):
        """This problem on detached copies of the optic, targets and first-order data.

        Its residual evaluations record nothing on any backend (on torch the
        solver's ``no_grad()`` does that already, and this is the problem itself).
        """
        optic, targets, first_order = be.detach_all((self.optic, self.targets, self.first_order))
        if optic is self.optic:
            return self
        primal = copy.copy(self)
        primal.optic, primal.targets, primal.first_order = optic, targets, first_order
        primal.wavelength = be.detach(self.wavelength)
        primal._evaluated = []
        return primal

    def seed(self):
        """Paraxial q₀ = h / m, detached, shape (m, 2)."""
        return be.detach(self.targets) * self.per_unit

    def image_xy(self, q):
        """Chief-ray image-surface (x, y) in mm for q of shape (..., 2); NaN where it fails."""
        # The chief ray of the optic's aiming mode (real: through the stop centre).
        rays = launch(self.optic, q[..., 0], q[..., 1], 0.0, 0.0, self.wavelength, self.first_order)
        rays = propagate(self.optic, rays, clip=False)  # a field is geometry, not vignetting
        xy = be.stack([rays.x, rays.y], axis=-1)
        return be.where(rays.valid[..., None], xy, math.nan)

    def residual(self, q):
        """R(q) for Newton, tracing the four difference rays of J(q) in the same batch.

        Newton asks for J at iterates whose residual it has already evaluated,
        so the Jacobian is kept for :meth:`jacobian`: one trace per iterate
        instead of two (small batches are dominated by per-trace overhead).
        """
        R, J = self.residual_and_jacobian(q)
        self._evaluated.append((q, J))
        return R

    def residual_and_jacobian(self, q):
        """R(q) and the central-difference J(q) from one batched trace (no cache)."""
        plus, minus = self._difference_points(q)
        xy = self.image_xy(be.concatenate([q[None], plus, minus]))
        return xy[0] - self.targets, self._difference_jacobian(xy[1:], plus, minus)

    def jacobian(self, q):
        """Central-difference ∂I/∂q, shape (m, 2, 2), J[k, i, j] = ∂I_i/∂q_j.

        Taken, field by field, from the residual evaluation at the same q when
        there is one, else traced afresh.
        """
        J, found = None, None
        for q_k, J_k in reversed(self._evaluated):
            same = be.all(q_k == q, axis=-1)
            J = J_k if J is None else be.where((same & ~found)[:, None, None], J_k, J)
            found = same if found is None else found | same
        if J is None or not be.item(be.all(found)):
            plus, minus = self._difference_points(q)
            J = self._difference_jacobian(self.image_xy(be.concatenate([plus, minus])), plus, minus)
        self._evaluated = [(q, J)]
        return J

    def _difference_points(self, q):
        """q ± δ e_j, each shape (2, m, 2) with axis 0 the perturbed coordinate j."""
        step = (be.machine_eps(q) ** (1.0 / 3.0)) * be.maximum(
            be.max(be.abs(q), axis=-1), self.q_scale
        )
        zero = be.zeros_like(step)
        offsets = be.stack([be.stack([step, zero], axis=-1), be.stack([zero, step], axis=-1)])
        return q + offsets, q - offsets

    @staticmethod
    def _difference_jacobian(xy, plus, minus):
        """J from the traced (x, y) of [plus, minus] (shape (4, m, 2)); the steps as stored."""
        difference = xy[:2] - xy[2:]
        columns = [difference[j] / (plus[j, :, j] - minus[j, :, j])[:, None] for j in (0, 1)]
        return be.stack(columns, axis=-1)

    def check(self, result, tol, max_iter):
        """Raise SolveError naming the first field that did not converge."""
        raise_if_failed(result, self.targets, self.field_scale, tol, max_iter)


def field_jacobian(system, q):
    """∂I/∂q of the chief ray's image intercept, by the solve's central differences.

    Parameters
    ----------
    system : Optic or PreparedSystem
    q : array, shape (m, 2)
        Object-space field parameters (slopes, or object heights in mm).

    Returns
    -------
    array, shape (m, 2, 2)
        J[k, i, j] = ∂I_i/∂q_j in mm per unit q (detached), I = (x, y) global
        on the image surface; the matrix the Newton steps and the implicit
        correction use.
    """
    system = prepare(system)
    q = be.detach(be.asarray(q))
    with be.no_grad():
        return _FieldProblem(system.optic, q, system.first_order).jacobian(q)
