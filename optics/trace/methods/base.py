"""The interface every trace method implements, and the batch it traces.

A method decides *how* a batch is traced; *what* (launch, aim, the one surface loop) is fixed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ... import backend as be
from ...errors import ConfigurationError

#: The methods by name: every TraceMethod subclass with a ``name`` registers itself.
METHODS: dict = {}


@dataclass(frozen=True)
class RayBatch:
    """The rays of one trace request, as broadcasting arrays.

    Attributes
    ----------
    qx, qy : array
        Object-space field parameters (slopes, or object heights in mm).
    px, py : array
        Normalized pupil coordinates.
    wavelength : float or array
        Micrometres.
    clip : bool or bool array
        Which rays the clear apertures clip (see :func:`optics.trace.loop.surface_loop`).
    keep : tuple of int
        Surfaces whose outgoing rays to return too (0: the launched rays).
    """

    qx: Any
    qy: Any
    px: Any
    py: Any
    wavelength: Any
    clip: Any = True
    keep: tuple = ()

    @property
    def shape(self) -> tuple:
        """The broadcast shape of every per-ray input."""
        values = self.inputs()
        shapes = [tuple(be.asarray(v).shape) for v in values if not isinstance(v, (bool, float))]
        return tuple(np.broadcast_shapes(*shapes))

    def inputs(self) -> tuple:
        """(qx, qy, px, py, wavelength, clip): the inputs a blocked or sliced trace cuts."""
        return (self.qx, self.qy, self.px, self.py, self.wavelength, self.clip)


class TraceMethod:
    """How a batch of rays is traced; subclasses implement :meth:`trace`.

    Attributes
    ----------
    name : str
        What ``method=`` calls it.
    keeps_surfaces : bool
        Whether :meth:`trace` can return the rays at surfaces along the way
        (``RayBatch.keep``); a bundle traces its chief rays eagerly where not.
    """

    name = ""
    keeps_surfaces = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("name"):
            METHODS[cls.name] = cls

    def trace(self, system, batch: RayBatch):
        """Trace ``batch`` through ``system`` (a PreparedSystem).

        Returns
        -------
        Traced
            ``rays`` at the image and ``kept`` (surface index → Rays), shaped ``batch.shape``.
        """
        raise NotImplementedError

    def pupil_step(self, n_pupil: int, rays_per_sample: int) -> int:
        """Pupil samples per slice of a streamed bundle (all of them: one slice)."""
        return n_pupil

    def slice_method(self) -> TraceMethod:
        """The method each slice of a streamed bundle is traced with (this one)."""
        return self

    def progress_bar(self, total: int):
        """A progress bar over ``total`` rays, or None."""
        return None

    def __repr__(self):
        fields = getattr(self, "__dataclass_fields__", {})
        args = ", ".join(f"{k}={getattr(self, k)!r}" for k in fields)
        return f"{type(self).__name__}({args})"


def resolve(method) -> TraceMethod:
    """A :class:`TraceMethod` from an object, a name in :data:`METHODS`, or None (``Blocked``).

    Raises
    ------
    ConfigurationError
        For an unknown name or an object that is not a TraceMethod.
    """
    if method is None:
        method = "blocked"
    if isinstance(method, TraceMethod):
        return method
    if isinstance(method, str) and method in METHODS:
        return METHODS[method]()
    raise ConfigurationError(
        f"method must be a TraceMethod or one of {sorted(METHODS)}, not {method!r}"
    )
