"""Notebook views: the HTML is well-formed, holds the numbers of the object, and has a figure."""

from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import optics
from optics import analysis
from optics._notebook import NotebookView, cell
from optics.configurations import ConfigurationRow, Configurations
from optics.optimize.history import History, OptimizationResult, StepRecord
from optics.tolerance._montecarlo import MonteCarlo
from optics.tolerance._sensitivity import Sensitivity

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def cooke():
    return optics.load("cooke_triplet")


def parsed(obj):
    """The object's HTML parsed as XML (fails on anything not well-formed)."""
    return ET.fromstring(obj._repr_html_())


def cells(root) -> list[str]:
    return [c.text or "" for c in root.iter() if c.tag in ("td", "th")]


def has_figure(root) -> bool:
    return any(e.tag.endswith("svg") for e in root.iter())


def test_optic_html_holds_the_first_order_data_and_the_prescription(cooke):
    root = parsed(cooke)
    texts = cells(root)
    first = optics.paraxial(cooke).as_floats()
    for key in ("efl", "bfl", "fno"):
        assert cell(first[key]) in texts
    for surface in cooke.surfaces[1:-1]:
        assert cell(float(surface.geometry.radius)) in texts
        assert cell(float(surface.thickness)) in texts
    assert "SK16" in texts and "F2" in texts
    assert has_figure(root)


def test_optic_repr_stays_the_prescription_summary(cooke):
    text = repr(cooke)
    assert text.startswith("Optic 'Cooke triplet'")
    assert "22.0136" in text and "<" not in text


def test_spot_result_html_and_repr_hold_its_radii(cooke):
    result = analysis.spot_diagram(cooke, fields=[(0.0, 1.0)], wavelengths=[0.55], pupil=4)[0]
    rms = cell(float(result.rms_radius_centroid))
    geo = cell(float(result.geo_radius))
    root = parsed(result)
    assert rms in cells(root) and geo in cells(root)
    assert rms in repr(result) and geo in repr(result)
    assert has_figure(root)


def test_spot_diagram_html_holds_one_row_per_field_and_wavelength(cooke):
    fields, wavelengths = [(0.0, 0.0), (0.0, 1.0)], [0.486, 0.656]
    results = analysis.spot_diagram(cooke, fields=fields, wavelengths=wavelengths, pupil=4)
    assert isinstance(results, list) and len(results) == 4  # still a plain, field-major list
    assert results[1].field == (0.0, 0.0) and results[1].wavelength == 0.656
    root = parsed(results)
    texts = cells(root)
    for result in results:
        assert cell(float(result.rms_radius_chief)) in texts
        assert cell(float(result.geo_radius)) in texts
    assert has_figure(root)
    text = repr(results)
    assert text.startswith("Spot diagram") and cell(float(results[3].geo_radius)) in text


def test_seidel_table_holds_every_surface_and_the_sums(cooke):
    result = analysis.seidel(cooke)
    texts = cells(parsed(result))
    for term in ("S1", "S4", "CT"):
        assert cell(float(result.sums[term])) in texts
        assert cell(float(result.surfaces[0][term])) in texts
    # the sum row is the column total of the surface rows
    column = [float(r["S1"]) for r in result.surfaces]
    assert np.isclose(sum(column), float(result.sums["S1"]), rtol=1e-12, atol=1e-15)


def test_mtf_table_holds_the_curves_at_the_listed_frequencies(cooke):
    result = analysis.mtf(cooke, fields=[(0.0, 0.0)], frequencies=[0.0, 20.0, 40.0])
    root = parsed(result)
    texts = cells(root)
    tangential = np.asarray(optics.backend.to_numpy(result.tangential))
    assert "20/mm" in texts
    for value in tangential[0]:
        assert cell(float(value)) in texts
    assert cell(1.0) in texts  # the MTF at zero frequency is 1
    assert has_figure(root)


def test_distortion_and_wavefront_views_hold_their_numbers(cooke):
    result = analysis.distortion(cooke, fields=[0.0, 0.5, 1.0])
    percent = np.asarray(optics.backend.to_numpy(result.percent))
    texts = cells(parsed(result))
    assert cell(float(percent[0, -1])) in texts
    front = analysis.wavefront(cooke, (0.0, 1.0), rings=6, terms=9)
    root = parsed(front)
    assert cell(float(front.rms)) in cells(root)
    assert cell(float(front.pv)) in repr(front)
    assert has_figure(root)


def test_psf_view_holds_the_strehl_ratio_and_an_image(cooke):
    result = analysis.psf(cooke, (0.0, 0.0), samples=32, grid=64)
    root = parsed(result)
    assert cell(float(result.strehl)) in cells(root)
    assert cell(1000.0 * float(result.dx)) in cells(root)  # the pixel in µm
    assert has_figure(root)


def test_configurations_view_is_one_column_per_configuration():
    configurations = Configurations(
        [ConfigurationRow("surfaces.3.thickness", [1.5, 2.5, 3.5])], 3, ["wide", "mid", "tele"]
    )
    root = parsed(configurations)
    texts = cells(root)
    assert ["key", "wide", "mid", "tele"] == texts[:4]
    assert ["surfaces.3.thickness", "1.5", "2.5", "3.5"] == texts[4:8]
    assert "tele" in repr(configurations)


def test_tolerance_views_hold_the_statistics():
    values = np.array([1.0, 2.0, 3.0, np.nan, 5.0])
    trials = MonteCarlo(7, ["a"], np.zeros((5, 1)), values, threshold=2.5)
    root = parsed(trials)
    texts = cells(root)
    assert cell(float(np.mean([1, 2, 3, 5]))) in texts  # mean of the finite values
    assert cell(2 / 5) in texts  # yield: two of the five trials meet the threshold
    assert has_figure(root)
    rows = [{"item": "S1 <tilt>", "minus": 1.2, "plus": 1.3, "derivative": 0.4, "worst": 0.3}]
    sensitivity = Sensitivity("rms spot", 1.0, rows, 0.3)
    texts = cells(parsed(sensitivity))
    assert "S1 <tilt>" in texts  # escaped in the HTML, read back by the parser
    assert cell(1.3) in texts and cell(1.3) in repr(sensitivity)


def test_optimization_view_holds_the_merits_and_variables():
    records = [
        StepRecord(k, m, np.nan, np.array([v]), 0.0)
        for k, (m, v) in enumerate([(4.0, 1.0), (1.0, 1.5), (0.25, 1.75)])
    ]
    result = OptimizationResult(
        "dls",
        4.0,
        0.25,
        2,
        ["surfaces.1.radius"],
        np.array([1.0]),
        np.array([1.75]),
        [],
        [],
        History(records),
        "converged",
    )
    root = parsed(result)
    texts = cells(root)
    assert {"4", "0.25", "surfaces.1.radius", "1.75"} <= set(texts)
    assert has_figure(root)
    assert "converged" in repr(result)


def test_a_class_without_a_view_falls_back_to_its_fields():
    @dataclasses.dataclass(repr=False)
    class Plain(NotebookView):
        name: str
        data: object

    plain = Plain("a<b", np.zeros((3, 4)))
    assert repr(plain) == "Plain(name=a<b, data=<array (3, 4)>)"
    assert parsed(plain).text == repr(plain)


def test_a_zoom_optic_shows_its_configurations():
    zoom = optics.load(Path(__file__).parent / "data" / "zoom_two_group.toml")
    texts = cells(parsed(zoom))
    rows = zoom.configurations.rows
    assert rows[0].key in texts
    assert all(cell(v) in texts for v in rows[0].values)
