"""Thermal analysis: indices at a temperature and pressure, thermal expansion, focus drift.

- :func:`air_index` — dry air vs wavelength, temperature and pressure (Edlén 1953 with the
  OpticStudio / Schott TIE-19 scaling);
- :func:`index_at_temperature`, :class:`ThermalMaterial`, :func:`material_at` — a glass
  at (T, P) by Schott's dn/dT formula with its catalog constants;
- :class:`Environment` — ``Optic.environment``: temperature, pressure, spacer expansion;
- :func:`at_environment` — the optic at another temperature and pressure (a new Optic);
- :func:`thermal_focus_shift`, :func:`focus_shift_at`, :func:`athermal_summary` —
  paraxial and best focus vs temperature and the athermal summary.

See docs/thermal.md for the formulas, units, conventions and sources.
"""

from .. import backend as _be
from ._air import ATMOSPHERE, air_index
from ._environment import (
    ABSOLUTE_ZERO,
    ALUMINIUM_CTE,
    DEFAULT_ENVIRONMENT,
    MAX_PRESSURE,
    MAX_TEMPERATURE,
    Environment,
)
from ._expansion import at_environment, gap_expansions, scaled_geometry, with_environment
from ._focus import (
    AthermalSummary,
    ThermalFocusResult,
    athermal_summary,
    focus_shift_at,
    thermal_focus_shift,
)
from ._index import (
    ThermalMaterial,
    ThermalWarning,
    absolute_index_change,
    expansion_coefficient,
    index_at_temperature,
    material_at,
)

__all__ = [
    "ABSOLUTE_ZERO",
    "ALUMINIUM_CTE",
    "ATMOSPHERE",
    "DEFAULT_ENVIRONMENT",
    "AthermalSummary",
    "Environment",
    "MAX_PRESSURE",
    "MAX_TEMPERATURE",
    "ThermalFocusResult",
    "ThermalMaterial",
    "ThermalWarning",
    "absolute_index_change",
    "air_index",
    "at_environment",
    "athermal_summary",
    "expansion_coefficient",
    "focus_shift_at",
    "gap_expansions",
    "index_at_temperature",
    "material_at",
    "scaled_geometry",
    "thermal_focus_shift",
    "with_environment",
]

_be.pin_public(globals(), __all__)  # one configuration per call, whatever other threads set
