"""The lens file's ``[environment]`` table: temperature, pressure and spacer expansion.

::

    [environment]
    temperature = 40.0        # °C (default 20)
    pressure = 1.0            # atm (default 1; 0 is vacuum; 1 atm = 101325 Pa)
    mount_cte = 23.6e-6       # 1/K: the spacers of the air gaps (default aluminium)
    cte = { 4 = 12e-6 }       # 1/K per surface index: the medium after that surface
    mirror_cte = 0.05e-6      # 1/K: substrates of mirrors in air (default: they keep shape)

The prescription in the file is the one at that environment; indices are evaluated
there (docs/thermal.md).  Without the table an optic is at the catalogs' reference
conditions and nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import ConfigurationError, LensFileError
from ..thermal import DEFAULT_ENVIRONMENT, Environment
from ._values import check_keys, describe, is_number, real

__all__ = ["ENVIRONMENT_KEYS", "environment_from_table", "environment_to_table"]

ENVIRONMENT_KEYS = ("temperature", "pressure", "mount_cte", "cte", "mirror_cte")


def environment_from_table(table, where) -> Environment:
    """The Environment of an ``[environment]`` table; LensFileError naming the key."""
    if not isinstance(table, Mapping):
        raise LensFileError(f"{where} must be a table, not {describe(table)}")
    check_keys(table, ENVIRONMENT_KEYS, where)
    values = {
        key: real(table, key, where, default=getattr(DEFAULT_ENVIRONMENT, key))
        for key in ("temperature", "pressure", "mount_cte")
    }
    per_surface = table.get("cte", {})
    if not isinstance(per_surface, Mapping):
        raise LensFileError(
            f"{where}: key 'cte' must be a table of surface index = CTE (1/K), "
            f"not {describe(per_surface)}"
        )
    cte = {}
    for key, value in per_surface.items():
        text = str(key).strip()
        if not text.isdigit():
            raise LensFileError(
                f"{where}: key 'cte.{key}': keys of 'cte' are surface indices (0, 1, 2 ...)"
            )
        if not is_number(value):
            raise LensFileError(
                f"{where}: key 'cte.{key}' must be a number (1/K), not {describe(value)}"
            )
        cte[int(text)] = value
    if table.get("mirror_cte") is not None:
        values["mirror_cte"] = real(table, "mirror_cte", where)
    try:
        return Environment(cte=cte, **values)
    except ConfigurationError as exc:
        raise LensFileError(f"{where}: {exc}") from exc


def environment_to_table(environment) -> dict:
    """The ``[environment]`` table of an Environment (mount_cte and cte when not default)."""
    table = {"temperature": environment.temperature, "pressure": environment.pressure}
    if environment.mount_cte != DEFAULT_ENVIRONMENT.mount_cte:
        table["mount_cte"] = environment.mount_cte
    if environment.cte:
        table["cte"] = {str(i): value for i, value in sorted(environment.cte.items())}
    if environment.mirror_cte is not None:
        table["mirror_cte"] = environment.mirror_cte
    return table


def check_surfaces(environment, count, where):
    """LensFileError when a ``cte`` key is not a surface index of an optic of ``count``."""
    for index in environment.cte:
        if not 0 < index < count - 1:
            raise LensFileError(
                f"{where}: key 'cte.{index}': surface {index} is not a lens surface "
                f"(1 to {count - 2})"
            )
