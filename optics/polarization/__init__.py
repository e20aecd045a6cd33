"""optics.polarization: polarization ray tracing with 3x3 PRT matrices (docs/polarization.md).

Off by default: the ordinary trace is untouched; :func:`polarization_trace` traces the
rays once and builds each ray's PRT matrix from its directions at every surface.
"""

from .. import backend as _be
from .absorption import Absorbing, absorption_of
from .jones import (
    diattenuation,
    double_pole_basis,
    exit_field,
    jones_pupil,
    retardance,
    transmission,
)
from .maps import PupilMaps, TransmissionTable, polarization_pupil, transmission_vs_field
from .strehl import StrehlResult, jones_strehl, polarization_strehl
from .trace import PolarizationTrace, polarization_trace

__all__ = [
    "Absorbing",
    "PolarizationTrace",
    "PupilMaps",
    "StrehlResult",
    "TransmissionTable",
    "absorption_of",
    "diattenuation",
    "double_pole_basis",
    "exit_field",
    "jones_pupil",
    "jones_strehl",
    "polarization_pupil",
    "polarization_strehl",
    "polarization_trace",
    "retardance",
    "transmission",
    "transmission_vs_field",
]

_be.pin_public(globals(), __all__)
