"""P3's exact chain and scaling limit at their edges: mutants of
``workbench/datacenters/{exact,limit}.py`` that the model's tests and
``tests/test_mut_datacenters_model.py`` let survive (``benchmarks/mutation.py
datacenters_model``).

The oracles: the dense generator of the whole grid (tests/naive_datacenters.py) with π zero
outside the solved window, whose ||πQ||_1 is twice the flow across the window's cut edges
(each leaves a kept state and enters a dropped one); the window rule of ``solve_exact``'s
docstring computed from Poisson laws truncated at C; the limit's docstring (the level of
the idle-server walk is the coordinate with the heavier tail).
"""

import re

import naive_datacenters as naive
import numpy as np
import pytest
from scipy import stats

from workbench import datacenters as dc
from workbench.datacenters import exact
from workbench.datacenters import limit as limit_module
from workbench.datacenters.kernels import idle_walk_qbd


def _erlang_upper(servers, load, tail):
    """Last k with P(L >= k) >= tail / 2 in the Erlang system of ``load`` (Poisson truncated
    at C, tails summed from their small end)."""
    k = np.arange(servers + 1)
    pmf = stats.poisson.pmf(k, load) / stats.poisson.cdf(servers, load)
    at_least = np.cumsum(pmf[::-1])[::-1]
    return int(np.nonzero(at_least >= tail / 2)[0][-1])


def _whole_grid_residual(sol, lam, servers, mu, p):
    q = naive.generator_two_centers(lam, servers, mu, p)
    return float(np.abs(sol.full_distribution().ravel() @ q).sum())


def test_the_residual_counts_every_cut_edge_at_its_own_rate():
    """Both centers cut below (x0, y0 > 0), unequal μ, no forwarding: the reported residual
    is ||πQ||_1 over the whole grid, i.e. 2 x0 μ1 P(ℓ1 = x0) + 2 y0 μ2 P(ℓ2 = y0) (+ LU's
    round-off), each edge at its own departure rate."""
    lam, servers, mu, p = (600.0, 24.0), (20, 70), (1.5, 0.8), (0.0, 0.0)
    sol = dc.solve_exact(lam, servers, mu, p, tail=1e-12)
    (x0, x1), (y0, y1) = sol.window
    assert x0 > 0 and y0 > 0 and x1 == 20 and sol.method == "sparse LU"
    pi = sol.distribution
    cut_low_2 = 2 * y0 * mu[1] * pi[:, 0].sum()
    full = _whole_grid_residual(sol, lam, servers, mu, p)
    assert cut_low_2 > 1e-2 * full  # center 2's lower edge is a visible share
    assert sol.residual == pytest.approx(full, rel=1e-5, abs=0)


def test_forwarding_acts_only_on_the_grids_own_full_edges():
    """Both windows cut at the top (x1 < C1, y1 < C2) with p > 0: nothing is forwarded from
    inside the window (a center forwards only when it is full, and the full states were
    dropped), so πQ over the whole grid, read on the window's states, is zero except on
    the cut edges, where it is minus the arrivals that cross them: −λ1 π(x1, y) and
    −λ2 π(x, y1), state by state (LU's round-off aside)."""
    lam, servers, mu, p = (2.0, 0.5), (30, 20), (1.0, 1.0), (0.9, 0.5)
    sol = dc.solve_exact(lam, servers, mu, p, tail=1e-12)
    (x0, x1), (y0, y1) = sol.window
    assert (x0, y0) == (0, 0) and x1 < 30 and y1 < 20 and sol.method == "sparse LU"
    pi = sol.distribution
    q = naive.generator_two_centers(lam, servers, mu, p)
    flow = (sol.full_distribution().ravel() @ q).reshape(31, 21)[: x1 + 1, : y1 + 1]
    crossing = np.zeros_like(pi)
    crossing[-1, :] -= lam[0] * pi[-1, :]
    crossing[:, -1] -= lam[1] * pi[:, -1]
    assert np.abs(flow - crossing).max() < 1e-3 * np.abs(crossing).max()


