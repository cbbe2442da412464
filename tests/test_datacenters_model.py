"""Tests of the P3 analytic model: the exact chain, the scaling limit, the ring limit."""

from __future__ import annotations

import math
import time

import naive_datacenters as naive
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench.datacenters as dc
from workbench.datacenters import exact as exact_module
from workbench.datacenters import limit as limit_module
from workbench.datacenters import model, studies
from workbench.datacenters.figures import RING_SCENARIOS
from workbench.erlang import erlang_b
from workbench.kernels.markov import grid_chain_stencil, stencil_residual, stencil_to_coo
from workbench.validation import ParameterError

EX = dc.EXAMPLE
ONE, HALF = (1.0, 1.0), (0.5, 0.5)


def _dense_from_stencil(stencil, shape):
    rows, cols, vals = stencil_to_coo(*stencil)
    n = shape[0] * shape[1]
    q = np.zeros((n, n))
    np.add.at(q, (rows, cols), vals)
    return q


# ---------------------------------------------------------------------------------------------
# kernels against their naive twins


@settings(deadline=None, max_examples=25)
@given(
    c1=st.integers(1, 7),
    c2=st.integers(1, 7),
    l1=st.floats(0.1, 10),
    l2=st.floats(0.1, 10),
    m1=st.floats(0.2, 3),
    m2=st.floats(0.2, 3),
    p1=st.floats(0, 1),
    p2=st.floats(0, 1),
)
def test_stencil_assembly_matches_naive_generator(c1, c2, l1, l2, m1, m2, p1, p2):
    stencil = grid_chain_stencil(
        np.full(c1 + 1, l1),
        np.arange(c1 + 1) * m1,
        p2 * l2,
        np.full(c2 + 1, l2),
        np.arange(c2 + 1) * m2,
        p1 * l1,
    )
    q = _dense_from_stencil(stencil, (c1 + 1, c2 + 1))
    ref = naive.generator_two_centers((l1, l2), (c1, c2), (m1, m2), (p1, p2))
    np.testing.assert_allclose(q, ref, rtol=1e-13, atol=1e-13)


@settings(deadline=None, max_examples=25)
@given(
    c1=st.integers(1, 12),
    c2=st.integers(1, 12),
    l1=st.floats(0.1, 20),
    l2=st.floats(0.1, 20),
    m1=st.floats(0.2, 3),
    m2=st.floats(0.2, 3),
    p1=st.floats(0, 1),
    p2=st.floats(0, 1),
)
def test_exact_solver_matches_naive_dense_solve(c1, c2, l1, l2, m1, m2, p1, p2):
    sol = dc.solve_exact((l1, l2), (c1, c2), (m1, m2), (p1, p2), tail=0.0)
    q = naive.generator_two_centers((l1, l2), (c1, c2), (m1, m2), (p1, p2))
    pi = naive.stationary(q).reshape(c1 + 1, c2 + 1)
    np.testing.assert_allclose(sol.distribution, pi, atol=1e-10)
    ref = naive.blocking_two_centers((l1, l2), (c1, c2), (m1, m2), (p1, p2))
    assert sol.beta == pytest.approx(ref, abs=1e-10)
    assert sol.converged and sol.relative_residual < 1e-11


@settings(deadline=None, max_examples=10)
@given(
    box1=st.integers(3, 10),
    box2=st.integers(3, 10),
    l1=st.floats(1.1, 3),
    l2=st.floats(0.3, 3),
    p1=st.floats(0, 1),
    p2=st.floats(0, 1),
)
def test_truncated_walk_matches_naive_dense_walk(box1, box2, l1, l2, p1, p2):
    args = ((l1, l2), (1.0, 1.0), (1.0, 1.0), (p1, p2))
    pi, _, _ = limit_module.walk_in_box(*args, (box1, box2), 1e-13)
    ref = naive.stationary(naive.generator_idle_walk(*args, (box1, box2)))
    ref = ref.reshape(box1 + 1, box2 + 1)[::-1, ::-1]  # walk grid stores x = M1 - m
    np.testing.assert_allclose(pi, ref, atol=1e-10)


