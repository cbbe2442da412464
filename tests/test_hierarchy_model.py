"""Decision rules, topologies and bad input of the hierarchy."""

import math
import warnings

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.hierarchy import (
    PARAMS,
    P5Params,
    Topology,
    barabasi_albert,
    decide,
    eq12_queue_estimate,
    from_parents,
    local_overhead,
    offload_overhead,
    red_thresholds,
    shannon_rate,
    simulate,
    size_moments,
    skewed_tree,
    symmetric_tree,
)
from workbench.hierarchy.model import static_route, time_weights, utilisation_bound
from workbench.hierarchy.topology import _shape, ba_seeds
from workbench.validation import EmptyRunError, ParameterError, UnstableRegimeError


def test_shannon_rate_hand_value():
    # SNR 3 -> log2(4) = 2 bits/s/Hz
    assert shannon_rate(10.0, 3.0, 1.0, 1.0) == pytest.approx(20.0)
    # interference from another sender halves the SNR here: log2(1 + 3/2)
    assert shannon_rate(10.0, 3.0, 1.0, 1.0, 1.0) == pytest.approx(10 * math.log2(2.5))
    with pytest.raises(ParameterError, match="'noise' parameter of shannon_rate"):
        shannon_rate(10.0, 3.0, 1.0, 0.0)


def test_overheads_hand_values():
    gt, ge = time_weights([20.0])
    assert gt[0] == pytest.approx(20 / 21) and ge[0] == pytest.approx(1 / 21)
    loc = local_overhead(7.0, 20.0, 0.5, 0.5, kappa=1e-3)
    assert loc == pytest.approx(0.5 * 0.35 + 0.5 * 1e-3 * 400 * 7)
    off = offload_overhead(7.0, 0.7, 100.0, 40.0, 0.5, 0.5, 2.0)
    assert off == pytest.approx(0.5 * (0.007 + 0.175) + 0.5 * 2.0 * 0.007)
    # eq. 10: ten units queued at the next hop add 10/40 s of time overhead
    off10 = offload_overhead(7.0, 0.7, 100.0, 40.0, 0.5, 0.5, 2.0, queued_next=10.0)
    assert off10 - off == pytest.approx(0.5 * 10 / 40)
    assert decide(1.0, 0.9) == 1 and decide(1.0, 1.0) == 0 and decide(1.0, 1.1) == 0


def test_red_thresholds_eq11():
    assert red_thresholds(5, 20, 0.35) == pytest.approx((1.75, 20.0))
    assert red_thresholds(5, 20, 2.0) == pytest.approx((5.0, 40.0))


def test_eq12_inverts_the_mean_time():
    compute = np.array([20.0, 40.0, 100.0])
    n, s = 4.0, 6.0
    mean_time = sum(n * (n + 1) * s / (2 * f) for f in compute) / (3 * n)
    assert eq12_queue_estimate(mean_time, s, compute) == pytest.approx(n)


def test_size_moments_truncated_normal():
    draws = np.random.default_rng(0).normal(1.0, 1.0, 2_000_000)
    draws = draws[draws > 0]
    m1, m2 = size_moments(1.0, 1.0)
    assert m1 == pytest.approx(draws.mean(), rel=2e-3)
    assert m2 == pytest.approx((draws**2).mean(), rel=3e-3)


@pytest.mark.parametrize(
    "mu, sigma", [(1e-300, 100.0), (1e-6, 100.0), (1000.0, 1e-300), (1000.0, 1e-6), (3.0, 2.0)]
)
def test_size_moments_extremes_are_finite_and_silent(mu, sigma):
    # the closed form must not warn (overflow, 0/0) where a generic routine does
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m1, m2 = size_moments(mu, sigma)
    # half-normal limit (μ → 0): E[D] = σ√(2/π), E[D²] = σ²; no truncation when σ ≪ μ
    if mu / sigma < 1e-3:
        assert m1 == pytest.approx(sigma * math.sqrt(2 / math.pi), rel=1e-3)
        assert m2 == pytest.approx(sigma**2, rel=1e-3)
    elif mu / sigma > 1e3:
        assert m1 == pytest.approx(mu) and m2 == pytest.approx(mu**2)
    assert m2 >= m1**2


def test_original_rule_sends_everything_to_the_centre_of_the_tree():
    # the paper's observation (Fig. 6): without enhancement 1 all work ends at the centre
    assert list(static_route(symmetric_tree(), 0.1, 0.5)) == [0] * 7
    # with a huge input per unit of work the bottom keeps its tasks
    assert list(static_route(symmetric_tree(), 500.0, 0.5))[3:] == [3, 4, 5, 6]


