"""P1's analytic model where tests/test_fog_model.py does not look: :func:`analyze` on small
networks against its slow twin written from the paper's equations (tests/naive_fog.py:
flows, the λ_j fixed point, P-K cloud servers, eq. 6 by recursion, eq. 2 per IoT node),
for every policy, neighbour rule, admission and cloud sojourn (benchmarks/mutation.py,
target ``fog_model``)."""

import math

import networkx as nx
import numpy as np
import pytest
from naive_fog import hypoexponential_cdf, naive_analyze
from scipy import integrate, special, stats

from workbench.fog import (
    accept_probability,
    analyze,
    erlang_sum_cdf,
    erlang_sum_cdf_partial_fractions,
    fog_loads,
    mean_in_system,
    mean_work,
    ps_closed_form,
    solve_chain,
)
from workbench.fog.model import theta_per_fog
from workbench.fog.params import MAX_CHAIN_STATES
from workbench.fog.scenario import build_scenario, compile_scenario
from workbench.validation import ParameterError, UnstableRegimeError


def small_network():
    """Four fog nodes (a path with a chord: degrees 1, 3, 2, 2), two cloud servers, IoT
    nodes with uneven rates (so the per-request and per-IoT means differ), every p^I, p^F,
    p^C positive, loads high enough that the fog nodes offload."""
    layer = nx.Graph([(0, 1), (1, 2), (2, 3), (1, 3)])
    g = build_scenario(
        layer, [3, 5, 2, 4], n_cloud=2, p_iot=0.1, p_cloud=0.2, seed=3, lam_per_iot=20.0
    )
    iot = [n for n, d in g.nodes(data=True) if d["role"] == "iot"]
    for k, n in enumerate(iot):
        g.nodes[n]["rate_light"] *= 0.5 + 0.25 * (k % 4)
        g.nodes[n]["rate_heavy"] *= 1.5 - 0.25 * (k % 3)
    return g


G = small_network()
NET = compile_scenario(G)

CASES = [
    dict(theta=0.02, e_max=2),
    dict(theta=0.02, e_max=2, neighbour="uniform"),
    dict(theta=0.01, e_max=1, own_processing=True, cloud_sojourn="per_class"),
    dict(theta=0.015, e_max=2, admission="threshold"),
    dict(theta=[0.01, 0.03, math.inf, 0.02], e_max=3),
    dict(theta=[0.01, 0.03, math.inf, 0.02], e_max=2, admission="threshold"),
    dict(theta=0.0, e_max=1),
    dict(theta=0.02, e_max=2, policy="light_only"),
    dict(theta=0.02, e_max=2, policy="all_cloud"),
    dict(theta=0.02, e_max=2, policy="no_offload", own_processing=True),
]


def _check_against_twin(a, want):
    assert a.mean_delay == pytest.approx(want["mean_delay"], rel=1e-9)
    assert a.mean_delay_per_iot == pytest.approx(want["mean_delay_per_iot"], rel=1e-9)
    fog, cloud, iot = a.fog, a.cloud, a.iot
    for c, name in enumerate(("light", "heavy")):
        assert fog[f"accept_{name}"].to_numpy() == pytest.approx(want["accept"][c], abs=1e-9)
        assert fog[f"v_{name}"].to_numpy() == pytest.approx(want["v"][c], rel=1e-9)
        assert fog[f"lam_{name}"].to_numpy() == pytest.approx(want["lam"][c], rel=1e-9)
        assert fog[f"cloud_{name}"].to_numpy() == pytest.approx(
            want["cloud_share"][c], rel=1e-9, abs=1e-12
        )
        assert cloud[f"l_{name}"].to_numpy() == pytest.approx(want["cloud_load"][:, c], rel=1e-9)
        assert cloud[f"H_{name}"].to_numpy() == pytest.approx(want["h"][:, c], rel=1e-9)
        assert iot[f"delay_{name}"].to_numpy() == pytest.approx(want["delay"][:, c], rel=1e-9)
    assert fog["rho"].to_numpy() == pytest.approx(want["rho"], rel=1e-9)
    assert fog["mean_work"].to_numpy() == pytest.approx(want["mean_work"], rel=1e-8)
    assert list(fog["best"]) == list(want["best"])
    units = NET.cloud_units
    per_unit = want["cloud_load"].sum(axis=1) / units
    assert cloud["per_unit_rate"].to_numpy() == pytest.approx(per_unit, rel=1e-9)
    assert list(cloud["units"]) == list(units)


