"""P1's network model (workbench/fog/network.py) where tests/test_mut_fog_model*.py do not
look: P(W < θ) of a node whose load reaches 1, the fixed point's exact tolerance, the
root finder on flat, cliff-like and subnormal functions and with no step or a coarse width
(against its scalar twin, tests/naive_fog.py: illinois_root, and scipy's brentq), the
threshold chain at θ = 0, at a θ where θ·μ rounds onto an integer and at its size guard
(against naive_threshold_node's dense solve), the documented defaults and policies read
at run time (against naive_analyze) (benchmarks/mutation.py, target ``fog_model``)."""

import math
import warnings

import networkx as nx
import numpy as np
import pytest
from naive_fog import _ps_accept_expm, illinois_root, naive_analyze, naive_threshold_node
from scipy import optimize

import workbench.fog.network as network
from workbench.fog import analyze, fog_loads
from workbench.fog.params import MAX_CHAIN_STATES
from workbench.fog.scenario import build_scenario, compile_scenario
from workbench.validation import ParameterError, UnstableRegimeError


def small_network():
    """Four fog nodes (a path with a chord), two cloud servers, loads that offload."""
    layer = nx.Graph([(0, 1), (1, 2), (2, 3), (1, 3)])
    return build_scenario(
        layer, [3, 5, 2, 4], n_cloud=2, p_iot=0.1, p_cloud=0.2, seed=3, lam_per_iot=20.0
    )


G = small_network()
NET = compile_scenario(G)


def _same_analysis(a, want):
    assert a.mean_delay == pytest.approx(want["mean_delay"], rel=1e-9)
    for c, name in enumerate(("light", "heavy")):
        assert a.fog[f"accept_{name}"].to_numpy() == pytest.approx(want["accept"][c], abs=1e-9)
        assert a.fog[f"lam_{name}"].to_numpy() == pytest.approx(want["lam"][c], rel=1e-9)
        assert a.fog[f"cloud_{name}"].to_numpy() == pytest.approx(
            want["cloud_share"][c], rel=1e-9, abs=1e-12
        )
    assert a.fog["mean_work"].to_numpy() == pytest.approx(want["mean_work"], rel=1e-8, abs=1e-15)


# ---------------------------------------------------------------- P(W < θ) and W̄ per node


def test_accept_vec_is_zero_where_the_load_reaches_one_and_the_phase_type_law_below():
    # ρ = λ/μ + λ'/μ' per node; a node at ρ ≥ 1 never accepts (0, not the closed form,
    # which is no probability there: at ρ = 1.9 and θ = 100 s it overflows to NaN)
    mu = np.array([200.0, 200.0, 10.0, 0.5, 200.0, 1.0])
    mu2 = np.array([100 / 3, 100 / 3, 1.0, 0.25, 40.0, 1.0])
    r1 = np.array([0.95, 0.3, 0.2, 0.1, 0.5, 0.6])
    r2 = np.array([0.95, 0.4, 0.5, 0.2, 0.5, 0.3])
    theta = np.array([100.0, 0.02, 0.3, 2.0, 100.0, 1.5])
    with np.errstate(all="ignore"):
        got = network._accept_vec(theta, r1 * mu, r2 * mu2, mu, mu2)
    assert list(got[[0, 4]]) == [0.0, 0.0]  # ρ = 1.9 and ρ = 1 exactly
    for j in (1, 2, 3, 5):
        want = _ps_accept_expm(theta[j], r1[j] * mu[j], r2[j] * mu2[j], mu[j], mu2[j])
        assert 0.0 < want < 1.0
        assert got[j] == pytest.approx(want, abs=1e-12)


def test_mean_work_refuses_a_node_at_a_load_of_exactly_one():
    # ρ = 100/200 + 20/40 = 1: the M/G/1 mean work has no finite value
    with pytest.raises(UnstableRegimeError, match="fog node 0 is unstable"):
        network._mean_work_vec(np.array([100.0]), np.array([20.0]), [200.0], [40.0])


# ------------------------------------------------------------------------ the fixed point


def test_a_fixed_point_step_of_exactly_1e_10_is_not_converged():
    # "until no entry moves by 1e-10": 1 → 0 → 1e-10 moves by exactly 1e-10 (not yet
    # converged), the third step does not move
    def step(p):
        return np.where(p == 1.0, 0.0, 1e-10)

    p, iterations = network._fixed_point(step, 2, 500, "P")
    assert iterations == 3 and list(p) == [1e-10, 1e-10]


# ------------------------------------------------------------- the fixed point's root finder


def _against_twin(func, **kw):
    seen = []

    def vectorised(x):
        seen.append(float(x[0]))
        return func(x)

    root = network._bracketed_root(vectorised, 1, **kw)
    want, points = illinois_root(lambda x: float(func(np.array([x]))[0]), **kw)
    return root[0], want, seen, points


