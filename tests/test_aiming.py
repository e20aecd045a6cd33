"""Real ray aiming: rays cross the stop at (px, py) · r_stop, and gradients through the aim.

Geometric truth: every real-aimed ray is traced to the stop and its local
stop point compared with (px, py) · r_stop.  Derivatives through the implicit
correction are checked against central differences at two step sizes.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from helpers import autograd_graph_size, singlet

from optics import backend as be
from optics import paraxial
from optics.io import load
from optics.sampling import hexapolar
from optics.solvers import solver_settings
from optics.trace import Compiled, trace_bundle, trace_rays, trace_surfaces
from optics.trace.aim import PupilAimWarning, aim, stop_radius
from optics.trace.launch import launch_rays
from optics.trace.loop import trace_to_surface
from optics.trace.real_image_height import field_parameters

FIELDS = [(0.0, 0.0), (0.0, 0.7), (0.5, 1.0)]


def double_gauss():
    optic = load("double_gauss")
    optic.aiming = "real"
    return optic


def finite_double_gauss():
    """The double Gauss 800 mm from an object, with object-height fields (mm)."""
    optic = double_gauss()
    optic.surfaces[0].thickness = 800.0
    optic.surfaces[-2].thickness = 62.0
    optic.fields.type = "object_height"
    optic.fields.values = [(0.0, 0.0), (0.0, 120.0), (0.0, 170.0)]
    return optic


def tilted_double_gauss():
    """Decentered, tilted stop: the stop frame is not the global one."""
    optic = double_gauss()
    optic.surfaces[6].decenter = (0.4, -0.3)
    optic.surfaces[6].tilt = (2.0, -1.5, 0.0)
    return optic


SYSTEMS = {"infinite": double_gauss, "finite": finite_double_gauss, "tilted": tilted_double_gauss}


def stop_points(optic, fields, px, py):
    """Aim, then trace the aimed rays to the stop; local (x, y), targets, converged."""
    first_order = paraxial(optic)
    hx = be.asarray([f[0] for f in fields])[:, None]
    hy = be.asarray([f[1] for f in fields])[:, None]
    qx, qy = field_parameters(optic, hx, hy)
    wavelength = be.asarray(optic.primary_wavelength)
    result = aim(optic, qx, qy, px[None], py[None], wavelength, first_order)
    rays = launch_rays(optic, qx, qy, result.px, result.py, wavelength)
    shape = tuple(result.px.shape)
    rays = rays.replace(
        **{
            name: be.reshape(be.broadcast_to(getattr(rays, name), shape), (-1,))
            for name in ("x", "y", "z", "L", "M", "N", "wavelength", "opd", "valid")
        }
    )
    x, y, valid = trace_to_surface(optic, rays, optic.stop_index)
    r = be.to_numpy(result.r_stop)
    targets = (
        np.broadcast_to(be.to_numpy(px)[None] * r, shape),
        np.broadcast_to(be.to_numpy(py)[None] * r, shape),
    )
    return (
        (be.to_numpy(x).reshape(shape), be.to_numpy(y).reshape(shape)),
        targets,
        be.to_numpy(result.converged) & be.to_numpy(valid).reshape(shape),
        result,
    )


@pytest.mark.parametrize("system", SYSTEMS)
def test_aimed_rays_cross_the_stop_at_the_requested_point(backend, system):
    optic = SYSTEMS[system]()
    px, py = hexapolar(6)
    (x, y), (tx, ty), converged, result = stop_points(optic, FIELDS, px, py)
    assert converged.all()
    assert result.tolerance <= 1e-11
    assert np.abs(x - tx).max() <= 1e-11 and np.abs(y - ty).max() <= 1e-11


def test_float32_aims_to_a_dtype_derived_tolerance(backend):
    with be.using(backend, precision="float32"):
        optic = double_gauss()
        px, py = hexapolar(3)
        (x, y), (tx, ty), converged, result = stop_points(optic, FIELDS, px, py)
    eps = float(np.finfo(np.float32).eps)
    assert converged.all()
    assert result.tolerance > 1e-6 and result.tolerance < 1e4 * eps
    assert np.abs(x - tx).max() <= 4 * result.tolerance


def test_chief_ray_goes_through_the_stop_centre_and_pupil_rim_is_r_stop(backend):
    optic = tilted_double_gauss()
    px, py = be.asarray([0.0, 1.0, 0.0, -1.0]), be.asarray([0.0, 0.0, 1.0, 0.0])
    (x, y), _, converged, result = stop_points(optic, FIELDS, px, py)
    r = float(be.item(result.r_stop))
    assert converged.all()
    np.testing.assert_allclose(x[:, 0], 0.0, atol=1e-11)
    np.testing.assert_allclose(np.hypot(x, y)[:, 1:], r, rtol=0, atol=1e-11)


def test_stop_radius_is_the_real_entrance_pupil_edge_ray_or_half_the_stop_diameter(backend):
    optic = double_gauss()
    first_order = paraxial(optic)
    wavelength = be.asarray(optic.primary_wavelength)
    edge = launch_rays(optic, 0.0, 0.0, 1.0, 0.0, wavelength)
    x, y, _ = trace_to_surface(optic, edge, optic.stop_index)
    assert float(be.item(stop_radius(optic, first_order))) == pytest.approx(
        math.hypot(float(be.item(x)), float(be.item(y))), rel=1e-15
    )
    optic.aperture.type, optic.aperture.value = "stop_diameter", 30.0
    first_order = paraxial(optic)
    assert float(be.item(stop_radius(optic, first_order))) == 15.0
    # The paraxial marginal ray meets the stop at D/2, so r_stop and the paraxial EPD agree.
    paraxial_edge = launch_rays(optic, 0.0, 0.0, 1e-6, 0.0, wavelength)
    x, _, _ = trace_to_surface(optic, paraxial_edge, optic.stop_index)
    assert float(be.item(x)) / 1e-6 == pytest.approx(15.0, rel=1e-6)


def test_trace_rays_bundle_and_spot_honour_the_mode(backend):
    optic = double_gauss()
    px, py = hexapolar(2)
    direct = trace_rays(optic, (0.0, 1.0), (px, py))
    bundle = trace_bundle(optic, [(0.0, 1.0)], [optic.primary_wavelength], (px, py))
    np.testing.assert_allclose(
        be.to_numpy(bundle.rays.y[0, 0]), be.to_numpy(direct.y), rtol=0, atol=1e-12
    )
    paraxial_rays = trace_rays(optic, (0.0, 1.0), (px, py), aiming="paraxial")
    assert np.abs(be.to_numpy(paraxial_rays.y) - be.to_numpy(direct.y)).max() > 1e-4


def test_paraxial_aiming_warns_once_naming_the_fields(backend):
    optic = load("double_gauss")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trace_bundle(optic, pupil=2)
    aims = [w for w in caught if issubclass(w.category, PupilAimWarning)]
    assert len(aims) == 1
    text = str(aims[0].message)
    assert "(0, 1)" in text and "(0, 0)" not in text and 'mode = "real"' in text
    optic.aiming = "real"
    with warnings.catch_warnings():
        warnings.simplefilter("error", PupilAimWarning)
        trace_bundle(optic, pupil=2)


def test_a_ray_that_cannot_reach_its_stop_point_is_invalid_not_dropped(backend):
    optic = double_gauss()
    px, py = be.asarray([0.0, 0.5, 40.0]), be.asarray([0.0, 0.0, 0.0])
    rays = trace_rays(optic, (0.0, 1.0), (px, py))
    assert be.to_numpy(rays.valid).tolist() == [True, True, False]
    assert np.isfinite(be.to_numpy(rays.x)).all()


# --- gradients -----------------------------------------------------------------------------


# Every parameter sits before the stop, so it moves the aim (and the trace after it).
def _radius(optic, value):
    optic.surfaces[3].geometry.radius = value


def _thickness(optic, value):
    optic.surfaces[1].thickness = value


def _tilt(optic, value):
    optic.surfaces[4].tilt = (value, 0.0, 0.0)


def _stop_position(optic, value):
    """Moves the stop plane by ``value`` mm, keeping every other vertex in place."""
    optic.surfaces[5].thickness = 14.0 + value
    optic.surfaces[6].thickness = 10.0 - value


PARAMETERS = {
    "radius": (_radius, 46.32, (1e-3, 1e-4)),
    "thickness": (_thickness, 11.32, (1e-3, 1e-4)),
    "tilt": (_tilt, 0.5, (1e-3, 1e-4)),
    "stop_position": (_stop_position, 0.0, (1e-3, 1e-4)),
}
PUPIL = ([0.0, 0.0, 1.0, 0.6], [0.0, 1.0, 0.0, -0.7])


def _image_points(optic):
    px, py = (be.asarray(v) for v in PUPIL)
    rays = trace_rays(optic, (0.2, 0.9), (px, py))
    return be.concatenate([rays.x, rays.y])


@pytest.mark.parametrize("name", PARAMETERS)
def test_gradients_through_the_aim_match_finite_differences(torch_backend, name):
    import torch

    setter, x0, steps = PARAMETERS[name]
    optic = double_gauss()
    x = be.parameter(x0)
    setter(optic, x)
    out = _image_points(optic)
    ad = np.array([be.to_numpy(torch.autograd.grad(o, x, retain_graph=True)[0]) for o in out])
    assert np.abs(ad).max() > 1e-4
    with be.no_grad():
        for step in steps:
            setter(optic, x0 + step)
            up = be.to_numpy(_image_points(optic))
            setter(optic, x0 - step)
            down = be.to_numpy(_image_points(optic))
            np.testing.assert_allclose(ad, (up - down) / (2 * step), rtol=1e-5, atol=1e-8)


def test_the_aim_itself_moves_with_the_parameters(torch_backend):
    """Without the implicit correction the aimed launch would not depend on θ at all."""
    import torch

    optic = double_gauss()
    x = be.parameter(14.0)
    optic.surfaces[5].thickness = x
    first_order = paraxial(optic)
    qx, qy = field_parameters(optic, 0.0, 0.9)
    result = aim(optic, qx, qy, be.asarray([0.0, 1.0]), be.asarray([1.0, 0.0]), 0.5876, first_order)
    grad = torch.autograd.grad(be.sum(result.py * result.py), x)[0]
    assert abs(float(grad)) > 1e-6


def test_graph_size_does_not_depend_on_the_iterations(torch_backend):
    optic = double_gauss()
    x = be.parameter(46.32)
    _radius(optic, x)
    first_order = paraxial(optic)
    qx, qy = field_parameters(optic, 0.0, 1.0)
    px, py = be.asarray([0.0, 0.3, 1.0]), be.asarray([1.0, -0.2, 0.0])
    with solver_settings(max_iterations=1):
        loose = aim(optic, qx, qy, px, py, 0.5876, first_order, tol=1.0)
    tight = aim(optic, qx, qy, px, py, 0.5876, first_order)
    assert autograd_graph_size(loose.px) == autograd_graph_size(tight.px) > 0


@pytest.mark.compile
def test_compiled_trace_launches_the_real_aim(torch_backend):
    optic = singlet(fields=(0.0, 20.0))
    optic.surfaces[1].is_stop, optic.surfaces[2].is_stop = False, True
    optic.aiming = "real"
    px, py = be.asarray([0.0, 0.5, -1.0, 40.0]), be.asarray([0.0, 0.5, 0.0, 0.0])
    eager = trace_rays(optic, (0.0, 1.0), (px, py))
    fused = trace_rays(optic, (0.0, 1.0), (px, py), method=Compiled("aot_eager"))
    np.testing.assert_allclose(be.to_numpy(fused.y), be.to_numpy(eager.y), rtol=0, atol=1e-12)
    # The aim of the last ray fails (it cannot reach 40 stop radii): invalid on both paths.
    assert be.to_numpy(fused.valid).tolist() == be.to_numpy(eager.valid).tolist()
    assert be.to_numpy(fused.valid).tolist() == [True, True, True, False]


def _real_image_height_optic():
    from optics.system import Fields

    optic = double_gauss()
    optic.fields = Fields("real_image_height", [(0.0, 0.0), (0.0, 21.0)])
    return optic


def test_real_image_height_fields_use_the_real_chief_ray(backend):
    optic = _real_image_height_optic()
    chief = trace_surfaces(optic, (0.0, be.asarray([0.5, 1.0])), (0.0, 0.0))
    np.testing.assert_allclose(be.to_numpy(chief[-1].y), [10.5, 21.0], rtol=0, atol=1e-10)
    at_stop = chief[optic.stop_index]  # the stop is a plane at its vertex: global = local
    np.testing.assert_allclose(be.to_numpy(at_stop.y), 0.0, atol=1e-11)


def test_gradient_through_the_field_solve_and_the_aim(torch_backend):
    import torch

    optic = _real_image_height_optic()

    def marginal_y(value):
        _radius(optic, value)
        return trace_rays(optic, (0.0, 1.0), (be.asarray([0.0]), be.asarray([1.0]))).y[0]

    x = be.parameter(46.32)
    ad = float(torch.autograd.grad(marginal_y(x), x)[0])
    assert abs(ad) > 1e-4
    with be.no_grad():
        for step in (1e-3, 1e-4):
            fd = (float(marginal_y(46.32 + step)) - float(marginal_y(46.32 - step))) / (2 * step)
            assert ad == pytest.approx(fd, rel=1e-5, abs=1e-8)


def test_merit_functions_trace_with_the_optic_s_mode(torch_backend):
    import torch

    from optics.optimize.merit import Merit, Operand

    optic = double_gauss()
    merit = Merit([Operand("rms_spot")])
    real = float(merit(optic))
    optic.aiming = "paraxial"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PupilAimWarning)
        paraxially = float(merit(optic))
    assert abs(real - paraxially) > 1e-6 * abs(real)
    optic.aiming = "real"
    x = be.parameter(46.32)
    _radius(optic, x)
    (grad,) = torch.autograd.grad(merit(optic), x)
    assert math.isfinite(float(grad)) and float(grad) != 0.0


def test_an_undefined_stop_radius_is_an_error_naming_the_stop(backend):
    from optics.errors import SolveError

    optic = singlet(epd=120.0)  # the entrance-pupil edge ray misses the 50 mm spheres
    optic.surfaces[1].is_stop, optic.surfaces[2].is_stop = False, True
    optic.aiming = "real"
    with pytest.raises(SolveError, match="does not reach the stop \\(surface 2\\).*stop_diameter"):
        trace_rays(optic, (0.0, 0.0), (0.5, 0.0))
    optic.aperture.type, optic.aperture.value = "stop_diameter", 20.0
    assert bool(be.item(trace_rays(optic, (0.0, 0.0), (0.5, 0.0)).valid))


def test_every_wavelength_is_aimed_at_the_same_stop_point(backend):
    optic = double_gauss()  # the stop is a plane at its vertex: global (x, y) = local
    first_order = paraxial(optic)
    r = float(be.item(stop_radius(optic, first_order)))
    wavelengths = be.asarray(optic.wavelengths.values)[:, None]
    px, py = be.asarray([0.0, 1.0, -0.4]), be.asarray([0.0, 0.0, 0.8])
    history = trace_surfaces(optic, (0.0, 1.0), (px[None], py[None]), wavelengths)
    at_stop = history[optic.stop_index]
    assert be.to_numpy(history[-1].valid).all()
    np.testing.assert_allclose(
        be.to_numpy(at_stop.x), np.broadcast_to(be.to_numpy(px) * r, (3, 3)), atol=1e-11
    )
    np.testing.assert_allclose(
        be.to_numpy(at_stop.y), np.broadcast_to(be.to_numpy(py) * r, (3, 3)), atol=1e-11
    )
    colour = be.to_numpy(history[-1].y)
    assert np.ptp(colour[:, 1]) > 1e-4  # the colours really trace differently
