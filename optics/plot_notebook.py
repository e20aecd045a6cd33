"""The notebook views of the optic, its configurations and the results of the analyses.

Each function turns one object into an :class:`optics._notebook.View` (title, labelled
values, tables, a lazily made figure) and is registered by the qualified name of the
class it shows; :class:`optics._notebook.NotebookView` (mixed into those classes) calls
it for ``_repr_html_`` and ``__repr__``.  ``import optics`` imports this module, which
imports nothing heavy at load time: the analyses and matplotlib are imported when a view
is first drawn.
"""

from __future__ import annotations

import numpy as np

from . import backend as be
from ._notebook import Table, View, register

_MAX_ROWS = 40  # longer tables (Monte Carlo trials, many variables) show their first rows


def _float(value) -> float:
    return float(be.item(value))


def _array(value) -> np.ndarray:
    return np.asarray(be.to_numpy(value), dtype=float)


def _pyplot():
    from .plot import pyplot

    return pyplot()


@register("optics.system.Optic")
def optic_view(optic) -> View:
    """Prescription table, first-order summary and the y–z layout of an Optic."""
    from ._paraxial import paraxial
    from .analysis import prescription

    lines = []
    try:
        first = paraxial(optic).as_floats()
        lines = [
            ("EFL (mm)", first["efl"]),
            ("BFL (mm)", first["bfl"]),
            ("F/#", first["fno"]),
            ("EPD (mm)", first["epd"]),
            ("paraxial image height (mm)", first["image_height"]),
            ("total track (mm)", first["total_track"]),
        ]
    except Exception as error:  # noqa: BLE001 - a view shows the prescription even so
        lines = [("first-order data", f"unavailable: {error}")]
    spec = prescription(optic)
    rows = [
        [
            f"{s['surface']}{' (stop)' if s['stop'] else ''}",
            s["type"],
            s["radius"],
            s["thickness"] if s["surface"] < len(spec["surfaces"]) - 1 else None,
            s["glass"],
            s["conic"],
            s["semi_diameter"],
        ]
        for s in spec["surfaces"]
    ]
    table = Table(
        ["surface", "type", "radius (mm)", "thickness (mm)", "glass", "conic", "semi-diam (mm)"],
        rows,
        "prescription",
    )
    waves = ", ".join(f"{w:g}" for w in optic.wavelengths.values)
    lines += [
        ("aperture", f"{optic.aperture.type} {optic.aperture.value:g}"),
        ("wavelengths (µm)", f"{waves} (primary {optic.primary_wavelength:g})"),
        ("configurations", optic.configuration_count),
    ]

    tables = [table]
    if optic.configurations is not None:  # a zoom lens: its configurations below
        tables += configurations_view(optic.configurations).tables

    def figure():
        from .plot import plot_layout

        return plot_layout(optic).figure

    return View(f"Optic {optic.name!r}", lines, tables, figure)


@register("optics.configurations.Configurations")
def configurations_view(configurations) -> View:
    """One row per configured key, one column per configuration."""
    names = configurations.names or [str(k + 1) for k in range(configurations.count)]
    rows = [[row.key, *row.values] for row in configurations.rows]
    return View(
        f"Configurations: {configurations.count}",
        [],
        [Table(["key", *names], rows, "value per configuration")],
    )


