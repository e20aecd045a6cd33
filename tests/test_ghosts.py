"""Ghost analysis: unfolded two-reflection systems checked from first principles."""

from __future__ import annotations

import math

import numpy as np
import pytest

import optics
from optics import backend as be
from optics.errors import ConfigurationError
from optics.ghosts import (
    ghost_optic,
    ghost_pairs,
    ghost_path,
    ghost_rays,
    ghosts,
    paraxial_ghost_focus,
    path_energy,
    trace_ghost,
)
from optics.materials import index_at

WAVELENGTH = 0.5875618


def _prescription(optic):
    """(curvature, |n| after, thickness after) of surfaces 0..image, from the lens data."""
    wavelength = optic.primary_wavelength
    rows = []
    for surface in optic.surfaces:
        radius = float(getattr(surface.geometry, "radius", math.inf))
        curvature = 0.0 if math.isinf(radius) else 1.0 / radius
        n = float(be.item(index_at(surface.material, wavelength)))
        rows.append((curvature, n, float(be.item(surface.thickness))))
    return rows


def _double_pass_focus(optic, i, j, y, nu):
    """Ghost focus z − z(image) by an unfolded y–nu trace with positive indices and distances.

    The path is unfolded at each reflection: a surface met backward has curvature −c, a
    reflection in medium n has power −2 n c (c the unfolded curvature), and every
    distance is travelled as a positive length.
    """
    rows = _prescription(optic)
    image = len(rows) - 1
    # Each event: (distance travelled to reach it, unfolded curvature, n before, n after or
    # None for a reflection).
    events = []
    for k in range(1, i):
        events.append((rows[k - 1][2], rows[k][0], rows[k - 1][1], rows[k][1]))
    events.append((rows[i - 1][2], rows[i][0], rows[i - 1][1], None))
    for k in range(i - 1, j, -1):
        events.append((rows[k][2], -rows[k][0], rows[k][1], rows[k - 1][1]))
    events.append((rows[j][2], -rows[j][0], rows[j][1], None))
    for k in range(j + 1, image):
        events.append((rows[k - 1][2], rows[k][0], rows[k - 1][1], rows[k][1]))
    n = rows[0][1]
    for number, (distance, curvature, n_before, n_after) in enumerate(events):
        if number:  # the ray starts at surface 1
            y = y + distance * nu / n_before
        power = -2 * n_before * curvature if n_after is None else (n_after - n_before) * curvature
        nu = nu - y * power
        n = n_before if n_after is None else n_after
    return -y * n / nu - rows[image - 1][2]


@pytest.mark.parametrize("name", ["singlet", "achromat", "double_gauss", "cooke_triplet"])
def test_ghost_focus_matches_an_unfolded_double_pass_y_nu_trace(name):
    optic = optics.load(name)
    first = optics.paraxial(optic)
    y1 = float(be.item(first.epd)) / 2
    for i, j in ghost_pairs(optic):
        focus, _ = paraxial_ghost_focus(optic, i, j)
        expected = _double_pass_focus(optic, i, j, y1, 0.0)
        assert focus == pytest.approx(expected, rel=1e-9, abs=1e-9), (i, j)


def test_every_pair_of_refracting_surfaces_is_a_ghost():
    optic = optics.load("double_gauss")
    count = optic.image_index - 1
    pairs = ghost_pairs(optic)
    assert len(pairs) == count * (count - 1) // 2
    assert all(1 <= j < i <= count for i, j in pairs)


def test_an_unfolded_ghost_has_two_mirrors_and_negative_spacings_between_them():
    optic = optics.load("cooke_triplet")
    ghost = ghost_optic(optic, 5, 2)
    assert len(ghost.surfaces) == len(optic.surfaces) + 2 * 3
    mirrors = [k for k, s in enumerate(ghost.surfaces) if s.is_mirror]
    assert mirrors == [5, 8]  # i, then i - j - 1 reversed surfaces, then j
    assert all(float(be.item(s.thickness)) < 0 for s in ghost.surfaces[5:8])
    assert float(be.item(ghost.surfaces[8].thickness)) > 0
    assert not any(s.is_stop for s in ghost.surfaces)


