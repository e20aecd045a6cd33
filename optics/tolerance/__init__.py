"""Tolerancing: sensitivities by autodiff and Monte Carlo trials on Dask."""

from ._model import ToleranceModel, model_from_lens
from ._section import ITEM_KINDS, Item, ToleranceSection, read_section
from ._sensitivity import Sensitivity, derivatives_at_nominal, finite_differences, sensitivity

__all__ = [
    "ITEM_KINDS",
    "Item",
    "Sensitivity",
    "ToleranceModel",
    "ToleranceSection",
    "derivatives_at_nominal",
    "finite_differences",
    "model_from_lens",
    "read_section",
    "sensitivity",
]
