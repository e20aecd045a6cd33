"""Classic published designs match an established code's numbers to 1e-9 on NumPy and Torch.

Each tests/data/corpus/NAME.toml has NAME.expected.json measured with Optiland 0.6.3
(tests/data/corpus/make_reference.py; README.md there says how, and where the two codes'
conventions differ).  Paraxial data to 1e-9 relative; RMS spot radii to 1e-9 relative or
1e-9 mm, whichever is larger (a perfect on-axis image has an RMS of round-off); centroids,
intercepts and direction cosines to 1e-9 absolute.
"""

from __future__ import annotations

import json
import math
from functools import cache

import numpy as np
import pytest
from helpers import CORPUS

import optics
from optics import backend as be
from optics import paraxial
from optics.analysis import spot_diagram
from optics.surfaces import media
from optics.trace import trace_rays

DESIGNS = sorted(p.stem for p in CORPUS.glob("*.toml"))
TOL = 1e-9


@cache
def _expected(name):
    return json.loads((CORPUS / f"{name}.expected.json").read_text())


def _optic(name):
    return optics.load(CORPUS / f"{name}.toml")


def test_the_corpus_has_the_classic_designs():
    assert len(DESIGNS) >= 12
    assert all((CORPUS / f"{name}.expected.json").is_file() for name in DESIGNS)


@pytest.mark.parametrize("name", DESIGNS)
def test_both_codes_describe_the_same_media(backend, name):
    optic = _optic(name)
    for wavelength, want in _expected(name)["indices"].items():
        got = [
            abs(float(be.to_numpy(material.index(be.asarray(float(wavelength))))))
            for material, _ in media(optic.surfaces)
        ]
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


def _image_space_index(name):
    indices = _expected(name)["indices"]
    return indices[str(_expected(name)["primary_wavelength"])][-2]


@pytest.mark.parametrize("name", DESIGNS)
def test_paraxial_data(backend, name):
    optic = _optic(name)
    got = paraxial(optic).as_floats()
    want = dict(_expected(name)["paraxial"])
    fno, magnification = want.pop("fno"), want.pop("magnification")
    for key, value in want.items():
        assert got[key] == pytest.approx(value, rel=TOL, abs=0), key
    # F/#: ours is the working F/# 1/(2 |n' u'|) at both conjugates (docs/tracing.md);
    # Optiland reports EFL/EPD with its image-space EFL, n' f.
    if optic.object_at_infinity:
        assert got["fno"] == pytest.approx(fno / _image_space_index(name), rel=TOL), "fno"
        assert got["magnification"] == 0.0
    else:
        assert optic.aperture.type == "object_na"
        # In air: n' u' = u / m, u = tan(asin NA): F/# = |m| / (2 tan(asin NA)).
        marginal = math.tan(math.asin(optic.aperture.value))
        assert got["fno"] == pytest.approx(abs(magnification) / (2 * marginal), rel=TOL), "fno"
        assert got["magnification"] == pytest.approx(magnification, rel=TOL), "magnification"


@pytest.mark.parametrize("name", DESIGNS)
def test_real_ray_intercepts_and_directions(backend, name):
    optic = _optic(name)
    rows = _expected(name)["rays"]
    assert len(rows) >= 18
    for wavelength in sorted({r["wavelength"] for r in rows}):
        batch = [r for r in rows if r["wavelength"] == wavelength]
        columns = [be.asarray([r[k] for r in batch]) for k in ("hx", "hy", "px", "py")]
        rays = trace_rays(optic, columns[:2], columns[2:], wavelength)
        assert be.to_numpy(rays.valid).all()
        for key in ("x", "y", "z", "L", "M", "N"):
            want = [r[key] for r in batch]
            got = be.to_numpy(getattr(rays, key))
            np.testing.assert_allclose(got, want, rtol=0, atol=TOL, err_msg=key)


