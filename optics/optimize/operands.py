"""Merit operands: plain functions of a traced system, one value each.

An operand function takes the :class:`MeritContext` of one merit evaluation
and its own keyword arguments (the lens-file keys of the operand), and
returns a 0-d array that keeps gradients.  The context shares the paraxial
data, the object-space field solve and the traced ray bundles between the
operands, so a merit of many operands still traces each bundle once.

Adding an operand is writing one function and one :data:`OPERANDS` entry
(name -> function, its keyword arguments and their defaults).  Field and
wavelength arguments are 0-based indices into the optic's lists; (hx, hy)
and (px, py) are normalized field and pupil coordinates.  Lengths in mm.
"""

from __future__ import annotations

from .. import backend as be
from ..analysis.spot import MIN_SPOT_RAYS, in_image_frame, spot_statistics
from ..errors import ConfigurationError, SolveError
from ..trace import prepare, trace_bundle
from ..trace.object_field import unit_field_image_height
from ..trace.real_image_height import field_parameters
from .operands_analyses import ANALYSIS_OPERANDS
from .operands_optical import OPTICAL_OPERANDS
from .operands_wavefront import WAVEFRONT_OPERANDS


class MeritContext:
    """Values shared by the operands of one merit evaluation (computed on first use).

    Parameters
    ----------
    optic : Optic
        The system with the current variable values set on it.
    method : TraceMethod or str, optional
        How the ray bundles are traced (:mod:`optics.trace.methods`).
    """

    def __init__(self, optic, *, method=None):
        self.optic = optic
        self.system = prepare(optic)  # frames, media, first-order data: once per evaluation
        self.method = method
        self._bundles = {}

    @property
    def first_order(self):
        """First-order data at the primary wavelength (computed once, shared by the bundles)."""
        return self.system.first_order

    def wavelength(self, index):
        """Wavelength (µm) number ``index`` (None: the primary)."""
        values = self.optic.wavelengths.values
        if index is None:
            return self.optic.primary_wavelength
        return values[_check_index(index, len(values), "wavelength")]

    def field(self, index):
        """Normalized (hx, hy) of field number ``index``."""
        fields = self.optic.fields.normalized()
        return fields[_check_index(index, len(fields), "field")]

    def bundle(self, fields, wavelengths, rings, pupil=None):
        """The :class:`~optics.trace.Bundle` of (wavelengths, fields, pupil), traced once.

        Parameters
        ----------
        fields : tuple of (hx, hy)
        wavelengths : tuple of float
            Micrometres.
        rings : int
            Hexapolar rings (P = 1 + 3 rings (rings + 1), sample 0 the centre)
            when ``pupil`` is None.
        pupil : tuple of (px, py) floats, optional
            Explicit pupil points instead.
        """
        key = (fields, wavelengths, rings, pupil)
        if key not in self._bundles:
            samples = None
            if pupil is not None:
                samples = (be.asarray([p[0] for p in pupil]), be.asarray([p[1] for p in pupil]))
            self._bundles[key] = trace_bundle(
                self.system,
                fields,
                wavelengths,
                rings if samples is None else samples,
                method=self.method,
            )
        return self._bundles[key]

    def chief(self, fields, operand):
        """Primary-wavelength chief rays of ``fields``, shape (F,); SolveError if one fails."""
        bundle = self.bundle(tuple(fields), (self.wavelength(None),), 0)
        _require_valid(bundle.chief.valid[0], bundle.fields, operand, "chief ray")
        return _take(bundle.chief, 0)

    def ray(self, hx, hy, px, py, wavelength, operand):
        """One real ray (0-d components); SolveError naming the ray when it fails."""
        bundle = self.bundle(((hx, hy),), (wavelength,), 0, ((px, py),))
        rays = bundle.rays
        what = f"ray (px, py) = ({px}, {py}) at {wavelength} µm"
        _require_valid(rays.valid[0, :, 0], bundle.fields, operand, what)
        return _take(_take(_take(rays, 0), 0), 0)


def _take(rays, index):
    """Rays indexed along their first axis."""
    return rays.map(lambda component: component[index])


def _require_valid(valid, fields, operand, what):
    """Raise SolveError naming the first field whose ``what`` failed (one host sync)."""
    ok = be.to_numpy(valid)
    if ok.all():
        return
    hx, hy = fields[int((~ok).nonzero()[0][0])]
    raise SolveError(
        f"operand {operand}: the {what} of the field (hx, hy) = ({hx:g}, {hy:g}) fails "
        "(misses a surface, is totally internally reflected or leaves a Newton surface's "
        "domain), so the operand has no value"
    )


