"""Solves and pickups: held while variables move, gradients, lens-file and .zmx forms."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _zemax_corpus import absent_reason, corpus_dir
from helpers import singlet

import optics
from optics import backend as be
from optics._paraxial import paraxial
from optics.errors import ConfigurationError, LensFileError
from optics.io import zemax
from optics.io.zemax._glass import ZemaxWarning
from optics.optimize import Operand, Problem, Solve, apply_solves, optimize

EF35 = corpus_dir() / "deeplens-ef35mm_f2.0.zmx"


def _ef35():
    if not EF35.exists():
        pytest.skip(absent_reason())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)  # the floating stop's DIAM note
        return optics.load(EF35)


def test_fno_solve_holds_the_f_number_exactly_while_radii_change():
    # The drift: with the stop diameter fixed, radii moved the EPD 18.40 -> 16.21 mm
    # and F/1.93 -> F/2.19.  A curvature solve on the last lens surface holds the F/#.
    optic = _ef35()
    last = optic.image_index - 1
    fno = float(paraxial(optic).fno)
    free = [f"surfaces[{i}].radius" for i in (1, 2, 3, 5)]
    drifting = Problem(_ef35(), free, [Operand("efl", target=35.0)])
    optic.solves = [Solve(last, "curvature", "fno", value=fno)]
    held = Problem(optic, free, [Operand("efl", target=35.0)])
    rng = np.random.default_rng(3)
    for _ in range(3):
        u = rng.uniform(-3, 3, len(free))  # ±3% on each radius
        drifting.variables.apply(u)
        held.variables.apply(u)
        assert abs(float(paraxial(drifting.optic).fno) - fno) > 1e-3  # it would drift ...
        assert float(paraxial(optic).fno) == pytest.approx(fno, rel=1e-13)  # ... it does not
    assert float(paraxial(optic).epd) != pytest.approx(18.3987, abs=1e-3)  # the EPD moved


def test_an_optimization_run_keeps_the_solve():
    optic = singlet()
    optic.solves = [Solve(2, "thickness", "paraxial_focus"), Solve(2, "curvature", "fno", 4.0)]
    problem = Problem(optic, ["surfaces[1].radius"], [Operand("rms_spot")])
    optimize(problem, "dls", steps=5)
    first = paraxial(optic)
    assert float(first.fno) == pytest.approx(4.0, rel=1e-12)
    assert float(optic.surfaces[2].thickness) == pytest.approx(float(first.bfl), rel=1e-12)


def test_paraxial_focus_and_ray_height_solves_match_first_order_data():
    optic = singlet(image_distance=40.0)
    bfl = float(paraxial(optic).bfl)
    optic.solves = [Solve(2, "thickness", "paraxial_focus")]
    apply_solves(optic)
    assert optic.surfaces[2].thickness == pytest.approx(bfl, rel=1e-14)
    # Marginal-ray height h at the next surface: t = bfl (1 - h / y2), y2 the height on
    # surface 2: y1 = 5 mm, slope in the glass -y1 (n - 1) c1 / n = -1/30, so y2 = 5 - 5/30.
    optic.solves = [Solve(2, "thickness", "marginal_ray_height", value=-1.0)]
    apply_solves(optic)
    assert optic.surfaces[2].thickness == pytest.approx(bfl * (1 + 1 / (5 - 5 / 30)), rel=1e-13)
    # A chief-ray height 0 puts the next surface (the image) on the exit pupil.
    optic.solves = [Solve(2, "thickness", "chief_ray_height")]
    apply_solves(optic)
    assert abs(float(paraxial(optic).xp_position)) < 1e-12


def test_gradients_flow_through_a_solved_thickness(autodiff_backend):
    """d(rms spot)/d(radii) with a paraxial-focus last gap: autograd == central FD at 2 steps."""
    optic = singlet(fields=(0.0, 3.0))
    optic.solves = [Solve(2, "thickness", "paraxial_focus")]
    apply_solves(optic)
    problem = Problem(optic, ["surfaces[1].radius", "surfaces[2].radius"], [Operand("rms_spot")])
    u = np.array([0.4, -0.7])
    _, gradient = problem.value_and_gradient(u)

    def fd(h):
        out = []
        for i in range(2):
            step = np.zeros(2)
            step[i] = h
            out.append((problem.merit_float(u + step) - problem.merit_float(u - step)) / (2 * h))
        return np.array(out)

    with be.using("numpy"):
        coarse, fine = fd(1e-3), fd(5e-4)
    scale = np.abs(fine).max()
    np.testing.assert_allclose(coarse, fine, atol=1e-6 * scale)
    np.testing.assert_allclose(gradient, fine, atol=1e-6 * scale)
    # without the solve's graph the gradient would be different (the gap moves with the radii)
    frozen = Problem(singlet(fields=(0.0, 3.0)), problem.variables.paths, [Operand("rms_spot")])
    frozen.optic.surfaces[2].thickness = float(optic.surfaces[2].thickness)
    _, other = frozen.value_and_gradient(np.zeros(2))
    assert not np.allclose(other, gradient, rtol=1e-2)


def _with_pickups():
    optic = optics.load("cooke_triplet")
    optic.solves = [
        Solve(6, "curvature", "pickup", source=1, scale=-1.0),
        Solve(5, "thickness", "pickup", source=1, scale=0.5, offset=1.25),
        Solve(6, "thickness", "paraxial_focus"),
    ]
    apply_solves(optic)
    return optic


def _state(optic):
    return sorted(
        (s.surface, s.parameter, s.type, s.source, s.scale, s.offset) for s in optic.solves
    )


def test_pickups_round_trip_through_lens_files_and_zmx(tmp_path):
    optic = _with_pickups()
    c1 = float(optic.surfaces[1].geometry.curvature)
    assert optic.surfaces[6].geometry.curvature == -c1
    assert optic.surfaces[5].thickness == 0.5 * optic.surfaces[1].thickness + 1.25
    for name in ("lens.toml", "lens.json"):
        back = optics.load(optics.save(optic, tmp_path / name))
        assert _state(back) == _state(optic)
        assert back.surfaces[6].geometry.curvature == optic.surfaces[6].geometry.curvature
        assert back.surfaces[6].thickness == optic.surfaces[6].thickness
    text = (tmp_path / "lens.toml").read_text()
    assert "[surfaces.pickup.curvature]" in text or "pickup" in text
    back = optics.load(optics.save(optic, tmp_path / "lens.zmx"))
    assert _state(back) == _state(optic)
    zmx = (tmp_path / "lens.zmx").read_text(encoding="utf-16")
    assert "PZUP 1 0.5 1.25 0" in zmx and "MAZH 0.0 0" in zmx


def test_a_moved_source_moves_its_pickup():
    optic = _with_pickups()
    problem = Problem(optic, ["surfaces[1].radius"], [Operand("efl", target=50.0)])
    problem.variables.apply(np.array([2.0]))
    assert optic.surfaces[6].geometry.curvature == -optic.surfaces[1].geometry.curvature


def test_a_variable_on_a_solved_parameter_is_refused():
    optic = _with_pickups()
    with pytest.raises(ConfigurationError, match="surfaces\\[6\\].radius.*pickup"):
        Problem(optic, ["surfaces[6].radius"], [Operand("rms_spot")])


def test_bad_solve_tables_name_the_surface_and_key():
    data = optics.io.optic_to_dict(optics.load("cooke_triplet"))
    data["surfaces"][6]["solve"] = {"thickness": {"type": "paraxial_fokus"}}
    with pytest.raises(LensFileError, match="surface 6: solve.thickness: key 'type'"):
        optics.io.optic_from_dict(data)
    data["surfaces"][6]["solve"] = {"thickness": {"type": "fno", "fno": 3.0}}
    with pytest.raises(LensFileError, match="surface 6.*sets curvature, not thickness"):
        optics.io.optic_from_dict(data)
    del data["surfaces"][6]["solve"]
    data["surfaces"][6]["pickup"] = {"curvature": {"surface": 9}}
    with pytest.raises(LensFileError, match="surface 6.*pickup from surface 9"):
        optics.io.optic_from_dict(data)


def test_an_unsupported_zmx_solve_is_a_warning_naming_surface_and_line():
    text = zemax.dumps(optics.load("cooke_triplet"))
    lines = text.split("\r\n")
    at = [i for i, line in enumerate(lines) if line.strip().startswith("CURV")][3]
    lines[at] = lines[at].replace(" 0 0 0 0 ", " 7 0 0 0 ")  # aplanatic: not supported
    with pytest.warns(ZemaxWarning, match=rf"surface 3: line {at + 1}: CURV: .*'aplanatic'"):
        optic = zemax.loads(zemax.encode("\r\n".join(lines)))
    assert optic.solves == []


def test_zmx_corpus_solves_are_read():
    """The corpus's CURV 4 / 11 codes and PZUP lines (kbg-CookeTriplet, US00583336)."""
    path = corpus_dir() / "rayoptics-US00583336-2-scaled.zmx"
    if not path.exists():
        pytest.skip(absent_reason())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ZemaxWarning)
        optic = optics.load(path)
    kinds = {(s.surface, s.parameter): (s.type, s.source, s.scale) for s in optic.solves}
    assert kinds[(8, "curvature")] == ("pickup", 6, -1.0)
    assert kinds[(7, "thickness")] == ("pickup", 6, 1.0)
    assert len(optic.solves) == 10
