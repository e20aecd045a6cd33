"""The Monte Carlo figure: a histogram of the criterion and its cumulative probability (PNG).

matplotlib is imported here, when a figure is asked for, never at package import.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._atomic import write_atomically
from ..errors import ConfigurationError


class MatplotlibUnavailableError(ConfigurationError, ImportError):
    """A figure was asked for but matplotlib is not installed."""


def save_monte_carlo_figure(result, path, title=""):
    """Write the histogram and cumulative probability of ``result.values`` to ``path``.

    Parameters
    ----------
    result : MonteCarlo
    path : str or Path
        Image file; the format follows the suffix (.png, .svg, .pdf).
    title : str
        Figure title (the criterion, say).

    Returns
    -------
    None
        The figure is written atomically to ``path`` (120 dpi for raster formats).

    Raises
    ------
    MatplotlibUnavailableError
        When matplotlib is not installed.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise MatplotlibUnavailableError(
            "the Monte Carlo figure needs matplotlib: pip install 'optics[plot]'"
        ) from exc
    values = np.sort(result.values[np.isfinite(result.values)])
    fig = Figure(figsize=(9.0, 3.8), layout="constrained")
    left, right = fig.subplots(1, 2)
    left.hist(values, bins=max(10, min(60, int(np.sqrt(values.size)) * 2)), color="0.4")
    left.set_xlabel("criterion")
    left.set_ylabel("trials")
    cumulative = np.arange(1, values.size + 1) / result.trials
    right.step(values, 100.0 * cumulative, where="post", color="C0")
    right.set_xlabel("criterion")
    right.set_ylabel("cumulative probability (%)")
    right.set_ylim(0.0, 100.0)
    if result.threshold is not None:
        for ax in (left, right):
            ax.axvline(result.threshold, color="C3", linestyle="--", label="threshold")
        right.legend(loc="lower right")
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    stats = result.statistics()
    fig.suptitle(
        f"{title}  N = {result.trials}, seed {result.seed}: mean {stats['mean']:.4g}, "
        f"p90 {stats['p90']:.4g}".strip()
    )
    file_format = Path(path).suffix.lower().lstrip(".") or None
    write_atomically(path, lambda temporary: fig.savefig(temporary, dpi=120, format=file_format))