@pytest.mark.parametrize(
    "lam,p",
    [
        ((3.0, 2.5), (0.2, 0.4)),
        ((1.5, 0.8), (0.6, 0.3)),
        ((0.8, 1.6), (0.5, 0.5)),
        ((1.2, 1.3), (1.0, 1.0)),
    ],
)
def test_qbd_limit_matches_box_walk_and_naive_walk(lam, p):
    args = (lam, (1.0, 1.0), (1.0, 1.0), p)
    lim = dc.limit_analysis(*args)
    pi, _, _ = limit_module.walk_in_box(*args, (384, 384), 1e-13)
    assert lim.pi00 == pytest.approx(pi[-1, -1], abs=1e-9)
    if lam == (3.0, 2.5):  # light tails both ways: a small dense walk is exact enough
        ref = naive.stationary(naive.generator_idle_walk(*args, (30, 30)))
        assert lim.pi00 == pytest.approx(ref[0], abs=1e-10)


# ---------------------------------------------------------------------------------------------
# exact chain against theory


def test_blocking_exact_public_api_on_the_worked_example():
    b1, b2 = dc.blocking_exact((300.0, 160.0), (200, 200), (1.0, 1.0), (0.6, 0.3))
    assert (b1, b2) == pytest.approx((0.175, 0.101), abs=1e-3)  # worked example, N = 200


def test_the_parameter_object_is_the_table_validated_once_at_the_door():
    """P3Params: one field per argument row, the table's defaults (the worked example per
    unit N); a public function takes it alone, with keywords or positionally, the same
    answer each way; a bad value names the function, the parameter, the range, the value."""
    from workbench.datacenters.params import DEFAULTS

    fields = set(dc.P3Params.model_fields)
    assert {"lam", "servers", "mu", "p", "load", "c", "tol", "events", "seed"} <= fields
    assert not fields & {"example_load1", "blocking_reading", "ring_load"}
    assert all(getattr(DEFAULTS, n) == dc.PARAMS[n].default for n in fields)
    assert (DEFAULTS.load, DEFAULTS.c, DEFAULTS.mu, DEFAULTS.p) == (
        EX["lam"],
        EX["c"],
        EX["mu"],
        EX["p"],
    )
    point = dc.P3Params(lam=(15.0, 8.0), servers=(10, 10))
    by_keywords = dc.blocking_exact(lam=(15.0, 8.0), servers=(10, 10))
    assert dc.blocking_exact(point) == by_keywords
    assert dc.blocking_exact((15.0, 8.0), (10, 10), (1.0, 1.0), (0.6, 0.3)) == by_keywords
    assert dc.blocking_exact(DEFAULTS, lam=(15.0, 8.0), servers=(10, 10)) == by_keywords
    with pytest.raises(ParameterError, match=r"'tail' parameter of solve_exact .*Got 0\.5"):
        dc.solve_exact(point, tail=0.5)
    with pytest.raises(ParameterError, match=r"'p' parameter of P3Params .*\[0, 1\]"):
        dc.P3Params(p=(0.5, 1.5))
    with pytest.raises(TypeError, match="unexpected keyword argument 'lamda'"):
        dc.regime(lamda=(1.0, 1.0))
    with pytest.raises(ParameterError, match=r"'sizes' parameter of convergence_table .*array"):
        studies.convergence_table(sizes=np.array(2.0))  # 0-d: has __len__, no length


@pytest.mark.parametrize(
    "lam,servers,mu", [((3.0, 5.0), (4, 7), (1.0, 0.7)), ((40.0, 20.0), (30, 35), (1.2, 0.8))]
)
def test_no_forwarding_reduces_to_two_erlang_b(lam, servers, mu):
    b1, b2 = dc.blocking_exact(lam, servers, mu, (0.0, 0.0))
    assert b1 == pytest.approx(erlang_b(servers[0], lam[0] / mu[0]), abs=1e-12)
    assert b2 == pytest.approx(erlang_b(servers[1], lam[1] / mu[1]), abs=1e-12)
    assert naive.erlang_b(servers[0], lam[0] / mu[0]) == pytest.approx(b1, abs=1e-12)


