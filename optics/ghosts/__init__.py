"""optics.ghosts: two-reflection ghost images, traced as unfolded sequential systems.

Each pair of surfaces i > j gives one ghost: light reflects back at surface i, forward
again at surface j, and goes on to the image.  :func:`ghost_optic` builds that path as
an ordinary Optic (mirror copies of i and j, the surfaces between reversed) so the
one surface loop traces it; :func:`ghosts` ranks every ghost by the irradiance it brings
to the image (docs/ghosts.md).
"""

from .. import backend as _be
from ._analysis import (
    Ghost,
    GhostReport,
    ghost_rays,
    ghosts,
    paraxial_ghost_focus,
    trace_ghost,
)
from ._energy import path_energy, primary_transmission, surface_coefficients
from ._flare import add_ghost_flare, ghost_magnification, spot_kernel
from ._unfold import ghost_optic, ghost_pairs, ghost_path

__all__ = [
    "Ghost",
    "GhostReport",
    "add_ghost_flare",
    "ghost_optic",
    "ghost_pairs",
    "ghost_magnification",
    "ghost_path",
    "ghost_rays",
    "ghosts",
    "paraxial_ghost_focus",
    "path_energy",
    "primary_transmission",
    "spot_kernel",
    "surface_coefficients",
    "trace_ghost",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
