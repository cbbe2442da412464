"""P3's exact chain and its scaling limit where a held-out sample of mutants of
``workbench/datacenters/{exact,limit}.py`` found no test (session 10).

The oracles: the whole grid's generator built state by state (``tests/naive_datacenters``),
whose ‖πQ‖₁ is what the certificate claims to bound; two independent Erlang loss systems
when nothing is forwarded (P(both full) = B(C1, a1) B(C2, a2)); the triangle inequality
(‖πQ‖₁ ≤ 2 Σ π q for any law π); the dense idle-server walk on the same box; the QBD
kernel's own marginal; and values worked out by hand from the docstrings.
"""

import re

import naive_datacenters as naive
import numpy as np
import pytest
from scipy import stats

from workbench import datacenters as dc
from workbench.datacenters import limit as limit_module
from workbench.datacenters.kernels import idle_walk_qbd
from workbench.erlang import erlang_b

# Center 1 light (its window stops well below C1), center 2 overloaded (its window reaches
# C2), nothing forwarded: the chain is two independent Erlang systems, one window only, thin
# (sparse LU, no GMRES round-off), and with the largest tail allowed the flow out of the
# window is far above LU's round-off.
LAM, SERVERS, MU, NO_P = (5.0, 60.0), (40, 30), (1.0, 1.0), (0.0, 0.0)
TAIL = 1e-12


def _whole_grid(sol, lam, servers, mu, p):
    """‖πQ‖₁ and Σ π q over the whole grid, π the solution padded with zeros."""
    q = naive.generator_two_centers(lam, servers, mu, p)
    pi = sol.full_distribution().ravel()
    return float(np.abs(pi @ q).sum()), float(pi @ -np.diag(q))


def test_the_certificate_is_ten_times_tol():
    """solve_exact's Raises: no result once ‖πQ‖₁ exceeds 10 tol times the total flow. The
    answer does not depend on tol here (sparse LU), so tol just above a tenth of the
    whole-grid relative residual certifies it and tol just below refuses it."""
    sol = dc.solve_exact(LAM, SERVERS, MU, NO_P, tail=TAIL)
    assert sol.method == "sparse LU"
    res, flow = _whole_grid(sol, LAM, SERVERS, MU, NO_P)
    rel = res / flow
    assert 1e-13 < rel < 1e-11  # the dropped tails, far above LU's round-off
    ok = dc.solve_exact(LAM, SERVERS, MU, NO_P, tol=rel / 9.5, tail=TAIL)
    assert ok.relative_residual == pytest.approx(rel, rel=1e-3)
    tol = rel / 10.5
    with pytest.raises(dc.UncertifiedSolutionError, match="could not be certified") as err:
        dc.solve_exact(LAM, SERVERS, MU, NO_P, tol=tol, tail=TAIL)
    # the message gives the residual reached and the bound it missed, 10 tol
    assert f"= {rel:.1e} > {10 * tol:.0e}" in str(err.value)


@pytest.mark.parametrize("swap", [False, True])
def test_both_full_needs_both_windows_to_reach_their_capacity(swap):
    """Nothing forwarded: P(ℓ1 = C1, ℓ2 = C2) = B(C1, a1) B(C2, a2) (≈ 4e-23 here), and the
    center whose window stops below its capacity has P(full) below the tail. The last
    state of the window is not the corner (C1, C2) and must not be read as it."""
    lam, servers = (LAM, SERVERS) if not swap else (LAM[::-1], SERVERS[::-1])
    sol = dc.solve_exact(lam, servers, MU, NO_P, tail=TAIL)
    light = 1 if swap else 0
    assert sol.window[light][1] < servers[light]
    assert sol.window[1 - light][1] == servers[1 - light]
    blocking = [erlang_b(servers[i], lam[i]) for i in (0, 1)]
    assert sol.p_both_full == pytest.approx(blocking[0] * blocking[1], abs=1e-18)
    # the light center is full with probability ~1e-23: far below the kept mass, read as 0
    assert sol.p_full[light] == pytest.approx(blocking[light], abs=1e-18)
    assert sol.p_full[1 - light] == pytest.approx(blocking[1 - light], abs=1e-11)
    assert sol.full_distribution()[-1, -1] == sol.p_both_full