@register("optics.analysis.spot.SpotResult")
def spot_view(result) -> View:
    """Spot statistics and circles of the RMS and geometric radii around the centroid."""
    lines = [
        ("field (hx, hy)", f"({result.field[0]:g}, {result.field[1]:g})"),
        ("wavelength (µm)", result.wavelength),
        ("RMS radius to chief ray (mm)", _float(result.rms_radius_chief)),
        ("RMS radius to centroid (mm)", _float(result.rms_radius_centroid)),
        ("geometric radius (mm)", _float(result.geo_radius)),
        ("rays (invalid)", f"{result.n_rays} ({result.n_invalid})"),
    ]
    cx, cy = (_float(c) for c in result.centroid)

    def figure():
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(3.6, 3.4))
        for radius, style, label in (
            (_float(result.rms_radius_centroid), "-", "RMS"),
            (_float(result.geo_radius), "--", "geometric"),
        ):
            ax.add_patch(plt.Circle((cx, cy), radius, fill=False, ls=style, label=label))
        top = max(_float(result.geo_radius), 1e-9) * 1.2
        ax.set_xlim(cx - top, cx + top)
        ax.set_ylim(cy - top, cy + top)
        ax.set_aspect("equal")
        ax.set_xlabel("x (mm)")
        ax.set_ylabel("y (mm)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig

    return View("Spot", lines, [], figure)


@register("optics.analysis.spot.SpotDiagram")
def spot_diagram_view(results) -> View:
    """One row per (field, wavelength) and the RMS radius against the field per wavelength."""
    rows = [
        [
            f"({r.field[0]:g}, {r.field[1]:g})",
            r.wavelength,
            _float(r.rms_radius_chief),
            _float(r.rms_radius_centroid),
            _float(r.geo_radius),
            f"{r.n_rays} ({r.n_invalid})",
        ]
        for r in results[:_MAX_ROWS]
    ]
    header = [
        "field (hx, hy)",
        "wavelength (µm)",
        "RMS to chief (mm)",
        "RMS to centroid (mm)",
        "geometric (mm)",
        "rays (invalid)",
    ]
    lines = [("pairs (field, wavelength)", len(results))]
    if len(results) > _MAX_ROWS:
        lines.append(("shown", f"the first {_MAX_ROWS}"))

    def figure():
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(4.2, 3.0))
        wavelengths = sorted({r.wavelength for r in results})
        for wavelength in wavelengths:
            spots = [r for r in results if r.wavelength == wavelength]
            heights = [float(np.hypot(*r.field)) for r in spots]
            ax.plot(
                heights,
                [_float(r.rms_radius_chief) * 1e3 for r in spots],
                "o-",
                label=f"{wavelength:g} µm",
            )
        ax.set_xlabel("normalized field")
        ax.set_ylabel("RMS radius to chief ray (µm)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig

    return View("Spot diagram", lines, [Table(header, rows)], figure)


@register("optics.analysis._wavefront.WavefrontResult")
def wavefront_view(result) -> View:
    """RMS / P-V in waves, the first Zernike coefficients and the OPD map."""
    lines = [
        ("field (hx, hy)", f"({result.field[0]:g}, {result.field[1]:g})"),
        ("wavelength (µm)", result.wavelength),
        ("RMS to chief (waves)", _float(result.rms)),
        ("RMS to centroid (waves)", _float(result.rms_to_centroid)),
        ("P-V (waves)", _float(result.pv)),
    ]
    coefficients = _array(result.zernike.coefficients)[:9]
    table = Table(
        ["term", "coefficient (waves)"],
        [[k + 1, c] for k, c in enumerate(coefficients)],
        f"Zernike ({result.zernike.ordering}), first {len(coefficients)}",
    )

    def figure():
        from .plot_wavefront import opd_map_figure

        return opd_map_figure([result])

    return View("Wavefront", lines, [table], figure)


@register("optics.analysis._mtf_core.MTFResult")
def mtf_view(result) -> View:
    """Tangential and sagittal MTF per field at a few frequencies, and the MTF curves."""
    frequencies = _array(result.frequencies)
    picks = sorted(set(np.linspace(0, len(frequencies) - 1, min(6, len(frequencies))).astype(int)))
    tangential, sagittal = _array(result.tangential), _array(result.sagittal)
    rows = []
    for i, field in enumerate(result.fields):
        rows.append([f"({field[0]:g}, {field[1]:g}) T", *tangential[i, picks]])
        rows.append([f"({field[0]:g}, {field[1]:g}) S", *sagittal[i, picks]])
    header = ["field", *(f"{frequencies[k]:g}/mm" for k in picks)]
    lines = [("reference wavelength (µm)", result.wavelength), ("fields", len(result.fields))]

    def figure():
        from .plot_wavefront import mtf_figure

        return mtf_figure(result)

    return View("MTF", lines, [Table(header, rows, "modulation")], figure)


@register("optics.analysis._psf_core.PSFResult")
def psf_view(result) -> View:
    """Strehl ratio, sampling and the PSF image."""
    lines = [
        ("field (hx, hy)", f"({result.field[0]:g}, {result.field[1]:g})"),
        ("wavelength (µm)", result.wavelength),
        ("Strehl ratio", _float(result.strehl)),
        ("pupil samples N", result.samples),
        ("image grid M", result.grid),
        ("pixel (µm)", 1000.0 * _float(result.dx)),
    ]

    def figure():
        from .plot_wavefront import psf_figure

        return psf_figure(result)

    return View("PSF", lines, [], figure)


@register("optics.analysis._seidel.SeidelResult")
def seidel_view(result) -> View:
    """The Seidel sums per surface (mm) and a bar chart of the totals."""
    from .analysis._seidel import SEIDEL_TERMS

    rows = [[r["surface"], *(_float(r[t]) for t in SEIDEL_TERMS)] for r in result.surfaces]
    rows.append(["sum", *(_float(result.sums[t]) for t in SEIDEL_TERMS)])
    lines = [("wavelength (µm)", result.wavelength)]

    def figure():
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(5, 3))
        ax.bar(SEIDEL_TERMS, [_float(result.sums[t]) for t in SEIDEL_TERMS])
        ax.axhline(0.0, color="k", linewidth=0.5)
        ax.set_ylabel("sum (mm)")
        fig.tight_layout()
        return fig

    return View("Seidel sums (mm)", lines, [Table(["surface", *SEIDEL_TERMS], rows)], figure)


