"""Matplotlib figures: the 2-D layout with traced rays, and spot diagrams.

matplotlib is imported lazily (inside the functions) and with the non-GUI
"Agg" backend when no display backend was chosen, so plotting works headless.
"""

from __future__ import annotations

import os
import secrets

import numpy as np

from . import backend as be
from .analysis.spot import normalized_fields
from .errors import OpticsError
from .frames import surface_frames
from .sampling import fan, hexapolar
from .trace import trace_rays

_COLORS = ("tab:blue", "tab:green", "tab:red", "tab:purple", "tab:orange", "tab:brown")


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
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
    for k, (hx, hy) in enumerate(normalized_fields(optic)):
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
    fields = normalized_fields(optic)
    if axes is None:
        _, axes = plt.subplots(1, len(fields), figsize=(3 * len(fields), 3), squeeze=False)
        axes = list(axes[0])
    px, py = hexapolar(rings)
    for ax, (hx, hy) in zip(axes, fields):
        chief = trace_rays(optic, hx, hy, 0.0, 0.0)
        cx, cy = float(be.item(chief.x)), float(be.item(chief.y))
        for k, wavelength in enumerate(optic.wavelengths.values):
            rays = trace_rays(optic, hx, hy, px, py, wavelength)
            ok = be.to_numpy(rays.valid)
            x = (be.to_numpy(rays.x)[ok] - cx) * 1000
            y = (be.to_numpy(rays.y)[ok] - cy) * 1000
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


def check_image_path(path):
    """Raise OpticsError unless a figure can be saved at ``path``; call it before the work.

    The extension must be a format matplotlib writes (png, pdf, svg ...) and
    the folder must exist and be writable.
    """
    _pyplot()
    from matplotlib.backend_bases import FigureCanvasBase

    path = os.fspath(path)
    extension = os.path.splitext(path)[1].lower().lstrip(".")
    formats = FigureCanvasBase.get_supported_filetypes()
    if extension not in formats:
        kind = f".{extension} files" if extension else "a file without an extension"
        raise OpticsError(
            f"{path}: cannot write a figure as {kind}; "
            f"use one of {', '.join('.' + f for f in sorted(formats))}"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise OpticsError(f"{path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise OpticsError(f"{path}: the folder {folder} is not writable")
    if os.path.isdir(path):
        raise OpticsError(f"{path}: is a folder, not an image file name")


def save_figure(fig, path):
    """Write a figure atomically (a temporary file in the same folder, then a rename).

    The file gets the mode any new file gets (0666 less the umask, usually
    0644), or keeps the mode of the file it replaces.
    """
    plt = _pyplot()
    path = os.fspath(path)
    check_image_path(path)
    target = os.path.realpath(path)
    folder, name = os.path.split(target)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    tmp = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    os.close(os.open(tmp, flags, 0o666))
    try:
        fig.savefig(tmp, dpi=120, format=os.path.splitext(path)[1].lower().lstrip("."))
        if os.path.exists(target):
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
        plt.close(fig)
