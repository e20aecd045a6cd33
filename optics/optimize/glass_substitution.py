"""Glass substitution: catalog glasses near a surface's (nd, vd), each re-optimized, the best kept.

For each chosen surface in turn, the candidates are the catalog glasses
within ``radius`` of the surface's glass on the glass map, in the distance

    d = sqrt((100 · Δnd)² + Δvd²)

(0.01 in nd weighs as one unit of Abbe number, the usual aspect of a glass
map), nearest first, at most ``limit`` of them, from the catalogs of the
lens's own catalog glasses (or those given).  With each candidate (and with
the glass it has, so the result is never worse) the problem's variables are
re-optimized by a local driver from the same start; the lowest final merit
wins, and the next surface is substituted on that lens.
"""

from __future__ import annotations

import copy
import math
import numbers
import warnings
from dataclasses import dataclass, field

from .. import backend as be
from .._glass_catalog import _catalog_index
from ..errors import ConfigurationError, OpticsError
from ..materials import CatalogGlass, index_at
from .diagnostics import OptimizationWarning
from .drivers import optimize
from .problem import Problem
from .variables import Variable

#: Fraunhofer d, F and C lines (µm): nd and vd = (nd - 1) / (nF - nC).
D_LINE, F_LINE, C_LINE = 0.5875618, 0.4861327, 0.6562725
#: Default search radius on the glass map, in the distance of the module notes.
DEFAULT_RADIUS = 5.0
#: Default number of candidates per surface (nearest first).
DEFAULT_LIMIT = 8


def nd_vd(material) -> tuple[float, float]:
    """(nd, vd) of a material (floats)."""
    with be.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # data outside their range: a note only
        nd, nf, nc = (
            float(be.item(be.asarray(index_at(material, w)))) for w in (D_LINE, F_LINE, C_LINE)
        )
    return nd, (nd - 1.0) / (nf - nc) if nf != nc else math.inf


def glass_candidates(nd, vd, catalogs, radius=DEFAULT_RADIUS, limit=DEFAULT_LIMIT) -> list:
    """Catalog glasses within ``radius`` of (nd, vd), nearest first.

    Returns
    -------
    list of dict
        ``name``, ``catalog``, ``nd``, ``vd``, ``distance`` per glass (at most ``limit``).
    """
    index = _catalog_index()
    unknown = [c for c in catalogs if c not in index]
    if unknown:
        raise ConfigurationError(
            f"unknown glass catalog(s) {', '.join(unknown)}; known: {', '.join(index)}"
        )
    rows = []
    for catalog in catalogs:
        for name in index[catalog]:
            try:
                n, v = nd_vd(CatalogGlass(name, catalog))
            except (OpticsError, ValueError, ArithmeticError):
                continue  # no data at the d, F or C line
            distance = math.hypot(100.0 * (n - nd), v - vd)
            if distance <= radius:
                rows.append(
                    {"name": name, "catalog": catalog, "nd": n, "vd": v, "distance": distance}
                )
    rows.sort(key=lambda r: (r["distance"], r["catalog"], r["name"]))
    return rows[:limit]


@dataclass
class SubstitutionResult:
    """Outcome of :func:`substitute_glasses`.

    Attributes
    ----------
    best : OptimizationResult
        The final re-optimization with the chosen glasses (on the problem's optic).
    surfaces : list of dict
        Per substituted surface: ``surface``, ``before`` (its glass), ``chosen``,
        and ``candidates`` (rows of :func:`glass_candidates` plus ``merit_after``).
    """

    best: object
    surfaces: list = field(default_factory=list)

    def as_dict(self) -> dict:
        """The best run's JSON form plus ``glass_substitution`` (the per-surface rows)."""
        out = self.best.as_dict()
        out["glass_substitution"] = self.surfaces
        return out


