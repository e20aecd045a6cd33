"""Real-image-height fields on the reference Cooke triplet match an established design code.

The reference code (float64) solves real image heights 6, 12 and 18 mm at
0.55 µm to these object-space chief-ray field angles; we match to 1e-9°.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers import REFERENCE, reference_cooke

from optics import backend as be
from optics.cli import main
from optics.io import load
from optics.system import Fields
from optics.trace import trace_rays, trace_surfaces
from optics.trace.real_image_height import solve_real_image_height

HEIGHTS = (6.0, 12.0, 18.0)  # mm
ANGLES = (6.869870896983179, 13.544799033542963, 19.861841940931814)  # degrees


def lens_file(tmp_path):
    """The reference lens file with its fields rewritten as real image heights in mm."""
    text = (REFERENCE / "cooke_triplet.toml").read_text()
    start = text.index("[fields]")
    end = text.index("\n[", start) + 1  # the next table header
    fields = '[fields]\ntype = "real_image_height"\nvalues = [0.0, 6.0, 12.0, 18.0]\n\n'
    path = tmp_path / "cooke_real_image_height.toml"
    path.write_text(text[:start] + fields + text[end:])
    return path


def field_angles(optic):
    """Object-space chief-ray angles (degrees) of the optic's non-zero fields, via trace_rays."""
    top = optic.fields.max_magnitude
    angles = []
    for x, y in optic.fields.values:
        if (x, y) == (0.0, 0.0):
            continue
        launch = trace_surfaces(optic, (x / top, y / top), (0.0, 0.0))[0]
        M, N = float(be.to_numpy(launch.M)), float(be.to_numpy(launch.N))
        angles.append(math.degrees(math.atan2(M, N)))
    return angles


def test_lens_file_fields_solve_to_the_reference_angles(backend, tmp_path):
    optic = load(lens_file(tmp_path))
    assert optic.fields.type == "real_image_height"
    np.testing.assert_allclose(field_angles(optic), ANGLES, rtol=0, atol=1e-9)


def test_batched_solve_matches_the_reference_angles(backend):
    optic = reference_cooke()
    optic.fields = Fields("real_image_height", [(0.0, h) for h in HEIGHTS])
    hy = be.asarray([h / 18.0 for h in HEIGHTS])
    _, qy = solve_real_image_height(optic, be.zeros_like(hy), hy)
    angles = np.degrees(np.arctan(be.to_numpy(qy)))
    np.testing.assert_allclose(angles, ANGLES, rtol=0, atol=1e-9)


def test_solved_chief_rays_land_on_the_requested_heights(backend):
    optic = reference_cooke()
    optic.fields = Fields("real_image_height", [(0.0, h) for h in HEIGHTS])
    for h in HEIGHTS:
        rays = trace_rays(optic, (0.0, h / 18.0), (0.0, 0.0))
        assert float(be.to_numpy(rays.y)) == pytest.approx(h, abs=1e-12)
        assert float(be.to_numpy(rays.x)) == 0.0


@pytest.mark.parametrize("backend_name", ["numpy", "torch"])
def test_optics_analyze_reports_real_image_height_fields(capsys, tmp_path, backend_name):
    if backend_name == "torch":
        pytest.importorskip("torch")
    assert main(["analyze", str(lens_file(tmp_path)), "--json", "--backend", backend_name]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["paraxial"]["image_height"] == pytest.approx(18.0, rel=1e-12)
    spots = report["spot"]
    assert [spot["n_invalid"] for spot in spots] == [0, 0, 0, 0]
    centroids = [spot["centroid"][1] for spot in spots]
    np.testing.assert_allclose(centroids, (0.0,) + HEIGHTS, atol=0.01)  # centroid near chief


def test_optics_gradcheck_agrees_through_the_field_solve(capsys, tmp_path):
    pytest.importorskip("torch")
    params = ["surfaces[3].radius", "surfaces[4].thickness", "surfaces[5].radius"]
    argv = ["gradcheck", str(lens_file(tmp_path)), "--json"]
    for path in params:
        argv += ["--param", path]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    for check in report["params"]:
        assert check["rel_err"] < 1e-6, check
        assert check["fd_half_step"] == pytest.approx(check["fd"], rel=1e-4), check  # O(h²) apart
