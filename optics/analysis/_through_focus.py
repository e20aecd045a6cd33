"""Through-focus MTF, best focus and MTF versus field.

Through focus: the image surface moved along z by each defocus δ (positive
away from the lens), the rays carried on from one trace
(:func:`optics.analysis._pupil_set.pupil_functions`), the OTF of every δ as
:func:`optics.analysis.mtf` computes it — polychromatic when the lens has
several wavelengths — at one spatial frequency, tangential and sagittal per
field.  The pupil sampling is converged over every δ together (MTF 0.01).

Best focus: the δ that maximizes the field-weighted mean of (T + S) / 2 at
that frequency (the lens's field weights), from the sampled curve refined by a
parabola through the best sample and its neighbours.

MTF versus field: the tangential and sagittal MTF at chosen frequencies for
fields from the axis to the edge along y.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import backend as be
from ..errors import ConfigurationError
from ..trace.prepared import takes_system
from ._checks import check_defocus, check_field, check_frequencies, check_sizes, require_focus
from ._converge import MTF_TOLERANCE, converge
from ._mtf_converged import _figures, converged_mtf, mtf_of_pupils
from ._psf_converged import spectrum
from ._psf_core import choose_samples, fast_size, mtf_start
from ._pupil_set import every_other, pupil_functions, trace_pupils

__all__ = ["ThroughFocusResult", "best_focus", "mtf_vs_field", "through_focus_mtf"]

_MM_PER_UM = 1e-3


@dataclass(frozen=True)
class ThroughFocusResult:
    """MTF at one frequency against defocus.

    Attributes
    ----------
    defocus : array, shape (D,)
        Image-surface shifts along z (mm, positive away from the lens).
    fields : tuple of (hx, hy), length F
    frequency : float
        Cycles/mm.
    tangential, sagittal : arrays, shape (D, F)
    best_focus : float
        Defocus (mm) of the highest field-weighted mean (T + S) / 2.
    wavelengths, weights : tuple
    polychromatic : bool
    samples : int
    accuracy : float
        Largest change of any value from half the pupil samples.
    """

    defocus: object
    fields: tuple
    frequency: float
    tangential: object
    sagittal: object
    best_focus: float
    wavelengths: tuple
    weights: tuple
    polychromatic: bool
    samples: int
    accuracy: float

    def as_dict(self) -> dict:
        """{"defocus": [mm], "fields": [{"field", "tangential", "sagittal"}], ...}."""
        t, s = be.to_numpy(self.tangential), be.to_numpy(self.sagittal)
        return {
            "defocus": [float(v) for v in be.to_numpy(self.defocus)],
            "frequency": float(self.frequency),
            "fields": [
                {
                    "field": [float(v) for v in field],
                    "tangential": [float(v) for v in t[:, i]],
                    "sagittal": [float(v) for v in s[:, i]],
                }
                for i, field in enumerate(self.fields)
            ],
            "best_focus": float(self.best_focus),
            "wavelengths": [float(w) for w in self.wavelengths],
            "weights": [float(w) for w in self.weights],
            "polychromatic": bool(self.polychromatic),
            "samples": int(self.samples),
            "accuracy": {"mtf": float(self.accuracy), "tolerance": MTF_TOLERANCE},
        }


def best_focus(defocus, tangential, sagittal, field_weights=None):
    """Defocus (mm) of the highest field-weighted mean (T + S) / 2 (parabolic refinement).

    Parameters
    ----------
    defocus : array, shape (D,)
        Image-plane shifts in mm, evenly spaced.
    tangential, sagittal : arrays, shape (D, F)
        MTF (0 to 1) at each defocus and field; NaN entries do not count.
    field_weights : sequence of F floats, optional
        Weight of each field in the mean (default: all 1).

    Returns
    -------
    float
        The defocus (mm) of the best score, refined by a parabola through it and
        its neighbours (kept within one step); NaN when no score is finite.
    """
    z = np.asarray([float(v) for v in be.to_numpy(be.detach(be.asarray(defocus)))])
    mean = 0.5 * (np.asarray(be.to_numpy(be.detach(tangential))) + be.to_numpy(be.detach(sagittal)))
    w = np.ones(mean.shape[1]) if field_weights is None else np.asarray(field_weights, float)
    ok = np.isfinite(mean)
    score = np.where(ok, mean, 0.0) @ w / np.maximum(ok.astype(float) @ w, 1e-300)
    if not np.isfinite(score).any():
        return math.nan
    k = int(np.nanargmax(score))
    if 0 < k < len(z) - 1:
        a, b, c = score[k - 1], score[k], score[k + 1]
        curvature = a - 2.0 * b + c
        if curvature < 0:
            step = 0.5 * (z[k + 1] - z[k - 1])
            return float(z[k] + step * float(np.clip(0.5 * (a - c) / curvature, -1.0, 1.0)))
    return float(z[k])


def _defocus_samples(traced, pf, defocus):
    """N that keeps the largest defocus's wavefront slope under a quarter wave per sample."""
    sigma = max(
        float(np.nanmax(np.abs(be.to_numpy(be.detach(s))))) for s in (pf.sigma_x, pf.sigma_y)
    )
    n_image = float(np.max(be.to_numpy(be.detach(traced.n_image))))
    shortest = min(traced.wavelengths) * _MM_PER_UM
    slope = max(abs(d) for d in defocus) * sigma * sigma * shortest / n_image  # waves/radius
    return 16 * math.ceil(8.0 * slope / 16.0)


