"""Analyses of traced rays: spot diagrams, ray fans (pure functions of ray bundles),
Seidel sums, field curvature, distortion and colour."""

from .colour import chromatic_focal_shift, lateral_color
from .distortion import distortion, grid_distortion
from .field_curvature import field_curvature
from .seidel import seidel
from .spot import SpotResult, ray_fan, spot_diagram, spot_statistics

__all__ = [
    "SpotResult",
    "chromatic_focal_shift",
    "distortion",
    "field_curvature",
    "grid_distortion",
    "lateral_color",
    "ray_fan",
    "seidel",
    "spot_diagram",
    "spot_statistics",
]