def test_a_center_full_on_its_own_traffic_gets_the_wide_window_at_once():
    """Center 2 (λ2 = C2 μ2) fills on its own traffic: the own-traffic windows are not tried
    (solve_exact's docstring), the window is the conservative one, each center fed with all
    the other could forward (a tolerance the own-traffic windows would meet)."""
    lam, servers, mu, p, tail = (20.0, 60.0), (60, 60), (1.0, 1.0), (0.3, 0.3), 1e-12
    assert _erlang_upper(60, 60.0, tail) == 60 and _erlang_upper(60, 20.0, tail) < 60
    sol = dc.solve_exact(lam, servers, mu, p, tol=1e-10, tail=tail)
    wide_hi = (
        _erlang_upper(60, 20.0 + 0.3 * 60.0, tail),
        _erlang_upper(60, 60.0 + 0.3 * 20.0, tail),
    )
    assert (sol.window[0][1], sol.window[1][1]) == wide_hi == (60, 60)


def test_a_window_too_large_is_skipped_and_never_returned_unverified(monkeypatch):
    """Light load, both own-traffic windows below C: with a tolerance the dropped tails
    cannot meet, the first window is not certified; the conservative one is above the state
    bound (lowered here so that it is) and skipped: no window is left, so the call raises
    rather than return the uncertified first attempt."""
    lam, servers, mu, p = (10.0, 2.0), (60, 40), (1.0, 1.0), (0.5, 0.5)
    windows = exact._windows(lam, servers, mu, p, 1e-12)
    sizes = [(x1 - x0 + 1) * (y1 - y0 + 1) for (x0, x1), (y0, y1) in windows]
    assert len(sizes) == 2 and sizes[0] < sizes[1]
    monkeypatch.setattr(exact, "MAX_STATES", sizes[0])
    with pytest.raises(dc.UncertifiedSolutionError, match="could not be certified"):
        dc.solve_exact(lam, servers, mu, p, tol=1e-15, tail=1e-12)


def test_the_walks_level_is_the_coordinate_with_the_heavier_tail():
    """Both centers overloaded: the idle-server counts decay like (c_i μ_i / λ_i)^k, and the
    level (kept exactly, 0 in ``truncation``) is the heavier-tailed one: n here, since
    c2 μ2 / λ2 = 1 / 1.2 > c1 μ1 / λ1 = 1 / 1.5; swapping the centers swaps it and the
    losses."""
    one = dc.limit_analysis((1.5, 1.2), (1.0, 1.0), (1.0, 1.0), (0.5, 0.4))
    two = dc.limit_analysis((1.2, 1.5), (1.0, 1.0), (1.0, 1.0), (0.4, 0.5))
    assert one.truncation[1] == 0 and one.truncation[0] > 0
    assert two.truncation[0] == 0 and two.truncation[1] > 0
    assert one.beta == pytest.approx(two.beta[::-1], abs=1e-9)


# A center whose excess load λ − c μ is exactly a relative 1e-9 of λ1 + λ2 + c1 μ1 + c2 μ2,
# the band within which ``regime`` calls a point critical: with tiny rates (λ and c μ near
# 1e-6, the smallest rates allowed) the difference is exact in floating point.
_TINY = 1.0030216020030216e-06  # λ with λ − 1 × 1e-6 on the band's edge (checked below)


def _on_the_band_edge(load, c, mu, i):
    scale = load[0] + load[1] + c[0] * mu[0] + c[1] * mu[1]
    return load[i] - c[i] * mu[i] == 1e-9 * scale