def test_full_forwarding_pools_the_servers_into_one_erlang_system():
    # p = (1, 1), mu1 = mu2: a request is lost iff all C1 + C2 servers are busy
    lam, servers = (30.0, 16.0), (20, 25)
    b1, b2 = dc.blocking_exact(lam, servers, (0.8, 0.8), (1.0, 1.0))
    pooled = erlang_b(sum(servers), sum(lam) / 0.8)
    assert b1 == pytest.approx(pooled, abs=1e-12)
    assert b2 == pytest.approx(pooled, abs=1e-12)


def test_symmetric_case_gives_equal_blocking():
    b1, b2 = dc.blocking_exact((45.0, 45.0), (40, 40), (1.0, 1.0), (0.5, 0.5))
    assert b1 == pytest.approx(b2, abs=1e-12)


@pytest.mark.parametrize("p", [(0.0, 0.0), (0.6, 0.3), (1.0, 1.0), (0.2, 0.9)])
def test_probabilities_sum_to_one_and_flow_balance(p):
    lam, servers, mu = (55.0, 30.0), (40, 35), (1.1, 0.9)
    sol = dc.solve_exact(lam, servers, mu, p)
    pi = sol.full_distribution()
    assert pi.sum() == pytest.approx(1.0, abs=1e-14)
    assert pi.min() >= 0.0
    # Little's law / flow balance: the rate of accepted requests (read off the boundary
    # probabilities) equals busy servers x service rate (read off the first moments); it
    # holds only for the stationary distribution
    for i in (0, 1):
        assert sol.accepted[i] == pytest.approx(sol.mean_busy[i] * mu[i], rel=1e-9)
    # a perturbed distribution (one state's mass moved to a neighbour) breaks it
    moved = sol.distribution.copy()
    moved[-1, -1], moved[-2, -1] = moved[-1, -1] - 1e-3, moved[-2, -1] + 1e-3
    busy1 = moved.sum(axis=1) @ np.arange(sol.window[0][0], sol.window[0][1] + 1)
    assert abs(busy1 * mu[0] - sol.accepted[0]) > 1e-4


def test_residual_reported_and_small_at_large_size():
    sol = dc.solve_exact((600.0, 320.0), (400, 400), (1.0, 1.0), (0.6, 0.3))
    assert sol.converged
    assert sol.relative_residual < 1e-11
    assert sol.residual < 1e-7
    assert sol.window[0][1] == 400 and sol.window[1][1] == 400


def test_window_truncation_does_not_change_the_answer():
    args = ((120.0, 64.0), (80, 80), (1.0, 1.0), (0.6, 0.3))
    a = dc.solve_exact(*args)
    b = dc.solve_exact(*args, tail=0.0)
    assert a.n_states == b.n_states
    assert a.beta == pytest.approx(b.beta, abs=1e-13)


def test_exact_against_spsolve_medium():
    import scipy.sparse as sp
    import scipy.sparse.linalg as spl

    lam, servers, mu, p = (90.0, 48.0), (60, 60), (1.0, 1.0), (0.6, 0.3)
    sol = dc.solve_exact(lam, servers, mu, p, tail=0.0)
    stencil = grid_chain_stencil(
        np.full(61, lam[0]),
        np.arange(61.0),
        p[1] * lam[1],
        np.full(61, lam[1]),
        np.arange(61.0),
        p[0] * lam[0],
    )
    rows, cols, vals = stencil_to_coo(*stencil)
    n = 61 * 61
    a = sp.csr_matrix((vals, (cols, rows)), shape=(n, n)).tolil()
    a[n - 1, :] = 1.0
    b = np.zeros(n)
    b[-1] = 1.0
    pi = spl.spsolve(a.tocsc(), b).reshape(61, 61)
    assert np.abs(pi - sol.distribution).max() < 1e-10
    res, flow = stencil_residual(pi, *stencil)
    assert res / flow < 1e-12


# ---------------------------------------------------------------------------------------------
# scaling limit


def test_limit_of_the_worked_example():
    lim = dc.limit_analysis(EX["lam"], EX["c"], EX["mu"], EX["p"])
    assert lim.regime == "E"
    assert lim.pi00 == pytest.approx(0.0425, abs=5e-4)
    assert lim.beta == pytest.approx((0.162, 0.072), abs=1e-3)
    assert lim.truncation_error < 1e-9
    assert dc.blocking_limit(EX["lam"], EX["c"], EX["mu"], EX["p"]) == lim.beta


