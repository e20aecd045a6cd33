"""Relative illumination and vignetting versus field, from real aimed rays.

Relative illumination.  By the conservation of radiance the irradiance at an
image point is the scene radiance times n'² times the projected solid angle
of the image-space ray cone, which is the area the rays' direction cosines
(L, M) cover (the image surface's normal being z).  Per field the corners of
``rings`` × ``angles`` polar pupil cells are traced as real rays (the lens's
aiming mode); a cell's projected solid angle is the area of the quadrilateral
its corners' (L, M) span (half the cross product of its diagonals).  A cell
that a clear aperture cuts counts with the fraction of its corners that pass
(a clipped ray is traced on as if the aperture were open, so the cell's area
is known); this halves the edge error of dropping such cells.  RI(h) is the sum over cells at
field h divided by the sum on axis: the ratio of the illuminance at the image
point to the on-axis one, as Zemax and Optiland define it.  It contains the
cos⁴ law, pupil aberrations and distortion (the image point's area) and
vignetting.

Vignetting.  The fraction of a uniform square grid of pupil points inside
the unit circle whose real rays do not reach the image (clipped by a clear
aperture, or failing); 0 for a lens without clear apertures.

Both use the traced rays' directions in the image surface's local frame.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from ..limits import MAX_PUPIL_SAMPLES, MAX_RINGS, check_size
from ..trace import prepare, trace_rays
from ..trace.prepared import takes_system
from ._checks import require_focus
from ._field_curvature import normalized_fields
from .spot import in_image_frame

__all__ = [
    "IlluminationResult",
    "illumination_ratio",
    "relative_illumination",
    "vignetting_fraction",
]


@dataclass(frozen=True)
class IlluminationResult:
    """Relative illumination and vignetting versus field.

    Attributes
    ----------
    fields : list of float, length F
        Normalized field heights hy (hx = 0).
    wavelengths : list of float, length W
        µm.
    illumination : array, shape (W, F)
        Illuminance at the image point over the on-axis illuminance at the
        same wavelength (1 on axis; differentiable).
    vignetting : ndarray, shape (W, F)
        Fraction (0..1) of the uniformly sampled pupil whose rays are lost.
    field_units : list of float, length F
        The fields in the lens's units (degrees or mm): hy · the largest field.
    field_type : str
        The lens's field type (``"angle"``: degrees; otherwise mm).
    """

    fields: list
    wavelengths: list
    illumination: object
    vignetting: object
    field_units: list
    field_type: str = "angle"

    def as_dict(self) -> dict:
        """The ``optics illumination --json`` object."""
        return {
            "fields": [float(f) for f in self.fields],
            "field_units": [float(f) for f in self.field_units],
            "wavelengths": [float(w) for w in self.wavelengths],
            "relative_illumination": be.to_numpy(self.illumination).tolist(),
            "vignetting": np.asarray(self.vignetting, dtype=float).tolist(),
        }


def _real(values):
    """A backend array of the configured float precision (backend arrays pass through)."""
    if be.is_array(values) and not isinstance(values, np.ndarray):
        return values
    return be.asarray(np.asarray(values, dtype=float), dtype=be.float_dtype())


@takes_system
def illumination_ratio(system, fields, wavelength, rings=8, angles=48, transmission=None):
    """RI of normalized fields (0, h) at one wavelength, relative to the first field.

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields : sequence of float or array, shape (K,)
        Normalized fields along y; the first is the reference (0: on axis).
    wavelength : float
        µm.
    rings, angles : int
        Polar pupil cells (their corners are traced: (rings+1)·(angles+1) rays per field).
    transmission : {None, "unpolarized", "x", "y"}
        None: geometry alone.  Otherwise each corner ray counts with its power
        transmittance for that input state (:func:`optics.polarization.transmission`:
        Fresnel losses, coatings, absorption).

    Returns
    -------
    array, shape (K,)
        Differentiable in the lens and in ``fields``.
    """
    optic = prepare(system).optic
    radius = np.linspace(0.0, 1.0, int(rings) + 1)[:, None]
    angle = np.linspace(0.0, 2.0 * np.pi, int(angles) + 1)[None, :]  # the last = the first
    px = _real((radius * np.cos(angle)).ravel())
    py = _real((radius * np.sin(angle)).ravel())
    h = be.reshape(_real(fields), (-1, 1))
    rays = trace_rays(system, (0.0 * h, h), (px[None, :], py[None, :]), float(wavelength))
    rays = in_image_frame(optic, rays)
    shape = (-1, int(rings) + 1, int(angles) + 1)
    L, M = be.reshape(rays.L, shape), be.reshape(rays.M, shape)
    ok = be.astype(be.reshape(rays.valid, shape), L.dtype)
    if transmission is not None:
        weights = _transmittance(system, h, px, py, float(wavelength), transmission)
        ok = ok * be.reshape(weights, shape)

    def corners(x):
        return x[:, :-1, :-1], x[:, :-1, 1:], x[:, 1:, 1:], x[:, 1:, :-1]

    la, lb, lc, ld = corners(L)
    ma, mb, mc, md = corners(M)
    va, vb, vc, vd = corners(ok)
    cross = (lc - la) * (md - mb) - (ld - lb) * (mc - ma)
    # A cell cut by a clear aperture counts by the fraction of its corners that pass (a
    # clipped ray keeps its unclipped direction); a cell with a failed corner drops out.
    weight = 0.25 * (va + vb + vc + vd)
    finite = be.isfinite(cross)
    area = be.sum(
        be.where(finite, 0.5 * be.abs(be.where(finite, cross, 0.0)) * weight, 0.0), axis=(1, 2)
    )
    return area / area[0]


def _transmittance(system, h, px, py, wavelength, state):
    """Power transmittance of the rays (0, h) x (px, py) for input ``state``, shape (K, P)."""
    # A function-level import: optics.polarization's package imports optics.analysis.
    from ..polarization.jones import transmission
    from ..polarization.trace import polarization_trace

    jones = {"unpolarized": None, "x": (1.0, 0.0), "y": (0.0, 1.0)}[state]
    traced = polarization_trace(system, (0.0 * h, h), (px[None, :], py[None, :]), wavelength)
    return transmission(traced, jones)


def _transmission_state(optic, transmission):
    """The input state relative illumination weights by (None: no transmission)."""
    setting = getattr(optic, "polarization", None)
    if transmission is None:
        transmission = setting is not None and setting.enabled
    if not isinstance(transmission, bool):
        raise ConfigurationError(
            f"relative_illumination: transmission must be True, False or None, not {transmission!r}"
        )
    if not transmission:
        return None
    return "unpolarized" if setting is None else setting.input


@takes_system
def vignetting_fraction(system, fields, wavelength, samples=48):
    """Fraction of the pupil whose rays are lost, per normalized field (0, h).

    The pupil is a ``samples`` × ``samples`` square grid clipped to the unit
    circle (uniform in area).

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields : sequence of float or array, shape (K,)
        Normalized fields along y (hx = 0).
    wavelength : float
        µm.
    samples : int
        Grid points per side of the pupil grid.

    Returns
    -------
    numpy.ndarray, shape (K,)
        Fraction (0 to 1) of the grid points inside the unit circle whose rays
        are vignetted or fail, per field; not differentiable.
    """
    t = np.linspace(-1.0, 1.0, int(samples))
    px, py = np.meshgrid(t, t)
    inside = px * px + py * py <= 1.0
    px, py = _real(px[inside]), _real(py[inside])
    h = be.reshape(_real(fields), (-1, 1))
    rays = trace_rays(system, (0.0 * h, h), (px[None, :], py[None, :]), float(wavelength))
    valid = np.asarray(be.to_numpy(rays.valid), dtype=bool)
    return 1.0 - valid.mean(axis=-1)


@takes_system
def relative_illumination(
    system,
    fields=None,
    wavelengths=None,
    points=11,
    rings=32,
    angles=192,
    samples=100,
    transmission=None,
) -> IlluminationResult:
    """Relative illumination and vignetting of the real aimed rays versus field.

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields : sequence of float, optional
        Normalized field heights hy (hx = 0), default ``points`` from 0 to 1.
    wavelengths : sequence of float, optional
        µm (default: the lens's wavelengths).
    points : int
        Number of fields when ``fields`` is None.
    rings, angles : int
        Polar pupil cells of the illumination (32 × 192: within 1e-4 of the
        converged value without vignetting, ~2e-3 where a clear aperture cuts
        the pupil, whose rim the cells resolve only to their size).
    samples : int
        Pupil grid side of the vignetting fraction (100: ~7850 rays, ~1e-3).
    transmission : bool, optional
        Weight every ray by its polarization ray-tracing power transmittance
        (docs/polarization.md), for the input state of the lens's ``[polarization]``
        table (unpolarized without one); RI stays the ratio to the on-axis value with its
        own transmission.  Default: the table's ``enabled`` (False without one).

    Returns
    -------
    IlluminationResult

    Raises
    ------
    ConfigurationError
        When the system is afocal (:func:`optics.analysis.require_focus`): every image-space
        cone is then a single direction, of no solid angle.
    """
    check_size(rings, MAX_RINGS, "rings", lowest=1)
    check_size(angles, MAX_PUPIL_SAMPLES, "angles", lowest=3)
    check_size(samples, MAX_PUPIL_SAMPLES, "pupil samples", lowest=2)
    system = prepare(system)
    optic = system.optic
    require_focus(system, "relative illumination")
    fields = normalized_fields(points) if fields is None else [float(f) for f in fields]
    wavelengths = list(optic.wavelengths.values) if wavelengths is None else list(wavelengths)
    traced = [0.0, *fields]  # the on-axis reference first
    state = _transmission_state(optic, transmission)
    ratios, lost = [], []
    for wavelength in wavelengths:
        ratios.append(illumination_ratio(system, traced, wavelength, rings, angles, state)[1:])
        lost.append(vignetting_fraction(system, fields, wavelength, samples))
    top = float(optic.fields.max_magnitude)
    return IlluminationResult(
        fields,
        wavelengths,
        be.stack(ratios),
        np.stack(lost),
        [f * top for f in fields],
        optic.fields.type,
    )
