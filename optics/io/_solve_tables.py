"""The ``solve`` and ``pickup`` tables of lens-file surfaces (docs/lens-files.md)."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import ConfigurationError, LensFileError
from ..optimize.solves import solve_from_spec
from ._values import describe


def solves_of(entries, source) -> list:
    """The ``solve`` and ``pickup`` tables of the surfaces, as Solve objects."""
    solves = []
    for index, entry in enumerate(entries):
        for kind in ("solve", "pickup"):
            table = entry.get(kind)
            if table is None:
                continue
            where = f"{source}: surface {index}: {kind}"
            if not isinstance(table, Mapping) or not table:
                raise LensFileError(
                    f"{where}: must be a table of parameters (curvature, thickness), "
                    f"not {describe(table)}"
                )
            for parameter, spec in table.items():
                try:
                    solves.append(
                        solve_from_spec(
                            index,
                            parameter,
                            dict(spec) if isinstance(spec, Mapping) else spec,
                            kind,
                            f"{where}.{parameter}",
                        )
                    )
                except ConfigurationError as exc:
                    raise LensFileError(str(exc)) from exc
    return solves
