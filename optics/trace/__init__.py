"""optics.trace: the trace pipeline every analysis stands on.

Layered one way (each module imports only the ones before it):

- :mod:`~optics.trace.loop` — the one surface loop: intersection, path
  length, clear apertures, refraction and reflection;
- :mod:`~optics.trace.prepared` — :class:`PreparedSystem`: frames, media
  indices, first-order data and field parameters of one optic, computed once;
- :mod:`~optics.trace.launch` — rays from object-space field parameters
  toward the entrance pupil;
- :mod:`~optics.trace.aim` — real ray aiming (pupil points on the stop), in
  the launch layer;
- :mod:`~optics.trace.object_field` — field types to object-space parameters;
- :mod:`~optics.trace.real_image_height` — the 2×2 real-image-height solve and
  :func:`field_parameters` for every field type;
- :mod:`~optics.trace.methods` — how a batch is traced: eager, blocked,
  streamed, compiled (trace methods as objects);
- :mod:`~optics.trace.bundle` — :func:`trace_bundle`: wavelengths × fields ×
  pupil in one batch, with the chief rays;
- :mod:`~optics.trace.entry` — :func:`trace_rays` and :func:`trace_surfaces`.
"""

from .. import backend as _be
from .aim import AimResult, PupilAimWarning
from .bundle import Bundle, iter_bundle, trace_bundle
from .entry import trace_rays, trace_surfaces
from .launch import launch_rays
from .loop import reflect, refract
from .methods import Blocked, Compiled, Eager, Streamed, TraceMethod
from .prepared import PreparedSystem, prepare, propagate
from .real_image_height import field_parameters, solve_fields, solve_real_image_height

__all__ = [
    "AimResult",
    "Blocked",
    "Bundle",
    "Compiled",
    "Eager",
    "PreparedSystem",
    "PupilAimWarning",
    "Streamed",
    "TraceMethod",
    "field_parameters",
    "iter_bundle",
    "launch_rays",
    "prepare",
    "propagate",
    "reflect",
    "refract",
    "solve_fields",
    "solve_real_image_height",
    "trace_bundle",
    "trace_rays",
    "trace_surfaces",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
