"""Rays traced by rayoptics 0.9.10 from explicit start points (run by rayoptics' interpreter).

Shared by the scripts beside it.  rayoptics is never a project dependency: make a
separate environment (``~/.pyenv/versions/3.12*/bin/python -m venv /work/venv-ro &&
/work/venv-ro/bin/pip install rayoptics==0.9.10``) and run the scripts with it.
opticalglass downloads the RefractiveIndex.INFO database when it is imported; that
library is not used here (the catalog glasses come from its vendor catalogs), so the
download is switched off before rayoptics is imported.
"""

from __future__ import annotations

import math

import numpy as np
import opticalglass.rindexinfo as _rii

_rii.get_rii_libs = lambda *args, **kwargs: {}

from rayoptics.environment import open_model  # noqa: E402
from rayoptics.raytr.trace import trace  # noqa: E402

__all__ = ["entrance_pupil", "open_model", "paraxially_aimed", "trace", "START"]

#: The start plane of every ray: START mm before the first surface's vertex.
START = 10.0


def entrance_pupil(sm, wavelength_nm):
    """The paraxial entrance pupil's distance (mm) after the first surface's vertex.

    Two paraxial rays start on the first surface, (y, nu) = (1, 0) and (0, 1); the
    chief ray is the mix of them that crosses the stop's centre.  (rayoptics'
    ``fod.enp_dist`` is computed from an object 1e10 mm away and is 2e-7 mm off for
    the zoom lens, which moves the field rays at the image by 1e-8 mm.)
    """
    stop = sm.stop_surface
    rays = [[1.0, 0.0], [0.0, 1.0]]  # [y, n u] on the first surface, before it
    n = sm.gaps[0].medium.rindex(wavelength_nm)
    for i in range(1, stop + 1):
        n_after = sm.gaps[i].medium.rindex(wavelength_nm) if i < stop else n
        if i < stop:
            power = (n_after - n) * sm.ifcs[i].profile.cv
            thickness = sm.gaps[i].thi
            for ray in rays:
                ray[1] -= ray[0] * power
                ray[0] += thickness * ray[1] / n_after
        n = n_after
    (ya, _), (yb, _) = rays
    return yb / ya * sm.gaps[0].medium.rindex(wavelength_nm)


def paraxially_aimed(opm, angles_deg, pupils, wavelength_nm=None):
    """Image-surface x, y, z, L, M, N (image-local frame) of rays from an object at infinity.

    Each ray has direction (0, sin a, cos a) for field angle ``a`` (degrees, in the y-z
    plane) and crosses the paraxial entrance pupil (rayoptics' first-order data) at
    height py * EPD / 2: the paraxial ray aiming of optics, Optiland and OpticStudio.
    The object gap is set to START mm so that the rays start near the lens.  The
    wavelength (nm) must be one of the model's; the central one by default.
    """
    sm = opm["seq_model"]
    opm.update_model()
    radius = opm["analysis_results"]["parax_data"].fod.enp_radius
    if wavelength_nm is None:
        wavelength_nm = sm.central_wavelength()
    enp_z = entrance_pupil(sm, wavelength_nm)
    far = sm.gaps[0].thi
    sm.gaps[0].thi = START
    opm.update_model()  # the surfaces' transforms follow the new object gap
    try:
        out = []
        for angle, py in zip(angles_deg, pupils):
            a = math.radians(angle)
            slope = math.tan(a)
            y0 = py * radius + slope * (-START - enp_z)  # back from the pupil to the start
            direction = [0.0, math.sin(a), math.cos(a)]
            start = np.array([0.0, y0, 0.0])
            ray = trace(sm, start, np.array(direction), wavelength_nm)[0]
            point, after = ray[-1][0], ray[-1][1]
            out.append([float(v) for v in (*point, *after)])
        return out
    finally:
        sm.gaps[0].thi = far
        opm.update_model()
