"""Jones pupils, transmission, diattenuation and retardance of a :class:`PolarizationTrace`.

The Jones matrix of a ray is its PRT matrix between two local bases: the double-pole
basis (Chipman, Lam & Young, sec. 11.4) of its object-space direction about the
entrance axes and that of its image-space direction about the exit axes.  For a unit
direction k with components (a, b, c) along the axes (X, Y, Z)::

    x̂(k) = (1 − a²/(1 + c)) X − ab/(1 + c) Y − a Z
    ŷ(k) = −ab/(1 + c) X + (1 − b²/(1 + c)) Y − b Z

the rotation of X and Y that takes Z to k about Z × k: smooth over every direction but
−Z, and x̂, ŷ equal X, Y on axis.
"""

from __future__ import annotations

from .. import backend as be
from ..errors import ConfigurationError
from ._vectors import dot

__all__ = [
    "diattenuation",
    "double_pole_basis",
    "exit_field",
    "jones_pupil",
    "retardance",
    "transmission",
]


def double_pole_basis(k, axes):
    """The double-pole basis vectors (x̂, ŷ) of directions ``k`` about ``axes`` (X, Y, Z).

    Parameters
    ----------
    k : tuple of 3 arrays, shape S
        Unit directions (global components).
    axes : tuple of three 3-tuples
        Orthonormal global axes X, Y, Z.

    Returns
    -------
    x_hat, y_hat : tuples of 3 arrays, shape S
    """
    X, Y, Z = axes
    a, b, c = dot(k, X), dot(k, Y), dot(k, Z)
    q = 1.0 / (1.0 + c)
    ab = -a * b * q
    xa, yb = 1.0 - a * a * q, 1.0 - b * b * q
    x_hat = tuple(xa * X[j] + ab * Y[j] - a * Z[j] for j in range(3))
    y_hat = tuple(ab * X[j] + yb * Y[j] - b * Z[j] for j in range(3))
    return x_hat, y_hat


def jones_pupil(trace):
    """The 2x2 Jones matrix of every ray in the double-pole bases (module docstring).

    Parameters
    ----------
    trace : PolarizationTrace
        From :func:`optics.polarization.polarization_trace`; its rays have shape S.

    Returns
    -------
    nested 2x2 tuple of arrays, shape S
        ``J[i][j]``: output component i (x̂, ŷ of the exit direction) of input j (x̂, ŷ of
        the entrance direction); amplitudes, zero for invalid rays.
    """
    x_in, y_in = double_pole_basis(trace.k_in, trace.entrance_axes)
    x_out, y_out = double_pole_basis(trace.k_out, trace.exit_axes)
    (s1, p1), (s2, p2) = trace.basis_in, trace.basis_out
    # J = Bout^T [s2 p2] M [s1 p1]^T Bin (the k k^T term is ⊥ both bases).
    right = ((dot(s1, x_in), dot(s1, y_in)), (dot(p1, x_in), dot(p1, y_in)))
    left = ((dot(x_out, s2), dot(x_out, p2)), (dot(y_out, s2), dot(y_out, p2)))
    return _product(_product(left, trace.local), right)


def _product(A, B):
    """The 2x2 product of nested tuples."""
    return tuple(tuple(A[r][0] * B[0][c] + A[r][1] * B[1][c] for c in range(2)) for r in range(2))


def _abs2(z):
    return be.fft.abs2(z) if _is_complex(z) else z * z


def _is_complex(z):
    return "complex" in str(getattr(z, "dtype", ""))


def transmission(trace, polarization=None):
    """Power transmittance of every ray (0 for invalid rays).

    Parameters
    ----------
    trace : PolarizationTrace
    polarization : (Ex, Ey) or None
        An input Jones vector in the entrance double-pole basis, e.g. (1, 0) for x,
        (1, 1j) for circular; None: unpolarized (the mean over two orthogonal states).

    Returns
    -------
    array, shape S
        ``flux * |J E|² / |E|²``, the power leaving the last surface over the power of
        the ray entering the first (Fresnel losses, absorption).
    """
    if polarization is None:
        # ‖J‖² is the same in every orthonormal pair of bases: that of the factored M.
        M = trace.local
        total = _abs2(M[0][0]) + _abs2(M[0][1]) + _abs2(M[1][0]) + _abs2(M[1][1])
        return trace.flux * (0.5 * total)
    J = jones_pupil(trace)
    ex, ey = complex(polarization[0]), complex(polarization[1])
    norm = abs(ex) ** 2 + abs(ey) ** 2
    if norm == 0:
        raise ConfigurationError("polarization: the Jones vector (0, 0) carries no light")
    out = [J[i][0] * ex + J[i][1] * ey for i in range(2)]
    return trace.flux * ((be.fft.abs2(out[0]) + be.fft.abs2(out[1])) / norm)


