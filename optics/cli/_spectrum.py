"""Options shared by the diffraction commands: --polychromatic, and the spectrum in the text."""

from __future__ import annotations

from ._common import UsageError


def add_polychromatic_option(parser):
    """--polychromatic: every wavelength of the lens with its weight (the default when the lens
    has several wavelengths and --wavelength is not given)."""
    parser.add_argument(
        "--polychromatic",
        action="store_true",
        help="sum every wavelength of the lens with its weight (the default for a lens with "
        "several wavelengths; --wavelength W for one wavelength)",
    )


def polychromatic_of(args):
    """None (automatic) or True; UsageError when --polychromatic meets --wavelength."""
    if args.polychromatic and args.wavelength is not None:
        raise UsageError("--polychromatic and --wavelength exclude each other")
    return True if args.polychromatic else None


def spectrum_line(report):
    """'at 0.55 um' or 'polychromatic: 0.48, 0.55, 0.65 um, weights 1, 1, 1'."""
    if not report.get("polychromatic"):
        # A one-wavelength record names it as "wavelength" or as the one entry of "wavelengths".
        wavelength = report.get("wavelength", (report.get("wavelengths") or [None])[0])
        return f"at {wavelength:g} um"
    waves = ", ".join(f"{w:g}" for w in report["wavelengths"])
    weights = ", ".join(f"{w:g}" for w in report["weights"])
    return f"polychromatic: {waves} um, weights {weights}"
