"""at_environment of an optic with configurations: every configuration at the new
environment, built from the input's prescription; a quantity not asked for stays each
configuration's own."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import optics
from optics import backend as be
from optics.configurations import ConfigurationRow, Configurations
from optics.thermal import ALUMINIUM_CTE, at_environment
from optics.trace import prepare

ZOOM = Path(__file__).parent / "data" / "zoom_two_group.toml"


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _bfl(optic):
    return float(be.item(prepare(optic).first_order.bfl))


def test_every_configuration_is_at_the_environment():
    zoom = optics.load(ZOOM)
    hot = at_environment(zoom, 60.0)
    assert hot.configuration_count == 3 and hot.configurations.names == zoom.configurations.names
    for n, spacing in zip((1, 2, 3), (9.0, 19.0, 29.0)):
        config = hot.configuration(n)
        alone = at_environment(zoom.configuration(n), 60.0)
        assert config.environment.temperature == 60.0
        # hand calculation: an air gap set by an aluminium spacer, 40 K warmer
        assert config.surfaces[2].thickness == pytest.approx(spacing * (1 + ALUMINIUM_CTE * 40))
        assert config.surfaces[2].thickness == alone.surfaces[2].thickness
        assert config.surfaces[1].geometry.radius == alone.surfaces[1].geometry.radius
        assert _bfl(config) == _bfl(alone) != _bfl(zoom.configuration(n))
    # the input is unchanged, and going back gives its configurations back
    assert [r.key for r in zoom.configurations.rows][-1] == "fields.values[1][1]"
    back = at_environment(hot, 20.0)
    for n in (1, 2, 3):
        assert _bfl(back.configuration(n)) == pytest.approx(_bfl(zoom.configuration(n)), rel=1e-14)


def test_temperature_rows_are_replaced_and_unasked_quantities_kept():
    zoom = optics.load(ZOOM)
    rows = list(zoom.configurations.rows) + [ConfigurationRow("temperature", [0.0, 20.0, 40.0])]
    zoom.configurations = Configurations(rows, 3)
    thin = at_environment(zoom, pressure=0.5)  # each configuration keeps its temperature
    assert [thin.configuration(n).environment.temperature for n in (1, 2, 3)] == [0, 20, 40]
    assert {thin.configuration(n).environment.pressure for n in (1, 2, 3)} == {0.5}
    assert _bfl(thin.configuration(3)) == _bfl(at_environment(zoom.configuration(3), 40.0, 0.5))
    hot = at_environment(zoom, 60.0)  # every configuration at 60 °C
    assert {hot.configuration(n).environment.temperature for n in (1, 2, 3)} == {60.0}
    assert _bfl(hot.configuration(1)) == _bfl(at_environment(zoom.configuration(1), 60.0))
