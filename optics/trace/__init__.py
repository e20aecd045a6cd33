"""optics.trace: the trace pipeline every analysis stands on.

Layered one way (each module imports only the ones before it):

- :mod:`~optics.trace.propagate` — the surface loop: intersection, path
  length, clear apertures, refraction and reflection;
- :mod:`~optics.trace.launch` — rays from object-space field parameters
  toward the entrance pupil;
- :mod:`~optics.trace.aim` — real ray aiming (pupil points on the stop), in
  the launch layer;
- :mod:`~optics.trace.object_field` — field types to object-space parameters;
- :mod:`~optics.trace.real_image_height` — the 2×2 real-image-height solve and
  :func:`field_parameters` for every field type;
- :mod:`~optics.trace.compiled` — the whole trace as one compiled graph;
- :mod:`~optics.trace.bundle` — :func:`trace_bundle`: wavelengths × fields ×
  pupil in one batch, with the chief rays;
- :mod:`~optics.trace.entry` — :func:`trace_rays`, eager or compiled.
"""

from .aim import AimResult, PupilAimWarning
from .bundle import Bundle, iter_bundle, trace_bundle
from .entry import trace_rays
from .launch import launch_rays
from .propagate import propagate, reflect, refract
from .real_image_height import field_parameters, solve_fields, solve_real_image_height

__all__ = [
    "AimResult",
    "Bundle",
    "PupilAimWarning",
    "field_parameters",
    "iter_bundle",
    "launch_rays",
    "propagate",
    "reflect",
    "refract",
    "solve_fields",
    "solve_real_image_height",
    "trace_bundle",
    "trace_rays",
]
