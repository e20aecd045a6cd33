"""Ray-level residuals: an RMS-spot operand as one residual per ray and coordinate.

A scalar ``rms_spot`` operand gives a least-squares driver one residual, so
its Gauss–Newton model has rank one whatever the number of variables.  The
same merit term is a sum of squares over rays: with ρ_fw² the mean squared
distance of the valid rays of field f at wavelength w from their centroid,

    weight · Σ_fw w_fw ρ_fw² / Σ w_fw  =  Σ_i d_i²,
    d_i = √(weight · w_fw / (Σ w_fw · N_fw)) · (x_i − x̄_fw)    (and the same in y)

over the N_fw valid rays (vignetted rays give d_i = 0).  The vector d has a
fixed length, 2 W F P, so its Jacobian has as many rows as ray coordinates:
this is what lets damped least squares (:mod:`optics.optimize.dls`) use the
curvature of the spot itself.  The squared norm of d equals the operand's
contribution exactly, so the drivers that see the merit see no change.

Only ``rms_spot`` operands of kind ``"equal"`` with target 0 (the usual
"make the spot small") expand; every other operand stays one residual.
"""

from __future__ import annotations

from .. import backend as be
from ..analysis.spot import in_image_frame
from ..errors import ConfigurationError
from .operands import _outer_weights


def rms_spot_rays(
    ctx,
    fields=None,
    wavelengths=None,
    field_weights=None,
    wavelength_weights=None,
    rings=6,
    reference="centroid",
):
    """The per-ray deviations d (shape (2 W F P,)) whose squared norm is ``rms_spot``².

    Arguments as :func:`optics.optimize.operands.rms_spot`; the weight of the
    operand is applied by the caller.
    """
    field_ids = range(len(ctx.optic.fields.values)) if fields is None else fields
    wave_ids = range(len(ctx.optic.wavelengths.values)) if wavelengths is None else wavelengths
    points = tuple(ctx.field(i) for i in field_ids)
    waves = tuple(ctx.wavelength(i) for i in wave_ids)
    if field_weights is None:
        field_weights = [ctx.optic.fields.weight_values()[i] for i in field_ids]
    if wavelength_weights is None:
        wavelength_weights = [ctx.optic.wavelengths.weight_values()[i] for i in wave_ids]
    weights = _outer_weights(field_weights, len(points), wavelength_weights, len(waves))
    total = sum(sum(row) for row in weights)
    rays = in_image_frame(ctx.optic, ctx.bundle(points, waves, rings).rays)  # (W, F, P)
    valid = rays.valid
    mask = be.astype(valid, rays.x.dtype)
    count = be.sum(mask, axis=-1, keepdims=True)
    safe = be.maximum(count, 1.0)
    x = be.where(valid, rays.x, 0.0)
    y = be.where(valid, rays.y, 0.0)
    if reference == "chief":
        chief = in_image_frame(ctx.optic, ctx.chief(points, "rms_spot"))
        ref_x, ref_y = chief.x[None, :, None], chief.y[None, :, None]
    elif reference == "centroid":
        ref_x = be.sum(x, axis=-1, keepdims=True) / safe
        ref_y = be.sum(y, axis=-1, keepdims=True) / safe
    else:
        raise ConfigurationError(
            f"rms_spot reference must be 'centroid' or 'chief', not {reference!r}"
        )
    # NaN where a whole (field, wavelength) lost every ray, as the scalar operand does.
    none = be.where(count > 0, 0.0, float("nan"))
    factor = be.sqrt(be.asarray(weights)[..., None] / (total * safe)) + none
    dx = factor * mask * (x - ref_x)
    dy = factor * mask * (y - ref_y)
    return be.concatenate([be.reshape(dx, (-1,)), be.reshape(dy, (-1,))])


#: Operand type -> function giving its deviations as a vector (see the module notes).
RAY_RESIDUALS = {"rms_spot": rms_spot_rays}


def expands(operand) -> bool:
    """True when ``operand`` is given to least-squares drivers ray by ray."""
    return operand.type in RAY_RESIDUALS and operand.kind == "equal" and operand.target == 0