@pytest.mark.parametrize("name", DESIGNS)
def test_rms_spots(backend, name):
    spots = {
        (tuple(s["field"]), s["wavelength"]): s
        for s in (spot.as_dict() for spot in spot_diagram(_optic(name), pupil=6))
    }
    want_spots = _expected(name)["spot"]
    assert len(spots) == len(want_spots)
    for want in want_spots:
        got = spots[(tuple(want["field"]), want["wavelength"])]
        assert got["n_rays"] == 127 and got["n_invalid"] == 0
        for key in ("rms_radius_chief", "rms_radius_centroid"):
            assert got[key] == pytest.approx(want[key], rel=TOL, abs=TOL), key
        np.testing.assert_allclose(got["centroid"], want["centroid"], rtol=0, atol=TOL)


def _mp_conic_hit(mp, point, direction, vertex_z, radius, conic):
    """Vertex-sheet crossing (in the travel direction) and unit normal, in 50 digits."""
    c, k = 1 / mp.mpf(radius), mp.mpf(conic)
    x, y, z = point[0], point[1], point[2] - vertex_z
    L, M, N = direction
    a = c * (L * L + M * M + (1 + k) * N * N)
    b = c * (x * L + y * M + (1 + k) * z * N) - N
    g = c * (x * x + y * y + (1 + k) * z * z) - 2 * z
    # F = c r² + (1+k) c z² − 2z decreases across the vertex sheet toward +z: the crossing
    # in the travel direction has dF/dt = 2 (a t + b) of the sign opposite to N.
    t = (-b - mp.sign(N) * mp.sqrt(b * b - a * g)) / a
    xh, yh, zh = x + t * L, y + t * M, z + t * N
    assert (1 + k) * c * zh < 1
    normal = [c * xh, c * yh, (1 + k) * c * zh - 1]
    norm = mp.sqrt(sum(v * v for v in normal))
    return [xh, yh, zh + vertex_z], [v / norm for v in normal]


def test_hubble_rays_match_a_50_digit_trace(backend):
    # An independent check of both codes on the hyperbolic mirrors and the curved image:
    # the prescription of hubble_rc.toml traced in 50-digit arithmetic.
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 50
    optic = _optic("hubble_rc")
    primary_z, field = mp.mpf("4910.01016"), mp.radians(mp.mpf("0.15"))
    mirrors = [
        (primary_z, "-11040.02286", "-1.001152"),
        (mp.mpf(0), "-1349.31166", "-1.483014"),
        (mp.mpf("6365.20955"), "-635.38227", "0"),
    ]
    worst = {"optics": 0.0, "optiland": 0.0}
    for row in _expected("hubble_rc")["rays"]:
        tx, ty = (mp.tan(field * mp.mpf(repr(row[k]))) for k in ("hx", "hy"))
        scale = mp.sqrt(tx * tx + ty * ty + 1)
        direction = [tx / scale, ty / scale, 1 / scale]
        # Paraxial aiming: through (px, py) EPD/2 on the entrance pupil, the primary's plane.
        point = [mp.mpf(repr(row["px"])) * 1200, mp.mpf(repr(row["py"])) * 1200, primary_z]
        for i, (vertex, radius, conic) in enumerate(mirrors):
            point, normal = _mp_conic_hit(mp, point, direction, vertex, radius, conic)
            if i < 2:
                dn = sum(d * n for d, n in zip(direction, normal))
                direction = [d - 2 * dn * n for d, n in zip(direction, normal)]
        want = dict(zip("xyzLMN", point + direction))
        rays = trace_rays(optic, (row["hx"], row["hy"]), (row["px"], row["py"]), row["wavelength"])
        for key, value in want.items():
            worst["optics"] = max(
                worst["optics"], abs(float(be.to_numpy(getattr(rays, key))) - value)
            )
            worst["optiland"] = max(worst["optiland"], abs(row[key] - float(value)))
    assert worst["optics"] < 1e-10 and worst["optiland"] < 1e-10, worst
