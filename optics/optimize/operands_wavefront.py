"""Merit operands on the wavefront: RMS wavefront error, Strehl ratio and MTF.

Each is a function of the merit context (``ctx.optic``, ``ctx.field(i)``,
``ctx.wavelength(i)``, ``ctx.first_order``, ``ctx.chief``) and its lens-file
keys, returning a 0-d array that keeps gradients: on Torch the OPD, the
Zernike/plane fit, the FFT PSF and the MTF are all differentiable backend
arithmetic (``be.fft``), so the gradients are exact.  Sampling is fixed per
operand (``samples``, ``grid``) rather than chosen from the wavefront, so the
merit is a smooth function of the variables.  ``strehl`` is the true-peak,
polychromatic Strehl ratio of ``optics psf``; ``mtf`` is still the primary
wavelength's (the polychromatic MTF at a defocus is ``through_focus_mtf``).
"""

from __future__ import annotations

from .. import backend as be
from ..analysis._mtf import interpolate_lags, mtf_from_psf
from ..analysis._opd import sample_wavefront
from ..analysis._psf import check_sampling, fast_size, psf_from_opd, sample_pupil
from ..analysis._psf_converged import peak_strehl, spectrum
from ..analysis._pupil_set import pupil_functions, trace_pupils
from ..analysis._wavefront import pupil_samples, wavefront_statistics
from ..errors import ConfigurationError

__all__ = ["WAVEFRONT_OPERANDS", "rms_wavefront", "strehl", "mtf"]

_RMS_KEYS = {
    "centroid": "rms_to_centroid",
    "piston": "rms_piston_removed",
    "chief": "rms",
}
_DIRECTIONS = ("tangential", "sagittal", "mean")


def rms_wavefront(ctx, field=0, wavelength=None, reference="centroid", rings=8):
    """RMS wavefront error in waves of one field (Gauss–Legendre pupil quadrature).

    Parameters
    ----------
    field : int
        Index into the optic's fields.
    wavelength : int, optional
        Index into the optic's wavelengths (default: the primary).
    reference : {"centroid", "piston", "chief"}
        Piston and tilt removed, piston removed, or nothing removed.
    rings : int
        Gauss–Legendre radial nodes (4·rings angles each).
    """
    if reference not in _RMS_KEYS:
        raise ConfigurationError(
            f"rms_wavefront reference must be one of {sorted(_RMS_KEYS)}, not {reference!r}"
        )
    point = _field(ctx, field, "rms_wavefront")
    px, py, weights = pupil_samples(rings)
    waves, valid, _, _ = sample_wavefront(ctx.system, [point], ctx.wavelength(wavelength), px, py)
    stats = wavefront_statistics(waves[0], px, py, weights, valid[0])
    return stats[_RMS_KEYS[reference]]


def _field(ctx, index, operand):
    """Field ``index``; SolveError naming it when its chief ray fails (no reference sphere)."""
    point = ctx.field(index)
    ctx.chief([point], operand)
    return point


def _psf(ctx, field, wavelength, samples, grid, operand):
    point = _field(ctx, field, operand)
    wavelength = ctx.wavelength(wavelength)
    pupil = sample_pupil(ctx.system, [point], wavelength, samples)
    check_sampling(pupil.max_step_waves, point, samples)
    grid = fast_size(2 * samples) if grid is None else int(grid)
    return pupil, psf_from_opd(pupil.waves[0], pupil.amplitude[0], grid)


def strehl(ctx, field=0, wavelength=None, samples=32, grid=None):
    """Strehl ratio of one field: the true peak of the PSF, as ``optics psf`` computes it.

    Polychromatic when the lens has several wavelengths (every wavelength
    aimed at the primary's entrance pupil, the weighted PSFs about the
    primary chief ray, normalized to the unaberrated polychromatic peak), and
    the peak found between pixels (:func:`optics.analysis.psf`), at a fixed
    pupil sampling so that the merit is smooth.  The peak's position is found
    on the host; the value there is backend arithmetic of the pupil, so its
    gradient is exact (at a maximum the position's own derivative adds
    nothing).

    Parameters
    ----------
    field : int
        Index into the optic's fields.
    wavelength : int, optional
        Index into the optic's wavelengths: that wavelength alone (default:
        every wavelength with its weight).
    samples : int
        Pupil samples N across the diameter (fixed: no convergence loop).
    grid : int, optional
        Pixels across the image searched for the peak (as ``psf(grid=)``);
        by default the pixels are a quarter Airy radius.
    """
    point = _field(ctx, field, "strehl")
    chosen = None if wavelength is None else ctx.wavelength(wavelength)
    wavelengths, weights, reference, _ = spectrum(ctx.optic, chosen)
    samples = int(samples)
    traced = trace_pupils(ctx.optic, [point], wavelengths, samples)
    pupil = pupil_functions(traced)
    check_sampling(pupil.max_step_waves, point, samples)
    value, *_ = peak_strehl(traced, pupil, weights, reference, grid)
    return value


def mtf(ctx, frequency, field=0, direction="mean", wavelength=None, samples=32, grid=None):
    """Diffraction MTF of one field at ``frequency`` (cycles/mm on the image surface).

    Parameters
    ----------
    frequency : float
        Cycles/mm.
    direction : {"tangential", "sagittal", "mean"}
        Along the field's y direction, along x, or the mean of the two.
    field, wavelength, samples, grid
        As for :func:`strehl`.
    """
    if direction not in _DIRECTIONS:
        raise ConfigurationError(f"mtf direction must be one of {_DIRECTIONS}, not {direction!r}")
    pupil, image = _psf(ctx, field, wavelength, samples, grid, "mtf")
    along_x, along_y = mtf_from_psf(image)
    frequency = be.asarray([float(frequency)])
    sagittal = interpolate_lags(along_x, frequency / pupil.step_x[0])[0]
    tangential = interpolate_lags(along_y, frequency / pupil.step_y[0])[0]
    if direction == "tangential":
        return tangential
    if direction == "sagittal":
        return sagittal
    return 0.5 * (tangential + sagittal)


#: Operand name -> function, merged into ``optics.optimize.operands.OPERANDS``.
WAVEFRONT_OPERANDS = {"rms_wavefront": rms_wavefront, "strehl": strehl, "mtf": mtf}
