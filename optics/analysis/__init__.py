"""Analyses of traced rays: spot diagrams, ray fans (pure functions of traces)."""

from .spot import SpotResult, normalized_fields, ray_fan, spot_diagram, spot_statistics

__all__ = ["SpotResult", "normalized_fields", "ray_fan", "spot_diagram", "spot_statistics"]
