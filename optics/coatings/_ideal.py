"""Ideal coatings: a given reflectance and transmittance, the rest absorbed (Zemax I.xx)."""

from __future__ import annotations

import math
import numbers

from .. import backend as be
from ..errors import OpticsError
from ._response import Response
from .fresnel import as_complex, conj, normal_components

__all__ = ["IdealCoating"]


class IdealCoating(Response):
    """A coating with reflectance R and transmittance T at every angle, wavelength and polarization.

    The amplitudes carry no phase beyond the sign convention of
    :mod:`optics.coatings.fresnel` at normal incidence (rs = −√R, rp = +√R,
    the signs of a perfect mirror); ts = tp = √(T Re(n1 cos θi) / Re(n2 cos θt)),
    real and positive, so that :meth:`power` returns exactly R and T.  Beyond the
    critical angle nothing is transmitted.  1 − R − T is absorbed.  Zemax's
    ``I.xx`` coatings are ``IdealCoating(R=0, T=0.xx)``.

    Parameters
    ----------
    R, T : float or 0-d array
        Intensity reflectance and transmittance, each in [0, 1], R + T <= 1;
        T defaults to 1 − R (nothing absorbed).
    name : str, optional
    """

    def __init__(self, R=0.0, T=None, *, name=None):
        if T is None:
            T = 1.0 - R
        for key, value in (("R", R), ("T", T)):
            if isinstance(value, numbers.Real) and not (math.isfinite(value) and 0 <= value <= 1):
                raise OpticsError(f"ideal coating {key} must be in [0, 1], got {value!r}")
        numbers_given = isinstance(R, numbers.Real) and isinstance(T, numbers.Real)
        if numbers_given and R + T > 1 + 4 * be.machine_eps(1.0):
            raise OpticsError(f"ideal coating R + T must be at most 1, got R={R!r}, T={T!r}")
        self.R, self.T, self.name = R, T, name

    def __repr__(self):
        return f"IdealCoating(R={self.R!r}, T={self.T!r}, name={self.name!r})"

    def amplitudes(self, n1, n2, cos_i, wavelength):
        """(rs, rp, ts, tp) of the ideal coating, complex, the broadcast shape of the inputs."""
        n1, n2, q1, q2, _ = normal_components(n1, n2, cos_i)
        shape = q1 * q2 * as_complex(be.ones_like(be.asarray(wavelength)))
        ones = be.ones_like(be.fft.real(shape))
        r = be.sqrt(ones * self.R) + 0j
        cos_i, cos_t = q1 / n1, q2 / n2
        flux_s = be.fft.real(q2) / be.fft.real(q1)
        flux_p = be.fft.real(n2 * conj(cos_t)) / be.fft.real(n1 * conj(cos_i))
        ts, tp = (self._transmitted(flux, ones) for flux in (flux_s, flux_p))
        return -r, r, ts, tp

    def _transmitted(self, flux, ones):
        """√(T / flux) where the second medium carries power, else 0 (complex)."""
        passes = flux > 0
        ratio = be.where(passes, ones * self.T / be.where(passes, flux, ones), 0.0 * ones)
        return be.sqrt(ratio) + 0j

    def to_spec(self):
        """``{"R": R, "T": T}``."""
        return {"R": float(be.item(self.R)), "T": float(be.item(self.T))}