@pytest.mark.parametrize("p", [NO_P, (0.0, 0.3)])
def test_the_flow_out_of_a_window_cut_at_the_top_is_in_the_residual(p):
    """Window cut at the top of center 1 (x1 < C1) and below at center 2 (y0 > 0), and
    center 2 forwards nothing to center 1 from inside the window unless p2 > 0 at y = C2:
    ‖πQ‖₁ over the whole grid counts each cut edge twice (out of a kept state, into a
    dropped one), the top one at λ1 per unit of P(ℓ1 = x1). The reported residual is that
    whole-grid one; with p2 > 0 the top edge is counted at the bound λ1 + p2 λ2 (the
    window's forwarding could add up to p2 λ2), i.e. 2 p2 λ2 P(ℓ1 = x1) above it."""
    sol = dc.solve_exact(LAM, SERVERS, MU, p, tail=TAIL)
    (x0, x1), (y0, y1) = sol.window
    if p == NO_P:
        assert x1 < SERVERS[0] and y0 > 0 and sol.method == "sparse LU"
    res, _ = _whole_grid(sol, LAM, SERVERS, MU, p)
    top = sol.distribution[-1, :].sum() if x1 < SERVERS[0] else 0.0
    assert 2 * LAM[0] * top > 0.1 * res or p != NO_P  # the top edge is a visible share
    assert sol.residual == pytest.approx(res + 2 * p[1] * LAM[1] * top, rel=1e-4)


def test_the_flow_out_of_a_window_cut_at_the_top_of_center_2_is_in_the_residual():
    """The mirror image: center 2 light, cut at its top, at λ2 per unit of P(ℓ2 = y1)."""
    lam, servers = LAM[::-1], SERVERS[::-1]
    sol = dc.solve_exact(lam, servers, MU, NO_P, tail=TAIL)
    (x0, x1), (y0, y1) = sol.window
    assert y1 < servers[1] and x0 > 0
    res, _ = _whole_grid(sol, lam, servers, MU, NO_P)
    assert 2 * lam[1] * sol.distribution[:, -1].sum() > 0.1 * res
    assert sol.residual == pytest.approx(res, rel=1e-4)


def _dense_beta(lam, servers, mu, p):
    """β from a dense solve of the whole grid's generator (one balance equation replaced
    by the normalisation)."""
    q = naive.generator_two_centers(lam, servers, mu, p)
    a = q.T.copy()
    a[-1, :] = 1.0
    rhs = np.zeros(q.shape[0])
    rhs[-1] = 1.0
    pi = np.linalg.solve(a, rhs).reshape(servers[0] + 1, servers[1] + 1)
    both = pi[-1, -1]
    return tuple((1 - p[i]) * pi.sum(axis=1 - i)[-1] + p[i] * both for i in (0, 1))


def test_a_window_32_states_thin_is_solved_by_sparse_lu():
    """solve_exact's Notes: windows of at most 32 states along one axis go to sparse LU.
    tail = 0 keeps the whole grid: 32 x 41 states."""
    lam, servers, mu, p = (40.0, 30.0), (31, 40), (1.0, 1.2), (0.5, 0.4)
    sol = dc.solve_exact(lam, servers, mu, p, tail=0.0)
    assert sol.distribution.shape == (32, 41)
    assert (sol.method, sol.iterations) == ("sparse LU", 0)
    assert sol.beta == pytest.approx(_dense_beta(lam, servers, mu, p), abs=1e-10)


def test_gmres_runs_at_most_restart_times_max_restarts_iterations():
    """restart = 2 and max_restarts = 1: one cycle of two GMRES iterations, which cannot
    certify this 11 x 11 chain; sparse LU takes over and gives the dense answer."""
    lam, servers, mu, p = (9.0, 8.0), (10, 10), (1.0, 1.0), (0.5, 0.5)
    sol = dc.solve_exact(lam, servers, mu, p, tail=0.0, restart=2, max_restarts=1)
    assert sol.method == "sparse LU (GMRES stagnated)"
    assert sol.iterations == 2
    assert sol.beta == pytest.approx(naive.blocking_two_centers(lam, servers, mu, p), abs=1e-10)


