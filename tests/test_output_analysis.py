"""The shared output analysis: the stationarity detector, clipped intervals, the engine.

The detector is checked on series whose answer is known (stationary AR(1), linear drift,
random walk, a decaying transient) and on the M/M/1 queue by Lindley's recursion, whose mean
sojourn time 1/(μ − λ) is the oracle of the precision loop.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.signal import lfilter

from workbench import EmptyRunError, ParameterError, UnstableRegimeError
from workbench.output_analysis import (
    Replication,
    Stationarity,
    block_series,
    check_overload,
    detect,
    finish,
    mser5,
    replicate,
    require_observations,
)
from workbench.precision import to_precision
from workbench.results import (
    SimulationResult,
    bounded_interval,  # noqa: F401  (moved there)
)

N = 5_000


def ar1(rng, n=N, phi=0.9, mean=3.0):
    e = rng.standard_normal(n)
    e[0] /= math.sqrt(1 - phi**2)  # start in the stationary law
    return mean + lfilter([1.0], [1.0, -phi], e)


def lindley(rng, n, lam, mu=1.0):
    """Sojourn times of n customers of an M/M/1 queue that starts empty (arrival order)."""
    a = rng.exponential(1 / lam, n)
    s = rng.exponential(1 / mu, n)
    w = np.zeros(n)
    for i in range(1, n):
        w[i] = max(0.0, w[i - 1] + s[i - 1] - a[i])
    return w + s


def alarms(make, seeds=200) -> float:
    return float(
        np.mean([not detect(make(np.random.default_rng(s))).stationary for s in range(seeds)])
    )


def test_stationary_ar1_raises_no_alarm_in_95_percent_of_seeds():
    assert alarms(ar1) <= 0.05


def test_linear_drift_is_flagged_in_95_percent_of_seeds():
    # a drift of one noise standard deviation over the whole run
    assert alarms(lambda r: r.standard_normal(N) + np.linspace(0.0, 1.0, N)) >= 0.95


def test_random_walk_is_flagged_in_95_percent_of_seeds():
    assert alarms(lambda r: np.cumsum(r.standard_normal(N))) >= 0.95


def test_mser_truncates_a_decaying_transient_and_recovers_the_mean():
    rng = np.random.default_rng(4)
    n = 20_000
    y = rng.standard_normal(n) + 2.0 + 20.0 * np.exp(-np.arange(n) / 400.0)
    d = mser5(y)
    # the bias is 20 e^{-d/400}: below the noise of the mean after about 8 time constants
    assert 1_200 <= d <= n // 2
    assert abs(y[d:].mean() - 2.0) < 0.1
    assert abs(y.mean() - 2.0) > 0.3  # without truncation the mean is visibly biased
    assert detect(y).stationary


def test_mser_of_a_stationary_series_cuts_little():
    y = np.random.default_rng(0).standard_normal(10_000)
    assert mser5(y) < 2_000


def test_overloaded_mm1_is_flagged_with_the_growth_in_the_note():
    for seed in range(10):
        rng = np.random.default_rng(seed)
        verdict = detect([lindley(rng, 3_000, 1.1) for _ in range(3)], unit="s", label="delay")
        assert not verdict.stationary
        assert "delay grows with run length" in verdict.note
        assert verdict.second_half > verdict.first_half


def test_stable_mm1_with_replications_is_not_flagged():
    flagged = [
        not detect(
            [lindley(np.random.default_rng([seed, r]), 5_000, 0.7) for r in range(3)],
            warmup=500,
        ).stationary
        for seed in range(20)
    ]
    assert sum(flagged) <= 1


def test_a_load_bound_at_or_above_one_flags_whatever_the_series():
    y = np.random.default_rng(0).standard_normal(1_000)
    assert detect(y, rho=0.99).stationary
    verdict = detect(y, rho=1.3)
    assert not verdict.stationary and "ρ = 1.3" in verdict.note


def test_too_short_a_series_is_not_tested_and_says_so():
    verdict = detect(np.arange(20.0))
    assert verdict.stationary and not verdict.tested
    assert "too few observations" in verdict.note


def test_detect_validates_its_inputs():
    with pytest.raises(ParameterError, match="'alpha' parameter of detect"):
        detect(np.ones(100), alpha=0.0)
    with pytest.raises(ParameterError, match="'warmup' parameter of detect"):
        detect([np.ones(100), np.ones(100)], warmup=[1, 2, 3])


def test_check_overload_raises_or_returns_notes():
    bad = detect(np.cumsum(np.random.default_rng(0).standard_normal(5_000)))
    assert not bad.stationary
    with pytest.raises(UnstableRegimeError, match="not a steady state"):
        check_overload("f", "raise", stationarity=bad)
    with pytest.raises(UnstableRegimeError, match="ρ = 1.2"):
        check_overload("f", "raise", rho=1.2)
    notes = check_overload("f", "transient", rho=1.2, stationarity=bad)
    assert any("finite-horizon" in n for n in notes) and any("not stationary" in n for n in notes)
    assert check_overload("f", "raise", rho=0.5) == []
    with pytest.raises(ParameterError, match="'overload' parameter of f"):
        check_overload("f", "ignore")


def test_an_empty_run_is_an_error_not_a_nan():
    with pytest.raises(EmptyRunError, match="1 of 3 replications have no requests"):
        require_observations("f", [4, 0, 7])
    require_observations("f", [1, 1])


def test_intervals_are_clipped_to_the_quantitys_range():
    assert bounded_interval(0.5, 2.0, 0.0) == (0.0, 2.5)
    assert bounded_interval(0.9, 0.3, 0.0, 1.0) == pytest.approx((0.6, 1.0))
    rng = np.random.default_rng(0)
    reps = __import__("pandas").DataFrame({"time": rng.exponential(1.0, 2) * [0.01, 5.0]})
    result = SimulationResult.from_replications(
        reps,
        "time",
        ["time"],
        confidence=0.95,
        run_length=1,
        run_unit="x",
        bounds={"time": (0.0, math.inf)},
    )
    assert result.ci_low == 0.0 and result.half_width > result.estimate


def _mm1_replication(lam, n=4_000, warmup=400):
    def one(seed_sequence, index):
        y = lindley(np.random.default_rng(seed_sequence), n, lam)
        return Replication({"sojourn": y[warmup:].mean(), "n": n - warmup}, y, warmup)

    return one


def test_replicate_is_reproducible_and_extends_with_fresh_streams():
    one = _mm1_replication(0.5, n=500, warmup=50)
    a = replicate(one, replications=4, seed=7)
    b = replicate(one, replications=2, seed=7)
    c = replicate(one, replications=2, seed=7, start=2)
    rows = [r.row["sojourn"] for r in a]
    assert rows[:2] == [r.row["sojourn"] for r in b]
    assert rows[2:] == [r.row["sojourn"] for r in c]
    assert len(set(rows)) == 4


def test_finish_flags_and_raises_on_an_overloaded_queue():
    reps = replicate(_mm1_replication(1.15), replications=3, seed=1)
    kwargs = dict(func="mm1", metric="sojourn", quantities=["sojourn"], confidence=0.95)
    kwargs |= dict(run_length=4_000, run_unit="customers", unit="s")
    with pytest.raises(UnstableRegimeError, match="sojourn grows with run length"):
        finish(reps, **kwargs)
    result = finish(reps, overload="transient", **kwargs)
    assert not result.stationary and result.as_dict()["stationary"] is False
    assert "NOT STATIONARY" in repr(result)


def test_a_transient_known_before_the_run_is_the_verdict_whatever_the_series():
    """A stable M/M/1 (ρ = 0.5) whose model says it is a transient (P4's fill bound): raised,
    or the result's verdict under "transient"; a stationary "transient" is refused."""
    reps = replicate(_mm1_replication(0.5), replications=3, seed=1)
    kwargs = dict(func="mm1", metric="sojourn", quantities=["sojourn"], confidence=0.95)
    kwargs |= dict(run_length=4_000, run_unit="customers", unit="s")
    assert finish(reps, **kwargs).stationary  # the series alone: a steady state
    known = Stationarity(stationary=False, method="fill bound", note="room still filling")
    with pytest.raises(UnstableRegimeError, match="room still filling"):
        finish(reps, transient=known, **kwargs)
    result = finish(reps, overload="transient", transient=known, **kwargs)
    assert not result.stationary and result.stationarity.method.startswith("fill bound; ")
    assert result.stationarity.observations > 0  # the detector's figures are kept
    with pytest.raises(ParameterError, match="'transient' parameter of mm1"):
        finish(reps, transient=dataclasses.replace(known, stationary=True), **kwargs)


def test_to_precision_reaches_its_target_and_covers_the_mm1_mean():
    lam = 0.6
    result = to_precision(
        _mm1_replication(lam),
        func="mm1",
        rel_half_width=0.03,
        max_replications=400,
        seed=3,
        progress=False,
        metric="sojourn",
        quantities=["sojourn"],
        confidence=0.95,
        run_length=4_000,
        run_unit="customers",
        bounds={"sojourn": (0.0, math.inf)},
    )
    assert result.converged and result.stationary
    assert result.half_width / result.estimate <= 0.03
    assert result.replications > 5  # it had to grow
    assert result.ci_low <= 1 / (1 - lam) <= result.ci_high * 1.02  # 1/(μ − λ), warm-up bias


def test_to_precision_stops_on_a_non_stationary_run_and_reports_a_missed_target():
    kwargs = dict(metric="sojourn", quantities=["sojourn"], confidence=0.95, run_length=4_000)
    kwargs |= dict(run_unit="customers", progress=False)
    with pytest.raises(UnstableRegimeError):
        to_precision(_mm1_replication(1.2), func="mm1", **kwargs)
    result = to_precision(
        _mm1_replication(0.9), func="mm1", rel_half_width=0.001, max_replications=6, **kwargs
    )
    assert not result.converged and "did not converge" in result.notes[-1]


def test_skewed_stationary_replications_raise_no_alarm():
    """Heavy-tailed i.i.d. series over many replications: a truncation chosen per replication
    removes early outliers, biases the halves and made Stouffer's sum cry wolf (28 % alarms
    at α = 1.2 with 100 replications × 500 before the common cut)."""
    for shape in (1.2, 2.5):
        flagged = [
            not detect(
                [np.random.default_rng([s, r]).pareto(shape, 500) + 1 for r in range(100)]
            ).stationary
            for s in range(40)
        ]
        assert sum(flagged) <= 2, (shape, sum(flagged))


def test_to_precision_with_an_absolute_target():
    kwargs = dict(metric="sojourn", quantities=["sojourn"], confidence=0.95, run_length=4_000)
    kwargs |= dict(run_unit="customers", progress=False)
    result = to_precision(
        _mm1_replication(0.5), func="mm1", half_width=0.05, max_replications=200, **kwargs
    )
    assert result.converged and result.half_width <= 0.05
    assert "target ±0.05" in result.notes[-1]


@pytest.mark.parametrize(
    ("n", "warmup", "limit", "block", "blocks", "warm"),
    [
        (10, 3, 10, 1, 10, 3),  # short enough: the values themselves
        (11, 3, 10, 3, 3, 1),  # b = ceil(11 / 5) = 3: three blocks, 2 left over
        (100, 0, 8, 25, 4, 0),
        (101, 26, 8, 26, 3, 1),  # b = ceil(101 / 4) = 26; warm-up 26 is one block
        (101, 27, 8, 26, 3, 2),  # one observation more is a second block, rounded up
    ],
)
def test_block_series_means_of_whole_blocks(n, warmup, limit, block, blocks, warm):
    values = np.random.default_rng(n).integers(0, 2, n).astype(bool)
    series, got_warm = block_series(values, warmup, limit)
    # the means written out block by block, a trailing partial block dropped
    expected = [
        sum(float(v) for v in values[i * block : (i + 1) * block]) / block for i in range(blocks)
    ]
    assert series.dtype == np.float64
    np.testing.assert_allclose(series, expected, rtol=1e-15)
    assert got_warm == warm