def test_symmetric_tree_shape():
    t = symmetric_tree()
    assert list(t.parent) == [-1, 0, 0, 1, 1, 2, 2]
    assert list(t.generators) == [3, 4, 5, 6]
    assert t.compute.sum() == 1200


def test_a_builder_takes_the_parameter_object_or_its_keywords():
    """Issue 45: the builders read the speeds and bandwidth of P5Params, whose keywords a call
    may still replace; the object's hierarchy() is the builder's tree."""
    speeds = {"compute_bottom": 50.0, "compute_middle": 70.0, "compute_top": 90.0}
    p = P5Params(bandwidth=30.0, **speeds)
    tree = symmetric_tree(p)
    assert tree.name == "tree" and tree.compute.tolist() == [90.0, 70.0, 70.0] + [50.0] * 4
    assert tree.bandwidth.tolist() == [30.0] * 7 and tree.weight.tolist() == [0.0] * 3 + [1.0] * 4
    assert symmetric_tree(p, compute_bottom=60.0).compute.tolist()[3:] == [60.0] * 4
    assert skewed_tree(p).weight.tolist()[3:] == pytest.approx([0.4, 0.8, 1.2, 1.6])
    ba = barabasi_albert(p, 2)
    assert ba.name == "ba-2" and ba.compute.sum() == pytest.approx(90 + 2 * 70 + 4 * 50)
    for name in ("tree", "skewed", "ba-2"):
        built = P5Params(topology=name, bandwidth=30.0, **speeds).hierarchy()
        assert built.name == name and built.bandwidth.tolist() == [30.0] * 7
    assert np.array_equal(built.compute, ba.compute)


@pytest.mark.parametrize("index", [1, 2, 3, 4, 5])
def test_barabasi_albert_hierarchy(index):
    t = barabasi_albert(index)
    g = nx.barabasi_albert_graph(7, 2, seed=ba_seeds()[index - 1])
    degrees = sorted((d for _, d in g.degree()), reverse=True)
    # the centre is a highest-degree node: it has as many children as its degree
    assert len(t.children(0)) == degrees[0]
    assert t.compute.sum() == pytest.approx(1200.0)
    assert t.weight.sum() == pytest.approx(4.0)
    assert np.all(t.weight[t.generators] > 0)
    # every generator is a leaf of the BFS tree
    assert all(not t.children(s) for s in t.generators)
    again = barabasi_albert(index)
    assert np.array_equal(t.parent, again.parent)


def test_five_distinct_ba_hierarchies():
    """The paper's Fig. 9 has five different networks; seeds 1..5 gave three shapes."""
    shapes = {_shape(list(barabasi_albert(i).parent)) for i in range(1, 6)}
    assert len(shapes) == 5
    assert ba_seeds()[0] == 1 and len(set(ba_seeds())) == 5


def test_utilisation_bounds():
    t = symmetric_tree()
    m1, _ = size_moments(7.0, 1.0)
    args = (t, 8, m1, 1.0, 0.1, 0.5, 1e-11)
    assert utilisation_bound("pure_local", *args) == pytest.approx(8 * m1 / 100)
    assert utilisation_bound("pure_cloud", *args) == pytest.approx(32 * m1 / 400)
    assert utilisation_bound("advanced", *args) == pytest.approx(32 * m1 / 1200)
    # the original rule: everything at the centre, plus a decision per task at the bottom and
    # middle servers, plus the hand-over when it occupies the worker
    tau = 0.004
    bound = utilisation_bound("original", *args, decision_time=tau, offload_busy=True)
    middle = 16 * tau + 16 * 0.1 * m1 / 100.0
    assert bound == pytest.approx(max(32 * m1 / 400, middle))
    # no RED: every task is decided at its origin
    assert utilisation_bound("without_enhancement_2", *args, decision_time=0.5) == 4.0


def test_decision_time_alone_overloads_the_bottom():
    """Issue: τ_d = 0.5 s at λ = 8 needs 4 times a bottom worker for decisions alone."""
    with pytest.raises(UnstableRegimeError, match="ρ = 4"):
        simulate(model="without_enhancement_2", lam=8, task_size=7, decision_time=0.5, periods=50)
    res = simulate(
        model="advanced",
        lam=8,
        task_size=7,
        decision_time=0.5,
        periods=100,
        replications=2,
        overload="transient",
        keep_records=False,
    )
    assert not res.stationary and res.info["rho_measured"] >= 1.0


def test_empty_run_raises():
    with pytest.raises(EmptyRunError, match="no tasks generated after the warm-up"):
        simulate(model="advanced", lam=1e-9, task_size=5)


