"""Matplotlib figures of ray fans and OPD fans: a row per field, tangential and sagittal.

matplotlib is imported lazily (:func:`optics.plot.pyplot`).  Titles name the
lens, the wavelengths and each field in the lens's units.
"""

from __future__ import annotations

import numpy as np

from . import backend as be
from .plot import pyplot, wavelength_color


def _field_text(optic, field):
    top = float(optic.fields.max_magnitude)
    unit = "°" if optic.fields.type == "angle" else " mm"
    hx, hy = field
    where = f"{hy * top:.4g}{unit}" if hx == 0 else f"({hx * top:.4g}, {hy * top:.4g}){unit}"
    return f"field {where} (h = {hx:g}, {hy:g})"


def _fan_figure(result, optic, first, second, scale, ylabel, what):
    plt = pyplot()
    count = len(result.fields)
    fig, axes = plt.subplots(count, 2, figsize=(8.0, 2.4 * count + 0.8), squeeze=False)
    t = np.asarray(result.pupil)
    a, b = be.to_numpy(getattr(result, first)) * scale, be.to_numpy(getattr(result, second)) * scale
    finite = np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]])
    top = float(np.abs(finite).max()) if finite.size else 1.0
    top = 1.1 * max(top, 1e-3)
    for f, field in enumerate(result.fields):
        for column, (values, name, axis) in enumerate(
            ((a, "tangential", "py"), (b, "sagittal", "px"))
        ):
            ax = axes[f][column]
            for k, w in enumerate(result.wavelengths):
                ax.plot(t, values[k, f], "-", color=wavelength_color(w), label=f"{w:g} µm")
            ax.axhline(0.0, color="k", lw=0.5)
            ax.axvline(0.0, color="k", lw=0.5)
            ax.set_xlim(-1.0, 1.0)
            ax.set_ylim(-top, top)  # one scale for every panel
            ax.grid(True, alpha=0.3)
            ax.set_title(f"{name}, {_field_text(optic, field)}", fontsize=8)
            ax.set_xlabel(axis, fontsize=8)
            ax.set_ylabel(ylabel if column == 0 else "", fontsize=8)
            ax.tick_params(labelsize=7)
    axes[0][1].legend(fontsize=7, loc="best")
    waves = ", ".join(f"{w:g}" for w in result.wavelengths)
    fig.suptitle(f"{optic.name or 'lens'}: {what} ({waves} µm)", fontsize=10)
    fig.tight_layout()
    return fig


def ray_fan_figure(result, optic):
    """Transverse ray error (µm) against the normalized pupil, every panel on one scale."""
    return _fan_figure(
        result, optic, "tangential", "sagittal", 1e3, "e (µm)", "ray fans (e_y vs py, e_x vs px)"
    )


def opd_fan_figure(result, optic):
    """OPD (waves) against the normalized pupil, every panel on one scale."""
    return _fan_figure(
        result, optic, "opd_tangential", "opd_sagittal", 1.0, "W (waves)", "OPD fans"
    )
