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


class _Run:
    """A stand-in parameter object (the door reads ``overload`` from it when told to)."""

    def __init__(self, overload="raise"):
        self.overload = overload


def test_precision_keywords_give_the_shared_keywords_checked_once():
    """The door adds the five keywords after the body's own (before ``**kw``), with the
    paper's defaults, validates them by the shared rows under the body's name and hands the
    body one PrecisionTarget; a body without ``target`` is refused at decoration."""
    import inspect

    from workbench.precision import PrecisionTarget, precision_keywords

    @precision_keywords(unit="s", initial=10, progress=False, default_half_width=0.05)
    def run(p, *, target, own=1, **extra):
        """Run.

        Parameters
        ----------
        own : int
            Its own keyword.
        """
        return target, own, extra

    sig = inspect.signature(run)
    assert list(sig.parameters) == [
        "p",
        "own",
        "rel_half_width",
        "half_width",
        "max_replications",
        "initial",
        "progress",
        "extra",
    ]
    assert sig.parameters["initial"].default == 10
    assert sig.parameters["progress"].default is False
    target, own, extra = run(_Run(), own=2, policy_weight=3)
    assert isinstance(target, PrecisionTarget)
    assert (target.value, target.absolute, target.initial, target.progress) == (
        0.05,
        True,
        10,
        False,
    )
    assert (own, extra) == (2, {"policy_weight": 3})
    assert run(_Run(), initial=None)[0].initial == 10  # None: the paper's default, not 5
    assert run(_Run(), max_replications=4)[0].initial == 4  # capped at the budget
    rel = run(_Run(), rel_half_width=0.1)[0]
    assert (rel.value, rel.absolute) == (0.1, False)
    with pytest.raises(ParameterError, match=r"'max_replications' parameter of run.*5000"):
        run(_Run(), max_replications=5000)
    with pytest.raises(ParameterError, match="not both"):
        run(_Run(), rel_half_width=0.1, half_width=0.1)
    with pytest.raises(TypeError, match="takes no 'target'"):
        precision_keywords()(lambda p, *, own=1: None)


def test_precision_keywords_read_overload_where_the_paper_keeps_it():
    from workbench.precision import precision_keywords

    def body(p, *, target, overload="raise"):
        return target

    by_keyword = precision_keywords(overload="keyword")(body)
    by_params = precision_keywords(overload="params")(lambda p, *, target: target)
    elsewhere = precision_keywords()(body)
    assert by_keyword(_Run("transient"), overload="raise").max_replications == 200
    with pytest.raises(ParameterError, match="'overload' parameter of body"):
        by_keyword(_Run(), overload="transient")
    with pytest.raises(ParameterError, match="'overload' parameter of <lambda>"):
        by_params(_Run("transient"))
    assert by_params(_Run("raise")).max_replications == 200
    assert elsewhere(_Run("transient"), overload="transient").max_replications == 200
    with pytest.raises(ParameterError, match="'overload' parameter of precision_keywords"):
        precision_keywords(overload="body")


def test_precision_keywords_document_what_the_body_does_not():
    from workbench.precision import precision_keywords

    @precision_keywords(unit="ms", initial=7)
    def run(p, *, target):
        """Run.

        Parameters
        ----------
        max_replications : int
            Mine.

        Returns
        -------
        int
            Nothing.
        """

    doc = run.__doc__
    assert doc.count("max_replications : int") == 1 and "    Mine." in doc
    assert "rel_half_width, half_width : float, optional" in doc
    assert "``half_width`` [ms]" in doc and "first step (7)" in doc
    assert doc.index("progress : bool or callable") < doc.index("Returns")


@pytest.mark.parametrize(
    "public",
    [
        fog.simulate_to_precision,
        proactive.simulate_to_precision,
        datacenters.simulate_to_precision,
        rd.simulate_to_precision,
        hierarchy.simulate_to_precision,
        arena.simulate_to_precision,
    ],
    ids=["p1", "p2", "p3", "p4", "p5", "arena"],
)
def test_every_precision_run_takes_the_keywords_from_the_one_door(public):
    """No paper writes the precision keywords: each signature has them from the door, once,
    with the shared defaults (P4 starts with 10 replications and no bar)."""
    import inspect

    params = inspect.signature(public).parameters
    names = ["rel_half_width", "half_width", "max_replications", "initial", "progress"]
    assert [n for n in params if n in names] == names
    body = inspect.unwrap(public)
    assert "target" in inspect.signature(body).parameters
    assert not set(names) & set(inspect.signature(body).parameters)
    p4 = public is rd.simulate_to_precision
    assert params["initial"].default == (10 if p4 else 5)
    assert params["progress"].default is (not p4)
