"""optics.trace: the trace pipeline every analysis stands on (layers: docs/architecture.md)."""

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
