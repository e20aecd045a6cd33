"""Ray bundles: every (wavelength, field, pupil point) of a system in one batched trace."""

from __future__ import annotations

import contextlib
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
from .prepared import pinned_to, prepare
from .real_image_height import field_parameters


@dataclass(frozen=True)
class Bundle:
    """Rays at the image surface for every wavelength × field × pupil point (docs/tracing.md).

    Attributes
    ----------
    rays : Rays
        (W, F, P): wavelengths × fields × pupil points; global mm, ``opd`` from the launch.
    chief : Rays
        The chief rays (px = py = 0), (W, F), traced with every clear aperture open.
    chief_valid, chief_blocked : bool array, shape (W, F)
        False where the chief ray failed geometrically; True where a clear aperture stops it.
    fields, wavelengths, px, py : tuple, tuple, array (P,), array (P,)
        Normalized (hx, hy) field points (F), micrometres (W), normalized pupil coordinates.
    first_order, primary : ParaxialData, int or None
        First-order data at the primary wavelength; its index in ``wavelengths``.
    field_parameters : tuple of array, shape (F,)
        Object-space (qx, qy): slopes for an object at infinity, heights (mm) otherwise.
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
        """The chief rays (F,) of the primary wavelength, else the first (the spot reference)."""
        return self.chief.map(lambda v: v[self.primary or 0, ...])

    @property
    def reference_valid(self):
        """``chief_valid`` of :attr:`reference_chief`, shape (F,)."""
        return self.chief_valid[self.primary or 0, ...]


def trace_bundle(system, fields=None, wavelengths=None, pupil=None, *, method=None, aiming=None):
    """Trace every wavelength × field × pupil point of a system in one batch: a :class:`Bundle`.

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields, wavelengths : sequence, optional
        Normalized (hx, hy) field points and wavelengths (µm); by default the optic's.
    pupil : int or (px, py), optional
        Normalized samples (P,), or hexapolar rings (6 by default: P = 1 + 3 rings (rings + 1)).
    method, aiming : optional
        As for :func:`optics.trace_rays`; ``Streamed`` traces pupil slices (:func:`iter_bundle`).

    Warns
    -----
    PupilAimWarning
        Under paraxial aiming, once per call, for chief rays over 1 % of r_stop off the stop centre.

    Returns
    -------
    Bundle
        ``rays`` shaped (W, F, P) at the image surface (global mm), chief rays
        (W, F), the fields, wavelengths and pupil samples px, py (P,), and the
        first-order data; a ``Streamed`` method's slices are joined along P.
    """
    slices = list(iter_bundle(system, fields, wavelengths, pupil, method=method, aiming=aiming))
    if len(slices) == 1:
        return slices[0]
    px, py = (be.concatenate([getattr(c, name) for c in slices]) for name in ("px", "py"))
    return dataclasses.replace(slices[0], rays=joined([c.rays for c in slices]), px=px, py=py)


def iter_bundle(system, fields=None, wavelengths=None, pupil=None, *, method=None, aiming=None):
    """:func:`trace_bundle` (same parameters) as consecutive pupil slices: yields Bundles.

    A ``Streamed`` method yields Bundles of about ``chunk_rays`` rays, ``rays`` (W, F, p) and
    ``px``, ``py`` (p,) the slice's, the rest shared; any other method yields one Bundle.

    Parameters
    ----------
    system : Optic or PreparedSystem
    fields, wavelengths : sequence, optional
        Normalized (hx, hy) field points and wavelengths (µm); by default the optic's.
    pupil : int or (px, py), optional
        Normalized samples (P,), or hexapolar rings (6 by default: P = 1 + 3 rings (rings + 1)).
    method : TraceMethod or str, optional
        How the batch is traced (:mod:`optics.trace.methods`).
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode``.

    Yields
    ------
    Bundle
        Rays shaped (W, F, p) for p consecutive pupil samples (p = P for one
        Bundle), with the chief rays (W, F), fields, wavelengths and
        first-order data shared by every slice.
    """
    method = resolve(method)
    n_pupil, samples = _pupil_samples(pupil)
    system = prepare(system, aiming)
    with accel.deferred_reads(), pinned_to(system):  # host-read checks once per traced batch
        setup = _Setup.of(system, fields, wavelengths)
    per_sample = len(setup.fields) * len(setup.wavelengths)
    step = method.pupil_step(n_pupil, per_sample)
    if step >= n_pupil and method.keeps_surfaces:
        with accel.deferred_reads(), pinned_to(system):
            batch = _one_batch(system, setup, *samples(0, n_pupil), method)
        yield batch
        return
    with accel.deferred_reads(), pinned_to(system):
        chief, clipped, at_stop = _chief_rays(system, setup, method)
    shared = _shared_parts(system, setup, chief, clipped, at_stop)
    inner = method.slice_method()
    bar = method.progress_bar(n_pupil * per_sample)
    with contextlib.nullcontext() if bar is None else contextlib.closing(bar):
        for start in range(0, n_pupil, step):
            px, py = samples(start, start + step)
            with accel.deferred_reads(), pinned_to(system):
                traced = _trace(system, setup, (px, py), inner)
            yield Bundle(rays=traced.rays, px=px, py=py, **shared)
            if bar is not None:
                bar.update(be.size(px) * per_sample)


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
        hx, hy = ([h[i] for h in fields] for i in (0, 1))
        if not all(isinstance(v, (int, float)) for v in hx + hy):
            hx, hy = be.stack([be.asarray(v) for v in hx]), be.stack([be.asarray(v) for v in hy])
        q = tuple(be.asarray(v) for v in field_parameters(system, hx, hy))
        paraxial_aim = system.aiming == "paraxial"
        probe = optic.stop_index if paraxial_aim and not optic.fields.object_telecentric else None
        return cls(fields, wavelengths, q, probe)


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
    clip = be.asarray(np.arange(n_pupil + 2) <= n_pupil)  # the last chief ray unclipped
    traced = _trace(system, setup, samples, method, clip, setup.probe)
    rays = traced.rays.map(lambda v: v[..., :n_pupil])
    shared = _shared_parts(system, setup, *_chiefs(traced, setup.probe, n_pupil))
    return Bundle(rays=rays, px=px, py=py, **shared)


def _chief_rays(system, setup, method):
    """The chief rays with apertures open, clipped, and at the stop (or None): one batch."""
    zero = be.asarray(np.zeros(2))
    clip = be.asarray(np.array([True, False]))
    # A method that cannot keep the stop's rays (compiled) leaves the chief rays to eager.
    method = method.slice_method()
    method = method if method.keeps_surfaces else Eager()
    return _chiefs(_trace(system, setup, (zero, zero), method, clip, setup.probe), setup.probe, 0)


def _chiefs(traced, probe, clipped):
    """(open, clipped, at the stop or None) chief rays; the open one follows sample ``clipped``."""

    def take(rays, index):  # pupil sample ``index`` of (W, F, P) rays, shaped (W, F)
        return rays.map(lambda v: v[..., index])

    at_stop = traced.kept.get(probe)
    at_stop = None if at_stop is None else take(at_stop, clipped + 1)
    return take(traced.rays, clipped + 1), take(traced.rays, clipped), at_stop


def _shared_parts(system, setup, chief, clipped, at_stop):
    """The Bundle fields that do not depend on the pupil samples (warns about the aim)."""
    optic = system.optic
    if at_stop is not None:
        warn_if_off_centre(optic, setup.fields, at_stop, system.first_order)
    primary = optic.wavelengths.primary_value
    return {
        "chief": chief,
        "chief_valid": chief.valid,
        "chief_blocked": be.logical_and(chief.valid, be.logical_not(clipped.valid)),
        "fields": setup.fields,
        "wavelengths": setup.wavelengths,
        "first_order": system.first_order,
        "primary": setup.wavelengths.index(primary) if primary in setup.wavelengths else None,
        "field_parameters": setup.q,
    }


def _trace(system, setup, pupil, method, clip=True, probe=None):
    """Rays (W, F, P) at the image, traced by ``method``; ``kept`` the rays after ``probe``."""
    n_fields = len(setup.fields)
    qx, qy = (be.reshape(v, (1, n_fields, 1)) for v in setup.q)
    px, py = (be.reshape(v, (1, 1, -1)) for v in pupil)
    shape = (len(setup.wavelengths), n_fields, be.size(px))
    if system.optic.fields.vignetting is not None:  # each field's pupil: (1, F, P)
        hx, hy = (be.stack([be.asarray(h[i]) for h in setup.fields]) for i in (0, 1))
        hx, hy = be.reshape(hx, (1, -1, 1)), be.reshape(hy, (1, -1, 1))
        px, py = vignetted_pupil_at(system.optic.fields, hx, hy, px, py)
    wavelength = system.wavelength_column(setup.wavelengths)
    if clip is not True and clip is not False:
        clip = be.reshape(clip, (1, 1, -1))
    keep = () if probe is None else (probe,)
    traced = method.trace(system, RayBatch(qx, qy, px, py, wavelength, clip, keep))

    def full(v):
        return be.broadcast_to(v, shape) if be.is_array(v) and v.ndim == 3 else v

    return Traced(traced.rays.map(full), {k: r.map(full) for k, r in traced.kept.items()})
