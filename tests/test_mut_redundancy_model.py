"""P4's analytic model where tests/test_redundancy_model.py does not look: equality of the
service laws, ``blocking`` and the metrics table against the exact Erlang-B twin
(tests/naive.py), and the refusals of ``make_service`` and of the parameter object, read from
their messages (benchmarks/mutation.py, target ``redundancy_model``)."""

import pytest
from naive import erlang_b_exact

from workbench import ParameterError
from workbench import redundancy as rd
from workbench.redundancy.params import MAX_JOBS_PER_RUN, MAX_TOTAL_JOBS

SEXP = rd.SExp(3.0, 0.2)


def test_laws_are_equal_by_family_and_parameters():
    assert rd.SExp(3.0, 0.2) == SEXP
    assert hash(rd.SExp(3.0, 0.2)) == hash(SEXP)
    assert rd.SExp(3.0, 0.3) != SEXP
    assert rd.Pareto(3.0, 1.2) != rd.Weibull(3.0, 1.2)
    assert len({rd.SExp(3.0, 0.2), SEXP, rd.Pareto(1.5, 1.2)}) == 2


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((1.5, 1.2, 3.0), {}),  # one positional too many
        ((1.5,), {"beta": 1.5}),  # beta twice
        ((1.5,), {}),  # alpha missing
        ((), {"alpha": 1.2}),  # beta missing
    ],
)
def test_make_service_refuses_a_wrong_set_of_parameters(args, kwargs):
    with pytest.raises(ParameterError, match=r"make_service for family 'Pareto' are \('beta'"):
        rd.make_service("Pareto", *args, **kwargs)


def test_make_service_by_position_and_by_name_is_the_same_law():
    assert rd.make_service("Pareto", 1.5, alpha=1.2) == rd.Pareto(1.5, 1.2)
    assert rd.make_service("Pareto", alpha=1.2, beta=1.5) == rd.Pareto(1.5, 1.2)


@pytest.mark.parametrize("N, m, lam", [(24, 3, 1.5), (24, 5, 0.7), (7, 7, 2.0), (30, 1, 20.0)])
def test_blocking_is_erlang_b_of_the_groups_and_the_offered_load(N, m, lam):
    load = lam * (3.0 + 1.0 / (m * 0.2))  # eq. (2): E[T_job] = delta + 1/(m mu)
    want = float(erlang_b_exact(N // m, load))
    assert rd.blocking(N, m, lam, SEXP) == pytest.approx(want, rel=1e-12)
    row = rd.metrics_by_m(N=N, lam=lam, service=SEXP, ms=[m]).iloc[0]
    assert row["blocking"] == pytest.approx(want, rel=1e-12)
    assert row["c"] == N // m


@pytest.mark.parametrize("ms", [[0], [1, 25], [-3]])
def test_metrics_by_m_refuses_group_sizes_outside_one_to_n(ms):
    with pytest.raises(ParameterError, match="'ms' parameter of metrics_by_m"):
        rd.metrics_by_m(N=24, lam=1.0, service=SEXP, ms=ms)


def test_a_run_too_long_for_memory_says_its_size_in_gigabytes():
    # "about 60 bytes per job": 10**9 jobs are 60 GB, 2 * 10**8 are 12 GB
    for jobs, text in ((10**9, r"Got 1e\+09 instead.*\(60 GB here\)"), (2 * 10**8, r"12 GB")):
        with pytest.raises(ParameterError, match=text):
            rd.P4Params(jobs=jobs)
    with pytest.raises(ParameterError, match=r"Got ~1e400 instead"):
        rd.P4Params(jobs=10**400)
    assert rd.P4Params(jobs=MAX_JOBS_PER_RUN).jobs == MAX_JOBS_PER_RUN


def test_the_total_work_is_refused_only_above_the_budget():
    reps = MAX_TOTAL_JOBS // MAX_JOBS_PER_RUN
    assert rd.P4Params(jobs=MAX_JOBS_PER_RUN, replications=reps).replications == reps
    with pytest.raises(ParameterError, match=r"jobs \* replications = 10,000,000 \* 21"):
        rd.P4Params(jobs=MAX_JOBS_PER_RUN, replications=reps + 1)


def test_m_above_n_is_refused_only_where_both_are_taken():
    with pytest.raises(ParameterError, match="'m' parameter"):
        rd.P4Params(N=4, m=5)
    assert rd.P4Params(N=5, m=4).m == 4
    # job_time takes m but not N: m may exceed the table's default N
    assert rd.job_time(m=500, service=SEXP) == pytest.approx(3.0 + 1.0 / (500 * 0.2))