@pytest.mark.parametrize(
    "lam,p",
    [
        ((1.5, 0.8), (0.6, 0.3)),
        ((1.3, 1.2), (0.4, 0.7)),
        ((0.8, 1.6), (0.5, 0.5)),
        ((1.2, 1.3), (1.0, 1.0)),
    ],
)
def test_limit_against_the_walk_solved_on_a_large_box(lam, p):
    # independent of the QBD and of the drift relations: the idle-server walk truncated to
    # a 300 x 300 box, solved by ADI-GMRES on its stencil; pi00, P(m=0), P(n=0) and beta
    # are read off that distribution directly
    c, mu = (1.0, 1.0), (1.0, 1.0)
    lim = dc.limit_analysis(lam, c, mu, p)
    assert lim.regime == "E"
    pi, _, _ = limit_module.walk_in_box(lam, c, mu, p, (300, 300), 1e-13)
    pi00, a, b = pi[-1, -1], pi[-1, :].sum(), pi[:, -1].sum()  # grid stores M - m, M - n
    assert lim.pi00 == pytest.approx(pi00, abs=1e-9)
    beta = ((1 - p[0]) * a + p[0] * pi00, (1 - p[1]) * b + p[1] * pi00)
    assert lim.beta == pytest.approx(beta, abs=1e-9)


def test_regimes_and_closed_forms():
    c, mu = (1.0, 1.0), (1.0, 1.0)
    assert dc.regime((0.8, 0.9), c, mu, (0.5, 0.5)) == "A"
    assert dc.blocking_limit((0.8, 0.9), c, mu, (0.5, 0.5)) == (0.0, 0.0)
    assert dc.regime((1.5, 0.5), c, mu, (0.6, 0.3)) == "B1"
    b = dc.blocking_limit((1.5, 0.5), c, mu, (0.6, 0.3))
    assert b == pytest.approx(((1 - 0.6) * (1 - 1 / 1.5), 0.0))
    assert dc.regime((0.5, 1.5), c, mu, (0.3, 0.6)) == "B2"
    assert dc.regime((1.5, 0.8), c, mu, (0.6, 0.3)) == "E"


def test_E_boundary_gives_a_stated_finite_result():
    # lambda2 + p1 (lambda1 - c1 mu1) = c2 mu2 exactly: on the (E)/(B1) boundary
    lam, c, mu, p = (1.5, 0.7), (1.0, 1.0), (1.0, 1.0), (0.6, 0.3)
    assert dc.regime(lam, c, mu, p) == "E/B1 boundary"
    t0 = time.perf_counter()
    b = dc.blocking_limit(lam, c, mu, p)
    assert time.perf_counter() - t0 < 2.0
    assert all(math.isfinite(v) for v in b)
    assert b == pytest.approx(((1 - 0.6) * (1 - 1 / 1.5), 0.0))
    # continuity: just inside (E) the walk gives nearly the same value, quickly and accurately
    for lam2, gap in ((0.72, 0.02), (0.7001, 1e-3)):
        t0 = time.perf_counter()
        inside = dc.limit_analysis((1.5, lam2), c, mu, p)
        assert time.perf_counter() - t0 < 2.0
        assert inside.regime == "E" and inside.truncation_error < 1e-8
        assert inside.beta[0] == pytest.approx(b[0], abs=gap)
        assert 0 < inside.pi00 < gap


def test_exact_approaches_limit_as_N_grows():
    table = studies.convergence_table(sizes=(25, 50, 100, 200))
    err = (table["error1"].abs() + table["error2"].abs()).to_numpy()
    assert np.all(np.diff(err) < 0)
    assert err[-1] < 0.05
    assert (table["relative_residual"] < 1e-11).all()


def test_ring_pairwise_reduction_and_where_it_stops():
    iso = dc.ring_limit(RING_SCENARIOS["isolated hot spot"], 1.0, 1.0, 0.25)
    assert list(iso["reduction"][:2]) == ["isolated", "underloaded"]
    assert iso["beta"][0] == pytest.approx((1 - 0.5) * (1 - 1 / 1.6))
    pair = dc.ring_limit(RING_SCENARIOS["two adjacent hot spots"], 1.0, 1.0, 0.25)
    assert list(pair["reduction"][:2]) == ["pair", "pair"]
    three = dc.ring_limit(RING_SCENARIOS["three adjacent hot spots"], 1.0, 1.0, 0.25)
    assert three["reduction"][1].startswith("not applicable")
    assert three["beta"][:3].isna().all()


