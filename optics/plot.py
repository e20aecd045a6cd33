"""Matplotlib figures: the 2-D layout with traced rays, and spot diagrams.

matplotlib is imported lazily (inside the functions) and with the non-GUI
"Agg" backend when no display backend was chosen, so plotting works headless.
"""

from __future__ import annotations

import os

import numpy as np

from . import backend as be
from ._atomic import write_atomically
from .analysis.spot import in_image_frame
from .errors import OpticsError
from .frames import surface_frames
from .materials import AIR
from .sampling import fan
from .trace import trace_bundle, trace_surfaces

FIELD_COLORS = (
    "tab:purple",
    "tab:brown",
    "tab:gray",
    "tab:pink",
    "tab:olive",
    "darkslategray",
)
"""Colours of the fields in the layout: none of them is a wavelength's spectral colour."""
_GLASS = "#dbe9f6"  # fill of a lens element
_OBJECT_SPACE = 0.15  # incoming rays of an object at infinity: this fraction of the track


def pyplot():
    """matplotlib.pyplot, imported on first use (the headless Agg backend unless one is set)."""
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise OpticsError("plotting needs matplotlib: pip install 'optics[plot]'") from exc
    if "MPLBACKEND" not in os.environ:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def wavelength_color(wavelength):
    """An RGB colour for a wavelength in µm: its spectral hue, darkened to show on white.

    Wavelengths outside 0.38-0.75 µm take the colour of the nearest end.
    """
    nm = min(max(float(wavelength) * 1000.0, 380.0), 750.0)
    if nm < 440:
        rgb = ((440 - nm) / 60, 0.0, 1.0)
    elif nm < 490:
        rgb = (0.0, (nm - 440) / 50, 1.0)
    elif nm < 510:
        rgb = (0.0, 1.0, (510 - nm) / 20)
    elif nm < 580:
        rgb = ((nm - 510) / 70, 1.0, 0.0)
    elif nm < 645:
        rgb = (1.0, (645 - nm) / 65, 0.0)
    else:
        rgb = (1.0, 0.0, 0.0)
    return tuple(0.8 * c for c in rgb)


def field_label(optic, k) -> str:
    """The field point k in its own units: ``14°``, ``5 mm`` or ``(1, 2) mm``."""
    x, y = optic.fields.values[k]
    unit = "°" if optic.fields.type == "angle" else " mm"
    return f"{y:g}{unit}" if x == 0 else f"({x:g}, {y:g}){unit}"


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


def _section(frame, surface, ys, sag_at=None):
    """Global (z, y) of the surface's y–z section at local heights ``ys`` (mm).

    ``sag_at`` (same length) gives the local heights where the sag is taken;
    by default ``ys`` itself (a flat beyond the clear aperture takes the
    sag of its edge).
    """
    ys = np.asarray(ys, dtype=float)
    where = ys if sag_at is None else np.asarray(sag_at, dtype=float)
    zeros = np.zeros_like(ys)
    with be.no_grad(), np.errstate(invalid="ignore"):
        zs = be.to_numpy(surface.geometry.sag(be.asarray(zeros), be.asarray(where)))
        _, gy, gz, *_ = frame.to_global(
            be.asarray(zeros), be.asarray(ys), be.asarray(zs), 0.0, 0.0, 1.0
        )
    gz, gy = be.to_numpy(gz), be.to_numpy(gy)
    drawn = np.isfinite(gz) & np.isfinite(gy)  # past a sphere's rim the sag has no value
    return gz[drawn], gy[drawn]


def _profile(frame, surface, semi, edge, side=1.0):
    """One side's profile from the axis to ``edge`` (a flat past the clear ``semi``)."""
    inner = np.linspace(0.0, semi, 31) * side
    outer = np.array([edge]) * side if edge > semi else np.empty(0)
    ys = np.concatenate([inner, outer])
    sag_at = np.concatenate([inner, np.full(outer.shape, semi * side)])
    return _section(frame, surface, ys, sag_at)


