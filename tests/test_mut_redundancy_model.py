"""P4's analytic model where tests/test_redundancy_model.py does not look: equality of the
service laws, ``blocking`` and the metrics table against the exact Erlang-B twin
(tests/naive.py), and the refusals of ``make_service`` and of the parameter object, read from
their messages (benchmarks/mutation.py, target ``redundancy_model``)."""

from dataclasses import replace

import pytest
from naive import erlang_b_exact

from workbench import ParameterError
from workbench import redundancy as rd
from workbench.redundancy.model import _asto_shortcut
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


def _blocking_exact(N, m, lam, service):
    return float(erlang_b_exact(N // m, lam * service.job_time_mean(m)))


@pytest.mark.parametrize(
    "N, lam, service",
    [
        (3, 0.05, rd.Weibull(0.2, 1.0)),  # m = N blocks least
        (12, 1.0, rd.Pareto(1.5, 1.2)),
        (10, 0.3, rd.Weibull(0.5, 2.0)),
        (8, 2.0, SEXP),
    ],
)
def test_optimal_m_blocking_is_the_brute_force_argmin(N, lam, service):
    pb = [_blocking_exact(N, m, lam, service) for m in range(1, N + 1)]
    want = pb.index(min(pb)) + 1  # the smallest m on ties
    assert rd.optimal_m_blocking(N=N, lam=lam, service=service) == want


@pytest.mark.parametrize(
    "N, lam, service",
    [
        (2, 0.1, rd.Pareto(0.5, 1.05)),  # two copies of one job block less than two jobs
        (2, 3.0, rd.Pareto(1.0, 1.2)),
        (9, 0.5, rd.Pareto(0.5, 1.1)),
        (9, 4.0, rd.Pareto(1.0, 1.4)),
        (6, 1.0, rd.Pareto(1.0, 2.0)),
    ],
)
def test_bpo_for_pareto_is_lemma_1(N, lam, service):
    # Algorithm 1: m = 1 if alpha >= 1.5, else the better of m = 1 and m = 2 (1 on a tie)
    p1, p2 = _blocking_exact(N, 1, lam, service), _blocking_exact(N, 2, lam, service)
    want = 1 if service.alpha >= 1.5 or p1 <= p2 else 2
    assert rd.bpo(N=N, lam=lam, service=service) == want
    if (N, lam) == (2, 0.1):
        assert want == 2


@pytest.mark.parametrize("N", [5, 12, 17])
@pytest.mark.parametrize("formula", ["exact", "paper"])
def test_optimum_vs_workers_reports_the_exact_time_at_its_m(N, formula):
    service, lam, t_cloud = rd.Pareto(1.5, 1.2), 0.8, 12.0
    row = rd.optimum_vs_workers(
        Ns=[3, N], lam=lam, t_cloud=t_cloud, service=service, formula=formula
    ).iloc[1]
    m = int(row["m_opt"])
    pb = _blocking_exact(N, m, lam, service)
    tj = service.job_time_mean(m)
    assert row["system_time"] == pytest.approx((1 - pb) * tj + pb * t_cloud, rel=1e-12)  # eq. 1


def test_asto_with_two_workers_is_the_argmin_without_shortcuts():
    # Theorem 2's lambda_1 = N mu / ((N - 2)(...)) has no meaning for N = 2
    for service in (SEXP, rd.Pareto(1.5, 1.2)):
        p = {"N": 2, "lam": 0.4, "t_cloud": 5.0, "service": service}
        assert rd.asto(**p) == rd.optimal_m(**p, formula="paper")


def test_station_table_is_erlang_b_little_and_eq_1():
    N, m, lam, t_cloud = 23, 5, 1.5, 15.0  # c = 4 groups; 3 workers stay idle
    tj = 3.0 + 1.0 / (m * 0.2)  # eq. (2)
    pb = float(erlang_b_exact(4, lam * tj))
    table = rd.station_table(N, m, lam, t_cloud, SEXP).set_index("station")
    edge = table.loc["edge groups"]
    assert edge["servers"] == 4
    assert edge["throughput [1/s]"] == pytest.approx(lam * (1 - pb), rel=1e-12)
    assert edge["mean time [s]"] == pytest.approx(tj, rel=1e-12)
    assert edge["mean number"] == pytest.approx(lam * (1 - pb) * tj, rel=1e-12)  # Little
    assert edge["utilisation"] == pytest.approx(lam * (1 - pb) * tj / 4, rel=1e-12)
    workers = table.loc["edge workers (m copies per job)"]
    assert workers["servers"] == N
    assert workers["mean number"] == pytest.approx(m * lam * (1 - pb) * tj, rel=1e-12)
    assert workers["utilisation"] == pytest.approx(m * lam * (1 - pb) * tj / N, rel=1e-12)
    cloud = table.loc["cloud"]
    assert cloud["throughput [1/s]"] == pytest.approx(lam * pb, rel=1e-12)
    assert cloud["mean number"] == pytest.approx(lam * pb * t_cloud, rel=1e-12)
    system = table.loc["whole system"]
    e_sys = (1 - pb) * tj + pb * t_cloud  # eq. (1)
    assert system["throughput [1/s]"] == lam
    assert system["mean time [s]"] == pytest.approx(e_sys, rel=1e-12)
    assert system["mean number"] == pytest.approx(lam * e_sys, rel=1e-12)  # Little


def test_policy_m_dispatches_each_named_policy():
    # a point where the four policies choose four different m
    p = {"N": 24, "lam": 1.5, "t_cloud": 15.0, "service": rd.Pareto(1.5, 1.2)}
    want = {
        "asto": rd.asto(**p),
        "bpo": rd.bpo(N=24, lam=1.5, service=p["service"]),
        "benchmark": 1,
        "optimal": rd.optimal_m(**p, formula="exact"),
    }
    for policy, m in want.items():
        assert rd.policy_m(policy=policy, **p) == m
    assert len(set(want.values())) >= 3


def _pb_groups(N, c, lam, service):
    """P_b with c groups of N/c replicas (eqs. 5-6, the 'c' form: N/c may be fractional)."""
    m = N / c
    if isinstance(service, rd.SExp):
        tj = service.delta + 1.0 / (m * service.mu)
    else:
        tj = service.beta * m * service.alpha / (m * service.alpha - 1.0)
    return float(erlang_b_exact(c, lam * tj))


SHORTCUT_POINTS = [(8, 0.05), (12, 0.3), (9, 1.0)]


@pytest.mark.parametrize("N, lam", SHORTCUT_POINTS)
def test_asto_shortcut_thresholds_of_theorem_2_for_sexp(N, lam):
    d, mu = 0.5, 0.8
    service = rd.SExp(d, mu)
    p_n, p_1, p_half = (_pb_groups(N, c, lam, service) for c in (N, 1, N // 2))
    t1 = (1 - 1 / N - p_n + p_1 / N) / (mu * (p_half - p_n)) + d  # Theorem 2's T1
    assert _asto_shortcut(N, lam, t1 * (1 + 1e-9), service) == 1
    assert _asto_shortcut(N, lam, t1 * (1 - 1e-9), service) != 1
    lam1 = N * mu / ((N - 2) * (d * N * mu + 1))  # Theorem 2's lambda_1
    t_low = d + 1 / mu  # T_cl at most delta + 1/mu
    for rate, want in ((lam1 * (1 - 1e-9), N), (lam1 * (1 + 1e-9), None)):
        assert _asto_shortcut(N, rate, t_low, service) == want


@pytest.mark.parametrize("N, lam", SHORTCUT_POINTS)
@pytest.mark.parametrize("b, a", [(1.0, 1.2), (0.5, 2.5)])
def test_asto_shortcut_thresholds_for_pareto(N, lam, b, a):
    service = rd.Pareto(b, a)
    p_n, p_1, p_half = (_pb_groups(N, c, lam, service) for c in (N, 1, N // 2))
    if p_half > p_n:
        t1 = b * a * ((1 - p_n) / (a - 1) - (1 - p_1) / (a * N - 1)) / (p_half - p_n)
        assert _asto_shortcut(N, lam, t1 * (1 + 1e-9), service) == 1
        assert _asto_shortcut(N, lam, t1 * (1 - 1e-9), service) != 1
    lam1 = (a - 1) * N / (b * a * N * (N - 2))
    t_low = b * a / (a - 1)  # T_cl at most E[T] of one copy
    assert _asto_shortcut(N, lam1 * (1 - 1e-9), t_low * (1 - 1e-9), service) == N
    assert _asto_shortcut(N, lam1 * (1 + 1e-9), t_low * (1 - 1e-9), service) != N
    assert _asto_shortcut(N, lam1 * (1 - 1e-9), t_low * (1 + 1e-9), service) != N


def test_simulated_station_table_recovers_the_edge_time_of_eq_2():
    model = {"N": 23, "m": 5, "lam": 1.5, "t_cloud": 15.0, "service": SEXP}
    result = rd.simulate(**model, jobs=20_000, replications=2, seed=1)
    table = rd.simulated_station_table(**model, result=result).set_index("station")
    # what eq. 1 leaves for the edge is E[T_job] = 3 + 1/(5 * 0.2) = 4 s, up to noise
    assert table.loc["edge groups", "mean time [s]"] == pytest.approx(4.0, abs=0.25)
    assert table.loc["whole system", "mean time [s]"] == pytest.approx(result.mean, rel=1e-12)
    assert table.loc["cloud", "throughput [1/s]"] == pytest.approx(1.5 * result.blocking)
    with pytest.raises(ParameterError, match="must be a SimulationResult"):
        rd.simulated_station_table(**model, result=None)
    with pytest.raises(ParameterError, match="must come from a run of the same model"):
        rd.simulated_station_table(**(model | {"lam": 1.4}), result=result)
    # a result of the same run re-labelled as another quantity (a public dataclass a user
    # can build) is no E[T_sys]: refused, whatever the name's place in the alphabet
    for metric in ("mean_wait", "blocking", "waiting_time"):
        with pytest.raises(ParameterError, match="must be a SimulationResult"):
            rd.simulated_station_table(**model, result=replace(result, metric=metric))


def test_policy_m_reads_the_policy_by_value_not_by_identity():
    # a name read from a widget or a file is a new string object, not the interned
    # literal; at this point ASTO (m = 1) and the exact optimum (m = 2) differ
    p = {"N": 8, "lam": 1.0, "t_cloud": 15.0, "service": rd.SExp(delta=3.0, mu=0.2)}
    assert rd.asto(**p) != rd.optimal_m(**p, formula="exact")
    for policy in ("asto", "bpo", "benchmark", "optimal"):
        built = "".join(list(policy))
        assert built is not policy
        assert rd.policy_m(policy=built, **p) == rd.policy_m(policy=policy, **p)


def test_asto_takes_lemma_2s_shortcut_from_three_workers():
    """The shortcuts hold for N >= 3 (λ1 divides by N - 2). With N = 3 and Pareto(1, 1.2)
    jobs at λ = 0.6, Lemma 2's T1 (from Erlang-B, N // 2 = 1 group) is below T_cl = 100,
    so ASTO answers m = 1, where the exhaustive argmin of eq. 1/8 would pick m = 3."""
    N, lam, t_cloud = 3, 0.6, 100.0
    b, a = 1.0, 1.2
    service = rd.Pareto(b, a)
    p_n, p_1, p_half = (_pb_groups(N, c, lam, service) for c in (N, 1, N // 2))
    t1 = b * a * ((1 - p_n) / (a - 1) - (1 - p_1) / (a * N - 1)) / (p_half - p_n)
    assert p_half > p_n and t1 <= t_cloud  # Lemma 2's m = 1 condition holds
    assert rd.asto(N, lam, t_cloud, service) == 1
    assert rd.optimal_m(N, lam, t_cloud, service, "paper") == 3  # the shortcut decides


def test_lemma_2s_m_equals_n_shortcut_includes_its_bounds():
    """Lemma 2's m = N conditions are T_cl <= βα/(α−1) and λ <= λ1 = (α−1)N/(βαN(N−2)),
    both inclusive: with β = 0.5, α = 2, N = 4 they are T_cl <= 1 and λ <= 1/2, exact
    binary fractions, and at T_cl = 1, λ = 1/2 the shortcut answers N."""
    service = rd.Pareto(0.5, 2.0)
    assert _asto_shortcut(4, 0.5, 1.0, service) == 4
    assert _asto_shortcut(4, 0.5 * (1 + 2**-40), 1.0, service) is None