@pytest.mark.parametrize(
    ("load", "c", "mu", "p", "want"),
    [
        # center 2 on the edge, center 1 overloaded and forwarding nothing: the (E)/(B1)
        # boundary (center 2 is critical, not overloaded)
        ((2.0216, _TINY), (1.0, 1.0), (1.0, 1e-6), (0.0, 0.5), "E/B1 boundary"),
        # the mirror image
        ((_TINY, 2.0216), (1.0, 1.0), (1e-6, 1.0), (0.5, 0.0), "E/B2 boundary"),
        # center 1 on the edge, center 2 underloaded: no center is overloaded
        ((_TINY, 0.5216), (1.0, 2.5), (1e-6, 1.0), (0.5, 0.5), "A"),
    ],
)
def test_a_load_exactly_on_the_critical_band_edge_is_critical(load, c, mu, p, want):
    """``regime``: points within a relative 1e-9 of a boundary are boundary points, so a
    center exactly 1e-9 above critical load counts as critical, not as overloaded."""
    i = 1 if want == "E/B1 boundary" else 0
    assert _on_the_band_edge(load, c, mu, i)
    assert dc.regime(load, c, mu, p) == want


def test_the_walk_in_a_box_refuses_to_return_an_unconverged_law():
    """A tolerance below round-off cannot be met: a stated refusal with the residual, not
    a distribution that nobody checked (the claim ``pi00_box_walk`` reads only π)."""
    args = ((1.6, 0.9), (1.2, 1.0), (1.5, 0.8), (0.4, 0.7))
    with pytest.raises(dc.UncertifiedSolutionError, match="walk_in_box: .* could not be solved"):
        limit_module.walk_in_box(*args, (3, 3), 1e-30)
    pi, residual, _ = limit_module.walk_in_box(*args, (12, 10), 1e-13)
    assert residual <= 1e-13 * 20 and pi.sum() == pytest.approx(1.0, abs=1e-12)


def _walk_and_drift(load, p, lim):
    """P(m = 0), P(n = 0) two ways: the truncated walk's marginals (the QBD kernel at the
    solution's own truncation), and the drift relations of limit_analysis's Notes with the
    solution's pi00; and how much each relation amplifies an error of pi00 (its derivative
    in pi00: p2 (λ2 + p1 λ1) / (λ1 (1 - p1 p2)), and the mirror)."""
    (l1, l2), (p1, p2), pi00 = load, p, lim.pi00
    phases = max(lim.truncation)
    if lim.truncation[1] == 0:  # n is the level, m the phase
        marg, level0, *_ = idle_walk_qbd(l1, l2, 1.0, 1.0, p1, p2, phases, 1e-14, 200)
        walk = (float(marg[0]), float(level0))
    else:
        marg, level0, *_ = idle_walk_qbd(l2, l1, 1.0, 1.0, p2, p1, phases, 1e-14, 200)
        walk = (float(level0), float(marg[0]))
    d1, d2, den = l1 - 1.0, l2 - 1.0, 1 - p1 * p2
    drift = (
        (d1 + p2 * d2 - p2 * pi00 * (l2 + p1 * l1)) / (l1 * den),
        (d2 + p1 * d1 - p1 * pi00 * (l1 + p2 * l2)) / (l2 * den),
    )
    gain = (p2 * (l2 + p1 * l1) / (l1 * den), p1 * (l1 + p2 * l2) / (l2 * den))
    return walk, drift, gain


@pytest.mark.parametrize(("load", "p"), [((1.5, 1.2), (0.5, 0.4)), ((1.2, 1.5), (0.4, 0.5))])
def test_p_saturated_comes_from_the_better_conditioned_estimate(load, p):
    """limit_analysis's Notes: P(m = 0) follows from pi00 by the drift relation, except
    where that relation amplifies pi00's error (derivative above 1): then the walk's own
    marginal is read. Here one gain is 0.65 and the other 1.03, and the two estimates
    differ in the last digits, so the one reported says which was taken."""
    lim = dc.limit_analysis(load, (1.0, 1.0), (1.0, 1.0), p)
    walk, drift, gain = _walk_and_drift(load, p, lim)
    assert sorted(round(g, 2) for g in gain) == [0.65, 1.03]
    for i in (0, 1):
        assert walk[i] != drift[i]  # the two estimates are told apart
        want = drift[i] if gain[i] < 1 else walk[i]
        assert lim.p_saturated[i] == want