@pytest.mark.parametrize("kw", CASES, ids=lambda kw: "-".join(f"{v}" for v in kw.values()))
def test_analyze_matches_the_slow_twin_of_the_papers_equations(kw):
    a = analyze(G, **kw)
    _check_against_twin(a, naive_analyze(NET, **kw))
    # the settings the analysis ran with (a baseline forwards nothing)
    baseline = kw.get("policy", "offload") != "offload"
    assert a.settings["e_max"] == (0 if baseline else kw["e_max"])
    assert a.settings["policy"] == kw.get("policy", "offload")


def test_the_chosen_case_offloads_and_differs_per_iot():
    # the cases above are only telling if the fog nodes reject part of their traffic and
    # the two averages differ
    a = analyze(G, theta=0.02, e_max=2)
    assert 0.05 < a.fog["accept_light"].min() and a.fog["accept_light"].max() < 0.999
    assert a.mean_delay != pytest.approx(a.mean_delay_per_iot, rel=1e-3)
    assert a.iterations > 1


def test_the_acceptance_of_an_earlier_analysis_skips_the_fixed_point():
    a = analyze(G, theta=0.02, e_max=2)
    again = analyze(G, theta=0.02, e_max=2, own_processing=True, acceptance=a.fog["accept_light"])
    assert again.iterations == 0
    _check_against_twin(again, naive_analyze(NET, theta=0.02, e_max=2, own_processing=True))


def test_a_lone_fog_node_sends_its_rejects_to_the_cloud():
    layer = nx.Graph()
    layer.add_node(0)
    g = build_scenario(layer, 12, p_iot=0.0, p_cloud=0.1, lam_per_iot=20.0, seed=1)
    net = compile_scenario(g)
    for kw in (dict(theta=0.01, e_max=2), dict(theta=0.01, e_max=2, admission="threshold")):
        a = analyze(g, **kw)
        want = naive_analyze(net, **kw)
        assert a.mean_delay == pytest.approx(want["mean_delay"], rel=1e-9)
        fog = a.fog.iloc[0]
        # every request that enters is kept or sent to the cloud: nothing forwarded, none lost
        for c in ("light", "heavy"):
            assert fog[f"v_{c}"] == pytest.approx(fog[f"I_{c}"], rel=1e-12)
            assert fog[f"lam_{c}"] + fog[f"cloud_{c}"] == pytest.approx(fog[f"I_{c}"], rel=1e-12)


@pytest.mark.parametrize(
    "kw",
    [
        dict(theta=0.015, e_max=2),
        dict(theta=[0.01, 0.03, math.inf, 0.02], e_max=2),
        dict(theta=0.02, e_max=2, policy="light_only"),
    ],
)
def test_fog_loads_are_the_threshold_models_kept_traffic(kw):
    admission = "threshold" if kw.get("policy", "offload") == "offload" else "chain"
    want = naive_analyze(NET, admission=admission, **kw)["rho"]
    assert fog_loads(G, **kw) == pytest.approx(want, rel=1e-9)


def test_fog_loads_fall_back_to_the_chain_where_theta_is_too_large_for_threshold():
    theta = 1e5  # the threshold chain would need more than MAX_CHAIN_STATES states
    want = naive_analyze(NET, theta=theta, e_max=1)["rho"]
    assert fog_loads(G, theta=theta, e_max=1) == pytest.approx(want, rel=1e-9)
    # θ never binds: every node keeps its own traffic, P = 1
    keep = (NET.fog_inflow / NET.fog_mu).sum(axis=1)
    assert fog_loads(G, theta=theta, e_max=1) == pytest.approx(keep, rel=1e-6)


