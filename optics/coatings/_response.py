"""What every coating derives from its amplitudes: power coefficients per polarization."""

from __future__ import annotations

from ..errors import OpticsError
from .fresnel import power_from_amplitudes

__all__ = ["POLARIZATIONS", "Response"]

POLARIZATIONS = ("s", "p", "unpolarized")


class Response:
    """Base of the coatings: ``power``, ``reflectance`` and ``transmittance`` from ``amplitudes``.

    A subclass supplies ``amplitudes(n1, n2, cos_i, wavelength) -> (rs, rp, ts, tp)``
    in the convention of :mod:`optics.coatings.fresnel`; that one method is the
    protocol the polarization, ghost and transmission analyses call.
    """

    def amplitudes(self, n1, n2, cos_i, wavelength):  # pragma: no cover - the protocol
        raise NotImplementedError

    def power(self, n1, n2, cos_i, wavelength):
        """(Rs, Rp, Ts, Tp), real arrays of the broadcast shape (see :meth:`amplitudes`)."""
        return power_from_amplitudes(n1, n2, cos_i, *self.amplitudes(n1, n2, cos_i, wavelength))

    def reflectance(self, n1, n2, cos_i, wavelength, polarization="unpolarized"):
        """Reflectance for ``polarization`` "s", "p" or "unpolarized" (the mean of the two).

        Parameters
        ----------
        n1, n2, cos_i, wavelength : array or number, broadcastable
            Incident and substrate indices, cosine of incidence in medium 1,
            vacuum wavelength in µm.
        polarization : str

        Returns
        -------
        real array, the broadcast shape
        """
        rs, rp, _, _ = self.power(n1, n2, cos_i, wavelength)
        return _pick(rs, rp, polarization)

    def transmittance(self, n1, n2, cos_i, wavelength, polarization="unpolarized"):
        """Transmittance for ``polarization`` "s", "p" or "unpolarized" (as :meth:`reflectance`)."""
        _, _, ts, tp = self.power(n1, n2, cos_i, wavelength)
        return _pick(ts, tp, polarization)


def _pick(s, p, polarization):
    if polarization == "s":
        return s
    if polarization == "p":
        return p
    if polarization == "unpolarized":
        return 0.5 * (s + p)
    raise OpticsError(
        f"polarization must be one of {', '.join(POLARIZATIONS)}, not {polarization!r}"
    )
