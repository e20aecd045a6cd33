"""Matplotlib figure of a polarization report: transmission vs field and pupil maps.

matplotlib is imported lazily (:func:`optics.plot.pyplot`); the title names the lens.
"""

from __future__ import annotations

import numpy as np

from .plot import pyplot, wavelength_color

__all__ = ["polarization_figure"]


def polarization_figure(result, optic):
    """Transmission vs field (unpolarized solid, x dashed, y dotted) and two pupil maps.

    Parameters
    ----------
    result : object with ``table`` (:class:`optics.polarization.TransmissionTable`) and
        ``maps`` (:class:`optics.polarization.PupilMaps`)
    optic : Optic
        For the title.
    """
    plt = pyplot()
    table, maps = result.table, result.maps
    fig, axes = plt.subplots(1, 3, figsize=(13.5, 4.2))
    ax = axes[0]
    for w, wavelength in enumerate(table.wavelengths):
        color = wavelength_color(wavelength)
        ax.plot(table.fields, table.unpolarized[w], "-", color=color, label=f"{wavelength:g} µm")
        ax.plot(table.fields, table.x[w], "--", color=color)
        ax.plot(table.fields, table.y[w], ":", color=color)
    ax.set_xlabel("field (normalized y)")
    ax.set_ylabel("transmittance (— unpol., -- x, ··· y)")
    ax.legend(fontsize="small")
    extent = (-1.0, 1.0, -1.0, 1.0)
    for ax, values, label in (
        (axes[1], maps.diattenuation, "diattenuation"),
        (axes[2], np.degrees(maps.retardance), "retardance (°)"),
    ):
        image = ax.imshow(values, origin="lower", extent=extent, cmap="viridis")
        ax.set_xlabel("pupil x")
        ax.set_ylabel("pupil y")
        where = f"field ({maps.field[0]:g}, {maps.field[1]:g}), {maps.wavelength:g} µm"
        ax.set_title(f"{label}, {where}", fontsize="small")
        fig.colorbar(image, ax=ax)
    fig.suptitle(f"{optic.name or 'lens'}: polarization (uncoated unless coated)")
    fig.tight_layout()
    return fig