@pytest.mark.parametrize(("load", "p"), [((1.5, 1.2), (0.5, 0.4)), ((1.2, 1.5), (0.4, 0.5))])
def test_the_bound_on_beta_is_within_the_walks_error(load, p):
    """β_i = (1 − p_i) P(saturated) + p_i π00 mixes two quantities, each known to within
    the walk's error (the better-conditioned estimate of P(saturated) is taken, so its
    error is at most the walk's): the bound on β is at most ``truncation_error``."""
    lim = dc.limit_analysis(load, (1.0, 1.0), (1.0, 1.0), p)
    assert 0 < lim.beta_error <= lim.truncation_error


@pytest.mark.parametrize(
    ("load", "p", "larger"), [((1.2, 1.5), (0.2, 0.3), 0), ((1.5, 1.2), (0.3, 0.2), 1)]
)
def test_the_bound_on_beta_propagates_the_walks_error_through_the_drift_relations(load, p, larger):
    """Both drift relations well conditioned (gains 0.23 and 0.46 < 1): P(m = 0) and
    P(n = 0) come from pi00, so their errors are gain x the walk's error w, and the bound on
    β_i = (1 − p_i) P(saturated_i) + p_i π00 is (1 − p_i) gain_i w + p_i w, the larger of
    the two centers'. w is the walk's error as limit_analysis states it: the phase's mass
    in the last quarter of the truncation, the QBD kernel's defect, never below 1e-13.
    ``larger`` names the center whose bound is the larger (each case checks one term)."""
    lim = dc.limit_analysis(load, (1.0, 1.0), (1.0, 1.0), p)
    (l1, l2), (p1, p2) = load, p
    phases = max(lim.truncation)
    if lim.truncation[1] == 0:
        marg, *_, g_err = idle_walk_qbd(l1, l2, 1.0, 1.0, p1, p2, phases, 1e-14, 200)
    else:
        marg, *_, g_err = idle_walk_qbd(l2, l1, 1.0, 1.0, p2, p1, phases, 1e-14, 200)
    w = max(float(marg[phases - phases // 4 :].sum()), float(g_err), 1e-13)
    den = 1 - p1 * p2
    gain = (p2 * (l2 + p1 * l1) / (l1 * den), p1 * (l1 + p2 * l2) / (l2 * den))
    assert max(gain) < 1
    bound = [(1 - p[i]) * gain[i] * w + p[i] * w for i in (0, 1)]
    assert bound[larger] > 1.1 * bound[1 - larger]
    assert lim.beta_error == pytest.approx(bound[larger], rel=1e-9)


def test_a_walk_too_close_to_the_e_b1_boundary_is_refused_with_its_bound_on_beta():
    """limit_analysis's Raises: when the error bound on β exceeds max(truncation_target,
    1e-8), a stated refusal rather than β. Center 2 within 1e-7 of absorbing center 1's
    overflow (λ2 + p1 (λ1 − c1 μ1) − c2 μ2 = 1e-7): the phase needs few states (ρ1 = 2/3),
    but the walk's level is nearly null recurrent and its error reaches β above 1e-8. A
    target of 1e-3 accepts the same walk, within that target."""
    args = ((1.5, 0.75 + 1e-7), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5))
    assert dc.regime(*args) == "E"
    with pytest.raises(dc.UncertifiedSolutionError, match="could not be solved") as info:
        dc.limit_analysis(*args)
    bound = float(re.search(r"up to ([0-9.e+-]+) on beta", str(info.value)).group(1))
    assert bound > 1e-8
    loose = dc.limit_analysis(*args, truncation_target=1e-3)
    assert 1e-8 < loose.beta_error <= 1e-3