@takes_system
def through_focus_mtf(
    optic,
    frequency,
    defocus,
    *,
    fields=None,
    wavelength=None,
    polychromatic=None,
    samples=None,
    grid=None,
):
    """Tangential and sagittal MTF at one frequency against image-surface defocus.

    Parameters
    ----------
    optic : Optic
    frequency : float
        Cycles/mm.
    defocus : sequence of float
        Image-surface shifts along z in mm (positive away from the lens).
    fields : sequence of (hx, hy), optional
        The optic's fields by default.
    wavelength, polychromatic, samples, grid
        As for :func:`optics.analysis.mtf` (polychromatic by default for a
        lens with several wavelengths; N converged to 0.01 over every defocus).

    Returns
    -------
    ThroughFocusResult
    """
    fields = tuple(
        check_field(f) for f in (optic.fields.normalized() if fields is None else fields)
    )
    (frequency,) = check_frequencies([frequency])
    shifts = check_defocus(defocus)
    check_sizes(samples=samples, grid=grid)
    require_focus(optic, "the through-focus MTF")
    wavelengths, weights, reference, poly = spectrum(optic, wavelength, polychromatic)
    frequencies = be.asarray([frequency])

    def evaluate(n):
        traced = trace_pupils(optic, fields, wavelengths, n)
        size = fast_size(2 * n) if grid is None else max(int(grid), n)
        rows_t, rows_s, half_t, half_s, worst = [], [], [], [], 0.0
        for d in shifts:
            pf = pupil_functions(traced, d)
            worst = max(worst, pf.max_step_waves)
            t, s, _, _ = mtf_of_pupils(pf, weights, reference, frequencies, size)
            rows_t.append(t[:, 0])
            rows_s.append(s[:, 0])
            t, s, _, _ = mtf_of_pupils(every_other(pf), weights, reference, frequencies, size)
            half_t.append(t[:, 0])
            half_s.append(s[:, 0])
        t, s = be.stack(rows_t), be.stack(rows_s)
        coarse = (be.stack(half_t), be.stack(half_s))
        return (t, s, worst, n), _figures((t, s)), _figures(coarse)

    start, top = 0, None
    if samples is None:
        start = max(choose_samples(optic, f, w, warn=False) for f in fields for w in wavelengths)
        probe = trace_pupils(optic, fields, wavelengths, 8)
        start = max(start, _defocus_samples(probe, pupil_functions(probe), shifts))
        start, top = mtf_start(start)  # as the MTF: the convergence test decides
    (t, s, worst, n), accuracy = converge(
        evaluate, start, MTF_TOLERANCE, requested=samples, maximum=top, what="through-focus MTF"
    )
    field_weights = _field_weights(optic, fields)
    return ThroughFocusResult(
        defocus=be.asarray(shifts),
        fields=fields,
        frequency=float(frequency),
        tangential=t,
        sagittal=s,
        best_focus=best_focus(shifts, t, s, field_weights),
        wavelengths=tuple(wavelengths),
        weights=tuple(float(w) for w in weights),
        polychromatic=poly,
        samples=n,
        accuracy=float(accuracy),
    )


def _field_weights(optic, fields):
    """The lens's field weights when ``fields`` are its own fields, else all 1."""
    own = [tuple(float(v) for v in f) for f in optic.fields.normalized()]
    if [tuple(f) for f in fields] == own:
        return optic.fields.weight_values()
    return None


@takes_system
def mtf_vs_field(
    optic, frequencies, *, points=11, wavelength=None, polychromatic=None, samples=None
):
    """Tangential and sagittal MTF at ``frequencies`` for fields (0, y), y from 0 to 1.

    Parameters
    ----------
    optic : Optic
    frequencies : sequence of float
        Cycles/mm.
    points : int
        Field points from the axis to the edge (>= 2).
    wavelength, polychromatic, samples
        As for :func:`optics.analysis.mtf`.

    Returns
    -------
    MTFResult
        ``fields`` the (0, y) points; ``tangential`` and ``sagittal`` (points, K).
    """
    if int(points) < 2:
        raise ConfigurationError(f"MTF versus field needs at least 2 field points, not {points}")
    heights = np.linspace(0.0, 1.0, int(points))
    fields = [(0.0, float(y)) for y in heights]
    return converged_mtf(
        optic, fields, frequencies, wavelength, samples=samples, polychromatic=polychromatic
    )
