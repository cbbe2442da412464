"""P3's exact chain where its own tests were silent: mutants of
``workbench/datacenters/{model,exact,limit}.py`` that ``tests/test_datacenters_model.py``
let survive (``benchmarks/mutation.py datacenters_model``).

The oracles: a loss system has no queue, so Little's law gives a time per request of
1 / μ exactly; without forwarding each center is an Erlang loss system, whose busy-server
law is a Poisson law truncated at C, so the window the solver keeps (the smallest range
outside which each tail holds less than ``tail`` / 2) is computed here from that law; the
solution's fields are what its docstring says they are.
"""

import math
import time

import naive_datacenters as naive
import numpy as np
import pytest
from scipy import stats

from workbench import datacenters as dc
from workbench.datacenters import exact
from workbench.datacenters import limit as limit_module
from workbench.datacenters.params import MAX_STATES
from workbench.erlang import erlang_b
from workbench.validation import ParameterError


def _erlang_window(servers, low, high, tail):
    """[lo, hi]: lo the first count whose lower tail P(L <= lo) at load ``low`` exceeds
    tail / 2, hi the last whose upper tail P(L >= hi) at load ``high`` is at least tail / 2
    (the Erlang law: a Poisson law truncated at C; tails summed from their small end)."""
    k = np.arange(servers + 1)
    p_low = stats.poisson.pmf(k, low) / stats.poisson.cdf(servers, low)
    p_high = stats.poisson.pmf(k, high) / stats.poisson.cdf(servers, high)
    at_most = np.cumsum(p_low)  # P(L <= k)
    at_least = np.cumsum(p_high[::-1])[::-1]  # P(L >= k)
    lo = int(np.count_nonzero(at_most <= tail / 2))
    hi = int(np.nonzero(at_least >= tail / 2)[0][-1])
    return min(lo, hi), hi


@pytest.mark.parametrize("tail", [1e-12, 1e-30, 1e-40])
@pytest.mark.parametrize(
    ("lam", "servers", "mu"),
    [((30.0, 16.0), (40, 30), (1.0, 1.0)), ((12.0, 45.0), (25, 80), (0.8, 1.1))],
)
def test_without_forwarding_the_window_is_each_erlang_systems_bulk(tail, lam, servers, mu):
    sol = dc.solve_exact(lam, servers, mu, (0.0, 0.0), tail=tail)
    want = tuple(_erlang_window(servers[i], lam[i] / mu[i], lam[i] / mu[i], tail) for i in (0, 1))
    assert sol.window == want
    for i in (0, 1):
        assert sol.beta[i] == pytest.approx(erlang_b(servers[i], lam[i] / mu[i]), rel=1e-9)


def test_light_forwarding_keeps_the_erlang_windows_and_heavy_widens_them():
    """Neither center fills on its own traffic: the windows of the two Erlang systems are
    tried first and certified. Center 1 overloaded: its window reaches C1 and center 2's
    must hold what center 1 forwards (load (λ2 + p1 λ1) / μ2 at the top)."""
    tail = 1e-30
    light = dc.solve_exact((20.0, 15.0), (80, 70), (1.0, 1.0), (0.5, 0.5), tail=1e-12)
    wide = _erlang_window(80, 20.0, 20.0 + 0.5 * 15.0, 1e-12)
    assert light.window[0][1] < wide[1] < 80  # the Erlang window is the tighter one
    assert light.window == (
        _erlang_window(80, 20.0, 20.0, 1e-12),
        _erlang_window(70, 15.0, 15.0, 1e-12),
    )
    heavy = dc.solve_exact((45.0, 10.0), (40, 35), (1.0, 1.0), (0.5, 0.2), tail=tail)
    assert heavy.window[0] == _erlang_window(40, 45.0, 45.0 + 0.2 * 10.0, tail)
    assert heavy.window[1] == _erlang_window(35, 10.0, 10.0 + 0.5 * 45.0, tail)
    assert heavy.window[0][1] == 40


def test_no_tail_solves_the_whole_grid_to_the_same_answer():
    kept = dc.solve_exact((30.0, 16.0), (20, 20), (1.0, 1.0), (0.6, 0.3))
    whole = dc.solve_exact((30.0, 16.0), (20, 20), (1.0, 1.0), (0.6, 0.3), tail=0.0)
    assert whole.window == ((0, 20), (0, 20)) and whole.distribution.shape == (21, 21)
    assert whole.beta == pytest.approx(kept.beta, abs=1e-12)
    assert whole.full_distribution().sum() == pytest.approx(1.0, abs=1e-12)


