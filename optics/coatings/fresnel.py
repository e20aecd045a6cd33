"""Fresnel coefficients of a bare interface for real angles and complex indices.

Conventions (docs/coatings.md says them once for the whole package):

- time dependence exp(−iωt), a forward wave exp(+i k z); a complex index is
  ``n + i κ`` with κ ≥ 0 for an absorbing medium (the ``tmm`` package's
  convention; Zemax writes the same medium as ``n − i κ``);
- the s and p amplitudes are those of Born & Wolf (§1.5) and of polarization
  ray tracing (Yun, Crabtree & Chipman 2011)::

      rs = (n1 cos θi − n2 cos θt) / (n1 cos θi + n2 cos θt)
      rp = (n2 cos θi − n1 cos θt) / (n2 cos θi + n1 cos θt)
      ts = 2 n1 cos θi / (n1 cos θi + n2 cos θt)
      tp = 2 n1 cos θi / (n2 cos θi + n1 cos θt)

  with ŝ = k × η̂ / |k × η̂| shared by the incident, reflected and transmitted
  beams and p̂ = k × ŝ for each of them; at normal incidence rp = −rs, which
  is one physical field (the reflected p̂ points the other way);
- n2 cos θt = sqrt(n2² − n1² sin² θi) on the branch with Im ≥ 0 (a wave that
  decays away from the interface), Re ≥ 0 where it is real: beyond the
  critical angle cos θt is imaginary, |rs| = |rp| = 1 and ts, tp carry no power.

Every function broadcasts its arguments (arrays of the configured backend or
Python numbers) and returns complex arrays of the broadcast shape, differentiable
in every real input on Torch and JAX.
"""

from __future__ import annotations

from .. import backend as be

__all__ = ["fresnel_amplitudes", "fresnel_power", "power_from_amplitudes"]


def as_complex(value):
    """``value`` (array or number) as a complex array of the configured precision."""
    if be.is_array(value):
        return value + 0j
    value = complex(value)
    return be.asarray(value.real) + 1j * be.asarray(value.imag)


def conj(z):
    """Complex conjugate of a complex array."""
    return be.fft.real(z) - 1j * be.fft.imag(z)


def normal_wavenumber(n, n1_sin_i_squared):
    """n cos θ = sqrt(n² − (n1 sin θi)²) in a medium of index ``n``, on the decaying branch.

    The principal square root has Re ≥ 0; where its imaginary part is negative
    (a signed zero on the cut, or a gain medium) the other root is taken so that
    Im ≥ 0: the wave decays (or at least does not grow) away from the interface.
    """
    root = be.sqrt(n * n - n1_sin_i_squared)
    return be.where(be.fft.imag(root) < 0, -root, root)


def normal_components(n1, n2, cos_i):
    """(n1, n2, q1, q2, n1² sin² θi): complex indices and q = n cos θ on either side."""
    n1, n2, cos_i = as_complex(n1), as_complex(n2), as_complex(cos_i)
    invariant = n1 * n1 * (1.0 - cos_i * cos_i)  # (n1 sin θi)², Snell's invariant squared
    return n1, n2, n1 * cos_i, normal_wavenumber(n2, invariant), invariant


def fresnel_amplitudes(n1, n2, cos_i):
    """Amplitude coefficients (rs, rp, ts, tp) of the bare interface from medium 1 to 2.

    Parameters
    ----------
    n1, n2 : array or number, broadcastable
        Indices of the incident and the second medium (complex allowed:
        ``n + iκ``, κ ≥ 0 absorbing); any shapes that broadcast with ``cos_i``
        (to the shape S of the result).
    cos_i : array or number, broadcastable
        Cosine of the angle of incidence in medium 1, 0 < cos_i ≤ 1 (complex
        where medium 1 absorbs); a shape that broadcasts with ``n1`` and ``n2``.

    Returns
    -------
    rs, rp, ts, tp : complex arrays, the broadcast shape
        Of shape S; reflected and transmitted field amplitudes per unit incident amplitude,
        sign convention of the module docstring (Born & Wolf; rp = −rs at
        normal incidence).  Beyond the critical angle |rs| = |rp| = 1.
    """
    n1, n2, q1, q2, _ = normal_components(n1, n2, cos_i)
    n1_sq, n2_sq = n1 * n1, n2 * n2
    # The p formulas multiplied through by n1 n2, so that cos θt = q2 / n2 is never formed.
    s_sum = q1 + q2
    p_sum = n2_sq * q1 + n1_sq * q2
    rs = (q1 - q2) / s_sum
    ts = 2.0 * q1 / s_sum
    rp = (n2_sq * q1 - n1_sq * q2) / p_sum
    tp = 2.0 * n1 * n2 * q1 / p_sum
    return rs, rp, ts, tp


def power_from_amplitudes(n1, n2, cos_i, rs, rp, ts, tp):
    """Power coefficients (Rs, Rp, Ts, Tp) of amplitudes between media 1 and 2.

    R = |r|²; T = |t|² times the ratio of the normal components of the
    Poynting vector: Re(n2 cos θt) / Re(n1 cos θi) for s and
    Re(n2 conj(cos θt)) / Re(n1 conj(cos θi)) for p, with cos θt from Snell's law
    (the same as ``tmm``'s T_from_t).

    Parameters
    ----------
    n1, n2, cos_i : array or number, broadcastable
        As for :func:`fresnel_amplitudes`: shapes that broadcast together (to shape S) with the
        amplitudes'.
    rs, rp, ts, tp : complex arrays
        Amplitudes in this package's convention (a bare interface or a coating), of
        shapes that broadcast with ``n1``, ``n2``, ``cos_i`` (to shape S).

    Returns
    -------
    Rs, Rp, Ts, Tp : real arrays, the broadcast shape
        Reflectance and transmittance per polarization, each of shape S.
    """
    n1, n2, q1, q2, _ = normal_components(n1, n2, cos_i)
    cos_i_c = q1 / n1
    cos_t = q2 / n2
    flux_s = be.fft.real(q2) / be.fft.real(q1)
    flux_p = be.fft.real(n2 * conj(cos_t)) / be.fft.real(n1 * conj(cos_i_c))
    return (
        be.fft.abs2(rs),
        be.fft.abs2(rp),
        flux_s * be.fft.abs2(ts),
        flux_p * be.fft.abs2(tp),
    )


def fresnel_power(n1, n2, cos_i):
    """Power coefficients (Rs, Rp, Ts, Tp) of the bare interface from medium 1 to 2.

    Parameters
    ----------
    n1, n2, cos_i : array or number, broadcastable
        As for :func:`fresnel_amplitudes`: any shapes that broadcast together (to shape S).

    Returns
    -------
    Rs, Rp, Ts, Tp : real arrays, the broadcast shape
        Of shape S; reflectance and transmittance per polarization; for lossless media
        Rs + Ts = Rp + Tp = 1, and beyond the critical angle R = 1, T = 0.
    """
    return power_from_amplitudes(n1, n2, cos_i, *fresnel_amplitudes(n1, n2, cos_i))