def test_a_pair_that_is_not_a_ghost_is_refused_with_its_numbers():
    optic = optics.load("singlet")
    with pytest.raises(ConfigurationError, match=r"ghost \(1, 2\)"):
        ghost_optic(optic, 1, 2)
    with pytest.raises(ConfigurationError, match="1 <= j < i <= 2"):
        trace_ghost(optic, 3, 1)


def _sphere_hit(p, d, z_vertex, curvature):
    """Distance to a sphere (or plane) of curvature c with vertex at z_vertex, and its normal."""
    q = p - np.array([0.0, 0.0, z_vertex])[:, None]
    F = curvature * np.sum(q * q, axis=0) - 2 * q[2]
    G = curvature * np.sum(q * d, axis=0) - d[2]
    t = -F / (G + np.sign(G) * np.sqrt(G * G - curvature * F))
    h = q + t * d
    normal = np.stack([curvature * h[0], curvature * h[1], curvature * h[2] - 1.0])
    return t, normal / np.linalg.norm(normal, axis=0)


def _little_tracer(optic, i, j, rays):
    """Trace ghost (i, j) with explicit vertex positions, Snell's law and reflections."""
    rows = _prescription(optic)
    z = np.concatenate([[0.0], np.cumsum([r[2] for r in rows[1:-1]])])  # z of surfaces 1..image
    vertex = {k: z[k - 1] for k in range(1, len(rows))}
    path = [(k, rows[k - 1][1], rows[k][1]) for k in range(1, i)] + [(i, None, None)]
    path += [(k, rows[k][1], rows[k - 1][1]) for k in range(i - 1, j, -1)] + [(j, None, None)]
    path += [(k, rows[k - 1][1], rows[k][1]) for k in range(j + 1, len(rows) - 1)]
    p = np.stack([be.to_numpy(rays.x), be.to_numpy(rays.y), be.to_numpy(rays.z)])
    d = np.stack([be.to_numpy(rays.L), be.to_numpy(rays.M), be.to_numpy(rays.N)])
    for k, n1, n2 in path:
        t, normal = _sphere_hit(p, d, vertex[k], rows[k][0])
        p = p + t * d
        cos_i = np.sum(d * normal, axis=0)
        if n1 is None:
            d = d - 2 * cos_i * normal
            continue
        normal = normal * np.sign(cos_i)
        cos_i = np.abs(cos_i)
        mu = n1 / n2
        cos_t = np.sqrt(1 - mu * mu * (1 - cos_i * cos_i))
        d = mu * d + (cos_t - mu * cos_i) * normal
    t = (vertex[len(rows) - 1] - p[2]) / d[2]
    return p + t * d


@pytest.mark.parametrize(("name", "pair"), [("achromat", (3, 1)), ("cooke_triplet", (5, 4))])
def test_one_ghost_traced_by_the_library_matches_a_little_independent_tracer(name, pair):
    optic = optics.load(name)
    for field in [(0.0, 0.0), (0.0, 0.7)]:
        rays = ghost_rays(optic, field, rings=3)
        expected = _little_tracer(optic, *pair, rays)
        traced = trace_ghost(optic, *pair, field, rings=3)
        valid = be.to_numpy(traced.valid)
        assert valid.mean() > 0.5
        np.testing.assert_allclose(be.to_numpy(traced.x)[valid], expected[0][valid], atol=1e-9)
        np.testing.assert_allclose(be.to_numpy(traced.y)[valid], expected[1][valid], atol=1e-9)


def test_bare_reflectances_are_the_fresnel_values_of_the_media():
    optic = optics.load("singlet")
    n = float(be.item(index_at(optic.surfaces[1].material, WAVELENGTH)))
    fresnel = ((n - 1) / (n + 1)) ** 2
    power = path_energy(optic, ghost_path(optic, 2, 1), WAVELENGTH)
    assert power["reflectances"] == pytest.approx((fresnel, fresnel), rel=1e-12)
    # The ghost crosses surface 1 twice (in, then out after the second reflection).
    assert power["transmission"] == pytest.approx((1 - fresnel) ** 2, rel=1e-12)
    assert power["primary"] == pytest.approx((1 - fresnel) ** 2, rel=1e-12)


