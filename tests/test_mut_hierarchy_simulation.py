"""P5's simulation module, where the first mutation run of ``hierarchy_simulation`` found no
test: the per-replication row of :func:`workbench.hierarchy.simulate` (the warm-up cut, the
execution time, time per unit of work, the loads and shares, the mean number in system) and
its intervals' ranges. Oracles: M/G/1 at each bottom server of the pure-local tree
(Pollaczek–Khinchine, Little's law), the definition of the warm-up (a fraction of the
generation time n·T) and each task's own times in the records."""

import numpy as np
import pytest

from workbench import EmptyRunError, ParameterError
from workbench.hierarchy import (
    pollaczek_khinchine,
    run_models,
    simulate,
    simulate_to_precision,
    size_moments,
)

LAM, MU, SPEED = 2.0, 7.0, 20.0  # ρ = λ E[D] / speed = 0.7 at each of the 4 bottom servers
RUN = dict(
    model="pure_local",
    lam=LAM,
    task_size=MU,
    arrivals="spread",
    compute_bottom=SPEED,
    compute_middle=40.0,
    compute_top=100.0,
)


@pytest.fixture  # per test: a mutation run credits a test only with the lines it runs
def local():
    return simulate(**RUN, periods=3000, replications=4, seed=5, keep_records=True)


def test_the_warm_up_drops_the_tasks_generated_in_its_share_of_n_T(local):
    """Measured tasks are exactly those generated at or after warmup · periods · T."""
    cutoff = 0.1 * 3000 * 1.0
    rec = local.records
    for r, row in local.frame.set_index("replication").iterrows():
        mine = rec[rec["replication"] == r]
        np.testing.assert_array_equal(mine["measured"], mine["arrival"] >= cutoff)
        assert row["tasks"] == (mine["arrival"] >= cutoff).sum()
        kept = mine[mine["arrival"] >= cutoff]
        assert row["mean_time"] == pytest.approx(kept["completion_time"].mean(), rel=1e-12)
        assert row["mean_execution"] == pytest.approx(kept["work"].mean() / SPEED, rel=1e-12)
        assert row["time_per_work"] == pytest.approx(
            kept["completion_time"].mean() / kept["work"].mean(), rel=1e-12
        )


def test_each_bottom_server_is_an_mg1_in_the_row(local):
    """Pure local: each bottom server runs a quarter of the tasks at load ρ = 0.7, the others
    none; the mean number in system per server is 4 P-K numbers over 7 servers (Little)."""
    m1, m2 = size_moments(MU, 1.0)
    s = local.summary.set_index("quantity")["estimate"]
    for k in (3, 4, 5, 6):
        assert s[f"load_s{k}"] == pytest.approx(LAM * m1 / SPEED, rel=0.03)
        assert s[f"share_s{k}"] == pytest.approx(0.25, abs=0.01)
    for k in (0, 1, 2):
        assert s[f"load_s{k}"] == 0.0 and s[f"share_s{k}"] == 0.0
    number = LAM * pollaczek_khinchine(LAM, m1 / SPEED, m2 / SPEED**2)
    assert s["mean_in_system"] == pytest.approx(4 * number / 7, rel=0.1)
    assert s["mean_execution"] == pytest.approx(m1 / SPEED, rel=0.02)
    assert s["red_forward_rate"] == 0.0 and s["sent_down_share"] == 0.0


def test_a_task_generated_at_the_cut_is_measured():
    """Batch arrivals come at the period starts, so a batch lands exactly on the cut at
    period 0.1 · 400 = 40: it is measured (the warm-up drops what came before)."""
    res = simulate(**(RUN | {"arrivals": "batch"}), periods=400, replications=2, keep_records=True)
    rec = res.records
    on_cut = rec[rec["arrival"] == 40.0]
    assert len(on_cut) > 0 and on_cut["measured"].all()
    assert res.frame["tasks"].sum() == (rec["arrival"] >= 40.0).sum()


def test_intervals_stay_in_each_quantitys_range():
    """Two replications (t = 12.7) at a low load of the advanced model: shares near 0 and
    short times have raw intervals below 0; shares stay in [0, 1], times at or above 0, and
    every estimate inside its interval."""
    res = simulate(model="advanced", lam=0.3, task_size=MU, periods=400, replications=2, seed=1)
    s = res.summary.set_index("quantity")
    assert (s["ci_low"] <= s["estimate"]).all() and (s["estimate"] <= s["ci_high"]).all()
    assert (s["ci_low"] >= 0.0).all()
    raw = s["estimate"] - s["half_width"]
    shares = s.index.str.startswith("share_s")
    assert (s.loc[shares, "ci_high"] <= 1.0).all()
    assert (raw[shares] < 0.0).any() and (raw[~shares] < 0.0).any(), "the case clips nothing"


