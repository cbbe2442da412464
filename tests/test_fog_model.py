"""The analytic fog model against independent theory.

Oracles: the q = 0.5 chain is multi-class M/M/1 processor sharing (product form, geometric
total count, binomial split); its W is a geometric sum of hyperexponential works (a 2×2
phase-type law, also evaluated here with scipy's matrix exponential); Erlang sums at equal
rates are Erlang; the network model with θ = ∞ and one fog node is an M/M/1-type queue whose
waiting time is the Pollaczek–Khinchine wait of the class mixture.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, linalg, stats

from workbench.fog import (
    accept_probability,
    analyze,
    erlang_sum_cdf,
    erlang_sum_cdf_partial_fractions,
    mean_in_system,
    mean_work,
    solve_chain,
)
from workbench.fog.scenario import build_scenario
from workbench.validation import ParameterError, UnstableRegimeError

CASES = [
    (10.0, 3.0, 50.0, 10.0),
    (5.0, 1.0, 20.0, 20.0),
    (2.0, 4.0, 8.0, 9.0),
    (20.0, 2.0, 40.0, 8.0),
]


def product_form(lam, lam2, mu, mu2, levels=400):
    r1, r2 = lam / mu, lam2 / mu2
    n, m = np.indices((levels, levels))
    logp = (
        math.log(1 - r1 - r2)
        + np.log(
            np.array(
                [math.comb(int(a + b), int(a)) for a, b in zip(n.ravel(), m.ravel(), strict=True)],
                dtype=float,
            ).reshape(n.shape)
        )
        + n * math.log(r1)
        + m * math.log(r2)
    )
    return np.exp(logp)


@pytest.mark.parametrize("lam,lam2,mu,mu2", CASES)
def test_chain_at_half_is_processor_sharing_product_form(lam, lam2, mu, mu2):
    sol = solve_chain(lam, lam2, mu, mu2, q=0.5)
    assert sol.dropped_mass < 1e-10
    exact = product_form(lam, lam2, mu, mu2, levels=sol.levels + 1)
    tri = np.add.outer(np.arange(sol.levels + 1), np.arange(sol.levels + 1)) <= sol.levels
    assert np.max(np.abs(sol.prob - np.where(tri, exact, 0))) < 1e-9


@pytest.mark.parametrize("lam,lam2,mu,mu2", CASES)
def test_means_match_ps_closed_form(lam, lam2, mu, mu2):
    r1, r2 = lam / mu, lam2 / mu2
    rho = r1 + r2
    n, m = mean_in_system(lam, lam2, mu, mu2)
    assert n == pytest.approx(r1 / (1 - rho), rel=1e-8)
    assert m == pytest.approx(r2 / (1 - rho), rel=1e-8)
    assert mean_work(lam, lam2, mu, mu2) == pytest.approx(
        (r1 / mu + r2 / mu2) / (1 - rho), rel=1e-8
    )


def test_equal_rates_total_is_mm1_and_split_follows_arrivals():
    lam, lam2, mu = 6.0, 2.0, 10.0
    sol = solve_chain(lam, lam2, mu, mu, q=0.5)
    rho = (lam + lam2) / mu
    assert np.allclose(sol.level_mass[:30], (1 - rho) * rho ** np.arange(30), atol=1e-10)
    n, m = mean_in_system(lam, lam2, mu, mu)
    assert n / m == pytest.approx(lam / lam2, rel=1e-8)


@pytest.mark.parametrize("q", [0.2, 0.8])
def test_mean_work_is_the_same_for_every_fairness(q):
    # a work-conserving server with memoryless work: E[work] does not depend on the order
    lam, lam2, mu, mu2 = 10.0, 3.0, 50.0, 10.0
    base = (lam / mu / mu + lam2 / mu2 / mu2) / (1 - lam / mu - lam2 / mu2)
    assert mean_work(lam, lam2, mu, mu2, q=q) == pytest.approx(base, rel=1e-7)
    n_q, m_q = mean_in_system(lam, lam2, mu, mu2, q=q)
    n_h, m_h = mean_in_system(lam, lam2, mu, mu2, q=0.5)
    # favouring Light (q > 0.5) empties Light faster
    assert (n_q < n_h) == (q > 0.5)


def phase_type_accept(theta, lam, lam2, mu, mu2):
    r1, r2 = lam / mu, lam2 / mu2
    rho = r1 + r2
    alpha = np.array([r1, r2]) / rho
    t = np.array([mu, mu2])
    gen = np.diag(-t) + rho * np.outer(t, alpha)
    return 1 - rho * alpha @ linalg.expm(gen * theta) @ np.ones(2)


@pytest.mark.parametrize("lam,lam2,mu,mu2", CASES)
@pytest.mark.parametrize("theta", [0.005, 0.05, 0.3, 2.0])
def test_accept_probability_matches_phase_type(lam, lam2, mu, mu2, theta):
    got = accept_probability(theta, lam, lam2, mu, mu2)
    assert got == pytest.approx(phase_type_accept(theta, lam, lam2, mu, mu2), abs=1e-9)


def test_accept_probability_limits():
    assert accept_probability(math.inf, 10, 3, 50, 10) == pytest.approx(1.0, abs=1e-10)
    assert accept_probability(0.0, 10, 3, 50, 10) == 0.0
    # P(W < θ) ≥ P(node empty) = 1 - ρ for every θ > 0
    assert accept_probability(1e-9, 10, 3, 50, 10) >= 1 - 0.5 - 1e-9


def test_erlang_sum_at_equal_rates_is_erlang():
    assert erlang_sum_cdf(0.3, 5, 20.0, 4, 20.0) == pytest.approx(
        stats.gamma.cdf(0.3, 9, scale=1 / 20), rel=1e-12
    )


@pytest.mark.parametrize("n,n2,mu,mu2", [(3, 2, 5.0, 2.0), (1, 6, 1.0, 7.0), (12, 9, 30.0, 11.0)])
def test_erlang_sum_matches_quadrature(n, n2, mu, mu2):
    theta = 1.3 * (n / mu + n2 / mu2)
    f = stats.gamma(n, scale=1 / mu).pdf
    big = stats.gamma(n2, scale=1 / mu2).cdf
    quad, _ = integrate.quad(lambda t: f(t) * big(theta - t), 0, theta, limit=200)
    assert erlang_sum_cdf(theta, n, mu, n2, mu2) == pytest.approx(quad, abs=1e-9)


def test_partial_fractions_fail_near_equal_rates_where_the_stable_route_does_not():
    exact = stats.gamma.cdf(0.3, 9, scale=1 / 20)
    stable = erlang_sum_cdf(0.3, 5, 20.0, 4, 20.0001)
    paper = erlang_sum_cdf_partial_fractions(0.3, 5, 20.0, 4, 20.0001)
    assert abs(stable - exact) < 1e-4
    assert not abs(paper - exact) < 1e-2  # catastrophic cancellation (or not a probability)
    # far from equal rates both agree
    assert erlang_sum_cdf_partial_fractions(0.3, 3, 20.0, 2, 5.0) == pytest.approx(
        erlang_sum_cdf(0.3, 3, 20.0, 2, 5.0), abs=1e-10
    )


def test_unstable_and_near_critical_are_refused():
    with pytest.raises(UnstableRegimeError, match="ρ"):
        mean_work(40.0, 3.0, 50.0, 10.0)
    with pytest.raises(ParameterError, match="states"):
        solve_chain(49.9, 0.0, 50.0, 10.0, tol=1e-15)


finite = st.floats(allow_nan=True, allow_infinity=True)


@settings(deadline=None, max_examples=60)
@given(lam=finite, lam2=finite, mu=finite, mu2=finite, q=finite)
def test_fuzz_bad_input_raises_parameter_error_never_nan(lam, lam2, mu, mu2, q):
    try:
        out = mean_work(lam, lam2, mu, mu2, q)
    except ParameterError as err:
        assert "mean_work" in str(err)
        return
    assert math.isfinite(out) and out >= 0


@settings(deadline=None, max_examples=40)
@given(theta=st.one_of(finite, st.text(max_size=3), st.none()))
def test_fuzz_theta(theta):
    try:
        p = accept_probability(theta, 10, 3, 50, 10)
    except ParameterError as err:
        assert "theta" in str(err)
        return
    assert 0 <= p <= 1


# ------------------------------------------------------------------- the network model


def one_fog(rate_light=0.6, rate_heavy=0.2, iot=10, mu=(50.0, 10.0)):
    layer = nx.Graph()
    layer.add_node(0)
    return build_scenario(
        layer,
        iot,
        lam_per_iot=rate_light + rate_heavy,
        light_fraction=rate_light / (rate_light + rate_heavy),
        p_iot=0.0,
        p_cloud=0.0,
        fog_mu=mu,
    )


def test_one_fog_node_without_offloading_is_pk_wait():
    g = one_fog()
    a = analyze(g, theta=math.inf, e_max=0, own_processing=True)
    lam, lam2 = 6.0, 2.0
    mu, mu2 = 50.0, 10.0
    total = lam + lam2
    es = (lam / mu + lam2 / mu2) / total
    es2 = (lam * 2 / mu**2 + lam2 * 2 / mu2**2) / total
    wait = total * es2 / (2 * (1 - total * es))
    row = a.fog.iloc[0]
    assert row["mean_work"] == pytest.approx(wait, rel=1e-10)
    assert row["lam_light"] == pytest.approx(lam) and row["accept_light"] == 1.0


def test_flows_conserve_traffic():
    from workbench.fog import default_scenario

    g = default_scenario(3)
    a = analyze(g, theta=0.05, e_max=2)
    fog = a.fog
    # everything that enters the fog layer is accepted somewhere or leaves for the cloud
    for c in ("light", "heavy"):
        entered = fog[f"I_{c}"].sum()
        assert entered == pytest.approx(fog[f"lam_{c}"].sum() + fog[f"cloud_{c}"].sum(), rel=1e-9)
    assert 0 < fog["accept_light"].min() <= fog["accept_light"].max() < 1


def test_baselines_bracket_and_theta_limits():
    from workbench.fog import default_scenario

    g = default_scenario(0)
    no = analyze(g, policy="no_offload").mean_delay
    cloud = analyze(g, policy="all_cloud").mean_delay
    # a θ that W̄-sized work never reaches: P_j = 1 through the closed form and fixed point
    assert analyze(g, theta=1e4, e_max=2).mean_delay == pytest.approx(no, rel=1e-9)
    assert analyze(g, theta=0.0, e_max=0).mean_delay == pytest.approx(cloud, rel=1e-9)
    # θ = 0 with forwards allowed: the same cloud trip after two useless fog-to-fog hops
    assert analyze(g, theta=0.0, e_max=2).mean_delay > cloud


def test_unstable_network_is_reported():
    g = one_fog(rate_light=3.0, rate_heavy=1.0)
    with pytest.raises(UnstableRegimeError, match="fog node"):
        analyze(g, policy="no_offload")
    # a finite threshold keeps it stable: the node sheds what it cannot take
    assert math.isfinite(analyze(g, theta=0.2).mean_delay)


@pytest.mark.parametrize("q", [0.1, 0.5, 0.85])
def test_level_reduction_matches_a_sparse_lu_solve(q):
    # two independent solvers of the same truncated chain: block elimination level by level
    # and one sparse LU of the whole generator
    from workbench.fog.chain import _solve_levels, _solve_sparse

    for lam, lam2, mu, mu2 in CASES:
        a = _solve_levels(lam, lam2, mu, mu2, q, 60)
        b = _solve_sparse(lam, lam2, mu, mu2, q, 60)
        assert np.max(np.abs(a - b)) < 1e-12


def test_slow_tails_get_enough_levels_without_blind_doubling():
    # q = 0.3 keeps Heavy requests longer: the first (geometric) truncation is too short,
    # the next one must come from the tail's decay and meet tol
    sol = solve_chain(60.0, 10.0, 200.0, 100 / 3, q=0.3)
    assert sol.dropped_mass <= 1e-10
    first = math.ceil(math.log(1e-10 * (1 - sol.rho)) / math.log(sol.rho)) + 8
    assert first < sol.levels < 2 * first


@given(
    target=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=6),
    power=st.floats(0.2, 5.0),
)
@settings(deadline=None, max_examples=60)
def test_bracketed_root_finds_roots_of_increasing_functions(target, power):
    from workbench.fog.network import _bracketed_root

    c = np.array(target)
    root = _bracketed_root(lambda x: x**power - c**power, c.size)
    assert np.allclose(root, c, atol=1e-9)


@pytest.mark.parametrize("v,mu,theta", [(30.0, 50.0, 0.07), (80.0, 50.0, 0.1), (5.0, 20.0, 0.3)])
def test_threshold_node_with_one_class_is_mm1k(v, mu, theta):
    # one class: the node admits while n/μ < θ, i.e. n < θμ, so it holds at most
    # K = ceil(θμ) requests: M/M/1/K, π_n ∝ ρⁿ, P(admit) = 1 − π_K (PASTA), and the work an
    # admitted request finds is E[n | n < K]/μ
    from workbench.fog.network import _threshold_node

    k = math.ceil(theta * mu)
    rho = v / mu
    pi = rho ** np.arange(k + 1)
    pi /= pi.sum()
    accept, work = _threshold_node(v, 0.0, mu, 10.0, 0.5, theta)
    assert accept == pytest.approx(1 - pi[k], rel=1e-10)
    assert work == pytest.approx((np.arange(k) * pi[:k]).sum() / pi[:k].sum() / mu, rel=1e-10)


def test_threshold_admission_approaches_the_chain_when_theta_never_binds():
    from workbench.fog.network import _threshold_node

    lam, lam2, mu, mu2 = 20.0, 3.0, 200.0, 100 / 3
    accept, work = _threshold_node(lam, lam2, mu, mu2, 0.5, 1.0)  # P(W ≥ 1 s) is negligible
    assert accept == pytest.approx(1.0, abs=1e-9)
    assert work == pytest.approx(mean_work(lam, lam2, mu, mu2), rel=1e-6)


def test_threshold_admission_refuses_a_state_space_beyond_the_bound():
    from workbench.fog import default_scenario

    g = default_scenario(0)
    with pytest.raises(ParameterError, match="threshold-admission chain"):
        analyze(g, theta=1e5, admission="threshold")


def test_the_parameter_object_is_validated_once_and_names_the_function():
    """P1Params: θ per fog node checked against the scenario, one θ where there is no
    scenario, errors naming the public function, scenario=None the default scenario, and
    an object passed alone the same call as its keywords."""
    from workbench.fog import P1Params, analyze, default_scenario, ring_scenario
    from workbench.validation import ParameterError

    with pytest.raises(ParameterError, match="'theta' parameter of P1Params"):
        P1Params(theta=[0.01, 0.02])  # the default scenario has 10 fog nodes
    with pytest.raises(ParameterError, match="'theta' parameter of accept_probability"):
        accept_probability(theta=[0.01])
    with pytest.raises(ParameterError, match="'e_max' parameter of analyze"):
        analyze(e_max=1.0)  # a count, never a float
    ring = ring_scenario(3, 3)
    thetas = [0.01, 0.02, math.inf]
    p = P1Params(scenario=ring, theta=thetas)
    assert p.thetas.tolist() == thetas
    assert analyze(p).mean_delay == analyze(ring, theta=thetas).mean_delay
    assert analyze().mean_delay == analyze(default_scenario()).mean_delay
