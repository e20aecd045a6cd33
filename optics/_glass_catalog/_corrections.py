# ruff: noqa: E501  (one glass per table row)
"""Dispersion coefficients that replace the refractiveindex.info snapshot's for 7 SUMITA glasses.

The snapshot's SUMITA book is SUMITA's AGF catalog of 2017-02-02.  For 7 of
its glasses SUMITA's data sheet gives other coefficients, by 2.4e-6 to 3.5e-3
in n between 0.436 and 1.014 µm; K-GIR79 is the worst: the snapshot's
coefficients give nd 1.855881, the sheet's 1.859198 against the sheet's own
nd 1.85920 (every other glass of the vendors' sheets is within 2e-6 of the
snapshot, CDGM's with its 2024 sheet).  The sheet's coefficients are also the
closer to the indices the sheet tabulates (11-12 spectral lines, 0.365-1.014 µm)
for all 7: within 4.9e-6, where the snapshot's are 7e-6 to 3.6e-3 off.
:data:`TABLE` holds them, Schott's series (AGF formula 1)
n² = A0 + A1 λ² + A2 λ⁻² + A3 λ⁻⁴ + A4 λ⁻⁶ + A5 λ⁻⁸, λ in µm, copied number for
number from ``SUMITA.xlsx`` as opticalglass 1.1.1 and 2.0.2 ship it (PyPI;
BSD-3-Clause; the data are SUMITA's published catalog data, redistributed with
this attribution).  The snapshot keeps everything else of these glasses: the
valid wavelength range, the dn/dT constants, the expansion.

Columns: catalog, name, AGF formula, the coefficients A0 ... A5.
tests/test_glass_sheets.py checks every shipped glass against the installed
sheets to 2e-6.
"""

from __future__ import annotations

import dataclasses
import functools

from ._database import Dispersion

ORIGIN = "coefficients of the {vendor} data sheet (SUMITA.xlsx of opticalglass 1.1.1 and 2.0.2)"
"""What a corrected glass's ``Dispersion.origin`` adds to the snapshot file's name."""

_VENDORS = {"sumita": "Sumita"}

TABLE = """\
sumita K-VC91 1 3.4398054 -0.014667565 0.038194385 0.0018572053 -0.00010460909 1.2213163e-05
sumita K-SSK3 1 2.5581178 -0.0093433459 0.017279508 0.00034232239 -8.1515194e-06 1.1314454e-06
sumita K-SSK4 1 2.5749313 -0.011981485 0.013663757 0.00099687549 -9.3565959e-05 4.629733e-06
sumita K-SFLD14 1 2.9787433 -0.011798697 0.040432992 0.0011404668 8.4929619e-05 8.409647e-06
sumita K-SFLDn3 1 3.2514481 -0.013518435 0.048164106 0.0030770868 -0.00016501402 3.116076e-05
sumita K-BOC30 1 3.8356956 -0.015106203 0.06003757 0.0026135256 -1.9280273e-05 2.0127922e-05
sumita K-GIR79 1 3.3309552 -0.0085102025 0.040332166 0.0014009819 -1.9888108e-05 7.117453e-06
"""


@functools.cache
def corrections() -> dict:
    """{(catalog, glass name): (formula, coefficients)} of :data:`TABLE` (parsed once)."""
    found = {}
    for line in TABLE.splitlines():
        catalog, name, formula, *coefficients = line.split()
        found[catalog, name] = (("agf", int(formula)), tuple(float(c) for c in coefficients))
    return found


def corrected(dispersion: Dispersion, catalog: str, name: str) -> Dispersion:
    """A snapshot glass's data with the coefficients of :data:`TABLE` where it has the glass.

    Parameters
    ----------
    dispersion : Dispersion
        The data read from the snapshot's file for ``catalog`` ``name``.
    catalog, name : str
        The resolved glass (``"sumita"``, ``"K-GIR79"``).

    Returns
    -------
    Dispersion
        ``dispersion`` itself, or a copy with the sheet's formula and coefficients and an
        ``origin`` that names both sources.
    """
    found = corrections().get((catalog, name))
    if found is None:
        return dispersion
    formula, coefficients = found
    origin = ORIGIN.format(vendor=_VENDORS[catalog])
    return dataclasses.replace(
        dispersion,
        formula=formula,
        coefficients=coefficients,
        origin=f"{dispersion.origin}, with the {origin}",
    )
