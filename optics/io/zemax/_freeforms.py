"""Extra-data surfaces: XPOLYNOM (extended polynomial) and SZERNSAG/FZERNSAG (Zernike sag).

Their coefficients live on XDAT lines: XDAT 1 is the number of terms, XDAT 2
the normalization radius R (a length), XDAT 3, 4 ... the coefficients (lengths).

* XPOLYNOM: z = conic + Σ A_k E_k(x/R, y/R), with E_1 = x, E_2 = y, E_3 = x²,
  E_4 = xy, E_5 = y², E_6 = x³ ... (degree by degree, x's power falling).  It
  becomes ``xy_polynomial`` with coefficients[i][j] = A_k / R^(i+j).
* SZERNSAG / FZERNSAG: z = conic + Σ A_k Z_k(ρ/R, θ), Noll-ordered
  normalized (Standard) or Fringe-ordered (Fringe) Zernike terms: ``zernike``
  with ``ordering`` "noll" or "fringe".  Their even-asphere PARM terms must be 0.

* QED_TYPE (the Q-type asphere): XDAT 1 the kind (0: Q^bfs; others refused),
  XDAT 2 the number of terms, XDAT 3 the normalization radius, XDAT 4 ... the
  Q^bfs coefficients a_0, a_1 ... (lengths): ``qbfs``.  With our φ factor for
  a conic base (docs/surfaces.md) the corpus's Thorlabs ASL5040-UV focuses a
  collimated beam to 0.2 µm RMS at its design wavelength, but to no focus at
  all (over 15 mm) with Forbes' sphere factor 1/√(1 − c²r²): the file uses ours.

The XPOLYNOM and Zernike layouts follow OpticStudio's manual; no corpus file holds one.
"""

from __future__ import annotations

from ...errors import LensFileError
from ...limits import MAX_POLYNOMIAL_TERMS
from ._text import indexed

KINDS = {
    "XPOLYNOM": "xy_polynomial",
    "SZERNSAG": "zernike",
    "FZERNSAG": "zernike",
    "QED_TYPE": "qbfs",
}


def xdat(block, where) -> dict:
    """{n: value} of the XDAT (extra data) lines (each n once, 1 to the budget's count + 4)."""
    return indexed(block.all("XDAT"), where, 1, MAX_POLYNOMIAL_TERMS + 4, "a surface")


def term_count(block, extra, n, where) -> int:
    """XDAT ``n`` as a number of terms: an integer from 0 to the budget's limit."""
    value = extra.get(n, 0.0)
    if value != int(value) or not 0 <= value <= MAX_POLYNOMIAL_TERMS:
        line = next(r.line for r in block.all("XDAT") if float(r.args[0]) == n)
        raise LensFileError(
            f"{where}: line {line}: XDAT {n} {value:g}: the number of terms must be an integer "
            f"from 0 to {MAX_POLYNOMIAL_TERMS} (optics.limits)"
        )
    return int(value)


def freeform(kind, block, params, where, scale, entry):
    """Fill ``entry`` (already holding radius, conic) for an extra-data surface."""
    extra = xdat(block, where)
    if kind == "QED_TYPE":
        return _q_type(block, extra, where, scale, entry)
    terms = term_count(block, extra, 1, where)
    radius = _norm_radius(extra, 2, where) * scale
    values = [extra.get(3 + k, 0.0) * scale for k in range(terms)]
    if any(params.get(n, 0.0) != 0 for n in range(1, 9)):
        raise LensFileError(
            f"{where}: {kind} with aspheric terms (PARM 1-8): only the Zernike or polynomial "
            "terms are read"
        )
    if kind == "XPOLYNOM":
        entry["type"] = "xy_polynomial"
        try:
            entry["coefficients"] = _polynomial_rows(values, radius)
        except (OverflowError, ZeroDivisionError):
            raise LensFileError(
                f"{where}: XDAT 2 {radius:g}: the normalization radius raised to the terms' "
                "powers is out of the range of a float"
            ) from None
    else:
        entry["type"] = "zernike"
        entry["coefficients"] = values or [0.0]
        entry["norm_radius"] = radius
        if kind == "FZERNSAG":
            entry["ordering"] = "fringe"
    return entry


def _q_type(block, extra, where, scale, entry):
    if extra.get(1, 0.0) != 0:
        raise LensFileError(
            f"{where}: QED_TYPE of kind {extra[1]:g} (XDAT 1): only Q^bfs (kind 0) is read"
        )
    terms = term_count(block, extra, 2, where)
    entry["type"] = "qbfs"
    entry["terms"] = [extra.get(4 + m, 0.0) * scale for m in range(terms)]
    entry["norm_radius"] = _norm_radius(extra, 3, where) * scale
    return entry


def _norm_radius(extra, n, where) -> float:
    """XDAT ``n``, the normalization radius: a positive length (1 when not given)."""
    value = extra.get(n, 1.0)
    if not value > 0:
        raise LensFileError(
            f"{where}: XDAT {n} {value:g}: the normalization radius must be a positive length"
        )
    return value


def q_type_xdat(spec) -> list:
    """XDAT 1, 2, 3 ... of a qbfs surface: kind 0, the number of terms, R, the terms."""
    return [0.0, float(len(spec["terms"])), spec["norm_radius"], *spec["terms"]]


def _polynomial_rows(values, radius) -> list:
    """coefficients[i][j] of x^i y^j from the extended-polynomial terms A_1, A_2 ..."""
    powers = []
    degree = 1
    while len(powers) < len(values):
        powers += [(degree - j, j) for j in range(degree + 1)]
        degree += 1
    top = max((i for i, _ in powers[: len(values)]), default=0)
    rows = [[0.0] for _ in range(top + 1)]
    for (i, j), value in zip(powers, values):
        row = rows[i]
        row.extend([0.0] * (j + 1 - len(row)))
        row[j] = value / radius ** (i + j)
    for row in rows:  # canonical: no trailing zeros, no trailing empty rows
        while len(row) > 1 and row[-1] == 0:
            row.pop()
    while len(rows) > 1 and rows[-1] == [0.0]:
        rows.pop()
    return rows


def polynomial_terms(coefficients, where) -> list:
    """Extended-polynomial terms A_1, A_2 ... (norm radius 1) of xy_polynomial coefficients."""
    if coefficients and coefficients[0] and coefficients[0][0] != 0:
        raise LensFileError(
            f"{where}: xy_polynomial with a constant term coefficients[0][0] has no .zmx form"
        )
    degree = max((i + j for i, row in enumerate(coefficients) for j in range(len(row))), default=0)
    terms = []
    for d in range(1, degree + 1):
        for j in range(d + 1):
            i = d - j
            row = coefficients[i] if i < len(coefficients) else []
            terms.append(row[j] if j < len(row) else 0.0)
    while terms and terms[-1] == 0:
        terms.pop()
    return terms
