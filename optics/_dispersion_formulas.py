"""Dispersion formulas on any backend: the refractiveindex.info database's 1-9 and Zemax's 1-13.

As in the database's "Dispersion formulas" (database/doc): λ is the vacuum
wavelength in µm and the coefficients C1, C2 ... are ``c[0], c[1] ...``.
The formulas of Zemax AGF glass catalogs (OpticStudio's "The Glass Dispersion
Formulas", λ in µm, the ``CD`` coefficients in file order) are keyed
``("agf", number)``.  Every formula takes a wavelength array of any shape and
returns n of the same shape, dtype, backend and device.
"""

from __future__ import annotations

import math

from . import backend as be

__all__ = ["AGF_FORMULA_NAMES", "FORMULAS"]


def _terms(coefficients, first, width):
    """Groups of ``width`` coefficients from index ``first`` (the last zero-padded);
    a group whose multiplier (its first entry) is zero adds nothing and is skipped."""
    rest = list(coefficients[first:])
    rest += [0.0] * (-len(rest) % width)
    groups = (tuple(rest[i : i + width]) for i in range(0, len(rest), width))
    return [group for group in groups if group[0] != 0.0]


def _padded(coefficients, count):
    """The first ``count`` coefficients, missing ones taken as zero."""
    return tuple(coefficients[:count]) + (0.0,) * max(0, count - len(coefficients))


def _sellmeier(wl, c):
    """Formula 1: n² − 1 = C1 + Σ C_i λ² / (λ² − C_{i+1}²)."""
    lam2 = be.square(wl)
    n2 = be.full_like(wl, 1.0 + c[0])
    for strength, resonance in _terms(c, 1, 2):
        n2 = n2 + strength * lam2 / (lam2 - resonance * resonance)
    return be.sqrt(n2)


def _sellmeier2(wl, c):
    """Formula 2: n² − 1 = C1 + Σ C_i λ² / (λ² − C_{i+1})."""
    lam2 = be.square(wl)
    n2 = be.full_like(wl, 1.0 + c[0])
    for strength, resonance2 in _terms(c, 1, 2):
        n2 = n2 + strength * lam2 / (lam2 - resonance2)
    return be.sqrt(n2)


def _polynomial(wl, c):
    """Formula 3: n² = C1 + Σ C_i λ^C_{i+1}."""
    n2 = be.full_like(wl, c[0])
    for factor, power in _terms(c, 1, 2):
        n2 = n2 + factor * wl**power
    return be.sqrt(n2)


def _refractiveindex_info(wl, c):
    """Formula 4: n² = C1 + C2 λ^C3/(λ² − C4^C5) + C6 λ^C7/(λ² − C8^C9) + Σ_{i≥10} C_i λ^C_{i+1}."""
    lam2 = be.square(wl)
    n2 = be.full_like(wl, c[0])
    for factor, power, base, exponent in _terms(_padded(c, 9)[1:9], 0, 4):
        n2 = n2 + factor * wl**power / (lam2 - math.pow(base, exponent))
    for factor, power in _terms(c, 9, 2):
        n2 = n2 + factor * wl**power
    return be.sqrt(n2)


def _cauchy(wl, c):
    """Formula 5: n = C1 + Σ C_i λ^C_{i+1}."""
    n = be.full_like(wl, c[0])
    for factor, power in _terms(c, 1, 2):
        n = n + factor * wl**power
    return n


def _gases(wl, c):
    """Formula 6: n − 1 = C1 + Σ C_i / (C_{i+1} − λ⁻²)."""
    inverse_lam2 = 1.0 / be.square(wl)
    n = be.full_like(wl, 1.0 + c[0])
    for strength, resonance in _terms(c, 1, 2):
        n = n + strength / (resonance - inverse_lam2)
    return n


def _herzberger(wl, c):
    """Formula 7: n = C1 + C2/(λ² − 0.028) + C3/(λ² − 0.028)² + C4 λ² + C5 λ⁴ + C6 λ⁶."""
    c1, c2, c3, c4, c5, c6 = _padded(c, 6)
    lam2 = be.square(wl)
    pole = 1.0 / (lam2 - 0.028)
    return c1 + pole * (c2 + c3 * pole) + lam2 * (c4 + lam2 * (c5 + lam2 * c6))


def _retro(wl, c):
    """Formula 8: (n² − 1)/(n² + 2) = C1 + C2 λ²/(λ² − C3) + C4 λ², solved for n."""
    c1, c2, c3, c4 = _padded(c, 4)
    lam2 = be.square(wl)
    ratio = c1 + c2 * lam2 / (lam2 - c3) + c4 * lam2
    return be.sqrt((1.0 + 2.0 * ratio) / (1.0 - ratio))


def _exotic(wl, c):
    """Formula 9: n² = C1 + C2/(λ² − C3) + C4 (λ − C5) / ((λ − C5)² + C6)."""
    c1, c2, c3, c4, c5, c6 = _padded(c, 6)
    shifted = wl - c5
    n2 = c1 + c2 / (be.square(wl) - c3) + c4 * shifted / (be.square(shifted) + c6)
    return be.sqrt(n2)


