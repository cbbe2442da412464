"""P1 corrections: a lone fog node, q, large θ, readings, validation, output analysis, budgets."""

from __future__ import annotations

import math
import time

import networkx as nx
import numpy as np
import pytest
from scipy import integrate, stats

import workbench.fog as fog
from workbench.erlang import pollaczek_khinchine
from workbench.fog import (
    accept_probability,
    analyze,
    default_scenario,
    erlang_sum_cdf,
    erlang_sum_cdf_partial_fractions,
    mean_in_system,
    mean_work,
    simulate,
    solve_chain,
)
from workbench.fog import kernels as K
from workbench.fog.model import P1Params
from workbench.fog.network import fog_loads
from workbench.fog.scenario import ScenarioError, build_scenario, compile_scenario
from workbench.fog.simulation import draw_requests, kernel_arguments, simulate_to_precision
from workbench.validation import EmptyRunError, ParameterError, UnstableRegimeError


def run_kernel(net, req, max_events=None, **settings):
    """The compiled kernel on ``req`` with ``P1Params(scenario=net, **settings)`` (the
    table's defaults for the settings not given)."""
    p = P1Params(scenario=net, **settings)
    return K.simulate_network(*kernel_arguments(p, req, max_events=max_events))


def lone(rate=2.0, units=8, cloud_mu=(1000.0, 200.0)):
    layer = nx.Graph()
    layer.add_node(0)
    return build_scenario(
        layer,
        10,
        lam_per_iot=rate,
        light_fraction=0.75,
        p_iot=0.0,
        p_cloud=0.0,
        fog_mu=(50.0, 10.0),
        cloud_mu=cloud_mu,
        cloud_units=units,
    )


# ------------------------------------------------------------------ a lone fog node


@pytest.mark.parametrize("e_max", [0, 1, 3])
def test_a_lone_fog_node_sends_its_rejects_to_the_cloud(e_max):
    # one fog node, no neighbour: what it refuses must reach the cloud whatever e_M is
    g = lone(units=1, cloud_mu=(40.0, 8.0))
    a = analyze(g, theta=0.05, e_max=e_max)
    f = a.fog.iloc[0]
    for c in ("light", "heavy"):
        assert f[f"lam_{c}"] + f[f"cloud_{c}"] == pytest.approx(f[f"I_{c}"], rel=1e-12)
    cloud = a.cloud.iloc[0]
    assert cloud["l_light"] == pytest.approx(f["cloud_light"], rel=1e-12)
    base = analyze(g, theta=0.05, e_max=0)
    # the same physical system: e_M cannot matter without a neighbour
    assert a.mean_delay == pytest.approx(base.mean_delay, rel=1e-12)
    assert cloud["load"] == pytest.approx(base.cloud["load"].iloc[0], rel=1e-12)


def test_flows_conserve_requests_on_any_graph_and_offload_limit():
    for g in (default_scenario(1), lone()):
        for e_max in (0, 2):
            fog = analyze(g, theta=0.01, e_max=e_max).fog
            for c in ("light", "heavy"):
                total = fog[f"lam_{c}"].sum() + fog[f"cloud_{c}"].sum()
                assert total == pytest.approx(fog[f"I_{c}"].sum(), rel=1e-9)


# ---------------------------------------------------------------------------- q


@pytest.mark.parametrize("q", [0.1, 0.3, 0.7, 0.95])
def test_acceptance_and_mean_work_do_not_depend_on_q(q):
    # independent route: the (n, n') chain solved numerically at this q, then each state's
    # P(Erlang(n, μ) + Erlang(n', μ') < θ), weighted by the chain's law
    lam, lam2, mu, mu2, theta = 60.0, 10.0, 200.0, 100 / 3, 0.03
    sol = solve_chain(lam, lam2, mu, mu2, q=q, tol=1e-12)
    n, m = np.indices(sol.prob.shape)
    keep = sol.prob > 1e-15
    chain_accept = sum(
        p * erlang_sum_cdf(theta, int(a), mu, int(b), mu2)
        for p, a, b in zip(sol.prob[keep], n[keep], m[keep], strict=True)
    )
    chain_work = float(np.sum((n / mu + m / mu2) * sol.prob))
    assert accept_probability(theta, lam, lam2, mu, mu2, q=q) == pytest.approx(
        chain_accept, abs=1e-9
    )
    assert mean_work(lam, lam2, mu, mu2, q=q) == pytest.approx(chain_work, rel=1e-8)
    # what q does change: the counts (q > 0.5 serves Light first)
    en, em = mean_in_system(lam, lam2, mu, mu2, q=q)
    en_half, em_half = mean_in_system(lam, lam2, mu, mu2, q=0.5)
    assert (en < en_half) == (q > 0.5) and (em > em_half) == (q > 0.5)
    assert en / mu + em / mu2 == pytest.approx(chain_work, rel=1e-8)


