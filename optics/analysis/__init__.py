"""Analyses of traced rays: spot diagrams, ray fans (pure functions of ray bundles)."""

from .spot import SpotResult, ray_fan, spot_diagram, spot_statistics

__all__ = ["SpotResult", "ray_fan", "spot_diagram", "spot_statistics"]
