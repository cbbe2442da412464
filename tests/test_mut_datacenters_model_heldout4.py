"""P3's exact chain and its scaling limit where a fifth held-out sample of mutants of
``workbench/datacenters/{exact,limit}.py`` found no test (session 11).

The oracles: the idle-server walk's generator built state by state
(``tests/naive_datacenters``) and its dense solve; the chain's generator built state by
state and its dense solve; flow conservation under full pooling (every server busy in the
limit, every lost request counted once); the documented certificate (a relative residual
at most 10 tol certifies); the idle-server walk solved in a box by ADI-GMRES (a
computation independent of limit_analysis's QBD, as its docstring says); and, for the
walk's start guess and the ADI shifts' lower end, the GMRES iteration counts of the code
on reference boxes (measured, deterministic for these floats), used as upper bounds.
"""

import naive_datacenters as naive
import numpy as np
import pytest

from workbench import datacenters as dc
from workbench.datacenters import exact as exact_module
from workbench.datacenters import limit as limit_module


def _walk(load, c, mu, p, box, tol):
    """walk_in_box's law in (m, n) order, checked against the dense walk on the box."""
    pi, residual, iterations = limit_module.walk_in_box(load, c, mu, p, box, tol)
    q = naive.generator_idle_walk(load, c, mu, p, box)
    dense = naive.stationary(q).reshape(box[0] + 1, box[1] + 1)
    law = pi[::-1, ::-1]  # walk_in_box's grid is x = M1 - m, y = M2 - n
    np.testing.assert_allclose(law, dense, rtol=0, atol=1e-10)
    assert residual <= tol * (law.ravel() @ -np.diag(q))
    return law, iterations


def test_a_gmres_residual_exactly_at_the_certificate_is_kept(monkeypatch):
    """The certificate is ‖πQ‖₁ / Σ π q <= 10 tol (solve_exact's Raises; the loop over
    windows accepts at equality). A GMRES answer whose relative residual is exactly
    10 tol is certified, so the sparse-LU fallback ("where GMRES stagnates") does not run:
    a stand-in GMRES returns the dense solve's law (21 x 21 states, the whole grid,
    tail = 0: no leak) and reports a residual of exactly 10 tol times a flow of 1."""
    lam, servers, mu, p, tol = (15.0, 12.0), (20, 20), (1.0, 1.0), (0.5, 0.5), 1e-9
    q = naive.generator_two_centers(lam, servers, mu, p)
    law = naive.stationary(q).reshape(21, 21)

    def stand_in(stencil, window, *rest):
        assert window == ((0, 20), (0, 20))
        return law.copy(), 10.0 * tol, 1.0, 7

    monkeypatch.setattr(exact_module, "_gmres", stand_in)
    sol = dc.solve_exact(lam, servers, mu, p, tol=tol, tail=0.0)
    assert sol.method == "ADI-GMRES"
    assert sol.relative_residual == 10.0 * tol
    assert sol.iterations == 7
    beta = naive.blocking_two_centers(lam, servers, mu, p)
    assert sol.beta == pytest.approx(beta, abs=1e-12)


@pytest.mark.parametrize(
    ("load", "mu", "p", "box", "most"),
    [
        ((3.0, 0.0), (1.0, 0.5), (0.9, 0.0), (6, 30), 5),
        ((10.0, 0.0), (1.0, 0.5), (1.0, 0.0), (30, 6), 5),
    ],
)
def test_the_walk_with_no_own_traffic_at_center_2_starts_from_a_law(load, mu, p, box, most):
    """λ2 = 0 inside (E) (center 2 saturated by center 1's overflow only): the start
    guess's profile in n has no ratio c2 μ2 / λ2 and is a geometric law of ratio 1/2, a
    probability profile (non-negative). On these boxes the law is the dense walk's, reached
    in at most the iterations measured for the code (5; margin 0, deterministic for these
    floats): a start profile with alternating signs needs more."""
    d1 = load[0] - mu[0]
    assert d1 > 0 and -mu[1] + p[0] * d1 > 0  # (E): center 2 overflows through center 1
    _, iterations = _walk(load, (1.0, 1.0), mu, p, box, 1e-10)
    assert 0 < iterations <= most


