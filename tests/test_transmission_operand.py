"""The ``transmission`` merit operand: values, gradients, optimization of a coating."""

from __future__ import annotations

import pytest

import optics
from optics import backend as be
from optics.coatings import Coating, Layer
from optics.errors import ConfigurationError, OpticsError
from optics.materials import ConstantIndex
from optics.optimize import MeritContext, Operand, Problem, optimize, value_and_gradient
from optics.params import get_param, replaced

N_GLASS = 1.5
N_FILM = 1.38
WAVELENGTH = 0.55


def _plate(coated=False):
    """A flat plate of index 1.5 in a collimated on-axis beam: every ray at normal incidence."""
    lens = optics.load("singlet")
    lens.surfaces[1].geometry.radius = float("inf")
    lens.surfaces[1].material = ConstantIndex(N_GLASS)
    lens.fields.values = [(0.0, 0.0)]
    lens.wavelengths.values = [WAVELENGTH]
    lens.wavelengths.primary = 0
    if coated:
        quarter = WAVELENGTH * 1e3 / (4 * N_FILM)  # nm
        lens.surfaces[1].coating = Coating([Layer({"index": N_FILM}, quarter)])
    return lens


def _coated_singlet(thickness_nm):
    lens = optics.load("singlet")
    lens.surfaces[1].coating = Coating([Layer({"index": N_FILM}, thickness_nm)])
    return lens


def _value(lens, **keys):
    return Operand("transmission", **keys).value(MeritContext(lens))


def test_plate_transmits_the_fresnel_factor_of_its_two_faces():
    bare = 1 - ((N_GLASS - 1) / (N_GLASS + 1)) ** 2
    quarter = 1 - ((N_GLASS - N_FILM**2) / (N_GLASS + N_FILM**2)) ** 2
    eps = be.machine_eps(_value(_plate()))
    assert float(_value(_plate())) == pytest.approx(bare**2, abs=64 * eps)
    assert float(_value(_plate(coated=True))) == pytest.approx(quarter * bare, abs=64 * eps)
    # Normal incidence: x, y and unpolarized light alike.
    for state in ("x", "y"):
        assert float(_value(_plate(), polarization=state)) == pytest.approx(bare**2, abs=64 * eps)


def test_operand_is_the_weighted_mean_of_the_transmission_table():
    from optics.polarization import transmission_vs_field

    lens = optics.load("singlet")
    lens.fields.values = [(0.0, 0.0), (0.0, 5.0)]
    lens.fields.weights = [1.0, 3.0]
    table = transmission_vs_field(lens, points=2, samples=9)  # fields 0 and 1 (= 5°)
    expected = (table.unpolarized @ [1.0, 3.0]).sum() / (4.0 * table.unpolarized.shape[0])
    assert float(_value(lens, samples=9)) == pytest.approx(expected, rel=1e-13)
    one = _value(lens, fields=[1], wavelengths=[2], samples=9, polarization="y")
    assert float(one) == pytest.approx(table.y[2, 1], rel=1e-13)


def test_bad_keys_name_the_key():
    lens = optics.load("singlet")
    with pytest.raises(ConfigurationError, match="'polarization' must be one of"):
        _value(lens, polarization="circular")
    with pytest.raises(ConfigurationError, match="'field_weights' needs 3"):
        _value(lens, field_weights=[1.0])
    with pytest.raises(OpticsError, match="samples"):
        _value(lens, samples=1)


_THICKNESS, _CURVATURE = "surfaces[1].coating.layers[0].thickness", "surfaces[1].curvature"


@pytest.mark.parametrize(
    "name, path",
    [
        ("torch", _THICKNESS),
        ("torch", _CURVATURE),
        ("jax", _THICKNESS),
        # XLA compiles each eager operation again (~7 s on 2 cores): run with --runslow.
        pytest.param("jax", _CURVATURE, marks=pytest.mark.slow),
    ],
)
def test_gradient_matches_central_differences(name, path):
    pytest.importorskip(name)
    with be.using(name, precision="float64", device="cpu"):
        _check_gradient(path)


def _check_gradient(path):
    lens = _coated_singlet(60.0)
    start = float(be.item(get_param(lens, path)))

    def merit(value):
        return _value(replaced(lens, path, value), samples=7)

    _, gradient = value_and_gradient(lambda p: merit(p[0]), [start])
    assert abs(gradient[0]) > 0
    with be.using("numpy"):
        for rel_step in (1e-3, 1e-4):
            step = rel_step * abs(start)
            numeric = (float(merit(start + step)) - float(merit(start - step))) / (2 * step)
            # Truncation ~ step² (1e-6 relative at 1e-3), round-off ~ eps / step.
            assert gradient[0] == pytest.approx(numeric, rel=1e-5)


def test_optimizing_the_coating_raises_transmission(torch_backend):
    lens = _coated_singlet(40.0)
    before = float(_value(lens, samples=7))
    operand = Operand("transmission", target=1.0, samples=7)
    problem = Problem(lens, ["surfaces[1].coating.layers[0].thickness"], [operand])
    result = optimize(problem, "dls", steps=8)
    after = float(_value(lens, samples=7))
    thickness = float(be.item(lens.surfaces[1].coating.layers[0].thickness))
    assert result.operands_after[0]["value"] == pytest.approx(after, rel=1e-12)
    assert after > before + 1e-3
    # The best single layer on one face is near a quarter wave at the band's middle.
    quarter = {w: w * 1e3 / (4 * N_FILM) for w in lens.wavelengths.values}
    assert min(quarter.values()) < thickness < max(quarter.values())
