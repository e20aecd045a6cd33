"""Vignetting factors of the field points: the pupil each field fills, as OpticStudio defines it.

OpticStudio describes the vignetted pupil of field point *i* by four factors
(its Field Data Editor's VDX, VDY, VCX, VCY): a decenter and a compression of
the normalized pupil coordinates,

    px' = VDX + px (1 − VCX),    py' = VDY + py (1 − VCY),

so that the rays of a full-pupil sample (px, py on the unit disc) fill the
pupil shifted by (VDX, VDY) and scaled by (1 − VCX, 1 − VCY) (OpticStudio's
"Vignetting factors" under "Conventions and Definitions"; Optiland 0.6.3
applies the compression the same way, ``Px * (1 - vx)``, and leaves the
decenter out).  All factors zero is the unvignetted pupil.

:class:`Vignetting` holds the factors of every field point of an Optic
(``optic.fields.vignetting``; None when a file gives none);
:func:`vignetted_pupil` maps pupil coordinates for one field point, through
:mod:`optics.backend`, differentiably in px and py.  A field position that is not
one of the field points takes the factors of the nearest one (as Optiland does).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import backend as be

__all__ = ["Vignetting", "vignetted_pupil", "vignetted_pupil_at", "nearest_field"]


@dataclass(frozen=True)
class Vignetting:
    """Vignetting factors, one value per field point of ``optic.fields``.

    Attributes
    ----------
    decenter_x, decenter_y : tuple of float
        VDX, VDY: the pupil centre in normalized pupil coordinates.
    compress_x, compress_y : tuple of float
        VCX, VCY: the pupil's semi-axes are 1 − VCX and 1 − VCY.
    """

    decenter_x: tuple
    decenter_y: tuple
    compress_x: tuple
    compress_y: tuple

    def __post_init__(self):
        sizes = {len(v) for v in self.columns()}
        if len(sizes) != 1:
            raise ValueError(f"vignetting factors need one value per field, not {sizes}")
        for value in (v for column in self.columns() for v in column):
            if not math.isfinite(value):
                raise ValueError(f"vignetting factors must be finite, not {value!r}")

    def columns(self) -> tuple:
        """(VDX, VDY, VCX, VCY), each a tuple over the field points."""
        return (self.decenter_x, self.decenter_y, self.compress_x, self.compress_y)

    def __len__(self) -> int:
        return len(self.decenter_x)

    def of(self, index: int) -> tuple:
        """(VDX, VDY, VCX, VCY) of field point ``index`` (0-based)."""
        return tuple(column[index] for column in self.columns())

    @property
    def is_zero(self) -> bool:
        """True when every factor is 0 (the unvignetted pupil at every field)."""
        return not any(v for column in self.columns() for v in column)

    @classmethod
    def zero(cls, count: int) -> Vignetting:
        """All factors 0 for ``count`` field points."""
        return cls(*(((0.0,) * count),) * 4)


def vignetted_pupil(vignetting, index, px, py):
    """The pupil coordinates field point ``index`` traces for the unvignetted (px, py).

    Parameters
    ----------
    vignetting : Vignetting or None
        None (or all factors 0) returns (px, py) unchanged.
    index : int
        0-based field point.
    px, py : array_like
        Normalized pupil coordinates, any matching shapes.

    Returns
    -------
    (px', py') : arrays
        ``VDX + px (1 − VCX)``, ``VDY + py (1 − VCY)``, same shape, dtype and backend.
    """
    px, py = be.asarray(px), be.asarray(py)
    if vignetting is None:
        return px, py
    vdx, vdy, vcx, vcy = vignetting.of(index)
    return vdx + px * (1.0 - vcx), vdy + py * (1.0 - vcy)


def nearest_field(fields, hx: float, hy: float) -> int:
    """0-based index of the field point of ``fields`` nearest to normalized (hx, hy)."""
    points = fields.normalized()
    return min(range(len(points)), key=lambda i: math.hypot(points[i][0] - hx, points[i][1] - hy))


def _floating(x):
    """``x``, or ``x`` cast to the configured float dtype when its dtype is not floating."""
    return x if "float" in str(x.dtype) else be.astype(x, be.float_dtype())


def vignetted_pupil_at(fields, hx, hy, px, py):
    """(px', py') for rays at normalized field positions (hx, hy): each its nearest field's factors.

    The one call the tracer needs (``fields`` is ``optic.fields``; without vignetting
    factors px and py come back unchanged).  hx, hy, px, py broadcast together; the
    nearest field point is chosen on the host (it is piecewise constant, so no gradient
    is lost) and the factors become arrays of px's dtype and backend.

    Returns
    -------
    (px', py') : arrays of the broadcast shape
    """
    px, py = be.asarray(px), be.asarray(py)
    vignetting = getattr(fields, "vignetting", None)
    if vignetting is None or vignetting.is_zero:
        return px, py
    px, py = _floating(px), _floating(py)  # integer pupil coordinates would truncate the factors
    points = np.asarray(fields.normalized(), dtype=float)  # (F, 2)
    x = np.asarray(be.to_numpy(be.detach(be.asarray(hx))), dtype=float)
    y = np.asarray(be.to_numpy(be.detach(be.asarray(hy))), dtype=float)
    x, y = np.broadcast_arrays(x, y)
    distance = np.hypot(x[..., None] - points[:, 0], y[..., None] - points[:, 1])
    index = np.argmin(distance, axis=-1)  # ties: the first field point, as nearest_field
    vdx, vdy, vcx, vcy = (
        be.astype(be.asarray(np.asarray(column, dtype=float)[index]), px.dtype)
        for column in vignetting.columns()
    )
    return vdx + px * (1.0 - vcx), vdy + py * (1.0 - vcy)
