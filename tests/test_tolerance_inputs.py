"""The [tolerance] section and the Monte Carlo entry refuse sizes beyond the budget and
a compensator that is also a toleranced item."""

from __future__ import annotations

import pytest
from test_tolerance_sensitivity import ITEMS, cooke, section

from optics.errors import LensFileError
from optics.limits import MAX_TRIALS, BudgetError
from optics.tolerance import ToleranceModel, monte_carlo, read_section


def test_a_section_asking_for_a_trillion_trials_is_refused():
    with pytest.raises(
        LensFileError, match=f"key 'trials' is 10+, more than the limit of {MAX_TRIALS}"
    ):
        read_section(section(ITEMS[1:2], trials=10**12), "lens.toml: [tolerance]")


def test_monte_carlo_refuses_a_trillion_trials_before_allocating():
    with pytest.raises(BudgetError, match="more than the limit"):
        monte_carlo(None, 10**12)


def test_a_compensator_that_is_also_toleranced_is_never_silent():
    from optics.tolerance._model import ToleranceWarning

    items = [{"path": "surfaces[6].thickness", "plus_minus": 0.1}]
    with pytest.warns(
        ToleranceWarning, match=r"compensators\[0\]: surfaces\[6\].thickness is also"
    ):
        ToleranceModel(cooke(section(items)), where="lens.toml: [tolerance]")