def test_the_solution_says_what_its_docstring_says():
    t0 = time.perf_counter()
    sol = dc.solve_exact((30.0, 16.0), (20, 25), (1.0, 1.0), (0.6, 0.3))
    wall = time.perf_counter() - t0
    assert sol.converged is True  # an uncertified solution raises instead
    assert sol.n_states == 21 * 26 and sol.grid == (20, 25)
    assert 0.0 <= sol.seconds <= wall
    table = sol.table()
    assert table.loc["P(ℓ₁ = C₁)", "value"] == f"{sol.p_full[0]:.6f}"
    assert table.loc["P(ℓ₂ = C₂)", "value"] == f"{sol.p_full[1]:.6f}"
    assert sol.p_full[0] != pytest.approx(sol.p_full[1], rel=1e-3)  # the rows can be told apart


def test_time_per_request_is_one_over_mu_by_littles_law():
    """A loss system has no queue: T = E[ℓ] / X = 1 / μ at each center, forwarding or not."""
    mu = (1.3, 0.7)
    for p in ((0.0, 0.0), (0.6, 0.3)):
        table = dc.station_table((30.0, 16.0), (20, 20), mu, p)
        for i in (1, 2):
            assert table.loc[i, "time per request T [s]"] == pytest.approx(1 / mu[i - 1], rel=1e-9)


@pytest.mark.parametrize("servers", [(1250, 1999), (1999, 1250)])
def test_a_grid_just_above_the_state_bound_is_refused_at_the_door(servers):
    """With no tail dropped the window is the grid: (C1 + 1)(C2 + 1) = 2,502,000 states is
    above the bound of 2,500,000, while one less row or column is exactly at it."""
    c1, c2 = servers
    assert (c1 + 1) * (c2 + 1) > MAX_STATES >= min(c1 * (c2 + 1), (c1 + 1) * c2)
    with pytest.raises(
        ParameterError, match=r"'servers' parameter of solve_exact must give at most"
    ):
        dc.solve_exact((1.0, 1.0), servers, (1.0, 1.0), (0.0, 0.0), tail=0.0)


def test_a_thin_window_is_solved_by_sparse_lu_with_no_gmres_iteration():
    """Center 1 far overloaded and small: its window is a few states wide, at most 32 along
    one axis, so sparse LU solves it directly (0 GMRES iterations, as the field says)."""
    sol = dc.solve_exact((400.0, 10.0), (20, 60), (1.0, 1.0), (0.2, 0.2))
    (x0, x1), (y0, y1) = sol.window
    assert min(x1 - x0 + 1, y1 - y0 + 1) <= 32
    assert sol.method == "sparse LU" and sol.iterations == 0
    busy = sol.full_distribution().sum(axis=1) @ np.arange(21)
    assert sol.mean_busy[0] == pytest.approx(busy, rel=1e-12)


# --- the scaling limit ----------------------------------------------------------------------

C, MU = (1.0, 1.0), (1.0, 1.0)


@pytest.mark.parametrize(
    ("load", "c", "mu", "p"),
    [
        ((1.5, 0.8), (1.0, 1.0), (1.0, 1.0), (0.6, 0.3)),
        ((0.8, 1.5), (1.0, 1.0), (1.0, 1.0), (0.3, 0.6)),
        ((2.4, 0.5), (1.2, 1.0), (1.5, 0.6), (0.5, 0.1)),
        ((1.4, 1.3), (1.0, 1.0), (1.0, 1.0), (0.2, 0.25)),
    ],
)
def test_in_regime_e_every_server_is_busy_so_the_loss_is_the_excess(load, c, mu, p):
    """Under (E) both centers are saturated in the limit: the accepted rate is the whole
    capacity c1 μ1 + c2 μ2, so λ1 β1 + λ2 β2 = λ1 + λ2 − c1 μ1 − c2 μ2 (flow conservation);
    and each β is (1 − p_i) P(no idle server at i) + p_i π_c(0, 0)."""
    lim = dc.limit_analysis(load, c, mu, p)
    assert lim.regime == "E"
    lost = load[0] * lim.beta[0] + load[1] * lim.beta[1]
    assert lost == pytest.approx(sum(load) - c[0] * mu[0] - c[1] * mu[1], abs=1e-8)
    a, b = lim.p_saturated
    assert lim.beta[0] == pytest.approx((1 - p[0]) * a + p[0] * lim.pi00, abs=1e-12)
    assert lim.beta[1] == pytest.approx((1 - p[1]) * b + p[1] * lim.pi00, abs=1e-12)
    assert 0 < lim.pi00 < min(a, b)


