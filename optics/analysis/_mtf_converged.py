"""The MTF as :func:`optics.analysis.mtf` computes it: polychromatic and converged by default.

Per field, the tangential (along the field's y direction) and sagittal MTF
at the asked frequencies (cycles/mm on the image surface): the modulus of the
weighted sum of every wavelength's complex OTF, each wavelength's PSF placed
about the primary wavelength's chief-ray image point, normalized at zero
frequency (see :mod:`optics.analysis._fourier`).  The diffraction limit is the
MTF of the same pupil with the aberrations removed — its obscurations,
vignetting and shape kept, not the clear-circle formula.  The pupil sampling N
doubles until every value changes by less than 0.01
(:mod:`optics.analysis._converge`), from the wavefront-slope estimate but at
most :data:`~optics.analysis._psf_core.MTF_START_SAMPLES` (the MTF needs no
alias-free PSF; no aliasing warning either: the convergence test is the
accuracy statement).
"""

from __future__ import annotations

import math

from .. import backend as be
from ..errors import ConfigurationError
from ._checks import check_field, check_frequencies, check_sizes, require_focus
from ._converge import MTF_TOLERANCE, converge
from ._fourier import diffraction_otf, mtf_axes
from ._mtf_core import MTFResult
from ._psf_converged import shifts, spectrum
from ._psf_core import choose_samples, fast_size, mtf_start
from ._pupil_set import every_other, pupil_functions, trace_pupils

__all__ = ["converged_mtf", "mtf_of_pupils"]


def mtf_of_pupils(pf, weights, reference, frequencies, grid):
    """(tangential, sagittal, diffraction limit, cutoff) of pupil functions ``pf``.

    Shapes (F, K), (F, K), (F, K) and (F,); NaN rows for fully vignetted fields.
    """
    sx, sy = shifts(pf, reference)
    tangential, sagittal = mtf_axes(pf, weights, frequencies, grid, sx, sy)
    limit = diffraction_otf(pf, weights, frequencies, grid)
    dark = be.where(be.sum(pf.lit, axis=0) > 0, 0.0, math.nan)[:, None]
    cutoff = be.abs(pf.sigma_x[reference]) + be.abs(pf.sigma_y[reference])
    return tangential + dark, sagittal + dark, limit + dark, cutoff


def _figures(curves):
    """The tangential and sagittal values of ``mtf_of_pupils`` as one host array."""
    return be.to_numpy(be.detach(be.concatenate([curves[0], curves[1]])))


def converged_mtf(
    optic,
    fields=None,
    frequencies=None,
    wavelength=None,
    *,
    samples=None,
    grid=None,
    polychromatic=None,
    method=None,
):
    """See :func:`optics.analysis.mtf` (this is its implementation)."""
    fields = tuple(
        check_field(f) for f in (optic.fields.normalized() if fields is None else fields)
    )
    check_sizes(samples=samples, grid=grid)
    if grid is not None and samples is not None and grid < samples:
        raise ConfigurationError(
            f"FFT grid ({grid}) must be at least the pupil samples ({samples})"
        )
    frequencies = check_frequencies(frequencies)
    require_focus(optic, "the MTF")
    wavelengths, weights, reference, poly = spectrum(optic, wavelength, polychromatic)
    asked = {"frequencies": None if frequencies is None else be.asarray(frequencies)}

    def evaluate(n):
        traced = trace_pupils(optic, fields, wavelengths, n, method=method)
        pf = pupil_functions(traced)
        if asked["frequencies"] is None:  # ten steps up to the first field's cutoff
            top = float(
                be.item(
                    be.detach(be.abs(pf.sigma_x[reference, 0]) + be.abs(pf.sigma_y[reference, 0]))
                )
            )
            asked["frequencies"] = be.asarray([top * k / 10 for k in range(11)])
        size = fast_size(2 * n) if grid is None else max(int(grid), n)
        curves = mtf_of_pupils(pf, weights, reference, asked["frequencies"], size)
        half = mtf_of_pupils(every_other(pf), weights, reference, asked["frequencies"], size)
        return (pf, size, curves), _figures(curves), _figures(half)

    start, top = 0, None
    if samples is None:
        slope = max(choose_samples(optic, f, w, warn=False) for f in fields for w in wavelengths)
        start, top = mtf_start(slope)
    (pf, size, curves), accuracy = converge(
        evaluate, start, MTF_TOLERANCE, requested=samples, maximum=top, what="MTF"
    )
    tangential, sagittal, limit, cutoff = curves
    return MTFResult(
        fields,
        asked["frequencies"],
        tangential,
        sagittal,
        limit,
        cutoff,
        float(wavelengths[reference]),
        pf.samples,
        size,
        wavelengths=tuple(wavelengths),
        weights=tuple(float(w) for w in weights),
        polychromatic=poly,
        accuracy=float(accuracy),
    )