def test_q_changes_no_delay_and_costs_no_time():
    g = default_scenario(0)
    t0 = time.perf_counter()
    half = analyze(g, theta=0.02, q=0.5).mean_delay
    t1 = time.perf_counter()
    other = analyze(g, theta=0.02, q=0.3).mean_delay
    t2 = time.perf_counter()
    assert other == pytest.approx(half, rel=1e-12)
    assert t2 - t1 < max(3 * (t1 - t0), 0.5)  # was 67 s against 1 s


# ---------------------------------------------------------------------- large θ


def convolution_cdf(theta, n, mu, n2, mu2):
    """P(Erlang(n, μ) + Erlang(n', μ') < θ) = ∫ f_A(x)·F_B(θ − x) dx by quadrature.

    A = Erlang(n, μ) lies within its mean ± 12 standard deviations (the rest < 1e-20).
    """
    mean, sd = n / mu, math.sqrt(n) / mu
    low, high = max(0.0, mean - 12 * sd), min(theta, mean + 12 * sd)
    if high <= low:
        return 0.0

    def f(x):
        return stats.gamma.pdf(x, n, scale=1 / mu) * stats.gamma.cdf(theta - x, n2, scale=1 / mu2)

    val, _ = integrate.quad(f, low, high, limit=500, epsabs=1e-12)
    return val


@pytest.mark.parametrize(
    "theta,n,mu,n2,mu2",
    [
        (190.0, 20_000, 200.0, 3_000, 100 / 3),
        (95.0, 20_000, 200.0, 100, 10.0),
        (1000.0, 150_000, 200.0, 10, 0.5),
        (0.05, 3, 200.0, 2, 100 / 3),
    ],
)
def test_erlang_sum_is_fast_and_right_at_large_theta(theta, n, mu, n2, mu2):
    t = time.perf_counter()
    got = erlang_sum_cdf(theta, n, mu, n2, mu2)
    assert time.perf_counter() - t < 0.5
    assert got == pytest.approx(convolution_cdf(theta, n, mu, n2, mu2), abs=1e-6)


def test_accept_probability_is_fast_up_to_the_declared_theta():
    for theta in (1.0, 100.0, 1e3, 1e6):
        t = time.perf_counter()
        p = accept_probability(theta, 60.0, 10.0, 200.0, 100 / 3, q=0.3)
        assert time.perf_counter() - t < 0.05 and 0.999 < p <= 1.0


def test_erlang_sum_with_a_million_phases_does_not_allocate_them():
    t = time.perf_counter()
    assert erlang_sum_cdf(1e3, 10**6, 200.0, 10**6, 33.0) == 0.0  # mean 35,300 s
    assert erlang_sum_cdf(1e6, 10**6, 200.0, 10**6, 33.0) == 1.0
    assert time.perf_counter() - t < 1.0


def test_partial_fractions_at_equal_rates_is_the_erlang_law():
    got = erlang_sum_cdf_partial_fractions(2, 2, 1.0, 1, 1.0)
    assert got == pytest.approx(float(stats.gamma.cdf(2, 3)), rel=1e-12)
    assert got == pytest.approx(erlang_sum_cdf(2, 2, 1.0, 1, 1.0), rel=1e-12)


# ------------------------------------------------------------------ readings


def test_cloud_sojourn_pooled_is_the_papers_one_number_per_server():
    g = lone(units=1, cloud_mu=(40.0, 8.0))
    pooled = analyze(g, theta=0.02, e_max=0)
    per_class = analyze(g, theta=0.02, e_max=0, cloud_sojourn="per_class")
    c = pooled.cloud.iloc[0]
    lam = c["l_light"] + c["l_heavy"]
    es = (c["l_light"] / 40.0 + c["l_heavy"] / 8.0) / lam
    es2 = (c["l_light"] * 2 / 40.0**2 + c["l_heavy"] * 2 / 8.0**2) / lam
    assert c["H_light"] == c["H_heavy"] == pytest.approx(pollaczek_khinchine(lam, es, es2))
    pc = per_class.cloud.iloc[0]
    assert pc["H_heavy"] - pc["H_light"] == pytest.approx(1 / 8.0 - 1 / 40.0)
    # per request the two readings average to the same cloud sojourn
    assert per_class.mean_delay == pytest.approx(pooled.mean_delay, rel=1e-9)
    assert per_class.iot["delay_light"].iloc[0] < pooled.iot["delay_light"].iloc[0]


