"""Ray bundles: every (wavelength, field, pupil point) of a system in one batched trace.

:func:`trace_bundle` is the service every analysis stands on (spot diagrams,
ray fans, plots, gradient checks, merit operands, and later wavefronts): one
paraxial computation, one object-space field solve per distinct field point
(shared by every wavelength and pupil ray), and one trace of shape
(wavelengths, fields, pupil points).  The chief ray of every field and
wavelength rides in the same batch twice: once with the clear apertures open
(the reference, as established codes keep it) and once clipped, which tells
whether the reference ray is blocked.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import backend as be
from ..paraxial import ParaxialData, paraxial
from ..rays import Rays
from ..sampling import hexapolar
from .aim import aiming_mode, launch, warn_if_off_centre
from .compiled import propagate_compiled
from .propagate import propagate
from .real_image_height import field_parameters


@dataclass(frozen=True)
class Bundle:
    """Rays at the image surface for every wavelength × field × pupil point.

    Attributes
    ----------
    rays : Rays
        Every component shaped (W, F, P): W wavelengths, F fields, P pupil
        points (global coordinates, mm; ``opd`` is the optical path from the
        launch wavefront or object point).
    chief : Rays
        The chief ray (px = py = 0) of every wavelength and field, shaped
        (W, F), traced as if every clear aperture were open.
    chief_valid : bool array, shape (W, F)
        False where the chief ray failed geometrically (missed a surface,
        total internal reflection, a failed Newton solve): it is no reference.
    chief_blocked : bool array, shape (W, F)
        True where the chief ray traces but a clear aperture stops it.
    fields : tuple of (hx, hy)
        Normalized field points, length F.
    wavelengths : tuple of float
        Micrometres, length W.
    px, py : array, shape (P,)
        Normalized pupil coordinates.
    first_order : ParaxialData
        First-order data at the primary wavelength.
    primary : int or None
        Index of the optic's primary wavelength in ``wavelengths``.
    field_parameters : tuple of array, shape (F,)
        Object-space (qx, qy): slopes for an object at infinity, heights (mm)
        otherwise.
    """

    rays: Rays
    chief: Rays
    chief_valid: Any
    chief_blocked: Any
    fields: tuple
    wavelengths: tuple
    px: Any
    py: Any
    first_order: ParaxialData
    primary: int | None
    field_parameters: tuple

    @property
    def reference_chief(self) -> Rays:
        """The chief rays of the primary wavelength (the spot reference), shaped (F,).

        Falls back to the first wavelength when the primary is not traced.
        """
        index = 0 if self.primary is None else self.primary
        return _reshaped(self.chief, lambda v: v[index])

    @property
    def reference_valid(self):
        """``chief_valid`` of :attr:`reference_chief`, shape (F,)."""
        return self.chief_valid[0 if self.primary is None else self.primary]


def trace_bundle(
    optic,
    fields=None,
    wavelengths=None,
    pupil=None,
    *,
    rings: int = 6,
    compiled: bool = False,
    first_order: ParaxialData | None = None,
    aiming: str | None = None,
) -> Bundle:
    """Trace every wavelength × field × pupil point of ``optic`` in one batch.

    Parameters
    ----------
    optic : Optic
    fields : sequence of (hx, hy), optional
        Normalized field points; ``optic.fields.normalized()`` by default.
    wavelengths : sequence of float, optional
        Micrometres; the optic's wavelengths by default.
    pupil : (px, py), optional
        Normalized pupil samples, arrays of shape (P,); a hexapolar pattern of
        ``rings`` rings (P = 1 + 3 rings (rings + 1), sample 0 the centre) by
        default.
    rings : int
        Hexapolar rings when ``pupil`` is not given.
    compiled : bool
        Trace the pupil rays as one compiled graph (torch backend; see
        :mod:`optics.trace.compiled`); the chief rays trace eagerly.
    first_order : ParaxialData, optional
        ``paraxial(optic)`` when the caller has it already.
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode`` (see :mod:`optics.trace.aim`).

    Returns
    -------
    Bundle

    Warns
    -----
    PupilAimWarning
        Under paraxial aiming, once per call, when a field's chief ray crosses
        the stop more than 1 % of the stop radius from its centre.
    """
    fields = tuple(optic.fields.normalized() if fields is None else fields)
    wavelengths = tuple(optic.wavelengths.values if wavelengths is None else wavelengths)
    px, py = hexapolar(rings) if pupil is None else (be.asarray(pupil[0]), be.asarray(pupil[1]))
    px, py = be.reshape(px, (-1,)), be.reshape(py, (-1,))
    first_order = paraxial(optic) if first_order is None else first_order
    hx = be.asarray([h[0] for h in fields])
    hy = be.asarray([h[1] for h in fields])
    qx, qy = field_parameters(optic, hx, hy, first_order)
    n_pupil = be.size(px)
    zero = be.zeros_like(px[:1])
    paraxial_aim = aiming_mode(optic, aiming) == "paraxial"
    probe = optic.stop_index if paraxial_aim and not optic.fields.object_telecentric else None
    common = dict(first_order=first_order, q=(qx, qy), wavelengths=wavelengths, aiming=aiming)
    if compiled:
        rays, _ = _trace(optic, pupil=(px, py), compiled=True, **common)
        both, _ = _trace(optic, pupil=(zero, zero), **common)
        chief, at_stop = _trace(optic, pupil=(zero, zero), clip=False, probe=probe, **common)
        chief, clipped = _take(chief, 0), _take(both, 0)
        at_stop = None if at_stop is None else _take(at_stop, 0)
    else:
        # Pupil rays, the chief clipped and the chief with apertures open: one batch.
        samples = (be.concatenate([px, zero, zero]), be.concatenate([py, zero, zero]))
        clip = np.ones(n_pupil + 2, dtype=bool)
        clip[-1] = False
        traced, at_stop = _trace(optic, pupil=samples, clip=be.asarray(clip), probe=probe, **common)
        rays = _reshaped(traced, lambda v: v[..., :n_pupil])
        clipped, chief = _take(traced, n_pupil), _take(traced, n_pupil + 1)
        at_stop = None if at_stop is None else _take(at_stop, n_pupil + 1)
    if at_stop is not None:
        warn_if_off_centre(optic, fields, at_stop, first_order)
    primary = optic.wavelengths.primary_value
    return Bundle(
        rays=rays,
        chief=chief,
        chief_valid=chief.valid,
        chief_blocked=be.logical_and(chief.valid, be.logical_not(clipped.valid)),
        fields=fields,
        wavelengths=wavelengths,
        px=px,
        py=py,
        first_order=first_order,
        primary=wavelengths.index(primary) if primary in wavelengths else None,
        field_parameters=(qx, qy),
    )


def _trace(
    optic, first_order, q, pupil, wavelengths, *, clip=True, compiled=False, aiming, probe=None
):
    """Rays at the image for (W, F, P) = (wavelengths, fields, pupil samples).

    Returns the rays and, with ``probe`` a surface index (eager traces only),
    the rays just after that surface (else None).
    """
    n_fields = be.size(q[0])
    qx, qy = (be.reshape(v, (1, n_fields, 1)) for v in q)
    px, py = (be.reshape(v, (1, 1, -1)) for v in pupil)
    wavelength = be.reshape(be.asarray(list(wavelengths)), (-1, 1, 1))
    rays = launch(optic, qx, qy, px, py, wavelength, first_order, aiming=aiming)
    # Every surface type traces flat batches (n,): flatten, trace, restore.
    shape = (len(wavelengths), n_fields, be.size(pupil[0]))
    flat = _reshaped(rays, lambda v: be.reshape(be.broadcast_to(v, shape), (-1,)))
    probed = None
    if compiled:
        traced = propagate_compiled(optic, flat)
    else:
        if clip is not True and clip is not False:
            clip = be.reshape(be.broadcast_to(be.reshape(clip, (1, 1, -1)), shape), (-1,))
        traced = propagate(optic, flat, clip=clip, probe=probe)
        if probe is not None:
            traced, probed = traced
            probed = _reshaped(probed, lambda v: be.reshape(v, shape))
    return _reshaped(traced, lambda v: be.reshape(v, shape)), probed


def _take(rays, index):
    """Pupil sample ``index`` of (W, F, P) rays, shaped (W, F)."""
    return _reshaped(rays, lambda v: v[..., index])


def _reshaped(rays, reshape):
    """Rays with ``reshape`` applied to every component."""
    return Rays(**{f.name: reshape(getattr(rays, f.name)) for f in dataclasses.fields(rays)})
