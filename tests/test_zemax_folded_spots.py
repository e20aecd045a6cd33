"""Spots of folded systems are taken in the image surface's local frame, not global x, y."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from optics import backend as be
from optics.analysis import spot_diagram
from optics.analysis.spot import in_image_frame, ray_fan
from optics.io.zemax import ZemaxWarning, loads
from optics.optimize import MeritContext, Operand

HEADER = """MODE SEQ
UNIT MM
ENPD 8
FTYP 0 0 2 1 0 0 0
YFLN 0 4
WAVM 1 0.55 1
PWAV 1
SURF 0
  DISZ INFINITY
SURF 1
  STOP
  CURV 0.02
  DISZ 3
  GLAS ___BLANK 1 0 1.5 0
SURF 2
  DISZ 10
"""
FOLDED = """SURF 3
  TYPE COORDBRK
  PARM 3 45
  DISZ 0
SURF 4
  GLAS MIRROR 0 0 1.5 40
  DISZ 0
SURF 5
  TYPE COORDBRK
  PARM 3 45
  DISZ -85
SURF 6
  DISZ 0
"""
STRAIGHT = """SURF 3
  DISZ 85
SURF 4
  DISZ 0
"""


def _optic(body):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        return loads((HEADER + body).encode(), "lens.zmx")


def _spots(optic):
    return [
        (float(be.item(s.rms_radius_centroid)), float(be.item(s.rms_radius_chief)), s.centroid)
        for s in spot_diagram(optic, pupil=3)
    ]


def test_a_fold_mirror_leaves_the_spots_of_the_unfolded_lens():
    folded, straight = _optic(FOLDED), _optic(STRAIGHT)
    assert in_image_frame(straight, "rays") == "rays"  # an unfolded image: untouched
    for (rms_f, chief_f, (cx_f, cy_f)), (rms_s, chief_s, (cx_s, cy_s)) in zip(
        _spots(folded), _spots(straight)
    ):
        assert rms_f == pytest.approx(rms_s, abs=1e-12)
        assert chief_f == pytest.approx(chief_s, abs=1e-12)
        # The mirror turns the image's y over (a reflection); x stays.
        assert float(cx_f) == pytest.approx(float(cx_s), abs=1e-12)
        assert abs(float(cy_f)) == pytest.approx(abs(float(cy_s)), abs=1e-12)
    assert _spots(straight)[1][0] > 1e-3  # an aberrated spot: the radii are compared
    pupil, error, _ = ray_fan(folded, 0.0, 1.0)
    _, straight_error, _ = ray_fan(straight, 0.0, 1.0)
    np.testing.assert_allclose(np.abs(error), np.abs(straight_error), atol=1e-12)


def test_the_rms_spot_merit_of_a_folded_lens_is_the_unfolded_one():
    values = [
        float(be.to_numpy(Operand("rms_spot").value(MeritContext(_optic(body)))))
        for body in (FOLDED, STRAIGHT)
    ]
    assert values[0] == pytest.approx(values[1], abs=1e-12)
