"""A glass name that two or more catalogs have: the warning that says which one was chosen.

``F5`` is SCHOTT's, CDGM's and HIKARI's F5, and their indices differ by 2.2e-2:
a name without a catalog takes the first catalog of the lookup order
(:func:`optics._glass_catalog.catalogs`), and says so, unless the lens file
chose (``"CDGM:F5"``, ``{ name = "F5", catalog = "cdgm" }`` or a top-level
``catalogs = ["CDGM"]`` listing the catalog taken).  The crystal catalog's
published formulas are chosen on purpose (``CaF2``: docs/materials.md) and are
not announced.
"""

from __future__ import annotations

import warnings

import numpy as np

_LINES_UM = (0.4861327, 0.5875618, 0.6562725)
"""F, d and C lines, µm: where the catalogs' indices of a name are compared."""


def warn_if_ambiguous(name: str, catalog: str, chosen=(), where: str = "") -> None:
    """Warn when the glass ``name`` found in ``catalog`` is also in other catalogs.

    Parameters
    ----------
    name, catalog : str
        The glass found for a name given without a catalog.
    chosen : sequence of str
        The catalogs the lens file listed (``catalogs`` key); a glass found in one of
        them is the file's choice and is not announced.
    where : str
        ``"lens.toml, surface 3"``, starting the message.

    Warns
    -----
    AmbiguousGlassWarning
        Naming every catalog that has the name, how far their indices differ
        at the F, d and C lines, the glass taken, and how to choose another.
    """
    from . import CRYSTAL_CATALOG, AmbiguousGlassWarning, catalogs_having

    if catalog == CRYSTAL_CATALOG or catalog in {str(c).strip().lower() for c in chosen}:
        return
    having = catalogs_having(name)
    if len(having) < 2:
        return
    spread = _spread(name, having)
    differ = f"; their indices differ by up to {spread:.1e} at 0.486-0.656 µm" if spread else ""
    other = next(c for c in having if c != catalog)
    prefix = f"{where}: " if where else ""
    warnings.warn(
        f"{prefix}glass {name!r} is in {len(having)} catalogs ({', '.join(having)}){differ}; "
        f"using {catalog.upper()}'s {name}, the first in the lookup order; choose with "
        f'\'{other.upper()}:{name}\', {{ name = "{name}", catalog = "{other}" }} or a '
        f'top-level catalogs = ["{other.upper()}", ...] key (docs/materials.md)',
        AmbiguousGlassWarning,
        stacklevel=4,
    )


def _spread(name, having) -> float:
    """The largest difference in n between the catalogs' data at the F, d and C lines."""
    from . import evaluate, glass_dispersion

    lines = np.array(_LINES_UM)
    values = []
    for catalog in having:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # a range warning does not matter here
                values.append(np.asarray(evaluate(glass_dispersion(name, catalog), lines)))
        except Exception:  # noqa: BLE001 - data that cannot say leave the spread unsaid
            return 0.0
    stacked = np.stack(values)
    return float((stacked.max(axis=0) - stacked.min(axis=0)).max())