def test_swapping_the_centers_swaps_the_regime_and_the_losses():
    for load, p in (((1.5, 0.5), (0.6, 0.3)), ((1.5, 0.8), (0.6, 0.3))):
        one = dc.limit_analysis(load, C, MU, p)
        two = dc.limit_analysis(load[::-1], C, MU, p[::-1])
        assert two.regime == {"B1": "B2", "E": "E"}[one.regime]
        assert two.beta == pytest.approx(one.beta[::-1], abs=1e-9)
        assert two.p_saturated == pytest.approx(one.p_saturated[::-1], abs=1e-9)


def test_b2_closed_form_and_the_b_regimes_saturate_one_center():
    """(B2): center 2 overloaded, center 1 absorbs its overflow: β2 = (1 − p2)(1 − c2 μ2 /
    λ2), P(n = 0) = 1 − c2 μ2 / λ2, nothing else lost."""
    lim = dc.limit_analysis((0.5, 2.0), (1.0, 1.2), (1.0, 0.8), (0.6, 0.3))
    assert lim.regime == "B2"
    share = 1 - 1.2 * 0.8 / 2.0
    assert lim.beta == pytest.approx((0.0, 0.7 * share), abs=1e-15)
    assert lim.p_saturated == pytest.approx((0.0, share), abs=1e-15)
    assert lim.pi00 == 0.0


@pytest.mark.parametrize("side", ["lower", "upper"])
def test_each_tail_of_the_window_holds_half_the_tail_mass(side):
    """The window's edges are set by tail / 2 on each side: choose ``tail`` so that one
    edge's tail mass lies strictly between tail / 2 and tail (lower: 1.5 times it) or
    between tail / 3 and tail / 2 (upper: 2.4 times it), where any other share than one
    half would move that edge."""
    lam, servers = (30.0, 16.0), (40, 80)
    if side == "lower":  # center 1, load 30 on 40 servers: P(L <= k) from below
        law = stats.poisson.pmf(np.arange(41), 30.0) / stats.poisson.cdf(40, 30.0)
        masses = np.cumsum(law)
        factor, center, n = 1.5, 0, 40
    else:  # center 2, load 16 on 80 servers: P(L >= k) from above
        law = stats.poisson.pmf(np.arange(81), 16.0) / stats.poisson.cdf(80, 16.0)
        masses = np.cumsum(law[::-1])[::-1]
        factor, center, n = 2.4, 1, 80
    k = int(np.nonzero((masses > 1e-30) & (masses < 1e-13))[0][0])
    tail = factor * masses[k]
    sol = dc.solve_exact(lam, servers, (1.0, 1.0), (0.0, 0.0), tail=tail)
    want = _erlang_window(n, lam[center], lam[center], tail)
    assert sol.window[center] == want
    edge = want[0] if side == "lower" else want[1]
    assert edge == (k if side == "lower" else k - 1)  # the edge sits next to the chosen count


def test_a_window_wider_than_32_both_ways_is_solved_by_gmres():
    """Only thin windows (at most 32 states along one axis) go straight to sparse LU; a wider
    one is solved by ADI-GMRES, which converges here (it does not stagnate)."""
    sol = dc.solve_exact((50.0, 40.0), (70, 60), (1.0, 1.0), (0.3, 0.3))
    (x0, x1), (y0, y1) = sol.window
    assert min(x1 - x0 + 1, y1 - y0 + 1) > 32
    assert sol.method == "ADI-GMRES" and sol.iterations > 0
    assert sol.relative_residual <= 10 * 1e-12


@pytest.mark.parametrize(
    ("load", "regime"),
    [((0.8, 0.9), "A"), ((1.5, 0.5), "B1"), ((0.5, 1.5), "B2")],
)
def test_the_closed_form_regimes_need_no_walk(load, regime):
    """Outside (E) at most one center is saturated: π_c(0, 0) = 0, and the closed form is
    exact (no phase kept, no truncation error, no iteration)."""
    lim = dc.limit_analysis(load, C, MU, (0.6, 0.3) if regime != "B2" else (0.3, 0.6))
    assert lim.regime == regime
    assert lim.pi00 == 0.0 and lim.truncation == (0, 0)
    assert (lim.truncation_error, lim.iterations, lim.beta_error) == (0.0, 0, 0.0)
    if regime == "A":
        assert lim.beta == (0.0, 0.0) and lim.p_saturated == (0.0, 0.0)


