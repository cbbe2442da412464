"""P4 analytic model: service families, formulas, algorithms."""

import math
from fractions import Fraction

import numpy as np
import pytest
from naive import erlang_b_exact

import workbench
from workbench import redundancy as rd
from workbench.redundancy.model import _asto_shortcut

SEXP, PARETO = rd.SExp(3.0, 0.2), rd.Pareto(1.5, 1.2)


# ----- service families -------------------------------------------------------------------


@pytest.mark.parametrize(
    "service", [rd.SExp(3.0, 0.2), rd.SExp(0.0, 1.0), rd.Pareto(1.5, 1.2), rd.Pareto(1.0, 3.0)]
)
@pytest.mark.parametrize("m", [1, 2, 5, 24])
def test_closed_form_job_time_matches_quadrature_of_survival(service, m):
    numeric = service.quadrature_mean(m)  # integral of S(t)^m
    assert service.job_time_mean(m) == pytest.approx(numeric, rel=1e-6)


@pytest.mark.parametrize("shape", [0.2, 0.4, 1.0, 2.5, 20.0])
@pytest.mark.parametrize("m", [1, 3, 12])
@pytest.mark.parametrize("scale", [1e-6, 2.0, 1e6])
def test_weibull_quadrature_matches_closed_form(shape, m, scale):
    svc = rd.Weibull(shape, scale)
    assert svc.quadrature_mean(m) == pytest.approx(svc.job_time_mean(m), rel=1e-6)


@pytest.mark.parametrize("service", [SEXP, rd.Pareto(1.0, 2.5), rd.Weibull(0.7, 1.0)])
@pytest.mark.parametrize("m", [1, 4])
def test_sampled_job_times_have_the_formula_mean(service, m):
    rng = np.random.default_rng(5)
    x = service.sample_job_times(m, 400_000, rng)
    # also the generic min-of-m-copies path of the base class
    y = rd.ServiceTime.sample_job_times(service, m, 200_000, rng)
    se = x.std() / math.sqrt(x.size)
    assert abs(x.mean() - service.job_time_mean(m)) < 5 * se + 1e-3
    assert abs(y.mean() - service.job_time_mean(m)) < 5 * y.std() / math.sqrt(y.size) + 1e-3


def test_pareto_variance_flag():
    assert not PARETO.variance_finite(1)  # 1.2 <= 2
    assert PARETO.variance_finite(2)  # 2.4 > 2
    assert rd.SExp(1, 1).variance_finite(1)


# ----- analytic metrics -------------------------------------------------------------------


def test_system_time_eq1_by_hand():
    N, m, lam, tcl = 24, 3, 1.5, 15.0
    tj = 3 + 1 / (3 * 0.2)
    pb = workbench.erlang_b(8, lam * tj)
    assert rd.system_time(N, m, lam, tcl, SEXP) == pytest.approx((1 - pb) * tj + pb * tcl)


@pytest.mark.parametrize("service", [SEXP, PARETO])
def test_paper_formula_equals_exact_below_lambda_max_and_departs_above(service):
    N, m, tcl = 24, 4, 15.0
    lam_m = rd.lambda_max(N, m, service)
    for lam in np.linspace(0.05, lam_m, 7):
        assert rd.system_time(N, m, lam, tcl, service, "paper") == pytest.approx(
            rd.system_time(N, m, lam, tcl, service)
        )
    above = [
        rd.system_time(N, m, lam, tcl, service, "paper") - rd.system_time(N, m, lam, tcl, service)
        for lam in np.linspace(1.2 * lam_m, 6 * lam_m, 7)
    ]
    assert min(above) > 0.01  # eq. 8 overstates E[T_sys] above lambda_m