@pytest.mark.parametrize(
    ("name", "func", "root"),
    [
        # f = 0 on [1/2, 1], f(1) = 0: the upper end is the root at once
        ("flat-top", lambda x: np.minimum(x - 0.5, 0.0), 1.0),
        # f = 0 on [0, 1/2], f(0) = 0: the lower end is the root at once
        ("flat-bottom", lambda x: np.maximum(x - 0.5, 0.0), 0.0),
        ("zero", lambda x: 0.0 * x, 0.0),
    ],
)
def test_bracketed_root_of_a_function_flat_at_zero_is_the_end_where_it_vanishes(name, func, root):
    got, want, seen, points = _against_twin(func)
    assert got == want == root
    assert seen == points == [0.0, 1.0]  # no chord point
    assert optimize.brentq(lambda x: float(func(np.array([x]))[0]), 0.0, 1.0) == root


def test_bracketed_root_stops_after_max_steps_where_its_twin_does():
    # a cliff from −1 to 1e300 at 0.3: the chord creeps up from 0 and the Illinois rule
    # needs about a thousand halvings of f(hi) to reach it, so all 200 steps are spent
    got, want, seen, points = _against_twin(lambda x: np.where(x < 0.3, -1.0, 1e300))
    assert len(seen) == 2 + 200
    assert seen == points and got == want


def test_bracketed_root_with_no_step_or_a_width_above_one_is_the_midpoint():
    # the bracket [0, 1] itself: an entry that brackets its root gets the midpoint 1/2;
    # one whose root lies beyond an end gets that end
    targets = np.array([0.3, 0.9, 0.02, -0.2, 1.2])

    def func(x):
        return x - targets

    for kw in (dict(max_steps=0), dict(width=1.0), dict(width=2.0)):
        got = network._bracketed_root(func, targets.size, **kw)
        assert list(got) == [0.5, 0.5, 0.5, 0.0, 1.0]
        for t, g in zip(targets, got, strict=True):
            assert g == illinois_root(lambda x, t=t: x - t, **kw)[0]


def test_bracketed_root_stops_once_the_bracket_is_no_wider_than_width():
    # a chord so steep it rounds onto an end: bisection, [0, 1] → [0, 1/2] → [1/4, 1/2] →
    # [1/4, 3/8], whose width 1/8 is not above width = 1/8: the last point is 3/8
    got, want, seen, points = _against_twin(
        lambda x: np.where(x > 0.3, x - 0.3, 1e30 * (x - 0.3)), width=2.0**-3
    )
    assert seen == points == [0.0, 1.0, 0.5, 0.25, 0.375]
    assert got == want == 0.375


@pytest.mark.parametrize(
    ("func", "root"),
    [
        # f(1) = 5e-324, the smallest subnormal: halved by the Illinois rule it becomes 0,
        # and the root is the upper end
        (lambda x: np.where(x < 1.0, x - 1.0, 5e-324), 1.0),
        # f(0) = −5e-324: halved it becomes −0.0, and the root is the lower end
        (lambda x: np.where(x > 0.0, 1.0 + x, -5e-324), 0.0),
    ],
    ids=["upper", "lower"],
)
def test_bracketed_root_whose_end_value_underflows_to_zero_is_that_end(func, root):
    got = network._bracketed_root(func, 1)[0]
    assert got == root
    assert got == illinois_root(lambda x: float(func(np.array([x]))[0]))[0]
    scalar = optimize.brentq(lambda x: float(func(np.array([x]))[0]), 0.0, 1.0, xtol=1e-15)
    assert got == pytest.approx(scalar, abs=1e-12)


