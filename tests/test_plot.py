"""Figures: closed elements, the stop, colour meanings, object space, vignetting notes, units."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from matplotlib.colors import to_rgb  # noqa: E402

from optics import samples  # noqa: E402
from optics.io import load  # noqa: E402
from optics.plot import (  # noqa: E402
    FIELD_COLORS,
    layout_and_spots_figure,
    plot_layout,
    plot_spots,
    wavelength_color,
)

COOKE = samples.path("cooke_triplet").read_text()


@pytest.fixture
def plt():
    import matplotlib.pyplot as pyplot

    yield pyplot
    pyplot.close("all")


def _lens(tmp_path, text, name="lens.toml"):
    path = tmp_path / name
    path.write_text(text)
    return load(path)


def test_layout_closes_every_element_and_marks_the_stop(plt):
    optic = load("cooke_triplet")
    ax = plot_layout(optic)
    elements = [p for p in ax.patches if p.get_facecolor()[3] > 0]
    assert len(elements) == 3  # three singlets, each a filled closed outline
    outlines = [line for line in ax.lines if line.get_color() == "black" and line.get_lw() == 1.0]
    closed = [o for o in outlines if np.allclose(o.get_xydata()[0], o.get_xydata()[-1])]
    assert len(closed) >= 3
    for outline in closed:  # an element is as thick at its edge as its two surfaces are apart
        z = outline.get_xydata()[:, 0]
        assert z.max() - z.min() > 0.5
    assert [t.get_text() for t in ax.texts] == ["stop"]
    assert ax.get_xlabel() == "z (mm)" and ax.get_ylabel() == "y (mm)"


def test_a_cemented_doublet_is_two_closed_elements(plt):
    ax = plot_layout(load("achromat"))
    assert len([p for p in ax.patches if p.get_facecolor()[3] > 0]) == 2


def test_layout_colours_fields_and_spots_colour_wavelengths(plt):
    optic = load("cooke_triplet")
    fig = layout_and_spots_figure(optic, rings=2)
    layout, *spots = fig.axes
    legend = layout.get_legend()
    assert legend.get_title().get_text() == "field"
    assert [t.get_text() for t in legend.get_texts()] == ["0°", "14°", "20°"]
    field_colors = {to_rgb(h.get_color()) for h in legend.legend_handles}
    assert field_colors == {to_rgb(c) for c in FIELD_COLORS[:3]}
    spot_legend = spots[-1].get_legend()
    assert spot_legend.get_title().get_text() == "wavelength"
    assert [t.get_text() for t in spot_legend.get_texts()] == ["0.48 µm", "0.55 µm", "0.65 µm"]
    wavelength_colors = {to_rgb(h.get_color()) for h in spot_legend.legend_handles}
    assert wavelength_colors == {wavelength_color(w) for w in (0.48, 0.55, 0.65)}
    assert not wavelength_colors & field_colors  # one colour, one meaning
    for ax in spots:
        assert ax.get_xlabel() == "x (µm)" and ax.get_ylabel() == "y (µm)"
    assert [ax.get_title() for ax in spots] == ["field 0°", "field 14°", "field 20°"]


def test_spectral_colours_run_blue_to_red():
    blue, green, red = (wavelength_color(w) for w in (0.45, 0.53, 0.68))
    assert np.argmax(blue) == 2 and np.argmax(green) == 1 and np.argmax(red) == 0
    assert wavelength_color(0.2) == wavelength_color(0.38)  # clamped at the ends


def test_a_finite_object_is_drawn_with_its_rays(plt, tmp_path):
    text = samples.path("singlet").read_text().replace("thickness = inf", "thickness = 150.0", 1)
    text = text.replace('type = "angle"', 'type = "object_height"')
    optic = _lens(tmp_path, text)
    ax = plot_layout(optic)
    assert "object" in [t.get_text() for t in ax.texts]
    starts = [line.get_xdata()[0] for line in ax.lines if line.get_color() in FIELD_COLORS]
    assert starts and np.allclose(starts, -150.0)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["0 mm", "3.5 mm", "5 mm"]


def test_an_object_at_infinity_gets_incoming_parallel_rays(plt):
    ax = plot_layout(load("singlet"))
    axial = [line for line in ax.lines if line.get_color() == FIELD_COLORS[0]]
    assert all(line.get_xdata()[0] < 0 for line in axial)  # drawn before surface 1 (z = 0)
    slopes = {round(float(np.diff(line.get_ydata()[:2])[0]), 12) for line in axial}
    assert slopes == {0.0}


def test_a_fully_vignetted_field_gets_a_note(plt, tmp_path):
    optic = _lens(tmp_path, COOKE.rstrip() + "\nsemi_diameter = 15.0\n")  # 20° images at 18 mm
    axes = plot_spots(optic, rings=2)
    assert [t.get_text() for t in axes[2].texts] == ["every ray vignetted"]
    assert all(not ax.texts for ax in axes[:2])
    layout = plot_layout(optic)
    labels = [t.get_text() for t in layout.get_legend().get_texts()]
    assert labels == ["0°", "14°", "20° (vignetted)"]


def test_a_perfect_spot_is_drawn_at_a_readable_scale(plt, tmp_path):
    parabola = (
        '[aperture]\ntype = "epd"\nvalue = 20.0\n\n[fields]\ntype = "angle"\nvalues = [0.0]\n\n'
        "[[surfaces]]\nthickness = inf\n\n"
        '[[surfaces]]\nradius = -200.0\nconic = -1.0\nthickness = -100.0\nmaterial = "mirror"\n\n'
        "[[surfaces]]\n"
    )
    (ax,) = plot_spots(_lens(tmp_path, parabola), rings=3)
    assert _largest(ax) < 1e-6  # a paraboloid images an axial point perfectly (µm)
    low, high = ax.get_xlim()
    assert low <= -1.0 and high >= 1.0  # ±1 µm at least, not ±1e-10 µm of rounding noise


def _largest(ax):
    return max(float(np.abs(line.get_xydata()).max()) for line in ax.lines)
