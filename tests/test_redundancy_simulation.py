"""P4 simulation against theory: Erlang-B, M/M/c/c+w balance equations, seeds."""

import pytest

from workbench import redundancy as rd

SEXP, PARETO = rd.SExp(3.0, 0.2), rd.Pareto(1.5, 1.2)


# ----- simulation against theory ----------------------------------------------------------


@pytest.mark.parametrize("lam", [0.8, 4.0])  # below and above lambda_m = 1.43
def test_simulation_matches_erlang_b_below_and_above_lambda_max(lam):
    N, m, tcl = 24, 4, 15.0
    assert (lam < rd.lambda_max(N, m, SEXP)) == (lam == 0.8)
    sim = rd.simulate(
        N, m, lam, tcl, SEXP, n_jobs=20_000, seed=11, replications=20, confidence=0.99
    )
    pb = rd.blocking(N, m, lam, SEXP)
    assert sim.interval("blocking")[0] <= pb <= sim.interval("blocking")[1]
    exact = rd.system_time(N, m, lam, tcl, SEXP)
    assert sim.ci_low <= exact <= sim.ci_high
    paper = rd.system_time(N, m, lam, tcl, SEXP, "paper")
    if lam > 1.43:  # the simulation rejects eq. 8
        assert not sim.ci_low <= paper <= sim.ci_high


def test_simulation_insensitivity_heavy_tail_finite_variance():
    svc = rd.Pareto(1.5, 1.2)
    sim = rd.simulate(
        24, 2, 3.0, 15.0, svc, n_jobs=40_000, seed=3, replications=20, confidence=0.99
    )
    pb = rd.blocking(24, 2, 3.0, svc)
    assert sim.interval("blocking")[0] <= pb <= sim.interval("blocking")[1]
    assert sim.info["variance_finite"] and sim.notes == ()


def test_simulation_flags_infinite_variance():
    sim = rd.simulate(24, 1, 1.0, 15.0, PARETO, n_jobs=2_000, seed=0, replications=5)
    assert not sim.info["variance_finite"]
    assert "infinite variance" in sim.notes[0]


def mmck_blocking(c, k, lam, mu):
    """M/M/c/c+k blocking from the birth-death balance equations."""
    p = [1.0]
    for n in range(1, c + k + 1):
        p.append(p[-1] * lam / (min(n, c) * mu))
    return p[-1] / sum(p)


@pytest.mark.parametrize("k", [1, 5])
def test_waiting_room_matches_mmck_balance_equations(k):
    svc = rd.SExp(0.0, 0.5)  # exponential: job time Exp(m * 0.5)
    N, m, lam = 12, 2, 1.5
    sim = rd.simulate(
        N,
        m,
        lam,
        10.0,
        svc,
        n_jobs=40_000,
        seed=4,
        replications=20,
        waiting_room=k,
        confidence=0.99,
    )
    exact = mmck_blocking(N // m, k, lam, m * 0.5)
    assert sim.interval("blocking")[0] <= exact <= sim.interval("blocking")[1]
    assert sim.mean_wait > 0


def test_same_seed_same_numbers_different_seed_different():
    a = rd.simulate(24, 2, 1.5, 15.0, SEXP, n_jobs=2_000, seed=9, replications=4)
    b = rd.simulate(24, 2, 1.5, 15.0, SEXP, n_jobs=2_000, seed=9, replications=4)
    c = rd.simulate(24, 2, 1.5, 15.0, SEXP, n_jobs=2_000, seed=10, replications=4)
    assert a.as_dict() == b.as_dict()
    assert a.mean != c.mean


def test_simulate_result_has_attributes_and_keys():
    res = rd.simulate(24, 2, 1.5, 15.0, SEXP, n_jobs=1_000, seed=1, replications=3)
    for key in ("mean", "ci_low", "ci_high"):
        assert getattr(res, key) == res[key]
    assert res.ci_low <= res.mean <= res.ci_high
