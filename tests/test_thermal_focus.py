"""Focus vs temperature: hand calculations of a singlet, the operand's gradients, the
environment in lens and .zmx files, and ``optics thermal``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.cli import main
from optics.errors import LensFileError
from optics.io import lensfile, zemax
from optics.materials import CatalogGlass
from optics.optimize import Operand, Problem
from optics.thermal import (
    Environment,
    ThermalWarning,
    at_environment,
    focus_shift_at,
    index_at_temperature,
    thermal_focus_shift,
)
from optics.trace import trace_bundle

E_LINE = 0.546074
BK7_CTE = 7.1e-6  # N-BK7 data sheet, α(−30/+70 °C)
ALUMINIUM = 23.6e-6
RADIUS, CENTRE, IMAGE = 100.0, 2.0, 96.0


def singlet(mount=None, temperature=None):
    """An N-BK7 biconvex singlet, R = ±100 mm, 2 mm thick, image 96 mm behind it."""
    data = {
        "aperture": {"type": "epd", "value": 10.0},
        "wavelengths": {"values": [E_LINE]},
        "surfaces": [
            {"thickness": float("inf")},
            {"radius": RADIUS, "thickness": CENTRE, "material": "N-BK7", "stop": True},
            {"radius": -RADIUS, "thickness": IMAGE},
            {},
        ],
    }
    environment = {}
    if mount is not None:
        environment["mount_cte"] = mount
    if temperature is not None:
        environment["temperature"] = temperature
    if environment:
        data["environment"] = environment
    return lensfile.optic_from_dict(data)


def _thick_lens_focus(n, r1, r2, t):
    """Back focal length of a thick lens in air (textbook formula)."""
    power = (n - 1.0) * (1.0 / r1 - 1.0 / r2 + (n - 1.0) * t / (n * r1 * r2))
    return (1.0 - (n - 1.0) * t / (n * r1)) / power


def test_singlet_focus_shift_is_the_thick_lens_formula_with_expanded_parts():
    lens = singlet()
    glass = CatalogGlass("N-BK7")
    result = thermal_focus_shift(lens, -20.0, 60.0, 4, best_focus=False)

    def offset(t):
        scale = 1.0 + BK7_CTE * (t - 20.0)
        n = float(index_at_temperature(glass, np.asarray(E_LINE), t))
        back = _thick_lens_focus(n, RADIUS * scale, -RADIUS * scale, CENTRE * scale)
        return back - IMAGE * (1.0 + ALUMINIUM * (t - 20.0))

    expected = [offset(t) - offset(20.0) for t in result.temperatures]
    np.testing.assert_allclose(result.focus_shift, expected, rtol=0, atol=1e-11)
    assert result.focus_shift[2] == 0.0 and abs(result.focus_shift[0]) > 0.05


def test_singlet_focus_drift_is_minus_beta_f_from_the_data_sheet():
    # Hand calculation with the N-BK7 data sheet: ne = 1.51872, Δn_rel/ΔT = 3.0e-6/K at e
    # (+20/+40 °C), α = 7.1e-6/K; thin lens f = R / (2 (ne − 1)); β = dn/dT / (n − 1) − α;
    # df/dT = −β f.  Over 20 → 40 °C:
    f = RADIUS / (2 * (1.51872 - 1.0))
    beta = 3.0e-6 / (1.51872 - 1.0) - BK7_CTE
    lens_term = -beta * f * 20.0  # +2.5 µm: the focus moves out
    rigid = float(focus_shift_at(singlet(mount=0.0), 40.0))
    # the sheet's one decimal (±0.05e-6/K) is ±4 % of β; the thin lens a further ~1 %
    assert rigid == pytest.approx(lens_term, rel=0.06)
    mounted = float(focus_shift_at(singlet(), 40.0))
    assert mounted == pytest.approx(lens_term - ALUMINIUM * IMAGE * 20.0, rel=0.01)


def test_best_focus_follows_the_paraxial_focus_for_a_slow_singlet():
    result = thermal_focus_shift(singlet(), 0.0, 40.0, 2)
    np.testing.assert_allclose(result.best_focus_shift, result.focus_shift, rtol=0.02, atol=1e-6)
    summary = result.summary
    assert summary.focus_rate == pytest.approx(
        (result.focus_shift[2] - result.focus_shift[0]) / 40, rel=1e-3
    )
    (element,) = summary.elements
    assert element["cte"] == BK7_CTE
    # at 20 °C, between the sheet's −40/−20 and +20/+40 means (2.9 and 3.0e-6/K at e)
    assert 2.85 < element["dn_dt"] * 1e6 < 3.05


def test_at_environment_leaves_its_input_alone_and_expands_a_copy():
    lens = singlet()
    before = lensfile.optic_to_dict(lens)
    hot = at_environment(lens, 70.0, 0.8)
    assert lensfile.optic_to_dict(lens) == before and lens.environment is None
    assert hot.environment == Environment(temperature=70.0, pressure=0.8)
    assert hot.surfaces[1].geometry.radius == pytest.approx(RADIUS * (1 + 50 * BK7_CTE), abs=1e-12)
    assert hot.surfaces[2].thickness == pytest.approx(IMAGE * (1 + 50 * ALUMINIUM), abs=1e-12)
    back = at_environment(hot, 20.0, 1.0)  # and back again: the same prescription
    assert back.surfaces[1].geometry.radius == pytest.approx(RADIUS, rel=1e-15)


def test_a_file_at_another_temperature_is_the_prescription_there():
    warm = singlet(temperature=40.0)
    assert warm.surfaces[1].geometry.radius == RADIUS  # as written, not expanded
    # its indices are those at 40 °C: the same focus as the 20 °C lens taken to 40 °C
    # without expansion (mount and glass CTE 0)
    cold = lensfile.optic_from_dict(
        {**lensfile.optic_to_dict(singlet()), "environment": {"mount_cte": 0.0, "cte": {"1": 0.0}}}
    )
    warmed = at_environment(cold, 40.0)
    assert float(optics.paraxial(warm).bfl) == pytest.approx(
        float(optics.paraxial(warmed).bfl), abs=1e-12
    )
    assert float(focus_shift_at(warm, 20.0)) == pytest.approx(
        -float(focus_shift_at(singlet(), 40.0)), rel=2e-3
    )


def test_thermal_operand_gradients_equal_central_differences(autodiff_backend):
    paths = ["surfaces[1].radius", "surfaces[2].thickness"]
    problem = Problem(singlet(), paths, [Operand("thermal_focus_shift", temperature=60.0)])
    u = np.array([0.2, -0.3])
    _, jacobian = problem.jacobian(u)

    def differences(h):
        columns = []
        for i in range(problem.size):
            step = np.zeros(problem.size)
            step[i] = h
            plus, minus = problem.residuals_numpy(u + step), problem.residuals_numpy(u - step)
            columns.append((plus - minus) / (2 * h))
        return np.stack(columns, axis=1)

    with be.using("numpy"):
        coarse, fine = differences(4e-4), differences(2e-4)
    scale = np.max(np.abs(fine))
    assert scale > 0 and np.all(np.abs(fine) > 1e-3 * scale), fine
    np.testing.assert_allclose(coarse, fine, rtol=0, atol=1e-5 * scale)
    np.testing.assert_allclose(jacobian, fine, rtol=0, atol=1e-5 * scale)


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_environment_round_trips_through_lens_files(tmp_path, fmt):
    hot = at_environment(
        singlet(), 45.0, 0.75, environment=Environment(mount_cte=1.2e-5, cte={1: 8e-6})
    )
    path = optics.save(hot, tmp_path / f"hot.{fmt}")
    back = optics.load(path)
    assert back.environment == hot.environment
    assert back.surfaces[1].material.to_spec() == "N-BK7"
    assert float(optics.paraxial(back).efl) == float(optics.paraxial(hot).efl)


def test_bad_environment_values_name_the_key():
    data = lensfile.optic_to_dict(singlet())
    cases = [
        ({"temperature": "hot"}, "key 'temperature' must be a number"),
        ({"pressure": -2.0}, "pressure must be a finite number >= 0"),
        ({"humidity": 0.5}, "humidity"),
        ({"cte": {"x": 1e-6}}, "keys of 'cte' are surface indices"),
        ({"cte": {"7": 1e-6}}, "surface 7 is not a lens surface"),
    ]
    for table, message in cases:
        with pytest.raises(LensFileError, match=r"\[environment\].*" + message.replace("(", r"\(")):
            lensfile.optic_from_dict({**data, "environment": table}, "lens.toml")


def test_zmx_envd_line_is_read_and_written():
    hot = at_environment(singlet(), 35.0, 0.9)
    text = zemax.dumps(hot)
    assert "ENVD 35.0 0.9 1" in text
    back = zemax.loads(zemax.encode(text))
    assert back.environment == Environment(temperature=35.0, pressure=0.9)
    # OpticStudio's "adjust index data to environment" off: catalog indices, no environment
    assert (
        zemax.loads(zemax.encode(text.replace("ENVD 35.0 0.9 1", "ENVD 35.0 0.9 0"))).environment
        is None
    )
    pres = text.replace("ENVD 35.0 0.9 1", "TEMP 30\r\nPRES 0.5")
    assert zemax.loads(zemax.encode(pres)).environment == Environment(
        temperature=30.0, pressure=0.5
    )


def test_cli_prints_the_documented_json(capsys):
    assert main(["thermal", "singlet", "--from", "0", "--to", "40", "--steps", "2", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["temperatures"] == [0.0, 20.0, 40.0]
    assert len(record["focus_shift"]) == 3 and record["focus_shift"][1] == 0.0
    assert {"best_focus_shift", "back_focus", "image_distance", "efl", "athermal"} <= set(record)
    assert main(["thermal", "singlet", "--steps", "1", "--no-best-focus"]) == 0
    assert "athermal summary" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["--steps", "0"],
        ["--from", "nan"],
        ["--to", "-300"],
        ["--pressure", "-1"],
        ["--wavelength", "0"],
    ],
)
def test_cli_bad_input_is_one_line_and_status_2(capsys, argv):
    assert main(["thermal", "singlet", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("optics thermal: error:")


def test_a_model_glass_warns_once_and_does_not_expand():
    data = lensfile.optic_to_dict(singlet())
    data["surfaces"][1]["material"] = {"nd": 1.5168, "vd": 64.17}
    lens = lensfile.optic_from_dict(data)
    with pytest.warns(ThermalWarning) as record:
        hot = at_environment(lens, 60.0)
    messages = [str(w.message) for w in record]
    assert len(messages) == 2  # one for dn/dT, one for the expansion
    assert any("model glass nd=1.5168, vd=64.17 (surface 1) has no dn/dT" in m for m in messages)
    assert any("surface 1: model glass" in m and "no thermal expansion" in m for m in messages)
    assert hot.surfaces[1].geometry.radius == RADIUS and hot.surfaces[1].thickness == CENTRE
    given = lensfile.optic_from_dict({**data, "environment": {"cte": {"1": 7.1e-6}}})
    with pytest.warns(ThermalWarning, match="dn/dT"):
        hot = at_environment(given, 60.0)
    assert hot.surfaces[1].thickness == pytest.approx(CENTRE * (1 + 40 * 7.1e-6), abs=1e-14)


def test_the_expanded_optic_traces_alike_on_every_backend(backend):
    hot = at_environment(singlet(), 60.0)
    py = be.asarray([0.5, 1.0])
    bundle = trace_bundle(hot, fields=[(0.0, 0.0)], wavelengths=[E_LINE], pupil=(0.0 * py, py))
    y = be.to_numpy(bundle.rays.y)[0, 0]
    with be.using("numpy"):
        py = be.asarray([0.5, 1.0])
        reference = trace_bundle(
            hot, fields=[(0.0, 0.0)], wavelengths=[E_LINE], pupil=(0.0 * py, py)
        )
    np.testing.assert_allclose(y, be.to_numpy(reference.rays.y)[0, 0], rtol=0, atol=1e-12)


def _mirror(environment=None):
    data = {
        "aperture": {"type": "epd", "value": 20.0},
        "wavelengths": {"values": [E_LINE]},
        "surfaces": [
            {"thickness": float("inf")},
            {"radius": -200.0, "thickness": -100.0, "material": "mirror", "stop": True},
            {},
        ],
    }
    if environment is not None:
        data["environment"] = environment
    return lensfile.optic_from_dict(data)


def test_a_mirror_on_the_mount_material_is_athermal():
    # A spherical mirror (f = R/2 = 100 mm) and its detector on an aluminium spacer: with
    # the substrate of the spacer's material everything scales alike and the focus stays
    # on the detector; with a mirror that keeps its shape the spacer alone moves the
    # detector by 100 mm · α · ΔT away from the mirror, the focus 94.4 µm in front of it.
    same = _mirror({"mirror_cte": ALUMINIUM})
    assert abs(float(focus_shift_at(same, 60.0))) < 1e-12
    rigid = float(focus_shift_at(_mirror(), 60.0))
    assert rigid == pytest.approx(100.0 * ALUMINIUM * 40.0, rel=1e-9)
    back = lensfile.loads(lensfile.dumps(lensfile.optic_to_dict(same), "toml"), "toml")
    assert back["environment"]["mirror_cte"] == ALUMINIUM


def test_the_index_parameter_of_a_warm_model_glass_is_reachable():
    from optics.params import get_param, set_param

    data = lensfile.optic_to_dict(singlet())
    data["surfaces"][1]["material"] = {"nd": 1.5168, "vd": 64.17}
    data["environment"] = {"temperature": 40.0}
    with pytest.warns(ThermalWarning):
        warm = lensfile.optic_from_dict(data)
    assert get_param(warm, "surfaces[1].material.index") == 1.5168
    before = float(optics.paraxial(warm).efl)
    set_param(warm, "surfaces[1].material.index", 1.6)
    assert float(optics.paraxial(warm).efl) < before
    with pytest.raises(optics.params.ParameterPathError, match="no index parameter"):
        get_param(singlet(temperature=40.0), "surfaces[1].material.index")


def test_the_row_at_the_lens_s_own_temperature_is_zero_for_a_glass_given_at_25_c():
    # OHARA gives S-LAH64 at 25 °C; a lens without [environment] is at 20 °C.  The row at
    # 20 °C moves the glass from 25 to 20 °C, and so must the reference: 0 by definition
    # (before, the reference kept the 25 °C catalog index: 0.694 µm).
    data = {
        "aperture": {"type": "epd", "value": 10.0},
        "wavelengths": {"values": [E_LINE]},
        "surfaces": [
            {"thickness": float("inf")},
            {"radius": RADIUS, "thickness": CENTRE, "material": "S-LAH64", "stop": True},
            {"radius": -RADIUS, "thickness": IMAGE},
            {},
        ],
    }
    lens = lensfile.optic_from_dict(data)
    assert CatalogGlass("S-LAH64").thermal.reference_temperature == 25.0
    result = thermal_focus_shift(lens, 10.0, 30.0, 2, best_focus=True)
    assert result.temperatures[1] == 20.0
    assert result.focus_shift[1] == 0.0
    assert abs(result.best_focus_shift[1]) < 1e-12
    assert abs(float(focus_shift_at(lens, 20.0))) < 1e-12
    # and the 10 °C row is the change from 20 °C, not from the catalog's 25 °C
    to_catalog = float(focus_shift_at(lens, 25.0))
    assert abs(result.focus_shift[0] - float(focus_shift_at(lens, 10.0))) < 1e-12
    assert abs(to_catalog) > 1e-5
