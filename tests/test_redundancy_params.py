"""P4 inputs: the parameter table drives validation; bad input gets the shared ParameterError.

Three kinds of evidence:

1. Named cases: each message names the function that was called (not a helper) and the
   parameter, with its valid range.
2. Garbage everywhere: every public function, every argument, a list of bad values
   (None, strings, complex, containers, NaN, inf, huge and tiny numbers): a ParameterError
   naming the function, never a TypeError, a NaN or a numba traceback.
3. Fuzz from the table: values drawn inside every declared range (corners included) always
   give finite numbers in range; one value drawn outside its range always raises.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import ParameterError
from workbench import redundancy as rd
from workbench.redundancy.params import FAMILY_PARAMS, MAX_JOBS_PER_RUN, MAX_TOTAL_JOBS, PARAMS

SEXP, PARETO = rd.SExp(3.0, 0.2), rd.Pareto(1.5, 1.2)


# ----- 1. named cases ----------------------------------------------------------------------


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
        (lambda: rd.Weibull(0.1, 1.0), "'shape' parameter of Weibull .* \\[0.2, 20\\]"),
        (lambda: rd.asto(0, 1.0, 2.0, SEXP), "'N' parameter of asto"),
        (
            lambda: rd.simulate(N=24, m=2, lam=1.0, t_cloud=15.0, service=SEXP, jobs=5),
            "'jobs' parameter",
        ),
        (
            lambda: rd.simulate(N=24, m=2, lam=1.0, t_cloud=15.0, service=SEXP, seed=-1),
            "'seed' parameter",
        ),
        (lambda: rd.make_service("Gamma", 1, 1), "'family' parameter of make_service"),
        (
            lambda: rd.make_service("Pareto", beta=1.0, mu=2.0),
            "make_service got an unexpected keyword argument 'mu'.*alpha",
        ),
        # issue 7, section 2: these raised a raw TypeError or named the wrong function
        (lambda: rd.metrics_by_m(24, 1.5, 15.0, SEXP, ms=5), "'ms' parameter of metrics_by_m"),
        (lambda: rd.metrics_by_m(24, 1.5, 15.0, SEXP, ms=[1, 30]), "'ms' .* \\[1, 24\\]"),
        (lambda: rd.policy_m("asto", 24, 1.5, -1.0, SEXP), "'t_cloud' parameter of policy_m"),
        (lambda: rd.policy_m("asto", 24, 1.5, 15.0, None), "'service' parameter of policy_m"),
        (lambda: rd.policy_m("bpo", 0, 1.5, 15.0, SEXP), "'N' parameter of policy_m"),
        (lambda: rd.job_time(0, SEXP), "'m' parameter of job_time"),
        (lambda: rd.optimum_vs_workers(5, 1.5, 10.0, SEXP), "'Ns' parameter of optimum_vs"),
    ],
)
def test_bad_input_raises_clear_error(call, match):
    with pytest.raises(ParameterError, match=match):
        call()


# ----- issue 7, section 3: bounded work ----------------------------------------------------


def test_a_run_too_long_for_memory_is_refused_and_says_why():
    # 10**8 jobs took 5.9 GB: refused before anything is allocated
    with pytest.raises(ParameterError, match="'jobs' parameter of simulate.*memory .6 GB"):
        rd.simulate(N=24, m=2, lam=1.0, t_cloud=15.0, service=SEXP, jobs=10**8, replications=2)
    assert MAX_JOBS_PER_RUN * 60 <= 1e9  # the bound keeps one run under a gigabyte


def test_too_much_total_work_is_refused_and_says_why():
    with pytest.raises(ParameterError, match="'replications' parameter of simulate"):
        rd.simulate(N=24, m=2, lam=1.0, t_cloud=15.0, service=SEXP, jobs=100, replications=100_000)
    n = MAX_JOBS_PER_RUN // 2
    reps = MAX_TOTAL_JOBS // n + 1
    with pytest.raises(ParameterError, match="too long: jobs \\* replications"):
        rd.simulate(N=24, m=2, lam=1.0, t_cloud=15.0, service=SEXP, jobs=n, replications=reps)
    with pytest.raises(ParameterError, match="too long"):
        rd.simulate_to_precision(
            N=24,
            m=2,
            lam=1.0,
            t_cloud=15.0,
            service=SEXP,
            half_width=0.01,
            jobs=n,
            max_replications=reps,
        )


# ----- 2. garbage in every argument of every public function -------------------------------

GARBAGE = [
    None,
    "1",
    1 + 2j,
    [1, 2],
    (24,),
    float("nan"),
    float("inf"),
    -1,
    1e308,
    True,
    np.array([1.0, 2.0]),
    10**30,
    -1e-300,
]

CALLS = {  # name -> (function, valid positional arguments)
    "groups": (rd.groups, [24, 2]),
    "job_time": (rd.job_time, [2, SEXP]),
    "blocking": (rd.blocking, [24, 2, 1.5, SEXP]),
    "lambda_max": (rd.lambda_max, [24, 2, SEXP]),
    "system_time": (rd.system_time, [24, 2, 1.5, 15.0, SEXP, "paper"]),
    "metrics_by_m": (rd.metrics_by_m, [24, 1.5, 15.0, SEXP, [1, 2]]),
    "optimal_m": (rd.optimal_m, [24, 1.5, 15.0, SEXP, "exact"]),
    "optimal_m_blocking": (rd.optimal_m_blocking, [24, 1.5, SEXP]),
    "optimum_vs_workers": (rd.optimum_vs_workers, [[2, 3], 1.5, 15.0, SEXP, "paper"]),
    "bpo": (rd.bpo, [24, 1.5, PARETO]),
    "asto": (rd.asto, [24, 1.5, 15.0, SEXP]),
    "policy_m": (rd.policy_m, ["asto", 24, 1.5, 15.0, SEXP]),
    # keyword-only: the arguments by name, in this order
    "simulate": (
        rd.simulate,
        dict(N=24, m=2, lam=1.5, t_cloud=15.0, service=SEXP, jobs=100, seed=0),
    ),
    "simulate_to_precision": (
        rd.simulate_to_precision,
        dict(N=24, m=2, lam=1.5, t_cloud=15.0, service=SEXP, half_width=1.0, seed=0),
    ),
    "running_mean_trace": (
        rd.running_mean_trace,
        dict(N=24, m=2, lam=1.5, t_cloud=15.0, service=SEXP, trace_jobs=200, seed=0, points=10),
    ),
    "SExp": (rd.SExp, [1.0, 1.0]),
    "Pareto": (rd.Pareto, [1.0, 2.0]),
    "Weibull": (rd.Weibull, [1.0, 1.0]),
    "make_service": (rd.make_service, ["Pareto", 1.0, 2.0]),
}


def _case(name, position, index):
    bad = GARBAGE[index]
    case_id = f"{name}-arg{position}-{type(bad).__name__}{index}"
    return pytest.param(name, position, bad, id=case_id)


CASES = [
    _case(name, i, j)
    for name, (_, args) in CALLS.items()
    for i in range(len(args))
    for j in range(len(GARBAGE))
]


def _finite_output(out) -> bool:
    if hasattr(out, "select_dtypes"):
        return bool(np.isfinite(out.select_dtypes("number").to_numpy(dtype=float)).all())
    if hasattr(out, "summary"):  # a SimulationResult
        return bool(np.isfinite(out.summary[["estimate"]].to_numpy(dtype=float)).all())
    if isinstance(out, int | float):
        return math.isfinite(out)
    return True  # a service law


@pytest.mark.parametrize(("name", "position", "bad"), CASES)
def test_garbage_gives_a_parameter_error_naming_the_function(name, position, bad):
    func, args = CALLS[name]
    try:
        if isinstance(args, dict):  # keyword-only
            out = func(**{**args, list(args)[position]: bad})
        else:
            call = list(args)
            call[position] = bad
            out = func(*call)
    except ParameterError as err:
        # the family constructors report under their own name
        owner = {"make_service": ("make_service", "Pareto")}.get(name, (name,))
        assert any(f" of {o}" in str(err) for o in owner), str(err)
        return
    assert _finite_output(out), out


# ----- 3. fuzz from the parameter table ----------------------------------------------------


def _inside(name, high=None):
    """Values inside the declared range of ``name``, its corners drawn often."""
    p = PARAMS[name]
    hi = p.high if high is None else min(high, p.high)
    if p.kind == "int":
        lo = int(p.low) + (1 if p.low_open else 0)
        return st.one_of(st.sampled_from([lo, int(hi)]), st.integers(lo, int(hi)))
    inner = st.floats(p.low, hi, exclude_min=p.low_open, allow_nan=False)
    corners = [v for v, open_ in ((p.low, p.low_open), (hi, False)) if not open_]
    if p.low_open:
        corners.append(math.nextafter(p.low, math.inf))
    return st.one_of(st.sampled_from(corners), inner)


@st.composite
def services(draw):
    family = draw(st.sampled_from(list(FAMILY_PARAMS)))
    values = {name: draw(_inside(name)) for name in FAMILY_PARAMS[family]}
    return rd.make_service(family, **values)


@settings(deadline=None, max_examples=300)
@given(
    N=_inside("N"),
    m_frac=st.floats(0, 1),
    lam=_inside("lam"),
    t_cloud=_inside("t_cloud"),
    service=services(),
)
def test_every_valid_point_gives_finite_metrics(N, m_frac, lam, t_cloud, service):
    m = 1 + int(m_frac * (N - 1))
    pb = rd.blocking(N, m, lam, service)
    assert 0.0 <= pb <= 1.0
    for formula in rd.FORMULAS:
        value = rd.system_time(N, m, lam, t_cloud, service, formula)
        assert math.isfinite(value) and value >= 0
        # E[T_sys] is a mixture of the edge time and the cloud time
        low, high = sorted((rd.job_time(m, service), t_cloud))
        assert low * (1 - 1e-9) <= value <= high * (1 + 1e-9)
    assert math.isfinite(rd.lambda_max(N, m, service))


@settings(deadline=None, max_examples=150)
@given(
    N=_inside("N", high=60),
    lam=_inside("lam"),
    t_cloud=_inside("t_cloud"),
    service=services(),
    policy=st.sampled_from(rd.POLICIES),
)
def test_every_valid_point_gives_a_valid_allocation(N, lam, t_cloud, service, policy):
    choices = [
        rd.asto(N, lam, t_cloud, service),
        rd.bpo(N, lam, service),
        rd.optimal_m(N, lam, t_cloud, service),
        rd.policy_m(policy, N, lam, t_cloud, service),
    ]
    assert all(isinstance(c, int) and 1 <= c <= N for c in choices)


def _outside(name):
    p = PARAMS[name]
    below = (
        [] if p.low is None else [p.low if p.low_open else p.low - (1 if p.kind == "int" else 1e-3)]
    )
    above = [] if p.high is None else [p.high + (1 if p.kind == "int" else 1e-3 * abs(p.high))]
    return st.sampled_from(below + above + [float("nan")])


@settings(deadline=None, max_examples=100)
@given(data=st.data(), name=st.sampled_from(["N", "lam", "t_cloud"]))
def test_one_value_outside_its_range_is_refused(data, name):
    values = {"N": 24, "lam": 1.5, "t_cloud": 15.0}
    values[name] = data.draw(_outside(name))
    with pytest.raises(ParameterError, match=f"'{name}' parameter of system_time"):
        rd.system_time(values["N"], 2, values["lam"], values["t_cloud"], SEXP)


@settings(deadline=None, max_examples=100)
@given(data=st.data(), family=st.sampled_from(list(FAMILY_PARAMS)))
def test_one_service_parameter_outside_its_range_is_refused(data, family):
    names = FAMILY_PARAMS[family]
    values = {n: PARAMS[n].default for n in names}
    name = data.draw(st.sampled_from(names))
    values[name] = data.draw(_outside(name))
    with pytest.raises(ParameterError, match=f"'{name}' parameter"):
        rd.make_service(family, **values)


def test_a_misspelled_keyword_is_refused_with_the_closest_name():
    with pytest.raises(ParameterError, match="make_service.*'alhpa'.*Did you mean 'alpha'"):
        rd.make_service("Pareto", beta=1.5, alhpa=1.2)
    with pytest.raises(ParameterError, match="make_service"):
        rd.make_service("Pareto", 1.5, beta=1.2)  # beta given twice


def test_the_public_api_lists_only_what_a_user_calls():
    import importlib

    for name in ("", ".model", ".simulation", ".figures", ".claims", ".params"):
        module = importlib.import_module("workbench.redundancy" + name)
        assert all(not n.startswith("_") and hasattr(module, n) for n in module.__all__), name
    assert "SimulationResult" not in rd.__all__ and "room_fill_jobs" in rd.__all__
    for helper in ("simulate_point", "policy_curves", "draw_policies", "LABELS", "SEXP"):
        assert helper not in importlib.import_module("workbench.redundancy.figures").__all__