# ---------------------------------------------------------------------------------------------
# bad input: a clear ParameterError, never a hang or NaN


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"p": (1.2, 0.3)}, "p"),
        ({"p": (-0.1, 0.3)}, "p"),
        ({"p": (0.5,)}, "p"),
        ({"lam": (0.0, 1.0)}, "lam"),
        ({"lam": (-1.0, 1.0)}, "lam"),
        ({"lam": (math.nan, 1.0)}, "lam"),
        ({"mu": (1.0, 0.0)}, "mu"),
        ({"servers": (0, 5)}, "servers"),
        ({"servers": (2.5, 5)}, "servers"),
        ({"servers": (5, 10**6)}, "servers"),
    ],
)
def test_blocking_exact_rejects_bad_input(kwargs, name):
    args = {"lam": (3.0, 2.0), "servers": (4, 4), "mu": (1.0, 1.0), "p": (0.5, 0.5)} | kwargs
    with pytest.raises(ParameterError, match=f"The '{name}' parameter of blocking_exact must"):
        dc.blocking_exact(**args)


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"p": (1.5, 0.3)}, "p"),
        ({"load": (0.0, 1.0)}, "load"),
        ({"c": (0.0, 1.0)}, "c"),
        ({"mu": (math.inf, 1.0)}, "mu"),
    ],
)
def test_blocking_limit_rejects_bad_input(kwargs, name):
    args = {"load": (1.5, 0.8), "c": (1.0, 1.0), "mu": (1.0, 1.0), "p": (0.6, 0.3)} | kwargs
    with pytest.raises(ParameterError, match=f"The '{name}' parameter of blocking_limit must"):
        dc.blocking_limit(**args)


# ---------------------------------------------------------------------------------------------
# hardening: no silent wrong numbers, bounded inputs, errors that name the right function


def test_extreme_overload_is_solved_exactly():
    # GMRES stagnated here (relative residual 4e-3) and the old solver returned
    # (0.949754, 0.948210) with only a warning
    b = dc.blocking_exact((2e4, 1.0), (500, 500), (1, 1), (0.8, 0.8))
    assert b == pytest.approx((0.950006, 0.948472), abs=2e-6)
    # full pooling with mu1 = mu2 is one Erlang system: an independent reference
    for servers, lam1 in (((500, 500), 5e4), ((5000, 5000), 5e5)):
        pooled = erlang_b(sum(servers), (lam1 + 1.0) / 1.0)
        sol = dc.solve_exact((lam1, 1.0), servers, (1, 1), (1, 1))
        assert sol.beta == pytest.approx((pooled, pooled), abs=1e-10)
        assert sol.relative_residual < 1e-11


def test_uncertifiable_solution_raises_with_the_residual(monkeypatch):
    # without the sparse-LU fallback and with one GMRES cycle the residual stays large:
    # the solver must refuse, naming the caller and the residual, instead of warning
    monkeypatch.setattr(exact_module, "_DIRECT_MAX_STATES", 0)
    monkeypatch.setattr(exact_module, "_THIN", 0)
    with pytest.raises(model.UncertifiedSolutionError, match=r"solve_exact.*relative residual"):
        dc.solve_exact((2e4, 1.0), (60, 60), (1, 1), (0.8, 0.8), max_restarts=1)


@pytest.mark.parametrize("lam1", [1.0001, 1.001, 1.01])
def test_limit_with_full_pooling_near_critical_load_is_exact(lam1):
    # p = (1, 1): beta1 = beta2 = pi00 and every server is busy, so the loss fraction is
    # (lam1 + lam2 - c1 mu1 - c2 mu2) / (lam1 + lam2); the truncated walk gave 5.6e-4 at 1.0001
    t0 = time.perf_counter()
    beta = dc.blocking_limit((lam1, lam1), (1, 1), (1, 1), (1, 1))
    assert time.perf_counter() - t0 < 2.0
    exact = (2 * lam1 - 2) / (2 * lam1)
    assert beta == pytest.approx((exact, exact), rel=1e-9)


