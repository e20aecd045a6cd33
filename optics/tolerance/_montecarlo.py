"""Monte Carlo trials: per-trial seeds, draws, one trial, and the statistics of many.

Trial i draws with its own generator, ``numpy.random.default_rng(children[i])``
where ``children = numpy.random.SeedSequence(seed).spawn(N)``: a trial's draws
depend on (seed, i) alone, never on which worker runs it or when, so the
results are identical for any number of workers and any completion order.

Each component draws one uniform number u in [0, 1) and maps it:

- ``uniform``: δ = t (2u − 1), uniform on [−t, t];
- ``normal``: δ = σ Φ⁻¹(Φ(−2) + u (Φ(2) − Φ(−2))) with σ = t/2, a normal
  distribution truncated at ±2σ = ±t (inverse-CDF sampling, one number each).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from .. import backend as be
from .._notebook import NotebookView

#: A normal item's plus_minus is this many standard deviations (and the truncation).
SIGMAS = 2.0
_LOW, _HIGH = float(ndtr(-SIGMAS)), float(ndtr(SIGMAS))


def trial_seeds(seed, trials) -> list:
    """``numpy.random.SeedSequence(seed).spawn(trials)``: the seed of every trial, in order.

    Parameters
    ----------
    seed : int or None
        The run's seed (None: fresh entropy from the operating system).
    trials : int
        Number of trials N.

    Returns
    -------
    list of numpy.random.SeedSequence
        N child seed sequences; trial i draws from child i alone.
    """
    return np.random.SeedSequence(seed).spawn(trials)


def draw(model, seed_sequence) -> np.ndarray:
    """The component values of one trial, ndarray (m,), from its seed sequence.

    Parameters
    ----------
    model : ToleranceModel
        Its m components (``half_widths`` t_k, ``distributions``).
    seed_sequence : numpy.random.SeedSequence
        The trial's seed (one of :func:`trial_seeds`).

    Returns
    -------
    ndarray, shape (m,)
        δ_k in the components' units: uniform on [−t_k, t_k], or normal with σ = t_k / 2
        truncated at ±t_k (module docstring); one uniform number per component.
    """
    u = np.random.default_rng(seed_sequence).random(len(model))
    normal = np.array([d == "normal" for d in model.distributions], dtype=bool)
    values = model.half_widths * (2.0 * u - 1.0)
    sigma = model.half_widths / SIGMAS
    truncated = sigma * ndtri(_LOW + u * (_HIGH - _LOW))
    return np.where(normal, truncated, values)


def standard_deviations(model) -> np.ndarray:
    """The standard deviation of each component's distribution, ndarray (m,).

    Uniform on [−t, t]: t/√3; normal truncated at ±2σ:
    σ √(1 − 2·2 φ(2) / (Φ(2) − Φ(−2))).

    Parameters
    ----------
    model : ToleranceModel
        Its m components (``half_widths`` t_k, ``distributions``).

    Returns
    -------
    ndarray, shape (m,)
        The standard deviations, in the components' units.
    """
    beta = SIGMAS
    phi = math.exp(-0.5 * beta * beta) / math.sqrt(2.0 * math.pi)
    truncated = math.sqrt(1.0 - 2.0 * beta * phi / (_HIGH - _LOW))
    normal = np.array([d == "normal" for d in model.distributions], dtype=bool)
    return np.where(
        normal, model.half_widths / SIGMAS * truncated, model.half_widths / math.sqrt(3.0)
    )


def run_trial(model, index, seed_sequence, backend=None):
    """Trial ``index``: draw, apply, compensate, evaluate.

    Parameters
    ----------
    model : ToleranceModel
    index : int
    seed_sequence : numpy.random.SeedSequence
    backend : str, optional
        The array backend to run on (default: the configured one).

    Returns
    -------
    tuple
        (index, draws ndarray (m,), criterion float; NaN when the lens failed).
    """
    values = draw(model, seed_sequence)
    with be.using(backend):
        return index, values, model.evaluate(values)


@dataclass(repr=False)
class MonteCarlo(NotebookView):
    """The trials of one Monte Carlo run and their statistics.

    Attributes
    ----------
    seed : int
    labels : list of str
        The components, one column of ``draws`` each.
    draws : ndarray, shape (N, m)
        Component values of every trial, in trial order.
    values : ndarray, shape (N,)
        The criterion of every trial (NaN where the lens failed), in trial order.
    threshold : float or None
    indices : ndarray of int, shape (N,), optional
        The trial number of each row (default 0 .. N-1); an interrupted run
        keeps only the trials it finished, with their own numbers.
    interrupted : bool
        True when the run was cut short (Ctrl-C, SIGTERM, SIGHUP): the rows
        are the trials finished by then, each exactly as a full run gives it.
    requested : int, optional
        The trials asked for (default N).
    """

    seed: int
    labels: list
    draws: np.ndarray
    values: np.ndarray
    threshold: float | None = None
    indices: np.ndarray | None = None
    interrupted: bool = False
    requested: int | None = None

    def __post_init__(self):
        if self.indices is None:
            self.indices = np.arange(len(self.values))
        if self.requested is None:
            self.requested = len(self.values)

    @property
    def trials(self) -> int:
        """N."""
        return len(self.values)

    @property
    def failed(self) -> int:
        """Trials whose lens could not be traced or compensated (NaN criterion)."""
        return int(np.count_nonzero(~np.isfinite(self.values)))

    def statistics(self) -> dict:
        """mean, std (ddof 1), p50, p90, p98 of the finite values, and the yield.

        The yield is the fraction of all N trials with criterion <= threshold
        (a failed trial fails), None without a threshold.  Percentiles are
        numpy's linear interpolation.
        """
        finite = self.values[np.isfinite(self.values)]
        stats = {"mean": math.nan, "std": math.nan, "p50": math.nan, "p90": math.nan}
        stats["p98"] = math.nan
        if finite.size:
            stats["mean"] = float(np.mean(finite))
            stats["std"] = float(np.std(finite, ddof=1)) if finite.size > 1 else 0.0
            p50, p90, p98 = np.percentile(finite, [50.0, 90.0, 98.0])
            stats.update(p50=float(p50), p90=float(p90), p98=float(p98))
        stats["yield"] = None
        if self.threshold is not None:
            stats["yield"] = float(np.count_nonzero(finite <= self.threshold) / self.trials)
        return stats

    def as_dict(self) -> dict:
        """``trials``, ``seed``, the statistics and ``values`` (a list, in trial order)."""
        return {
            "trials": self.trials,
            "seed": self.seed,
            **self.statistics(),
            "values": [float(v) for v in self.values],
        }