def _power_series(wl, c, powers):
    """n² = Σ c_i λ^p_i for the given powers (missing coefficients are zero)."""
    n2 = be.full_like(wl, 0.0)
    for factor, power in zip(_padded(c, len(powers)), powers):
        if factor != 0.0:
            n2 = n2 + factor * (wl**power if power else 1.0)
    return be.sqrt(n2)


def _agf_schott(wl, c):
    """AGF 1, Schott: n² = a0 + a1 λ² + a2 λ⁻² + a3 λ⁻⁴ + a4 λ⁻⁶ + a5 λ⁻⁸."""
    return _power_series(wl, c, (0, 2, -2, -4, -6, -8))


def _agf_sellmeier(wl, c, terms, constant=False):
    """n² − 1 = [A] + Σ K_i λ² / (λ² − L_i); with ``constant`` the first coefficient is A."""
    lam2 = be.square(wl)
    first = 1 if constant else 0
    n2 = be.full_like(wl, 1.0 + (c[0] if constant and c else 0.0))
    pairs = _padded(c[first:], 2 * terms)
    for strength, resonance in zip(pairs[0::2], pairs[1::2]):
        if strength != 0.0:
            n2 = n2 + strength * lam2 / (lam2 - resonance)
    return be.sqrt(n2)


def _agf_sellmeier2(wl, c):
    """AGF 4, Sellmeier 2: n² − 1 = A + B1 λ²/(λ² − λ1²) + B2/(λ² − λ2²) (no λ² on B2)."""
    a, b1, l1, b2, l2 = _padded(c, 5)
    lam2 = be.square(wl)
    n2 = be.full_like(wl, 1.0 + a)
    if b1 != 0.0:
        n2 = n2 + b1 * lam2 / (lam2 - l1 * l1)
    if b2 != 0.0:
        n2 = n2 + b2 / (lam2 - l2 * l2)
    return be.sqrt(n2)


def _agf_conrady(wl, c):
    """AGF 5, Conrady: n = n0 + A/λ + B/λ^3.5."""
    n0, a, b = _padded(c, 3)
    return n0 + a / wl + b / wl**3.5


def _agf_handbook1(wl, c):
    """AGF 7, Handbook of Optics 1: n² = A + B/(λ² − C) − D λ²."""
    a, b, cc, d = _padded(c, 4)
    lam2 = be.square(wl)
    return be.sqrt(a + b / (lam2 - cc) - d * lam2)


def _agf_handbook2(wl, c):
    """AGF 8, Handbook of Optics 2: n² = A + B λ²/(λ² − C) − D λ²."""
    a, b, cc, d = _padded(c, 4)
    lam2 = be.square(wl)
    return be.sqrt(a + b * lam2 / (lam2 - cc) - d * lam2)


def _agf_sellmeier4(wl, c):
    """AGF 9, Sellmeier 4: n² = A + B λ²/(λ² − C) + D λ²/(λ² − E)."""
    a, b, cc, d, e = _padded(c, 5)
    lam2 = be.square(wl)
    return be.sqrt(a + b * lam2 / (lam2 - cc) + d * lam2 / (lam2 - e))


AGF_FORMULA_NAMES = {
    1: "Schott",
    2: "Sellmeier 1",
    3: "Herzberger",
    4: "Sellmeier 2",
    5: "Conrady",
    6: "Sellmeier 3",
    7: "Handbook of Optics 1",
    8: "Handbook of Optics 2",
    9: "Sellmeier 4",
    10: "Extended",
    11: "Sellmeier 5",
    12: "Extended 2",
    13: "Extended 3",
}
"""Zemax AGF formula number -> OpticStudio's name of the formula."""

_AGF = {
    1: _agf_schott,
    2: lambda wl, c: _agf_sellmeier(wl, c, 3),
    3: _herzberger,  # n = A + B L + C L² + D λ² + E λ⁴ + F λ⁶, L = 1/(λ² − 0.028)
    4: _agf_sellmeier2,
    5: _agf_conrady,
    6: lambda wl, c: _agf_sellmeier(wl, c, 4),
    7: _agf_handbook1,
    8: _agf_handbook2,
    9: _agf_sellmeier4,
    10: lambda wl, c: _power_series(wl, c, (0, 2, -2, -4, -6, -8, -10, -12)),
    11: lambda wl, c: _agf_sellmeier(wl, c, 5),
    12: lambda wl, c: _power_series(wl, c, (0, 2, -2, -4, -6, -8, 4, 6)),
    13: lambda wl, c: _power_series(wl, c, (0, 2, 4, -2, -4, -6, -8, -10, -12)),
}


FORMULAS = {
    1: _sellmeier,
    2: _sellmeier2,
    3: _polynomial,
    4: _refractiveindex_info,
    5: _cauchy,
    6: _gases,
    7: _herzberger,
    8: _retro,
    9: _exotic,
    **{("agf", number): formula for number, formula in _AGF.items()},
}
"""Formula key -> ``n(wavelength, coefficients)``: the database's numbers 1-9 and the
AGF formulas ``("agf", 1)`` ... ``("agf", 13)``."""
