"""Merit operands through focus: ``through_focus_mtf`` (the polychromatic MTF of one field at
a defocus), ``through_focus_spot`` (its RMS spot radius there) and ``spot_best_focus`` (the
least-RMS defocus).

Registered with :func:`optics.optimize.register_operand` when
:mod:`optics.optimize` is imported.  The value is what
:func:`optics.analysis.through_focus_mtf` computes (at ``defocus=0`` the
polychromatic MTF at focus), at a fixed pupil sampling so that the merit is a
smooth function of the variables: the trace, the OPD against each
wavelength's reference sphere, the rays carried on to the shifted image plane,
the FFT autocorrelation and the weighted sum of the complex OTFs are all
backend arithmetic, so Torch and JAX gradients are exact.  The spot operands are
:func:`optics.analysis.through_focus_spot` at fixed rings: the rays carried on
to the moved image plane and the closed-form best focus −ΣwB/ΣwC are backend
arithmetic too.
"""

from __future__ import annotations

from .. import backend as be
from ..analysis._mtf_converged import mtf_of_pupils
from ..analysis._psf_converged import spectrum
from ..analysis._psf_core import check_sampling, fast_size
from ..analysis._pupil_set import pupil_functions, trace_pupils
from ..analysis._through_focus_spot import through_focus_spot as _spot
from ..errors import ConfigurationError
from .operands_user import register_operand

__all__ = ["spot_best_focus", "through_focus_mtf", "through_focus_spot"]

_DIRECTIONS = ("tangential", "sagittal", "mean")


def through_focus_mtf(
    ctx, frequency, defocus=0.0, field=0, direction="mean", wavelength=None, samples=32, grid=None
):
    """MTF of one field at ``frequency`` with the image surface moved by ``defocus``.

    Parameters
    ----------
    frequency : float
        Cycles/mm on the image surface.
    defocus : float
        Image-surface shift along z in mm (positive away from the lens).
    field : int
        Index into the optic's fields.
    direction : {"tangential", "sagittal", "mean"}
    wavelength : int, optional
        Index into the optic's wavelengths: that wavelength alone.  By default
        every wavelength with its weight (polychromatic) when the lens has
        several.
    samples : int
        Pupil samples N across the diameter (fixed: no convergence loop).
    grid : int, optional
        FFT size G (default 2N rounded up to a fast size).
    """
    if direction not in _DIRECTIONS:
        raise ConfigurationError(
            f"through_focus_mtf direction must be one of {_DIRECTIONS}, not {direction!r}"
        )
    point = ctx.field(field)
    ctx.chief([point], "through_focus_mtf")
    chosen = None if wavelength is None else ctx.wavelength(wavelength)
    wavelengths, weights, reference, _ = spectrum(ctx.optic, chosen)
    samples = int(samples)
    traced = trace_pupils(ctx.optic, [point], wavelengths, samples)
    pupil = pupil_functions(traced, float(defocus))
    check_sampling(pupil.max_step_waves, point, samples)
    size = fast_size(2 * samples) if grid is None else int(grid)
    frequencies = be.asarray([float(frequency)])
    tangential, sagittal, _, _ = mtf_of_pupils(pupil, weights, reference, frequencies, size)
    if direction == "tangential":
        return tangential[0, 0]
    if direction == "sagittal":
        return sagittal[0, 0]
    return 0.5 * (tangential[0, 0] + sagittal[0, 0])


def through_focus_spot(
    ctx, defocus=0.0, field=0, wavelength=None, rings=12, reference="centroid", geo=False
):
    """RMS (or GEO) spot radius in mm of one field with the image surface moved by ``defocus``.

    Parameters
    ----------
    defocus : float
        Image-surface shift along its axis in mm (positive away from the lens).
    field : int
        Index into the optic's fields.
    wavelength : int, optional
        Index into the optic's wavelengths: that wavelength alone (default:
        every wavelength with its weight).
    rings : int
        Hexapolar rings (fixed: no convergence loop).
    reference : {"centroid", "chief"}
    geo : bool
        The geometric (largest) radius instead of the RMS radius.
    """
    point = ctx.field(field)
    ctx.chief([point], "through_focus_spot")
    chosen = None if wavelength is None else ctx.wavelength(wavelength)
    result = _spot(
        ctx.system,
        [float(defocus)],
        fields=[point],
        wavelength=chosen,
        rings=int(rings),
        reference=reference,
    )
    return (result.geo if geo else result.rms)[0, 0]


def spot_best_focus(ctx, field=None, wavelength=None, rings=12, reference="centroid"):
    """Defocus in mm of the least RMS spot radius (all fields field-weighted, or one field).

    Exact (the mean square radius is a quadratic in the defocus): the target
    0 asks for the image surface at the best focus.

    Parameters
    ----------
    field : int, optional
        That field's own least-RMS defocus (default: every field with the
        lens's field weights).
    wavelength, rings, reference
        As for :func:`through_focus_spot`.
    """
    chosen = None if wavelength is None else ctx.wavelength(wavelength)
    points = None if field is None else [ctx.field(field)]
    ctx.chief(ctx.optic.fields.normalized() if points is None else points, "spot_best_focus")
    result = _spot(
        ctx.system, [0.0], fields=points, wavelength=chosen, rings=int(rings), reference=reference
    )
    return result.best_focus


register_operand("through_focus_mtf", through_focus_mtf, replace=True)
register_operand("through_focus_spot", through_focus_spot, replace=True)
register_operand("spot_best_focus", spot_best_focus, replace=True)
