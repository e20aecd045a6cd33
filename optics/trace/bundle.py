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
from .._paraxial import ParaxialData, paraxial
from ..limits import check_wavelength
from ..rays import Rays
from ..sampling import hexapolar, hexapolar_count, hexapolar_range
from .aim import aiming_mode, launch, warn_if_off_centre, with_aiming
from .blocks import in_blocks
from .compiled import propagate_compiled
from .propagate import propagate, shared_lookup
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
    chunk_rays: int | None = None,
    progress: bool | None = None,
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
        Trace the pupil rays as one compiled graph (torch or jax backend; see
        :mod:`optics.trace.compiled`); the chief rays trace eagerly.
    first_order : ParaxialData, optional
        ``paraxial(optic)`` when the caller has it already.
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode`` (see :mod:`optics.trace.aim`).
    chunk_rays : int, optional
        Trace at most about this many rays (wavelengths × fields × pupil
        samples) at a time, pupil slice by pupil slice (see
        :func:`iter_bundle`), and join the slices: the trace's temporaries stay
        within a fixed budget, the returned rays are still every ray.  To keep
        the result bounded too, reduce the slices of :func:`iter_bundle`
        (as ``spot_diagram(..., chunk_rays=N)`` does).
    progress : bool, optional
        With ``chunk_rays``: show a progress bar (tqdm, when installed); by
        default only when stderr is a terminal.

    Returns
    -------
    Bundle

    Warns
    -----
    PupilAimWarning
        Under paraxial aiming, once per call, when a field's chief ray crosses
        the stop more than 1 % of the stop radius from its centre.
    """
    optic = with_aiming(optic, aiming)
    if chunk_rays is not None:
        chunks = iter_bundle(
            optic,
            fields,
            wavelengths,
            pupil,
            rings=rings,
            compiled=compiled,
            first_order=first_order,
            chunk_rays=chunk_rays,
            progress=progress,
        )
        return _joined(list(chunks))
    with be.deferred_reads():  # host-read checks once, after the trace
        return _trace_bundle(optic, fields, wavelengths, pupil, rings, compiled, first_order)


def _trace_bundle(optic, fields, wavelengths, pupil, rings, compiled, first_order):
    fields, wavelengths, common, probe = _prepare(optic, fields, wavelengths, first_order)
    px, py = hexapolar(rings) if pupil is None else (be.asarray(pupil[0]), be.asarray(pupil[1]))
    px, py = be.reshape(px, (-1,)), be.reshape(py, (-1,))
    if compiled:
        rays, _ = _trace(optic, pupil=(px, py), compiled=True, **common)
        chief, clipped, at_stop = _chief_rays(optic, probe, common)
    else:
        # Pupil rays, the chief clipped and the chief with apertures open: one batch.
        n_pupil = be.size(px)
        zero = be.zeros_like(px[:1])
        samples = (be.concatenate([px, zero, zero]), be.concatenate([py, zero, zero]))
        clip = np.ones(n_pupil + 2, dtype=bool)
        clip[-1] = False
        traced, at_stop = _trace(optic, pupil=samples, clip=be.asarray(clip), probe=probe, **common)
        rays = traced.map(lambda v: v[..., :n_pupil])
        clipped, chief = _take(traced, n_pupil), _take(traced, n_pupil + 1)
        at_stop = None if at_stop is None else _take(at_stop, n_pupil + 1)
    shared = _shared_parts(optic, fields, wavelengths, common, chief, clipped, at_stop)
    return Bundle(rays=rays, px=px, py=py, **shared)


def _prepare(optic, fields, wavelengths, first_order):
    """Fields, wavelengths, the trace arguments every batch shares, and the stop probe."""
    fields = tuple(optic.fields.normalized() if fields is None else fields)
    if wavelengths is None:
        wavelengths = tuple(optic.wavelengths.values)
    else:
        wavelengths = tuple(
            check_wavelength(w) if isinstance(w, (int, float)) else w for w in wavelengths
        )
    first_order = paraxial(optic) if first_order is None else first_order
    hx = be.asarray([h[0] for h in fields])
    hy = be.asarray([h[1] for h in fields])
    q = field_parameters(optic, hx, hy, first_order)
    paraxial_aim = aiming_mode(optic) == "paraxial"
    probe = optic.stop_index if paraxial_aim and not optic.fields.object_telecentric else None
    common = dict(first_order=first_order, q=q, wavelengths=wavelengths)
    return fields, wavelengths, common, probe


def _chief_rays(optic, probe, common):
    """The chief rays with apertures open, clipped, and at the stop (or None): one batch."""
    zero = be.asarray(np.zeros(2))
    clip = be.asarray(np.array([True, False]))
    chiefs, at_stop = _trace(optic, pupil=(zero, zero), clip=clip, probe=probe, **common)
    return _take(chiefs, 1), _take(chiefs, 0), None if at_stop is None else _take(at_stop, 1)


def _shared_parts(optic, fields, wavelengths, common, chief, clipped, at_stop):
    """The Bundle fields that do not depend on the pupil samples (warns about the aim)."""
    if at_stop is not None:
        warn_if_off_centre(optic, fields, at_stop, common["first_order"])
    primary = optic.wavelengths.primary_value
    return {
        "chief": chief,
        "chief_valid": chief.valid,
        "chief_blocked": be.logical_and(chief.valid, be.logical_not(clipped.valid)),
        "fields": fields,
        "wavelengths": wavelengths,
        "first_order": common["first_order"],
        "primary": wavelengths.index(primary) if primary in wavelengths else None,
        "field_parameters": common["q"],
    }


def iter_bundle(
    optic,
    fields=None,
    wavelengths=None,
    pupil=None,
    *,
    chunk_rays: int,
    rings: int = 6,
    compiled: bool = False,
    first_order: ParaxialData | None = None,
    aiming: str | None = None,
    progress: bool | None = None,
):
    """:func:`trace_bundle` in consecutive pupil slices of at most ``chunk_rays`` rays.

    Every slice is a :class:`Bundle` whose ``rays`` (W, F, p), ``px`` and
    ``py`` (p,) hold the next p = max(1, chunk_rays // (W F)) pupil samples;
    the chief rays, fields, wavelengths and first-order data are the same
    object in every slice (traced once, before the first).  A default
    hexapolar pupil is generated slice by slice too, so a trace of 1e8 rays
    never holds more than one slice.  Each ray is traced exactly as in one
    batch, so reductions over the slices equal those over the whole bundle.

    Parameters
    ----------
    optic, fields, wavelengths, pupil, rings, compiled, first_order, aiming
        As for :func:`trace_bundle`.
    chunk_rays : int
        Rays per slice (at least W F: one pupil sample per slice).
    progress : bool, optional
        Show a progress bar (tqdm, when installed); by default only when
        stderr is a terminal.

    Yields
    ------
    Bundle
    """
    if chunk_rays < 1:
        raise ValueError(f"chunk_rays must be >= 1, not {chunk_rays}")
    optic = with_aiming(optic, aiming)
    if pupil is None:
        n_pupil = hexapolar_count(rings)

        def samples(start, stop):
            return hexapolar_range(rings, start, stop)
    else:
        px, py = (be.reshape(be.asarray(v), (-1,)) for v in pupil)
        n_pupil = be.size(px)

        def samples(start, stop):
            return px[start:stop], py[start:stop]

    with be.deferred_reads():  # host-read checks once per traced batch
        prepared = _prepare(optic, fields, wavelengths, first_order)
        fields, wavelengths, common, probe = prepared
        # The chief ray clipped and with the apertures open, once for every slice.
        chief, clipped, at_stop = _chief_rays(optic, probe, common)
    shared = _shared_parts(optic, fields, wavelengths, common, chief, clipped, at_stop)
    step = max(1, chunk_rays // (len(fields) * len(wavelengths)))
    bar = _progress_bar(n_pupil * len(fields) * len(wavelengths), progress)
    try:
        for start in range(0, n_pupil, step):
            cx, cy = samples(start, start + step)
            with be.deferred_reads():
                rays, _ = _trace(optic, pupil=(cx, cy), compiled=compiled, **common)
            yield Bundle(rays=rays, px=cx, py=cy, **shared)
            if bar is not None:
                bar.update(be.size(cx) * len(fields) * len(wavelengths))
    finally:
        if bar is not None:
            bar.close()


def _progress_bar(total, enabled):
    """A tqdm bar over ``total`` rays, or None (disabled, or tqdm not installed)."""
    if enabled is False:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    # disable=None: tqdm shows the bar only when its stream is a terminal.
    disable = None if enabled is None else False
    return tqdm(total=total, unit="ray", unit_scale=True, desc="trace", disable=disable)


def _joined(chunks):
    """One Bundle from the pupil slices of :func:`iter_bundle`."""
    first = chunks[0]
    rays = Rays(
        **{
            f.name: be.concatenate([getattr(c.rays, f.name) for c in chunks], axis=-1)
            for f in dataclasses.fields(Rays)
        }
    )
    px = be.concatenate([c.px for c in chunks])
    py = be.concatenate([c.py for c in chunks])
    return dataclasses.replace(first, rays=rays, px=px, py=py)


def _trace(optic, first_order, q, pupil, wavelengths, *, clip=True, compiled=False, probe=None):
    """Rays at the image for (W, F, P) = (wavelengths, fields, pupil samples).

    Returns the rays and, with ``probe`` a surface index (eager traces only),
    the rays just after that surface (else None).
    """
    n_fields = be.size(q[0])
    qx, qy = (be.reshape(v, (1, n_fields, 1)) for v in q)
    px, py = (be.reshape(v, (1, 1, -1)) for v in pupil)
    wavelength = be.reshape(be.asarray(list(wavelengths)), (-1, 1, 1))
    if clip is not True and clip is not False:
        clip = be.reshape(clip, (1, 1, -1))

    lookups = {}

    def run(qx, qy, px, py, part, clip):
        rays = launch(optic, qx, qy, px, py, part, first_order)
        # Every surface type traces flat batches (n,): flatten, trace, restore.
        shape = (len(wavelengths), n_fields, be.size(px))
        flat = rays.map(lambda v: be.reshape(be.broadcast_to(v, shape), (-1,)))
        if compiled:
            return propagate_compiled(optic, flat).map(lambda v: be.reshape(v, shape)), None
        if clip is not True and clip is not False:
            clip = be.reshape(be.broadcast_to(clip, shape), (-1,))
        index = shared_lookup(flat.wavelength, part is wavelength, lookups, shape)
        traced = propagate(optic, flat, clip=clip, probe=probe, index=index)
        traced, probed = traced if probe is not None else (traced, None)
        restore = lambda v: be.reshape(v, shape)  # noqa: E731
        return traced.map(restore), None if probed is None else probed.map(restore)

    if compiled:
        return run(qx, qy, px, py, wavelength, clip)
    # Without a gradient to record, large batches run in cache-sized blocks (optics.trace.blocks).
    return in_blocks(run, (qx, qy, px, py, wavelength, clip))


def _take(rays, index):
    """Pupil sample ``index`` of (W, F, P) rays, shaped (W, F)."""
    return rays.map(lambda v: v[..., index])
