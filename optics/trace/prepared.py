"""The prepared system: what every trace of one optic shares, computed once (docs/tracing.md)."""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import functools
import numbers
from functools import cached_property

import numpy as np

from .. import accel
from .. import backend as be
from .._paraxial import paraxial
from ..errors import ConfigurationError
from ..frames import surface_frames
from ..rays import Rays
from ..system import AIMING_MODES
from . import loop as _loop
from .loop import media_indices, surface_loop


class PreparedSystem:
    """An optic ready to trace: frames, media indices, first-order data, aim and fields.

    ``aiming`` ("paraxial" or "real") overrides the optic's mode; ``optic`` is the optic as traced.
    """

    def __init__(self, optic, aiming=None):
        self.optic = with_aiming(optic, aiming)
        self._indices = {}
        self._fields = {}
        self._columns = {}

    def __repr__(self):
        return f"PreparedSystem({len(self.surfaces)} surfaces, aiming={self.aiming!r})"

    @property
    def surfaces(self):
        """The optic's surfaces, object (0) to image."""
        return self.optic.surfaces

    @property
    def aiming(self) -> str:
        """The aiming mode that applies ("paraxial" or "real")."""
        return aiming_mode(self.optic)

    # The frames, indices and first-order data are built with derivatives on (house rule
    # 6): a system is shared by the whole call it is pinned to, and the first part of that
    # call to ask may run inside be.no_grad() (a graph-free Newton loop) while a later part
    # differentiates; the solved fields are kept per gradient mode instead.

    @cached_property
    def frames(self) -> tuple:
        """The surfaces' frames (:func:`optics.frames.surface_frames`)."""
        with be.enable_grad():
            return tuple(surface_frames(self.surfaces))

    @cached_property
    def first_order(self):
        """First-order data at the primary wavelength (:class:`optics.paraxial.ParaxialData`)."""
        with be.enable_grad():
            return paraxial(self.optic)

    def indices(self, wavelength) -> tuple:
        """:func:`~optics.trace.loop.media_indices` at ``wavelength`` (µm), once per value."""
        # Keyed by the number, or by an array's identity (the cache keeps the array alive).
        key = float(wavelength) if isinstance(wavelength, numbers.Real) else id(wavelength)
        if key not in self._indices:
            with be.enable_grad():
                self._indices[key] = (wavelength, media_indices(self.surfaces, wavelength))
        return self._indices[key][1]

    def wavelength_column(self, values):
        """``values`` (µm) as one (W, 1, 1) array; numbers give the same array every time.

        Media indices are kept per array (:meth:`indices`), so the batches of one bundle
        share theirs through it.
        """
        values = tuple(values)
        if not all(isinstance(v, numbers.Real) for v in values):
            return be.reshape(be.asarray(list(values)), (-1, 1, 1))
        key = tuple(map(float, values))
        if key not in self._columns:
            self._columns[key] = be.reshape(be.asarray(list(values)), (-1, 1, 1))
        return self._columns[key]

    def cached_fields(self, hx, hy, solve):
        """``solve(optic, hx, hy, first_order)``, kept per value for fields given as numbers."""
        # Kept per gradient mode: under be.no_grad() the solve is graph-free (no implicit
        # correction), and a later differentiating part of the call must not get that one.
        key = (_plain(hx), _plain(hy), be.grad_active())
        if None in key:
            return solve(self.optic, hx, hy, self.first_order)
        if key not in self._fields:
            self._fields[key] = solve(self.optic, hx, hy, self.first_order)
        return self._fields[key]

    def loop(self, rays: Rays, wavelength=None, **options):
        """:func:`~optics.trace.loop.surface_loop`, indices at ``wavelength`` or the rays'."""
        indices = self.indices(rays.wavelength if wavelength is None else wavelength)
        return surface_loop(self.surfaces, self.frames, indices, rays, **options)


_PINNED = contextvars.ContextVar("optics_pinned_system", default=None)


def prepare(system, aiming=None) -> PreparedSystem:
    """``system`` (Optic or PreparedSystem) as a PreparedSystem; itself if ``aiming`` agrees.

    An Optic that the running call has pinned (:func:`takes_system`, :func:`pinned_to`)
    gives the pinned system: everything one analysis traces shares one set of frames,
    indices and first-order data.

    Parameters
    ----------
    system : Optic or PreparedSystem
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode``; None keeps it.

    Returns
    -------
    PreparedSystem
        ``system`` itself when it is prepared and ``aiming`` agrees, else the
        pinned or a new system (built lazily: frames, media indices and
        first-order data are computed on first use).
    """
    if isinstance(system, PreparedSystem):
        if aiming is None or with_aiming(system.optic, aiming) is system.optic:
            return system
        return PreparedSystem(system.optic, aiming)
    held = pinned(system)
    if held is not None and (aiming is None or with_aiming(system, aiming) is system):
        return held
    return PreparedSystem(system, aiming)


