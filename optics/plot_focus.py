"""Figures of the through-focus MTF and of the MTF versus field (matplotlib, on demand)."""

from __future__ import annotations

from . import backend as be
from .plot import pyplot
from .plot_wavefront import _COLORS, _label, _spectrum

__all__ = ["mtf_field_figure", "through_focus_figure"]


def through_focus_figure(result, optic=None):
    """T (solid) and S (dashed) MTF against defocus per field, the best focus marked."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 4.2))
    z = be.to_numpy(result.defocus)
    t, s = be.to_numpy(result.tangential), be.to_numpy(result.sagittal)
    for i, field in enumerate(result.fields):
        color = _COLORS[i % len(_COLORS)]
        ax.plot(z, t[:, i], color=color, label=f"{_label(field)} T")
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