def test_full_pooling_limit_matches_pooled_erlang_at_large_N():
    # the same statement checked against the exact chain: pooled Erlang-B at N = 20000
    lam, n = (1.3, 1.2), 20_000
    pooled = erlang_b(2 * n, (lam[0] + lam[1]) * n)
    assert dc.blocking_limit(lam, (1, 1), (1, 1), (1, 1))[0] == pytest.approx(pooled, abs=2e-4)


def test_limit_near_critical_load_raises_instead_of_guessing():
    t0 = time.perf_counter()
    with pytest.raises(model.UncertifiedSolutionError, match="limit_analysis.*critical load"):
        dc.blocking_limit((1.001, 1.002), (1, 1), (1, 1), (0.5, 0.5))
    assert time.perf_counter() - t0 < 2.0


@pytest.mark.parametrize(
    "call,name,func",
    [
        (
            lambda: dc.blocking_exact((1e308, 2.0), (4, 4), (1, 1), (0.5, 0.5)),
            "lam",
            "blocking_exact",
        ),
        (
            lambda: dc.blocking_exact((3, 2), (4, 4), (1e-308, 1), (0.5, 0.5)),
            "mu",
            "blocking_exact",
        ),
        (lambda: dc.solve_exact((1e308, 2.0), (4, 4), (1, 1), (0.5, 0.5)), "lam", "solve_exact"),
        (lambda: dc.regime((1e308, 1e308), (1, 1), (1, 1), (0.5, 0.5)), "load", "regime"),
        (
            lambda: dc.blocking_limit((1e12, 0.8), (1, 1), (1, 1), (0.6, 0.3)),
            "load",
            "blocking_limit",
        ),
        (lambda: studies.convergence_table(c=(1e308, 1)), "c", "convergence_table"),
        (lambda: studies.convergence_table(sizes=5), "sizes", "convergence_table"),
        (lambda: studies.convergence_table(sizes=(10, "20")), "sizes", "convergence_table"),
        (
            lambda: studies.optimal_forwarding((1e308, 1), (4, 4), (1, 1)),
            "lam",
            "optimal_forwarding",
        ),
        (lambda: dc.ring_limit((1.0, 1 + 2j, 1.0), 1.0, 1.0, 0.2), "load", "ring_limit"),
        (lambda: dc.ring_limit((1.0, (1.0, 2.0), 1.0), 1.0, 1.0, 0.2), "load", "ring_limit"),
        (lambda: dc.ring_limit((1.0, 1.0, 1.0), True, 1.0, 0.2), "c", "ring_limit"),
        (lambda: dc.ring_limit((1.0, "1", 1.0), 1.0, 1.0, 0.2), "load", "ring_limit"),
        (lambda: dc.ring_limit("123", 1.0, 1.0, 0.2), "load", "ring_limit"),
        (lambda: dc.ring_limit((1.0, 1.0, 1.0), 1.0, 1.0, (0.2, 0.2j, 0.2)), "p", "ring_limit"),
        (lambda: dc.ring_limit((1.0, 1.0, 1.0), 1.0, (1.0, True, 1.0), 0.2), "mu", "ring_limit"),
    ],
)
def test_bad_input_is_a_parameter_error_naming_function_and_parameter(call, name, func):
    with pytest.raises(ParameterError, match=f"The '{name}' parameter of {func} must"):
        call()


def test_state_count_error_names_the_function_called():
    with pytest.raises(ParameterError, match="parameter of blocking_exact must give at most"):
        dc.blocking_exact((4000.0, 4000.0), (5000, 5000), (1, 1), (0.5, 0.5))


def test_large_chain_is_accepted_when_the_window_is_small():
    # neither center fills up on its own traffic: nothing is forwarded and the window is
    # about 1300 x 1300 states (it was refused by the state-count bound)
    sol = dc.solve_exact((2500.0, 2500.0), (5000, 5000), (1, 1), (1, 1))
    assert sol.relative_residual < 1e-11
    assert sol.beta == pytest.approx((0.0, 0.0), abs=1e-300)
    # and where centers do fill up, the answer agrees with the conservative window
    args = ((45.0, 20.0), (40, 40), (1.0, 1.0), (0.5, 0.5))
    assert dc.solve_exact(*args).beta == pytest.approx(
        dc.solve_exact(*args, tail=0.0).beta, abs=1e-13
    )


