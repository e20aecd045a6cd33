"""A spot size over fewer rays than it needs is no value (NaN), never 0.

With all but the centre ray of a hexapolar bundle vignetted, the one ray
left has no spread: its RMS radius would be exactly 0, and a merit built on
it would reward vignetting the beam.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import optics
from optics.analysis.spot import MIN_SPOT_RAYS, spot_statistics
from optics.errors import ConfigurationError
from optics.optimize import MeritContext
from optics.optimize.operands import rms_spot


def _rays(valid):
    x = np.array([0.0, 1.0, -1.0, 2.0])
    return SimpleNamespace(x=x, y=np.zeros(4), valid=np.array(valid))


def test_one_valid_ray_gives_no_spot_size_with_the_operand_minimum():
    stats = spot_statistics(_rays([True, False, False, False]), 0.0, 0.0, min_rays=MIN_SPOT_RAYS)
    assert math.isnan(float(stats["rms_radius_centroid"]))
    assert math.isnan(float(stats["rms_radius_chief"]))


def test_two_valid_rays_give_their_spread():
    stats = spot_statistics(_rays([False, True, True, False]), 0.0, 0.0, min_rays=MIN_SPOT_RAYS)
    assert float(stats["rms_radius_centroid"]) == 1.0  # +-1 mm about a centroid at 0


def test_rms_spot_of_a_lens_vignetted_to_its_centre_ray_is_nan_not_zero():
    optic = optics.load("singlet")
    optic.surfaces[1].semi_diameter = 0.3  # only the centre ray of 6 rings passes the stop
    assert math.isnan(float(rms_spot(MeritContext(optic), fields=[0], rings=6)))


def test_optimize_refuses_a_merit_built_on_a_vignetted_spot():
    from optics.optimize import optimize, problem_from_lens

    optic = optics.load("singlet")
    optic.surfaces[1].semi_diameter = 0.3
    problem, _ = problem_from_lens(optic, "singlet: [optimize]")
    with pytest.raises(ConfigurationError, match="merit is not finite at the start.*rms_spot"):
        optimize(problem, "minimize", steps=2)
