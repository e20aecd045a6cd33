"""Global search: Sobol starts refined by DLS find the better of two basins, the same on Dask."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import singlet

from optics.errors import ConfigurationError
from optics.optimize import Operand, Problem, Variable, optimize, register_operand
from optics.optimize.global_search import global_search, start_points


def _double_well(ctx):
    """(f - 45)(f - 55) / 25 in mm²/25: zero at an EFL of 45 and of 55 mm."""
    f = ctx.first_order.efl
    return (f - 45.0) * (f - 55.0) / 25.0


def _tilt(ctx):
    """(f - 55) / 100: zero only at 55 mm, so the 55 mm well is the deeper one."""
    return (ctx.first_order.efl - 55.0) / 100.0


register_operand("test_double_well", _double_well, replace=True)
register_operand("test_tilt", _tilt, replace=True)

# Merit (r1² + r2²) along the radius of surface 1 (singlet: R2 = -50, t = 5, n = 1.5):
# 0 at f = 55 mm (R1 ~ 62 mm) and ~0.01 at f ~ 45 mm (R1 ~ 41 mm), a barrier between.
# From R1 = 38 mm (f ~ 42.6 mm) DLS goes down into the shallow 45 mm well.
LOW, HIGH = 30.0, 100.0


def _problem():
    return Problem(
        singlet(radius1=38.0),
        [Variable("surfaces[1].radius", LOW, HIGH)],
        [Operand("test_double_well"), Operand("test_tilt")],
    )


def test_global_search_finds_the_deeper_well_that_one_local_run_misses():
    local = optimize(_problem(), "dls", steps=40)
    assert local.merit_after == pytest.approx(1e-2, rel=0.05)  # the shallow well, f ~ 45 mm
    problem = _problem()
    result = global_search(problem, starts=6, seed=1, steps=40)
    assert result.best.merit_after < 1e-12  # the deep well: f = 55 mm exactly
    assert result.best.merit_after < local.merit_after
    assert len(result.starts) == 6 and result.starts[0]["merit_after"] == pytest.approx(
        local.merit_after, rel=1e-9
    )  # start 0 is the design itself: the local run
    assert result.best_index != 0
    assert problem.optic.surfaces[1].geometry.radius == pytest.approx(
        result.best.values_after[0], rel=1e-12
    )


def test_starts_are_deterministic_with_a_seed_and_inside_the_bounds():
    a, b, c = (start_points(_problem(), 8, seed) for seed in (3, 3, 4))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert a[0, 0] == 38.0 and np.all((a >= LOW) & (a <= HIGH))


def test_the_same_result_on_an_in_process_dask_cluster():
    distributed = pytest.importorskip("distributed")
    here = global_search(_problem(), starts=4, seed=2, steps=20)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=False,
        protocol="tcp://",
        scheduler_port=0,
        dashboard_address=None,
    ) as cluster:
        there = global_search(
            _problem(), starts=4, seed=2, steps=20, scheduler=cluster.scheduler_address
        )
    assert there.best_index == here.best_index
    for x, y in zip(here.starts, there.starts):
        assert x["index"] == y["index"]
        np.testing.assert_array_equal(x["values"], y["values"])
        assert x["merit_after"] == y["merit_after"]


def test_unbounded_variables_are_refused():
    problem = Problem(singlet(), ["surfaces[1].radius"], [Operand("efl", target=50.0)])
    with pytest.raises(ConfigurationError, match="give min and max for surfaces\\[1\\].radius"):
        global_search(problem, starts=2)


def test_the_cli_reports_every_start(tmp_path, capsys):
    import json

    from optics.cli import main

    out = tmp_path / "best.toml"
    code = main(
        ["optimize", "cooke_triplet", "--backend", "numpy", "--vary", "radius:1:15:30",
         "--operand", "efl=50", "--driver", "global", "--starts", "3", "--seed", "5",
         "--steps", "3", "-o", str(out), "--json"]
    )  # fmt: skip
    assert code == 0 and out.exists()
    report = json.loads(capsys.readouterr().out)
    assert report["driver"] == "global" and report["seed"] == 5
    assert [s["index"] for s in report["starts"]] == [0, 1, 2]
    assert report["merit_after"] == min(s["merit_after"] for s in report["starts"])
