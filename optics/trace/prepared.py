"""The prepared system: what every trace of one optic shares, computed once.

A :class:`PreparedSystem` holds the optic (with an aiming override applied),
its surface frames, the media's refractive indices per wavelength, its
first-order data and the object-space field parameters of the fields asked
for.  Each is computed on first use and kept, so the chief rays, the pupil
rays, the field solve, the aim and every analysis or merit operand of one
evaluation share them.  Every public trace and analysis function takes an
Optic or a PreparedSystem: ``prepare(optic)`` once, pass the result on.

A prepared system is a snapshot: after a parameter of the optic changes
(an optimizer step), prepare it again.
"""

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

    Parameters
    ----------
    optic : Optic
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode`` for every trace of this system.

    Attributes
    ----------
    optic : Optic
        The optic as traced (the aiming override applied).
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
        """The medium index after each surface at ``wavelength`` (µm), computed once per value.

        One array object per distinct material, so the same object on both
        sides of a surface means no refraction.  Keyed by the number, or by
        the identity of an array (which the cache keeps alive).
        """
        key = float(wavelength) if isinstance(wavelength, numbers.Real) else id(wavelength)
        found = self._indices.get(key)
        if found is None:
            found = (wavelength, media_indices(self.surfaces, wavelength))
            self._indices[key] = found
        return found[1]

    def cached_fields(self, hx, hy, solve):
        """``solve(optic, hx, hy, first_order)``, kept per value for fields given as numbers."""
        key = _plain_key(hx, hy)
        if key is None:
            return solve(self.optic, hx, hy, self.first_order)
        if key not in self._fields:
            self._fields[key] = solve(self.optic, hx, hy, self.first_order)
        return self._fields[key]

    def loop(self, rays: Rays, wavelength=None, **options):
        """:func:`optics.trace.loop.surface_loop` of flat rays through this system.

        ``wavelength``: the value the media's indices are looked up at (the
        rays' own wavelength by default).
        """
        indices = self.indices(rays.wavelength if wavelength is None else wavelength)
        return surface_loop(self.surfaces, self.frames, indices, rays, **options)


def prepare(system, aiming=None) -> PreparedSystem:
    """``system`` as a :class:`PreparedSystem` (itself when it is one and ``aiming`` agrees).

    Parameters
    ----------
    system : Optic or PreparedSystem
    aiming : {"paraxial", "real"}, optional
        Overrides the optic's ``[aiming] mode``.
    """
    if isinstance(system, PreparedSystem):
        if aiming is None or with_aiming(system.optic, aiming) is system.optic:
            return system
        return PreparedSystem(system.optic, aiming)
    return PreparedSystem(system, aiming)


def optic_of(system):
    """The Optic of an Optic or a PreparedSystem."""
    return system.optic if isinstance(system, PreparedSystem) else system


def propagate(system, rays: Rays, *, clip=True) -> Rays:
    """Trace ``rays`` (global coordinates, in object space) through surfaces 1..image, eagerly.

    Parameters
    ----------
    system : Optic or PreparedSystem
    rays : Rays
        Any shape (the components broadcast together).
    clip : bool or bool array
        Apply the clear apertures (see :func:`optics.trace.loop.surface_loop`).
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
    """The aiming mode that applies: the optic's ``[aiming] mode``.

    Object-space telecentric systems launch by numerical aperture about an
    axis-parallel chief ray, so they are always aimed "paraxially".
    """
    return "paraxial" if optic.fields.object_telecentric else optic.aiming


def with_aiming(optic, aiming=None):
    """``optic`` aimed in mode ``aiming`` ("paraxial" or "real"); ``optic`` itself for None.

    The override is a shallow copy of the optic with its ``aiming`` replaced
    (the surfaces and their parameters are shared, so gradients reach them), so
    every part of a trace — the field solve, the launch, the aim — sees one mode.
    An object-space telecentric optic stays paraxially aimed (see :func:`aiming_mode`).

    Raises
    ------
    ConfigurationError
        When ``aiming`` is not one of ``optics.system.AIMING_MODES``.
    """
    if aiming is None or aiming == optic.aiming:
        return optic
    if aiming not in AIMING_MODES:
        raise ConfigurationError(f"aiming must be one of {AIMING_MODES}, not {aiming!r}")
    if optic.fields.object_telecentric:
        return optic
    return dataclasses.replace(optic, aiming=aiming)


def _plain_key(hx, hy):
    """A hashable key for fields given as Python numbers or sequences of them, else None."""
    values = []
    for value in (hx, hy):
        if isinstance(value, numbers.Real):
            values.append(float(value))
        elif isinstance(value, (list, tuple)) and all(isinstance(v, numbers.Real) for v in value):
            values.append(tuple(map(float, value)))
        else:
            return None
    return tuple(values)
