"""The Optic: surfaces, stop, aperture, fields and wavelengths (plain data)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import backend as be
from ._notebook import NotebookView
from .errors import ConfigurationError
from .surfaces import Surface

APERTURE_TYPES = ("epd", "image_fno", "object_na", "stop_diameter")
FIELD_TYPES = ("angle", "object_height", "paraxial_image_height", "real_image_height")
#: Field types of a telecentric object space: each names one object point (an axial chief ray).
TELECENTRIC_FIELD_TYPES = ("object_height", "paraxial_image_height", "real_image_height")
AIMING_MODES = ("paraxial", "real")
POLARIZATION_INPUTS = ("unpolarized", "x", "y")


def _weight_values(weights, count) -> list:
    return [1.0] * count if weights is None else [float(be.item(w)) for w in weights]


def _check_weights(weights, count, section):
    """ConfigurationError unless ``weights`` is None or ``count`` non-negative, not all 0."""
    if weights is None:
        return
    values = _weight_values(weights, len(weights))
    if len(values) != count:
        raise ConfigurationError(
            f"[{section}] key 'weights' has {len(values)} entries for {count} {section}"
        )
    if not all(math.isfinite(w) and w >= 0 for w in values) or not sum(values) > 0:
        raise ConfigurationError(
            f"[{section}] key 'weights' must be finite, non-negative and not all 0: {values}"
        )


@dataclass(eq=False)
class Aperture:
    """System aperture: ``type`` one of APERTURE_TYPES and its value (mm or unitless)."""

    type: str = "epd"
    value: object = 10.0


@dataclass(eq=False)
class Fields:
    """Field points: ``type`` one of FIELD_TYPES and (x, y) pairs (degrees or mm)."""

    type: str = "angle"
    values: list = field(default_factory=lambda: [(0.0, 0.0)])
    y_only: bool | None = None  # lens files: write y values (True) or [x, y] pairs
    object_telecentric: bool = False  # chief rays leave the object parallel to the axis
    weights: list | None = None  # relative weight of each field; None: every weight 1
    vignetting: object = None  # optics.fields_vignetting.Vignetting (VDX ... VCY) or None

    def weight_values(self) -> list:
        """One float weight per field point (all 1 when ``weights`` is None)."""
        return _weight_values(self.weights, len(self.values))

    @property
    def max_magnitude(self):
        """Largest radial field magnitude (the normalisation of hx, hy)."""
        return max(math.hypot(be.item(x), be.item(y)) for x, y in self.values)

    def normalized(self) -> list[tuple]:
        """The field points as normalized (hx, hy): each divided by ``max_magnitude``."""
        top = self.max_magnitude
        if top == 0:
            return [(0.0, 0.0) for _ in self.values]
        return [(float(be.item(x)) / top, float(be.item(y)) / top) for x, y in self.values]


@dataclass(eq=False)
class Wavelengths:
    """Wavelengths in micrometres and the 0-based index of the primary one."""

    values: list = field(default_factory=lambda: [0.5875618])
    primary: int = 0
    weights: list | None = None  # relative weight of each wavelength; None: every weight 1

    def weight_values(self) -> list:
        """One float weight per wavelength (all 1 when ``weights`` is None)."""
        return _weight_values(self.weights, len(self.values))

    @property
    def primary_value(self) -> float:
        """The primary wavelength in micrometres."""
        return self.values[self.primary]


@dataclass
class PolarizationSetting:
    """The lens file's ``[polarization]`` table: whether analyses include the transmission.

    ``enabled``: :func:`optics.analysis.relative_illumination` weights its rays by their
    polarization ray-tracing transmittance (docs/polarization.md) unless told otherwise;
    ``input``: the light's state, one of POLARIZATION_INPUTS (x, y: the entrance
    double-pole basis).
    """

    enabled: bool = False
    input: str = "unpolarized"

    def __post_init__(self):
        if not isinstance(self.enabled, bool):
            raise ConfigurationError(
                f"[polarization] key 'enabled' must be true or false, not {self.enabled!r}"
            )
        if self.input not in POLARIZATION_INPUTS:
            raise ConfigurationError(
                f"[polarization] key 'input' must be one of {', '.join(POLARIZATION_INPUTS)}, "
                f"not {self.input!r}"
            )


@dataclass(eq=False)
class Optic(NotebookView):
    """A sequential optical system.

    ``surfaces[0]`` is the object surface (its thickness is the object
    distance, ``inf`` for an object at infinity) and ``surfaces[-1]`` the image
    surface.  The stop is the surface marked ``is_stop`` (surface 1 when none is).
    """

    surfaces: list[Surface]
    aperture: Aperture = field(default_factory=Aperture)
    fields: Fields = field(default_factory=Fields)
    wavelengths: Wavelengths = field(default_factory=Wavelengths)
    name: str = ""
    optimize: dict | None = None  # the lens file's raw [optimize] section
    aiming: str = "paraxial"  # one of AIMING_MODES (see optics.trace.aim)
    tolerance: dict | None = None  # the lens file's raw [tolerance] section
    # optics.thermal.Environment (temperature, pressure, spacer expansion) at which the
    # prescription is given; None: the catalogs' reference conditions (20 °C, 1 atm).
    # Change it with optics.thermal.at_environment, which also sets the media's indices.
    environment: object = None
    # optics.configurations.Configurations (zoom positions, focus distances, temperatures):
    # rows of per-configuration values over this base prescription; None: one configuration.
    configurations: object = None
    # optics.optimize.solves.Solve per solved or picked-up parameter (optics.optimize.apply_solves)
    solves: list = field(default_factory=list)
    # PolarizationSetting (the lens file's [polarization] table) or None: polarization off
    polarization: PolarizationSetting | None = None

    def __post_init__(self):
        self.validate()

    def __repr__(self) -> str:
        """A short multi-line summary: aperture, fields, wavelengths and one line per surface
        (``optics prescription`` prints the full table)."""
        return _summary(self)

    def validate(self):
        """Raise ConfigurationError when the system cannot be traced as given."""
        if len(self.surfaces) < 3:
            raise ConfigurationError(
                "an optic needs an object surface, at least one surface and an image"
            )
        stops = [i for i, s in enumerate(self.surfaces) if s.is_stop]
        if len(stops) > 1:
            raise ConfigurationError(
                f"only one surface can be the stop; surfaces {stops} are marked"
            )
        if stops and stops[0] in (0, len(self.surfaces) - 1):
            raise ConfigurationError("the stop cannot be the object or the image surface")
        if self.aperture.type not in APERTURE_TYPES:
            raise ConfigurationError(
                f"aperture type {self.aperture.type!r} is not one of {APERTURE_TYPES}"
            )
        if self.fields.type not in FIELD_TYPES:
            raise ConfigurationError(f"field type {self.fields.type!r} is not one of {FIELD_TYPES}")
        if not self.fields.values:
            raise ConfigurationError("at least one field point is needed")
        if self.aiming not in AIMING_MODES:
            raise ConfigurationError(
                f"[aiming] key 'mode' must be one of {AIMING_MODES}, not {self.aiming!r}"
            )
        if self.fields.object_telecentric:
            self._validate_telecentric()
        _check_weights(self.fields.weights, len(self.fields.values), "fields")
        _check_weights(self.wavelengths.weights, len(self.wavelengths.values), "wavelengths")
        if not 0 <= self.wavelengths.primary < len(self.wavelengths.values):
            raise ConfigurationError(
                f"primary wavelength index {self.wavelengths.primary} is out of range"
            )

    def _validate_telecentric(self):
        where = "[fields] key 'object_telecentric'"
        if self.object_at_infinity:
            raise ConfigurationError(f"{where} needs an object at a finite distance")
        if self.aperture.type != "object_na":
            raise ConfigurationError(
                f"{where} needs [aperture] type = 'object_na', not {self.aperture.type!r}"
            )
        if self.fields.type not in TELECENTRIC_FIELD_TYPES:
            raise ConfigurationError(
                f"{where} needs [fields] type = 'object_height', 'paraxial_image_height' or "
                f"'real_image_height' (the chief ray leaves the object parallel to the axis), "
                f"not {self.fields.type!r}"
            )
        if self.aiming == "real":
            raise ConfigurationError(
                f"{where} fixes every chief ray parallel to the axis: it cannot be combined "
                "with [aiming] mode = 'real'"
            )

    @property
    def configuration_count(self) -> int:
        """Number of configurations (1 without ``configurations``)."""
        return self.configurations.count if self.configurations is not None else 1

    def configuration(self, number: int) -> Optic:
        """Configuration ``number`` (1-based) as an Optic (see :mod:`optics.configurations`).

        The configurations object builds it (the Optic knows nothing of how);
        without configurations the optic has only configuration 1, itself.
        """
        if self.configurations is not None:
            return self.configurations.build(self, number)
        if isinstance(number, bool) or number != 1:
            raise ConfigurationError(
                f"configuration {number!r} does not exist: the optic has 1 configuration (1 to 1)"
            )
        return self

    @property
    def stop_index(self) -> int:
        """Index of the aperture stop surface."""
        for i, surface in enumerate(self.surfaces):
            if surface.is_stop:
                return i
        return 1

    @property
    def image_index(self) -> int:
        """Index of the image surface (the last one)."""
        return len(self.surfaces) - 1

    @property
    def object_at_infinity(self) -> bool:
        """True when the object distance (surface 0 thickness) is infinite."""
        t = self.surfaces[0].thickness
        return isinstance(t, (int, float)) and math.isinf(t)

    @property
    def primary_wavelength(self) -> float:
        """The primary wavelength in micrometres."""
        return self.wavelengths.primary_value


def _text(value, digits=6):
    if value is None:
        return "-"
    try:
        value = float(be.item(value))
    except (TypeError, ValueError):
        return str(value)
    return "inf" if math.isinf(value) else f"{value:.{digits}g}"


def _summary(optic) -> str:
    unit = "°" if optic.fields.type == "angle" else " mm"
    fields = ", ".join(
        f"{_text(y)}{unit}" if _text(x) == "0" else f"({_text(x)}, {_text(y)}){unit}"
        for x, y in optic.fields.values
    )
    primary = optic.wavelengths.primary
    waves = ", ".join(
        f"{_text(w)}{'*' if k == primary else ''}" for k, w in enumerate(optic.wavelengths.values)
    )
    lines = [
        f"Optic {optic.name!r}: {len(optic.surfaces) - 2} surfaces, stop at surface "
        f"{optic.stop_index}; aperture {optic.aperture.type} {_text(optic.aperture.value)}",
        f"  fields ({optic.fields.type}) {fields}; wavelengths {waves} µm (* primary); "
        f"aiming {optic.aiming}",
        "  surf  type      radius      thickness   glass      semi-diam",
    ]
    last = len(optic.surfaces) - 1
    for k, surface in enumerate(optic.surfaces):
        geometry = surface.geometry
        spec = surface.material.to_spec() if hasattr(surface.material, "to_spec") else "?"
        glass = spec if isinstance(spec, str) else spec.get("name", str(spec))
        if isinstance(spec, dict) and "index" in spec:
            glass = f"n={spec['index']:.6g}"
        elif isinstance(spec, dict) and "nd" in spec:
            glass = f"{spec['nd']:.6g}/{spec['vd']:.4g}"
        thickness = _text(surface.thickness) if k < last else ""
        lines.append(
            f"  {k:<4}{'*' if surface.is_stop else ' '} {geometry.type_name or '?':<9} "
            f"{_text(getattr(geometry, 'radius', math.inf)):<11} {thickness:<11} "
            f"{str(glass):<10} {_text(surface.semi_diameter)}".rstrip()
        )
    return "\n".join(lines)
