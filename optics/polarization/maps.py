"""Polarization analyses: transmission vs field and wavelength, and pupil maps.

Both trace a square grid over the unit pupil (:func:`optics.sampling.square_grid`) with
:func:`~optics.polarization.trace.polarization_trace` and read it with
:mod:`optics.polarization.jones`.  Results hold NumPy arrays and ``as_dict()`` gives
their JSON form (the CLI's ``--json``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..limits import MAX_FIELDS, MAX_PUPIL_SAMPLES, check_size, check_wavelength
from ..sampling import square_grid, square_grid_inside
from ..trace import prepare
from .jones import diattenuation, jones_pupil, retardance, transmission
from .trace import polarization_trace

__all__ = ["PupilMaps", "TransmissionTable", "polarization_pupil", "transmission_vs_field"]

#: The input states of the tables: x and y of the entrance double-pole basis.
STATES = {"x": (1.0, 0.0), "y": (0.0, 1.0)}


@dataclass(frozen=True)
class TransmissionTable:
    """Mean power transmittance over the pupil's rays that reach the image.

    Attributes
    ----------
    fields : list of float
        Normalized y fields (0 axis, 1 the largest field).
    wavelengths : list of float
        Micrometres.
    unpolarized, x, y : ndarray, shape (W, F)
        Unpolarized, and x or y polarized input (the entrance double-pole basis).
    """

    fields: list
    wavelengths: list
    unpolarized: np.ndarray
    x: np.ndarray
    y: np.ndarray

    def as_dict(self) -> dict:
        """Plain lists for JSON."""
        return {
            "fields": list(self.fields),
            "wavelengths": list(self.wavelengths),
            "transmission": {
                "unpolarized": self.unpolarized.tolist(),
                "x": self.x.tolist(),
                "y": self.y.tolist(),
            },
        }


def transmission_vs_field(optic, *, points=5, wavelengths=None, samples=15):
    """Mean transmittance at ``points`` fields 0..1 (along y) and every wavelength.

    Parameters
    ----------
    optic : Optic or PreparedSystem
    points : int
        Number of normalized fields, evenly from 0 to 1 (1: the axis alone).
    wavelengths : sequence of float, optional
        Micrometres; the optic's wavelengths by default.
    samples : int
        Pupil grid size (samples x samples, the points inside the unit circle).

    Returns
    -------
    TransmissionTable
    """
    system = prepare(optic)
    points = check_size(points, MAX_FIELDS, "points", lowest=1)
    samples = check_size(samples, MAX_PUPIL_SAMPLES, "samples", lowest=2)
    if wavelengths is None:
        wavelengths = list(system.optic.wavelengths.values)
    wavelengths = [check_wavelength(w) for w in wavelengths]
    fields = [0.0] if points == 1 else [float(v) for v in np.linspace(0.0, 1.0, points)]
    px, py = square_grid_inside(samples)
    out = {name: np.zeros((len(wavelengths), len(fields))) for name in ("u", "x", "y")}
    for w, wavelength in enumerate(wavelengths):
        for f, hy in enumerate(fields):
            traced = polarization_trace(system, (0.0, hy), (px, py), wavelength)
            valid = be.to_numpy(traced.valid)
            count = max(int(valid.sum()), 1)
            for name, state in (("u", None), *STATES.items()):
                t = be.to_numpy(be.detach(transmission(traced, state)))
                out[name][w, f] = float(t[valid].sum()) / count
    return TransmissionTable(fields, wavelengths, out["u"], out["x"], out["y"])


@dataclass(frozen=True)
class PupilMaps:
    """Polarization maps over the pupil of one field and wavelength.

    Attributes
    ----------
    field : (hx, hy)
    wavelength : float
        Micrometres.
    px, py : ndarray, shape (n,)
        Grid axes (normalized pupil); the maps' axis 0 is py, axis 1 px.
    jones : ndarray, shape (2, 2, n, n), complex
        The Jones pupil in the double-pole bases (:mod:`optics.polarization.jones`).
    transmission, diattenuation, retardance : ndarray, shape (n, n)
        Unpolarized transmittance, diattenuation (0..1), retardance (radians); NaN
        outside the pupil and for rays that do not reach the image.
    """

    field: tuple
    wavelength: float
    px: np.ndarray
    py: np.ndarray
    jones: np.ndarray
    transmission: np.ndarray
    diattenuation: np.ndarray
    retardance: np.ndarray

    def as_dict(self) -> dict:
        """Summary statistics and the maps as nested lists (null outside the pupil)."""

        def listed(a):
            return [[None if np.isnan(v) else float(v) for v in row] for row in a]

        def stats(a):
            finite = a[np.isfinite(a)]
            if finite.size == 0:
                return {"mean": None, "max": None}
            return {"mean": float(finite.mean()), "max": float(finite.max())}

        return {
            "field": list(self.field),
            "wavelength": self.wavelength,
            "px": self.px.tolist(),
            "py": self.py.tolist(),
            "summary": {
                "transmission": stats(self.transmission),
                "diattenuation": stats(self.diattenuation),
                "retardance_rad": stats(self.retardance),
            },
            "transmission": listed(self.transmission),
            "diattenuation": listed(self.diattenuation),
            "retardance_rad": listed(self.retardance),
        }


def polarization_pupil(optic, field=(0.0, 0.0), wavelength=None, *, samples=21):
    """Jones pupil, transmission, diattenuation and retardance maps of one field.

    Parameters
    ----------
    optic : Optic or PreparedSystem
    field : (hx, hy)
        Normalized field.
    wavelength : float, optional
        Micrometres; the primary by default.
    samples : int
        Grid size n (n x n points over [-1, 1]², cell centres).

    Returns
    -------
    PupilMaps
    """
    system = prepare(optic)
    samples = check_size(samples, MAX_PUPIL_SAMPLES, "samples", lowest=2)
    wavelength = system.optic.primary_wavelength if wavelength is None else wavelength
    wavelength = check_wavelength(wavelength)
    px, py, inside = square_grid(samples)
    traced = polarization_trace(system, field, (px, py), wavelength)
    shown = be.to_numpy(inside) & be.to_numpy(traced.valid)

    def grid(values):
        a = np.asarray(be.to_numpy(be.detach(values)))
        return np.where(shown, a, np.nan).reshape(samples, samples)

    J = jones_pupil(traced)
    jones = np.array(
        [
            [
                np.asarray(be.to_numpy(be.detach(J[i][j]))).reshape(samples, samples)
                for j in range(2)
            ]
            for i in range(2)
        ]
    )
    axis = -1.0 + (2.0 * np.arange(samples) + 1.0) / samples
    return PupilMaps(
        (float(field[0]), float(field[1])),
        wavelength,
        axis,
        axis,
        jones,
        grid(transmission(traced)),
        grid(diattenuation(traced)),
        grid(retardance(traced)),
    )
