"""Small builders shared by tests (not fixtures: plain functions)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from optics.geometry import Standard
from optics.materials import AIR, ConstantIndex
from optics.surfaces import Surface
from optics.system import Aperture, Fields, Optic, Wavelengths

DATA = Path(__file__).parent / "data"
REFERENCE = DATA / "reference"
#: tests/data/corpus: classic designs with Optiland reference numbers (test_corpus.py).
CORPUS = DATA / "corpus"
#: Corpus designs unlike the samples: mirrors (rays travelling -z), a finite object,
#: a curved and immersed image, a wide field.
UNLIKE_DESIGNS = ["cassegrain", "achromat_finite", "navarro_eye", "fisheye"]


def corpus_design(name: str) -> Optic:
    """tests/data/corpus/NAME.toml, loaded."""
    from optics.io import load

    return load(CORPUS / f"{name}.toml")


def reference_expected() -> dict:
    """The golden numbers for the reference Cooke triplet."""
    return json.loads((REFERENCE / "cooke_triplet.expected.json").read_text())


def reference_cooke() -> Optic:
    """The reference Cooke triplet built in Python (constant indices at 0.55 µm)."""
    n1, n2 = 1.6226085614386923, 1.6236551229276037
    rows = [
        (22.01359, 3.25896, n1),
        (-435.76044, 6.00755, None),
        (-22.21328, 0.99997, n2),
        (20.29192, 4.75041, None),
        (79.6836, 2.95208, n1),
        (-18.39533, 42.20778, None),
    ]
    surfaces = [Surface(thickness=math.inf)]
    for i, (radius, thickness, index) in enumerate(rows):
        material = ConstantIndex(index) if index else AIR
        surfaces.append(Surface(Standard(radius), thickness, material, is_stop=(i == 3)))
    surfaces.append(Surface())
    return Optic(
        surfaces,
        Aperture("epd", 10.0),
        Fields("angle", [(0.0, 0.0), (0.0, 14.0), (0.0, 20.0)]),
        Wavelengths([0.55], 0),
        name="cooke_triplet",
    )


def cooke_chebyshev() -> Optic:
    """The Cooke triplet with its last lens surface a small Chebyshev freeform (<= 2 µm)."""
    from optics.geometry.newton_types import Chebyshev
    from optics.io import load

    optic = load("cooke_triplet")
    surface = optic.surfaces[6]
    coefficients = [[0.0, 1e-3, 2e-3], [1e-3, -5e-4, 0.0], [2e-3, 0.0, 5e-4]]
    surface.geometry = Chebyshev(surface.geometry.radius, 0.0, coefficients, 10.0, 10.0)
    return optic


def singlet(
    radius1=50.0,
    radius2=-50.0,
    thickness=5.0,
    index=1.5,
    image_distance=47.0,
    epd=10.0,
    fields=(0.0, 5.0),
) -> Optic:
    """A biconvex singlet in air with the stop on its first surface."""
    return Optic(
        [
            Surface(thickness=math.inf),
            Surface(Standard(radius1), thickness, ConstantIndex(index), is_stop=True),
            Surface(Standard(radius2), image_distance),
            Surface(),
        ],
        Aperture("epd", epd),
        Fields("angle", [(0.0, f) for f in fields]),
        Wavelengths([0.55], 0),
        name="singlet",
    )


def autograd_graph_size(tensor) -> int:
    """Number of distinct autograd nodes reachable from ``tensor`` (0 when detached)."""
    seen, stack = set(), [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return len(seen)


def jaxpr_size(fn, *args) -> int:
    """Number of equations in the jaxpr of ``fn(*args)``, sub-jaxprs (loop bodies) included."""
    import jax

    def count(jaxpr):
        n = 0
        for eqn in jaxpr.eqns:
            n += 1
            for param in eqn.params.values():
                for sub in param if isinstance(param, (list, tuple)) else [param]:
                    inner = getattr(sub, "jaxpr", sub)
                    if hasattr(inner, "eqns"):
                        n += count(inner)
        return n

    return count(jax.make_jaxpr(fn)(*args).jaxpr)


def derivative(fn, value) -> np.ndarray:
    """d fn(v) / dv at ``value`` for every entry of fn's output, by the configured autodiff.

    ``fn`` maps a 0-d array to an array; the derivative is exact (torch
    autograd, or ``jax.jacrev``), returned flat as a float64 NumPy array.
    """
    from optics import backend as be
    from optics.optimize import residuals_and_jacobian

    _, jacobian = residuals_and_jacobian(lambda leaves: be.reshape(fn(leaves[0]), (-1,)), [value])
    return jacobian[:, 0]


def derivative_graph_size(fn, value) -> int:
    """Size of the recorded derivative of ``fn`` at ``value`` on the configured backend.

    torch: autograd nodes reachable from fn(leaf); jax: equations of the
    linearized function's jaxpr (``jax.linearize`` runs the primal eagerly, so
    host syncs in ``fn`` are allowed).
    """
    from optics import backend as be

    if be.autodiff_kind() == "tape":
        return autograd_graph_size(fn(be.parameter(value)))
    import jax

    _, linear = jax.linearize(fn, be.asarray(value))
    return jaxpr_size(linear, be.asarray(value))
