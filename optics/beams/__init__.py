"""optics.beams: Gaussian beams through a lens, angular-spectrum propagation, fibre coupling.

:func:`propagate_beam` carries a beam's complex parameter through the lens's paraxial
ABCD matrices (:func:`system_matrices`) and reports the waist after every surface;
:func:`angular_spectrum` propagates a sampled field between planes; :func:`fibre_coupling`
is the overlap of the image-side beam with a fibre's mode (docs/beams.md).
"""

from .. import backend as _be
from ._angular import angular_spectrum, coordinates, frequencies, gaussian_field
from ._coupling import fibre_coupling, gaussian_overlap, mode_parameter, overlap_efficiency
from ._gaussian import (
    BeamAtSurface,
    BeamParameter,
    beam_at,
    image_parameter,
    input_parameter,
    propagate_beam,
    system_matrices,
)

__all__ = [
    "BeamAtSurface",
    "BeamParameter",
    "angular_spectrum",
    "beam_at",
    "coordinates",
    "fibre_coupling",
    "frequencies",
    "gaussian_field",
    "gaussian_overlap",
    "image_parameter",
    "input_parameter",
    "mode_parameter",
    "overlap_efficiency",
    "propagate_beam",
    "system_matrices",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