def test_known_unstable_point_is_flagged():
    """Above the pure models' capacity (λμ/F_b = 1.2): flagged before the run, and the run
    itself (transient) is found non-stationary by the detector and by its measured load."""
    with pytest.raises(UnstableRegimeError):
        simulate(model="pure_local", lam=12, task_size=10, periods=200)
    res = simulate(
        model="pure_local",
        lam=12,
        task_size=10,
        periods=400,
        replications=3,
        overload="transient",
        keep_records=False,
    )
    assert not res.stationary and "grows" in res.stationarity.note


def test_defaults_are_stationary():
    for model in ("advanced", "without_enhancement_2", "pure_cloud", "pure_local"):
        res = simulate(
            model=model, lam=8, task_size=7, periods=1000, replications=3, keep_records=False
        )
        assert res.stationary, (model, res.stationarity)


def test_overloaded_model_is_refused_not_simulated():
    with pytest.raises(UnstableRegimeError, match="pure_local"):
        simulate(model="pure_local", lam=12, task_size=9)
    with pytest.raises(UnstableRegimeError, match="overload='transient'"):
        simulate(model="pure_cloud", lam=12, task_size=9)
    res = simulate(
        model="pure_cloud", lam=12, task_size=9, periods=50, replications=2, overload="transient"
    )
    assert res.notes and "overloaded" in res.notes[0]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        (dict(model="magic"), "model"),
        (dict(lam=0.0), "lam"),
        (dict(lam=math.nan), "lam"),
        (dict(task_size=-1.0), "task_size"),
        (dict(periods=5), "periods"),
        (dict(periods=10**6, lam=10), "periods"),
        (dict(min_th=20.0, max_th=20.0), "max_th"),
        (dict(max_p=0.0), "max_p"),
        (dict(w_q=1.5), "w_q"),
        (dict(replications=1), "replications"),
        (dict(topology="star"), "topology"),
        (dict(seed=-1), "seed"),
        (dict(gentle="yes"), "gentle"),
    ],
)
def test_bad_input(kwargs, name):
    args = dict(model="advanced", lam=2.0, task_size=2.0, periods=20, replications=2) | kwargs
    with pytest.raises(ParameterError, match=f"'{name}' parameter of simulate"):
        simulate(**args)


@pytest.mark.parametrize(
    "parents",
    [[-1, -1, 0], [0, 1, 2], [-1, 0, 5], [-1, 2, 1], [], "abc", [-1, 0.5]],
)
def test_bad_user_tree(parents):
    with pytest.raises(ParameterError, match="'parents' parameter of from_parents"):
        from_parents(parents, 10.0)


def test_user_tree_runs():
    t = from_parents([-1, 0, 0, 1], [50, 20, 20, 10])
    res = simulate(
        model="advanced", lam=1.0, task_size=2.0, topology=t, periods=100, replications=2
    )
    assert res.mean_time > 0 and list(t.generators) == [2, 3]


NAMES = ["lam", "task_size", "sigma", "w_q", "max_p", "min_th", "decision_time", "bandwidth"]


@settings(deadline=None, max_examples=60)
@given(
    name=st.sampled_from(NAMES),
    value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=3), st.none()),
)
def test_fuzz_bad_values_raise_parameter_error(name, value):
    param = PARAMS[name]
    try:
        param.check(value, "simulate")
        valid = True
    except ParameterError:
        valid = False  # None too: a keyword left out, not None, takes the table's default
    kw = {"lam": 1.0, "task_size": 1.0} | {name: value}
    try:
        res = simulate(model="advanced", periods=10, replications=2, **kw)
    except (UnstableRegimeError, EmptyRunError):
        assert valid
        return
    except ParameterError as err:
        assert not valid or name in ("min_th",), err
        return
    assert valid and np.isfinite(res.mean_time)


@pytest.mark.parametrize(
    "build",
    [
        lambda: Topology(
            "x",
            np.array([-1, 0, 0]),
            np.array([1.0, -1.0, 1.0]),
            np.ones(3),
            np.array([0.0, 1.0, 1.0]),
        ),
        lambda: Topology("x", np.array([-1, 2, 1]), np.ones(3), np.ones(3), np.ones(3)),
        lambda: Topology("x", np.array([-1, 0, 5]), np.ones(3), np.ones(3), np.ones(3)),
        lambda: Topology("x", np.array([-1, 0, 0]), np.ones(3), np.ones(3), np.zeros(3)),
        lambda: symmetric_tree(weights=[1, 2]),
        lambda: local_overhead(-1.0, 10.0, 0.5, 0.5),
        lambda: size_moments(1.0, -1.0),
        lambda: red_thresholds(20.0, 5.0, 1.0),
    ],
)
def test_structured_bad_input_is_refused(build):
    """Issue 16: a negative compute gave mean_time = -0.06, a cycle hung, zero weights NaN."""
    with pytest.raises(ParameterError):
        build()


