"""P1's analytic model at its edges, where tests/test_mut_fog_model.py does not look: the
Erlang sum's branch where the window misses K's mass, the stationary law of a stiff chain,
the first truncation of the (n, n') chain and its growth, the fixed point's count and
damping, the root finder against its scalar twin (tests/naive_fog.py: illinois_root), the
threshold chain's size guard, an IoT node that sends nothing, and the ends of [0, 1] where
rounding leaves P(W < θ) a hair outside (benchmarks/mutation.py, target ``fog_model``)."""

import math
import warnings

import networkx as nx
import numpy as np
import pytest
from naive_fog import dense_chain_law, illinois_root, ps_accept_decimal
from scipy import special, stats

import workbench.fog.chain as chain
import workbench.fog.network as network
from workbench.fog import (
    accept_probability,
    analyze,
    erlang_sum_cdf,
    erlang_sum_cdf_partial_fractions,
    solve_chain,
)
from workbench.fog.chain import stationary_law
from workbench.fog.params import MAX_CHAIN_STATES
from workbench.fog.scenario import build_scenario
from workbench.validation import ParameterError

# ------------------------------------------------ P(Erlang(n, μ) + Erlang(n', μ') < θ)


def test_erlang_sum_whose_extra_stages_all_fall_below_the_window_is_one():
    # μ' = μ(1 − 1e-9): K ~ Geometric with P(K ≥ 1) = 1e-9, P(K ≥ 2) = 1e-18, so K's mass
    # ends at K = 1 (its 1 − 1e-17 quantile); the window for μθ = 1000 and 568 stages
    # starts at K = 2, above it. Every M = 568 + K ≤ 569 stages are done by θ but for
    # P(Poisson(1000) < 570) < 1e-40: P(W < θ) = 1 to double precision, not
    # P(K ≤ 0) = 1 − 1e-9
    mu2 = 1.0 - 1e-9
    assert stats.poisson.cdf(570, 1000.0) < 1e-40
    assert erlang_sum_cdf(1000.0, 567, 1.0, 1, mu2) == pytest.approx(1.0, abs=1e-15)


def test_erlang_sum_whose_extra_stages_all_fall_above_the_window_is_below_1e_17():
    # 3 + 60 phases in θ = 0.01 s at rates 1 and 1/2: W ≥ Erlang(63, 1), so
    # P(W < 0.01) ≤ P(Poisson(0.01) ≥ 63) < 1e-200. K ~ NegBin(60, 1/2) has P(K = 0) =
    # 2^-60 < 1e-17, so its mass starts at K = 1, above the window: what is returned is at
    # most the mass below that, P(K = 0) < 1e-17 (P(K ≤ 1) = 2.7e-17 would be too much)
    assert stats.poisson.sf(62, 0.01) < 1e-200
    got = erlang_sum_cdf(0.01, 3, 1.0, 60, 0.5)
    assert 0.0 <= got < 1e-17


# ------------------------------------------------------------- the chain's stationary law


def test_the_stationary_law_of_a_stiff_chain_is_a_probability_law():
    # rates seven orders apart (Light arrivals 1.5e-3/s served at 8e-4/s, Heavy 5e4/s served
    # at 1e4/s): the sparse solve leaves entries of about −1e-9 where the law is tiny. A law
    # has no negative entry and sums to one
    levels = 15
    n, m = chain._triangle_index(levels)
    args = (n + m < levels, 0.0015, 5e4, 8e-4, 1e4, 0.07)
    pi = stationary_law(n, m, *args)
    assert pi.min() >= 0.0
    assert pi.sum() == pytest.approx(1.0, abs=1e-13)
    # the same law as a dense solve, to the conditioning of rates seven orders apart
    states = list(zip(n.tolist(), m.tolist(), strict=True))
    admitted = dict(zip(states, args[0], strict=True))
    dense = dense_chain_law(states, lambda a, b: admitted[(a, b)], *args[1:])
    assert pi == pytest.approx(dense, abs=1e-7)


# ------------------------------------------------------- the truncation of the (n, n') chain


def _count_solves(monkeypatch):
    calls = []
    solve = chain._solve_levels

    def counted(*args):
        calls.append(args[-1])
        return solve(*args)

    monkeypatch.setattr(chain, "_solve_levels", counted)
    return calls


@pytest.mark.parametrize(
    "rho1, rho2, tol", [(0.5, 0.3, 1e-4), (0.3, 0.2, 1e-10), (0.05, 0.6, 1e-8), (0.01, 0.01, 1e-3)]
)
def test_at_half_the_first_truncation_is_the_geometric_bound_and_is_kept(
    monkeypatch, rho1, rho2, tol
):
    # solve_chain's Notes: N starts at the smallest N with ρ^N ≤ tol·(1 − ρ), plus 8 levels
    # (at least 16); at q = 0.5 the total count is geometric, so that truncation already
    # drops less than tol and is the only one solved
    calls = _count_solves(monkeypatch)
    rho = rho1 + rho2
    start = 0
    while rho**start > tol * (1 - rho):
        start += 1
    sol = solve_chain(rho1 * 50.0, rho2 * 10.0, 50.0, 10.0, q=0.5, tol=tol)
    assert sol.levels == max(16, start + 8)
    assert calls == [sol.levels]
    assert sol.dropped_mass <= tol


