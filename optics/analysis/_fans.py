"""Ray fans and OPD fans: tangential and sagittal, per field and wavelength.

One :func:`~optics.trace.trace_bundle` traces, per field and wavelength, the
tangential fan (px, py) = (0, t) and the sagittal fan (t, 0), t from −1 to 1.
The transverse ray error is taken in the image surface's frame against the
chief ray of the primary wavelength (as Zemax and Optiland plot it, so that
lateral colour shows as an offset of the other wavelengths' curves):
e_y(t) of the tangential fan and e_x(t) of the sagittal fan, in mm.  The OPD
fan is the wavefront error in waves of the same rays against each
wavelength's own chief ray and reference sphere (:func:`bundle_opd`).
Invalid rays are NaN in the arrays (and False in ``valid``): a fan plot
leaves a gap there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..limits import MAX_PUPIL_SAMPLES, check_size
from ..trace import prepare, trace_bundle
from ..trace.prepared import takes_system
from ._opd import bundle_opd
from .spot import in_image_frame

__all__ = ["FanResult", "fans"]


@dataclass(frozen=True)
class FanResult:
    """Tangential and sagittal ray and OPD fans.

    Attributes
    ----------
    pupil : ndarray, shape (P,)
        Normalized pupil coordinate t of both fans (−1 .. 1).
    fields : list of (hx, hy), length F
    wavelengths : list of float, length W
        µm.
    tangential, sagittal : array, shape (W, F, P)
        Transverse ray error (mm): e_y of the (0, t) fan, e_x of the (t, 0) fan,
        against the primary wavelength's chief ray; NaN where invalid.
    opd_tangential, opd_sagittal : array, shape (W, F, P)
        OPD (waves) of the same rays against each wavelength's chief ray; NaN where invalid.
    valid_tangential, valid_sagittal : ndarray of bool, shape (W, F, P)
    """

    pupil: np.ndarray
    fields: list
    wavelengths: list
    tangential: object
    sagittal: object
    opd_tangential: object
    opd_sagittal: object
    valid_tangential: np.ndarray
    valid_sagittal: np.ndarray

    def as_dict(self) -> dict:
        """The ``optics fan --json`` object (mm and waves; null where a ray fails)."""

        def rows(values):
            return np.where(np.isfinite(v := be.to_numpy(values)), v, np.nan).tolist()

        return {
            "pupil": [float(t) for t in self.pupil],
            "fields": [[float(v) for v in f] for f in self.fields],
            "wavelengths": [float(w) for w in self.wavelengths],
            "tangential": rows(self.tangential),
            "sagittal": rows(self.sagittal),
            "opd_tangential": rows(self.opd_tangential),
            "opd_sagittal": rows(self.opd_sagittal),
        }


@takes_system
def fans(system, fields=None, wavelengths=None, n=21, *, method=None) -> FanResult:
    """Tangential and sagittal ray fans and OPD fans.

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields : list of (hx, hy), optional
        Normalized fields (the lens's fields by default).
    wavelengths : list of float, optional
        µm (the lens's wavelengths by default).
    n : int
        Pupil points per fan (odd includes the chief ray).
    method : TraceMethod or str, optional

    Returns
    -------
    FanResult
    """
    n = check_size(n, MAX_PUPIL_SAMPLES, "pupil points per fan", lowest=1)
    system = prepare(system)
    optic = system.optic
    wavelengths = list(optic.wavelengths.values if wavelengths is None else wavelengths)
    count = len(wavelengths)
    if optic.primary_wavelength not in wavelengths:  # the primary chief ray is the reference
        wavelengths.append(optic.primary_wavelength)
    t = np.linspace(-1.0, 1.0, n)
    zero = np.zeros_like(t)
    px = be.asarray(np.concatenate([zero, t]))
    py = be.asarray(np.concatenate([t, zero]))
    bundle = trace_bundle(system, fields, wavelengths, (px, py), method=method)
    rays = in_image_frame(optic, bundle.rays)
    chief = in_image_frame(optic, bundle.reference_chief)
    waves, opd_ok = bundle_opd(optic, bundle)
    ok = be.logical_and(rays.valid, be.reshape(bundle.reference_valid, (1, -1, 1)))
    nan = math.nan
    ey = be.where(ok, rays.y - chief.y[None, :, None], nan)
    ex = be.where(ok, rays.x - chief.x[None, :, None], nan)
    opd = be.where(opd_ok, waves, nan)
    k = int(n)
    host_ok = np.asarray(be.to_numpy(ok), dtype=bool)
    return FanResult(
        t,
        [tuple(f) for f in bundle.fields],
        wavelengths[:count],
        ey[:count, :, :k],
        ex[:count, :, k:],
        opd[:count, :, :k],
        opd[:count, :, k:],
        host_ok[:count, :, :k],
        host_ok[:count, :, k:],
    )
