"""Through-focus spot: RMS and GEO radius against defocus, the best focus, the CLI and the operands.

References: Optiland 0.6.3 ThroughFocusSpotDiagram (num_rings=6, hexapolar, "local"
coordinates; its SpotData per step, field and wavelength), from which the RMS and GEO radius
about the centroid of the rays were taken (the rays of every wavelength pooled for a lens
with several, as our polychromatic default does with equal weights).  Scripts:
/tmp/analyses4/ol_cooke_ideal.py and /tmp/analyses4/ol_tfspot.py (the .zmx twins of the
corpus designs written by the earlier analyses helper, /tmp/analyses/*.zmx).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from helpers import corpus_design, reference_cooke

import optics
from optics import backend as be
from optics.analysis import through_focus_spot
from optics.cli import main
from optics.errors import ConfigurationError
from optics.optimize import OPERANDS, MeritContext, Operand, Problem

PARABOLOID = Path(__file__).resolve().parent / "data" / "wavefront" / "paraboloid.toml"

# Optiland 0.6.3, the reference Cooke triplet (constant indices at 0.55 µm, helpers.
# reference_cooke) built through its API, ThroughFocusSpotDiagram(delta_focus=0.05,
# num_steps=5): rows are the defocus -0.1 ... 0.1 mm, columns the fields 0°, 14°, 20° (mm).
COOKE_RMS = [
    [0.009024808, 0.01956636964, 0.01138990806],
    [0.005937506137, 0.01782590007, 0.01111238311],
    [0.004293689564, 0.01678672128, 0.0120813489],
    [0.005567093702, 0.01658121574, 0.01404107561],
    [0.008539570585, 0.01723922346, 0.01664522448],
]
COOKE_GEO = [
    [0.01137690974, 0.04838814514, 0.0330726879],
    [0.008793376877, 0.04351713953, 0.0282496394],
    [0.006286457711, 0.03864613393, 0.0234265909],
    [0.009243098999, 0.03377512832, 0.02221237515],
    [0.01429052092, 0.03194514776, 0.02719048027],
]
# Optiland 0.6.3, tests/data/corpus/cassegrain (a two-mirror telescope: light goes -z to the
# image), delta_focus=0.5, num_steps=5 (-1 ... 1 mm), fields 0, 0.1, 0.2°.
CASSEGRAIN_RMS = [
    [0.01902102746, 0.0173774842, 0.01256967299],
    [0.009510513729, 0.00790768139, 0.003782236996],
    [0.0, 0.002004052489, 0.007185825215],
    [0.009510513729, 0.01124417011, 0.01643134143],
    [0.01902102746, 0.02073105955, 0.02587207004],
]
# Optiland 0.6.3, tests/data/corpus/achromat_finite (object at 200 mm, object-height fields,
# F d C pooled): delta_focus=33, num_steps=7 (-99 ... 99 mm; its image surface sits ~98 mm
# short of the focus), fields 0, 2, 3 mm.
ACHROMAT_FINITE_RMS = [
    [6.112874084, 6.112871493, 6.112868258],
    [5.086591037, 5.086318613, 5.085978074],
    [4.060310602, 4.059768796, 4.059091526],
    [3.03403543, 3.033225153, 3.032212309],
    [2.00777359, 2.006697159, 2.005351686],
    [0.9815669009, 0.9802339825, 0.9785681887],
    [0.0482428262, 0.05030249056, 0.05284352324],
]
ACHROMAT_FINITE_GEO_LAST = [0.08391586348, 0.1017299521, 0.112821223]


def test_cooke_matches_optiland():
    result = through_focus_spot(reference_cooke(), [-0.1, -0.05, 0.0, 0.05, 0.1], rings=6)
    np.testing.assert_allclose(be.to_numpy(result.rms), COOKE_RMS, rtol=2e-9, atol=1e-12)
    np.testing.assert_allclose(be.to_numpy(result.geo), COOKE_GEO, rtol=2e-9, atol=1e-12)
    assert not result.polychromatic and result.rings == 6


def test_a_mirror_system_matches_optiland():
    result = through_focus_spot(corpus_design("cassegrain"), np.linspace(-1, 1, 5), rings=6)
    np.testing.assert_allclose(be.to_numpy(result.rms), CASSEGRAIN_RMS, rtol=2e-9, atol=1e-11)


def test_a_finite_object_polychromatic_system_matches_optiland():
    optic = corpus_design("achromat_finite")
    result = through_focus_spot(optic, [33.0 * k for k in range(-3, 4)], rings=6)
    assert result.polychromatic and len(result.wavelengths) == 3
    np.testing.assert_allclose(be.to_numpy(result.rms), ACHROMAT_FINITE_RMS, rtol=2e-9)
    np.testing.assert_allclose(be.to_numpy(result.geo)[-1], ACHROMAT_FINITE_GEO_LAST, rtol=2e-9)
    # The image surface is ~98 mm short of the focus: the least-RMS defocus says where.
    assert 95.0 < float(result.best_focus) < 100.0


def test_best_focus_of_a_perfect_mirror_imaged_past_its_focus(backend):
    # The paraboloid images the axis perfectly 100 mm before it (light goes -z after it);
    # the image surface 0.04 mm further along the light: the least RMS is 0.04 mm back, 0.
    optic = optics.load(str(PARABOLOID))
    optic.surfaces[1].thickness = -100.04
    result = through_focus_spot(optic, [-0.06, -0.04, 0.0], fields=[(0.0, 0.0)], rings=8)
    assert float(be.item(result.best_focus)) == pytest.approx(-0.04, abs=1e-9)
    rms = be.to_numpy(result.rms)[:, 0]
    assert rms[1] < 1e-9 < rms[0] and rms[2] > rms[0]


def test_through_focus_equals_the_lens_with_its_image_surface_moved():
    shifts = [-0.08, 0.12]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = through_focus_spot(optics.load("cooke_triplet"), shifts, rings=8)
        for k, shift in enumerate(shifts):
            moved = optics.load("cooke_triplet")
            moved.surfaces[-2].thickness = moved.surfaces[-2].thickness + shift
            direct = through_focus_spot(moved, [0.0], rings=8)
            np.testing.assert_allclose(
                be.to_numpy(result.rms)[k], be.to_numpy(direct.rms)[0], rtol=1e-9
            )
            np.testing.assert_allclose(
                be.to_numpy(result.geo)[k], be.to_numpy(direct.geo)[0], rtol=1e-9
            )
    # The best focus is where the sampled curve is least (a quadratic's vertex).
    fine = np.linspace(-0.1, 0.1, 401)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        curve = through_focus_spot(optics.load("cooke_triplet"), fine, rings=8)
    mean_square = (be.to_numpy(curve.rms) ** 2).mean(axis=1)
    assert float(be.item(curve.best_focus)) == pytest.approx(fine[mean_square.argmin()], abs=5e-4)


def test_default_rings_are_converged():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = through_focus_spot(corpus_design("cassegrain"), [-0.5, 0.5])
    assert result.rings > 6 and result.accuracy <= 0.01 and result.area_weighted
    # Area-weighted rings converge to the continuous pupil: within 1 % of a fine plain average.
    fine = through_focus_spot(corpus_design("cassegrain"), [-0.5, 0.5], rings=120)
    np.testing.assert_allclose(be.to_numpy(result.rms), be.to_numpy(fine.rms), rtol=0.01)
    with pytest.raises(ConfigurationError, match="reference"):
        through_focus_spot(corpus_design("cassegrain"), [0.0], reference="edge")


def test_cli_spot_json_and_errors(capsys):
    args = ["through-focus", "cooke_triplet", "--spot", "--defocus=-0.1,0.1", "--steps", "3"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*args, "--rings", "6", "--field", "2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["defocus"] == [-0.1, 0.0, 0.1]
    assert [f["field"] for f in record["fields"]] == [[0.0, 1.0]]
    assert set(record["fields"][0]) == {"field", "rms", "geo", "best_focus"}
    assert record["polychromatic"] and record["rings"] == 6 and record["reference"] == "centroid"
    assert main([*args, "--frequency", "28"]) == 2
    assert main(["through-focus", "cooke_triplet"]) == 2
    assert "--frequency" in capsys.readouterr().err


def test_the_operands_are_the_analysis():
    optic = optics.load("achromat")
    ctx = MeritContext(optic)
    rms = OPERANDS["through_focus_spot"](ctx, defocus=0.03, field=2, rings=6)
    best = OPERANDS["spot_best_focus"](ctx, rings=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = through_focus_spot(optic, [0.03], rings=6)
    assert float(be.item(rms)) == pytest.approx(float(result.rms[0, 2]), rel=1e-12)
    assert float(be.item(best)) == pytest.approx(float(result.best_focus), rel=1e-12)


def _fd_jacobian(problem, u, h):
    return np.stack(
        [
            (problem.residuals_numpy(u + h * e) - problem.residuals_numpy(u - h * e)) / (2 * h)
            for e in np.eye(problem.size)
        ],
        axis=1,
    )


_FINITE_DIFFERENCES = {}


def _check_gradients():
    operands = [
        Operand("through_focus_spot", defocus=0.03, field=2, rings=6),
        Operand("spot_best_focus", rings=6),
    ]
    problem = Problem(optics.load("achromat"), ["surfaces[2].radius"], operands)
    u = np.array([0.2])
    _, jacobian = problem.jacobian(u)
    if "fd" not in _FINITE_DIFFERENCES:
        with be.using("numpy"):
            _FINITE_DIFFERENCES["fd"] = (
                _fd_jacobian(problem, u, 4e-4),
                _fd_jacobian(problem, u, 2e-4),
            )
    coarse, fine = _FINITE_DIFFERENCES["fd"]
    scale = np.max(np.abs(fine), axis=1, keepdims=True)
    assert np.all(scale > 1e-6), fine
    np.testing.assert_allclose(coarse, fine, rtol=0, atol=1e-4 * scale.max())
    np.testing.assert_allclose(jacobian / scale, fine / scale, rtol=0, atol=1e-4)


def test_torch_gradients_equal_central_differences(torch_backend):
    _check_gradients()


@pytest.mark.slow  # eager JAX compiles each new op of the trace: tens of seconds
def test_jax_gradients_equal_central_differences(jax_backend):
    _check_gradients()
