"""Spot diagrams and ray fans at the image surface.

Invalid rays (missed, vignetted, totally reflected, failed solves) are
excluded from every statistic and counted; a statistic is never NaN because
some rays failed (it is NaN only when no ray at all reached the image).  A
chief ray that fails geometrically is no reference: the chief-referenced
radius is then NaN (null in JSON), never a number measured from a made-up
intercept.  A chief ray only blocked by a clear aperture stays the reference
and the result says so (``chief_blocked``).  Positions are in the image
surface's local frame (:func:`in_image_frame`), which is the global x, y
unless coordinate breaks (fold mirrors) or a tilt move the image surface.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import backend as be
from .._notebook import NotebookView
from ..sampling import fan
from ..trace import iter_bundle, trace_bundle
from ..trace.prepared import frames_of, optic_of, takes_system
from ._spot_stream import SpotAccumulator


@dataclass(frozen=True, repr=False)
class SpotResult(NotebookView):
    """Spot statistics of one field point at one wavelength (lengths in mm).

    rms_radius_chief is about the chief ray of the primary wavelength (NaN
    when that chief ray fails geometrically), rms_radius_centroid about the
    centroid of the valid rays; geo_radius is the largest distance from the
    centroid.  chief_blocked: the reference chief ray is stopped by a clear
    aperture (it is still the reference, traced as if the aperture were open).
    """

    field: tuple
    wavelength: float
    rms_radius_chief: object
    rms_radius_centroid: object
    centroid: tuple
    geo_radius: object
    n_rays: int
    n_invalid: int
    chief_blocked: bool = False

    def as_dict(self) -> dict:
        """Plain Python values (for JSON)."""

        def f(v):
            value = float(be.item(v))
            return value if math.isfinite(value) else None

        return {
            "field": [float(v) for v in self.field],
            "wavelength": float(self.wavelength),
            "rms_radius_chief": f(self.rms_radius_chief),
            "rms_radius_centroid": f(self.rms_radius_centroid),
            "centroid": [f(self.centroid[0]), f(self.centroid[1])],
            "geo_radius": f(self.geo_radius),
            "n_rays": self.n_rays,
            "n_invalid": self.n_invalid,
            "chief_blocked": self.chief_blocked,
        }


def in_image_frame(optic, rays):
    """``rays`` (at the image) in the image surface's local frame.

    Folded systems (coordinate breaks, tilts) place the image surface off the
    global z axis; spots are taken in its own x, y.  When the image frame is
    the global one (no rotation, no decenter) the same object is returned, so
    nothing changes for an unfolded system.
    """
    frame = frames_of(optic)[-1]
    if frame.rotation is None and all(
        isinstance(v, (int, float)) and v == 0 for v in (frame.x, frame.y)
    ):
        return rays
    x, y, z, L, M, N = frame.to_local(rays.x, rays.y, rays.z, rays.L, rays.M, rays.N)
    return rays.replace(x=x, y=y, z=z, L=L, M=M, N=N)


MIN_SPOT_RAYS = 2
"""Fewest valid rays a spot size is measured from (one ray has no spread: its RMS is 0)."""


def spot_statistics(rays, reference_x, reference_y, axis=None, *, min_rays=1):
    """RMS radii, centroid and geometric radius of ``rays`` at the image.

    The statistics are 0-d when ``axis`` is None (all rays pooled); with an
    ``axis`` (e.g. -1 for rays shaped (wavelengths, fields, pupil)) they are
    taken along it alone and keep the other axes.  Where fewer than
    ``min_rays`` rays are valid every statistic is NaN (an optimization
    operand passes :data:`MIN_SPOT_RAYS`, so that vignetting all but one ray
    never reads as a perfect spot).

    Parameters
    ----------
    rays : Rays
        Rays at the image, components of any shape S; only valid rays count.
    reference_x, reference_y : float or array broadcastable to shape S
        The reference point (mm), e.g. the chief ray's.
    axis : int, optional
        The axis of S to reduce; None pools every ray.
    min_rays : int
        Fewest valid rays for a finite statistic.

    Returns
    -------
    dict of str to array
        ``rms_radius_chief`` (about the reference point), ``rms_radius_centroid``,
        ``centroid_x``, ``centroid_y`` and ``geo_radius`` (largest distance from
        the centroid), all in mm with gradients kept; each of shape S without
        ``axis`` (0-d when ``axis`` is None).
    """
    keep = axis is not None
    valid = rays.valid
    weight = be.astype(valid, rays.x.dtype)
    count = be.sum(weight, axis=axis, keepdims=keep)
    safe_count = be.maximum(count, 1.0)
    x = be.where(valid, rays.x, 0.0)
    y = be.where(valid, rays.y, 0.0)
    cx = be.sum(x, axis=axis, keepdims=keep) / safe_count
    cy = be.sum(y, axis=axis, keepdims=keep) / safe_count
    d2_ref = weight * ((x - reference_x) ** 2 + (y - reference_y) ** 2)
    d2_cen = weight * ((x - cx) ** 2 + (y - cy) ** 2)
    ms_ref = be.sum(d2_ref, axis=axis, keepdims=keep) / safe_count
    ms_cen = be.sum(d2_cen, axis=axis, keepdims=keep) / safe_count
    none = be.where(count >= max(min_rays, 1), 0.0, float("nan"))  # too few rays: NaN
    stats = {
        "rms_radius_chief": be.sqrt(ms_ref) + none,
        "rms_radius_centroid": be.sqrt(ms_cen) + none,
        "centroid_x": cx + none,
        "centroid_y": cy + none,
        "geo_radius": be.sqrt(be.max(d2_cen, axis=axis, keepdims=keep)) + none,
    }
    if keep:  # drop the reduced axis
        shape = tuple(n for i, n in enumerate(count.shape) if i != axis % count.ndim)
        stats = {name: be.reshape(value, shape) for name, value in stats.items()}
    return stats


@takes_system
def spot_diagram(system, fields=None, wavelengths=None, pupil=None, *, method=None):
    """Spot statistics for every (field, wavelength) pair, from one :func:`trace_bundle`.

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields : list of (hx, hy), optional
        Normalized fields; the optic's fields by default.
    wavelengths : list of float, optional
        Micrometres; the optic's wavelengths by default.
    pupil : int or (px, py), optional
        Hexapolar rings (1 + 3R(R+1) rays; 6 by default) or custom
        normalized pupil samples.
    method : TraceMethod or str, optional
        How the rays are traced (:mod:`optics.trace.methods`).  With
        :class:`~optics.trace.Streamed` the trace goes in pupil slices
        (:func:`~optics.trace.iter_bundle`) and the statistics accumulate
        slice by slice (exactly: running sums and convex-hull candidates), so
        that memory stays bounded however many rays (1e8 rays of the Cooke
        triplet stay under 2 GB); the results are then plain values, without
        gradients.

    Returns
    -------
    SpotDiagram
        A list of :class:`SpotResult`, field-major (``len(fields) * len(wavelengths)``
        entries), with a notebook view of the whole diagram.
    """
    optic = optic_of(system)
    wavelengths = list(optic.wavelengths.values if wavelengths is None else wavelengths)
    n_waves = len(wavelengths)
    if optic.primary_wavelength not in wavelengths:  # the reference is the primary's chief ray
        wavelengths.append(optic.primary_wavelength)
    slices = iter_bundle(system, fields, wavelengths, pupil, method=method)
    bundle = next(slices)
    second = next(slices, None)  # None: the method traced the bundle in one slice
    chief = in_image_frame(optic, bundle.reference_chief)
    if second is None:
        reference = (chief.x[None, :, None], chief.y[None, :, None])
        stats = spot_statistics(in_image_frame(optic, bundle.rays), *reference, axis=-1)
        valid = be.to_numpy(bundle.rays.valid)
        n_rays, n_valid = int(valid.shape[-1]), valid.sum(axis=-1)
    else:
        accumulator = SpotAccumulator(chief.x, chief.y, len(wavelengths))
        accumulator.add(in_image_frame(optic, bundle.rays))
        accumulator.add(in_image_frame(optic, second.rays))
        for bundle in slices:
            accumulator.add(in_image_frame(optic, bundle.rays))
        stats = accumulator.statistics()
        n_rays, n_valid = accumulator.n_rays, accumulator.count.astype(int)
    no_reference = be.where(bundle.reference_valid, 0.0, math.nan)  # (F,)
    blocked = be.to_numpy(bundle.chief_blocked)
    reference = bundle.primary
    results = []
    for f, field in enumerate(bundle.fields):
        for w, wavelength in enumerate(bundle.wavelengths[:n_waves]):
            results.append(
                SpotResult(
                    field=tuple(field),
                    wavelength=wavelength,
                    rms_radius_chief=stats["rms_radius_chief"][w, f] + no_reference[f],
                    rms_radius_centroid=stats["rms_radius_centroid"][w, f],
                    centroid=(stats["centroid_x"][w, f], stats["centroid_y"][w, f]),
                    geo_radius=stats["geo_radius"][w, f],
                    n_rays=n_rays,
                    n_invalid=n_rays - int(n_valid[w, f]),
                    chief_blocked=bool(blocked[reference, f]),
                )
            )
    return SpotDiagram(results)


class SpotDiagram(NotebookView, list):
    """The spot statistics of every (field, wavelength) pair: a list of :class:`SpotResult`.

    A plain list in every other way (indexing, iteration, ``len``, comparison), field-major
    as :func:`spot_diagram` returns it; a notebook shows it as one table (field,
    wavelength, RMS and geometric radii in mm) and a plot of the RMS radius against the
    field for each wavelength.
    """

    __slots__ = ()


@dataclass(frozen=True)
class RayFan:
    """One transverse ray fan along a pupil axis, relative to the chief ray.

    Attributes
    ----------
    pupil : array, shape (n,)
        Normalized pupil coordinate along ``axis``.
    error : array, shape (n,)
        Image-plane error in mm along the same axis (NaN-free; invalid rays are
        flagged in ``valid``; every ray is invalid when the chief ray fails
        geometrically, since there is no reference).
    valid : bool array, shape (n,)
    field : tuple
        Normalized (hx, hy).
    wavelength : float
        µm.
    axis : str
        ``"y"`` (tangential) or ``"x"`` (sagittal).

    Unpacks as ``pupil, error, valid = ray_fan(...)``.
    """

    pupil: object
    error: object
    valid: object
    field: tuple = (0.0, 0.0)
    wavelength: float = 0.0
    axis: str = "y"

    def __iter__(self):
        return iter((self.pupil, self.error, self.valid))


@takes_system
def ray_fan(optic, hx, hy, wavelength=None, n: int = 21, axis: str = "y") -> RayFan:
    """Transverse ray error along a pupil axis, relative to the chief ray.

    Every field and wavelength at once, tangential and sagittal, with OPD
    fans: :func:`optics.analysis.fans`.

    Parameters
    ----------
    optic : Optic or PreparedSystem
    hx, hy : float or 0-d array
        One normalized field point.
    wavelength : float, optional
        µm; the primary wavelength by default.
    n : int
        Pupil points, evenly spaced from −1 to 1.
    axis : {"x", "y"}
        The pupil axis of the fan (y: tangential, x: sagittal); the error is
        taken along the same axis.

    Returns
    -------
    RayFan
        ``pupil``, ``error`` (mm) and ``valid``, each shape (n,).
    """
    px, py = fan(n, axis)
    wavelength = optic.primary_wavelength if wavelength is None else wavelength
    bundle = trace_bundle(optic, [(hx, hy)], [wavelength], (px, py))
    rays, chief = in_image_frame(optic, bundle.rays), in_image_frame(optic, bundle.chief)
    valid = be.logical_and(rays.valid[0, 0], chief.valid[0, 0])
    field = (float(be.item(hx)), float(be.item(hy)))
    if axis == "x":
        return RayFan(px, rays.x[0, 0] - chief.x[0, 0], valid, field, float(wavelength), "x")
    return RayFan(py, rays.y[0, 0] - chief.y[0, 0], valid, field, float(wavelength), "y")