def test_cloud_servers_are_pollaczek_khinchine_per_unit():
    # all_cloud: every request goes to the cloud; per unit an M/G/1 with the class mixture
    a = analyze(G, policy="all_cloud")
    for k, row in a.cloud.iterrows():
        z = NET.cloud_mean[k]
        lam = np.array([row["l_light"], row["l_heavy"]]) / NET.cloud_units[k]
        es = lam @ z / lam.sum()
        es2 = lam @ (2 * z**2) / lam.sum()
        load = lam.sum() * es
        assert row["load"] == pytest.approx(load, rel=1e-12)
        assert row["H_light"] == pytest.approx(es + lam.sum() * es2 / (2 * (1 - load)), rel=1e-12)
    # everything offered reaches a cloud server
    total = NET.iot_rate[:, 0] @ (NET.iot_p[:, 1] + NET.iot_p[:, 2])
    assert a.cloud["l_light"].sum() == pytest.approx(total, rel=1e-12)


def test_keywords_read_at_run_time_select_the_same_model():
    # a policy or sojourn read from a file is a string built at run time, not the interned
    # literal: the model must compare values, not identities
    policy, sojourn = "".join(["off", "load"]), "".join(["poo", "led"])
    a = analyze(G, theta=0.02, e_max=2, policy=policy, cloud_sojourn=sojourn)
    _check_against_twin(a, naive_analyze(NET, theta=0.02, e_max=2))


def test_an_idle_cloud_server_has_no_wait():
    # five cloud servers for four fog nodes (fog j uses cloud j mod 5): cloud 4 gets nothing
    layer = nx.Graph([(0, 1), (1, 2), (2, 3)])
    g = build_scenario(layer, 3, n_cloud=5, p_cloud=0.2, lam_per_iot=20.0, seed=2)
    for sojourn in ("pooled", "per_class"):
        a = analyze(g, theta=0.02, e_max=1, cloud_sojourn=sojourn)
        idle = a.cloud.iloc[4]
        assert idle["l_light"] == 0 and idle["l_heavy"] == 0 and idle["load"] == 0
        want = [0.0, 0.0] if sojourn == "pooled" else list(compile_scenario(g).cloud_mean[4])
        assert [idle["H_light"], idle["H_heavy"]] == pytest.approx(want, abs=1e-15)
        assert a.mean_delay == pytest.approx(
            naive_analyze(compile_scenario(g), theta=0.02, e_max=1, cloud_sojourn=sojourn)[
                "mean_delay"
            ],
            rel=1e-9,
        )


def test_an_overloaded_cloud_server_is_reported():
    layer = nx.Graph([(0, 1)])
    g = build_scenario(layer, 10, lam_per_iot=200.0, cloud_units=1, seed=0)
    with pytest.raises(UnstableRegimeError, match="cloud server 0 is unstable"):
        analyze(g, policy="all_cloud")


def test_a_lone_fog_node_has_no_best_neighbour():
    layer = nx.Graph()
    layer.add_node(0)
    g = build_scenario(layer, 4, seed=0)
    assert list(analyze(g, theta=0.01, e_max=2).fog["best"]) == [-1]
    assert list(analyze(G, theta=0.01, e_max=2).fog["best"]) != [-1] * 4


# ------------------------------------------------------------------------ validation


def test_max_iterations_is_one_to_a_hundred_thousand():
    a = analyze(G, theta=0.02, e_max=2, max_iterations=100_000)
    assert a.mean_delay == pytest.approx(naive_analyze(NET, theta=0.02, e_max=2)["mean_delay"])
    for bad in (0, 100_001):
        with pytest.raises(ParameterError, match=r"'max_iterations' parameter of analyze"):
            analyze(G, theta=0.02, e_max=2, max_iterations=bad)
    # too few iterations for this fixed point (it takes more than 20): named, not returned
    with pytest.raises(ParameterError, match="did not converge in 3 iterations"):
        analyze(G, theta=0.02, e_max=2, max_iterations=3)


