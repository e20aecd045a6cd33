"""Configurations traced as one batch: the same bundles, first-order data, merit and
gradient as tracing each configuration alone, and a fall-back where they do not stack."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.configurations import ConfigurationRow, Configurations, stacked
from optics.optimize import Merit, Operand, Problem, Variable
from optics.optimize.configuration_batch import batched_contexts
from optics.system import Fields
from optics.trace import prepare, trace_bundle

ZOOM = Path(__file__).parent / "data" / "zoom_two_group.toml"
FIRST_ORDER = ("efl", "bfl", "ffl", "fno", "epd", "ep_position", "xpd", "xp_position")
FIRST_ORDER += ("image_height", "total_track", "magnification")


def _triplet(kind):
    """A Cooke triplet in three configurations differing in radius, conic, spacing,
    semi-diameter, aperture, field values and (for object-space fields) object distance."""
    optic = optics.load("cooke_triplet")
    rows = [
        ConfigurationRow("surfaces[1].radius", [22.01359, 22.5, 21.7]),
        ConfigurationRow("surfaces[3].conic", [0.0, -0.3, 0.2]),
        ConfigurationRow("surfaces[4].thickness", [4.75041, 4.5, 5.0]),
        ConfigurationRow("surfaces[2].semi_diameter", [9.0, 8.0, 4.0]),
        ConfigurationRow("aperture.value", [10.0, 8.0, 9.0]),
    ]
    if kind == "angle":
        rows.append(ConfigurationRow("fields.values[2][1]", [20.0, 16.0, 12.0]))
    elif kind == "paraxial_image_height":
        optic.fields = Fields("paraxial_image_height", [(0.0, 0.0), (0.0, 10.0), (0.0, 18.0)])
        rows.append(ConfigurationRow("fields.values[2][1]", [18.0, 14.0, 9.0]))
    else:  # object_height, finite object distances
        optic.surfaces[0].thickness = 800.0
        optic.fields = Fields("object_height", [(0.0, 0.0), (0.0, 150.0), (0.0, 250.0)])
        rows.append(ConfigurationRow("fields.values[2][1]", [250.0, 300.0, 120.0]))
        rows.append(ConfigurationRow("surfaces[0].thickness", [800.0, 1200.0, 500.0]))
    optic.configurations = Configurations(rows, 3)
    return optic


@pytest.mark.parametrize("kind", ["angle", "paraxial_image_height", "object_height"])
def test_batched_bundles_and_first_order_equal_each_configuration_alone(kind):
    optic = _triplet(kind)
    contexts = batched_contexts(optic, [1, 2, 3])
    assert sorted(contexts) == [1, 2, 3]
    for n, ctx in contexts.items():
        alone = optic.configuration(n)
        expected = prepare(alone).first_order
        for name in FIRST_ORDER:
            np.testing.assert_allclose(
                be.to_numpy(getattr(ctx.first_order, name)),
                be.to_numpy(getattr(expected, name)),
                rtol=1e-12,
                atol=1e-12,
                err_msg=f"configuration {n}: {name}",
            )
        fields = tuple(alone.fields.normalized())
        waves = tuple(alone.wavelengths.values)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, want = ctx.bundle(fields, waves, 2), trace_bundle(alone, fields, waves, 2)
        for part in ("rays", "chief"):
            a, b = getattr(got, part), getattr(want, part)
            np.testing.assert_array_equal(be.to_numpy(a.valid), be.to_numpy(b.valid))
            for name in ("x", "y", "z", "L", "M", "N", "opd"):
                np.testing.assert_allclose(
                    be.to_numpy(getattr(a, name)),
                    be.to_numpy(getattr(b, name)),
                    rtol=1e-12,
                    atol=1e-10,
                    err_msg=f"configuration {n}: {part}.{name}",
                )
        np.testing.assert_array_equal(
            be.to_numpy(got.chief_blocked), be.to_numpy(want.chief_blocked)
        )
        for q_got, q_want in zip(got.field_parameters, want.field_parameters):
            np.testing.assert_allclose(be.to_numpy(q_got), be.to_numpy(q_want), rtol=1e-12)
    # the vignetting row (semi-diameter 4 mm) really blocks rays in configuration 3 only
    valid = [be.to_numpy(contexts[n].bundle(fields, waves, 2).rays.valid) for n in (1, 2, 3)]
    assert valid[0].all() and not valid[2].all()


def _zoom_problem(batch):
    operands = []
    for n in (1, 2, 3):
        operands += [
            Operand("rms_spot", config=n, rings=2),
            Operand("efl", target=30.0, config=n),
            Operand("real_y", hy=1.0, py=1.0, config=n, weight=0.1),
        ]
    variables = ["surfaces[1].radius", "surfaces[4].radius", "configurations.rows[1].values[2]"]
    return Problem(optics.load(ZOOM), variables, Merit(operands, batch=batch))


def test_batched_merit_and_gradient_equal_the_per_configuration_merit(torch_backend):
    u = np.array([0.2, -0.1, 0.3])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batched = _zoom_problem(True).value_and_gradient(u)
    with warnings.catch_warnings(record=True) as caught_alone:
        warnings.simplefilter("always")
        alone = _zoom_problem(False).value_and_gradient(u)
    assert batched[0] == pytest.approx(alone[0], rel=1e-12)
    np.testing.assert_allclose(batched[1], alone[1], rtol=1e-10)
    assert np.all(np.abs(alone[1]) > 1e-6)
    # the same aiming warnings, configuration by configuration
    messages = sorted(str(w.message) for w in caught if "aiming" in str(w.message))
    assert messages and messages == sorted(
        str(w.message) for w in caught_alone if "aiming" in str(w.message)
    )


def _with_row(row, aiming="paraxial"):
    optic = optics.load(ZOOM)
    optic.aiming = aiming
    rows = list(optic.configurations.rows) + ([row] if row else [])
    optic.configurations = Configurations(rows, 3)
    return optic


@pytest.mark.parametrize(
    ("row", "aiming"),
    [
        (ConfigurationRow("surfaces[4].material", ["N-BK7", "N-SF5", "N-BK7"]), "paraxial"),
        (ConfigurationRow("stop", [3, 4, 3]), "paraxial"),
        (ConfigurationRow("wavelengths.values[0]", [0.55, 0.5875618, 0.6]), "paraxial"),
        (ConfigurationRow("temperature", [20.0, 30.0, 40.0]), "paraxial"),
        (ConfigurationRow("surfaces[4].tilt[0]", [0.0, 0.5, 0.0]), "paraxial"),
        (None, "real"),
    ],
    ids=["material", "stop", "wavelength", "temperature", "tilt", "real-aiming"],
)
def test_configurations_that_do_not_stack_are_traced_one_by_one(row, aiming):
    optic = _with_row(row, aiming)
    assert stacked(optic, [1, 2, 3]) is None
    operands = [Operand("efl", config=n) for n in (1, 2, 3)]
    assert Merit(operands).report(optic) == Merit(operands, batch=False).report(optic)


def test_equal_rows_stack_and_differing_ones_carry_the_axis():
    optic = _with_row(ConfigurationRow("surfaces[4].material", ["N-BK7"] * 3))
    stack = stacked(optic, [1, 3])
    assert stack is not None and stack.numbers == (1, 3)
    thickness = be.to_numpy(stack.optic.surfaces[2].thickness)
    np.testing.assert_array_equal(thickness.ravel(), [9.0, 29.0])
    assert thickness.shape == (2, 1, 1, 1)
    assert stack.field_scales == (8.0 / 20.0, 1.0)  # the reference: the widest field (3)


def _fd_gradient(problem, u, h):
    columns = []
    for i in range(problem.size):
        step = np.zeros(problem.size)
        step[i] = h
        columns.append((problem.merit_float(u + step) - problem.merit_float(u - step)) / (2 * h))
    return np.array(columns)


@pytest.mark.parametrize(
    "batch",
    [
        pytest.param(True, id="batched"),
        pytest.param(False, id="one-by-one", marks=pytest.mark.slow),
    ],
)
def test_traced_operand_across_configurations_gradient_jax(jax_backend, batch):
    """JAX (eager value_and_grad, no jit) through a real-ray trace of two configurations,
    against central differences at two steps: a shared radius and a value of one
    configuration's row.  Eager JAX compiles each operation once (about 9 s of CPU
    here), so the merit is one ray per configuration; torch covers rms_spot (above
    and tests/test_configurations.py)."""
    variables = [
        Variable("surfaces[1].radius", scale=1.0),
        Variable("configurations.rows[1].values[0]", scale=1.0),
    ]
    operands = [Operand("real_y", hy=1.0, py=1.0, config=n) for n in (1, 3)]
    problem = Problem(optics.load(ZOOM), variables, Merit(operands, batch=batch))
    u = np.array([0.1, 0.3])
    _, gradient = problem.value_and_gradient(u)
    with be.using("numpy"):
        coarse, fine = _fd_gradient(problem, u, 1e-3), _fd_gradient(problem, u, 5e-4)
    scale = np.max(np.abs(fine))
    assert np.all(np.abs(fine) > 1e-6 * scale), fine
    np.testing.assert_allclose(coarse, fine, rtol=0, atol=1e-6 * scale)
    np.testing.assert_allclose(gradient, fine, rtol=0, atol=1e-6 * scale)
