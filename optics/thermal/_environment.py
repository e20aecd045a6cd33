"""The environment of an optical system: temperature, pressure and the mount's expansion.

An :class:`Environment` is plain data held by ``Optic.environment`` (None: the catalogs'
own reference conditions, taken as 20 °C and 1 atm).  The prescription of an optic is
the one at its environment; :func:`optics.thermal.at_environment` gives the optic at
another one.  Lens files hold it as an ``[environment]`` table (docs/thermal.md).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

from ..errors import ConfigurationError

__all__ = [
    "ABSOLUTE_ZERO",
    "ALUMINIUM_CTE",
    "DEFAULT_ENVIRONMENT",
    "Environment",
    "MAX_PRESSURE",
    "MAX_TEMPERATURE",
    "REFERENCE_TEMPERATURE",
]

REFERENCE_TEMPERATURE = 20.0
"""°C: the temperature of an optic without an environment (the vendors' catalogs' own)."""
ALUMINIUM_CTE = 23.6e-6
"""1/K: aluminium alloy 6061, the default spacer (mount) material of every air gap
(ASM Handbook vol. 2, 20-100 °C)."""
ABSOLUTE_ZERO = -273.15
"""°C: every temperature must lie above it."""
MAX_TEMPERATURE = 1000.0
"""°C: the highest temperature accepted (glasses soften from about 500 °C; dn/dT and CTE
data are measured from about -100 to 140 °C, so this bound only stops typos such as K for °C
twice over, or 1e4)."""
MAX_PRESSURE = 100.0
"""atm: the highest air pressure accepted (the Edlén air index is fitted near 1 atm; 100 atm
of air already has an index of about 1.03)."""
_MAX_CTE = 1e-3  # 1/K: above every solid (plastics reach about 2e-4)


@dataclass(frozen=True)
class Environment:
    """Temperature and pressure of a system, and what sets its air gaps.

    Attributes
    ----------
    temperature : float
        °C (of the glass, the mount and the air alike), above −273.15 and at most
        :data:`MAX_TEMPERATURE` (1000).
    pressure : float
        Air pressure in atm (1 atm = 101325 Pa), 0 (vacuum) to :data:`MAX_PRESSURE` (100).
    mount_cte : float
        Coefficient of linear thermal expansion (1/K) of the spacers that set the air
        gaps, the image distance included; default aluminium, 23.6e-6.
    cte : dict of int to float
        Per-surface expansion coefficients (1/K) that replace the default of the medium
        after surface ``i``: the spacer of an air gap, or the glass of an element (for
        glasses whose catalog gives no α, or to override it).  Keys are surface indices.
    mirror_cte : float or None
        α (1/K) of the substrates of mirrors in air, whose shape then scales with it;
        None (the default): such mirrors keep their shape.
    """

    temperature: float = REFERENCE_TEMPERATURE
    pressure: float = 1.0
    mount_cte: float = ALUMINIUM_CTE
    cte: dict = field(default_factory=dict)
    mirror_cte: float | None = None

    def __post_init__(self):
        _check(self.temperature, "temperature", "°C", lower=ABSOLUTE_ZERO, upper=MAX_TEMPERATURE)
        _check(self.pressure, "pressure", "atm", lower=0.0, upper=MAX_PRESSURE, inclusive=True)
        _check(self.mount_cte, "mount_cte", "1/K", lower=-_MAX_CTE, upper=_MAX_CTE)
        cte = {}
        for key, value in dict(self.cte).items():
            if isinstance(key, bool) or not isinstance(key, numbers.Integral) or key < 0:
                raise ConfigurationError(
                    f"environment: cte keys are surface indices (integers >= 0), not {key!r}"
                )
            _check(value, f"cte[{key}]", "1/K", lower=-_MAX_CTE, upper=_MAX_CTE)
            cte[int(key)] = float(value)
        object.__setattr__(self, "cte", cte)
        if self.mirror_cte is not None:
            _check(self.mirror_cte, "mirror_cte", "1/K", lower=-_MAX_CTE, upper=_MAX_CTE)
            object.__setattr__(self, "mirror_cte", float(self.mirror_cte))
        for name in ("temperature", "pressure", "mount_cte"):
            object.__setattr__(self, name, float(getattr(self, name)))

    def __hash__(self):
        cte = tuple(sorted(self.cte.items()))
        return hash((self.temperature, self.pressure, self.mount_cte, cte, self.mirror_cte))


def _check(value, name, unit, *, lower, upper=math.inf, inclusive=False):
    """ConfigurationError naming ``name`` unless ``value`` is a finite number in range."""
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    ok = ok and math.isfinite(value) and value <= upper
    ok = ok and (value >= lower if inclusive else value > lower)
    if not ok:
        bound = ">=" if inclusive else ">"
        limit = "" if math.isinf(upper) else f" and <= {upper:g}"
        raise ConfigurationError(
            f"environment: {name} must be a finite number {bound} {lower:g}{limit} ({unit}), "
            f"not {value!r}"
        )


DEFAULT_ENVIRONMENT = Environment()
"""20 °C, 1 atm, aluminium spacers: what an optic without an environment is taken at."""
