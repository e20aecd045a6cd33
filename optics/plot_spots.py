"""Report spot diagrams: every wavelength, the Airy disc, RMS and GEO radius, one scale.

One panel per field: the rays of a hexapolar pupil (one
:func:`~optics.trace.trace_bundle`) relative to the chief ray of the primary
wavelength, in µm; the Airy disc (radius 1.22 λ N, λ the primary wavelength
and N the paraxial working F-number) as a black circle; the RMS radius and
the GEO radius (the largest distance) of all wavelengths' rays about that
chief ray in the panel.  ``common_scale`` gives every panel the scale of the
largest spot (Zemax's "same scale"), otherwise each panel fits its spot (at
least the Airy disc).
"""

from __future__ import annotations

import math

import numpy as np

from . import backend as be
from .analysis.spot import in_image_frame
from .plot import pyplot, wavelength_color
from .trace import prepare, trace_bundle


def airy_radius(system, wavelength=None) -> float:
    """The Airy disc radius 1.22 λ N in mm (N: the paraxial working F-number)."""
    system = prepare(system)
    optic = system.optic
    wavelength = optic.primary_wavelength if wavelength is None else float(wavelength)
    fno = float(be.item(system.first_order.fno))
    return 1.22 * wavelength * 1e-3 * fno if math.isfinite(fno) else math.nan


def spot_panels(system, fields=None, wavelengths=None, rings=6):
    """Per field: ``{"field", "x", "y" (µm, (W, P) NaN where invalid), "rms", "geo"}``."""
    system = prepare(system)
    optic = system.optic
    bundle = trace_bundle(system, fields, wavelengths, pupil=rings)
    chief = in_image_frame(optic, bundle.reference_chief)
    rays = in_image_frame(optic, bundle.rays)
    x, y = be.to_numpy(rays.x), be.to_numpy(rays.y)
    valid = np.asarray(be.to_numpy(rays.valid), dtype=bool)
    cx, cy = be.to_numpy(chief.x), be.to_numpy(chief.y)
    panels = []
    for f, field in enumerate(bundle.fields):
        ok = valid[:, f]
        centre = (cx[f], cy[f])
        if not np.all(np.isfinite(centre)) and ok.any():  # no chief ray: the centroid
            centre = (x[:, f][ok].mean(), y[:, f][ok].mean())
        dx = np.where(ok, (x[:, f] - centre[0]) * 1e3, np.nan)
        dy = np.where(ok, (y[:, f] - centre[1]) * 1e3, np.nan)
        r2 = (dx * dx + dy * dy)[ok]
        panels.append(
            {
                "field": tuple(field),
                "x": dx,
                "y": dy,
                "rms": float(np.sqrt(r2.mean())) if r2.size else math.nan,
                "geo": float(np.sqrt(r2.max())) if r2.size else math.nan,
            }
        )
    return panels, list(bundle.wavelengths)


def spot_figure(optic, fields=None, wavelengths=None, rings=6, common_scale=False):
    """The report spot diagram (a row of panels, one per field); returns the figure."""
    from .plot_fans import _field_text

    plt = pyplot()
    system = prepare(optic)
    panels, waves = spot_panels(system, fields, wavelengths, rings)
    airy = airy_radius(system) * 1e3
    count = len(panels)
    fig, axes = plt.subplots(1, count, figsize=(3.3 * count + 0.6, 3.9), squeeze=False)
    extents = [p["geo"] for p in panels if math.isfinite(p["geo"])]
    shared = max(extents + [airy if math.isfinite(airy) else 0.0, 1e-3])
    t = np.linspace(0.0, 2.0 * np.pi, 181)
    for ax, panel in zip(axes[0], panels):
        for k, w in enumerate(waves):
            ax.plot(panel["x"][k], panel["y"][k], ".", ms=2, color=wavelength_color(w),
                    label=f"{w:g} µm")  # fmt: skip
        if math.isfinite(airy):
            ax.plot(airy * np.cos(t), airy * np.sin(t), "k-", lw=0.8, label="Airy disc")
        own = max(panel["geo"] if math.isfinite(panel["geo"]) else 0.0, airy, 1e-3)
        half = 1.1 * (shared if common_scale else own)
        ax.set_xlim(-half, half)
        ax.set_ylim(-half, half)
        ax.set_aspect("equal", adjustable="box")
        ax.set_title(_field_text(optic, panel["field"]), fontsize=8)
        ax.set_xlabel("x (µm)", fontsize=8)
        ax.set_ylabel("y (µm)", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.text(
            0.03,
            0.03,
            f"RMS {panel['rms']:.3g} µm\nGEO {panel['geo']:.3g} µm",
            transform=ax.transAxes,
            fontsize=7,
            va="bottom",
        )
    axes[0][-1].legend(fontsize=7, markerscale=4, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    scale = "common scale" if common_scale else "each panel to its spot"
    fig.suptitle(
        f"{optic.name or 'lens'}: spot diagram ({', '.join(f'{w:g}' for w in waves)} µm; "
        f"Airy radius {airy:.3g} µm at {optic.primary_wavelength:g} µm; {scale})",
        fontsize=9,
    )
    fig.tight_layout()
    return fig


def through_focus_spot_figure(result, optic=None):
    """RMS (solid) and GEO (dashed) spot radius in µm against defocus per field.

    The best focus (least field-weighted mean square RMS) is the dotted
    vertical line, each field's own least-RMS defocus a dot on its curve, and
    the Airy radius (primary wavelength) the grey line.
    """
    from .plot_wavefront import _COLORS, _label

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8.4, 4.4))
    z = np.asarray(be.to_numpy(be.detach(result.defocus)), float)
    rms = np.asarray(be.to_numpy(be.detach(result.rms)), float) * 1e3
    geo = np.asarray(be.to_numpy(be.detach(result.geo)), float) * 1e3
    own = np.asarray(be.to_numpy(be.detach(result.field_best_focus)), float)
    for i, field in enumerate(result.fields):
        color = _COLORS[i % len(_COLORS)]
        ax.plot(z, rms[:, i], color=color, label=f"{_label(field, optic)} RMS")
        ax.plot(z, geo[:, i], color=color, linestyle="--", linewidth=0.9, label="GEO")
        if math.isfinite(own[i]) and z.min() <= own[i] <= z.max():
            ax.plot([own[i]], [np.interp(own[i], z, rms[:, i])], "o", color=color, ms=4)
    best = float(be.item(be.detach(result.best_focus)))
    if math.isfinite(best):
        ax.axvline(best, color="k", linewidth=0.8, linestyle=":", label=f"best focus {best:.4g} mm")
    if optic is not None:
        airy = airy_radius(optic) * 1e3
        if math.isfinite(airy):
            ax.axhline(airy, color="0.5", linewidth=0.8, label=f"Airy radius {airy:.3g} µm")
    name = f"{optic.name}: " if optic is not None and optic.name else ""
    waves = result.wavelengths
    spectrum = (
        f"polychromatic {min(waves):.3g}-{max(waves):.3g} µm"
        if result.polychromatic
        else f"{waves[0]:g} µm"
    )
    ax.set_title(
        f"{name}through-focus spot radius about the {result.reference}\n"
        f"{spectrum}, {result.rings} hexapolar rings",
        fontsize=9,
    )
    ax.set_xlabel("image-surface shift (mm, + away from the lens)")
    ax.set_ylabel("spot radius (µm)")
    if z.size > 1:
        ax.set_xlim(z.min(), z.max())
    ax.set_ylim(0, None)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