def exit_field(trace, polarization):
    """The field each ray leaves the last surface with, in global coordinates.

    Parameters
    ----------
    trace : PolarizationTrace
    polarization : (Ex, Ey)
        The input Jones vector in the entrance double-pole basis (amplitudes, any norm).

    Returns
    -------
    tuple of 3 complex arrays, shape S
        ``P (Ex x̂ + Ey ŷ)``: ⊥ the exit direction; zero for invalid rays.  Its power
        relative to the input is ``trace.flux * |E|² / (|Ex|² + |Ey|²)``.
    """
    ex, ey = complex(polarization[0]), complex(polarization[1])
    x_in, y_in = double_pole_basis(trace.k_in, trace.entrance_axes)
    field = tuple(ex * x + ey * y for x, y in zip(x_in, y_in))
    P = trace.prt
    return tuple(P[r][0] * field[0] + P[r][1] * field[1] + P[r][2] * field[2] for r in range(3))


def _invariants(J):
    """(‖J‖_F², |det J|²): the sum and product of the squared singular values."""
    frob = sum(_abs2(J[i][j]) for i in range(2) for j in range(2))
    det = J[0][0] * J[1][1] - J[0][1] * J[1][0]
    return frob, _abs2(det), det


def diattenuation(trace):
    """Diattenuation (Tmax − Tmin)/(Tmax + Tmin) of every ray's Jones matrix, in [0, 1].

    From the singular values σ of J: σ1² ± σ2² = ‖J‖² and the root of ‖J‖⁴ − 4|det J|².
    Invalid rays give 0.

    Parameters
    ----------
    trace : PolarizationTrace or nested 2x2 tuple of arrays, shape S
        A trace (its :func:`jones_pupil` is used) or Jones matrices themselves.

    Returns
    -------
    array, shape S
        Diattenuation of each ray, dimensionless in [0, 1].
    """
    frob, det2, _ = _invariants(trace_or_jones(trace))
    safe = be.where(frob > 0, frob, 1.0)
    g2 = frob * frob - 4.0 * det2
    split = g2 > be.machine_eps(safe) * safe * safe  # below: equal singular values
    gap = be.where(split, be.sqrt(be.where(split, g2, 1.0)), 0.0)
    return be.where(frob > 0, gap / safe, 0.0)


def retardance(trace):
    """Retardance in radians, [0, π], of the unitary part of every ray's Jones matrix.

    With J = U H (polar decomposition) and J' = J e^{−iφ/2}, det J = |det J| e^{iφ}:
    tan(δ/2) = sqrt(Im(J'₀₀ − J'₁₁)² + |J'₀₁ − conj J'₁₀|²) / |Re(J'₀₀ + J'₁₁)|, which is
    2 arccos(|tr U|/2) without its loss of precision near δ = 0.  In the double-pole
    bases δ includes the geometric rotation of skew rays.  Invalid rays give 0.

    Parameters
    ----------
    trace : PolarizationTrace or nested 2x2 tuple of arrays, shape S
        A trace (its :func:`jones_pupil` is used) or Jones matrices themselves (complex,
        or real).

    Returns
    -------
    array, shape S
        Retardance δ of each ray in radians, in [0, π].
    """
    (A, B), (C, D) = trace_or_jones(trace)
    det = A * D - B * C
    if _is_complex(det):
        mod = be.sqrt(be.fft.abs2(det))
        turn = be.sqrt(_conj(det) / be.where(mod > 0, mod, 1.0) + 0.0j)
        A, B, C, D = A * turn, B * turn, C * turn, D * turn
        im = be.fft.imag(A - D)
        diff = B - _conj(C)
        sin_half = be.sqrt(im * im + be.fft.abs2(diff))
        cos_half = be.abs(be.fft.real(A + D))
    else:
        flipped = det < 0  # e^{−iφ/2} = −i: a real matrix with a negative determinant
        sin_half = be.where(flipped, be.hypot(A - D, B + C), be.abs(B - C))
        cos_half = be.where(flipped, 0.0 * A, be.abs(A + D))
    return 2.0 * be.arctan2(sin_half, cos_half)


def _conj(z):
    return be.fft.real(z) - 1j * be.fft.imag(z)


def trace_or_jones(value):
    """A Jones matrix (nested 2x2) from a PolarizationTrace or itself."""
    return jones_pupil(value) if hasattr(value, "prt") else value
