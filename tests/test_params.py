"""Parameter paths: ``surfaces[3].radius`` and friends, read and written on an optic."""

from __future__ import annotations

import math

import pytest
from _newton_cases import Q2D_TERMS, singlet_with

from optics import backend as be
from optics.geometry import Standard
from optics.geometry.newton_types import Q2D, QBFS, Chebyshev
from optics.materials import Abbe, ConstantIndex
from optics.params import ParameterPathError, get_param, parse_path, set_param
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths


def _optic():
    chebyshev = Chebyshev(-20.0, 0.0, [[0.0, 0.1, 0.2], [1.0, 1.1, 1.2]], norm_x=5.0, norm_y=5.0)
    return Optic(
        [
            Surface(thickness=math.inf),
            Surface(
                QBFS(30.0, -0.3, [0.01, 0.02], norm_radius=10.0),
                4.0,
                ConstantIndex(1.5),
                is_stop=True,
            ),
            Surface(
                Standard(-40.0, 0.5),
                2.0,
                Abbe(1.6, 40.0),
                decenter=(0.1, 0.2),
                tilt=(1.0, 2.0, 3.0),
            ),
            Surface(chebyshev, 30.0),
            Surface(Q2D(30.0, 0.0, Q2D_TERMS, norm_radius=8.0), 10.0),
            Surface(),
        ],
        Aperture("epd", 8.0),
        Fields("angle", [(0.0, 0.0), (0.0, 5.0)]),
        Wavelengths([0.55, 0.65], 0),
    )


def test_parse_path_splits_attributes_and_indices():
    assert parse_path("surfaces[6].coefficients[1][2]") == (
        ("attr", "surfaces"),
        ("index", 6),
        ("attr", "coefficients"),
        ("index", 1),
        ("index", 2),
    )
    assert parse_path("surfaces[-1].thickness")[1] == ("index", -1)


@pytest.mark.parametrize(
    "path",
    [
        "",
        "surfaces[1]radius",
        "surfaces[1]..radius",
        ".radius",
        "surfaces[x].radius",
        "surfaces[1].radius!",
        "surfaces[1]._radius",
        "surfaces[1].__class__",
    ],
)
def test_malformed_paths_are_rejected_with_the_path_in_the_message(path):
    with pytest.raises(ParameterPathError, match="parameter path"):
        get_param(_optic(), path)


@pytest.mark.parametrize(
    "path, expected",
    [
        ("surfaces[1].radius", 30.0),
        ("surfaces[1].conic", -0.3),
        ("surfaces[1].terms[1]", 0.02),
        ("surfaces[1].norm_radius", 10.0),
        ("surfaces[2].radius", -40.0),
        ("surfaces[2].curvature", -1 / 40.0),
        ("surfaces[2].thickness", 2.0),
        ("surfaces[2].decenter[1]", 0.2),
        ("surfaces[2].tilt[2]", 3.0),
        ("surfaces[1].material.index", 1.5),
        ("surfaces[1].material.value", 1.5),
        ("surfaces[2].material.index", 1.6),
        ("surfaces[2].material.vd", 40.0),
        ("surfaces[3].coefficients[1][2]", 1.2),
        ("surfaces[3].geometry.norm_x", 5.0),
        ("surfaces[4].coefficients[3]", 0.003),
        ("surfaces[4].coefficients[3].value", 0.003),
        ("aperture.value", 8.0),
        ("fields.values[1][1]", 5.0),
        ("wavelengths.values[1]", 0.65),
        ("surfaces[-2].thickness", 10.0),
    ],
)
def test_get_param_reads_the_addressed_number(path, expected):
    assert get_param(_optic(), path) == pytest.approx(expected, rel=1e-15)


@pytest.mark.parametrize(
    "path",
    [
        "surfaces[1].radius",
        "surfaces[1].terms[0]",
        "surfaces[2].decenter[0]",
        "surfaces[2].tilt[1]",
        "surfaces[3].coefficients[0][2]",
        "surfaces[4].coefficients[1]",
        "surfaces[2].material.index",
        "surfaces[2].thickness",
        "fields.values[1][1]",
    ],
)
def test_set_param_writes_where_get_param_reads(path):
    optic = _optic()
    set_param(optic, path, 0.125)
    assert get_param(optic, path) == 0.125


def test_setting_a_tuple_entry_replaces_the_tuple():
    optic = _optic()
    set_param(optic, "surfaces[2].decenter[0]", 0.5)
    assert optic.surfaces[2].decenter == (0.5, 0.2)


def test_a_trainable_tensor_is_stored_as_is(torch_backend):
    optic = _optic()
    leaf = be.parameter(0.3)
    set_param(optic, "surfaces[3].coefficients[0][1]", leaf)
    assert get_param(optic, "surfaces[3].coefficients[0][1]") is leaf
    assert optic.surfaces[3].geometry.coefficients[0][1] is leaf


@pytest.mark.parametrize(
    "path, message",
    [
        ("surfaces[9].radius", "surfaces has 6 entries, index 9 is out of range"),
        ("surfaces[1].radiu", "surfaces\\[1\\] \\(QBFS\\) has no parameter 'radiu'"),
        ("surfaces[1].terms[5]", "surfaces\\[1\\].terms has 2 entries"),
        ("surfaces[1].terms", "leads to a list, not a number"),
        ("surfaces[1].sag", "has no parameter 'sag'"),
        ("surfaces[1].decenter[0]", "surfaces\\[1\\].decenter is not set"),
        ("surfaces[3].material.index", "has no index parameter"),
        ("surfaces[1].radius[0]", "is not a list"),
        ("surfaces[4].coefficients[0].weight", "has no key 'weight'"),
        ("name", "not a number"),
    ],
)
def test_bad_paths_name_the_path_and_what_is_wrong(path, message):
    with pytest.raises(ParameterPathError, match=message) as info:
        get_param(_optic(), path)
    assert path in str(info.value)


def test_set_param_refuses_a_path_get_param_refuses():
    with pytest.raises(ParameterPathError, match="radiu"):
        set_param(_optic(), "surfaces[2].radiu", 1.0)


def test_paths_work_from_any_object_such_as_a_geometry():
    geometry = singlet_with(Chebyshev(-20.0, 0.0, [[0.0, 0.1]], norm_x=5.0, norm_y=5.0))
    assert get_param(geometry.surfaces[1].geometry, "coefficients[0][1]") == 0.1
