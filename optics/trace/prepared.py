"""The prepared system: what every trace of one optic shares, computed once (docs/tracing.md)."""

from __future__ import annotations

import dataclasses
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
from .loop import media_indices, surface_loop


class PreparedSystem:
    """An optic ready to trace: frames, media indices, first-order data, aim and fields.

    ``aiming`` ("paraxial" or "real") overrides the optic's mode; ``optic`` is the optic as traced.
    """

    def __init__(self, optic, aiming=None):
        self.optic = with_aiming(optic, aiming)
        self._indices = {}
        self._fields = {}

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

    @cached_property
    def frames(self) -> tuple:
        """The surfaces' frames (:func:`optics.frames.surface_frames`)."""
        return tuple(surface_frames(self.surfaces))

    @cached_property
    def first_order(self):
        """First-order data at the primary wavelength (:class:`optics.paraxial.ParaxialData`)."""
        return paraxial(self.optic)

    def indices(self, wavelength) -> tuple:
        """:func:`~optics.trace.loop.media_indices` at ``wavelength`` (µm), once per value."""
        # Keyed by the number, or by an array's identity (the cache keeps the array alive).
        key = float(wavelength) if isinstance(wavelength, numbers.Real) else id(wavelength)
        if key not in self._indices:
            self._indices[key] = (wavelength, media_indices(self.surfaces, wavelength))
        return self._indices[key][1]

    def cached_fields(self, hx, hy, solve):
        """``solve(optic, hx, hy, first_order)``, kept per value for fields given as numbers."""
        key = (_plain(hx), _plain(hy))
        if None in key:
            return solve(self.optic, hx, hy, self.first_order)
        if key not in self._fields:
            self._fields[key] = solve(self.optic, hx, hy, self.first_order)
        return self._fields[key]

    def loop(self, rays: Rays, wavelength=None, **options):
        """:func:`~optics.trace.loop.surface_loop`, indices at ``wavelength`` or the rays'."""
        indices = self.indices(rays.wavelength if wavelength is None else wavelength)
        return surface_loop(self.surfaces, self.frames, indices, rays, **options)


def prepare(system, aiming=None) -> PreparedSystem:
    """``system`` (Optic or PreparedSystem) as a PreparedSystem; itself if ``aiming`` agrees."""
    if isinstance(system, PreparedSystem):
        if aiming is None or with_aiming(system.optic, aiming) is system.optic:
            return system
        return PreparedSystem(system.optic, aiming)
    return PreparedSystem(system, aiming)


def optic_of(system):
    """The Optic of an Optic or a PreparedSystem."""
    return system.optic if isinstance(system, PreparedSystem) else system


def propagate(system, rays: Rays, *, clip=True) -> Rays:
    """``rays`` (global, object space, any shape) at the image; ``clip`` as in surface_loop."""
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