@pytest.mark.parametrize(
    ("lam", "restart", "max_restarts", "want_cycles"),
    [
        ((9.0, 0.08), 2, 60, 5),  # gains 2.6, 3.3, 2.3, then 0.98: the fifth cycle stalls
        ((9.0, 0.1), 2, 60, 4),  # gains 2.9, 3.8, then 1.84: just short of a factor 2
        ((9.0, 0.08), 2, 3, 3),  # still gaining, but only three restarts allowed
    ],
)
def test_gmres_hands_over_to_sparse_lu_when_a_cycle_gains_less_than_two(
    monkeypatch, lam, restart, max_restarts, want_cycles
):
    """exact's rule: GMRES runs one restart cycle per kernel call and gives up when a cycle
    gains less than a factor 2 on the relative residual (or after max_restarts cycles);
    sparse LU then solves the window. Slow services at center 2 (μ2 = 0.01) and one ADI
    shift make GMRES(2) crawl here. The cycles are recorded as the real kernel runs them."""
    from workbench.datacenters import exact

    real, cycles = exact.stationary_gmres, []

    def recorded(*args):
        out = real(*args)
        cycles.append({"restart": args[-2], "cycles": args[-1], "rel": out[1] / out[2]})
        cycles[-1].update(its=out[3], converged=out[4])
        return out

    monkeypatch.setattr(exact, "stationary_gmres", recorded)
    servers, mu, p = (10, 10), (1.0, 0.01), (0.5, 0.5)
    sol = dc.solve_exact(
        lam, servers, mu, p, tail=0.0, shifts=1, restart=restart, max_restarts=max_restarts
    )
    assert all(c["restart"] == restart and c["cycles"] == 1 for c in cycles)
    assert len(cycles) == want_cycles <= max_restarts
    rel = [c["rel"] for c in cycles]
    assert not any(c["converged"] for c in cycles)
    assert all(rel[k] <= 0.5 * rel[k - 1] for k in range(1, len(rel) - 1))
    if want_cycles < max_restarts:
        assert rel[-1] > 0.5 * rel[-2]  # the cycle that stalled ends the run
    assert sol.iterations == sum(c["its"] for c in cycles)
    assert sol.method == "sparse LU (GMRES stagnated)"
    assert sol.beta == pytest.approx(_dense_beta(lam, servers, mu, p), abs=1e-10)


def _above_capacity(c, mu, l2, factor):
    """Center 1's load ``factor`` × 1e-9 of the total rate λ1 + λ2 + c1 μ1 + c2 μ2 above
    its capacity c1 μ1 (the band of regime's Notes is relative to that total)."""
    total = 2 * c[0] * mu[0] + l2 + c[1] * mu[1]
    return (c[0] * mu[0] + factor * 1e-9 * total, l2)


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize(("factor", "want"), [(0.8, "A"), (1.2, "B1")])
def test_the_critical_band_is_relative_to_the_total_rate(factor, want, swap):
    """c1 μ1 = 100 (not c1 + μ1 = 20): a center 0.8e-9 of the total rate above capacity is
    critical (regime A with center 2 light), 1.2e-9 above is overloaded (B1); the mirror
    image for center 2."""
    c, mu, p = (10.0, 1.0), (10.0, 1.0), (0.0, 0.5)
    load = _above_capacity(c, mu, 0.5, factor)
    if swap:
        load, c, mu, p, want = load[::-1], c[::-1], mu[::-1], p[::-1], want.replace("1", "2")
    assert dc.regime(load, c, mu, p) == want


@pytest.mark.parametrize(
    ("load", "p", "want"),
    [
        ((0.5, 0.6), (0.5, 0.5), "A"),  # both underloaded
        ((1.5, 1.2), (0.5, 0.5), "E"),  # both overloaded
        ((1.5, 0.8), (0.5, 0.5), "E"),  # 0.8 - 1 + 0.5 * 0.5 = 0.05 > 0: overflow saturates 2
        ((1.5, 0.8), (0.3, 0.5), "B1"),  # -0.2 + 0.3 * 0.5 = -0.05: center 2 absorbs it
        ((1.5, 0.75), (0.5, 0.5), "E/B1 boundary"),  # -0.25 + 0.5 * 0.5 = 0 exactly
        ((0.8, 1.5), (0.5, 0.5), "E"),
        ((0.8, 1.5), (0.5, 0.3), "B2"),
        ((0.75, 1.5), (0.5, 0.5), "E/B2 boundary"),
        ((1.5, 1.0), (0.0, 0.5), "E/B1 boundary"),  # center 2 exactly critical, nothing sent
        ((1.0, 1.0), (0.5, 0.5), "A"),  # both exactly critical
    ],
)
def test_every_branch_of_the_regime(load, p, want):
    """regime's Notes by hand, c = μ = (1, 1): (E) iff λ1 > 1 and λ2 + p1 (λ1 − 1) > 1, or
    the mirror; (B1) center 1 overloaded and center 2 absorbing its overflow."""
    assert dc.regime(load, (1.0, 1.0), (1.0, 1.0), p) == want


