"""Monte Carlo in this process: seeds, draws, and the statistics of a linear toy problem."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import optics
from optics.io import optic_from_dict, optic_to_dict
from optics.tolerance import ToleranceModel, draw, monte_carlo, standard_deviations, trial_seeds


def linear_lens(items, threshold=None):
    """The Cooke triplet judged by total_track: exactly the nominal plus Σ thickness errors."""
    data = optic_to_dict(optics.load("cooke_triplet"))
    data["tolerance"] = {"criterion": {"type": "total_track"}, "items": items}
    if threshold is not None:
        data["tolerance"]["threshold"] = threshold
    return optic_from_dict(data, "toy.toml")


THICKNESS_ITEMS = [
    {"path": "surfaces[1].thickness", "plus_minus": 0.1, "distribution": "uniform"},
    {"path": "surfaces[2].thickness", "plus_minus": 0.2, "distribution": "normal"},
    {"path": "surfaces[4].thickness", "plus_minus": 0.05, "distribution": "normal"},
]


def test_trial_draws_come_from_the_spawned_seed_sequences():
    model = ToleranceModel(linear_lens(THICKNESS_ITEMS))
    result = monte_carlo(model, 5, seed=11, workers=1)
    children = np.random.SeedSequence(11).spawn(5)
    for i, child in enumerate(children):
        np.testing.assert_array_equal(result.draws[i], draw(model, child))
    assert [c.spawn_key for c in trial_seeds(11, 5)] == [c.spawn_key for c in children]


def test_the_statistics_of_a_linear_problem_match_the_analytic_distribution():
    """total_track = T0 + Σ δ_i: mean T0, variance Σ var(δ_i), exactly, trial by trial."""
    model = ToleranceModel(linear_lens(THICKNESS_ITEMS))
    nominal = model.nominal_value()
    result = monte_carlo(model, 2000, seed=7, workers=1)
    np.testing.assert_allclose(result.values, nominal + result.draws.sum(axis=1), atol=1e-12)
    sigma = math.sqrt(np.sum(standard_deviations(model) ** 2))
    s = result.statistics()
    n = result.trials
    assert abs(s["mean"] - nominal) < 4 * sigma / math.sqrt(n)
    assert abs(s["std"] / sigma - 1) < 4 / math.sqrt(2 * n)
    assert np.all(np.abs(result.draws) <= model.half_widths)  # truncated at plus_minus


def test_a_uniform_item_has_uniform_percentiles_and_a_matching_yield():
    """One uniform item of half-width a: p50, p90, p98 = T0 + (0, 0.8, 0.96) a; KS test too."""
    items = [{"path": "surfaces[2].thickness", "plus_minus": 0.5, "distribution": "uniform"}]
    model = ToleranceModel(linear_lens(items))
    nominal = model.nominal_value()
    result = monte_carlo(model, 1500, seed=3, workers=1, threshold=nominal + 0.25)
    s = result.statistics()
    spread = 0.5 * 2 / math.sqrt(result.trials) * 4  # a few sampling errors of a quantile
    for key, fraction in (("p50", 0.0), ("p90", 0.8), ("p98", 0.96)):
        assert s[key] == pytest.approx(nominal + fraction * 0.5, abs=spread)
    assert s["yield"] == pytest.approx(0.75, abs=4 * math.sqrt(0.75 * 0.25 / result.trials))
    ks = stats.kstest(result.values, stats.uniform(nominal - 0.5, 1.0).cdf)
    assert ks.pvalue > 1e-3


def test_a_normal_item_follows_the_truncated_normal():
    items = [{"path": "surfaces[2].thickness", "plus_minus": 0.4, "distribution": "normal"}]
    model = ToleranceModel(linear_lens(items))
    nominal = model.nominal_value()
    result = monte_carlo(model, 1500, seed=5, workers=1)
    sigma = 0.2
    law = stats.truncnorm(-2.0, 2.0, loc=nominal, scale=sigma)
    assert stats.kstest(result.values, law.cdf).pvalue > 1e-3
    assert standard_deviations(model)[0] == pytest.approx(law.std(), rel=1e-12)


def test_the_same_seed_gives_the_same_trials_and_another_seed_others():
    model = ToleranceModel(linear_lens(THICKNESS_ITEMS))
    a = monte_carlo(model, 20, seed=1, workers=1)
    b = monte_carlo(model, 20, seed=1, workers=1)
    c = monte_carlo(model, 20, seed=2, workers=1)
    np.testing.assert_array_equal(a.values, b.values)
    assert not np.array_equal(a.values, c.values)
    # trial i depends on (seed, i) alone, so a longer run starts with the same trials
    longer = monte_carlo(model, 30, seed=1, workers=1)
    np.testing.assert_array_equal(longer.values[:20], a.values)


def test_the_json_form_keeps_trial_order_and_every_statistic():
    model = ToleranceModel(linear_lens(THICKNESS_ITEMS))
    result = monte_carlo(model, 4, seed=0, workers=1, threshold=100.0)
    out = result.as_dict()
    assert list(out) == ["trials", "seed", "mean", "std", "p50", "p90", "p98", "yield", "values"]
    assert out["values"] == list(result.values)
    assert out["yield"] == 1.0  # a 60 mm track is always under 100 mm
    result.threshold = 0.0
    assert result.as_dict()["yield"] == 0.0


def test_progress_shows_a_bar_or_calls_back(capsys):
    pytest.importorskip("tqdm")
    model = ToleranceModel(linear_lens(THICKNESS_ITEMS))
    monte_carlo(model, 3, seed=0, workers=1, progress=True)
    assert "monte carlo" in capsys.readouterr().err
    calls = []
    monte_carlo(model, 3, seed=0, workers=1, progress=lambda done, total: calls.append(done))
    assert calls == [1, 2, 3]
