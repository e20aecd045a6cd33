"""Configurations: a zoom lens in three positions against Optiland, lens-file round trips,
errors, and a merit across configurations with its gradient."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.configurations import ConfigurationRow, Configurations, each_configuration
from optics.errors import ConfigurationError, LensFileError
from optics.optimize import Operand, Problem

ZOOM = Path(__file__).parent / "data" / "zoom_two_group.toml"

# Measured in Optiland 0.6.3 (/work/anchors/optiland), each configuration built as a
# separate single-configuration Optic (N-BK7 from its "schott" catalog, EPD 5 mm,
# 0.5875618 µm, angle fields, default paraxial ray aiming): paraxial.f2() and, for
# configuration 2 (whose 12° field is as it was then), the image y of
# trace_generic(Hx=0, Hy=1, Px=0, Py=[0, 1, -1]) and (Hy=0, Py=1).
OPTILAND_EFL = [48.56122988063512, 29.70180081692251, 21.393382976722325]
OPTILAND_FIELD_Y_2 = [6.202278399932101, 5.7565498343524935, 6.541200879973811]
OPTILAND_AXIAL_Y = [-0.09029809697345703, -0.21377701272810423, -0.37739803833506524]
# The same rays in rayoptics 0.9.10, paraxially aimed from explicit start points
# (tests/data/corpus/rayoptics_zoom.py; README.md there).
RAYOPTICS_RAYS = json.loads(
    (Path(__file__).parent / "data" / "corpus" / "zoom_two_group.rayoptics.json").read_text()
)
RAYOPTICS_EFL = [48.5612298806351, 29.70180081692251, 21.393382976722318]


@pytest.fixture(scope="module")
def zoom():
    return optics.load(ZOOM)


def test_zoom_lens_efl_and_real_image_heights_match_optiland(zoom):
    assert zoom.configuration_count == 3
    for n in (1, 2, 3):
        c = zoom.configuration(n)
        efl = float(optics.prepare(c).first_order.efl)
        assert efl == pytest.approx(OPTILAND_EFL[n - 1], rel=1e-9)
        assert efl == pytest.approx(RAYOPTICS_EFL[n - 1], rel=1e-9)
        field = optics.trace_rays(c, (0.0, 1.0), (0.0, np.array([0.0, 1.0, -1.0])))
        want = RAYOPTICS_RAYS["field_y"][n - 1]
        np.testing.assert_allclose(field.y, want, rtol=0, atol=1e-9)
        if n == 2:
            np.testing.assert_allclose(field.y, OPTILAND_FIELD_Y_2, rtol=0, atol=1e-9)
        axial = optics.trace_rays(c, (0.0, 0.0), (0.0, 1.0))
        assert float(axial.y) == pytest.approx(OPTILAND_AXIAL_Y[n - 1], abs=1e-9)
        assert float(axial.y) == pytest.approx(RAYOPTICS_RAYS["axial_y"][n - 1], abs=1e-9)


def test_zoom_positions_are_named_by_focal_length(zoom):
    """The tele position has the longest EFL and the narrowest field, wide the opposite."""
    efl = {}
    for n, name in zip((1, 2, 3), zoom.configurations.names):
        c = zoom.configuration(n)
        efl[name] = (float(optics.prepare(c).first_order.efl), c.fields.max_magnitude)
    assert efl["tele"][0] > efl["middle"][0] > efl["wide"][0]
    assert efl["tele"][1] < efl["middle"][1] < efl["wide"][1]


def test_configurations_share_what_they_do_not_change(zoom):
    tele, wide = zoom.configuration(1), zoom.configuration(3)
    assert tele.surfaces[1] is zoom.surfaces[1] and wide.surfaces[4] is zoom.surfaces[4]
    assert tele.surfaces[2] is not zoom.surfaces[2]
    assert tele.surfaces[2].geometry is zoom.surfaces[2].geometry  # only the thickness changed
    assert (tele.surfaces[2].thickness, wide.surfaces[2].thickness) == (9.0, 29.0)
    assert zoom.surfaces[2].thickness == 10.0  # the base is untouched
    assert tele.fields.values[1] == (0.0, 8.0) and zoom.fields.values[1] == (0.0, 10.0)
    assert tele.configurations is None
    assert [c.surfaces[5].thickness for c in each_configuration(zoom)] == [
        66.022,
        49.8125,
        42.6715,
    ]


def test_lens_file_round_trip_keeps_the_configurations(zoom, tmp_path):
    path = optics.save(zoom, tmp_path / "zoom.toml")
    again = optics.load(path)
    assert again.configurations.names == ["tele", "middle", "wide"]
    for a, b in zip(zoom.configurations.rows, again.configurations.rows):
        assert (a.key, a.values) == (b.key, b.values)
    path = optics.save(zoom, tmp_path / "zoom.json")
    assert optics.load(path).configuration(2).surfaces[2].thickness == 19.0


def test_stop_material_radius_conic_tilt_and_temperature_rows():
    base = optics.load("cooke_triplet")
    base.configurations = Configurations(
        [
            ConfigurationRow("surfaces[1].radius", [22.01359, 23.0]),
            ConfigurationRow("surfaces[1].conic", [0.0, -0.5]),
            ConfigurationRow("surfaces[3].tilt[0]", [0.0, 0.1]),
            ConfigurationRow("surfaces[3].material", ["F2", "SF5"]),
            ConfigurationRow("stop", [4, 3]),
            ConfigurationRow("aperture.value", [10.0, 8.0]),
            ConfigurationRow("wavelengths.values[0]", [0.48, 0.486]),
            ConfigurationRow("temperature", [20.0, 40.0]),
        ],
        2,
    )
    first, second = base.configuration(1), base.configuration(2)
    assert second.surfaces[1].geometry.radius != base.surfaces[1].geometry.radius
    assert second.surfaces[1].geometry.conic == -0.5 and base.surfaces[1].geometry.conic == 0
    assert second.surfaces[3].tilt[0] == 0.1 and base.surfaces[3].tilt in (None, (0, 0, 0))
    assert (first.stop_index, second.stop_index) == (4, 3)
    assert second.aperture.value == 8.0 and second.wavelengths.values[0] == 0.486
    assert second.environment.temperature == 40.0
    # the glass changed: SF5 has a lower index than F2? no: higher (1.673 vs 1.620 at d)
    n_f2 = float(be.item(first.surfaces[3].material.index(0.5876)))
    n_sf5 = float(be.item(second.surfaces[3].material.index(0.5876)))
    assert n_f2 == pytest.approx(1.6200, abs=2e-3) and n_sf5 == pytest.approx(1.6727, abs=2e-3)
    assert first.surfaces[1] is base.surfaces[1] or first.surfaces[1].geometry.radius == 22.01359


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ('"surfaces[2].thickness" = [1.0, 2.0]\n"surfaces[5].thickness" = [1.0]', "has 1 values"),
        ('"surfaces[99].thickness" = [1.0, 2.0]', "out of range"),
        ('"surfaces[2].bogus" = [1.0, 2.0]', "bogus"),
        ('"surfaces[2].thickness" = [1.0, "x"]', "must be a number"),
        ("stop = [3, 6]", "stop must be a surface index"),
        ('"surfaces[1].material" = ["N-BK7", { index = -1.0 }]', "configuration 2"),
    ],
)
def test_bad_configuration_tables_name_the_key(tmp_path, values, message):
    text = ZOOM.read_text().split("[configurations]")[0]
    path = tmp_path / "bad.toml"
    path.write_text(text + "[configurations]\n[configurations.values]\n" + values + "\n")
    with pytest.raises(LensFileError, match=r"\[configurations\]") as info:
        optics.load(path)
    assert message in str(info.value)


def test_configuration_number_out_of_range(zoom):
    with pytest.raises(ConfigurationError, match="1 to 3"):
        zoom.configuration(4)
    with pytest.raises(ConfigurationError, match="1 to 1"):
        optics.load("cooke_triplet").configuration(2)


def _zoom_problem(configs=(1, 2, 3), *, spots=True):
    """A fresh zoom (a Problem sets its variables on the optic it is given).

    With ``spots`` (traced rays: rms_spot, the tele image distance as a variable),
    else paraxial operands only (bfl, efl; the tele spacing as a variable), which JAX
    differentiates without compiling a ray trace per configuration (tens of seconds).
    """
    row = 1 if spots else 0  # rows: 0 the spacing, 1 the image distance
    variables = [
        "surfaces[1].radius",
        "surfaces[4].radius",
        f"configurations.rows[{row}].values[0]",  # a value of configuration 1 only
    ]
    operands = []
    for n in configs:
        if spots:
            operands.append(Operand("rms_spot", weight=100.0, config=n, rings=1))
        else:
            operands.append(Operand("bfl", target=[66.0, 50.0, 43.0][n - 1], config=n))
        operands.append(Operand("efl", target=[50.0, 30.0, 20.0][n - 1], config=n))
    return Problem(optics.load(ZOOM), variables, operands)


def _fd_gradient(problem, u, h):
    columns = []
    for i in range(problem.size):
        step = np.zeros(problem.size)
        step[i] = h
        columns.append((problem.merit_float(u + step) - problem.merit_float(u - step)) / (2 * h))
    return np.array(columns)


def _assert_gradient_matches_finite_differences(problem):
    u = np.array([0.1, -0.2, 0.3])
    _, gradient = problem.value_and_gradient(u)
    with be.using("numpy"):
        coarse, fine = _fd_gradient(problem, u, 1e-3), _fd_gradient(problem, u, 5e-4)
    scale = np.max(np.abs(fine))
    assert np.all(np.abs(fine) > 1e-6 * scale), fine
    np.testing.assert_allclose(coarse, fine, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(gradient, fine, rtol=0, atol=1e-6 * scale)


def test_merit_across_configurations_gradient_matches_finite_differences(autodiff_backend):
    _assert_gradient_matches_finite_differences(_zoom_problem(spots=False))


def test_traced_merit_across_configurations_gradient_torch(torch_backend):
    _assert_gradient_matches_finite_differences(_zoom_problem(spots=True))


def test_merit_sums_the_configurations(zoom):
    rows = _zoom_problem().merit.report(zoom)
    assert [r["config"] for r in rows] == [1, 1, 2, 2, 3, 3]
    assert rows[1]["value"] == pytest.approx(OPTILAND_EFL[0], rel=1e-9)
    assert rows[5]["value"] == pytest.approx(OPTILAND_EFL[2], rel=1e-9)
    assert rows[2]["label"] == "rms_spot(rings=1)@config2"
    assert math.isfinite(sum(r["contribution"] for r in rows))


@pytest.mark.parametrize("config", ["worst", 2])
def test_tolerance_criterion_per_configuration_and_worst(config):
    from optics.tolerance import model_from_lens

    lens = optics.load(ZOOM)
    lens.tolerance = {
        "criterion": {"type": "rms_spot", "rings": 2, "config": config},
        "items": [{"path": "surfaces[4].radius", "relative": 0.01}],
    }
    model = model_from_lens(lens)
    spots = [
        float(be.item(optics.optimize.Merit([Operand("rms_spot", rings=2)]).values(c)[0]))
        for c in each_configuration(lens)
    ]
    expected = max(spots) if config == "worst" else spots[1]
    assert model.nominal_value() == pytest.approx(expected, rel=1e-12)
    # the perturbation reaches every configuration: the worst one is taken after it
    perturbed = model.perturbed([lens.surfaces[4].geometry.radius * 0.05])
    spots = [
        float(be.item(optics.optimize.Merit([Operand("rms_spot", rings=2)]).values(c)[0]))
        for c in each_configuration(perturbed)
    ]
    expected = max(spots) if config == "worst" else spots[1]
    assert model.evaluate([lens.surfaces[4].geometry.radius * 0.05]) == pytest.approx(expected)


def test_json_rows_with_infinity_and_seq_warns(tmp_path):
    from optics.io.codev import CodeVWarning

    lens = optics.load("cooke_triplet")
    lens.configurations = Configurations(
        [ConfigurationRow("surfaces[0].thickness", [math.inf, 1000.0])], count=2
    )
    again = optics.load(optics.save(lens, tmp_path / "focus.json"))
    assert again.configurations.rows[0].values == [math.inf, 1000.0]
    assert again.configuration(1).object_at_infinity
    assert not again.configuration(2).object_at_infinity
    with pytest.warns(CodeVWarning, match="configurations have no .seq form"):
        optics.save(lens, tmp_path / "focus.seq")
