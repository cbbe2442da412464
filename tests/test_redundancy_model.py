"""P4 analytic model: service families, formulas, algorithms."""

import math

import numpy as np
import pytest

import workbench
from workbench import redundancy as rd

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
    assert svc.job_time_mean(m) == pytest.approx(svc.closed_form_mean(m), rel=1e-6)


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


def test_optimal_m_is_the_brute_force_minimum():
    for lam in (0.1, 1.0, 5.0):
        for svc in (SEXP, PARETO, rd.Weibull(0.5, 3.0)):
            times = [rd.system_time(24, m, lam, 8.0, svc) for m in range(1, 25)]
            assert rd.optimal_m(24, lam, 8.0, svc) == int(np.argmin(times)) + 1


def test_bpo_follows_algorithm_1():
    assert rd.bpo(24, 3.0, rd.SExp(1, 1)) == 1  # Theorem 1
    assert rd.bpo(24, 3.0, rd.Pareto(1, 2.0)) == 1  # alpha >= 1.5
    assert rd.bpo(24, 3.0, rd.Pareto(1, 1.2)) == 2  # P2 < P1
    assert rd.bpo(24, 0.3, rd.Pareto(1, 1.2)) == 1  # P1 <= P2 at low load


def test_asto_equals_the_papers_own_argmin_for_sexp():
    # Theorem 2's shortcuts never contradict the exhaustive search they short-cut
    for svc in (SEXP, rd.SExp(1, 1), rd.SExp(0.5, 2)):
        for N in (4, 8, 24):
            for lam in np.geomspace(0.01, 10, 12):
                for tcl in (0.5, 2, 8, 15, 100, 1000):
                    assert rd.asto(N, lam, tcl, svc) == rd.optimal_m(N, lam, tcl, svc, "paper")


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
