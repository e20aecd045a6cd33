"""Fresnel amplitude coefficients of a bare interface between two media.

Convention (shared with every coating): s is TE (the field perpendicular to
the plane of incidence); the p basis vectors of the incident and reflected
fields coincide at normal incidence, so there ``rp = rs = (n1 - n2)/(n1 + n2)``.
"""

from __future__ import annotations

from .. import backend as be

__all__ = ["fresnel_amplitudes"]


def fresnel_amplitudes(n1, n2, cos_i):
    """Amplitude reflection and transmission coefficients of an interface.

    Parameters
    ----------
    n1, n2 : array or float
        Indices of the incident and transmitting media (complex for absorbing
        media, imaginary part >= 0); broadcast with ``cos_i``.
    cos_i : array
        Cosine of the angle of incidence, in [0, 1].

    Returns
    -------
    rs, rp, ts, tp : complex arrays, the broadcast shape
        ``rs = (n1 ci - n2 ct)/(n1 ci + n2 ct)``, ``rp = (n1 ct - n2 ci)/(n1 ct + n2 ci)``,
        ``ts = 2 n1 ci/(n1 ci + n2 ct)``, ``tp = 2 n1 ci/(n2 ci + n1 ct)``, where ``ct`` is
        the complex cosine of refraction (imaginary beyond the critical angle: there
        ``|rs| = |rp| = 1``, total internal reflection).
    """
    ci = cos_i * (1.0 + 0.0j)
    n1 = n1 * (1.0 + 0.0j)
    n2 = n2 * (1.0 + 0.0j)
    ratio = n1 / n2
    ct = be.sqrt(1.0 - ratio * ratio * (1.0 - ci * ci))
    # The decaying branch beyond the critical angle: Im(n2 ct) >= 0.
    ct = be.where(be.fft.imag(n2 * ct) < 0, -ct, ct)
    a, b = n1 * ci, n2 * ct
    c, d = n2 * ci, n1 * ct
    rs = (a - b) / (a + b)
    rp = (d - c) / (d + c)
    ts = 2.0 * a / (a + b)
    tp = 2.0 * a / (c + d)
    return rs, rp, ts, tp
