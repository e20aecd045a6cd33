"""Pupil functions of several wavelengths and fields on one N × N grid, from one trace.

Every wavelength is traced with the primary wavelength's first-order data,
so its rays are aimed at the primary wavelength's entrance pupil (under the
optic's aiming mode) and share its pupil coordinates.  Per wavelength w and
field f the pupil function is A exp(−i2πW) on the cell centres of an N × N
grid over the normalized pupil (A = 1 on valid rays inside the unit circle),
W the OPD in waves against that wavelength's own chief ray and reference
sphere (:func:`optics.analysis.opd_waves`).

Image-plane scales come from the rays: in the Fraunhofer approximation the
pupil point p contributes exp(−i2π σ · p · Δ) at the image offset Δ from the
chief ray, with σ = n′ ΔD / (2λ) the signed change of the image-space
direction cosines (L along x, M along y) between the pupil edges p = ±1,
in cycles/mm per unit of normalized pupil coordinate.  The chief-ray image
points C_w place each wavelength's PSF relative to the primary's (lateral
colour).

Defocus moves the image plane along z by δ (positive away from the lens, that
is along the light: −z after an odd number of mirrors): each ray goes on by
δ / |N| along its direction (its optical path by n′ δ / |N|)
and the OPD is taken again against the chief ray's new image point, so one
trace serves every focus position.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..rays import Rays
from ..trace import trace_bundle
from ..trace.prepared import optic_of
from ._opd import exit_pupil_z, image_index_of_refraction, opd_waves
from ._psf_core import _max_step, pupil_grid

__all__ = ["PupilFunctions", "PupilRays", "every_other", "pupil_functions", "trace_pupils"]

_MM_PER_UM = 1e-3
_EDGE = ((0.0, 1.0), (0.0, -1.0), (1.0, 0.0), (-1.0, 0.0))


@dataclass(frozen=True)
class PupilRays:
    """The traced rays behind :class:`PupilFunctions` (N² grid rays, then 4 edge rays).

    rays : Rays (W, F, N² + 4) at the image; chief : Rays (W, F) with ``valid``
    the chief rays' usability; inside : bool (N²,); pupil_z : exit-pupil z;
    n_image : (W, 1, 1) image-space index.
    """

    rays: object
    chief: object
    inside: object
    pupil_z: object
    n_image: object
    wavelengths: tuple
    fields: tuple
    samples: int


@dataclass(frozen=True)
class PupilFunctions:
    """Pupil functions of W wavelengths × F fields on the N × N grid.

    Attributes
    ----------
    waves, amplitude : arrays, shape (W, F, N, N)
        OPD in waves (0 outside) and 0/1 amplitude (axis -2: py, axis -1: px).
    axis : array, shape (N,)
        Normalized pupil coordinate of the cell centres along either axis.
    sigma_x, sigma_y : arrays, shape (W, F)
        Signed cycles/mm per unit of normalized pupil coordinate.
    chief_x, chief_y : arrays, shape (W, F)
        Chief-ray image points (mm, global).
    lit : array, shape (W, F)
        Sum of the amplitude (valid samples).
    max_step_waves : float
        Largest OPD step between adjacent valid samples.
    """

    waves: object
    amplitude: object
    axis: object
    sigma_x: object
    sigma_y: object
    chief_x: object
    chief_y: object
    lit: object
    max_step_waves: float
    samples: int
    wavelengths: tuple


def trace_pupils(optic, fields, wavelengths, samples, *, method=None):
    """Trace the N × N pupil grid (and four edge rays) of every wavelength and field.

    Parameters
    ----------
    optic : Optic or PreparedSystem
    fields : sequence of (hx, hy), length F
    wavelengths : sequence of float, length W
        Micrometres.
    samples : int
        N, pupil samples across the diameter.
    method : TraceMethod or str, optional
        How the rays are traced (:mod:`optics.trace.methods`; ``Streamed`` for
        bounded memory, the same numbers).

    Returns
    -------
    PupilRays
    """
    system, optic = optic, optic_of(optic)
    fields = tuple(tuple(float(v) for v in f) for f in fields)
    wavelengths = tuple(float(w) for w in wavelengths)
    px, py, inside = pupil_grid(samples)
    px = be.concatenate([px, be.asarray([p[0] for p in _EDGE])])
    py = be.concatenate([py, be.asarray([p[1] for p in _EDGE])])
    bundle = trace_bundle(system, fields, wavelengths, (px, py), method=method)
    rays = bundle.rays
    chief = bundle.chief.replace(valid=bundle.chief_valid)
    pupil_z = exit_pupil_z(optic, bundle.first_order)
    n_image = be.reshape(
        be.stack([be.asarray(image_index_of_refraction(optic, w)) for w in wavelengths]),
        (-1, 1, 1),
    )
    return PupilRays(rays, chief, inside, pupil_z, n_image, wavelengths, fields, int(samples))


def _stack(parts):
    """Rays of each wavelength stacked on a new leading axis."""
    names = [f.name for f in dataclasses.fields(parts[0])]
    return Rays(**{name: be.stack([getattr(p, name) for p in parts]) for name in names})


def _moved(rays, n_image, defocus):
    """``rays`` carried on to the plane ``defocus`` mm further along their way (along z)."""
    if defocus == 0.0:
        return rays
    along = be.abs(rays.N)
    t = defocus / be.where(along > be.machine_eps(rays.N), along, 1.0)
    return rays.replace(
        x=rays.x + rays.L * t,
        y=rays.y + rays.M * t,
        z=rays.z + rays.N * t,
        opd=rays.opd + n_image * t,
    )


def pupil_functions(traced: PupilRays, defocus=0.0) -> PupilFunctions:
    """The pupil functions of ``traced`` with the image plane moved by ``defocus`` mm."""
    n = traced.samples
    count = n * n
    shape = (len(traced.wavelengths), len(traced.fields), n, n)
    chief = _moved(traced.chief, traced.n_image[..., 0], float(defocus))
    rays = _moved(traced.rays, traced.n_image, float(defocus))
    lead = chief.map(lambda component: component[..., None])
    waves, valid = opd_waves(rays, lead, traced.pupil_z, traced.n_image)
    keep = be.logical_and(valid[..., :count], traced.inside)
    amplitude = be.reshape(be.astype(keep, waves.dtype), shape)
    waves = be.reshape(be.where(keep, waves[..., :count], 0.0), shape)
    wavelength_mm = be.asarray([w * _MM_PER_UM for w in traced.wavelengths])[:, None]
    scale = traced.n_image[..., 0] / (2.0 * wavelength_mm)
    sigma_y = scale * (rays.M[..., count] - rays.M[..., count + 1])
    sigma_x = scale * (rays.L[..., count + 2] - rays.L[..., count + 3])
    axis = be.asarray(-1.0 + (2.0 * np.arange(n) + 1.0) / n)
    return PupilFunctions(
        waves=waves,
        amplitude=amplitude,
        axis=axis,
        sigma_x=sigma_x,
        sigma_y=sigma_y,
        chief_x=chief.x,
        chief_y=chief.y,
        lit=be.sum(amplitude, axis=(-2, -1)),
        max_step_waves=float("nan") if be.is_abstract(waves) else _max_step(waves, amplitude),
        samples=n,
        wavelengths=traced.wavelengths,
    )


def every_other(pf: PupilFunctions) -> PupilFunctions:
    """The N/2 sampling of the same pupil, from ``pf`` without a trace.

    Each coarse cell is a 2 × 2 block of fine cells (for N even: exactly the
    centred N/2 grid's cells): its OPD the mean of the valid ones of the
    four (bilinear interpolation to the centre), its amplitude 1 where its
    centre is inside the unit circle and at least two of the four are valid
    (the centre's ray would be) — the staircase rim an N/2 trace gives, so
    the difference from N measures the N/2 sampling's error.  ``samples``
    is N/2 (the frequency step of a lag is 2|σ| / samples).
    """
    size = 2 * (pf.samples // 2)

    def blocks(a):
        a = a[..., :size, :size]
        return a[..., 0::2, 0::2], a[..., 1::2, 0::2], a[..., 0::2, 1::2], a[..., 1::2, 1::2]

    a00, a10, a01, a11 = blocks(pf.amplitude)
    w00, w10, w01, w11 = blocks(pf.waves)
    fine = be.to_numpy(pf.axis)[:size]
    centres = 0.5 * (fine[0::2] + fine[1::2])
    inside = (np.add.outer(centres**2, centres**2) <= 1.0).astype(float)
    count = a00 + a10 + a01 + a11
    amplitude = be.where(count >= 2, 1.0, 0.0) * be.asarray(inside)
    mean = (a00 * w00 + a10 * w10 + a01 * w01 + a11 * w11) / be.maximum(count, 1.0)
    return dataclasses.replace(
        pf,
        waves=be.where(amplitude > 0, mean, 0.0),
        amplitude=amplitude,
        axis=be.asarray(centres),
        lit=be.sum(amplitude, axis=(-2, -1)),
        max_step_waves=float("nan"),
        samples=pf.samples / 2.0,
    )
