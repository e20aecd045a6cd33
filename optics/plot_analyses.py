"""Matplotlib figures of the aberration analyses: Seidel bars, field curvature, distortion,
grid distortion, chromatic focal shift and lateral colour.

matplotlib is imported lazily (inside :func:`optics.plot.pyplot`) with the
headless "Agg" backend unless a display backend was chosen.  Every title
names the lens and the wavelength(s).
"""

from __future__ import annotations

import numpy as np

from . import backend as be
from .plot import pyplot, wavelength_color


def _name(optic):
    return optic.name or "lens"


def _field_axis(optic):
    """(label, scale): the field axis in the lens's own units (degrees or mm)."""
    top = float(optic.fields.max_magnitude)
    unit = "°" if optic.fields.type == "angle" else " mm"
    return f"field (normalized; 1 = {top:g}{unit})", top


def seidel_figure(result, optic):
    """Grouped bars of S1..S5, CL, CT per surface, the sums last (mm)."""
    from .analysis._seidel import SEIDEL_TERMS

    plt = pyplot()
    rows = result.surfaces + [{"surface": "sum", **result.sums}]
    labels = [str(r["surface"]) for r in rows]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.6 * len(rows) + 3), 4.2))
    width = 0.8 / len(SEIDEL_TERMS)
    x = np.arange(len(rows))
    for k, term in enumerate(SEIDEL_TERMS):
        values = [float(be.item(r[term])) for r in rows]
        ax.bar(x + (k - 3) * width, values, width, label=term)
    ax.set_xticks(x, labels)
    ax.axhline(0.0, color="k", linewidth=0.5)
    ax.set_xlabel("surface")
    ax.set_ylabel("Seidel sum (mm)")
    ax.set_title(
        f"{_name(optic)}: Seidel sums at {result.wavelength:g} µm "
        f"(CL, CT {result.short:g}-{result.long:g} µm)",
        fontsize=10,
    )
    ax.legend(ncol=7, fontsize=8, loc="best")
    fig.tight_layout()
    return fig


def field_curvature_figure(result, optic):
    """Tangential (solid) and sagittal (dashed) focus shift against field, per wavelength."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
    fields = np.asarray(result.fields)
    tangential, sagittal = be.to_numpy(result.tangential), be.to_numpy(result.sagittal)
    for k, w in enumerate(result.wavelengths):
        color = wavelength_color(w)
        ax.plot(tangential[k], fields, "-", color=color, label=f"T {w:g} µm")
        ax.plot(sagittal[k], fields, "--", color=color, label=f"S {w:g} µm")
    ax.axvline(0.0, color="k", linewidth=0.5)
    label, _ = _field_axis(optic)
    ax.set_ylabel(label)
    ax.set_xlabel("focus minus image surface (mm)")
    ax.set_ylim(0.0, 1.0)
    ax.set_title(f"{_name(optic)}: field curvature", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def distortion_figure(result, optic):
    """Distortion (percent) against field, per wavelength."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
    fields = np.asarray(result.fields)
    percent = be.to_numpy(result.percent)
    for k, w in enumerate(result.wavelengths):
        ax.plot(percent[k], fields, color=wavelength_color(w), label=f"{w:g} µm")
    ax.axvline(0.0, color="k", linewidth=0.5)
    label, _ = _field_axis(optic)
    ax.set_ylabel(label)
    ax.set_xlabel(f"distortion (%) against {result.reference}")
    ax.set_ylim(0.0, 1.0)
    ax.set_title(f"{_name(optic)}: distortion", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def grid_distortion_figure(grid, optic):
    """The distortion-free grid (grey) and the real chief-ray grid (coloured, points crossed)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 5.6))
    ix, iy = be.to_numpy(grid.ideal_x), be.to_numpy(grid.ideal_y)
    rx, ry = be.to_numpy(grid.real_x), be.to_numpy(grid.real_y)
    for a, b in ((ix, iy), (ix.T, iy.T)):
        ax.plot(a.T, b.T, color="0.6", linewidth=0.8)
    color = wavelength_color(grid.wavelength)
    for a, b in ((rx, ry), (rx.T, ry.T)):  # the real grid, its points marked
        ax.plot(a.T, b.T, color=color, linewidth=0.6, alpha=0.6)
    ax.plot(rx.ravel(), ry.ravel(), "x", color=color, markersize=5)
    ax.set_aspect("equal")
    ax.set_xlabel("image x (mm)")
    ax.set_ylabel("image y (mm)")
    ax.set_title(f"{_name(optic)}: grid distortion at {grid.wavelength:g} µm", fontsize=10)
    fig.tight_layout()
    return fig


def focal_shift_figure(result, optic):
    """Paraxial focal shift (mm) against wavelength."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 4.5))
    ax.plot(result.wavelengths, be.to_numpy(result.shift), color="tab:blue")
    ax.axhline(0.0, color="k", linewidth=0.5)
    ax.set_xlabel("wavelength (µm)")
    ax.set_ylabel("focal shift (mm)")
    ax.set_title(
        f"{_name(optic)}: chromatic focal shift against {result.primary:g} µm", fontsize=10
    )
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def lateral_color_figure(result, optic):
    """Chief-ray height difference (short minus long wavelength) against field."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 5.0))
    ax.plot(be.to_numpy(result.difference) * 1e3, result.fields, color="tab:blue")
    ax.axvline(0.0, color="k", linewidth=0.5)
    label, _ = _field_axis(optic)
    ax.set_ylabel(label)
    ax.set_xlabel(f"y({result.short:g} µm) − y({result.long:g} µm) (µm)")
    ax.set_ylim(0.0, 1.0)
    ax.set_title(f"{_name(optic)}: lateral colour", fontsize=10)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