def test_misspelled_keyword_is_refused():
    from workbench.hierarchy import run_models

    with pytest.raises(TypeError, match="decision_time"):
        run_models(models=("advanced",), lam=2, task_size=2, decison_time=0.0, periods=20)
    with pytest.raises(TypeError, match="Did you mean"):
        run_models(lam=2, task_size=2, models=("advanced",), w_qq=0.1, periods=20)


def test_signature_defaults_are_the_parameter_table_s():
    """Every public function of every module of the package: a keyword named like a row of
    PARAMS defaults to None (the table's default) or to the table's value; simulate and
    simulate_to_precision take keywords only."""
    import importlib
    import inspect

    from workbench.hierarchy.simulation import simulate_to_precision

    divergent = []
    for mod in ("model", "simulation", "topology", "calibration", "figures", "claims", "views"):
        module = importlib.import_module(f"workbench.hierarchy.{mod}")
        for fname, func in vars(module).items():
            if fname.startswith("_") or not inspect.isfunction(func):
                continue
            if func.__module__ != module.__name__:
                continue
            for name, par in inspect.signature(func).parameters.items():
                default = par.default
                if name in PARAMS and default is not inspect.Parameter.empty:
                    if default is not None and default != PARAMS[name].default:
                        divergent.append(f"{mod}.{fname}({name}={default!r})")
    assert divergent == []
    for func in (simulate, simulate_to_precision):
        params = inspect.signature(func).parameters
        # the one positional slot is the parameter object's (workbench.params.takes)
        assert params["params"].kind is inspect.Parameter.POSITIONAL_ONLY
        kinds = {p.kind for n, p in params.items() if n != "params"}
        assert kinds <= {inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.VAR_KEYWORD}


def test_simulate_to_precision_reaches_its_target():
    from workbench.hierarchy import simulate_to_precision

    res = simulate_to_precision(
        model="pure_local", lam=4, task_size=5, rel_half_width=0.01, periods=200, progress=False
    )
    assert res.converged and res.half_width / res.mean_time <= 0.01


OLD_DEFAULTS = dict(
    compute_bottom=20.0,
    compute_middle=40.0,
    compute_top=100.0,
    decision_time=0.005,
    arrivals="spread",
    w_q=0.002,
    max_p=0.1,
    offload_busy=False,
)


def test_issue_point_without_enhancement_2_is_flagged():
    """Issue 15's case at the previous defaults: the old bound (total load 0.86) let it pass
    with a plain mean while its queues grew (15 -> 46 -> 122 s). Its routing keeps tasks at
    the bottom: the measured load reaches 1.05 and the detector sees the mean double."""
    with pytest.raises(UnstableRegimeError, match="ρ = 1.0"):
        simulate(model="without_enhancement_2", lam=8, task_size=7, periods=500, **OLD_DEFAULTS)
    res = simulate(
        model="without_enhancement_2",
        lam=8,
        task_size=7,
        periods=500,
        replications=4,
        overload="transient",
        keep_records=False,
        **OLD_DEFAULTS,
    )
    assert res.info["rho_bound"] < 1.0 <= res.info["rho_measured"]
    assert not res.stationary and "grows with run length" in res.stationarity.note


def test_the_seed_rule_reads_keywords_bound_through_a_tuple():
    """simulate, simulate_to_precision and run_models bind their keywords with
    ``@takes(P5Params, *SIMULATE_FIELDS)``: the seeds rule reads ``seed`` from the
    generated signature, not only from string arguments of the decorator."""
    from workbench.paper import check_paper

    report = check_paper("p5", rules=["seeds.public"])
    assert report.ok, str(report)


def test_the_parameter_object_is_validated_once_and_reaches_the_workers():
    """P5Params: built directly the errors name the class, through a function the function;
    an object and keywords give the same run as keywords alone; it pickles (the full
    studies' worker processes); a Topology field carries its own speeds."""
    import pickle

    from workbench.hierarchy import P5Params, run_models

    with pytest.raises(ParameterError, match=r"'max_th' parameter of P5Params.*\(20, 10000\]"):
        P5Params(min_th=20.0, max_th=20.0)
    p = P5Params(lam=2.0, topology="skewed")
    assert pickle.loads(pickle.dumps(p)) == p and p.hierarchy().name == "skewed"
    run = dict(models=("pure_local",), periods=50, seed=1)
    assert run_models(p, **run) == run_models(lam=2.0, topology="skewed", **run)
    with pytest.raises(ParameterError, match="'lam' parameter of run_models"):
        run_models(p, lam=-1.0, **run)
    tree = symmetric_tree(compute_bottom=50.0)
    assert P5Params(topology=tree, compute_bottom=999.0).hierarchy().compute[3] == 50.0
