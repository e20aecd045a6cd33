"""Surface shapes: sag, slopes, normal and ray intersection in the local frame."""

from .base import GEOMETRY_TYPES, Geometry, register
from .conic import Standard
from .coordinate_break import CoordinateBreak
from .diffractive import Grating, RadialPhase
from .ideal_lens import IdealLens

__all__ = [
    "GEOMETRY_TYPES",
    "CoordinateBreak",
    "Geometry",
    "Grating",
    "IdealLens",
    "RadialPhase",
    "Standard",
    "register",
]


def _load_newton_types():
    """Import the modules that register the Newton–Raphson surface types."""
    import importlib

    for module in ("optics.geometry.newton_types",):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


_load_newton_types()