def test_lambda_max_is_groups_over_job_time_when_m_divides_N():
    for m in (1, 2, 3, 4, 6, 8, 12, 24):
        for svc in (SEXP, PARETO):
            assert rd.lambda_max(24, m, svc) == pytest.approx((24 // m) / svc.job_time_mean(m))


def test_limits_of_system_time():
    assert rd.system_time(24, 2, 1e-9, 15.0, SEXP) == pytest.approx(SEXP.job_time_mean(2))
    assert rd.system_time(24, 2, 1e6, 15.0, SEXP) == pytest.approx(15.0, rel=1e-3)


# An independent oracle: Erlang-B as the textbook ratio of sums in exact rationals
# (tests/naive.py), E[T_job] from the closed forms (Weibull: the Gamma function), the
# paper's lambda_m as c / E[T_job(N/c)] with the fractional N/c. No code of the model.


def oracle_job_time(service, m):
    if isinstance(service, rd.SExp):
        return service.delta + 1 / (m * service.mu)
    if isinstance(service, rd.Pareto):
        return service.beta * m * service.alpha / (m * service.alpha - 1)
    return service.scale * m ** (-1 / service.shape) * math.gamma(1 + 1 / service.shape)


def oracle_erlang_b(c, load):
    return float(erlang_b_exact(c, Fraction(load)))


def oracle_system_time(N, m, lam, t_cloud, service, formula="exact"):
    c = N // m
    tj = oracle_job_time(service, m)
    if formula == "paper":
        # eqs. 5-6: c groups of N/c replicas; a family without the 'c' form: N/c -> m
        frac = m if isinstance(service, rd.Weibull) else N / c
        lam_m = c / oracle_job_time(service, frac)
        if lam > lam_m:
            served = lam_m / lam * (1 - oracle_erlang_b(c, c))  # eqs. 8-9
            return served * tj + (1 - served) * t_cloud
    pb = oracle_erlang_b(c, lam * tj)
    return (1 - pb) * tj + pb * t_cloud


def assert_is_an_argmin(m, values):
    """``values[m - 1]`` is the minimum up to rounding (ties may pick another m)."""
    best = min(values)
    assert values[m - 1] <= best + 1e-9 * max(1.0, abs(best)), (m, values)


def test_system_time_matches_the_oracle():
    rng = np.random.default_rng(8)
    for _ in range(200):
        svc = rng.choice([SEXP, PARETO, rd.Weibull(0.5, 3.0), rd.SExp(1, 1), rd.Pareto(1, 2.5)])
        N = int(rng.integers(1, 40))
        m = int(rng.integers(1, N + 1))
        lam, tcl = rng.uniform(0.05, 8), rng.uniform(0, 100)
        for formula in rd.FORMULAS:
            assert rd.system_time(N, m, lam, tcl, svc, formula) == pytest.approx(
                oracle_system_time(N, m, lam, tcl, svc, formula), rel=1e-9
            )


def test_optimal_m_is_the_oracle_minimum():
    for lam in (0.1, 1.0, 5.0):
        for svc in (SEXP, PARETO, rd.Weibull(0.5, 3.0)):
            times = [oracle_system_time(24, m, lam, 8.0, svc) for m in range(1, 25)]
            assert_is_an_argmin(rd.optimal_m(24, lam, 8.0, svc), times)


def test_optimum_vs_workers_is_the_oracle_minimum_for_every_N():
    for svc in (SEXP, PARETO, rd.Weibull(0.7, 5.0)):
        for formula in rd.FORMULAS:
            table = rd.optimum_vs_workers(range(1, 31), 1.5, 10.0, svc, formula)
            for row in table.itertuples():
                times = [
                    oracle_system_time(row.N, m, 1.5, 10.0, svc, formula)
                    for m in range(1, row.N + 1)
                ]
                assert_is_an_argmin(row.m_opt, times)
                assert row.c_opt == row.N // row.m_opt


def test_bpo_follows_algorithm_1():
    assert rd.bpo(24, 3.0, rd.SExp(1, 1)) == 1  # Theorem 1
    assert rd.bpo(24, 3.0, rd.Pareto(1, 2.0)) == 1  # alpha >= 1.5
    assert rd.bpo(24, 3.0, rd.Pareto(1, 1.2)) == 2  # P2 < P1
    assert rd.bpo(24, 0.3, rd.Pareto(1, 1.2)) == 1  # P1 <= P2 at low load


def test_asto_shortcuts_fire_and_agree_with_the_oracle_argmin_for_sexp():
    # Theorem 2's shortcuts never contradict the exhaustive search they short-cut, and the
    # grid is chosen so that both shortcuts (m = 1 and m = N) actually fire
    fired = {"1": 0, "N": 0, "none": 0}
    for svc in (SEXP, rd.SExp(1, 1), rd.SExp(0.5, 2)):
        for N in (4, 8, 24):
            for lam in np.geomspace(0.01, 10, 12):
                for tcl in (0.5, 2, 8, 15, 100, 1000):
                    shortcut = _asto_shortcut(N, lam, tcl, svc)
                    fired["none" if shortcut is None else "1" if shortcut == 1 else "N"] += 1
                    times = [
                        oracle_system_time(N, m, lam, tcl, svc, "paper") for m in range(1, N + 1)
                    ]
                    assert_is_an_argmin(rd.asto(N, lam, tcl, svc), times)
    assert fired["1"] >= 20 and fired["N"] >= 20 and fired["none"] >= 20, fired


def test_lemma2_shortcut_counterexample():
    # found by a grid search: Lemma 2's m=1 shortcut fires where eq. 1/8 prefers m=2
    svc = rd.Pareto(1.0, 1.4)
    assert rd.asto(8, 3.1623, 1000.0, svc) == 1
    assert rd.optimal_m(8, 3.1623, 1000.0, svc, "paper") == 2


def test_metrics_table_is_tidy():
    df = rd.metrics_by_m(24, 1.5, 15.0, PARETO)
    assert list(df["m"]) == list(range(1, 25))
    assert (df["c"] == 24 // df["m"]).all()
    assert df["blocking"].between(0, 1).all()
    assert not df.isna().any().any()


def test_asto_shortcut_at_a_subnormal_arrival_rate():
    # found by hypothesis: P_b(N/2) - P_b(N) underflowed to 0 times μ = 1e-6, a 0 division
    assert rd.asto(3, 5e-324, 0.0, rd.SExp(0.0, 1e-6)) in (1, 3)