def _walk_matches_dense(load, c, mu, p, box, tol=1e-12):
    pi, residual, iterations = limit_module.walk_in_box(load, c, mu, p, box, tol)
    q = naive.generator_idle_walk(load, c, mu, p, box)
    dense = naive.stationary(q).reshape(box[0] + 1, box[1] + 1)
    # walk_in_box's grid is x = M1 - m, y = M2 - n
    np.testing.assert_allclose(pi[::-1, ::-1], dense, rtol=0, atol=1e-10)
    assert 0 < iterations <= 20 * 200
    # the residual returned is ‖πQ‖₁ of the law returned, within tol of the total flow
    flat = pi[::-1, ::-1].ravel()
    assert residual == pytest.approx(np.abs(flat @ q).sum(), rel=1e-6, abs=1e-15)
    assert residual <= tol * (flat @ -np.diag(q))


@pytest.mark.parametrize(
    ("load", "p"),
    [((3.0, 0.0), (1.0, 0.0)), ((0.0, 3.0), (0.0, 1.0))],
)
def test_the_walk_with_one_center_receiving_nothing(load, p):
    """A center with no own arrivals (λ = 0) inside (E): it is saturated by the other's
    overflow only. The walk in a box is the dense walk on the same box."""
    _walk_matches_dense(load, (1.0, 1.0), (1.0, 1.0), p, (12, 12))


def test_the_walk_with_a_very_heavy_load_on_one_center():
    """λ1 = 10⁴ c1 μ1: center 1 almost never has an idle server (P(m = k) ≈ 10⁻⁴ᵏ, below
    the smallest double long before m = 80). The box's law is still the dense one."""
    _walk_matches_dense((1e4, 1.0), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5), (80, 2))


def test_the_walk_with_center_2_exactly_critical_on_its_own():
    """λ2 = c2 μ2 exactly (center 2 critical, saturated only through center 1's overflow):
    the gap (√λ2 − √(c2 μ2))² is 0, and the box's law is still the dense one."""
    _walk_matches_dense((2.0, 1.0), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5), (16, 4))


def test_the_walks_refusal_states_a_relative_residual():
    """An unreachable tolerance: the message gives ‖πQ‖₁ / Σ π q, which for any law π is at
    most 2 (triangle inequality), here with rates well above 2, and above the tol."""
    args = ((16.0, 9.0), (12.0, 10.0), (1.5, 0.8), (0.4, 0.7))
    with pytest.raises(dc.UncertifiedSolutionError) as err:
        limit_module.walk_in_box(*args, (1, 1), 1e-30)
    found = re.search(r"sum pi q = (\S+) after (\d+) GMRES iterations", str(err.value))
    assert found is not None
    assert 1e-30 < float(found.group(1)) <= 2.0
    assert 0 < int(found.group(2)) <= 20 * 200


