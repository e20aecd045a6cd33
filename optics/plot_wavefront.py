"""Matplotlib figures of the wavefront analyses: OPD maps, PSF images, MTF and energy curves.

matplotlib is imported lazily (inside the functions) with the non-GUI "Agg"
backend unless a display backend was chosen, so plotting works headless.
"""

from __future__ import annotations

import math

import numpy as np

from . import backend as be
from .plot import pyplot

_COLORS = ("tab:blue", "tab:green", "tab:red", "tab:purple", "tab:orange", "tab:brown")


def _label(field, optic=None):
    """'field (0, 0.7)', with the lens's units beside it when ``optic`` is given:
    'field (0, 0.7) = 14°'."""
    text = f"field ({field[0]:g}, {field[1]:g})"
    if optic is None:
        return text
    top = float(optic.fields.max_magnitude)
    unit = "°" if optic.fields.type == "angle" else " mm"
    hx, hy = float(field[0]) * top, float(field[1]) * top
    return f"{text} = {hy:.4g}{unit}" if hx == 0 else f"{text} = ({hx:.4g}, {hy:.4g}){unit}"


def opd_map_figure(results, optic=None):
    """One OPD map (waves over the normalized pupil) per WavefrontResult (``optic``: the
    lens, for its name and the fields' units in the titles)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results), 3.8), squeeze=False)
    for ax, result in zip(axes[0], results):
        ok = be.to_numpy(result.valid)
        px, py = be.to_numpy(result.px)[ok], be.to_numpy(result.py)[ok]
        waves = be.to_numpy(result.opd)[ok]
        contour = ax.tricontourf(px, py, waves, levels=24, cmap="RdBu_r")
        fig.colorbar(contour, ax=ax, label="OPD (waves)")
        rms = float(be.item(result.rms_to_centroid))
        ax.set_title(
            f"{_label(result.field, optic)}\nRMS {rms:.3f} waves (to centroid)", fontsize=9
        )
        ax.set_aspect("equal")
        ax.set_xlabel("px")
        ax.set_ylabel("py")
    if results:
        lens = optic.name if optic is not None and optic.name else "lens"
        fig.suptitle(f"{lens}: OPD at {results[0].wavelength:g} µm", fontsize=10)
    fig.tight_layout()
    return fig


def psf_figure(result, log=False, width=None, name=None, optic=None):
    """The PSF image around the chief-ray point (``width`` in mm; by default 1.5 × the
    radius holding 95 % of the energy, at least 20 pixels: 5 Airy radii); ``name``: the
    lens, for the title; ``optic``: the lens, for the field's units."""
    plt = pyplot()
    from matplotlib.colors import LogNorm

    image = be.to_numpy(result.image)
    dx, dy = float(be.item(result.dx)), float(be.item(result.dy))
    grid = image.shape[-1]
    half = _display_half(image) if width is None else max(2, int(0.5 * width / min(dx, dy)))
    half = min(half, grid // 2 - 1)
    c = grid // 2
    crop = image[c - half : c + half + 1, c - half : c + half + 1]
    extent = np.array([-half * dx, half * dx, -half * dy, half * dy]) * 1000.0
    fig, ax = plt.subplots(figsize=(5, 4.2))
    floor = crop.max() * 1e-6  # six decades on the log scale
    norm = LogNorm(vmin=floor, vmax=crop.max()) if log else None
    shown = ax.imshow(
        np.clip(crop, floor, None) if log else crop, origin="lower", extent=extent, norm=norm
    )
    fig.colorbar(shown, ax=ax, label="intensity (unaberrated peak = 1)")
    strehl = float(be.item(result.strehl))
    lens = f"{name}: " if name else ""
    ax.set_title(
        f"{lens}{_label(result.field, optic)}\n{_spectrum(result)}, Strehl {strehl:.3f}",
        fontsize=8,
    )
    ax.set_xlabel("x (µm)")
    ax.set_ylabel("y (µm)")
    fig.tight_layout()
    return fig


def _spectrum(result):
    """'0.55 µm' or 'polychromatic 0.48-0.65 µm' for a PSF or MTF result."""
    waves = getattr(result, "wavelengths", ()) or (result.wavelength,)
    if not getattr(result, "polychromatic", False):
        return f"{result.wavelength:g} µm"
    return f"polychromatic {min(waves):.3g}-{max(waves):.3g} µm"


def _display_half(image):
    """Half-width in pixels of the default PSF display: 1.5 × the 95 % energy radius."""
    grid = image.shape[-1]
    index = np.arange(grid) - grid // 2
    radius = np.hypot(index[None, :], index[:, None]).ravel()
    values = np.nan_to_num(image.ravel())
    order = np.argsort(radius)
    energy = np.cumsum(values[order])
    if not energy[-1] > 0:
        return grid // 2 - 1
    r95 = radius[order][np.searchsorted(energy, 0.95 * energy[-1])]
    return int(min(grid // 2 - 1, max(20, math.ceil(1.5 * r95))))


def mtf_figure(result, name=None, optic=None):
    """Tangential (solid) and sagittal (dashed) MTF per field, with the diffraction limit
    of the actual pupil; the title names the lens (``name``) and the wavelengths."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    title = f"{name}: " if name else ""
    ax.set_title(f"{title}MTF, {_spectrum(result)}", fontsize=9)
    f = be.to_numpy(result.frequencies)
    for i, field in enumerate(result.fields):
        color = _COLORS[i % len(_COLORS)]
        ax.plot(
            f, be.to_numpy(result.tangential[i]), color=color, label=f"{_label(field, optic)} T"
        )
        ax.plot(f, be.to_numpy(result.sagittal[i]), color=color, linestyle="--", label="S")
    ax.plot(f, be.to_numpy(result.diffraction_limit[0]), color="k", label="diffraction limit")
    ax.set_xlabel("spatial frequency (cycles/mm)")
    ax.set_ylabel("MTF")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(0, f.max())
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def encircled_energy_figure(curves):
    """Encircled energy versus radius; ``curves`` maps a label to an EnergyResult."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    for i, (label, energy) in enumerate(curves.items()):
        radii = be.to_numpy(energy.radii) * 1000.0
        ax.plot(radii, be.to_numpy(energy.encircled), color=_COLORS[i % 6], label=label)
    ax.set_xlabel("radius (µm)")
    ax.set_ylabel("encircled energy")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def through_focus_figure(result, optic=None):
    """T (solid) and S (dashed) MTF against defocus per field, the best focus marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    z = be.to_numpy(result.defocus)
    t, s = be.to_numpy(result.tangential), be.to_numpy(result.sagittal)
    for i, field in enumerate(result.fields):
        color = _COLORS[i % len(_COLORS)]
        ax.plot(z, t[:, i], color=color, label=f"{_label(field, optic)} T")
        ax.plot(z, s[:, i], color=color, linestyle="--", label="S")
    ax.axvline(result.best_focus, color="k", linewidth=0.8, linestyle=":", label="best focus")
    name = f"{optic.name}: " if optic is not None and optic.name else ""
    ax.set_title(
        f"{name}through-focus MTF at {result.frequency:g} cycles/mm, {_spectrum(result)}",
        fontsize=9,
    )
    ax.set_xlabel("image-surface shift along z (mm, + away from the lens)")
    ax.set_ylabel("MTF")
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def mtf_field_figure(result, optic=None):
    """T (solid) and S (dashed) MTF against normalized field height, one colour per frequency."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    y = [field[1] for field in result.fields]
    f = be.to_numpy(result.frequencies)
    t, s = be.to_numpy(result.tangential), be.to_numpy(result.sagittal)
    for k, frequency in enumerate(f):
        color = _COLORS[k % len(_COLORS)]
        ax.plot(y, t[:, k], color=color, label=f"{frequency:g} c/mm T")
        ax.plot(y, s[:, k], color=color, linestyle="--", label="S")
    name = f"{optic.name}: " if optic is not None and optic.name else ""
    ax.set_title(f"{name}MTF versus field, {_spectrum(result)}", fontsize=9)
    ax.set_xlabel("normalized field height y")
    ax.set_ylabel("MTF")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