def _draw_surfaces(ax, optic, semi, frames):
    """Lens elements as closed, filled outlines; other surfaces as lines; the stop marked."""
    surfaces = optic.surfaces
    image = len(surfaces) - 1
    drawn = set()
    for i in range(1, image):
        material = surfaces[i].material
        if material.is_mirror or material == AIR:
            continue
        j = i + 1  # the element is the glass between surfaces i and j
        edge = max(semi[i], semi[j])
        outline_z, outline_y = [], []
        for k, side in ((i, -1.0), (i, 1.0)):
            z, y = _profile(frames[k], surfaces[k], semi[k], edge, side)
            outline_z.append(z if side > 0 else z[::-1])
            outline_y.append(y if side > 0 else y[::-1])
        for k, side in ((j, 1.0), (j, -1.0)):
            z, y = _profile(frames[k], surfaces[k], semi[k], edge, side)
            outline_z.append(z[::-1] if side > 0 else z)
            outline_y.append(y[::-1] if side > 0 else y)
        z, y = np.concatenate(outline_z), np.concatenate(outline_y)
        ax.fill(z, y, color=_GLASS, zorder=0)
        ax.plot(np.append(z, z[0]), np.append(y, y[0]), color="black", lw=1.0, zorder=3)
        drawn.update((i, j))
    for i in range(1, len(surfaces)):
        if i in drawn:
            continue
        z, y = _section(frames[i], surfaces[i], np.linspace(-semi[i], semi[i], 61))
        width = 2.0 if surfaces[i].material.is_mirror else 1.0
        ax.plot(z, y, color="black", lw=width, zorder=3)
    stop = optic.stop_index
    top = semi[stop]
    for side in (1.0, -1.0):
        z, y = _section(
            frames[stop], surfaces[stop], side * np.array([top, 1.35 * top]), [side * top] * 2
        )
        ax.plot(z, y, color="black", lw=3.0, solid_capstyle="butt", zorder=4)
    z, y = _section(frames[stop], surfaces[stop], [1.4 * top], [top])
    ax.annotate("stop", (z[0], y[0]), ha="center", va="bottom", fontsize="small")


def plot_layout(optic, ax=None, n_rays: int = 7):
    """Draw the y–z section: closed lens elements, the stop, and a y-fan of rays per field.

    Rays are traced at the primary wavelength and coloured by field
    (:data:`FIELD_COLORS`, with a legend); an object at a finite distance is
    drawn with the rays leaving it, an object at infinity with a stretch of
    incoming parallel rays.  Lengths in mm.

    Returns the matplotlib Axes.
    """
    plt = pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4))
    px, py = fan(n_rays, "y")
    frames = surface_frames(optic.surfaces)
    finite = not optic.object_at_infinity
    vertices = [float(be.item(frame.z)) for frame in frames[1:]]
    lead = _OBJECT_SPACE * max(max(vertices) - min(vertices), 1.0)  # mirrors fold the track
    paths = []
    for k, (hx, hy) in enumerate(optic.fields.normalized()):
        path = trace_surfaces(optic, (hx, hy), (px, py))
        paths.append(path)
        z = np.stack([be.to_numpy(r.z) for r in path[1:]])
        y = np.stack([be.to_numpy(r.y) for r in path[1:]])
        if finite:  # the object point itself starts the rays
            z = np.vstack([be.to_numpy(path[0].z)[None] + 0 * z[:1], z])
            y = np.vstack([be.to_numpy(path[0].y)[None] + 0 * y[:1], y])
        else:  # incoming rays, drawn back from the first surface
            incoming = path[0]  # the launched rays carry the object-space direction
            n = be.to_numpy(incoming.N)
            back = lead / np.maximum(n, be.machine_eps(incoming.N))
            z = np.vstack([z[:1] - back * n, z])
            y = np.vstack([y[:1] - back * be.to_numpy(incoming.M), y])
        valid = np.stack([be.to_numpy(r.valid) for r in path[1:]])
        ok = valid.all(axis=0)
        color = FIELD_COLORS[k % len(FIELD_COLORS)]
        lines = ax.plot(z[:, ok], y[:, ok], color=color, lw=0.7)
        if lines:
            lines[0].set_label(field_label(optic, k))
        else:  # still in the legend, saying why no ray is drawn
            ax.plot([], [], color=color, lw=0.7, label=f"{field_label(optic, k)} (vignetted)")
        # A ray lost on the way (blocked by an aperture or obscuration) ends at the
        # surface that stops it (row 0 of z and y is where it starts).
        for j in np.flatnonzero(~ok & be.to_numpy(path[0].valid)):
            last = int(np.argmin(valid[:, j])) + 1
            ax.plot(z[: last + 1, j], y[: last + 1, j], color=color, lw=0.5)
    semi = _semi_apertures(optic, paths)
    _draw_surfaces(ax, optic, semi, frames)
    if finite:
        heights = [be.to_numpy(path[0].y) for path in paths]
        top = max(float(np.max(np.abs(h))) for h in heights) or semi[1]
        z0 = float(be.item(frames[0].z))
        ax.plot([z0, z0], [-top, top], color="black", lw=1.0, ls="--")
        ax.annotate("object", (z0, top), ha="center", va="bottom", fontsize="small")
    ax.set_xlabel("z (mm)")
    ax.set_ylabel("y (mm)")
    ax.set_title(optic.name or "layout")
    ax.set_aspect("equal", adjustable="datalim")
    ax.legend(title="field", fontsize="small", loc="upper left")
    return ax


