"""jax's compile_function: row chunks, compiled stages and the recomputing VJP (issue 16).

The jitted trace maps its graph over chunks of rays (``rows=``), makes each
surface a stage (``be.compiled_stage``) and differentiates by recomputing the
forward pass; none of that may change a value or a derivative.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import reference_cooke

from optics import backend as be
from optics.backend import _jax_compile
from optics.trace import trace_rays

jax = pytest.importorskip("jax")
ROWS = 3 * 4096  # three chunks


def _toy(values):
    """Row-independent per row, a shared scalar, stages, and a non-row output."""
    x, scale = values["x"], values["scale"]
    y = be.compiled_stage(lambda s: (s[0] * scale + 1.0, s[1]), (x, x > 0.0))
    z = be.compiled_stage(lambda s: (be.sqrt(s[0] * s[0] + 1.0), s[1]), y)
    return {"z": z[0], "positive": z[1], "double": scale * 2.0}


@pytest.mark.parametrize("rows", [ROWS, 1000], ids=["chunked", "one_piece"])
def test_compiled_function_equals_the_plain_call_and_its_gradient(jax_backend, rows):
    x = be.asarray(np.linspace(-1.0, 1.0, rows))
    values = {"x": x, "scale": be.asarray(0.7)}
    compiled = be.compile_function(_toy, rows=rows)
    got, expected = compiled(values), _toy(values)
    # XLA may contract a*b + c into one rounding: equal to a few ulps, not bit for bit
    eps = be.machine_eps(x)
    for key in ("z", "double"):
        np.testing.assert_allclose(be.to_numpy(got[key]), be.to_numpy(expected[key]), rtol=4 * eps)
    assert be.to_numpy(got["positive"]).tolist() == be.to_numpy(expected["positive"]).tolist()

    def loss(fn, scale):
        out = fn({"x": x, "scale": scale})
        return be.sum(be.where(out["positive"], out["z"], 0.0)) + out["double"]

    exact = jax.grad(lambda s: loss(_toy, s))(be.asarray(0.7))
    through = jax.grad(lambda s: loss(compiled, s))(be.asarray(0.7))
    assert abs(float(through - exact)) <= 1e-12 * abs(float(exact))


def test_chunk_sizes_of_batch_buckets():
    assert _jax_compile._chunk_rows(8 << 17) == 4096  # 1e6 rays
    assert _jax_compile._chunk_rows(5 << 11) == 2048  # 1e4 rays: five chunks
    assert _jax_compile._chunk_rows(7 << 9) is None  # 3584 rays: one piece
    assert _jax_compile._chunk_rows(4096) is None  # a single chunk gains nothing


def test_chunked_compiled_trace_equals_the_eager_trace(jax_backend):
    """Values only: derivatives through chunks are the toy test's (compiling them is slow)."""
    rng = np.random.default_rng(3)
    n = 9000  # bucket 10240: five chunks of 2048
    radius, angle = np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    px, py = be.asarray(radius * np.cos(angle)), be.asarray(radius * np.sin(angle))
    optic = reference_cooke()
    eager = trace_rays(optic, 0.0, 0.7, px, py)
    jitted = trace_rays(optic, 0.0, 0.7, px, py, compiled=True)
    for name in ("x", "y", "z", "L", "M", "N", "opd"):
        e, a = be.to_numpy(getattr(eager, name)), be.to_numpy(getattr(jitted, name))
        np.testing.assert_allclose(a, e, rtol=0, atol=1e-12 * max(1.0, np.abs(e).max()))
    assert be.to_numpy(jitted.valid).tolist() == be.to_numpy(eager.valid).tolist()
