"""PSF by direct (Huygens) integration at chosen image points: a check of the FFT numbers.

Each ray of a Gauss–Legendre pupil quadrature (:func:`optics.sampling.gauss_pupil`)
is taken back from the image surface to the field's reference sphere
(centre: the chief ray's image point C; radius |C − E|, E the paraxial
exit-pupil point, as for the OPD), where it leaves a secondary wavelet with
the phase of its optical path S from the object.  The amplitude at an image
point X is the quadrature sum

    U(X) = Σ_j w_j exp(i k (S_j + n′ |X − Q_j|)),

Q_j the ray's point on the sphere, w_j its entrance-pupil area weight
(uniform illumination), k = 2π / λ; obliquity and 1/r factors are taken as
constant over the pupil (they change the peak by O(NA⁴)).  The intensity is
|U|² / (Σ w_j)², 1 at the focus of an unaberrated wave, so at the peak it is
the Strehl ratio.  Nothing is linearized: the real ray directions and
positions enter (pupil distortion, large apertures), and X may be any point
— off the image plane too — unlike the FFT PSF's Fraunhofer grid.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import backend as be
from ..sampling import gauss_pupil
from ..trace import trace_bundle
from ..trace.prepared import takes_system
from ._checks import check_field, check_sizes, require_focus, wavelength_of
from ._opd import exit_pupil_z, image_index_of_refraction

__all__ = ["HuygensResult", "huygens_psf"]

_MM_PER_UM = 1e-3
_CHUNK = 1 << 21  # image points × rays per batch


@dataclass(frozen=True)
class HuygensResult:
    """Direct-integration PSF at image points.

    Attributes
    ----------
    x, y : arrays, shape (K,)
        Offsets (mm) of the image points from the chief-ray image point C,
        in the plane z = C_z (plus ``z``).
    z : float
        Offset (mm) of that plane from C along z.
    intensity : array, shape (K,)
        Normalized to the peak of the unaberrated wave (the Strehl ratio at the peak).
    field : tuple
    wavelength : float
    rays : int
        Quadrature rays that reached the image.
    """

    x: object
    y: object
    z: float
    intensity: object
    field: tuple
    wavelength: float
    rays: int


@takes_system
def huygens_psf(optic, field, x, y, wavelength=None, *, z=0.0, rings=32, arms=None):
    """PSF intensity at image points by direct (Huygens) integration over the pupil.

    Parameters
    ----------
    optic : Optic
    field : (hx, hy)
        Normalized field.
    x, y : sequences of float, equal length K
        Image points as offsets (mm) from the chief ray's image point.
    wavelength : float, optional
        Micrometres; the primary wavelength by default.
    z : float
        Offset (mm) of the points' plane from the chief ray's image point along z.
    rings, arms : int
        Gauss–Legendre pupil rule (``arms`` 4 × ``rings`` by default); the
        integral converges once adjacent rays differ by well under a wave.

    Returns
    -------
    HuygensResult
    """
    field = check_field(field)
    wavelength = wavelength_of(optic, wavelength)
    check_sizes(rings=rings)
    require_focus(optic, "the Huygens PSF")
    xs = be.reshape(be.asarray([float(v) for v in x]), (-1,))
    ys = be.reshape(be.asarray([float(v) for v in y]), (-1,))
    if tuple(xs.shape) != tuple(ys.shape):
        from ..errors import ConfigurationError

        raise ConfigurationError(
            f"huygens_psf: x and y must have the same length, not {xs.shape[0]} and {ys.shape[0]}"
        )
    px, py, weights = gauss_pupil(rings, arms)
    bundle = trace_bundle(optic, fields=[field], wavelengths=[wavelength], pupil=(px, py))
    rays = bundle.rays.map(lambda v: v[0, 0])
    chief = bundle.chief.map(lambda v: v[0, 0])
    n_image = image_index_of_refraction(optic, wavelength)
    pupil_z = exit_pupil_z(optic, bundle.first_order)
    # Back along −D from the image point P to the reference sphere (the opd_waves crossing).
    radius2 = chief.x * chief.x + chief.y * chief.y + (chief.z - pupil_z) ** 2
    dx, dy, dz = rays.x - chief.x, rays.y - chief.y, rays.z - chief.z
    b = rays.L * dx + rays.M * dy + rays.N * dz
    disc = b * b - (dx * dx + dy * dy + dz * dz - radius2)
    meets = disc >= 0
    root = be.sqrt(be.where(meets, disc, radius2))
    t = be.where(b - root >= 0, b - root, b + root)
    valid = be.logical_and(be.logical_and(rays.valid, meets), bundle.chief_valid[0, 0])
    qx, qy, qz = rays.x - rays.L * t, rays.y - rays.M * t, rays.z - rays.N * t
    radius = be.sqrt(radius2)
    path = (rays.opd - n_image * t) - (chief.opd - n_image * radius)  # S_j − S_chief
    w = be.where(valid, weights, 0.0)
    path = be.where(valid, path, 0.0)
    k = 2.0 * math.pi / (wavelength * _MM_PER_UM)
    count = int(xs.shape[0])
    per = max(1, _CHUNK // max(1, int(px.shape[0])))
    parts = []
    for start in range(0, count, per):
        ex = chief.x + xs[start : start + per, None] - qx[None, :]
        ey = chief.y + ys[start : start + per, None] - qy[None, :]
        ez = chief.z + float(z) - qz[None, :]
        distance = be.sqrt(ex * ex + ey * ey + ez * ez) - radius
        phase = k * (path[None, :] + n_image * distance)
        amplitude = be.sum(w[None, :] * be.fft.expi(phase), axis=-1)
        parts.append(be.fft.abs2(amplitude))
    total = be.sum(w)
    none = be.where(total > 0, 0.0, math.nan)
    total = be.maximum(total, be.machine_eps(w))
    intensity = be.concatenate(parts) / (total * total) + none
    return HuygensResult(
        x=xs,
        y=ys,
        z=float(z),
        intensity=intensity,
        field=tuple(field),
        wavelength=float(wavelength),
        rays=int(be.to_numpy(be.sum(be.astype(valid, w.dtype)))),
    )