class _FresnelAmplitudes:
    """A coating with no layers: the bare interface's amplitudes at each ray's angle."""

    def amplitudes(self, n1, n2, cos_i, wavelength_um):
        assert wavelength_um == WAVELENGTH
        cos_i = np.asarray(cos_i, dtype=float)
        cos_t = np.sqrt(1 - (n1 / n2) ** 2 * (1 - cos_i**2))
        a, b = n1 * cos_i, n2 * cos_t
        c, d = n2 * cos_i, n1 * cos_t
        # Born & Wolf: rp = (n2 cos i − n1 cos t)/(n2 cos i + n1 cos t), sign as optics.coatings
        return (a - b) / (a + b), (d - c) / (c + d), 2 * a / (a + b), 2 * a / (c + d)


class _PerfectAntireflection:
    def amplitudes(self, n1, n2, cos_i, wavelength_um):
        t = math.sqrt(n1 / n2)
        return 0.0, 0.0, t, t


def _coated(optic, k, coating):
    surface = optic.surfaces[k]
    surface.coating = coating  # the protocol is an attribute read with getattr
    return optic


def test_a_coating_is_read_through_its_amplitudes():
    bare = ghosts(optics.load("achromat"), rings=2)
    same = ghosts(_coated(optics.load("achromat"), 2, _FresnelAmplitudes()), rings=2)
    for a, b in zip(bare.ghosts, same.ghosts, strict=True):
        assert a.surfaces == b.surfaces
        assert a.energy == pytest.approx(b.energy, rel=1e-12)
    perfect = ghosts(_coated(optics.load("achromat"), 1, _PerfectAntireflection()), rings=2)
    for ghost in perfect.ghosts:
        assert (ghost.energy == 0.0) == (1 in ghost.surfaces)


def test_ghosts_are_ranked_by_the_irradiance_they_bring_to_the_image():
    report = ghosts(optics.load("double_gauss"), rings=3)
    values = [g.irradiance for g in report.ghosts]
    assert values == sorted(values, reverse=True)
    for ghost in report.ghosts:
        if math.isnan(ghost.rms_radius):  # fewer than 2 rays arrive: no spot, no irradiance
            assert ghost.irradiance == 0.0 and ghost.passed < 0.1
            continue
        ratio = (report.primary_radius / max(ghost.rms_radius, report.primary_radius)) ** 2
        assert ghost.irradiance == pytest.approx(ghost.energy * ratio)
        assert 0 <= ghost.energy < 0.01  # two reflections of a few per cent each
        assert (ghost.energy == 0) == (0.0 in ghost.reflectances)  # the stop: air on both sides
    record = report.as_dict(3)
    assert len(record["ghosts"]) == 3 and record["ghost_count"] == len(report.ghosts)


def test_ghost_rms_radius_follows_the_paraxial_ghost_size_when_the_ghost_is_large():
    # A defocused ghost is a disc of the marginal ray's radius: RMS = radius / sqrt(2)
    # for a uniformly filled disc, up to its aberrations (small at a 2 mm pupil).
    optic = optics.load("singlet")
    optic.aperture.value = 2.0
    report = ghosts(optic, rings=8)
    (ghost,) = report.ghosts
    assert ghost.rms_radius == pytest.approx(ghost.paraxial_radius / math.sqrt(2), rel=0.1)


@pytest.mark.parametrize("pair", [(3, 1), (2, 1), (3, 2)])
def test_real_ghost_rays_meet_at_the_paraxial_ghost_focus(pair):
    # Move the image plane to the paraxial ghost focus: at a small aperture the traced
    # ghost rays converge there (a spot thousands of times smaller than at the image).
    optic = optics.load("achromat")
    optic.aperture.value = 2.0
    before = ghosts(optic, pairs=[pair], rings=6).ghosts[0]
    optic.surfaces[-2].thickness += before.focus
    after = ghosts(optic, pairs=[pair], rings=6).ghosts[0]
    assert after.focus == pytest.approx(0.0, abs=1e-9)
    assert after.rms_radius < 1e-3 * before.rms_radius and after.rms_radius < 2e-3


def test_ghost_focus_is_the_same_on_every_backend(backend):
    optic = optics.load("achromat")
    with be.using("numpy"):
        expected = paraxial_ghost_focus(optics.load("achromat"), 3, 1)
    assert paraxial_ghost_focus(optic, 3, 1) == pytest.approx(expected, rel=1e-12)
    traced = trace_ghost(optic, 3, 1, rings=2)
    assert be.to_numpy(traced.valid).all()