def test_periodic_ewma_changes_decisions_and_every_departure_is_the_default():
    g = default_scenario(0)
    kw = dict(theta=0.02, requests=20_000, replications=2, seed=3)
    every = simulate(scenario=g, **kw)
    assert every.frame.equals(simulate(scenario=g, ewma_period=0.0, **kw).frame)
    periodic = simulate(scenario=g, ewma_period=0.5, **kw)
    assert not periodic.frame.equals(every.frame)
    assert periodic.mean == pytest.approx(every.mean, rel=0.05)  # exponential work: similar
    with pytest.raises(ParameterError, match="ewma_period"):
        simulate(scenario=g, ewma_period=-1.0, **kw)


def test_periodic_ewma_updates_only_on_period_boundaries():
    # one fog node, 3,000 requests over about 200 s: with T = 1e6 s no period ends, so α
    # cannot matter; with updates at every departure (T = 0) or every 5 s it does
    g = lone(rate=1.5)
    net = compile_scenario(g)
    req = draw_requests(net, 3_000, np.random.default_rng(1), 0.05)
    th = np.full(1, 0.08)

    def tiers(alpha, period):
        return run_kernel(net, req, theta=th, e_max=0, alpha=alpha, ewma_period=period).tier

    np.testing.assert_array_equal(tiers(1.0, 1e6), tiers(0.3, 1e6))
    assert not np.array_equal(tiers(1.0, 0.0), tiers(0.3, 0.0))
    assert not np.array_equal(tiers(1.0, 5.0), tiers(0.3, 5.0))
    assert not np.array_equal(tiers(1.0, 5.0), tiers(1.0, 0.0))


# ----------------------------------------------------------------- validation


@pytest.mark.parametrize("theta", ["0.1", True, [True], np.bool_(True), None, [0.1, "x"]])
def test_theta_of_the_wrong_type_is_refused(theta):
    for call in (analyze, simulate):
        with pytest.raises(ParameterError, match="theta"):
            call(scenario=default_scenario(0), theta=theta)


@pytest.mark.parametrize("e_max", [2.0, True, "1", -1, 51])
def test_e_max_must_be_an_int_in_range(e_max):
    for call in (analyze, simulate):
        with pytest.raises(ParameterError, match="e_max"):
            call(scenario=default_scenario(0), e_max=e_max)


def test_a_fog_self_loop_is_refused():
    g = default_scenario(0)
    g.add_edge("fog0", "fog0", delay=0.001, rate=1e8)
    with pytest.raises(ScenarioError, match="itself"):
        analyze(g)


def test_max_iterations_zero_is_a_clear_error():
    with pytest.raises(ParameterError, match="max_iterations"):
        analyze(default_scenario(0), max_iterations=0)


# ------------------------------------------------------------ output analysis


def two_fog_forwarding(rate=1.575):
    # node 0 keeps everything (θ = ∞), node 1 refuses everything (θ = 0) and forwards once
    # to node 0: ρ_0 = 0.63 from its own IoT nodes, 1.26 with node 1's traffic
    return build_scenario(
        nx.path_graph(2), [10, 10], lam_per_iot=rate, fog_mu=(50.0, 10.0), p_iot=0.0, p_cloud=0.0
    )


def test_forwarded_traffic_overloads_a_node_that_keeps_everything():
    g = two_fog_forwarding()
    rho = fog_loads(g, theta=[math.inf, 0.0], e_max=1)
    assert rho[0] == pytest.approx(1.26, rel=1e-9) and rho[1] == 0.0
    with pytest.raises(UnstableRegimeError, match="fog0"):
        simulate(scenario=g, theta=[math.inf, 0.0], e_max=1, requests=20_000, replications=2)
    res = simulate(
        scenario=g,
        theta=[math.inf, 0.0],
        e_max=1,
        requests=20_000,
        replications=2,
        overload="transient",
    )
    assert not res.stationary and any("ρ = 1.26" in n for n in res.notes)
    # the detector alone (no load bound): the run's delay grows with its length
    assert res.stationarity.second_half > 1.5 * res.stationarity.first_half
    # e_M = 0: node 1 sends to the cloud, node 0 is fine
    ok = simulate(scenario=g, theta=[math.inf, 0.0], e_max=0, requests=20_000, replications=2)
    assert ok.stationary


def test_the_defaults_are_stationary():
    res = simulate(scenario=default_scenario(0))
    assert res.stationary and res.stationarity.note == ""
    assert res.ci_low >= 0


def test_no_traffic_is_an_error_at_once():
    g = default_scenario(0)
    for _, d in g.nodes(data=True):
        if d["role"] == "iot":
            d["rate_light"] = d["rate_heavy"] = 0.0
    with pytest.raises(EmptyRunError, match="no IoT node sends"):
        analyze(g)
    t = time.perf_counter()
    with pytest.raises(EmptyRunError, match="no IoT node sends"):
        simulate(scenario=g, requests=1_000, replications=2)
    assert time.perf_counter() - t < 0.5


