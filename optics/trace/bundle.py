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

from .. import accel
from .. import backend as be
from .._paraxial import ParaxialData
from ..fields_vignetting import vignetted_pupil_at
from ..limits import check_wavelength
from ..rays import Rays
from ..sampling import hexapolar_count, hexapolar_range
from .aim import warn_if_off_centre
from .loop import Traced
from .methods import Eager, RayBatch, resolve
from .methods.streamed import joined
from .prepared import prepare
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
        return self.chief.map(lambda v: v[index, ...])

    @property
    def reference_valid(self):
        """``chief_valid`` of :attr:`reference_chief`, shape (F,)."""
        return self.chief_valid[0 if self.primary is None else self.primary, ...]


def trace_bundle(system, fields=None, wavelengths=None, pupil=None, *, method=None, aiming=None):
    """Trace every wavelength × field × pupil point of a system in one batch.

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields : sequence of (hx, hy), optional
        Normalized field points; ``optic.fields.normalized()`` by default.
    wavelengths : sequence of float, optional
        Micrometres; the optic's wavelengths by default.
    pupil : int or (px, py), optional
        Normalized pupil samples, arrays of shape (P,); or the number of rings
        of a hexapolar pattern (P = 1 + 3 rings (rings + 1), sample 0 the
        centre); 6 rings by default.
    method : TraceMethod or str, optional
        How the rays are traced (:mod:`optics.trace.methods`).  A
        :class:`~optics.trace.methods.Streamed` method traces pupil slice by
        pupil slice (see :func:`iter_bundle`) and joins the slices: the
        trace's temporaries stay within its budget, the returned rays are
        still every ray (reduce :func:`iter_bundle`'s slices to keep the
        result bounded too, as ``spot_diagram(..., method=Streamed(N))`` does).
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
    slices = list(iter_bundle(system, fields, wavelengths, pupil, method=method, aiming=aiming))
    return slices[0] if len(slices) == 1 else _joined(slices)


def iter_bundle(system, fields=None, wavelengths=None, pupil=None, *, method=None, aiming=None):
    """:func:`trace_bundle` in consecutive pupil slices, as the method says.

    A :class:`~optics.trace.methods.Streamed` method yields slices of at most
    about ``chunk_rays`` rays: every slice is a :class:`Bundle` whose ``rays``
    (W, F, p), ``px`` and ``py`` (p,) hold the next p = max(1, chunk_rays //
    (W F)) pupil samples; the chief rays, fields, wavelengths and first-order
    data are the same objects in every slice (traced once, before the first).
    A default hexapolar pupil is generated slice by slice too.  Every other
    method yields the whole bundle as one slice.  Each ray is traced exactly
    as in one batch, so reductions over the slices equal those over the whole.

    Parameters as :func:`trace_bundle`.

    Yields
    ------
    Bundle
    """
    method = resolve(method)
    n_pupil, samples = _pupil_samples(pupil)
    with accel.deferred_reads():  # host-read checks once per traced batch
        system = prepare(system, aiming)
        setup = _Setup.of(system, fields, wavelengths)
    step = method.pupil_step(n_pupil, setup.rays_per_sample)
    if step >= n_pupil and method.keeps_surfaces:
        with accel.deferred_reads():
            yield _one_batch(system, setup, *samples(0, n_pupil), method)
        return
    with accel.deferred_reads():
        # The chief ray clipped and with the apertures open, once for every slice.
        chief, clipped, at_stop = _chief_rays(system, setup, method)
    shared = _shared_parts(system, setup, chief, clipped, at_stop)
    inner = method.slice_method()
    bar = method.progress_bar(n_pupil * setup.rays_per_sample)
    try:
        for start in range(0, n_pupil, step):
            px, py = samples(start, start + step)
            with accel.deferred_reads():
                traced = _trace(system, setup, (px, py), inner)
            yield Bundle(rays=traced.rays, px=px, py=py, **shared)
            if bar is not None:
                bar.update(be.size(px) * setup.rays_per_sample)
    finally:
        if bar is not None:
            bar.close()


@dataclass(frozen=True)
class _Setup:
    """What every batch of one bundle shares: fields, wavelengths, q, the stop probe."""

    fields: tuple
    wavelengths: tuple
    q: tuple
    probe: Any

    @classmethod
    def of(cls, system, fields, wavelengths):
        optic = system.optic
        fields = tuple(optic.fields.normalized() if fields is None else fields)
        if wavelengths is None:
            wavelengths = tuple(optic.wavelengths.values)
        else:
            wavelengths = tuple(
                check_wavelength(w) if isinstance(w, (int, float)) else w for w in wavelengths
            )
        hx = [h[0] for h in fields]
        hy = [h[1] for h in fields]
        plain = all(isinstance(v, (int, float)) for v in hx + hy)
        if not plain:
            hx, hy = be.stack([be.asarray(v) for v in hx]), be.stack([be.asarray(v) for v in hy])
        q = tuple(be.asarray(v) for v in field_parameters(system, hx, hy))
        paraxial_aim = system.aiming == "paraxial"
        probe = optic.stop_index if paraxial_aim and not optic.fields.object_telecentric else None
        return cls(fields, wavelengths, q, probe)

    @property
    def rays_per_sample(self) -> int:
        return len(self.fields) * len(self.wavelengths)


def _pupil_samples(pupil):
    """The pupil sample count and ``samples(start, stop)`` -> (px, py) of that range."""
    if pupil is None or isinstance(pupil, int):
        rings = 6 if pupil is None else pupil
        if isinstance(rings, bool) or rings < 0:
            raise ValueError(f"pupil rings must be an integer >= 0, not {pupil!r}")
        return hexapolar_count(rings), lambda start, stop: hexapolar_range(rings, start, stop)
    px, py = (be.reshape(be.asarray(v), (-1,)) for v in pupil)
    return be.size(px), lambda start, stop: (px[start:stop], py[start:stop])


def _one_batch(system, setup, px, py, method):
    """Pupil rays, the chief clipped and the chief with apertures open: one batch."""
    n_pupil = be.size(px)
    zero = be.zeros_like(px[:1])
    samples = (be.concatenate([px, zero, zero]), be.concatenate([py, zero, zero]))
    clip = np.ones(n_pupil + 2, dtype=bool)
    clip[-1] = False
    traced = _trace(system, setup, samples, method, be.asarray(clip), setup.probe)
    rays = traced.rays.map(lambda v: v[..., :n_pupil])
    clipped, chief = _take(traced.rays, n_pupil), _take(traced.rays, n_pupil + 1)
    at_stop = traced.kept.get(setup.probe)
    at_stop = None if at_stop is None else _take(at_stop, n_pupil + 1)
    shared = _shared_parts(system, setup, chief, clipped, at_stop)
    return Bundle(rays=rays, px=px, py=py, **shared)


def _chief_rays(system, setup, method):
    """The chief rays with apertures open, clipped, and at the stop (or None): one batch."""
    zero = be.asarray(np.zeros(2))
    clip = be.asarray(np.array([True, False]))
    # A method that cannot keep the stop's rays (compiled) leaves the chief rays to eager.
    method = method.slice_method()
    method = method if method.keeps_surfaces else Eager()
    traced = _trace(system, setup, (zero, zero), method, clip, setup.probe)
    at_stop = traced.kept.get(setup.probe)
    chief, clipped = _take(traced.rays, 1), _take(traced.rays, 0)
    return chief, clipped, None if at_stop is None else _take(at_stop, 1)


def _shared_parts(system, setup, chief, clipped, at_stop):
    """The Bundle fields that do not depend on the pupil samples (warns about the aim)."""
    optic = system.optic
    if at_stop is not None:
        warn_if_off_centre(optic, setup.fields, at_stop, system.first_order)
    primary = optic.wavelengths.primary_value
    wavelengths = setup.wavelengths
    return {
        "chief": chief,
        "chief_valid": chief.valid,
        "chief_blocked": be.logical_and(chief.valid, be.logical_not(clipped.valid)),
        "fields": setup.fields,
        "wavelengths": wavelengths,
        "first_order": system.first_order,
        "primary": wavelengths.index(primary) if primary in wavelengths else None,
        "field_parameters": setup.q,
    }


def _joined(chunks):
    """One Bundle from the pupil slices of :func:`iter_bundle`."""
    first = chunks[0]
    rays = joined([c.rays for c in chunks])
    px = be.concatenate([c.px for c in chunks])
    py = be.concatenate([c.py for c in chunks])
    return dataclasses.replace(first, rays=rays, px=px, py=py)


def _trace(system, setup, pupil, method, clip=True, probe=None):
    """Rays at the image for (W, F, P) = (wavelengths, fields, pupil samples), traced by method.

    With ``probe`` a surface index, ``kept`` holds the rays just after it.
    """
    n_fields = len(setup.fields)
    qx, qy = (be.reshape(v, (1, n_fields, 1)) for v in setup.q)
    px, py = (be.reshape(v, (1, 1, -1)) for v in pupil)
    shape = (len(setup.wavelengths), n_fields, be.size(px))
    if system.optic.fields.vignetting is not None:  # each field's pupil: (1, F, P)
        hx, hy = (
            be.reshape(be.stack([be.asarray(h[i]) for h in setup.fields]), (1, -1, 1))
            for i in (0, 1)
        )
        px, py = vignetted_pupil_at(system.optic.fields, hx, hy, px, py)
    wavelength = be.reshape(be.asarray(list(setup.wavelengths)), (-1, 1, 1))
    if clip is not True and clip is not False:
        clip = be.reshape(clip, (1, 1, -1))
    keep = () if probe is None else (probe,)
    traced = method.trace(system, RayBatch(qx, qy, px, py, wavelength, clip, keep))
    full = lambda v: be.broadcast_to(v, shape) if be.is_array(v) and v.ndim == 3 else v  # noqa: E731
    return Traced(traced.rays.map(full), {k: r.map(full) for k, r in traced.kept.items()})


def _take(rays, index):
    """Pupil sample ``index`` of (W, F, P) rays, shaped (W, F)."""
    return rays.map(lambda v: v[..., index])
