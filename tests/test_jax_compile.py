"""jax's compile_function: row chunks, compiled stages and the recomputing VJP (issue 16).

The jitted trace maps its graph over chunks of rays (``rows=``), makes each
surface a stage (``accel.compiled_stage``) and differentiates by recomputing the
forward pass; none of that may change a value or a derivative.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import UNLIKE_DESIGNS, corpus_design, reference_cooke

from optics import accel
from optics import backend as be
from optics.accel import parts as _parts
from optics.trace import trace_rays
from optics.trace.methods.compiled import CHUNK_ROWS, PART_ROWS

jax = pytest.importorskip("jax")

# torch.compile / jax.jit graphs: a step of their own (./dev compile-tests, .ci/run).
pytestmark = pytest.mark.compile
ROWS = 3 * 4096  # three chunks


def _toy(values):
    """Row-independent per row, a shared scalar, stages, and a non-row output."""
    x, scale = values["x"], values["scale"]
    y = accel.compiled_stage(lambda s: (s[0] * scale + 1.0, s[1]), (x, x > 0.0))
    z = accel.compiled_stage(lambda s: (be.sqrt(s[0] * s[0] + 1.0), s[1]), y)
    return {"z": z[0], "positive": z[1], "double": scale * 2.0}


# rows: whole chunks; a last chunk overlapping the one before; one piece; and (with the
# cores forced to 3) three parts of a call, the last overlapping, each in chunks
ROW_CASES = [
    pytest.param(ROWS, 1, id="chunked"),
    pytest.param(ROWS + 1001, 1, id="overlapping_chunk"),
    pytest.param(1000, 1, id="one_piece"),
    pytest.param(3 * PART_ROWS + 777, 3, id="three_parts"),
]


@pytest.mark.parametrize(("rows", "cores"), ROW_CASES)
def test_compiled_function_equals_the_plain_call_and_its_gradient(
    jax_backend, monkeypatch, rows, cores
):
    monkeypatch.setattr(_parts, "_cores", lambda: cores)
    x = be.asarray(np.linspace(-1.0, 1.0, rows))
    values = {"x": x, "scale": be.asarray(0.7)}
    compiled = be.compile_function(
        _toy, rows=rows, chunk_rows=CHUNK_ROWS, runner=accel.RowParts(PART_ROWS)
    )
    got, expected = compiled(values), _toy(values)
    # XLA may contract a*b + c into one rounding: equal to a few ulps, not bit for bit
    eps = be.machine_eps(x)
    for key in ("z", "double"):
        np.testing.assert_allclose(be.to_numpy(got[key]), be.to_numpy(expected[key]), rtol=4 * eps)
    assert be.to_numpy(got["positive"]).tolist() == be.to_numpy(expected["positive"]).tolist()

    def loss(fn, scale, x):
        out = fn({"x": x, "scale": scale})
        return be.sum(be.where(out["positive"], out["z"] * x, 0.0)) + out["double"]

    # Every row counts once: the rows that an overlapping chunk or part recomputes too.
    exact = jax.grad(lambda s, x: loss(_toy, s, x), argnums=(0, 1))(be.asarray(0.7), x)
    through = jax.grad(lambda s, x: loss(compiled, s, x), argnums=(0, 1))(be.asarray(0.7), x)
    assert abs(float(through[0] - exact[0])) <= 1e-12 * abs(float(exact[0]))
    np.testing.assert_allclose(be.to_numpy(through[1]), be.to_numpy(exact[1]), rtol=1e-13)


def test_parts_cover_every_row_once():
    parts = _parts.Parts(10, 4, (0, 4, 6))  # three parts of 4 rows for 10 rows
    assert [parts.owned(k) for k in range(3)] == [(0, 4), (0, 4), (2, 4)]
    owned = [parts.starts[k] + i for k in range(3) for i in range(*parts.owned(k))]
    assert owned == list(range(10))


def test_calls_inside_jit_are_one_part(jax_backend, monkeypatch):
    """Tracers cannot be cut or run in threads: under jax.jit the call is one program."""
    monkeypatch.setattr(_parts, "_cores", lambda: 2)
    rows = 2 * PART_ROWS
    x = be.asarray(np.linspace(-1.0, 1.0, rows))
    assert len(accel.RowParts(PART_ROWS).plan(rows, [x]).starts) == 2
    seen = []
    jax.jit(lambda v: seen.append(accel.RowParts(1).plan(rows, [v]).starts) or v)(x)
    assert seen == [(0,)]
    compiled = be.compile_function(
        _toy, rows=rows, chunk_rows=CHUNK_ROWS, runner=accel.RowParts(PART_ROWS)
    )
    jitted = jax.jit(lambda v: compiled({"x": v, "scale": be.asarray(0.7)})["z"])(x)
    np.testing.assert_allclose(
        be.to_numpy(jitted), be.to_numpy(compiled({"x": x, "scale": 0.7})["z"])
    )


@pytest.mark.parametrize(
    ("n", "cores"),
    [
        pytest.param(9000, 1, id="chunks"),  # two chunks of 4096 and one overlapping them
        pytest.param(2 * PART_ROWS + 4321, 2, id="parts"),
    ],
)
def test_chunked_compiled_trace_equals_the_eager_trace(jax_backend, monkeypatch, n, cores):
    """Values only: derivatives through chunks are the toy test's (compiling them is slow)."""
    monkeypatch.setattr(_parts, "_cores", lambda: cores)
    rng = np.random.default_rng(3)
    radius, angle = np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    px, py = be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle))
    _assert_jitted_equals_eager(reference_cooke(), px, py)


@pytest.mark.parametrize("design", UNLIKE_DESIGNS)
def test_a_jitted_trace_in_two_parts_equals_the_eager_trace_on_unlike_designs(
    jax_backend, monkeypatch, design
):
    monkeypatch.setattr(_parts, "_cores", lambda: 2)
    n = 2 * PART_ROWS + 101  # two parts, the last overlapping; chunks overlap too
    rng = np.random.default_rng(11)
    radius, angle = np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    px, py = be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle))
    _assert_jitted_equals_eager(corpus_design(design), px, py, valid_only=True)


def _assert_jitted_equals_eager(optic, px, py, valid_only=False):
    """Same valid mask, and the same values to 1e-12 relative.

    With ``valid_only`` (the corpus designs) a clipped ray's values past its
    aperture are not compared, and lengths are relative to the largest
    coordinate of the rays (the system's size: XLA contracts a*b + c into one
    rounding, so a 1750 mm path leaves 1e-12 mm differences in a 4 µm x).
    """
    eager = trace_rays(optic, (0.0, 0.7), (px, py))
    jitted = trace_rays(optic, (0.0, 0.7), (px, py), method="compiled")
    valid = be.to_numpy(eager.valid)
    assert be.to_numpy(jitted.valid).tolist() == valid.tolist()
    assert valid.any()
    keep = valid if valid_only else slice(None)
    names = ("x", "y", "z", "L", "M", "N", "opd")
    values = {k: be.to_numpy(getattr(eager, k))[keep] for k in names}
    size = max(np.abs(values[k]).max() for k in ("x", "y", "z")) if valid_only else 0.0
    for name, e in values.items():
        a = be.to_numpy(getattr(jitted, name))[keep]
        scale = max(1.0, np.abs(e).max(), 0.0 if name in ("L", "M", "N") else size)
        np.testing.assert_allclose(a, e, rtol=0, atol=1e-12 * scale)
