"""Tolerancing: sensitivities by autodiff and Monte Carlo trials on Dask."""

from .. import backend as _be
from ._figure import save_monte_carlo_figure
from ._model import ToleranceModel, model_from_lens
from ._montecarlo import MonteCarlo, draw, standard_deviations, trial_seeds
from ._results import write_trials
from ._runner import (
    DaskUnavailableError,
    SchedulerUnreachableError,
    WorkersLostError,
    monte_carlo,
)
from ._section import ITEM_KINDS, Item, ToleranceSection, read_section
from ._sensitivity import Sensitivity, derivatives_at_nominal, finite_differences, sensitivity

__all__ = [
    "ITEM_KINDS",
    "DaskUnavailableError",
    "Item",
    "MonteCarlo",
    "SchedulerUnreachableError",
    "Sensitivity",
    "ToleranceModel",
    "ToleranceSection",
    "WorkersLostError",
    "derivatives_at_nominal",
    "draw",
    "finite_differences",
    "model_from_lens",
    "monte_carlo",
    "read_section",
    "save_monte_carlo_figure",
    "sensitivity",
    "standard_deviations",
    "trial_seeds",
    "write_trials",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