def test_announcements_over_a_huge_horizon_are_refused_before_the_loop():
    # 1e-6 requests/s per IoT node: 50,000 requests span ~1e8 s, i.e. 2e10 announcements
    g = build_scenario(nx.path_graph(3), 5, lam_per_iot=1e-6)
    t = time.perf_counter()
    with pytest.raises(ParameterError, match="event budget"):
        simulate(scenario=g, requests=50_000, replications=2)
    assert time.perf_counter() - t < 0.5


def test_the_kernel_stops_at_its_event_budget():
    net = compile_scenario(default_scenario(0))
    req = draw_requests(net, 2_000, np.random.default_rng(0), 0.05)
    out = run_kernel(net, req, max_events=100, theta=0.02)
    assert out.events == 101  # stopped, and says how far it went
    full = run_kernel(net, req, theta=0.02)
    assert 2_000 < full.events < 10_000


def test_memory_budget_refuses_before_allocating():
    t = time.perf_counter()
    with pytest.raises(ParameterError, match="memory budget"):
        simulate(scenario=default_scenario(0), requests=2 * 10**7, replications=2)
    assert time.perf_counter() - t < 1.0


def test_simulate_to_precision_reaches_its_target_or_says_why():
    g = default_scenario(0)
    res = simulate_to_precision(scenario=g, rel_half_width=0.03, requests=10_000, progress=False)
    assert res.converged and res.half_width / res.mean <= 0.03 and res.stationary
    with pytest.raises(UnstableRegimeError):
        simulate_to_precision(
            scenario=two_fog_forwarding(),
            theta=[math.inf, 0.0],
            e_max=1,
            requests=10_000,
            progress=False,
        )


@pytest.mark.parametrize(
    "theta,alpha,period", [(0.03, 0.5, 0.0), (0.08, 0.1, 0.0), (0.2, 1.0, 0.0), (0.08, 0.7, 0.5)]
)
def test_theta_test_matches_a_twin_written_from_the_papers_text(theta, alpha, period):
    from naive_fog import paper_fog_node

    g = lone(rate=1.6)  # a busy lone fog node: many refusals, all to the cloud
    net = compile_scenario(g)
    req = draw_requests(net, 4_000, np.random.default_rng(7), 0.05)
    out = run_kernel(net, req, theta=theta, e_max=0, alpha=alpha, ewma_period=period)
    fog_req = np.flatnonzero(req.route == K.ROUTE_FOG)
    arrival = (
        req.gen_time[fog_req]
        + net.iot_prop[req.origin[fog_req]]
        + net.size_bits[req.rtype[fog_req]] * net.iot_inv[req.origin[fog_req]]
    )
    order = np.argsort(arrival, kind="stable")
    idx = fog_req[order]
    proc = req.work[idx] / net.fog_mu[0, req.rtype[idx]]
    twin = paper_fog_node(
        arrival[order],
        req.rtype[idx],
        proc,
        theta=theta,
        alpha=alpha,
        z0=1.0 / net.fog_mu[0],
        period=period,
    )
    kernel = out.tier[idx] == K.TIER_FOG
    assert 0.2 < twin.mean() < 0.95
    np.testing.assert_array_equal(kernel, twin)


# ------------------------------------------------------------------ public API


@pytest.mark.parametrize(
    "call",
    [
        lambda: fog.ring_scenario(-1),
        lambda: fog.ring_scenario(4, 10**12),
        lambda: fog.ring_scenario(4, "x"),
        lambda: fog.grid_scenario(None, 3),
        lambda: fog.default_scenario(0, n_fog=10**12),
        lambda: fog.geometric_scenario(5, radius=None),
        lambda: build_scenario(nx.path_graph(2), [1, 2, 3]),
        lambda: fog.solve_chain(10.0, 2.0, 50.0, 10.0, tol=None),
        lambda: fog.load_scenario(None),
        lambda: fog.with_traffic(None, load=1.0),
    ],
)
def test_public_entries_refuse_bad_input_with_parameter_errors(call):
    with pytest.raises(ParameterError):
        call()


def test_a_misspelled_builder_keyword_suggests_the_right_one():
    with pytest.raises(ParameterError, match="light_fraction"):
        fog.ring_scenario(4, 3, light_fracton=0.5)
    t = time.perf_counter()
    with pytest.raises(ParameterError, match="iot_per_fog"):
        fog.grid_scenario(3, 3, 10**12)  # refused before building 9e12 IoT nodes
    assert time.perf_counter() - t < 0.5


def test_the_package_exports_what_a_notebook_calls_and_no_helpers():
    names = set(fog.__all__)
    assert {"analyze", "simulate", "simulate_to_precision", "fog_loads", "run_once"} <= names
    assert not names & {"compile_scenario", "ChainSolution", "NetworkAnalysis", "theta_per_fog"}
    assert all(callable(getattr(fog, n)) for n in names - {"PARAMS"})
