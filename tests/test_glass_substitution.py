"""Glass substitution picks the glass an exhaustive search over the candidate list picks."""

from __future__ import annotations

import copy
import math

import pytest

import optics
from optics.errors import ConfigurationError
from optics.materials import CatalogGlass, material_from_spec
from optics.optimize import Operand, Problem, Variable, optimize
from optics.optimize.glass_substitution import glass_candidates, nd_vd, substitute_glasses

VARIABLES = ["surfaces[3].radius", "surfaces[4].radius"]
OPERANDS = [Operand("rms_spot", fields=[0]), Operand("efl", target=50.0)]
STEPS = 4


def _problem(optic):
    return Problem(optic, [Variable(p) for p in VARIABLES], OPERANDS)


def test_nd_vd_of_a_catalog_glass():
    # Schott's datasheet: N-BK7 nd 1.51680, vd 64.17
    nd, vd = nd_vd(CatalogGlass("N-BK7", "schott"))
    assert nd == pytest.approx(1.5168, abs=2e-5) and vd == pytest.approx(64.17, abs=0.02)


def test_candidates_are_within_the_radius_nearest_first():
    rows = glass_candidates(1.62, 36.4, ["schott"], radius=4.0, limit=50)
    assert rows and all(r["distance"] <= 4.0 for r in rows)
    assert [r["distance"] for r in rows] == sorted(r["distance"] for r in rows)
    assert all(math.hypot(100 * (r["nd"] - 1.62), r["vd"] - 36.4) == r["distance"] for r in rows)
    assert "F2" in {r["name"] for r in rows}  # F2: 1.62004 / 36.37


def test_substitution_picks_what_an_exhaustive_search_picks():
    lens = optics.load("cooke_triplet")
    lens.surfaces[3].material = material_from_spec({"nd": 1.63, "vd": 35.0})  # a model glass
    candidates = glass_candidates(1.63, 35.0, ["schott"], radius=6.0, limit=3)
    assert len(candidates) == 3
    # exhaustive, by hand: each candidate (and the glass itself), re-optimized from one start
    merits = {}
    for glass in [None] + candidates:
        trial = copy.deepcopy(lens)
        if glass is not None:
            trial.surfaces[3].material = CatalogGlass(glass["name"], glass["catalog"])
        key = "keep" if glass is None else glass["name"]
        merits[key] = optimize(_problem(trial), "dls", steps=STEPS).merit_after
    expected = min(merits, key=merits.get)

    problem = _problem(lens)
    result = substitute_glasses(problem, [3], catalogs=["schott"], radius=6.0, limit=3, steps=STEPS)
    row = result.surfaces[0]
    chosen = "keep" if row["chosen"] == row["before"] else row["chosen"].split(" ")[0]
    assert chosen == expected
    for candidate in row["candidates"]:
        assert candidate["merit_after"] == pytest.approx(merits[candidate["name"]], rel=1e-9)
    assert result.best.merit_after <= merits["keep"] * (1 + 1e-9)
    assert len({round(m, 12) for m in merits.values()}) >= 3  # the choice matters (F2 = F2HT)
    assert expected != "keep"  # a catalog glass beats the model glass here


def test_a_surface_without_glass_is_refused():
    problem = _problem(optics.load("cooke_triplet"))
    with pytest.raises(ConfigurationError, match="surface 2 has no glass"):
        substitute_glasses(problem, [2])


def test_an_explicit_candidate_list_is_tried_as_given():
    problem = _problem(optics.load("cooke_triplet"))
    result = substitute_glasses(problem, [3], catalogs=["schott"], glasses=["F5", "SF2"], steps=1)
    rows = result.surfaces[0]["candidates"]
    assert [(r["name"], r["catalog"]) for r in rows] == [("F5", "schott"), ("SF2", "schott")]
    assert all(math.isfinite(r["merit_after"]) for r in rows)
