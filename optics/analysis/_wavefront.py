"""Wavefront statistics: RMS and P-V over a converging pupil quadrature, and Zernike fits.

Conventions (docs/wavefront.md): per field and wavelength the reference sphere
is centred on the chief ray's intercept C with the image surface; its radius
is |C − E|, E the paraxial exit-pupil point on the image-space axis
(``xp_position`` from the image vertex).  Each ray, at its image point P with
direction D, is taken back along −D to the sphere (the intersection on the
incoming side); its path to the sphere is S = OPL(P) − n′t.  The OPD in waves
is W = (S_chief − S_ray) / λ: positive when the ray's path is shorter than the
chief ray's, and W(chief) = 0.

The OPD itself is computed in :mod:`optics.analysis._opd`.  Statistics are
pupil-area means with the Gauss–Legendre pupil rule of
:func:`optics.sampling.gauss_pupil`, so they converge with the sampling
instead of weighting the rim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import backend as be
from .._notebook import NotebookView
from ..sampling import gauss_pupil
from ..trace.prepared import takes_system
from ._opd import sample_wavefront
from ._zernike_fit import FitBasis, ZernikeFit, fit_basis, zernike_fit

__all__ = ["WavefrontResult", "pupil_samples", "wavefront", "wavefront_statistics"]


@dataclass(frozen=True, repr=False)
class WavefrontResult(NotebookView):
    """The OPD of one field at one wavelength over the pupil quadrature, with statistics.

    Attributes
    ----------
    field : tuple
        Normalized field (hx, hy).
    wavelength : float
        Micrometres.
    px, py, weights : arrays, shape (P,)
        Pupil samples (Gauss–Legendre nodes, then a rim ring of weight 0 that
        only P-V sees) and their area weights (sum 1 over the nodes).
    opd : array, shape (P,)
        W in waves (0 where ``valid`` is False).
    valid : bool array, shape (P,)
    rms, rms_piston_removed, rms_to_centroid, pv : 0-d arrays
        RMS to the chief ray (nothing removed), with piston removed, with
        piston and tilt removed, and P-V with piston and tilt removed (waves).
    zernike : ZernikeFit
        Fringe (default) or Noll coefficients in waves.
    """

    field: tuple
    wavelength: float
    px: object
    py: object
    weights: object
    opd: object
    valid: object
    rms: object
    rms_piston_removed: object
    rms_to_centroid: object
    pv: object
    zernike: ZernikeFit

    def as_dict(self) -> dict:
        """Plain Python values (for JSON): the CLI's per-field record without Strehl."""
        key = "zernike_fringe" if self.zernike.ordering == "fringe" else "zernike_noll"
        return {
            "field": [float(v) for v in self.field],
            "wavelength": float(self.wavelength),
            "rms_waves": float(be.item(self.rms)),
            "rms_piston_removed_waves": float(be.item(self.rms_piston_removed)),
            "rms_to_centroid_waves": float(be.item(self.rms_to_centroid)),
            "pv_waves": float(be.item(self.pv)),
            key: self.zernike.as_list(),
        }


def wavefront_statistics(waves, px, py, weights, valid):
    """RMS and P-V figures of a sampled wavefront (pupil-area statistics).

    Parameters
    ----------
    waves : array, shape (..., P)
        OPD in waves.
    px, py : arrays, shape (P,)
        Normalized pupil coordinates of the samples.
    weights : array, shape (P,)
        Area weights of the samples (0 for samples that only P-V should see).
    valid : bool array, shape (..., P)

    Returns
    -------
    dict of arrays shaped (...)
        ``rms`` (to the chief ray), ``rms_piston_removed``, ``rms_to_centroid``
        (piston and tilt removed), ``pv`` (piston and tilt removed, over the
        valid samples including zero-weight ones) and ``mean``; NaN where no
        sample is valid.
    """
    w = be.where(valid, weights, 0.0)
    total = be.maximum(be.sum(w, axis=-1), be.machine_eps(waves))
    mean = be.sum(w * waves, axis=-1) / total
    mean_square = be.sum(w * waves * waves, axis=-1) / total
    variance = be.sum(w * (waves - mean[..., None]) ** 2, axis=-1) / total
    plane = zernike_fit(px, py, waves, w, terms=3, basis=plane_basis(px, py))
    c = plane.coefficients
    residual = waves - c[..., 0:1] - c[..., 1:2] * px - c[..., 2:3] * py
    big = be.max(be.abs(residual), axis=None) + 1.0
    high = be.max(be.where(valid, residual, -big), axis=-1)
    low = be.min(be.where(valid, residual, big), axis=-1)
    # NaN only when no sample is valid (e.g. the field's chief ray failed): no reference.
    none = be.where(be.sum(w, axis=-1) > 0, 0.0, float("nan"))
    return {
        "rms": be.sqrt(mean_square) + none,
        "rms_piston_removed": be.sqrt(variance) + none,
        "rms_to_centroid": plane.residual_rms + none,
        "pv": high - low + none,
        "mean": mean + none,
    }