def plot_spots(optic, axes=None, rings: int = 6):
    """Spot diagrams per field, every wavelength in its spectral colour (with a legend).

    Rays come from one :func:`~optics.trace.trace_bundle` (hexapolar pupil,
    ``rings`` rings).  Positions are relative to the chief ray of the primary
    wavelength (the centroid where that chief ray fails), in µm.  A field whose
    rays are all vignetted gets a note in its panel.

    Returns the list of Axes.
    """
    plt = pyplot()
    bundle = trace_bundle(optic, pupil=rings)
    fields = bundle.fields
    if axes is None:
        _, axes = plt.subplots(1, len(fields), figsize=(3 * len(fields), 3), squeeze=False)
        axes = list(axes[0])
    reference, traced = (
        in_image_frame(optic, bundle.reference_chief),
        in_image_frame(optic, bundle.rays),
    )
    chief = {name: be.to_numpy(getattr(reference, name)) for name in ("x", "y")}
    rays = {name: be.to_numpy(getattr(traced, name)) for name in ("x", "y", "valid")}
    for f, ax in enumerate(axes[: len(fields)]):
        ok = rays["valid"][:, f]
        centre = (chief["x"][f], chief["y"][f])
        if not np.all(np.isfinite(centre)) and ok.any():  # no chief ray: the centroid instead
            centre = (rays["x"][:, f][ok].mean(), rays["y"][:, f][ok].mean())
        for k, wavelength in enumerate(bundle.wavelengths):
            x = (rays["x"][k, f][ok[k]] - centre[0]) * 1000
            y = (rays["y"][k, f][ok[k]] - centre[1]) * 1000
            color = wavelength_color(wavelength)
            ax.plot(x, y, ".", ms=2, color=color, label=f"{wavelength:.4g} µm")
        if not ok.any():
            ax.text(
                0.5,
                0.5,
                "every ray vignetted",
                transform=ax.transAxes,
                ha="center",
                va="center",
                fontsize="small",
                color="0.3",
            )
            ax.set_xticks([])
            ax.set_yticks([])
        else:  # at least ±1 µm: a near-perfect spot shows as a point, not as 1e-10 µm noise
            half = max(_largest_offset(ax), 1.0)
            ax.set_xlim(-1.1 * half, 1.1 * half)
            ax.set_ylim(-1.1 * half, 1.1 * half)
        ax.set_title(f"field {field_label(optic, f)}")
        ax.set_xlabel("x (µm)")
        ax.set_ylabel("y (µm)")
        ax.set_aspect("equal", adjustable="box")
    axes[-1].legend(
        title="wavelength",
        fontsize="small",
        markerscale=4,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
    )
    return axes


def _largest_offset(ax) -> float:
    """The largest |x| or |y| of the points plotted in ``ax`` (µm)."""
    points = [line.get_xydata() for line in ax.lines if len(line.get_xdata())]
    return float(np.abs(np.concatenate(points)).max()) if points else 0.0


def layout_and_spots_figure(optic, rings: int = 6):
    """One figure: the layout on top, a spot diagram per field below."""
    plt = pyplot()
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
    pyplot()
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
    plt = pyplot()
    path = os.fspath(path)
    check_image_path(path)
    file_format = os.path.splitext(path)[1].lower().lstrip(".")
    try:
        write_atomically(
            path, lambda temporary: fig.savefig(temporary, dpi=120, format=file_format)
        )
    finally:
        plt.close(fig)