def test_away_from_half_one_growth_by_the_observed_decay_reaches_tol(monkeypatch):
    # q = 0.9, ρ = 0.64: the first truncation (42 levels) drops more than tol = 1e-6; its
    # tail's decay says how many levels are missing, and one solve that long is enough: N
    # lands within the 8 levels of margin (plus the estimate's error) of N*, the smallest
    # truncation whose true tail is below tol (read from a chain solved to 1e-10)
    args = (0.45, 1.9, 1.0, 10.0)
    ref = solve_chain(*args, q=0.9, tol=1e-10)
    beyond = ref.level_mass[::-1].cumsum()[::-1][1:] + ref.dropped_mass  # mass above N
    n_star = int(np.argmax(beyond <= 1e-6))
    calls = _count_solves(monkeypatch)
    sol = solve_chain(*args, q=0.9, tol=1e-6)
    assert len(calls) == 2 and calls[-1] == sol.levels
    assert n_star <= sol.levels <= n_star + 16
    assert sol.dropped_mass <= 1e-6


# ------------------------------------------------------------------------ the fixed point


def test_the_fixed_point_counts_its_steps_from_one():
    # P ← step(P) from P = 1: a step that leaves P = 1 where it is converges in one step,
    # and a budget of one step is enough
    p, iterations = network._fixed_point(lambda p: np.ones_like(p), 3, 1, "P")
    assert iterations == 1 and list(p) == [1.0] * 3
    # θ = ∞ everywhere: every node accepts all, P = 1 is the fixed point at once
    assert analyze(theta=math.inf, e_max=2).iterations == 1


def test_the_fixed_point_damps_from_its_twenty_first_step():
    # step(P) = 1 − P flips between 1 and 0 without damping: steps 1 to 20 go 1 → 0 → … →
    # 1, step 21 moves only half-way (to 1/2), and step 22 finds the fixed point 1/2
    p, iterations = network._fixed_point(lambda p: 1.0 - p, 2, 500, "P")
    assert iterations == 22 and list(p) == [0.5, 0.5]


# ------------------------------------------------------------- the fixed point's root finder


ROOT_CASES = {
    # a chord so steep on the left of the root that it rounds onto the bracket's end:
    # the midpoint takes over
    "steep-left": lambda x: np.where(x > 0.3, x - 0.3, 1e30 * (x - 0.3)),
    "steep-right": lambda x: np.where(x < 0.3, x - 0.3, 1e30 * (x - 0.3)),
    # a root a hair below the upper end, the function steep on its left
    "near-one": lambda x: np.where(x < 0.999, -(0.999 - x) * 1e20, x - 0.999),
    "exp": lambda x: np.expm1(40 * (x - 0.7)),
    "log": lambda x: np.log1p(1e6 * x) - np.log1p(2e5),
    "tanh": lambda x: np.tanh(1e4 * (x - 0.6)),
    "cubic": lambda x: (x - 0.45) ** 3,
    # the chord's first point, 1/2, is where f = −1 exactly: not a root
    "minus-one": lambda x: 4 * x * x - 2,
}
ROOTS = {
    "steep-left": 0.3,
    "steep-right": 0.3,
    "near-one": 0.999,
    "exp": 0.7,
    "log": 0.2,
    "tanh": 0.6,
    "cubic": 0.45,
    "minus-one": math.sqrt(0.5),
}


@pytest.mark.parametrize("name", list(ROOT_CASES))
def test_bracketed_root_evaluates_the_points_of_its_scalar_twin(name):
    func = ROOT_CASES[name]
    seen = []

    def vectorised(x):
        seen.append(float(x[0]))
        return func(x)

    root = network._bracketed_root(vectorised, 1)
    want, points = illinois_root(lambda x: float(func(np.array([x]))[0]))
    assert seen == points
    assert root[0] == want
    assert want == pytest.approx(ROOTS[name], abs=1e-12)


def test_bracketed_root_solves_each_entry_as_its_twin_does():
    funcs = list(ROOT_CASES.values())

    def vectorised(x):
        return np.array([f(np.array([v]))[0] for f, v in zip(funcs, x, strict=True)])

    root = network._bracketed_root(vectorised, len(funcs))
    want = [illinois_root(lambda x, f=f: float(f(np.array([x]))[0]))[0] for f in funcs]
    assert list(root) == want


# ------------------------------------------------------------- the threshold chain's guard