@register("optics.analysis._distortion.DistortionResult")
def distortion_view(result) -> View:
    """Distortion (percent) per field and wavelength, and its curve against field."""
    percent = _array(result.percent)
    header = ["field", *(f"{w:g} µm" for w in result.wavelengths)]
    rows = [[f, *percent[:, j]] for j, f in enumerate(result.fields)]
    lines = [("reference", result.reference)]

    def figure():
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(4.5, 3.6))
        for k, w in enumerate(result.wavelengths):
            ax.plot(percent[k], result.fields, label=f"{w:g} µm")
        ax.set_xlabel("distortion (%)")
        ax.set_ylabel("field (normalized)")
        ax.legend(fontsize=7)
        fig.tight_layout()
        return fig

    return View("Distortion (%)", lines, [Table(header, rows)], figure)


@register("optics.tolerance._sensitivity.Sensitivity")
def sensitivity_view(result) -> View:
    """The sensitivity rows (largest first) and bars of each item's worst increase."""
    rows = [[r["item"], r["minus"], r["plus"], r["derivative"], r["worst"]] for r in result.rows]
    lines = [
        ("criterion", result.criterion),
        ("nominal", result.nominal),
        ("RSS increase", result.rss),
        ("estimate (nominal + RSS)", result.estimate),
    ]
    header = ["item", "minus", "plus", "derivative", "worst"]

    def figure():
        plt = _pyplot()
        shown = result.rows[:_MAX_ROWS][::-1]
        fig, ax = plt.subplots(figsize=(5, 0.3 * len(shown) + 1.2))
        ax.barh([r["item"] for r in shown], [r["worst"] for r in shown])
        ax.set_xlabel(f"worst increase of {result.criterion}")
        fig.tight_layout()
        return fig

    return View("Tolerance sensitivity", lines, [Table(header, rows[:_MAX_ROWS])], figure)


@register("optics.tolerance._montecarlo.MonteCarlo")
def monte_carlo_view(result) -> View:
    """The statistics of the trials and their histogram."""
    stats = result.statistics()
    lines = [("trials", result.trials), ("failed", result.failed), ("seed", result.seed)]
    lines += [(key, value) for key, value in stats.items()]

    def figure():
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(4.5, 3))
        finite = result.values[np.isfinite(result.values)]
        ax.hist(finite, bins=max(5, min(40, finite.size // 4 or 1)))
        if result.threshold is not None:
            ax.axvline(result.threshold, color="k", ls="--", label="threshold")
            ax.legend(fontsize=7)
        ax.set_xlabel("criterion")
        ax.set_ylabel("trials")
        fig.tight_layout()
        return fig

    return View("Monte Carlo", lines, [], figure)


@register("optics.optimize.history.OptimizationResult")
def optimization_view(result) -> View:
    """Merit before and after, the variables before and after, and the merit per step."""
    lines = [
        ("driver", result.driver),
        ("merit before", result.merit_before),
        ("merit after", result.merit_after),
        ("steps", result.steps),
        ("stopped", result.message),
    ]
    before, after = np.asarray(result.values_before), np.asarray(result.values_after)
    rows = [[p, b, a] for p, b, a in zip(result.paths, before, after)][:_MAX_ROWS]

    def figure():
        plt = _pyplot()
        fig, ax = plt.subplots(figsize=(4.5, 3))
        merits = result.history.merits
        ax.semilogy(result.history.steps, np.where(merits > 0, merits, np.nan), "o-", ms=3)
        ax.set_xlabel("step")
        ax.set_ylabel("merit")
        fig.tight_layout()
        return fig

    return View("Optimization", lines, [Table(["variable", "before", "after"], rows)], figure)
