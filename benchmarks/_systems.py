"""The benchmark systems, defined once for optics, Optiland and the tests.

``SYSTEMS`` holds plain data (JSON-able) so that the Optiland helper, which
runs under another interpreter, builds exactly the same lenses:

- ``cooke``: the Cooke triplet sample (``optics.load("cooke_triplet")``);
- ``cooke_chebyshev``: the same with its last lens surface (surface 6,
  R = -18.39533 mm) replaced by a Chebyshev freeform on that base sphere with
  small coefficients (at most 2 µm) on a 10 mm normalization square, which
  every traced ray lands inside.

Rays: field (hx, hy) = (0, 0.7) of the ±20° field, a uniformly random pupil
(seeded), primary wavelength 0.55 µm.
"""

from __future__ import annotations

import numpy as np

FIELD = (0.0, 0.7)
CHEBYSHEV_SURFACE = 6
CHEBYSHEV = {
    "coefficients": [[0.0, 1e-3, 2e-3], [1e-3, -5e-4, 0.0], [2e-3, 0.0, 5e-4]],
    "norm_x": 10.0,
    "norm_y": 10.0,
}
SYSTEMS = ("cooke", "cooke_chebyshev")


def pupil(n, seed=1):
    """n uniformly random points on the unit pupil disk, as two NumPy arrays."""
    rng = np.random.default_rng(seed)
    radius, angle = np.sqrt(rng.random(n)), 2 * np.pi * rng.random(n)
    return radius * np.cos(angle), radius * np.sin(angle)


def build(name):
    """The optics ``Optic`` of system ``name`` (one of :data:`SYSTEMS`)."""
    from optics.geometry.newton_types import Chebyshev
    from optics.io import load

    optic = load("cooke_triplet")
    if name == "cooke_chebyshev":
        surface = optic.surfaces[CHEBYSHEV_SURFACE]
        surface.geometry = Chebyshev(surface.geometry.radius, 0.0, **CHEBYSHEV)
    elif name != "cooke":
        raise ValueError(f"unknown benchmark system {name!r}; choose one of {SYSTEMS}")
    return optic


def make_radii_trainable(optic):
    """Replace the six lens radii by gradient leaves; returns them."""
    from optics import backend as be

    leaves = []
    for surface in optic.surfaces[1:-1]:
        surface.geometry.radius = be.parameter(surface.geometry.radius)
        leaves.append(surface.geometry.radius)
    return leaves


def ray_surfaces(optic, n):
    """ray·surfaces of one trace of n rays: surfaces 1..image."""
    return n * (len(optic.surfaces) - 1)
