"""The shared precision loop and the output analysis at their edges (issue 29's reproducers)."""

import math

import numpy as np
import pytest

from workbench import EmptyRunError, ParameterError, arena, datacenters, fog, hierarchy, proactive
from workbench import redundancy as rd
from workbench.output_analysis import Replication, finish
from workbench.precision import precision_target, to_precision

NEAR_ONE = float(np.nextafter(1, 0))
DESCRIBE = dict(metric="x", quantities=["x"], confidence=0.95, run_length=10, run_unit="obs")


def _exponential(seed_sequence, index):
    """One replication: the mean of 200 Exp(1) draws (true mean 1, sd of the mean 0.07)."""
    y = np.random.default_rng(seed_sequence).exponential(size=200)
    return Replication({"x": float(y.mean())}, y, 0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_finish_refuses_a_series_without_a_finite_value(bad):
    reps = [Replication({"x": bad}, np.full(50, bad), 0) for _ in range(3)]
    with pytest.raises(EmptyRunError, match="3 of 3 replications"):
        finish(reps, func="f", **DESCRIBE)
    counted = [Replication({"x": bad, "n": 50}, np.full(50, bad), 0) for _ in range(3)]
    with pytest.raises(EmptyRunError):
        finish(counted, func="f", count="n", **DESCRIBE)


def test_a_relative_target_below_the_table_range_is_refused():
    with pytest.raises(ParameterError, match="'rel_half_width'.*1e-06"):
        to_precision(_exponential, func="f", rel_half_width=1e-308, progress=False, **DESCRIBE)


def test_to_precision_passes_finish_its_keywords_and_only_those():
    """The keywords to_precision hands to finish are finish's own (read from its signature):
    one finish does not take is refused by name, and a required one missing is named."""
    with pytest.raises(ParameterError, match="'empty_wht'.*empty_what"):
        to_precision(_exponential, func="f", progress=False, empty_wht="", **DESCRIBE)
    without_unit = {k: v for k, v in DESCRIBE.items() if k != "run_unit"}
    with pytest.raises(ParameterError, match="run_unit missing"):
        to_precision(_exponential, func="f", progress=False, **without_unit)
    result = to_precision(
        _exponential, func="f", rel_half_width=0.5, progress=False, empty_hint="h", **DESCRIBE
    )
    assert result.converged


def test_an_absolute_target_far_below_the_spread_stops_bounded():
    """1e-308 used to overflow the projection (n·(h/target)²): now the loop runs to its cap."""
    result = to_precision(
        _exponential,
        func="f",
        half_width=1e-308,
        max_replications=8,
        initial=2,
        progress=False,
        **DESCRIBE,
    )
    assert not result.converged and result.replications == 8
    assert 0.8 < result.estimate < 1.2 and math.isfinite(result.half_width)


def test_the_projection_matches_the_square_law():
    """Relative target 5%: sd of one replication's mean ~0.07, so n ≈ (t·0.07/0.05)² ≈ 8."""
    steps = []
    result = to_precision(
        _exponential,
        func="f",
        rel_half_width=0.05,
        initial=2,
        max_replications=200,
        progress=lambda done, projected, half: steps.append(done),
        **DESCRIBE,
    )
    assert result.converged and result.half_width / result.estimate <= 0.05
    assert 4 <= result.replications <= 30
    assert all(b <= 2 * a for a, b in zip(steps, steps[1:], strict=False))


def test_one_target_and_the_shared_budget():
    with pytest.raises(ParameterError, match="not both"):
        precision_target("f", rel_half_width=0.1, half_width=0.1)
    with pytest.raises(ParameterError, match="'max_replications'.*\\[2, 1000\\]"):
        precision_target("f", max_replications=5000)
    target = precision_target("f")
    assert (target.value, target.absolute, target.max_replications) == (0.02, False, 200)
    assert precision_target("f", default_half_width=0.05).absolute


@pytest.mark.parametrize(
    "call",
    [
        lambda: datacenters.simulate_to_precision(overload="transient", progress=False),
        lambda: hierarchy.simulate_to_precision(overload="transient", progress=False),
        lambda: arena.simulate_to_precision(
            scenario="neutral", policy="jsq", overload="transient", progress=False
        ),
    ],
    ids=["p3", "p5", "arena"],
)
def test_a_transient_run_has_no_precision_to_reach(call):
    # one rule for every loop that needs a steady state, checked before anything runs
    with pytest.raises(ParameterError, match=r"'overload' parameter of simulate_to_precision"):
        call()
    with pytest.raises(ParameterError, match=r"must be 'raise'.*Got 'x' instead"):
        precision_target("f", overload="x")
    assert precision_target("f", overload="raise").max_replications == 200


@pytest.mark.parametrize("half_width", [1e-308])
def test_paper_precision_runs_with_a_tiny_absolute_target_stop_at_the_cap(half_width):
    """P1, P3 and P5: no OverflowError, a result flagged as not converged."""
    kw = dict(half_width=half_width, max_replications=3, initial=2, progress=False)
    runs = [
        fog.simulate_to_precision(scenario=fog.default_scenario(), requests=2_000, **kw),
        datacenters.simulate_to_precision(
            lam=(5.0, 4.0), servers=(5, 5), mu=(1.0, 1.0), p=(0.5, 0.5), events=5_000, **kw
        ),
        hierarchy.simulate_to_precision(model="advanced", periods=60, **kw),
    ]
    for result in runs:
        assert not result.converged and result.replications == 3


def test_p2_precision_run_with_a_tiny_absolute_target_stops_at_the_cap():
    result = proactive.simulate_to_precision(
        half_width=1e-308, max_replications=2, initial=2, slots=1_000, progress=False
    )
    assert not result.converged and result.replications == 2


SEXP = rd.SExp(3.0, 0.2)


@pytest.mark.parametrize(
    "call",
    [
        lambda c: rd.simulate(N=12, m=2, lam=1.0, t_cloud=5.0, service=SEXP, confidence=c),
        lambda c: fog.simulate(scenario=fog.default_scenario(), confidence=c),
        lambda c: proactive.simulate(confidence=c),
        lambda c: hierarchy.simulate(confidence=c),
        lambda c: datacenters.simulate(
            lam=(5.0, 4.0), servers=(5, 5), mu=(1.0, 1.0), p=(0.5, 0.5), confidence=c
        ),
        lambda c: fog.compare_thetas(fog.default_scenario(), {"a": 0.02, "b": 0.05}, confidence=c),
    ],
)
def test_a_confidence_just_below_one_is_refused_before_running(call):
    with pytest.raises(ParameterError, match="'confidence'"):
        call(NEAR_ONE)


def test_finish_refuses_a_confidence_just_below_one():
    reps = [_exponential(np.random.SeedSequence(i), i) for i in range(3)]
    with pytest.raises(ParameterError, match="'confidence'.*0.9999"):
        finish(reps, func="f", **(DESCRIBE | {"confidence": NEAR_ONE}))
    assert finish(reps, func="f", **(DESCRIBE | {"confidence": 0.9999})).ci_high < math.inf
