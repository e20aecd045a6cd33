"""The lens file's ``[configurations]`` table: per-configuration values over the base.

::

    [configurations]
    count = 3                                   # optional: the length of every row
    names = ["wide", "middle", "tele"]          # optional
    [configurations.values]
    "surfaces[5].thickness" = [25.0, 12.0, 2.0] # a parameter path: one number each
    "surfaces[9].thickness" = [5.0, 15.0, 30.0]
    "fields.values[1][1]" = [20.0, 10.0, 5.0]
    "surfaces[3].material" = ["N-BK7", "N-BK7", "N-SK16"]
    stop = [4, 4, 4]
    temperature = [20.0, 20.0, 40.0]            # °C; pressure in atm

docs/configurations.md describes the keys; :mod:`optics.configurations` applies them.
"""

from __future__ import annotations

from collections.abc import Mapping

from .. import backend as be
from ..configurations import (
    ConfigurationRow,
    Configurations,
    check_key,
    configuration,
)
from ..errors import ConfigurationError, LensFileError, OpticsError
from ..limits import MAX_CONFIGURATIONS
from ._values import check_keys, describe, is_number

__all__ = ["CONFIGURATION_KEYS", "attach_configurations", "configurations_to_table"]

CONFIGURATION_KEYS = ("count", "names", "values")


def attach_configurations(optic, table, where):
    """Set ``optic.configurations`` from a ``[configurations]`` table and check every
    configuration builds; LensFileError naming the key and the configuration."""
    if not isinstance(table, Mapping):
        raise LensFileError(f"{where} must be a table, not {describe(table)}")
    check_keys(table, CONFIGURATION_KEYS, where)
    values = table.get("values", {})
    if not isinstance(values, Mapping):
        raise LensFileError(
            f"{where}: key 'values' must be a table of key = [one value per configuration], "
            f"not {describe(values)}"
        )
    count = table.get("count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < 1):
        raise LensFileError(f"{where}: key 'count' must be an integer >= 1, not {describe(count)}")
    if count is not None and count > MAX_CONFIGURATIONS:
        raise LensFileError(
            f"{where}: key 'count' is {count}, more than the limit of {MAX_CONFIGURATIONS} "
            "configurations (optics.limits)"
        )
    rows = []
    for key, row in values.items():
        here = f"{where}: key 'values.{key}'"
        if not isinstance(row, list) or not row:
            raise LensFileError(f"{here} must be an array of one value per configuration")
        if count is None:
            count = len(row)
            if count > MAX_CONFIGURATIONS:
                raise LensFileError(
                    f"{here} has {count} values, more than the limit of {MAX_CONFIGURATIONS} "
                    "configurations (optics.limits)"
                )
        if len(row) != count:
            raise LensFileError(f"{here} has {len(row)} values for {count} configurations")
        try:
            check_key(optic, key, here)
        except OpticsError as exc:
            raise LensFileError(str(exc)) from exc
        rows.append(ConfigurationRow(str(key), list(row)))
    if count is None:
        raise LensFileError(f"{where}: give key 'count' or at least one row in 'values'")
    names = table.get("names")
    if names is not None and not (
        isinstance(names, list) and all(isinstance(n, str) for n in names)
    ):
        raise LensFileError(f"{where}: key 'names' must be an array of strings")
    try:
        optic.configurations = Configurations(rows, count, names)
        for number in range(1, count + 1):
            configuration(optic, number)
    except ConfigurationError as exc:
        raise LensFileError(f"{where}: {exc}") from exc
    return optic


def configurations_to_table(configurations) -> dict:
    """The ``[configurations]`` table of a Configurations object."""
    table = {"count": configurations.count}
    if configurations.names is not None:
        table["names"] = list(configurations.names)
    table["values"] = {row.key: [_plain(v) for v in row.values] for row in configurations.rows}
    return table


def _plain(value):
    if isinstance(value, (str, bool, int, float, dict, list)) or value is None:
        return value
    if is_number(value):
        return float(value)
    return float(be.item(value))  # a 0-d array or tensor (an optimized value)
