"""Merit operands equal the analysis they stand for, and kinds/weights shape the residuals."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import reference_cooke, singlet

from optics import backend as be
from optics import paraxial
from optics.analysis import spot_diagram
from optics.errors import ConfigurationError
from optics.optimize import Merit, MeritContext, Operand
from optics.trace import trace_rays


def _value(optic, operand):
    return float(be.to_numpy(operand.value(MeritContext(optic))))


@pytest.mark.parametrize("name", ["efl", "bfl", "fno", "total_track"])
def test_first_order_operands_are_the_paraxial_data(backend, name):
    optic = reference_cooke()
    expected = paraxial(optic).as_floats()[name]
    assert _value(optic, Operand(name)) == pytest.approx(expected, rel=1e-14)


def test_rms_spot_is_the_root_mean_square_of_the_spot_diagram_radii(backend):
    optic = reference_cooke()
    spots = spot_diagram(optic)
    for reference, key in (("centroid", "rms_radius_centroid"), ("chief", "rms_radius_chief")):
        radii = np.array([float(be.to_numpy(getattr(s, key))) for s in spots])
        expected = math.sqrt(np.mean(radii**2))
        assert _value(optic, Operand("rms_spot", reference=reference)) == pytest.approx(
            expected, rel=1e-12
        )


def test_rms_spot_field_weights_select_fields(backend):
    optic = reference_cooke()
    edge = float(be.to_numpy(spot_diagram(optic, fields=[(0.0, 1.0)])[0].rms_radius_centroid))
    weighted = Operand("rms_spot", field_weights=[0.0, 0.0, 2.0])
    only_edge = Operand("rms_spot", fields=[2])
    assert _value(optic, weighted) == pytest.approx(edge, rel=1e-12)
    assert _value(optic, only_edge) == pytest.approx(edge, rel=1e-12)


def test_real_ray_operands_are_traced_intercepts(backend):
    optic = reference_cooke()
    rays = trace_rays(optic, (0.3, 0.7), (-0.2, 0.9))
    assert _value(optic, Operand("real_x", hx=0.3, hy=0.7, px=-0.2, py=0.9)) == pytest.approx(
        float(be.to_numpy(rays.x)), abs=1e-12
    )
    assert _value(optic, Operand("real_y", hx=0.3, hy=0.7, px=-0.2, py=0.9)) == pytest.approx(
        float(be.to_numpy(rays.y)), abs=1e-12
    )


def test_chief_height_and_distortion_follow_the_chief_ray(backend):
    optic = reference_cooke()
    chief_y = float(be.to_numpy(trace_rays(optic, (0.0, 1.0), (0.0, 0.0)).y))
    paraxial_y = paraxial(optic).as_floats()["image_height"]  # at the full field, hy = 1
    assert _value(optic, Operand("chief_height")) == pytest.approx(chief_y, abs=1e-12)
    expected = 100.0 * (chief_y - paraxial_y) / paraxial_y
    assert _value(optic, Operand("distortion", hy=1.0)) == pytest.approx(expected, rel=1e-9)


def test_distortion_vanishes_toward_the_axis(backend):
    optic = reference_cooke()
    small = abs(_value(optic, Operand("distortion", hy=1e-3)))
    full = abs(_value(optic, Operand("distortion", hy=1.0)))
    assert small < 1e-5 * full


def test_thickness_operands_use_the_surface_sags(backend):
    optic = singlet(radius1=40.0, radius2=-60.0, thickness=6.0)
    height = 8.0

    def sphere_sag(radius):
        return radius - math.copysign(math.sqrt(radius**2 - height**2), radius)

    assert _value(optic, Operand("center_thickness", surface=1)) == pytest.approx(6.0)
    expected = 6.0 - sphere_sag(40.0) + sphere_sag(-60.0)
    edge = Operand("edge_thickness", surface=1, height=height)
    assert _value(optic, edge) == pytest.approx(expected, rel=1e-13)
    optic.surfaces[1].semi_diameter = height  # the default height
    assert _value(optic, Operand("edge_thickness", surface=1)) == pytest.approx(expected, rel=1e-13)


def test_edge_thickness_without_a_height_names_the_key():
    with pytest.raises(ConfigurationError, match="'height'"):
        _value(singlet(), Operand("edge_thickness", surface=1))


def test_kinds_leave_satisfied_limits_out_of_the_merit(backend):
    optic = singlet()  # efl ≈ 50.8 mm
    efl = _value(optic, Operand("efl"))
    merit = Merit(
        [
            Operand("efl", target=efl - 1.0, kind="at_least"),  # satisfied
            Operand("efl", target=efl - 1.0, kind="at_most", weight=4.0),  # violated by 1 mm
            Operand("efl", target=efl + 2.0, kind="equal", weight=0.25),  # off by 2 mm
        ]
    )
    residuals = be.to_numpy(merit.residuals(optic))
    np.testing.assert_allclose(residuals, [0.0, 2.0, -1.0], atol=1e-12)
    assert float(be.to_numpy(merit(optic))) == pytest.approx(5.0, rel=1e-12)


def test_operands_agree_between_backends():
    pytest.importorskip("torch")
    operands = [
        Operand("rms_spot"),
        Operand("efl"),
        Operand("distortion"),
        Operand("real_y", hy=1.0, py=1.0),
        Operand("edge_thickness", surface=1, height=5.0),
    ]
    values = {}
    for backend in ("numpy", "torch"):
        with be.using(backend):
            values[backend] = [_value(reference_cooke(), op) for op in operands]
    np.testing.assert_allclose(values["torch"], values["numpy"], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Operand("focal_length"), "unknown operand type 'focal_length'"),
        (lambda: Operand("efl", kind="below"), "kind 'below'"),
        (lambda: Operand("efl", weight=-1.0), "weight must be >= 0"),
        (lambda: Operand("center_thickness"), "missing argument.*surface"),
        (lambda: Operand("rms_spot", field=[0]), "unknown argument.*field"),
    ],
)
def test_bad_operands_are_refused_with_the_reason(make, message):
    with pytest.raises(ConfigurationError, match=message):
        make()


def test_out_of_range_field_index_is_named():
    with pytest.raises(ConfigurationError, match="field index 7 is out of range"):
        _value(reference_cooke(), Operand("rms_spot", fields=[7]))