@pytest.mark.parametrize("swap", [False, True])
def test_at_gain_one_p_saturated_is_the_walks_marginal(swap):
    """limit_analysis reads P(m = 0) off the drift relation only where it amplifies π00's
    error by less than 1: at p1 = 0, p2 = 1/2, λ = (2, 4) its gain p2 λ2 / λ1 is exactly 1,
    and P(m = 0) is the walk's own marginal (the QBD kernel at the same truncation), which
    differs from the drift relation's value in the last digits. The mirror image reads
    P(n = 0) the same way (the walk then has m as its level)."""
    load, c, mu, p = (2.0, 4.0), (1.0, 3.0), (1.0, 1.0), (0.0, 0.5)
    i = 0
    if swap:
        load, c, mu, p, i = load[::-1], c[::-1], mu[::-1], p[::-1], 1
    lim = dc.limit_analysis(load, c, mu, p, truncation_target=1e-6)
    assert lim.truncation[1 - i] == 0  # the loaded center's idle count is the phase
    phases = lim.truncation[i]
    marg, level0, pi00, *_ = idle_walk_qbd(2.0, 4.0, 1.0, 3.0, 0.0, 0.5, phases, 1e-14, 200)
    drift = (1.0 + 0.5 * 1.0 - 0.5 * pi00 * 4.0) / 2.0
    assert abs(drift - marg[0]) > 1e-13  # the two estimates are told apart
    assert lim.p_saturated[i] == pytest.approx(float(marg[0]), rel=0, abs=1e-15)
    assert lim.beta[i] == pytest.approx(float(marg[0]), rel=0, abs=1e-15)
    # the reported error covers the mismatch of the drift relation (truncation_error's doc)
    assert lim.truncation_error >= abs(drift - marg[0])


def test_full_pooling_reads_p_saturated_off_the_walk():
    """p = (1, 1) away from critical load: β1 = β2 = π00 = (λ1 + λ2 − c1 μ1 − c2 μ2) /
    (λ1 + λ2) exactly, with no error on β; P(m = 0) and P(n = 0) are the walk's (the QBD
    kernel at the solution's truncation, n the level since 1 / 2.5 > 1 / 3), and agree
    with the dense walk cut far in its tails (below 1e-11)."""
    load, c, mu, p = (3.0, 2.5), (1.0, 1.0), (1.0, 1.0), (1.0, 1.0)
    lim = dc.limit_analysis(load, c, mu, p)
    assert lim.regime == "E" and lim.truncation[1] == 0
    want = 3.5 / 5.5
    assert lim.beta == pytest.approx((want, want), rel=1e-14)
    assert lim.pi00 == pytest.approx(want, rel=1e-14)
    assert lim.beta_error == 0.0
    phases = lim.truncation[0]
    marg, level0, *_ = idle_walk_qbd(3.0, 2.5, 1.0, 1.0, 1.0, 1.0, phases, 1e-14, 200)
    assert lim.p_saturated == pytest.approx((float(marg[0]), float(level0)), rel=0, abs=1e-15)
    assert 1e-13 <= lim.truncation_error < 1e-8
    dense_marg, dense_level0, _ = naive.idle_walk_dense(3.0, 2.5, 1.0, 1.0, 1.0, 1.0, 25, 30)
    assert lim.p_saturated == pytest.approx((dense_marg[0], dense_level0), abs=1e-10)


def test_without_forwarding_gmres_starts_on_the_answer():
    """solve_exact's Notes: GMRES starts from the product of the two Erlang laws, the p = 0
    solution (on a window too: cutting a reversible chain keeps its product form). With
    nothing forwarded and a window wider than 32 states both ways, it has nothing to do."""
    lam, servers, mu = (37.5, 20.0), (60, 60), (1.25, 0.8)  # loads 30 and 25
    sol = dc.solve_exact(lam, servers, mu, NO_P)
    (x0, x1), (y0, y1) = sol.window
    assert min(x1 - x0, y1 - y0) >= 32 and sol.method == "ADI-GMRES"
    assert sol.iterations == 0
    for i, (lo, hi) in enumerate(sol.window):
        k = np.arange(lo, hi + 1)
        load = lam[i] / mu[i]
        erlang = stats.poisson.pmf(k, load) / stats.poisson.cdf(servers[i], load)
        np.testing.assert_allclose(sol.distribution.sum(axis=1 - i), erlang, rtol=1e-9, atol=0)


def test_the_limit_is_as_accurate_as_its_truncation_target():
    """truncation_target bounds the error of the walk: β at a loose target is within it
    of β at a tight one (1e-13), and the reported bound on β says so."""
    load, c, mu, p = (1.5, 1.2), (1.0, 1.0), (1.0, 1.0), (0.5, 0.4)
    tight = dc.limit_analysis(load, c, mu, p, truncation_target=1e-13)
    for target in (1e-5, 1e-8):
        loose = dc.limit_analysis(load, c, mu, p, truncation_target=target)
        assert loose.beta_error <= target
        assert loose.beta == pytest.approx(tight.beta, abs=target)
        assert loose.pi00 == pytest.approx(tight.pi00, abs=target)