def test_a_period_of_half_a_second_scales_times_not_counts():
    """T = 0.5 s: Poisson(λ) tasks per period are a rate λ/T per second; arrivals fill
    [0, n·T), the warm-up cut is at 0.1 · n · T, and each bottom server runs at
    ρ = (λ/T) E[D] / speed = 0.7, in simulate and in run_models alike."""
    m1, m2 = size_moments(MU, 1.0)
    half = RUN | {"lam": 1.0, "period": 0.5}
    res = simulate(**half, periods=3000, replications=2, seed=2, keep_records=True)
    rec = res.records
    assert rec["arrival"].max() < 1500.0 and rec["arrival"].max() > 1490.0
    np.testing.assert_array_equal(rec["measured"], rec["arrival"] >= 150.0)
    np.testing.assert_allclose(rec["execution"], rec["work"] / SPEED, rtol=1e-12)
    s = res.summary.set_index("quantity")["estimate"]
    assert s["load_s3"] == pytest.approx(2.0 * m1 / SPEED, rel=0.03)
    assert s["tasks"] == pytest.approx(4 * 1.0 * 3000 * 0.9, rel=0.03)
    common = {k: v for k, v in half.items() if k != "model"}
    one = run_models(**common, periods=3000, seed=2, models=("pure_local",))
    assert one["pure_local/load_s3"] == pytest.approx(2.0 * m1 / SPEED, rel=0.03)
    assert one["pure_local/tasks"] == pytest.approx(4 * 1.0 * 3000 * 0.9, rel=0.03)
    pk = pollaczek_khinchine(2.0, m1 / SPEED, m2 / SPEED**2)
    assert one["pure_local/mean_time"] == pytest.approx(pk, rel=0.1)
    assert one["pure_local/stationary"] == 1.0


def test_the_station_table_is_each_servers_mg1(local):
    """``info["stations"]``: each bottom server has utilisation and load ρ = 0.7, throughput
    λ = 2 tasks/s, a quarter of the tasks and of the work, and L = λ W (Little, P-K); the
    upper servers are idle."""
    m1, m2 = size_moments(MU, 1.0)
    table = local.info["stations"].set_index("server")
    rho = LAM * m1 / SPEED
    number = LAM * pollaczek_khinchine(LAM, m1 / SPEED, m2 / SPEED**2)
    for k in (3, 4, 5, 6):
        row = table.loc[k]
        assert row["utilisation"] == pytest.approx(rho, rel=0.03)
        assert row["load"] == pytest.approx(rho, rel=0.03)
        assert row["throughput"] == pytest.approx(LAM, rel=0.03)
        assert row["mean_number"] == pytest.approx(number, rel=0.1)
        assert row["executed_share"] == pytest.approx(0.25, abs=0.01)
        assert row["work_share"] == pytest.approx(0.25, abs=0.01)
    for k in (0, 1, 2):
        assert (table.loc[k, ["utilisation", "throughput", "mean_number", "work_share"]] == 0).all()


def test_a_run_over_the_task_cap_is_refused_before_any_work():
    """λ · Σ weights · n = 1000 · 4 · 1000 = 4e6 expected tasks, over the 3e6 a replication
    may hold: refused naming ``periods`` and the estimate, before a task is drawn."""
    with pytest.raises(ParameterError, match=r"'periods' parameter of simulate.* = 4e\+06\)"):
        simulate(**(RUN | {"lam": 1000.0}), periods=1000, keep_records=False)


def test_a_run_with_no_task_after_the_warm_up_is_refused_by_name():
    """λ = 0.001 per period and server over the last period of ten: almost surely no task
    to measure, said as such (not a NaN mean)."""
    with pytest.raises(EmptyRunError, match="tasks generated after the warm-up"):
        simulate(**(RUN | {"lam": 0.001}), periods=10, warmup=0.9, replications=2)


@pytest.mark.parametrize(
    "models", ["pure_local", [], np.array([["pure_local"]]), np.array("pure_local")]
)
def test_run_models_refuses_what_is_not_a_list_of_names(models):
    with pytest.raises(ParameterError, match="'models' parameter of run_models"):
        run_models(lam=LAM, periods=50, models=models)


def test_the_precision_loop_refuses_a_transient_run():
    """A transient has no precision to reach: ``overload="transient"`` is refused; "raise"
    read at run time (equal, not the same object) is accepted."""
    with pytest.raises(ParameterError, match="'overload' parameter of simulate_to_precision"):
        simulate_to_precision(**RUN, periods=200, overload="transient", progress=False)
    r = simulate_to_precision(
        **RUN, periods=200, overload="".join(["ra", "ise"]), rel_half_width=0.5, progress=False
    )
    assert r.replications >= 2


def test_run_models_with_no_task_after_the_warm_up_is_refused_by_name():
    with pytest.raises(EmptyRunError, match="tasks generated after the warm-up"):
        run_models(lam=0.001, periods=10, warmup=0.9, models=("pure_local",))