def _check_index(index, count, what):
    if isinstance(index, bool) or not isinstance(index, int) or not -count <= index < count:
        raise ConfigurationError(f"{what} index {index!r} is out of range (the optic has {count})")
    return index


# --- first-order operands -----------------------------------------------------------


def efl(ctx):
    """Effective focal length (mm)."""
    return ctx.first_order.efl


def bfl(ctx):
    """Back focal length: last lens vertex to the paraxial focus (mm)."""
    return ctx.first_order.bfl


def fno(ctx):
    """Image-space F-number."""
    return ctx.first_order.fno


def total_track(ctx):
    """Surface 1 to the image surface (mm)."""
    return ctx.first_order.total_track


# --- real-ray operands ----------------------------------------------------------------


def rms_spot(
    ctx,
    fields=None,
    wavelengths=None,
    field_weights=None,
    wavelength_weights=None,
    rings=6,
    reference="centroid",
):
    """Weighted RMS spot radius (mm) over chosen fields and wavelengths.

    The value is sqrt(Σ w_fw ρ_fw² / Σ w_fw), ρ_fw the RMS radius of field f
    at wavelength w (hexapolar, ``rings`` rings) about the centroid of those
    rays or, with ``reference = "chief"``, about the primary-wavelength chief
    ray, and w_fw = field_weights[f] · wavelength_weights[w].  It is NaN (no
    value: the optimizer keeps its best finite point, a tolerance trial
    fails) when a field keeps fewer than ``MIN_SPOT_RAYS`` valid rays at a
    wavelength, so that vignetting the beam never reads as a perfect spot.

    Parameters
    ----------
    fields, wavelengths : list of int, optional
        Indices into the optic's fields and wavelengths (default: all).
    field_weights, wavelength_weights : list of float, optional
        Relative weights, one per chosen field / wavelength (default: the optic's
        ``fields.weights`` / ``wavelengths.weights``, all 1 unless the lens file sets them).
    rings : int
    reference : {"centroid", "chief"}
    """
    field_ids = range(len(ctx.optic.fields.values)) if fields is None else fields
    wave_ids = range(len(ctx.optic.wavelengths.values)) if wavelengths is None else wavelengths
    points = tuple(ctx.field(i) for i in field_ids)
    waves = tuple(ctx.wavelength(i) for i in wave_ids)
    if field_weights is None:  # the optic's own weights ([fields] / [wavelengths] weights)
        field_weights = [ctx.optic.fields.weight_values()[i] for i in field_ids]
    if wavelength_weights is None:
        wavelength_weights = [ctx.optic.wavelengths.weight_values()[i] for i in wave_ids]
    weights = _outer_weights(field_weights, len(points), wavelength_weights, len(waves))
    rays = in_image_frame(ctx.optic, ctx.bundle(points, waves, rings).rays)  # shape (W, F, N)
    if reference == "chief":
        chief = in_image_frame(ctx.optic, ctx.chief(points, "rms_spot"))  # shape (F,)
        ref_x, ref_y = chief.x[None, :, None], chief.y[None, :, None]
    elif reference == "centroid":
        ref_x = ref_y = 0.0  # unused: the centroid statistic is taken
    else:
        raise ConfigurationError(
            f"rms_spot reference must be 'centroid' or 'chief', not {reference!r}"
        )
    stats = spot_statistics(rays, ref_x, ref_y, axis=-1, min_rays=MIN_SPOT_RAYS)
    radius = stats["rms_radius_chief" if reference == "chief" else "rms_radius_centroid"]
    total = sum(sum(row) for row in weights)
    return be.sqrt(be.sum(be.asarray(weights) * radius * radius) / total)


def _outer_weights(field_weights, n_fields, wavelength_weights, n_waves):
    """w[w][f] = wavelength_weights[w] · field_weights[f] as nested lists."""
    fw = [1.0] * n_fields if field_weights is None else [float(w) for w in field_weights]
    ww = [1.0] * n_waves if wavelength_weights is None else [float(w) for w in wavelength_weights]
    if len(fw) != n_fields or len(ww) != n_waves:
        raise ConfigurationError(
            f"rms_spot: {len(fw)} field weights for {n_fields} fields and {len(ww)} wavelength "
            f"weights for {n_waves} wavelengths; give one weight per chosen entry"
        )
    if any(w < 0 for w in fw + ww) or not sum(fw) * sum(ww) > 0:
        raise ConfigurationError("rms_spot: weights must be non-negative and not all zero")
    return [[a * b for b in fw] for a in ww]