@pytest.mark.parametrize("acceptance", [[0.5] * 5, [0.5] * 3, [0.5, 0.5, 0.5, 1.5], "high"])
def test_an_acceptance_that_is_not_one_probability_per_fog_node_is_refused(acceptance):
    with pytest.raises(ParameterError, match="'acceptance' parameter of analyze must be 4"):
        analyze(G, theta=0.02, e_max=2, acceptance=acceptance)


def test_theta_per_fog_node():
    assert list(theta_per_fog([0.02], 3, "f")) == [0.02] * 3
    assert list(theta_per_fog([math.inf], 2, "f")) == [math.inf] * 2
    assert list(theta_per_fog([0.0, math.inf, 5.0], 3, "f")) == [0.0, math.inf, 5.0]
    for bad in ([-0.5, 0.1, 0.1], -0.5, [0.1, 0.2]):
        with pytest.raises(ParameterError, match="'theta' parameter of f"):
            theta_per_fog(bad, 3, "f")


def test_the_threshold_chain_refuses_more_than_max_chain_states_states():
    # θ = 12 s at μ = 200, μ' = 33.3: the admitting states and those one above are about
    # 2401·401/2 ≈ 480,000 > MAX_CHAIN_STATES = 400,000 (θ = 10 s: 335,000, solved)
    assert MAX_CHAIN_STATES == 400_000
    with pytest.raises(ParameterError, match="threshold-admission chain"):
        analyze(G, theta=12.0, e_max=1, admission="threshold")


# -------------------------------------------------------- the fixed point's root finder


@pytest.mark.parametrize(
    "shape", [lambda x: np.exp(3 * x), lambda x: np.log1p(50 * x)], ids=["convex", "concave"]
)
def test_bracketed_root_is_superlinear(shape):
    # regula falsi with the Illinois rule: about ten evaluations where bisection to 1e-13
    # takes forty-odd, on convex and concave functions alike (plain regula falsi stalls
    # on one side)
    from workbench.fog.network import _bracketed_root

    target = np.array([0.2, 0.55, 0.9, 1.3, -0.004])
    calls = []

    def func(x):
        calls.append(1)
        return shape(x) - shape(target)

    # roots beyond the bracket end at its ends at once, costing no evaluation
    root = _bracketed_root(func, 5)
    assert root == pytest.approx([0.2, 0.55, 0.9, 1.0, 0.0], abs=1e-12)
    assert len(calls) <= 16


def test_bracketed_root_at_the_ends_of_the_bracket():
    from workbench.fog.network import _bracketed_root

    # f(1) ≤ 0: the root is 1; f(0) ≥ 0: the root is 0; an exact zero inside is kept
    root = _bracketed_root(lambda x: x - np.array([1.0, 0.0, 0.5, 2.0, -1.0]), 5)
    assert list(root) == [1.0, 0.0, 0.5, 1.0, 0.0]


# ------------------------------------------------ P(Erlang(n, μ) + Erlang(n', μ') < θ)


