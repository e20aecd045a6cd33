"""The transmission merit operand: the mean power transmittance of the lens (polarization).

``transmission`` is the mean over the pupil, and the field- and wavelength-weighted mean
over the chosen fields and wavelengths, of the power transmittance of
:func:`optics.polarization.transmission` (Fresnel losses of bare surfaces, coatings,
absorption): unpolarized light by default.  The pupil is the square grid of
:func:`optics.sampling.square_grid` (``samples`` x ``samples``, the points inside the
unit circle), and rays that do not reach the image are left out of the mean (vignetting is
not a loss here: ``optics.analysis.relative_illumination`` counts it).  Every step is
backend arithmetic, so the Torch and JAX gradients in radii, thicknesses, indices and
coating layer thicknesses (``surfaces[1].coating.layers[0].thickness``) are exact.

Registered with :func:`optics.optimize.register_operand` when :mod:`optics.optimize` is
imported; in a lens file: ``{ type = "transmission", target = 1.0, weight = 10.0 }``.
"""

from __future__ import annotations

from .. import backend as be
from ..errors import ConfigurationError
from ..limits import MAX_PUPIL_SAMPLES, check_size
from ..sampling import square_grid_inside
from .operands_user import register_operand

__all__ = ["POLARIZATIONS", "transmission"]

#: The input states the operand takes: Jones vectors in the entrance double-pole basis.
POLARIZATIONS = {"unpolarized": None, "x": (1.0, 0.0), "y": (0.0, 1.0)}


def transmission(
    ctx,
    fields=None,
    wavelengths=None,
    field_weights=None,
    wavelength_weights=None,
    samples=11,
    polarization="unpolarized",
):
    """Weighted mean power transmittance (0 .. 1) over the pupil, fields and wavelengths.

    Parameters
    ----------
    ctx : MeritContext
    fields, wavelengths : sequence of int, optional
        0-based indices into the optic's fields and wavelengths (default all).
    field_weights, wavelength_weights : sequence of float, optional
        One weight per chosen field / wavelength; default the lens's ``weights``.
    samples : int
        Pupil grid size n (n x n points, those inside the unit circle are traced).
    polarization : {"unpolarized", "x", "y"}
        The input state (x, y: the entrance double-pole basis).

    Returns
    -------
    0-d array
        Σ w_f w_λ T̄(f, λ) / Σ w_f w_λ, T̄ the mean over the rays that reach the image;
        differentiable in the optic's parameters.
    """
    if polarization not in POLARIZATIONS:
        raise ConfigurationError(
            f"operand 'transmission': key 'polarization' must be one of "
            f"{', '.join(POLARIZATIONS)}, not {polarization!r}"
        )
    what = "operand 'transmission' key 'samples'"
    samples = check_size(samples, MAX_PUPIL_SAMPLES, what, lowest=2)
    f_index = range(len(ctx.optic.fields.values)) if fields is None else fields
    w_index = range(len(ctx.optic.wavelengths.values)) if wavelengths is None else wavelengths
    points = [ctx.field(i) for i in f_index]
    colours = [ctx.wavelength(i) for i in w_index]
    fw = _weights(field_weights, ctx.optic.fields.weight_values(), f_index, "field_weights")
    ww = _weights(
        wavelength_weights, ctx.optic.wavelengths.weight_values(), w_index, "wavelength_weights"
    )
    from ..polarization import polarization_trace  # imported when the operand runs
    from ..polarization import transmission as transmittance

    px, py = square_grid_inside(samples)
    state = POLARIZATIONS[polarization]
    total, norm = 0.0, 0.0
    for a, point in zip(fw, points):
        for b, wavelength in zip(ww, colours):
            if a * b == 0.0:
                continue
            traced = polarization_trace(ctx.system, point, (px, py), wavelength)
            reached = be.sum(be.where(traced.valid, 1.0, 0.0))
            if float(be.item(be.detach(reached))) == 0.0:
                raise ConfigurationError(
                    f"operand 'transmission': no ray of the field (hx, hy) = "
                    f"({point[0]:g}, {point[1]:g}) at {wavelength} µm reaches the image"
                )
            # transmission() is 0 for rays that do not reach the image
            total = total + a * b * be.sum(transmittance(traced, state)) / reached
            norm += a * b
    return total / norm


def _weights(given, lens_weights, indices, key):
    """The weights of the chosen entries: ``given`` (checked) or the lens's."""
    if given is None:
        return [lens_weights[i] for i in indices]
    values = [float(w) for w in given]
    if len(values) != len(indices) or min(values) < 0 or not sum(values) > 0:
        raise ConfigurationError(
            f"operand 'transmission': key {key!r} needs {len(indices)} non-negative weights, "
            f"not all 0, got {list(given)!r}"
        )
    return values


register_operand("transmission", transmission, replace=True)