def test_bracketed_root_closed_at_an_end_raises_no_warning():
    targets = np.array([1.0, 0.0, 0.3, 1.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = network._bracketed_root(lambda x: x - targets, targets.size)
    assert got == pytest.approx([1.0, 0.0, 0.3, 1.0], abs=1e-13)


# ------------------------------------------------------------- the threshold-admission chain


def test_a_threshold_node_with_theta_zero_or_below_admits_nothing():
    for theta in (0.0, -1.0):
        assert network._threshold_node(30.0, 5.0, 200.0, 100 / 3, 0.5, theta) == (0.0, 0.0)
    # in the network: node 0 never admits, so it forwards or sends everything on
    kw = dict(theta=[0.0, 0.02, 0.015, 0.02], e_max=2, admission="threshold")
    a = analyze(G, **kw)
    want = naive_analyze(NET, **kw)
    assert want["accept"][0, 0] == 0.0 and want["mean_work"][0] == 0.0
    _same_analysis(a, want)


@pytest.mark.parametrize(
    "theta",
    # θ a hair above k/3: θ·3 rounds to the integer k, yet k/3 < θ, so k requests are
    # admitted and the chain reaches k + 1
    [math.nextafter(1 / 3, 1.0), math.nextafter(4 / 3, 2.0)],
)
def test_a_threshold_node_where_theta_mu_rounds_onto_an_integer(theta):
    k = round(theta * 3.0)
    assert theta * 3.0 == k and k / 3.0 < theta
    for mu, mu2 in ((3.0, 2.0), (2.0, 3.0)):
        got = network._threshold_node(2.0, 1.5, mu, mu2, 0.5, theta)
        want = naive_threshold_node(2.0, 1.5, mu, mu2, 0.5, theta)
        assert got == pytest.approx(want, rel=1e-10)


def test_the_threshold_chain_guard_counts_the_grid_that_holds_it(monkeypatch):
    # the chain lives in the grid n = 0..⌈θμ⌉ + 1, n' = 0..⌈θμ'⌉ + 1 (the admitting states
    # and one admission above them, with a row and a column to spare): (⌈θμ⌉ + 2)·(⌈θμ'⌉ + 2)
    # cells, refused above 2·MAX_CHAIN_STATES (the kept states are about half of them).
    # θ = 1 s: μ = 998, μ' = 798 gives 1000 × 800 = 800,000 cells, solved; one more row or
    # column (μ or μ' a half more) is refused. The solve is replaced by a uniform law.
    assert 2 * MAX_CHAIN_STATES == 1000 * 800

    def uniform(n, m, *args):
        return np.full(n.size, 1.0 / n.size)

    monkeypatch.setattr(network, "stationary_law", uniform)
    accept, _ = network._threshold_node(10.0, 10.0, 998.0, 798.0, 0.5, 1.0)
    assert 0.0 < accept < 1.0
    for mu, mu2 in ((998.5, 798.0), (998.0, 798.5)):
        with pytest.raises(ParameterError, match="threshold-admission chain"):
            network._threshold_node(10.0, 10.0, mu, mu2, 0.5, 1.0)


# ------------------------------------------------------------ defaults, policies, refusals


def test_the_fixed_point_is_bounded_by_500_iterations_by_default(monkeypatch):
    # analyze documents max_iterations = 500; fog_loads solves the same fixed point with it
    bounds = []
    solve = network._fixed_point

    def spy(step, size, max_iterations, name):
        bounds.append(max_iterations)
        return solve(step, size, max_iterations, name)

    monkeypatch.setattr(network, "_fixed_point", spy)
    analyze(G, theta=0.02, e_max=2)
    analyze(G, theta=0.02, e_max=2, admission="threshold")
    fog_loads(G, theta=0.02, e_max=2)
    assert bounds == [500, 500, 500]


def test_one_iteration_is_a_valid_bound():
    # "1 to 100,000": θ = ∞ everywhere is the fixed point P = 1 at the first step
    a = analyze(G, theta=math.inf, e_max=2, max_iterations=1)
    assert a.iterations == 1
    _same_analysis(a, naive_analyze(NET, theta=math.inf, e_max=2))


@pytest.mark.parametrize("policy", ["no_offload", "light_only", "all_cloud"])
def test_threshold_admission_changes_only_the_offloading_policy(policy):
    # "Only the offloading policy differs": a baseline under admission='threshold' is the
    # baseline
    _same_analysis(
        analyze(G, theta=0.02, e_max=2, policy=policy, admission="threshold"),
        naive_analyze(NET, theta=0.02, e_max=2, policy=policy),
    )


def _built(word):
    """The same word as a string made at run time (as read from a file): not the literal."""
    return "".join(list(word))


@pytest.mark.parametrize("policy", ["no_offload", "light_only", "all_cloud"])
def test_a_baseline_policy_read_at_run_time_is_that_policy(policy):
    assert _built(policy) is not policy
    _same_analysis(
        analyze(G, theta=0.02, e_max=2, policy=_built(policy)),
        naive_analyze(NET, theta=0.02, e_max=2, policy=policy),
    )


def test_the_acceptance_of_an_earlier_analysis_is_used_with_a_policy_read_at_run_time():
    a = analyze(G, theta=0.02, e_max=2)
    again = analyze(
        G, theta=0.02, e_max=2, policy=_built("offload"), acceptance=a.fog["accept_light"]
    )
    assert again.iterations == 0
    _same_analysis(again, naive_analyze(NET, theta=0.02, e_max=2))


def test_a_baseline_policy_keeps_its_own_acceptance():
    # light_only's P_j are 1 for Light and 0 for Heavy: its accept_light handed back (the
    # same traffic and policy) changes nothing
    a = analyze(G, theta=0.02, e_max=2, policy="light_only")
    again = analyze(G, theta=0.02, e_max=2, policy="light_only", acceptance=a.fog["accept_light"])
    _same_analysis(again, naive_analyze(NET, theta=0.02, e_max=2, policy="light_only"))


@pytest.mark.parametrize(
    "acceptance", [[0.5, 0.5, -0.5, 0.5], [0.5, 1.5, 0.5, 0.5], [math.nan] * 4]
)
def test_an_acceptance_outside_zero_one_is_refused_without_a_warning(acceptance):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ParameterError, match="'acceptance' parameter of analyze must be 4"):
            analyze(G, theta=0.02, e_max=2, acceptance=acceptance)
