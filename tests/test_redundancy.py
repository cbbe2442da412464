"""P4 model: formulas, algorithms, simulation against theory, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench
from workbench import ParameterError
from workbench import redundancy as rd

SEXP, PARETO = rd.SExp(3.0, 0.2), rd.Pareto(1.5, 1.2)


# ----- service families -------------------------------------------------------------------


@pytest.mark.parametrize(
    "service", [rd.SExp(3.0, 0.2), rd.SExp(0.0, 1.0), rd.Pareto(1.5, 1.2), rd.Pareto(1.0, 3.0)]
)
@pytest.mark.parametrize("m", [1, 2, 5, 24])
def test_closed_form_job_time_matches_quadrature_of_survival(service, m):
    numeric = rd.ServiceTime.job_time_mean(service, m)  # base class: integral of S(t)^m
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


# ----- simulation against theory ----------------------------------------------------------


@pytest.mark.parametrize("lam", [0.8, 4.0])  # below and above lambda_m = 1.43
def test_simulation_matches_erlang_b_below_and_above_lambda_max(lam):
    N, m, tcl = 24, 4, 15.0
    assert (lam < rd.lambda_max(N, m, SEXP)) == (lam == 0.8)
    sim = rd.simulate(
        N, m, lam, tcl, SEXP, n_jobs=20_000, seed=11, replications=20, confidence=0.99
    )
    pb = rd.blocking(N, m, lam, SEXP)
    assert sim.blocking_ci_low <= pb <= sim.blocking_ci_high
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
    assert sim.blocking_ci_low <= pb <= sim.blocking_ci_high
    assert sim.variance_finite and sim.note == ""


def test_simulation_flags_infinite_variance():
    sim = rd.simulate(24, 1, 1.0, 15.0, PARETO, n_jobs=2_000, seed=0, replications=5)
    assert not sim.variance_finite
    assert "infinite variance" in sim.note


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
    assert sim.blocking_ci_low <= exact <= sim.blocking_ci_high
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


# ----- bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: rd.system_time(24, 25, 1.0, 15.0, SEXP), "'m' parameter of system_time"),
        (lambda: rd.system_time(24.5, 2, 1.0, 15.0, SEXP), "'N' parameter of system_time"),
        (lambda: rd.system_time(24, 2, -1.0, 15.0, SEXP), "'lam' parameter of system_time"),
        (lambda: rd.system_time(24, 2, float("nan"), 15.0, SEXP), "'lam' parameter"),
        (lambda: rd.system_time(24, 2, 1.0, -3.0, SEXP), "'t_cloud' parameter"),
        (lambda: rd.system_time(24, 2, 1.0, 3.0, SEXP, formula="eq8"), "'formula' parameter"),
        (lambda: rd.system_time(24, 2, 1.0, 3.0, "pareto"), "'service' parameter"),
        (lambda: rd.Pareto(1.0, 1.0), "'alpha' parameter of Pareto .* range \\(1, 1000\\]"),
        (lambda: rd.Pareto(-1.0, 2.0), "'beta' parameter of Pareto"),
        (lambda: rd.SExp(1.0, 0.0), "'mu' parameter of SExp"),
        (lambda: rd.asto(0, 1.0, 2.0, SEXP), "'N' parameter of asto"),
        (lambda: rd.simulate(24, 2, 1.0, 15.0, SEXP, n_jobs=5), "'n_jobs' parameter"),
        (lambda: rd.simulate(24, 2, 1.0, 15.0, SEXP, seed=-1), "'seed' parameter"),
        (lambda: rd.make_service("Gamma", 1, 1), "'family' parameter of make_service"),
    ],
)
def test_bad_input_raises_clear_error(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


finite_or_not = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-5, 200),
    st.just(None),
    st.text(max_size=2),
)


@settings(deadline=None, max_examples=300)
@given(
    N=finite_or_not,
    m=finite_or_not,
    lam=finite_or_not,
    tcl=finite_or_not,
    a=finite_or_not,
    b=finite_or_not,
    family=st.sampled_from(["S-Exp", "Pareto", "Weibull"]),
)
def test_fuzzed_inputs_give_a_number_or_the_clear_error(N, m, lam, tcl, a, b, family):
    try:
        svc = rd.make_service(family, a, b)
        value = rd.system_time(N, m, lam, tcl, svc, formula="paper")
        best = rd.asto(N, lam, tcl, svc) if isinstance(N, int) and N <= 60 else 1
    except ParameterError:
        return
    assert math.isfinite(value) and value >= 0
    assert 1 <= best <= N


@settings(deadline=None, max_examples=200)
@given(
    N=st.integers(1, 60),
    m=st.integers(0, 62),
    lam=st.floats(-1, 50),
    tcl=st.floats(-1, 1e4),
    a=st.floats(-0.5, 20),
    b=st.floats(-0.5, 1e3),
    family=st.sampled_from(["S-Exp", "Pareto", "Weibull"]),
)
def test_fuzzed_plausible_inputs_give_finite_metrics(N, m, lam, tcl, a, b, family):
    try:
        svc = rd.make_service(family, a, b)
        values = [rd.system_time(N, m, lam, tcl, svc, formula=f) for f in rd.FORMULAS]
        pb = rd.blocking(N, m, lam, svc)
        choices = [rd.asto(N, lam, tcl, svc), rd.bpo(N, lam, svc), rd.optimal_m(N, lam, tcl, svc)]
    except ParameterError:
        return
    assert all(math.isfinite(v) and v >= 0 for v in values)
    assert 0 <= pb <= 1
    assert all(1 <= c <= N for c in choices)
