"""P4 bad input: every public function refuses it with the shared ParameterError."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import ParameterError
from workbench import redundancy as rd

SEXP, PARETO = rd.SExp(3.0, 0.2), rd.Pareto(1.5, 1.2)


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