def trace_to_surface(optic, rays: Rays, index):
    """:func:`optics.trace.loop.trace_to_surface`, on the pinned system's frames when the
    running call pinned one for ``optic`` (an aim's residuals then rebuild none)."""
    held = pinned(optic)
    if held is None:
        return _loop.trace_to_surface(optic, rays, index)
    # The indices of surfaces 0..index only, and not kept: an aim's rays carry per-ray
    # wavelength arrays, a new one per residual (the frames are what repeats).
    return _loop.trace_to_surface(optic, rays, index, frames=held.frames)


def frames_of(optic) -> tuple:
    """The frames of ``optic``'s surfaces: the pinned system's when there is one, else built."""
    held = pinned(optic)
    return held.frames if held is not None else tuple(surface_frames(optic.surfaces))


def pinned(optic):
    """The PreparedSystem the running call pinned for ``optic`` (the same object), or None."""
    system = _PINNED.get()
    return system if system is not None and system.optic is optic else None


@contextlib.contextmanager
def pinned_to(system):
    """Within the block, :func:`prepare` of ``system``'s optic gives ``system`` (prepared first).

    For a call that evaluates many things of one optic (a merit function, an image
    simulation); the optic must not change inside the block.
    """
    system = prepare(system)
    token = _PINNED.set(system)
    try:
        yield system
    finally:
        _PINNED.reset(token)


def takes_system(function):
    """Let ``function(optic, ...)`` take an Optic or a PreparedSystem, prepared once per call.

    The decorated function receives the Optic; the system prepared from its argument
    (or the argument itself) is pinned for the call, so every trace inside it shares that
    system's frames, media indices, first-order data and solved fields.
    """

    @functools.wraps(function)
    def call(system, *args, **kwargs):
        with pinned_to(system) as prepared:
            return function(prepared.optic, *args, **kwargs)

    return call


def optic_of(system):
    """The Optic of an Optic or a PreparedSystem."""
    return system.optic if isinstance(system, PreparedSystem) else system


def propagate(system, rays: Rays, *, clip=True) -> Rays:
    """``rays`` (global, object space, any shape) at the image; ``clip`` as in surface_loop.

    Parameters
    ----------
    system : Optic or PreparedSystem
    rays : Rays
        Rays in global coordinates in object space (e.g. from
        :func:`launch_rays`), components of any shapes that broadcast to S.
    clip : bool or bool array broadcastable to shape S
        Whether clear apertures vignette the rays (per ray for an array).

    Returns
    -------
    Rays
        The rays at the image surface in global coordinates, each component of
        shape S; failed and vignetted rays have ``valid`` False.
    """
    system = prepare(system)
    arrays = [be.asarray(getattr(rays, f.name)) for f in dataclasses.fields(Rays)]
    shape = tuple(np.broadcast_shapes(*(tuple(a.shape) for a in arrays)))
    flat = len(shape) != 1
    if flat:
        rays = rays.map(lambda v: be.reshape(be.broadcast_to(v, shape), (-1,)))
        if clip is not True and clip is not False:
            clip = be.reshape(be.broadcast_to(clip, shape), (-1,))
    with be.quiet_float_errors(), accel.deferred_reads():
        traced = system.loop(rays, clip=clip).rays
    return traced.map(lambda v: be.reshape(v, shape)) if flat else traced


def aiming_mode(optic) -> str:
    """The optic's ``[aiming] mode``; "paraxial" for object-space telecentric systems."""
    return "paraxial" if optic.fields.object_telecentric else optic.aiming


def with_aiming(optic, aiming=None):
    """``optic`` aimed in mode ``aiming``: itself, or a shallow copy sharing its surfaces."""
    if aiming is None or aiming == optic.aiming:
        return optic
    if aiming not in AIMING_MODES:
        raise ConfigurationError(f"aiming must be one of {AIMING_MODES}, not {aiming!r}")
    if optic.fields.object_telecentric:
        return optic
    return dataclasses.replace(optic, aiming=aiming)


def _plain(value):
    """A number or a sequence of numbers as (a tuple of) floats, else None."""
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Real) for v in value):
        return tuple(map(float, value))
    return None
