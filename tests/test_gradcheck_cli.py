"""``optics gradcheck``: autograd next to finite differences, for every surface type."""

from __future__ import annotations

import json

import pytest
from _newton_cases import NAMES, make, parameter_paths, singlet_with

from optics import backend as be
from optics.cli import main
from optics.io import save

BACKENDS = [
    pytest.param(n, marks=pytest.mark.skipif(n not in be.available_backends(), reason="missing"))
    for n in ("torch", "jax")
]
pytestmark = pytest.mark.skipif(not be.autodiff_backends(), reason="no autodiff backend")


def _run(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture
def lens_file(tmp_path):
    def write(name):
        path = tmp_path / f"{name}.toml"
        save(singlet_with(make(name)), path)
        return str(path)

    return write


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_autograd_agrees_with_finite_differences_on_every_surface_type(
    name, backend, lens_file, capsys
):
    paths = [f"surfaces[1].{p}" for p in parameter_paths(name)] + ["surfaces[1].thickness"]
    argv = ["gradcheck", lens_file(name), "--json", "--backend", backend]
    for path in paths:
        argv += ["--param", path]
    status, out, err = _run(capsys, argv)
    assert status == 0, err
    report = json.loads(out)
    assert set(report) == {"metric", "value", "params"}
    assert report["metric"] == "rms_spot" and report["value"] > 0
    assert [p["path"] for p in report["params"]] == paths
    for entry in report["params"]:
        assert set(entry) == {"path", "autograd", "fd", "fd_half_step", "rel_err"}
        assert entry["rel_err"] < 1e-6, entry


def test_the_efl_metric_and_the_text_table(capsys):
    status, out, _ = _run(
        capsys,
        [
            "gradcheck",
            "cooke_triplet",
            "--metric",
            "efl",
            "--param",
            "surfaces[3].radius",
            "--param",
            "surfaces[2].thickness",
        ],
    )
    assert status == 0
    assert out.startswith("efl = ")
    assert "surfaces[3].radius" in out and "rel_err" in out


def test_a_bad_parameter_path_is_one_line_on_stderr_and_status_2(capsys):
    status, out, err = _run(capsys, ["gradcheck", "cooke_triplet", "--param", "surfaces[3].radiu"])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "surfaces[3].radiu" in err


def test_an_unknown_lens_is_one_line_on_stderr_and_status_2(capsys):
    status, _, err = _run(capsys, ["gradcheck", "no_such_lens", "--param", "surfaces[1].radius"])
    assert status == 2 and err.count("\n") == 1 and "no_such_lens" in err


def test_a_path_to_something_that_is_not_a_number_is_refused(capsys):
    status, _, err = _run(capsys, ["gradcheck", "cooke_triplet", "--param", "surfaces[1].material"])
    assert status == 2 and "not a number" in err


def test_the_parameters_are_left_as_they_were(lens_file):
    from optics.gradcheck import check_gradients
    from optics.io import load

    optic = load(lens_file("chebyshev"))
    before = [list(row) for row in optic.surfaces[1].geometry.coefficients]
    check_gradients(optic, ["surfaces[1].coefficients[1][2]", "surfaces[1].radius"])
    assert optic.surfaces[1].geometry.coefficients == before
    assert optic.surfaces[1].geometry.radius == -20.0
    assert optic.surfaces[1].geometry.tol == 1e-10


@pytest.mark.parametrize("backend", BACKENDS)
def test_derivatives_through_the_real_image_height_field_solve(backend, tmp_path, capsys):
    from helpers import reference_cooke

    from optics.system import Fields

    optic = reference_cooke()
    optic.fields = Fields("real_image_height", [(0.0, 0.0), (0.0, 12.0), (0.0, 18.0)])
    path = tmp_path / "cooke_rih.toml"
    save(optic, path)
    params = ["surfaces[3].radius", "surfaces[4].thickness", "surfaces[1].material.index"]
    argv = ["gradcheck", str(path), "--json", "--backend", backend]
    for param in params:
        argv += ["--param", param]
    status, out, err = _run(capsys, argv)
    assert status == 0, err
    for entry in json.loads(out)["params"]:
        assert entry["rel_err"] < 1e-6, entry