def _corner_values(param, n=1):
    """The ends of a parameter's valid range and a middle value (one per center)."""
    lo = param.low if not param.low_open else param.low * (1 + 1e-9) or 1e-300
    values = [lo, param.high, math.sqrt(lo * param.high) if lo > 0 else param.high / 2]
    return values


@settings(deadline=None, max_examples=60)
@given(
    lam=st.tuples(*[st.sampled_from(_corner_values(dc.PARAMS["lam"]))] * 2),
    mu=st.tuples(*[st.sampled_from(_corner_values(dc.PARAMS["mu"]))] * 2),
    servers=st.tuples(*[st.sampled_from([1, 2, 50, 5000])] * 2),
    p=st.tuples(*[st.sampled_from([0.0, 0.3, 1.0])] * 2),
)
def test_exact_beta_is_a_probability_at_the_corners_of_the_parameter_table(lam, mu, servers, p):
    beta = dc.blocking_exact(lam, servers, mu, p)
    assert all(0.0 <= b <= 1.0 for b in beta), beta


@settings(deadline=None, max_examples=200)
@given(
    lam=st.tuples(*[st.sampled_from(_corner_values(dc.PARAMS["load"]))] * 2),
    mu=st.tuples(*[st.sampled_from(_corner_values(dc.PARAMS["mu"]))] * 2),
    c=st.tuples(*[st.sampled_from(_corner_values(dc.PARAMS["c"]))] * 2),
    p=st.tuples(*[st.sampled_from([0.0, 0.3, 1.0])] * 2),
)
def test_limit_beta_is_a_probability_at_the_corners_of_the_parameter_table(lam, mu, c, p):
    beta = dc.blocking_limit(lam, c, mu, p)
    assert all(0.0 <= b <= 1.0 for b in beta), beta
    assert dc.regime(lam, c, mu, p) in ("A", "B1", "B2", "E", "E/B1 boundary", "E/B2 boundary")


@settings(deadline=None, max_examples=150)
@given(
    lam=st.tuples(*[st.floats(0.05, 3.0)] * 2),
    p=st.tuples(*[st.floats(0.0, 1.0)] * 2),
)
def test_limit_beta_is_a_probability_or_a_stated_refusal_inside_the_table(lam, p):
    try:
        beta = dc.blocking_limit(lam, (1, 1), (1, 1), p)
    except model.UncertifiedSolutionError as err:  # near critical load only
        assert "critical load" in str(err)
        assert min(abs(lam[0] - 1), abs(lam[1] - 1), abs(sum(lam) - 2)) < 0.2
        return
    assert all(0.0 <= b <= 1.0 for b in beta), beta


# ---------------------------------------------------------------------------------------------
# classroom helpers: station table, readable solution, warm-up


def test_station_table_obeys_little_and_erlang():
    lam, servers, mu = (30.0, 16.0), (20, 20), (1.0, 0.5)
    free = dc.station_table(lam, servers, mu, (0.0, 0.0))
    for i in (1, 2):
        row = free.loc[i]
        blocking = erlang_b(servers[i - 1], lam[i - 1] / mu[i - 1])
        assert row["throughput X [1/s]"] == pytest.approx(lam[i - 1] * (1 - blocking), rel=1e-9)
        assert row["utilisation U"] == pytest.approx(
            row["throughput X [1/s]"] / (mu[i - 1] * servers[i - 1]), rel=1e-9
        )
        assert row["time per request T [s]"] == pytest.approx(1 / mu[i - 1], rel=1e-9)
    shared = dc.station_table(lam, servers, mu, (0.6, 0.3))
    # forwarding moves work from the overloaded center 1 to center 2
    assert shared.loc[2, "throughput X [1/s]"] > free.loc[2, "throughput X [1/s]"]


def test_solution_reads_as_a_table_and_warm_up_says_what_it_did():
    sol = dc.solve_exact((30.0, 16.0), (20, 20), (1.0, 1.0), (0.6, 0.3))
    table = sol.table()
    assert table.loc["β₁", "value"] == f"{sol.beta[0]:.6f}"
    assert "<table" in sol._repr_html_()
    message = dc.warm_up()
    assert message.startswith(("kernels loaded", "compiled the kernels"))
