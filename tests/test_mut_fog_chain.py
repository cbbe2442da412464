"""P1's fog-node chain, its truncation, the cloud servers and eq. 2's columns at the edges
the other fog_model tests leave alone: a load of exactly one, an idle node, the smallest
state sets of the stationary law, a tail that underflows, does not decay or grows, the
state guard at its boundary, a cloud server at load one, IoT nodes sending less than one
request per second, θ given as a 0-d array, an empty, nested or ragged sequence
(benchmarks/mutation.py, target ``fog_model``)."""

import math
import types
import warnings

import networkx as nx
import numpy as np
import pytest
from naive_fog import dense_chain_law, naive_analyze

import workbench.fog.chain as chain
from workbench.fog import analyze, mean_work, solve_chain
from workbench.fog.chain import stationary_law
from workbench.fog.delays import _cloud_servers
from workbench.fog.model import P1Params, theta_per_fog
from workbench.fog.params import MAX_CHAIN_STATES
from workbench.fog.scenario import build_scenario, compile_scenario
from workbench.validation import ParameterError, UnstableRegimeError

# ------------------------------------------------------------------ the load and the chain


def test_a_node_loaded_exactly_to_one_has_no_stationary_law():
    # ρ = 0.5/1 + 1/2 = 1 exactly (binary fractions): M/M/1-PS with ρ = 1 is null
    # recurrent, no stationary law and W̄ = ∞; the functions say so
    assert 0.5 / 1.0 + 1.0 / 2.0 == 1.0
    with pytest.raises(UnstableRegimeError, match="unstable"):
        solve_chain(0.5, 1.0, 1.0, 2.0)
    with pytest.raises(UnstableRegimeError, match="unstable"):
        mean_work(0.5, 1.0, 1.0, 2.0)


def test_an_idle_node_is_empty_with_one_level_kept():
    # λ = λ' = 0: the node is empty with probability one; ChainSolution's prob has shape
    # (N + 1, N + 1) for its N levels
    sol = solve_chain(0.0, 0.0, 3.0, 2.0)
    assert sol.prob.shape == (sol.levels + 1, sol.levels + 1) == (2, 2)
    assert sol.prob[0, 0] == 1.0 and sol.prob.sum() == 1.0
    assert sol.dropped_mass == 0.0 and sol.rho == 0.0


def test_the_stationary_law_of_one_state_that_admits_nothing_is_that_state():
    # a single state, (0, 0), closed under the moves (it admits nothing): π = (1)
    one = np.array([0])
    pi = stationary_law(one, one, np.array([False]), 2.0, 3.0, 5.0, 7.0, 0.3)
    assert list(pi) == [1.0]


def test_the_stationary_law_of_the_first_level_is_m_m_1_1():
    # (0, 0) admits, (1, 0) and (0, 1) do not: a loss system with one place, balance
    # π(1, 0)·μ = π(0, 0)·λ and π(0, 1)·μ' = π(0, 0)·λ'
    lam, lam2, mu, mu2 = 2.0, 3.0, 5.0, 7.0
    n, m = np.array([0, 1, 0]), np.array([0, 0, 1])
    pi = stationary_law(n, m, np.array([True, False, False]), lam, lam2, mu, mu2, 0.3)
    want = np.array([1.0, lam / mu, lam2 / mu2])
    assert pi == pytest.approx(want / want.sum(), rel=1e-13)


def test_the_stationary_law_computes_no_share_of_an_empty_node():
    # Q = q·n/(q·n + (1 − q)·n') is 0/0 in (0, 0), where no one is served: it is not
    # computed (no warning), and the law is the dense solve's
    levels = 6
    n, m = chain._triangle_index(levels)
    admits = n + m < levels
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pi = stationary_law(n, m, admits, 0.4, 0.3, 1.0, 0.8, 0.2)
    states = list(zip(n.tolist(), m.tolist(), strict=True))
    dense = dense_chain_law(states, lambda a, b: a + b < levels, 0.4, 0.3, 1.0, 0.8, 0.2)
    assert pi == pytest.approx(dense, abs=1e-13)


# ------------------------------------------------------------------ the tail's extrapolation


def _geometric(ratio, levels, scale=1.0):
    """A level mass scale·ratio^k, k = 0..levels (exact for powers of two)."""
    return scale * ratio ** np.arange(levels + 1, dtype=float)


