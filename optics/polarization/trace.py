"""Polarization ray tracing: the 3x3 PRT matrix of every ray (docs/polarization.md).

The rays are traced once by :func:`optics.trace.trace_surfaces` (the surface loop is
not touched, so an unpolarized trace costs nothing more); the polarization ray-tracing
matrices of Chipman, Lam & Young (*Polarized Light and Optical Systems*, ch. 9-10) are
then built from each surface's incident and outgoing directions::

    P_q = a_s s sᵀ + a_p p_out p_inᵀ + k_out k_inᵀ,   P = P_Q ... P_2 P_1

with s the unit vector along k_in × k_out (the normal of the plane of incidence),
p_in = k_in × s, p_out = k_out × s in transmission and s × k_out in reflection (so on
reflection a_p = rs at normal incidence: :mod:`optics.coatings.fresnel` writes rp in Born &
Wolf's basis, rp = −rs there, and a coating's rp enters as −rp).  The
plane of incidence and the angle of incidence follow from Snell's law itself
(n2 k_out − n1 k_in is along the normal), so no surface is evaluated again.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import accel
from .. import backend as be
from ..surfaces import media
from ..trace import prepare, trace_surfaces
from ._blocks import joined_blocks
from ._vectors import cross, dot, none_true, unit_normal_and_scale, unit_normal_to
from .absorption import absorption_of

__all__ = ["PolarizationTrace", "polarization_trace"]

#: A batch larger than the eager trace's block (``accel.ray_block_size``) is traced in
#: equal blocks of at most that block over this: the PRT matrices keep the rays at every
#: surface and some thirty more ray-sized arrays alive, which half-sized blocks keep in the
#: CPU's caches (NumPy, the Cooke triplet at 2e5 and 1e6 rays: a few per cent faster than
#: whole blocks, and than thirds or quarters; benchmarks/test_bench_polarization.py).
BLOCK_DIVISOR = 2


@dataclass(frozen=True)
class PolarizationTrace:
    """The polarization ray trace of a batch of rays (every array in the rays' shape S).

    The PRT matrix is kept factored: ``P = [s_out p_out] M [s_in p_in]ᵀ + k_out k_inᵀ``
    with M the 2x2 product of every interface's diag(a_s, a_p) and the rotations
    between consecutive planes of incidence; :attr:`prt` multiplies it out.

    Attributes
    ----------
    local : nested 2x2 tuple of arrays, shape S
        M (real where every interface is bare and lossless, complex with coatings).
    basis_in, basis_out : pairs of 3-tuples of arrays, shape S
        (s, p) of the first interface's incident field and of the last one's outgoing.
    k_in, k_out : tuples of 3 arrays, shape S
        Object-space and image-space unit directions (global).
    flux : array, shape S
        Product over the interfaces of n2 cos θt/(n1 cos θi): the ratio of power to
        |E|² across them, so the power transmittance is ``flux * |P E|² / |E|²``.
    valid : bool array, shape S
        The rays that reached the image (TIR, vignetted and missed rays are False; the
        analyses give them zero transmission).
    entrance_axes, exit_axes : tuples of three global unit 3-vectors
        The (x, y, z) axes the double-pole bases of :mod:`optics.polarization.jones` are
        built about: object space's global axes; image space's, the image surface's frame
        with z reversed after an odd number of mirrors (a left-handed basis, x and y kept).
    rays : Rays
        The rays at the image surface.
    """

    local: Any
    basis_in: Any
    basis_out: Any
    k_in: Any
    k_out: Any
    flux: Any
    valid: Any
    entrance_axes: tuple
    exit_axes: tuple
    rays: Any

    @property
    def prt(self):
        """The 3x3 PRT matrix P (global coordinates) as a nested tuple of arrays, shape S."""
        (s1, p1), (s2, p2) = self.basis_in, self.basis_out
        M = self.local
        left = tuple(
            (M[0][0] * s1[c] + M[0][1] * p1[c], M[1][0] * s1[c] + M[1][1] * p1[c]) for c in range(3)
        )
        return tuple(
            tuple(
                s2[r] * left[c][0] + p2[r] * left[c][1] + self.k_out[r] * self.k_in[c]
                for c in range(3)
            )
            for r in range(3)
        )


def polarization_trace(system, field, pupil, wavelength=None, *, method=None, aiming=None):
    """Trace rays and their PRT matrices through every surface.

    Parameters
    ----------
    system : Optic or PreparedSystem
    field, pupil : (hx, hy), (px, py)
        Normalized field and pupil coordinates, as :func:`optics.trace.trace_rays`.
    wavelength : float or array, optional
        Micrometres; the primary wavelength by default.  An array broadcasts with the
        field and pupil coordinates (to the shape S of the traced rays).
    method, aiming : optional
        As :func:`optics.trace.trace_rays` (any method that keeps the rays at every surface).

    Returns
    -------
    PolarizationTrace
        ``jones_pupil``, ``transmission``, ``diattenuation`` and ``retardance`` of
        :mod:`optics.polarization.jones` read it.

    Notes
    -----
    A surface's ``coating`` attribute (None by default), when set, supplies the
    amplitudes through ``coating.amplitudes(n1, n2, cos_i, wavelength_um) -> (rs, rp,
    ts, tp)`` (a mirror's with n2 = n1); a bare refracting surface has the Fresnel
    coefficients of :func:`~optics.coatings.fresnel.fresnel_amplitudes` (evaluated in
    real arithmetic: a ray that reaches the image is not totally reflected, and indices
    are real) and a bare mirror is a perfect conductor (a_s = a_p = −1 in this basis).
    A medium whose material has an ``absorption`` coefficient
    (:mod:`optics.polarization.absorption`) attenuates the amplitude by exp(−α d / 2) over
    the geometric path d.  Ideal lenses and gratings (surfaces that redirect rays) are
    taken as non-polarizing.
    """
    system = prepare(system, aiming)
    wavelength = system.optic.primary_wavelength if wavelength is None else wavelength
    inputs = (field[0], field[1], pupil[0], pupil[1], wavelength)
    arrays = [be.asarray(v) for v in inputs if not isinstance(v, numbers.Real)]
    shape = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in arrays))) if arrays else ()
    count = math.prod(shape)
    block = accel.ray_block_size(*arrays) if method is None else None
    if block is None or count <= block:
        return _traced(system, inputs, method)
    # Cache-sized blocks, as the eager trace runs its own (the same arithmetic, faster),
    # of equal sizes, so that no short last block pays the per-block overhead.
    blocks = -(-count // max(block // BLOCK_DIVISOR, 2))
    block = -(-count // blocks)
    flat = [_flat(v, shape) for v in inputs]
    parts = (
        _traced(system, [_cut(v, start, start + block) for v in flat], None)
        for start in range(0, count, block)
    )
    return joined_blocks(parts, shape)


def _flat(value, shape):
    """A per-ray input broadcast to ``shape`` and flattened; a number as it is."""
    if isinstance(value, numbers.Real):
        return value
    return be.reshape(be.broadcast_to(be.asarray(value), shape), (-1,))


def _cut(value, start, stop):
    return value if isinstance(value, numbers.Real) else value[start:stop]


def _traced(system, inputs, method):
    """The PolarizationTrace of one batch (``inputs``: hx, hy, px, py, wavelength)."""
    hx, hy, px, py, wavelength = inputs
    optic = system.optic
    at = trace_surfaces(system, (hx, hy), (px, py), wavelength, method=method)
    surfaces = optic.surfaces
    indices = system.indices(wavelength)
    mediums = media(surfaces)
    coatings = [getattr(surface, "coating", None) for surface in surfaces]
    M, first, s_prev, hand, flux, loss = None, None, None, 1, None, None
    last = None  # (s, k_out, is_mirror) of the last interface that acts
    for i in range(1, len(surfaces)):
        surface, coating = surfaces[i], coatings[i]
        k_in, k_out = _directions(at[i - 1]), _directions(at[i])
        n1, n2 = indices[i - 1], indices[i]
        redirects = getattr(surface.geometry, "redirect", None) is not None
        alpha = absorption_of(mediums[i - 1][0], wavelength) if i > 1 else None
        if alpha is not None:
            d = tuple(a - b for a, b in zip(_points(at[i]), _points(at[i - 1])))
            step_loss = be.exp(-0.5 * alpha * be.sqrt(dot(d, d)))
            loss = step_loss if loss is None else loss * step_loss
        if not (surface.is_mirror or redirects or coating is not None) and n2 is n1:
            continue  # the same medium on both sides: the identity
        c = dot(k_in, k_out)
        # Where k_out ∥ k_in any s ⊥ k_in serves: the previous s is one (R is then I).
        s, inv = unit_normal_and_scale(k_in, k_out, s_prev)
        if surface.is_mirror:
            cos_i = be.sqrt(be.clip(0.5 * (1.0 - c), 0.0, 1.0))
            if coating is None:
                a_s = a_p = -1.0
            else:
                a_s, a_p, _, _ = coating.amplitudes(n1, n1, cos_i, wavelength)
                # optics.coatings gives rp in Born & Wolf's basis (rp = -rs at normal
                # incidence); the reflected p here is s x k_out (rp = rs): the same field,
                # the other sign (docs/polarization.md, "Conventions").
                a_p = -a_p
            step = None
        elif redirects:
            a_s = a_p = 1.0
            step = None
        else:
            a_s, a_p, step = _refraction(n1, n2, c, coating, wavelength)
        if s_prev is None:
            first = (s, cross(k_in, s))
            M = ((a_s, None), (None, a_p))
        else:
            # s · (k_in × s') = s' · k_out / |k_in × k_out| (s' ⊥ k_in): no p vector is formed.
            M = _turned(M, hand, dot(s, s_prev), dot(s_prev, k_out) * inv, a_s, a_p)
        s_prev, hand = s, (-1 if surface.is_mirror else 1)
        last = (s, k_out, surface.is_mirror)
        if step is not None:
            flux = step if flux is None else flux * step
    if last is not None:
        # p_out = k_out × s in transmission, s × k_out in reflection (rp = rs at normal
        # incidence).
        s, k_last, mirror = last
        basis = (s, cross(s, k_last) if mirror else cross(k_last, s))
    exit_rays = at[-1]
    valid = exit_rays.valid
    k_in, k_out = _directions(at[0]), _directions(exit_rays)
    ones = be.ones_like(exit_rays.x)
    if last is None:  # no interface: the identity in any basis ⊥ k
        s = unit_normal_to(k_in, k_in)
        first = basis = (s, cross(k_in, s))
        M = ((1.0, None), (None, 1.0))
    zero = 0.0 * ones
    if loss is not None:
        M = tuple(tuple(None if v is None else v * loss for v in row) for row in M)
    M = tuple(
        tuple(be.where(valid, zero if v is None else _shaped(v, ones), zero) for v in row)
        for row in M
    )
    flux = be.where(valid, ones if flux is None else _shaped(flux, ones), zero)
    return PolarizationTrace(
        M,
        first,
        basis,
        k_in,
        k_out,
        flux,
        valid,
        _axes(system.frames[0], 1),
        _axes(system.frames[-1], mediums[-1][1]),
        exit_rays,
    )


def _shaped(value, ones):
    """``value * ones``: a number or a smaller array broadcast to the rays' shape S."""
    if be.is_array(value) and tuple(value.shape) == tuple(ones.shape):
        return value  # already of shape S: the product would copy it
    return value * ones


def _turned(M, hand, cos, sin, a_s, a_p):
    """diag(a_s, a_p) R M: R takes the previous outgoing basis to (s, k × s) about k.

    ``cos`` = s·s' and ``sin`` = s·(k × s'), with s' the previous s.  ``hand`` is +1 when
    the previous basis is (s', p' = k × s'), −1 when (s', p' = s' × k) (after a mirror):
    then s·p' = hand sin, p·s' = −sin and p·p' = hand cos.
    """
    minus = -sin
    R = ((cos, sin), (minus, cos)) if hand > 0 else ((cos, minus), (minus, -cos))
    rows = []
    for r, a in ((0, a_s), (1, a_p)):
        row = []
        for col in range(2):
            v = _mul_add(R[r][0], M[0][col], R[r][1], M[1][col])
            row.append(v if isinstance(a, float) and a == 1.0 else a * v)
        rows.append(tuple(row))
    return tuple(rows)


def _mul_add(x, m0, y, m1):
    """x m0 + y m1 with None standing for a zero entry."""
    if m0 is None:
        return y * m1
    if m1 is None:
        return x * m0
    return x * m0 + y * m1


def _refraction(n1, n2, c, coating, wavelength):
    """(a_s, a_p, flux factor) of a refraction whose directions have k_in · k_out = c."""
    # v = n2 k_out − n1 k_in lies along the normal: cos θi ∝ |k_in·v|, cos θt ∝ |k_out·v|,
    # both over |v|, which every ratio below cancels.
    if coating is None and _well_apart(n1, n2, c):
        # k_in·v = n2 c − n1 and k_out·v = n2 − n1 c have one sign, so that
        # n1 cos θi + n2 cos θt = (n2² − n1²)/|v| and n2 cos θi + n1 cos θt = c (n2² − n1²)/|v|:
        # fresnel_amplitudes' ts, tp in four passes over the rays, the flux in four more.
        along_i = n2 * c - n1
        ts = along_i * (2.0 * n1 / (n2 * n2 - n1 * n1))
        return ts, ts / c, (n2 - n1 * c) / along_i * (n2 / n1)
    along_i = be.abs(n2 * c - n1)
    along_t = be.abs(n2 - n1 * c)
    apart = along_i + along_t > be.machine_eps(along_i) * (n1 + n2)  # else n1 = n2, no turn
    if not none_true(~apart):
        along_i = be.where(apart, along_i, 1.0)
        along_t = be.where(apart, along_t, 1.0)
    q1, q2 = n1 * along_i, n2 * along_t  # n cos θ on either side, times |v|
    flux = q2 / q1
    if coating is None:
        # fresnel_amplitudes' ts, tp for a real cos θt (the ray was not totally reflected)
        twice = 2.0 * q1
        ts = twice / (q1 + q2)
        tp = twice / (n2 * along_i + n1 * along_t)
        return ts, tp, flux
    norm2 = n1 * n1 + n2 * n2 - 2.0 * n1 * n2 * c
    cos_i = be.where(apart, along_i / be.sqrt(be.where(apart, norm2, 1.0)), 1.0)
    _, _, ts, tp = coating.amplitudes(n1, n2, cos_i, wavelength)
    return ts, tp, flux


def _well_apart(n1, n2, like):
    """True when the indices are two real numbers, read without waiting, that differ by more
    than sqrt(eps) (n1 + n2), eps that of ``like``'s dtype: no ray needs the equal-media guard.
    """
    arrays = [v for v in (n1, n2) if be.is_array(v)]
    if any(tuple(v.shape) != () for v in arrays):
        return False  # an index per ray
    if arrays and (be.is_compiling(*arrays) or not accel.host_reads_cheap(*arrays)):
        return False
    values = [be.item(v) if be.is_array(v) else v for v in (n1, n2)]
    if not all(isinstance(v, numbers.Real) for v in values):
        return False  # complex: the general path
    eps = be.machine_eps(like)
    return abs(values[1] - values[0]) > math.sqrt(eps) * (values[0] + values[1])


def _directions(rays):
    return (rays.L, rays.M, rays.N)


def _points(rays):
    return (rays.x, rays.y, rays.z)


def _axes(frame, direction):
    """A frame's global (x, y, z) axes; z reversed when ``direction`` is −1.

    After an odd number of mirrors the exit basis is left-handed (x and y kept, z along
    the beam), so that an ideal mirror's Jones matrix is −I, not a half-wave retarder.
    """
    axes = []
    for local in ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)):
        vector = frame.to_global(0.0, 0.0, 0.0, *local)[3:]
        axes.append(tuple(float(be.to_numpy(be.asarray(v))) for v in vector))
    if direction < 0:
        axes[2] = tuple(-v for v in axes[2])
    return tuple(axes)