def test_erlang_sum_of_two_phases_is_the_hypoexponential_law():
    # θ sweeps every window the uniformisation uses: the one that starts at K = 0, the ones
    # that start above (a head summed by the negative binomial's cdf), and the one wholly
    # above K's support
    for theta in [*np.arange(0.5, 12.0, 0.5), *np.arange(200.0, 300.0, 0.5), 1e3]:
        want = hypoexponential_cdf(theta, 1.0, 0.5)
        assert erlang_sum_cdf(theta, 1, 1.0, 1, 0.5) == pytest.approx(want, rel=1e-12, abs=1e-15)
        assert erlang_sum_cdf(theta, 1, 0.5, 1, 1.0) == pytest.approx(want, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("theta", [0.1, 0.7, 2.5])
def test_erlang_sum_with_one_empty_class_is_one_erlang_law(theta):
    assert erlang_sum_cdf(theta, 3, 5.0, 0, 2.0) == pytest.approx(
        stats.gamma.cdf(theta, 3, scale=1 / 5.0), rel=1e-12
    )
    assert erlang_sum_cdf(theta, 0, 5.0, 4, 2.0) == pytest.approx(
        stats.gamma.cdf(theta, 4, scale=1 / 2.0), rel=1e-12
    )
    assert erlang_sum_cdf(theta, 0, 5.0, 0, 2.0) == 1.0  # nothing to wait for


def test_erlang_sum_far_below_its_mean_is_zero():
    # W ≥ Erlang(200, 1), and P(Erlang(200, 1) < 1) = P(Poisson(1) ≥ 200) < 1e-300
    assert erlang_sum_cdf(1.0, 200, 1.0, 5, 0.5) == 0.0


def test_erlang_sum_of_millions_of_phases_matches_the_convolution():
    # Exp(20) + Erlang(2·10⁶, 4): the uniformised window lies millions of stages up
    theta = 5e5 + 200

    def integrand(s):
        return 20 * math.exp(-20 * s) * stats.gamma.cdf(theta - s, 2 * 10**6, scale=0.25)

    want = integrate.quad(integrand, 0, 3)[0]
    assert erlang_sum_cdf(theta, 1, 20.0, 2 * 10**6, 4.0) == pytest.approx(want, rel=1e-8)


def test_erlang_sum_refuses_a_window_of_more_than_five_million_terms():
    # μθ = 1e11 with K ~ NegBin(1e9, 0.01): the window is about 7.6 million terms wide
    with pytest.raises(ParameterError, match="terms"):
        erlang_sum_cdf(1e6, 1, 1e5, 10**9, 1e3)


@pytest.mark.parametrize("n, n2", [(3, 2), (8, 3), (1, 1), (2, 1)])
@pytest.mark.parametrize("theta", [0.4, 3.0, 50.0, 100.0, 200.0])
def test_partial_fractions_away_from_equal_rates_are_probabilities(n, n2, theta):
    for mu2 in (0.3, 0.5, 2.0):
        got = erlang_sum_cdf_partial_fractions(theta, n, 1.0, n2, mu2)
        assert 0.0 <= got <= 1.0
        assert got == pytest.approx(erlang_sum_cdf(theta, n, 1.0, n2, mu2), abs=1e-9)


def test_partial_fractions_at_equal_rates_or_one_empty_class_are_erlang():
    for theta in (0.3, 1.5):
        assert erlang_sum_cdf_partial_fractions(theta, 3, 2.0, 4, 2.0) == pytest.approx(
            stats.gamma.cdf(theta, 7, scale=0.5), rel=1e-12
        )
        assert erlang_sum_cdf_partial_fractions(theta, 0, 2.0, 4, 3.0) == pytest.approx(
            stats.gamma.cdf(theta, 4, scale=1 / 3), rel=1e-12
        )
        assert erlang_sum_cdf_partial_fractions(theta, 5, 2.0, 0, 3.0) == pytest.approx(
            stats.gamma.cdf(theta, 5, scale=0.5), rel=1e-12
        )


def test_erlang_sums_take_up_to_a_billion_phases():
    def integrand(t):
        return stats.gamma.pdf(t, 30, scale=1 / 20) * stats.gamma.cdf(2.2 - t, 25, scale=1 / 40)

    want = integrate.quad(integrand, 0, 2.2, limit=200)[0]
    assert erlang_sum_cdf(2.2, 30, 20.0, 25, 40.0) == pytest.approx(want, rel=1e-9)
    for bad in (10**9 + 1, -1):
        with pytest.raises(ParameterError, match="'n' parameter of erlang_sum_cdf"):
            erlang_sum_cdf(0.5, bad, 20.0, 1, 40.0)


# ----------------------------------------------------------- the q = 0.5 closed forms


@pytest.mark.parametrize(
    "lam, lam2, mu, mu2", [(20.0, 3.0, 200.0, 100 / 3), (4.0, 9.0, 10.0, 30.0)]
)
def test_ps_closed_form_is_the_numerical_chain(lam, lam2, mu, mu2):
    # the closed forms of multi-class M/M/1-PS against the numerical (n, n') chain at
    # q = 0.5, the P-K mean work and the phase-type acceptance
    sol = solve_chain(lam, lam2, mu, mu2, q=0.5, tol=1e-13)
    n, m = np.indices(sol.prob.shape)
    got = ps_closed_form(0.05, lam, lam2, mu, mu2)
    assert got["mean_light"] == pytest.approx(np.sum(n * sol.prob), rel=1e-9)
    assert got["mean_heavy"] == pytest.approx(np.sum(m * sol.prob), rel=1e-9)
    assert got["mean_work"] == pytest.approx(np.sum((n / mu + m / mu2) * sol.prob), rel=1e-9)
    assert got["mean_work"] == pytest.approx(mean_work(lam, lam2, mu, mu2), rel=1e-12)
    assert got["accept"] == pytest.approx(accept_probability(0.05, lam, lam2, mu, mu2), rel=1e-12)


def test_an_idle_node_has_an_empty_chain():
    sol = solve_chain(0.0, 0.0, 50.0, 10.0)
    assert sol.prob.shape == (2, 2) and sol.prob[0, 0] == 1.0 and sol.prob.sum() == 1.0
    assert sol.rho == 0.0 and sol.dropped_mass == 0.0
    assert mean_in_system(0.0, 0.0, 50.0, 10.0, q=0.3) == (0.0, 0.0)
    assert accept_probability(1e-6, 0.0, 0.0, 50.0, 10.0) == 1.0


@pytest.mark.parametrize("rho1, rho2", [(0.3, 0.2), (0.4, 0.25), (0.05, 0.6)])
def test_the_dropped_mass_at_half_is_the_geometric_tail(rho1, rho2):
    # at q = 0.5 the level k = n + n' of the truncated chain has mass ∝ ρ^k: the levels
    # beyond N would carry ρ^{N+1} / (1 − ρ^{N+1}) of it, and the chain keeps the first N
    # with ρ^{N+1} ≤ tol
    sol = solve_chain(rho1 * 50.0, rho2 * 10.0, 50.0, 10.0, q=0.5, tol=1e-10)
    rho = rho1 + rho2
    tail = rho ** (sol.levels + 1)
    assert sol.dropped_mass == pytest.approx(tail / (1 - tail), rel=1e-6)
    assert tail <= 1e-10


def test_partial_fractions_return_the_cancellation_unclamped():
    # near equal rates the paper's route loses every digit: what it gives is returned as it
    # is (far outside [0, 1]), never clamped into a plausible probability
    assert erlang_sum_cdf_partial_fractions(0.5, 5, 20.0, 5, 20.01) < -1.0


@pytest.mark.parametrize("lam, lam2, q", [(60.0, 10.0, 0.3), (20.0, 15.0, 0.8), (100.0, 3.0, 0.2)])
def test_the_dropped_mass_is_what_a_longer_chain_puts_beyond_the_truncation(lam, lam2, q):
    # away from q = 0.5 the levels are not geometric: the estimate extrapolates the decay
    # near the top, and must agree with the mass that a chain truncated much further out
    # (tol 1e-15) puts on the levels above N
    mu, mu2 = 200.0, 100 / 3
    sol = solve_chain(lam, lam2, mu, mu2, q=q, tol=1e-8)
    longer = solve_chain(lam, lam2, mu, mu2, q=q, tol=1e-15)
    beyond = longer.level_mass[sol.levels + 1 :].sum() + longer.dropped_mass
    assert sol.dropped_mass == pytest.approx(beyond, rel=0.05)
    assert sol.dropped_mass <= 1e-8


def test_threshold_admission_and_fog_loads_read_a_policy_built_at_run_time():
    # the threshold model applies to offloading: a policy read from a file is a string built
    # at run time, so the model must compare it by value (an identity test picks the chain)
    policy, admission = "".join(["off", "load"]), "".join(["thres", "hold"])
    a = analyze(G, theta=0.015, e_max=2, policy=policy, admission=admission)
    _check_against_twin(a, naive_analyze(NET, theta=0.015, e_max=2, admission="threshold"))
    want = naive_analyze(NET, theta=0.015, e_max=2, admission="threshold")["rho"]
    assert fog_loads(G, theta=0.015, e_max=2, policy=policy) == pytest.approx(want, rel=1e-9)


def test_an_acceptance_of_exactly_zero_or_one_is_a_probability():
    # [0, 1] is closed: a node that rejects everything or accepts everything is valid input
    given = [1.0, 0.0, 0.3, 0.3]  # node 0 accepts all (it stays stable), node 1 none
    a = analyze(G, theta=0.02, e_max=2, acceptance=given)
    assert a.iterations == 0
    assert a.fog["accept_light"].to_numpy() == pytest.approx(given, abs=0.0)


def test_the_partial_fractions_refusal_says_how_close_the_rates_are():
    # |μ' − μ| is what makes the coefficients overflow: the message gives it
    with pytest.raises(ParameterError, match=r"\|mu2 - mu\| = 0\.001, n \+ n2 = 800\)"):
        erlang_sum_cdf_partial_fractions(0.5, 400, 2.0, 400, 2.001)


@pytest.mark.parametrize(
    "theta, n, mu, n2, mu2", [(1.0, 200, 1e6, 200, 1.0), (1e-3, 100, 1e5, 150, 3.0)]
)
def test_partial_fractions_refuse_rates_far_apart_by_name_not_by_a_raw_overflow(
    theta, n, mu, n2, mu2
):
    # far apart, μⁿ·μ'ⁿ' leaves the float range: a Python float's ** raised OverflowError
    with pytest.raises(
        ParameterError, match=r"'mu2' parameter of erlang_sum_cdf_partial.*overflow"
    ):
        erlang_sum_cdf_partial_fractions(theta, n, mu, n2, mu2)


def test_partial_fractions_with_one_coefficient_out_of_range_keep_the_gamma_value():
    # (μ' − μ)^59 overflows but its terms vanish: Erlang(30, 10⁶) is about 3e-5 s, so the sum
    # is below 1 s with the probability that Erlang(30, 1) is, P(30, 1) = 1.43e-33
    got = erlang_sum_cdf_partial_fractions(1.0, 30, 1e6, 30, 1.0)
    assert got == pytest.approx(special.gammainc(30, 1.0 - 30e-6), rel=1e-6)


def test_a_ragged_theta_is_refused_by_name():
    # numpy cannot read a ragged list (ValueError): the refusal names θ all the same
    with pytest.raises(ParameterError, match="'theta' parameter of f"):
        theta_per_fog([[0.1], [0.1, 0.2]], 2, "f")


def test_the_dropped_mass_at_a_light_load_is_the_geometric_tail():
    # ρ = 0.0015: the shortest chain the solver keeps, whose tail estimate reads levels
    # close to the bottom; at q = 0.5 the mass beyond N is still ρ^{N+1} / (1 − ρ^{N+1})
    sol = solve_chain(0.05, 0.005, 50.0, 10.0, q=0.5, tol=1e-10)
    tail = 0.0015 ** (sol.levels + 1)
    assert sol.dropped_mass == pytest.approx(tail / (1 - tail), rel=1e-6)


def test_max_iterations_bounds_the_steps_the_analysis_reports():
    # the default network converges in k steps from P = 1: a budget of k is enough (the
    # same answer), k - 1 is refused, naming the budget
    a = analyze()
    k = a.iterations
    assert analyze(max_iterations=k).mean_delay == a.mean_delay
    with pytest.raises(ParameterError, match=f"did not converge in {k - 1} iterations"):
        analyze(max_iterations=k - 1)