def test_a_tail_that_underflows_to_zero_drops_nothing():
    # ρ = 1e-36: P(n + n' = 12) ~ 1e-432 is 0 in double precision; the mass beyond the
    # 16 levels is below every tol, so the first truncation is kept, dropping 0
    mass = _geometric(1e-36, 16)
    assert mass[12] == 0.0 and mass[4] > 0.0
    assert chain._dropped_estimate(mass) == 0.0
    sol = solve_chain(1e-30, 0.0, 1e6, 1.0)
    assert sol.levels == 16 and sol.dropped_mass == 0.0
    assert sol.prob[0, 0] == pytest.approx(1.0, abs=1e-30)


def test_the_tail_is_not_measured_on_an_empty_level():
    # _tail: None "when a measured level is empty" (of 16 levels, the decay is measured
    # between a level near 4 and one near 12): then nothing is extrapolated
    lower_empty = np.r_[1.0, np.zeros(6), np.full(10, 1e-3)]  # levels 1..6 empty
    upper_empty = np.r_[_geometric(0.5, 6), np.zeros(10)]  # levels 7..16 empty
    for mass in (lower_empty, upper_empty):
        assert chain._tail(mass) is None
        assert chain._dropped_estimate(mass) == 0.0


def test_a_tail_that_does_not_decay_extrapolates_a_large_finite_mass():
    # a flat or growing tail has no geometric sum: the extrapolation caps the decay just
    # below one, so it says "much more than what is kept" (finite, positive), never a
    # negative or infinite mass (a negative one would pass for a drop below tol)
    for ratio in (1.0, 1.05):
        mass = _geometric(ratio, 40, scale=1e-3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = chain._dropped_estimate(mass)
        assert math.isfinite(got)
        assert got > 1e6 * mass[-5]


def test_a_geometric_tail_extrapolates_its_geometric_sum():
    # level mass 2^-k: the mass beyond level 40 is Σ_{k>40} 2^-k = 2^-40, exactly
    assert chain._dropped_estimate(_geometric(0.5, 40)) == pytest.approx(2.0**-40, rel=1e-14)


def test_no_observed_decay_doubles_the_levels():
    # solve_chain's Notes: N grows by the tail's observed decay, at most doubling; a flat
    # tail (ratio exactly 1) or a growing one (ratio 1.05, masses below one) shows no
    # decay, so the truncation doubles
    for ratio in (1.0, 1.05):
        mass = _geometric(ratio, 40, scale=1e-3)
        assert chain._more_levels(mass, 1e-2, 1e-10, 40) == 80


def test_a_tail_a_few_levels_short_still_grows_by_a_quarter():
    # level mass 2^-k on 100 levels drops 2^-100; tol = 2^-100/1.5 is one level away, but
    # the growth is at least a quarter more (a bounded number of tries): 125 levels
    mass = _geometric(0.5, 100)
    dropped = chain._dropped_estimate(mass)
    assert dropped == pytest.approx(2.0**-100, rel=1e-14)
    assert chain._more_levels(mass, dropped, dropped / 1.5, 100) == 125


def test_a_truncation_that_drops_exactly_tol_is_kept(monkeypatch):
    # tol is the largest mass the truncation may drop: an estimate equal to it is
    # accepted. A stand-in law with level mass 2^-k (k ≤ 16) drops exactly 2^-16
    def geometric_law(lam, lam2, mu, mu2, q, levels):
        prob = np.zeros((levels + 1, levels + 1))
        prob[np.arange(levels + 1), 0] = _geometric(0.5, levels)
        return prob

    monkeypatch.setattr(chain, "_solve_levels", geometric_law)
    sol = solve_chain(0.01, 0.0, 1.0, 1.0, q=0.3, tol=2.0**-16)
    assert sol.levels == 16 and sol.dropped_mass == 2.0**-16


def _rho_for_first_truncation(start, tol):
    """ρ whose geometric bound (the smallest N with ρ^N ≤ tol·(1 − ρ)) is ``start``,
    found by bisection in the middle of its interval, and checked by counting."""
    lo, hi = 0.5, 1.0 - 1e-9
    for _ in range(200):
        mid = (lo + hi) / 2
        if math.log(tol * (1 - mid)) / math.log(mid) < start - 0.5:
            lo = mid
        else:
            hi = mid
    rho = (lo + hi) / 2
    n = 0
    while rho**n > tol * (1 - rho):
        n += 1
    assert n == start
    return rho


@pytest.mark.parametrize("levels, refused", [(892, False), (893, True)])
def test_the_state_guard_counts_the_triangle(monkeypatch, levels, refused):
    # n + n' ≤ N holds (N + 1)(N + 2)/2 states: 893·894/2 = 399,171 ≤ MAX_CHAIN_STATES
    # for N = 892, 894·895/2 = 400,065 above it for N = 893. The first truncation is the
    # geometric bound + 8 (solve_chain's Notes); the solvers are replaced by a law with
    # an empty tail (only the guard is tested)
    assert (893 * 894 // 2 <= MAX_CHAIN_STATES) and (894 * 895 // 2 > MAX_CHAIN_STATES)
    solved = []

    def empty_tail(lam, lam2, mu, mu2, q, n_levels):
        solved.append(n_levels)
        prob = np.zeros((n_levels + 1, n_levels + 1))
        prob[0, 0] = 1.0
        return prob

    monkeypatch.setattr(chain, "_solve_sparse", empty_tail)
    monkeypatch.setattr(chain, "_solve_levels", empty_tail)
    rho = _rho_for_first_truncation(levels - 8, 1e-10)
    args = (rho * 0.6 * 50.0, rho * 0.4 * 10.0, 50.0, 10.0)
    if refused:
        with pytest.raises(ParameterError, match=f"N = {levels}"):
            solve_chain(*args, q=0.5, tol=1e-10)
        assert solved == []
    else:
        assert solve_chain(*args, q=0.5, tol=1e-10).levels == levels
        assert solved == [levels]


# ------------------------------------------------------------------------ the cloud servers


def _one_cloud(light, heavy, z=(0.125, 0.5), units=1):
    """A compiled stand-in with one cloud server that gets ``light``, ``heavy`` [1/s]
    straight from the IoT nodes (one fog node sending it nothing)."""
    return types.SimpleNamespace(
        n_cloud=1,
        cloud_direct=np.array([[light, heavy]]),
        fog_cloud=np.array([0]),
        cloud_units=np.array([units]),
        cloud_mean=np.array([z]),
    )


def test_a_cloud_server_with_heavy_traffic_only_is_m_m_1():
    # only Heavy requests, 0.5/s, exponential Z' = 0.5 s: M/M/1 with ρ = 0.25, mean
    # sojourn Z'/(1 − ρ) = 2/3 s; per class, a Light request would wait the same
    # ρ·Z'/(1 − ρ) = 1/6 s and be processed in Z = 0.125 s
    net = _one_cloud(0.0, 0.5)
    zero = np.zeros(1)
    pooled = _cloud_servers(net, zero, zero, "pooled")
    assert pooled["h"].shape == (1, 2)  # (n_cloud, 2): one H per class
    assert pooled["load"] == pytest.approx([0.25], rel=1e-15)
    assert pooled["h"] == pytest.approx(np.array([[2 / 3, 2 / 3]]), rel=1e-14)
    per_class = _cloud_servers(net, zero, zero, "per_class")
    assert per_class["h"] == pytest.approx(np.array([[0.125 + 1 / 6, 2 / 3]]), rel=1e-14)


def test_a_cloud_server_with_light_traffic_only_is_m_m_1():
    # 0.75/s Light requests, Z = 0.125 s: ρ = 3/32, sojourn Z/(1 − ρ) = 4/29 s
    net = _one_cloud(0.75, 0.0)
    zero = np.zeros(1)
    got = _cloud_servers(net, zero, zero, "pooled")
    assert got["h"] == pytest.approx(np.array([[4 / 29, 4 / 29]]), rel=1e-14)


@pytest.mark.parametrize("heavy", [2.0, 3.0])
def test_a_cloud_server_at_load_one_or_more_is_unstable(heavy):
    # Λ·E[S] = 2 × 0.5 = 1 exactly (null recurrent), and 1.5: no stationary sojourn
    zero = np.zeros(1)
    with pytest.raises(UnstableRegimeError, match="cloud server 0 is unstable"):
        _cloud_servers(_one_cloud(0.0, heavy), zero, zero, "pooled")


# ------------------------------------------------------------------- eq. 2 and the frames


def _slow_iot_network():
    """Two fog nodes, IoT nodes sending 0.5 requests per second in all (below one)."""
    return build_scenario(nx.Graph([(0, 1)]), [2, 3], lam_per_iot=0.5, seed=4)


def test_iot_nodes_sending_less_than_one_request_per_second_mix_their_delays():
    g = _slow_iot_network()
    a = analyze(g, theta=0.02, e_max=1)
    want = naive_analyze(compile_scenario(g), theta=0.02, e_max=1)
    iot = a.iot
    rates = np.array(
        [(d["rate_light"], d["rate_heavy"]) for _, d in g.nodes(data=True) if d["role"] == "iot"]
    )
    assert 0 < rates.sum(axis=1).max() < 1 and rates[0, 0] != rates[0, 1]
    # the frame's rates are the scenario's, per class
    assert iot["rate_light"].to_numpy() == pytest.approx(rates[:, 0], rel=1e-15)
    assert iot["rate_heavy"].to_numpy() == pytest.approx(rates[:, 1], rel=1e-15)
    # d_i: eq. 2 per class, mixed by the IoT node's own rates; the paper's objective is
    # their plain mean over IoT nodes
    mix = (want["delay"] * rates).sum(axis=1) / rates.sum(axis=1)
    assert iot["delay"].to_numpy() == pytest.approx(mix, rel=1e-9)
    assert a.mean_delay_per_iot == pytest.approx(want["mean_delay_per_iot"], rel=1e-9)


def test_the_fog_frame_lists_best_right_after_mean_work():
    # NetworkAnalysis: one row per fog node "I, I', v, v', λ, λ', ρ, P, W̄, best, C, C'"
    a = analyze(_slow_iot_network(), theta=0.02, e_max=1)
    cols = list(a.fog.columns)
    assert cols.index("best") == cols.index("mean_work") + 1
    assert cols.index("cloud_light") == cols.index("best") + 1


def _listed_backwards():
    """Three fog nodes on a path 2 – 0 – 1 whose hub lists neighbour 2 before 1, and
    fog node 1 lightly loaded: best(0) = 1, an index below the one listed first."""
    layer = nx.Graph()
    layer.add_nodes_from([0, 1, 2])
    layer.add_edges_from([(0, 2), (0, 1)])
    return build_scenario(layer, [6, 1, 6], lam_per_iot=20.0, seed=2)


def test_the_best_neighbour_is_found_wherever_it_is_listed():
    g = _listed_backwards()
    net = compile_scenario(g)
    assert list(net.nbr_idx[net.nbr_ptr[0] : net.nbr_ptr[1]]) == [2, 1]
    a = analyze(g, theta=0.02, e_max=2)
    want = naive_analyze(net, theta=0.02, e_max=2)
    assert list(want["best"]) == list(a.fog["best"]) and want["best"][0] == 1
    assert a.iot["delay_light"].to_numpy() == pytest.approx(want["delay"][:, 0], rel=1e-9)
    assert a.mean_delay == pytest.approx(want["mean_delay"], rel=1e-9)


def test_the_neighbour_rule_is_read_by_value():
    # "best" spelled by the caller at run time (not the interned literal) is the same rule
    g = _listed_backwards()
    spelled = "".join(["be", "st"])
    a = analyze(g, theta=0.02, e_max=2, neighbour=spelled)
    want = naive_analyze(compile_scenario(g), theta=0.02, e_max=2, neighbour="best")
    assert a.mean_delay == pytest.approx(want["mean_delay"], rel=1e-9)


# ------------------------------------------------------------------------------------ θ


def test_a_theta_given_as_a_0d_array_is_one_number():
    # a 0-d array is a number: checked by θ's row (its message) and kept as a float
    p = P1Params(theta=np.array(0.02))
    assert type(p.theta) is float and p.theta == 0.02
    with pytest.raises(ParameterError, match=r"a finite real number in the range \[0, 1e\+06\]"):
        P1Params(theta=np.array(-1.0))


@pytest.mark.parametrize(
    "theta",
    [[], [[0.5]], [[0.01, 0.02], [0.03]], np.array([1, 2], dtype="timedelta64[s]")],
    ids=["empty", "nested", "ragged", "timedelta"],
)
def test_a_theta_that_is_no_number_nor_one_per_fog_node_is_refused(theta):
    # one θ for all or one per fog node: an empty, nested or ragged sequence, or one of
    # durations, is neither; the relation check names θ and says inf is allowed
    with pytest.raises(ParameterError, match=r"θ = inf \(never offload\) is allowed"):
        P1Params(theta=theta)
    for n_fog in (1, 3):  # a nested [[0.5]] is not the one-element [0.5], even for one node
        with pytest.raises(ParameterError, match="'theta' parameter of f "):
            theta_per_fog(theta, n_fog, "f")


def test_a_function_without_theta_ignores_the_objects_theta_per_fog_node():
    # solve_chain takes no θ: an object holding one θ per fog node of the default scenario
    # is valid, and so is solve_chain(p, ...) with it
    n_fog = P1Params().network.n_fog
    p = P1Params(theta=[0.02] * n_fog, lam_light=20.0, lam_heavy=5.0)
    sol = solve_chain(p, tol=1e-8)
    assert sol.rho == pytest.approx(20.0 / 200.0 + 5.0 / (100 / 3), rel=1e-15)
