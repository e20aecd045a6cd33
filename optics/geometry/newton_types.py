"""Registers the Newton–Raphson surface types with the lens-file loader.

Imported by :mod:`optics.geometry`; each import below adds its types to
``GEOMETRY_TYPES`` through the ``register`` decorator.
"""

from .aspheres import EvenAsphere, OddAsphere
from .biconic import Biconic, Toroidal
from .forbes import Q2D, QBFS
from .freeforms import Chebyshev, XYPolynomial, Zernike
from .newton_base import NewtonRaphsonGeometry, forced_iterations

NEWTON_TYPES = (
    EvenAsphere,
    OddAsphere,
    XYPolynomial,
    Chebyshev,
    Zernike,
    QBFS,
    Q2D,
    Biconic,
    Toroidal,
)

__all__ = [cls.__name__ for cls in NEWTON_TYPES] + [
    "NEWTON_TYPES",
    "NewtonRaphsonGeometry",
    "forced_iterations",
]