def substitute_glasses(
    problem,
    surfaces,
    *,
    catalogs=None,
    radius=DEFAULT_RADIUS,
    limit=DEFAULT_LIMIT,
    local="dls",
    steps=30,
    glasses=None,
    **options,
) -> SubstitutionResult:
    """Try the catalog glasses near each surface's glass, re-optimizing; keep the best.

    Parameters
    ----------
    problem : Problem
        Its optic is left with the chosen glasses and re-optimized variables.
    surfaces : list of int
        Surfaces whose glass (the medium after them) is substituted.
    catalogs : list of str, optional
        Catalogs to draw from (default: those of the lens's catalog glasses, else schott).
    radius : float
        Search radius on the glass map (see the module notes).
    limit : int
        Most candidates per surface.
    local : str
        The local driver; ``steps`` and ``options`` go to it.
    steps : int
        Steps of each local re-optimization (one per candidate, one for the
        glass already there, and a final one with the chosen glasses).
    glasses : list of str, optional
        An explicit candidate list (glass names, looked up in ``catalogs``
        order), tried instead of the glasses within ``radius``.
    **options
        Further options of the local driver.

    Returns
    -------
    SubstitutionResult
        ``best``: the final re-optimization on ``problem``'s optic; ``surfaces``:
        one dict per substituted surface with ``surface``, ``before``,
        ``merit_before_substitution`` (the merit re-optimized with the glass
        already there), ``chosen`` and ``candidates`` (each with its
        ``merit_after``; inf where the re-optimization failed).

    Raises
    ------
    ConfigurationError
        A negative or infinite ``radius``, a ``limit`` below 1, or a surface that
        is not a lens surface or has no glass after it.

    Warns
    -----
    OptimizationWarning
        For a surface with no other candidate glass (its glass is kept).
    """
    if isinstance(radius, bool) or not isinstance(radius, numbers.Real) or not radius >= 0:
        raise ConfigurationError(
            f"glass substitution: the search radius must be a number >= 0, not {radius!r}"
        )
    if not math.isfinite(radius):
        raise ConfigurationError("glass substitution: the search radius must be finite, not inf")
    if isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit < 1:
        raise ConfigurationError(
            f"glass substitution: the candidate limit must be an integer >= 1, not {limit!r}"
        )
    optic = problem.optic
    catalogs = list(catalogs or _lens_catalogs(optic))
    rows = []
    for s in surfaces:
        if not 1 <= s < len(optic.surfaces) - 1:
            raise ConfigurationError(f"glass substitution: surface {s} is not a lens surface")
        before = optic.surfaces[s].material
        if before.to_spec() in ("air", "mirror"):
            raise ConfigurationError(f"glass substitution: surface {s} has no glass after it")
        nd, vd = nd_vd(before)
        own = (getattr(before, "name", None), getattr(before, "catalog", None))
        if glasses is not None:
            candidates = [_row(name, catalogs, nd, vd) for name in glasses]
        else:
            candidates = glass_candidates(nd, vd, catalogs, radius, limit + 1)
        candidates = [c for c in candidates if (c["name"], c["catalog"]) != own][:limit]
        if not candidates:
            warnings.warn(
                f"glass substitution: surface {s}: no other glass of {', '.join(catalogs)} "
                f"within {radius:g} of {_name(before)} (nd {nd:.5g}, vd {vd:.4g}); it is kept",
                OptimizationWarning,
                stacklevel=2,
            )
        trials = [None] + [CatalogGlass(c["name"], c["catalog"]) for c in candidates]
        merits = []
        for glass in trials:
            merits.append(_reoptimize(problem, s, glass, local, steps, options).merit_after)
        for row, merit in zip(candidates, merits[1:]):
            row["merit_after"] = float(merit)
        best = min(range(len(trials)), key=lambda i: (merits[i], i))
        if trials[best] is not None:
            optic.surfaces[s].material = trials[best]
        rows.append(
            {
                "surface": s,
                "before": _name(before),
                "merit_before_substitution": float(merits[0]),
                "chosen": _name(optic.surfaces[s].material),
                "candidates": candidates,
            }
        )
    final = _run(problem, problem.optic, local, steps, options)
    return SubstitutionResult(best=final, surfaces=rows)


def _reoptimize(problem, surface, glass, local, steps, options):
    """The local driver's result on a copy of the optic with ``glass`` after ``surface``."""
    optic = copy.deepcopy(problem.optic)
    if glass is not None:
        optic.surfaces[surface].material = glass
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OptimizationWarning)
            return _run(problem, optic, local, steps, options)
    except OpticsError:
        return _Failed()


class _Failed:
    merit_after = math.inf


def _run(problem, optic, local, steps, options):
    fresh = Problem(
        optic,
        [
            Variable(v.path, v.min, v.max, scale=float(s))
            for v, s in zip(problem.variables.variables, problem.variables.scales)
        ],
        problem.merit,
        problem.constraints.constraints if problem.constraints else (),
    )
    return optimize(fresh, local, steps=steps, **options)


def _row(name, catalogs, nd, vd) -> dict:
    """A candidate row for a named glass (the first of ``catalogs`` that has it)."""
    index = _catalog_index()
    catalog = next((c for c in catalogs if name in index.get(c, ())), None)
    glass = CatalogGlass(name, catalog)
    n, v = nd_vd(glass)
    return {
        "name": glass.name,
        "catalog": glass.catalog,
        "nd": n,
        "vd": v,
        "distance": math.hypot(100.0 * (n - nd), v - vd),
    }


def _lens_catalogs(optic) -> list:
    found = []
    for surface in optic.surfaces:
        catalog = getattr(surface.material, "catalog", None)
        if catalog and catalog not in found:
            found.append(catalog)
    return found or ["schott"]


def _name(material) -> str:
    if isinstance(material, CatalogGlass):
        return f"{material.name} ({material.catalog})"
    spec = material.to_spec()
    return spec if isinstance(spec, str) else str(spec)
