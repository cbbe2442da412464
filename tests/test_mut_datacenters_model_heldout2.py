"""P3's exact chain and its scaling limit where a second held-out sample of mutants of
``workbench/datacenters/{exact,limit}.py`` found no test (session 10).

The oracles: the idle-server walk's generator built state by state
(``tests/naive_datacenters``) and its dense solve; the product of two truncated geometric
laws when nothing is forwarded (each idle count is then its own reflected birth-death
chain); two independent Erlang loss systems; the documented memory bound ``MAX_STATES``;
the documented floor of limit_analysis's error bound; and, for the ADI preconditioner's
shift interval, the GMRES iteration counts of the code on reference boxes (measured,
deterministic for these floats), used as upper bounds.
"""

import naive_datacenters as naive
import numpy as np
import pytest

from workbench import datacenters as dc
from workbench.datacenters import exact as exact_module
from workbench.datacenters import limit as limit_module


def _dense_walk(load, c, mu, p, box):
    q = naive.generator_idle_walk(load, c, mu, p, box)
    return q, naive.stationary(q).reshape(box[0] + 1, box[1] + 1)


def _walk(load, c, mu, p, box, tol):
    """walk_in_box's law in (m, n) order, checked against the dense walk on the box."""
    pi, residual, iterations = limit_module.walk_in_box(load, c, mu, p, box, tol)
    q, dense = _dense_walk(load, c, mu, p, box)
    law = pi[::-1, ::-1]  # walk_in_box's grid is x = M1 - m, y = M2 - n
    np.testing.assert_allclose(law, dense, rtol=0, atol=1e-10)
    assert residual <= tol * (law.ravel() @ -np.diag(q))
    return law, iterations


@pytest.mark.parametrize(
    ("load", "c", "mu", "box"),
    [
        ((2.0, 3.0), (1.0, 1.0), (1.5, 1.2), (10, 8)),  # r = (0.75, 0.4)
        ((3.0, 2.5), (2.0, 0.5), (0.5, 4.0), (6, 12)),  # r = (1/3, 0.8)
    ],
)
def test_without_forwarding_the_walk_starts_on_its_product_form(load, c, mu, box):
    """p = (0, 0): the idle counts m and n are independent birth-death chains (m -> m - 1
    at λ1, m -> m + 1 at c1 μ1) reflected at 0 and at the box's edge, so the walk's law on
    the box is the product of truncated geometric laws of ratios r_i = c_i μ_i / λ_i. That
    is walk_in_box's start guess: GMRES has nothing to do (0 iterations)."""
    law, iterations = _walk(load, c, mu, (0.0, 0.0), box, 1e-12)
    geo = []
    for i in range(2):
        g = (c[i] * mu[i] / load[i]) ** np.arange(box[i] + 1)
        geo.append(g / g.sum())
    np.testing.assert_allclose(law, np.outer(*geo), rtol=1e-12, atol=0)
    assert iterations == 0


def test_the_walk_at_a_critical_center_with_a_round_largest_rate():
    """λ2 = c2 μ2 (center 2 critical on its own, inside (E) through center 1's overflow):
    the gap (√λ2 − √(c2 μ2))² is 0 and the shifts' lower end is the box's floor, here with
    the largest line rate exactly 8 (λ1 + c1 μ1 + p2 λ2 = 4, twice it). The law on the box
    is the dense walk's."""
    load, c, mu, p = (2.5, 1.0), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5)
    assert dc.regime(load, c, mu, p) == "E"
    _walk(load, c, mu, p, (16, 4), 1e-12)


@pytest.mark.parametrize(
    ("load", "c", "mu", "p", "box", "most"),
    [
        ((3.0, 1.2), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5), (10, 60), 7),
        ((16.0, 9.0), (12.0, 10.0), (1.5, 0.8), (0.4, 0.7), (15, 40), 8),
        ((1.2, 3.0), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5), (60, 10), 7),  # the mirror image
        ((2.5, 1.0), (1.0, 1.0), (1.0, 1.0), (0.5, 0.5), (8, 40), 13),  # center 2 critical
    ],
)
def test_the_walks_preconditioner_on_reference_boxes(load, c, mu, p, box, most):
    """ADI-GMRES's iteration count on four reference boxes (long boxes, where the shifts'
    lower end matters; both orientations; a critical center, whose gap is 0) is at most
    the count measured for the code (7, 8, 7, 13; margin 0: the count is deterministic for
    these floats). A worse shift interval (its ends: twice the largest line rate, and the
    gaps (√λ_i − √(c_i μ_i))² floored at high / (25 max(M1, M2)²), capped at high / 4),
    fewer shifts or a worse start guess needs more; the law is the dense walk's anyway."""
    _, iterations = _walk(load, c, mu, p, box, 1e-10)
    assert 0 < iterations <= most


def test_the_table_reads_each_class_beta():
    """Nothing forwarded: each center is an Erlang loss system, β_i = B(C_i, λ_i / μ_i),
    here far apart (B(10, 12) ≈ 0.2503, B(10, 4) ≈ 0.0053). The table shows β₁ and β₂ each
    to six decimals."""
    lam, servers, mu, p = (12.0, 4.0), (10, 10), (1.0, 1.0), (0.0, 0.0)
    sol = dc.solve_exact(lam, servers, mu, p)
    rows = sol.table()["value"]
    for i, name in enumerate(("β₁", "β₂")):
        want = naive.erlang_b(servers[i], lam[i] / mu[i])
        assert float(rows[name]) == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize("max_states", [60 * 69, 80 * 86])
def test_a_window_beyond_max_states_is_never_solved(monkeypatch, max_states):
    """MAX_STATES bounds the states actually solved. Neither center fills up on its own
    traffic, so solve_exact has two windows, its own-traffic one (60 x 69 states) and the
    wide one (81 x 86 = 6,966). With MAX_STATES lowered to the first's size, or to one row
    fewer than the wide one (80 x 86), and every solve failing its certificate (a stand-in
    solver), the wide window is skipped, not solved, and no result is returned."""
    lam, servers, mu, p = (20.0, 25.0), (80, 90), (1.0, 1.0), (0.5, 0.5)
    windows = exact_module._windows(lam, servers, mu, p, 1e-12)
    assert windows == [((0, 59), (0, 68)), ((0, 80), (0, 85))]
    monkeypatch.setattr(exact_module, "MAX_STATES", max_states)
    solved = []

    def failing(lam, servers, mu, p, window, *rest):
        solved.append(window)
        return {
            "relative_residual": np.inf,
            "iterations": 0,
            "method": "stand-in",
            "window": window,
            "pi": None,
        }

    monkeypatch.setattr(exact_module, "_solve_window", failing)
    with pytest.raises(dc.UncertifiedSolutionError):
        dc.solve_exact(lam, servers, mu, p, tail=1e-12)
    assert solved == [windows[0]]


def test_the_limits_refusal_names_the_floor_of_its_target():
    """limit_analysis's Raises: the bound on β is compared with max(truncation_target, 1e-8).
    With a target of 1e-10 and at most 16 phases (the phase decays like (2/3)^k, about
    0.008 after 12 of them) it refuses, and the message names 1e-08, not the target."""
    with pytest.raises(dc.UncertifiedSolutionError) as err:
        dc.limit_analysis(
            (1.5, 1.2), (1.0, 1.0), (1.0, 1.0), (0.5, 0.4), truncation_target=1e-10, max_phases=16
        )
    assert "(> 1e-08)" in str(err.value)