def pupil_samples(rings=16, arms=None):
    """The wavefront's pupil samples: Gauss–Legendre nodes, then P-V-only samples.

    The nodes carry the area weights; the centre and a rim ring of
    ``4 * arms`` points follow with weight 0, so P-V sees the pupil centre and
    edge where a wavefront's extremes usually sit.

    Parameters
    ----------
    rings : int
        Radial Gauss–Legendre nodes (>= 1).
    arms : int, optional
        Angles per ring; ``4 * rings`` by default (also in the rim's count).

    Returns
    -------
    px, py, weights : arrays, shape (rings * arms + 1 + 4 * arms,)
        Normalized pupil coordinates and area weights: the nodes' sum to 1, the
        centre's and the rim's are 0.
    """
    px, py, weights = gauss_pupil(rings, arms)
    rim = 4 * (4 * rings if arms is None else arms)
    angle = be.linspace(0.0, 2.0 * math.pi, rim + 1)[:rim]
    centre = be.zeros_like(angle[:1])
    return (
        be.concatenate([px, centre, be.cos(angle)]),
        be.concatenate([py, centre, be.sin(angle)]),
        be.concatenate([weights, centre, be.zeros_like(angle)]),
    )


_BASIS_CACHE: dict = {}


def _cached_basis(px, py, key, build):
    """A FitBasis at the (constant) pupil samples, built once per sampling and array type.

    The samples depend on no parameter, so the cached arrays carry no graph.
    Under ``jax.jit`` (abstract samples) nothing is kept: a tracer must not
    outlive the function being traced.
    """
    if be.is_abstract(px):
        return build()
    key = (*key, type(px), str(px.dtype), be.device_of(px))
    basis = _BASIS_CACHE.get(key)
    if basis is None:
        basis = _BASIS_CACHE[key] = build()
    return basis


def plane_basis(px, py):
    """The basis 1, px, py (Fringe Z1..Z3) as a FitBasis."""
    one = be.ones_like(px)
    return FitBasis(be.stack([one, px, py], axis=0), be.stack([one, px, py], axis=-1))


@takes_system
def wavefront(
    optic,
    field,
    wavelength=None,
    *,
    rings=16,
    arms=None,
    terms=37,
    ordering="fringe",
    method=None,
):
    """OPD map, RMS/P-V statistics and Zernike fit of one field.

    Parameters
    ----------
    optic : Optic
    field : (hx, hy)
        Normalized field.
    wavelength : float, optional
        Micrometres; the primary wavelength by default.
    rings, arms : int
        Gauss–Legendre pupil rule (see :func:`optics.sampling.gauss_pupil`).
    terms : int
        Zernike terms to fit (37: the Fringe set).
    ordering : {"fringe", "noll"}
    method : TraceMethod or str, optional
        How the pupil rays are traced (:mod:`optics.trace.methods`);
        :class:`~optics.trace.Streamed` bounds the trace's memory for large
        samplings (the same numbers as one batch).

    Returns
    -------
    WavefrontResult
    """
    from ._checks import check_field, check_sizes, require_focus, wavelength_of

    field = check_field(field)
    wavelength = wavelength_of(optic, wavelength)
    check_sizes(rings=rings)
    require_focus(optic, "the wavefront")
    px, py, weights = pupil_samples(rings, arms)
    waves, valid, _, _ = sample_wavefront(optic, [field], wavelength, px, py, method=method)
    waves, valid = waves[0], valid[0]
    stats = wavefront_statistics(waves, px, py, weights, valid)
    key = (rings, arms, terms, ordering)
    basis = _cached_basis(px, py, key, lambda: fit_basis(terms, px, py, ordering))
    fit = zernike_fit(px, py, waves, be.where(valid, weights, 0.0), terms, ordering, basis)
    return WavefrontResult(
        field=tuple(float(v) for v in field),
        wavelength=wavelength,
        px=px,
        py=py,
        weights=weights,
        opd=waves,
        valid=valid,
        rms=stats["rms"],
        rms_piston_removed=stats["rms_piston_removed"],
        rms_to_centroid=stats["rms_to_centroid"],
        pv=stats["pv"],
        zernike=fit,
    )