def real_x(ctx, hx=0.0, hy=0.0, px=0.0, py=0.0, wavelength=None):
    """Image-surface x (mm) of the real ray (hx, hy, px, py)."""
    return ctx.ray(hx, hy, px, py, ctx.wavelength(wavelength), "real_x").x


def real_y(ctx, hx=0.0, hy=0.0, px=0.0, py=0.0, wavelength=None):
    """Image-surface y (mm) of the real ray (hx, hy, px, py)."""
    return ctx.ray(hx, hy, px, py, ctx.wavelength(wavelength), "real_y").y


def chief_height(ctx, hx=0.0, hy=1.0, wavelength=None):
    """Image height (mm) of the chief ray of (hx, hy): its intercept along the field direction."""
    rays = ctx.ray(hx, hy, 0.0, 0.0, ctx.wavelength(wavelength), "chief_height")
    return _along_field(rays.x, rays.y, hx, hy)


def distortion(ctx, hx=0.0, hy=1.0):
    """Distortion (percent) at field (hx, hy): 100 (h_real − h_paraxial) / h_paraxial.

    h_real is the primary-wavelength chief-ray height along the field
    direction; h_paraxial the paraxial image height of the same object-space
    field (linear in the field parameter q).
    """
    if hx == 0 and hy == 0:
        raise ConfigurationError(
            "distortion is undefined on axis: give a field with hx or hy nonzero"
        )
    real = chief_height(ctx, hx, hy)
    qx, qy = field_parameters(ctx.system, be.asarray(hx), be.asarray(hy))
    per_q = unit_field_image_height(ctx.optic, ctx.first_order)
    ideal = _along_field(qx * per_q, qy * per_q, hx, hy)
    return 100.0 * (real - ideal) / ideal


def _along_field(x, y, hx, hy):
    norm = (hx * hx + hy * hy) ** 0.5
    return (x * hx + y * hy) / norm if norm > 0 else y


# --- element thickness operands ---------------------------------------------------------


def center_thickness(ctx, surface):
    """Axial thickness (mm) after surface number ``surface``."""
    return be.asarray(_surface(ctx, surface).thickness) + 0.0


def edge_thickness(ctx, surface, height=None):
    """Thickness (mm) between surfaces ``surface`` and ``surface + 1`` at radial ``height``.

    t + sag₂(h) − sag₁(h) along y; ``height`` defaults to the larger of the
    two semi-diameters.
    """
    front, back = _surface(ctx, surface), _surface(ctx, surface + 1)
    if height is None:
        sizes = [s.semi_diameter for s in (front, back) if s.semi_diameter is not None]
        if not sizes:
            raise ConfigurationError(
                f"edge_thickness of surface {surface}: neither surface {surface} nor "
                f"{surface + 1} has a semi_diameter; give the key 'height' (mm)"
            )
        height = max(float(be.item(s)) for s in sizes)
    zero, h = be.asarray(0.0), be.asarray(float(height))
    return front.thickness + back.geometry.sag(zero, h) - front.geometry.sag(zero, h)


def _surface(ctx, index):
    surfaces = ctx.optic.surfaces
    if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index < len(surfaces) - 1:
        raise ConfigurationError(
            f"surface index {index!r} must be a lens surface, 1 to {len(surfaces) - 2}"
        )
    return surfaces[index]


#: Operand name -> function.  The function's keyword arguments are the
#: operand's lens-file keys (besides type, target, weight and kind).
OPERANDS = {
    "efl": efl,
    "bfl": bfl,
    "fno": fno,
    "total_track": total_track,
    "rms_spot": rms_spot,
    "real_x": real_x,
    "real_y": real_y,
    "chief_height": chief_height,
    "distortion": distortion,
    "center_thickness": center_thickness,
    "edge_thickness": edge_thickness,
    **WAVEFRONT_OPERANDS,  # rms_wavefront, strehl, mtf
    **ANALYSIS_OPERANDS,  # seidel, field_curvature, distortion_percent, focal_shift
    **OPTICAL_OPERANDS,  # axial_color, lateral_color, ray angles, magnification, image_height ...
}
