"""The lens file's ``[polarization]`` table: the switch for polarization-aware analyses.

::

    [polarization]
    enabled = true             # relative illumination includes the transmission
    input = "unpolarized"      # or "x", "y" (the entrance double-pole basis)

Stored on the Optic as :class:`optics.system.PolarizationSetting` (docs/polarization.md).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import LensFileError
from ..system import POLARIZATION_INPUTS, PolarizationSetting
from ._values import check_keys, describe

__all__ = ["POLARIZATION_KEYS", "polarization_from_table", "polarization_to_table"]

POLARIZATION_KEYS = ("enabled", "input")


def polarization_from_table(table, where) -> PolarizationSetting:
    """The PolarizationSetting of a ``[polarization]`` table; LensFileError naming the key.

    Parameters
    ----------
    table : mapping
        ``enabled`` (bool, default false) and ``input`` (one of POLARIZATION_INPUTS).
    where : str
        The file and section, for messages.
    """
    if not isinstance(table, Mapping):
        raise LensFileError(f"{where} must be a table, not {describe(table)}")
    check_keys(table, POLARIZATION_KEYS, where)
    enabled = table.get("enabled", False)
    if not isinstance(enabled, bool):
        raise LensFileError(
            f"{where}: key 'enabled' must be true or false, not {describe(enabled)}"
        )
    state = table.get("input", "unpolarized")
    if state not in POLARIZATION_INPUTS:
        raise LensFileError(
            f"{where}: key 'input' must be one of {', '.join(map(repr, POLARIZATION_INPUTS))}, "
            f"not {state!r}"
        )
    return PolarizationSetting(enabled, state)


def polarization_to_table(setting: PolarizationSetting) -> dict:
    """``{"enabled": ..., "input": ...}`` (``input`` left out when unpolarized)."""
    table = {"enabled": bool(setting.enabled)}
    if setting.input != "unpolarized":
        table["input"] = setting.input
    return table
