"""Matplotlib figures of relative illumination, vignetting and the footprint diagram.

matplotlib is imported lazily (:func:`optics.plot.pyplot`).  Every title names
the lens and the wavelength(s); field axes give the lens's own units.
"""

from __future__ import annotations

import numpy as np

from . import backend as be
from .plot import pyplot, wavelength_color


def _name(optic):
    return optic.name or "lens"


def _field_label(optic):
    top = float(optic.fields.max_magnitude)
    unit = "°" if optic.fields.type == "angle" else " mm"
    return f"field (normalized; 1 = {top:g}{unit})"


def illumination_figure(result, optic):
    """Relative illumination (solid) and unvignetted fraction (dashed) against field."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    fields = np.asarray(result.fields)
    ri = be.to_numpy(result.illumination)
    lost = np.asarray(result.vignetting)
    for k, w in enumerate(result.wavelengths):
        color = wavelength_color(w)
        ax.plot(fields, ri[k], "-", color=color, label=f"RI {w:g} µm")
        ax.plot(fields, 1.0 - lost[k], "--", color=color, label=f"unvignetted {w:g} µm")
    ax.set_xlabel(_field_label(optic))
    ax.set_ylabel("relative illumination / unvignetted fraction")
    ax.set_xlim(0.0, max(1.0, float(fields.max())))
    ax.set_ylim(0.0, 1.05 * max(1.0, float(np.nanmax(ri))))
    waves = ", ".join(f"{w:g}" for w in result.wavelengths)
    ax.set_title(f"{_name(optic)}: relative illumination and vignetting ({waves} µm)", fontsize=10)
    ax.legend(fontsize=8, loc="lower left")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig


def footprint_figure(result, optic):
    """Each field's ray intersections on the surface, its clear aperture drawn."""
    from .plot import field_label

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 6.0))
    colors = plt.get_cmap("viridis")(np.linspace(0.0, 0.9, max(len(result.fields), 1)))
    normalized = optic.fields.normalized()
    any_lost = False
    for f, field in enumerate(result.fields):
        ok = result.reached[f]
        label = f"({field[0]:g}, {field[1]:g})"
        if tuple(field) in normalized:
            label = f"{field_label(optic, normalized.index(tuple(field)))} {label}"
        ax.plot(result.x[f][ok], result.y[f][ok], ".", ms=2.5, color=colors[f], label=label)
        lost = ok & ~result.passed[f]
        if lost.any():
            any_lost = True
            ax.plot(result.x[f][lost], result.y[f][lost], "x", ms=3, color="0.5")
    t = np.linspace(0.0, 2.0 * np.pi, 361)
    if result.semi_diameter is not None:
        r = result.semi_diameter
        ax.plot(r * np.cos(t), r * np.sin(t), "k-", lw=1.0, label=f"clear aperture r = {r:g} mm")
    else:
        r = result.beam_radius
        ax.plot(r * np.cos(t), r * np.sin(t), "k--", lw=0.8, label=f"beam radius {r:.4g} mm")
    if result.aperture is not None:
        ax.text(0.02, 0.02, f"aperture: {result.aperture.shape}", transform=ax.transAxes)
    half = 1.08 * max(r, result.beam_radius, 1e-6)
    ax.set_xlim(-half, half)
    ax.set_ylim(-half, half)
    ax.set_aspect("equal")
    ax.set_xlabel("x (mm, surface frame)")
    ax.set_ylabel("y (mm, surface frame)")
    ax.set_title(
        f"{_name(optic)}: footprint on surface {result.surface} at {result.wavelength:g} µm"
        + ("\n(× lost here or at a later surface)" if any_lost else ""),
        fontsize=10,
    )
    ax.legend(fontsize=7, loc="best", title="field", title_fontsize=7)
    fig.tight_layout()
    return fig