def test_full_pooling_near_critical_load_is_exact_without_the_walk():
    """p = (1, 1) close to critical load: β1 = β2 = π_c(0, 0) = (λ1 + λ2 − c1 μ1 − c2 μ2) /
    (λ1 + λ2), exactly; P(m = 0) and P(n = 0) are not computed."""
    lim = dc.limit_analysis((1.0001, 1.0), C, MU, (1.0, 1.0))
    assert lim.beta == pytest.approx((0.0001 / 2.0001,) * 2, rel=1e-9)
    assert (lim.truncation, lim.truncation_error, lim.iterations, lim.beta_error) == (
        (0, 0),
        0.0,
        0,
        0.0,
    )
    assert all(math.isnan(x) for x in lim.p_saturated)


def test_the_e_b2_boundary_is_named():
    # λ1 + p2 (λ2 − c2 μ2) = c1 μ1 exactly: the mirror of the (E)/(B1) boundary
    assert dc.regime((0.7, 1.5), C, MU, (0.3, 0.6)) == "E/B2 boundary"
    # λ1 − c1 μ1 = −0.1 and p2 (λ2 − c2 μ2) = 0.3: center 1 cannot absorb the overflow
    assert dc.regime((0.9, 1.5), C, MU, (0.3, 0.6)) == "E"


def test_the_walk_in_a_box_with_unequal_capacities_and_rates_matches_the_dense_walk():
    args = ((1.6, 0.9), (1.2, 1.0), (1.5, 0.8), (0.4, 0.7))
    pi, _, _ = limit_module.walk_in_box(*args, (12, 10), 1e-13)
    ref = naive.stationary(naive.generator_idle_walk(*args, (12, 10)))
    np.testing.assert_allclose(pi, ref.reshape(13, 11)[::-1, ::-1], atol=1e-10)


def test_only_full_pooling_has_the_exact_shortcut_near_critical_load():
    """p = (0.5, 1): β1 and β2 differ, no closed form gives them, and the walk's tails are
    too heavy near critical load: a stated refusal, not the full-pooling formula."""
    with pytest.raises(dc.UncertifiedSolutionError, match="needs about"):
        dc.limit_analysis((1.0001, 1.0), C, MU, (0.5, 1.0))


def test_the_walk_keeps_phases_along_one_coordinate_only():
    """The level coordinate is exact (0 in ``truncation``), the phase one is cut."""
    lim = dc.limit_analysis((1.5, 0.8), C, MU, (0.6, 0.3))
    assert min(lim.truncation) == 0 and max(lim.truncation) >= 16


def test_the_residual_is_the_whole_grids_with_the_flow_out_of_the_window():
    """πQ over the whole grid (the dense generator, tests/naive_datacenters.py) with π zero
    outside the window: at a cut edge the flow out of the window leaves its state and
    enters a dropped one, so ||πQ||_1 counts it twice, as the reported residual must. Here
    a thin window (center 1 far overloaded, cut below) is solved by sparse LU, so the cut
    edges' flow, not round-off, is most of the residual; without forwarding it is exact."""
    lam, servers, mu, p = (400.0, 10.0), (20, 60), (1.0, 1.0), (0.0, 0.0)
    sol = dc.solve_exact(lam, servers, mu, p, tail=1e-12)
    (x0, x1), (y0, y1) = sol.window
    assert x0 > 0 and y1 < 60 and sol.method == "sparse LU"
    q = naive.generator_two_centers(lam, servers, mu, p)
    full = np.abs(sol.full_distribution().ravel() @ q).sum()
    assert full > 1e3 * np.finfo(float).eps * 410  # the cut edges carry flow
    assert sol.residual == pytest.approx(full, rel=1e-3)


def test_an_upper_tail_of_exactly_half_the_tail_mass_is_kept():
    """The window's upper edge is the last count whose upper tail P(L >= k) is at least
    tail / 2 (``_erlang_window``): on a tie that count stays in. One server at load 1: P(L =
    0) = P(L = 1) = 1/2 exactly, so with tail = 1 the upper tail at 1 is exactly tail / 2
    (and the lower tail at 0 too, which the lower edge drops: it keeps counts whose lower
    tail exceeds tail / 2)."""
    assert np.exp(exact._log_erlang_pmf(1, 1.0)).tolist() == [0.5, 0.5]
    assert exact._window(1, 1.0, 1.0, 1.0) == (1, 1)
    assert exact._window(1, 1.0, 1.0, 0.999) == (0, 1)  # neither tail at tail / 2
