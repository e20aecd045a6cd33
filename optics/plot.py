"""Matplotlib figures: the 2-D layout with traced rays, and spot diagrams.

matplotlib is imported lazily (inside the functions) and with the non-GUI
"Agg" backend when no display backend was chosen, so plotting works headless.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from . import backend as be
from .frames import surface_frames
from .sampling import fan
from .trace import trace_bundle, trace_rays

_COLORS = ("tab:blue", "tab:green", "tab:red", "tab:purple", "tab:orange", "tab:brown")


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        from .errors import OpticsError

        raise OpticsError("plotting needs matplotlib: pip install 'optics[plot]'") from exc
    if "MPLBACKEND" not in os.environ:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _semi_apertures(optic, ray_paths):
    """Semi-diameter per surface: given, else the largest traced ray height (mm)."""
    heights = np.zeros(len(optic.surfaces))
    for path in ray_paths:
        for i, rays in enumerate(path):
            ok = be.to_numpy(rays.valid)
            if ok.any():
                h = np.hypot(be.to_numpy(rays.x)[ok], be.to_numpy(rays.y)[ok])
                heights[i] = max(heights[i], float(h.max()))
    out = []
    for i, surface in enumerate(optic.surfaces):
        sd = surface.semi_diameter
        out.append(float(be.item(sd)) if sd is not None else heights[i] * 1.05)
    return out


def plot_layout(optic, ax=None, n_rays: int = 7):
    """Draw the y–z section: surface profiles and a y-fan of rays per field.

    Returns the matplotlib Axes.
    """
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4))
    px, py = fan(n_rays, "y")
    paths = []
    for k, (hx, hy) in enumerate(optic.fields.normalized()):
        path = trace_rays(optic, hx, hy, px, py, record=True)
        paths.append(path)
        z = np.stack([be.to_numpy(r.z) for r in path[1:]])
        y = np.stack([be.to_numpy(r.y) for r in path[1:]])
        ok = np.logical_and.reduce([be.to_numpy(r.valid) for r in path[1:]])
        ax.plot(z[:, ok], y[:, ok], color=_COLORS[k % len(_COLORS)], lw=0.7)
    semi = _semi_apertures(optic, paths)
    frames = surface_frames(optic.surfaces)
    for i in range(1, len(optic.surfaces)):
        ys = np.linspace(-semi[i], semi[i], 61)
        xs = np.zeros_like(ys)
        with be.no_grad():
            zs = be.to_numpy(optic.surfaces[i].geometry.sag(be.asarray(xs), be.asarray(ys)))
            gx, gy, gz, *_ = frames[i].to_global(
                be.asarray(xs), be.asarray(ys), be.asarray(zs), 0.0, 0.0, 1.0
            )
        ax.plot(be.to_numpy(gz), be.to_numpy(gy), color="black", lw=1.0)
    ax.set_xlabel("z (mm)")
    ax.set_ylabel("y (mm)")
    ax.set_title(optic.name or "layout")
    ax.set_aspect("equal", adjustable="datalim")
    return ax


def plot_spots(optic, axes=None, rings: int = 6):
    """Spot diagrams (x, y relative to the primary chief ray) per field, all wavelengths.

    Returns the list of Axes.
    """
    plt = _pyplot()
    bundle = trace_bundle(optic, rings=rings)
    fields = bundle.fields
    if axes is None:
        _, axes = plt.subplots(1, len(fields), figsize=(3 * len(fields), 3), squeeze=False)
        axes = list(axes[0])
    chief = {name: be.to_numpy(getattr(bundle.reference_chief, name)) for name in ("x", "y")}
    rays = {name: be.to_numpy(getattr(bundle.rays, name)) for name in ("x", "y", "valid")}
    for f, (ax, (hx, hy)) in enumerate(zip(axes, fields)):
        for k, wavelength in enumerate(bundle.wavelengths):
            ok = rays["valid"][k, f]
            x = (rays["x"][k, f][ok] - chief["x"][f]) * 1000
            y = (rays["y"][k, f][ok] - chief["y"][f]) * 1000
            ax.plot(x, y, ".", ms=2, color=_COLORS[k % len(_COLORS)], label=f"{wavelength:g} µm")
        ax.set_title(f"field ({hx:g}, {hy:g})")
        ax.set_xlabel("x (µm)")
        ax.set_aspect("equal", adjustable="datalim")
    axes[0].set_ylabel("y (µm)")
    axes[0].legend(fontsize="small")
    return axes


def layout_and_spots_figure(optic, rings: int = 6):
    """One figure: the layout on top, a spot diagram per field below."""
    plt = _pyplot()
    n = len(optic.fields.values)
    fig = plt.figure(figsize=(max(9, 3 * n), 7.5))
    grid = fig.add_gridspec(2, n, height_ratios=[1.3, 1])
    plot_layout(optic, fig.add_subplot(grid[0, :]))
    plot_spots(optic, [fig.add_subplot(grid[1, i]) for i in range(n)], rings=rings)
    fig.tight_layout()
    return fig


def save_figure(fig, path):
    """Write a figure atomically (temporary file in the same folder, then rename)."""
    plt = _pyplot()
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    suffix = os.path.splitext(path)[1] or ".png"
    fd, tmp = tempfile.mkstemp(prefix=".optics-", suffix=suffix, dir=folder)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
        plt.close(fig)