def test_a_threshold_chain_below_max_chain_states_is_not_refused(monkeypatch):
    # θ = 10 s at μ = 200, μ' = 100/3: 2002 × 336 grid cells, but the admitting states
    # (n/μ + n'/μ' < θ) and those one admission above them, counted here one by one, are
    # fewer than MAX_CHAIN_STATES: the guard must let the chain through (the solve itself
    # is replaced by a uniform law: only the guard is tested)
    mu, mu2, theta = 200.0, 100 / 3, 10.0
    kept = set()
    for a in range(int(theta * mu) + 2):
        for b in range(int(theta * mu2) + 2):
            if a / mu + b / mu2 < theta:
                kept.update({(a, b), (a + 1, b), (a, b + 1)})
    assert len(kept) < MAX_CHAIN_STATES
    sizes = []

    def uniform(n, m, *args):
        sizes.append(n.size)
        return np.full(n.size, 1.0 / n.size)

    monkeypatch.setattr(network, "stationary_law", uniform)
    accept, _ = network._threshold_node(100.0, 10.0, mu, mu2, 0.5, theta)
    assert sizes == [len(kept)] and 0.0 < accept < 1.0
    # twice the states: refused, naming the bound
    with pytest.raises(ParameterError, match="threshold-admission chain"):
        network._threshold_node(100.0, 10.0, mu, mu2, 0.5, 2 * theta)


# ---------------------------------------------------------------- an IoT node that is silent


def test_an_iot_node_that_sends_nothing_has_no_delay_and_raises_no_warning():
    layer = nx.Graph([(0, 1)])
    g = build_scenario(layer, 3, lam_per_iot=20.0, seed=1)
    silent = next(n for n, d in g.nodes(data=True) if d["role"] == "iot")
    g.nodes[silent]["rate_light"] = g.nodes[silent]["rate_heavy"] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0/0 computed and then thrown away
        a = analyze(g, theta=0.02, e_max=1)
    row = a.iot.iloc[0]
    assert row["rate_light"] == 0.0 and row["delay"] == 0.0
    active = a.iot["rate_light"] + a.iot["rate_heavy"] > 0
    assert a.mean_delay_per_iot == pytest.approx(a.iot["delay"][active].mean(), rel=1e-15)


# ------------------------------------------------------ the ends of [0, 1] after rounding


def _paper_sum_one_and_one(theta, mu, mu2):
    """Eqs. 19-21 for n = n' = 1, in the float operations the paper's route takes:
    μμ'·[P(Exp(μ) < θ)/(μ(μ' − μ)) + P(Exp(μ') < θ)/(μ'(μ − μ'))]."""
    mu, mu2 = np.float64(mu), np.float64(mu2)
    light = 1.0 / (mu2 - mu) * special.gammainc(1, mu * theta) / mu
    heavy = 1.0 / (mu - mu2) * special.gammainc(1, mu2 * theta) / mu2
    return float(mu * mu2 * (light + heavy))


@pytest.mark.parametrize(
    ("theta", "mu", "mu2", "raw", "end"),
    [
        # μ' − μ = 2.6e-14: the two terms (about 9.6e6) cancel to −2^-28, times μμ' = 2^28·1e-9
        (2.455685732313409e-07, 0.5181075718419745, 0.5181075718420001, -1e-9, 0.0),
        # μθ, μ'θ ≈ 2.5e4 (both CDFs are 1.0): the terms (about 5.6e6) cancel to 1 + 1e-9
        (1e4, 2.477170086805709, 2.47717015865368, 1.0 + 1e-9, 1.0),
    ],
)
def test_partial_fractions_exactly_1e_9_outside_an_end_are_rounded_to_it(theta, mu, mu2, raw, end):
    """erlang_sum_cdf_partial_fractions: a sum within 1e-9 of [0, 1], the bound included,
    is "rounding at the ends: 0 or 1". These rates are crafted so that the paper's sum
    lands exactly on −1e-9 and on 1 + 1e-9. The law lies between Erlang(2, μ) and
    Erlang(2, μ') (μ < μ'), both about 8.1e-15 at the first θ and 1.0 at the second."""
    assert _paper_sum_one_and_one(theta, mu, mu2) == raw
    got = erlang_sum_cdf_partial_fractions(theta, 1, mu, 1, mu2)
    assert 0.0 <= got <= 1.0
    assert got == end
    assert got == pytest.approx(stats.gamma.cdf(theta, 2, scale=1 / mu), rel=0, abs=1e-9)


def test_a_load_a_hair_below_one_accepts_with_a_probability_not_below_zero():
    """accept_probability at λ/μ + λ'/μ' = 14.88/60 + 2.256/3, which is 1 in decimal and
    1 − 2^-53 in floats (accepted: ρ < 1): P(W ≥ θ) = ρ·α·e^{Aθ}·1 is about 1 − 1e-16 and
    the closed form rounds it to 1 + 2^-52. P(W < θ) is still a probability, within
    rounding of the same law in 60-digit arithmetic (tests/naive_fog.py: ps_accept_decimal,
    about 1.07e-16)."""
    theta, lam, lam2, mu, mu2 = 0.024, 14.88, 2.256, 60.0, 3.0
    assert lam / mu + lam2 / mu2 == 1 - 2.0**-53
    got = accept_probability(theta, lam, lam2, mu, mu2)
    want = ps_accept_decimal(theta, lam / mu, lam2 / mu2, mu, mu2)
    assert 0.0 <= got <= 1.0
    assert got == pytest.approx(want, rel=0, abs=2e-16)