@pytest.mark.parametrize(
    ("load", "c", "mu"),
    [
        ((3.0, 2.0), (1.0, 0.25), (1.0, 2.0)),  # c2 μ2 = 0.5, c2 + μ2 = 2.25
        ((6.0, 8.0), (1.0, 10.0), (1.0, 0.1)),  # c2 μ2 = 1, c2 + μ2 = 10.1
    ],
)
def test_the_walks_shifts_use_center_2s_service_capacity(load, c, mu):
    """The ADI shifts' lower end is the smaller gap (√λ_i − √(c_i μ_i))²; center 2's gap
    is the smaller here (0.5 and 4, against center 1's 0.54 and 2.1), with c2 μ2 far from
    c2 + μ2. The law on a 20 x 20 box is the dense walk's, in at most 3 iterations (the
    count measured for the code; margin 0, deterministic for these floats): a gap computed
    from another rate (here c2 + μ2, a gap of 0.007 and of 0.4) needs 6 to 8."""
    _, iterations = _walk(load, c, mu, (0.5, 0.5), (20, 20), 1e-10)
    assert 0 < iterations <= 3


@pytest.mark.parametrize(
    ("load", "c", "mu"),
    [
        ((1.05, 1.6), (1.0, 1.0), (1.0, 1.5)),  # c2 μ2 = 1.5, c2 // μ2 = 0
        ((1.05, 1.6), (1.0, 3.0), (1.0, 0.5)),  # c2 μ2 = 1.5, c2 // μ2 = 6
    ],
)
def test_full_pooling_near_critical_load_conserves_the_flow(load, c, mu):
    """p = (1, 1) and both centers close to critical (decay ratios 0.95 and 0.94: the
    walk would need hundreds of phases): in the limit every server is busy and every lost
    request is counted once, so λ1 β1 + λ2 β2 = λ1 + λ2 − c1 μ1 − c2 μ2 with β1 = β2 = π00,
    here 0.15 / 2.65 (μ2 not 1 and not dividing c2)."""
    sol = dc.limit_analysis(load, c, mu, (1.0, 1.0))
    assert sol.regime == "E"
    want = (load[0] + load[1] - c[0] * mu[0] - c[1] * mu[1]) / (load[0] + load[1])
    assert want == pytest.approx(0.15 / 2.65, rel=1e-12)
    assert sol.pi00 == pytest.approx(want, rel=1e-12)
    assert sol.beta == pytest.approx((want, want), rel=1e-12)


def test_the_limit_keeps_enough_phases_to_answer_at_its_target():
    """(E) with p = (0.5, 0.5), decay ratios 1/1.2 and 1/1.1: the phase is truncated at
    the smallest k with (1/1.2)^k <= target / 100, plus 8, i.e. ceil(ln 1e-10 / ln(1/1.2))
    + 8 = 127 + 8 = 135 phases at a target of 1e-8, whose predicted tail (1/1.2)^(0.75 k)
    is 9.6e-9 <= 1e-8: limit_analysis answers (one phase fewer would predict 1.1e-8 and
    refuse). β is the walk's solved by ADI-GMRES in the box 80 x 100 (a computation
    independent of the QBD), up to the box's own cut tails (about 2e-8)."""
    load, c, mu, p = (1.2, 1.1), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5)
    sol = dc.limit_analysis(load, c, mu, p, truncation_target=1e-8)
    assert sol.regime == "E"
    assert sol.truncation == (135, 0)
    assert sol.beta_error <= 1e-8
    pi, _, _ = limit_module.walk_in_box(load, c, mu, p, (80, 100), 1e-10)
    law = pi[::-1, ::-1]  # (m, n)
    pi00, a, b = law[0, 0], law[0].sum(), law[:, 0].sum()
    box = ((1 - p[0]) * a + p[0] * pi00, (1 - p[1]) * b + p[1] * pi00)
    assert sol.beta == pytest.approx(box, abs=3e-8)
