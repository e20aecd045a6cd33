"""Matplotlib figure of a ghost analysis: ghost irradiances and the brightest ghosts' spots.

matplotlib is imported lazily (inside :func:`optics.plot.pyplot`).
"""

from __future__ import annotations

import numpy as np

from . import backend as be
from .ghosts import trace_ghost
from .plot import pyplot


def ghosts_figure(report, optic, top: int = 10, spots: int = 3):
    """Bars of the ``top`` brightest ghosts' irradiance (log) and the spots of ``spots`` of them.

    Parameters
    ----------
    report : GhostReport
        From :func:`optics.ghosts.ghosts`.
    optic : Optic
        The lens the report is of (its ghosts are traced again for the spot panel).
    top, spots : int
        Ghosts in the bar chart; ghosts whose image-plane spots are drawn (mm).
    """
    plt = pyplot()
    shown = list(report.top(top))
    fig, (bars, spot_ax) = plt.subplots(1, 2, figsize=(11.0, 4.4))
    labels = [f"{i}-{j}" for i, j in (g.surfaces for g in shown)]
    values = [g.irradiance if g.irradiance > 0 else np.nan for g in shown]
    bars.bar(np.arange(len(shown)), values, color="tab:orange")
    bars.set_yscale("log")
    bars.set_xticks(np.arange(len(shown)), labels, rotation=45)
    bars.set_xlabel("ghost (reflected at i, then at j)")
    bars.set_ylabel("irradiance / primary image's")
    bars.set_title(f"{optic.name or 'lens'}: brightest ghosts at {report.wavelength:g} µm")
    for k, ghost in enumerate(shown[:spots]):
        rays = trace_ghost(
            optic, *ghost.surfaces, report.field, rings=6, wavelength=report.wavelength
        )
        valid = be.to_numpy(rays.valid)
        x, y = be.to_numpy(rays.x)[valid], be.to_numpy(rays.y)[valid]
        label = f"{labels[k]}: RMS {ghost.rms_radius:.3g} mm"
        spot_ax.plot(x, y, ".", ms=3, label=label, color=f"C{k}")
    spot_ax.set_aspect("equal", adjustable="datalim")
    spot_ax.set_xlabel("x on the image (mm)")
    spot_ax.set_ylabel("y on the image (mm)")
    spot_ax.set_title("ghost spots on the image plane")
    if shown[:spots]:
        spot_ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
