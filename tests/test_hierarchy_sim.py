"""The hierarchy simulator against its slow twin and against queueing theory."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_hierarchy import simulate_naive

from workbench.hierarchy import (
    from_parents,
    pollaczek_khinchine,
    simulate,
    size_moments,
    symmetric_tree,
)
from workbench.hierarchy import kernels as K
from workbench.hierarchy.simulation import (
    _MODEL_FLAGS,
    _draw_tasks,
    _run_kernel,
    run_models,
)

PER_TASK = ("finish", "exec_server", "visits", "wait", "decide", "transfer", "red_forwards")


@settings(deadline=None, max_examples=25)
@given(
    model=st.sampled_from(sorted(_MODEL_FLAGS)),
    seed=st.integers(0, 2**31),
    lam=st.floats(0.5, 12.0),
    mu=st.floats(0.5, 9.0),
    w_q=st.floats(0.01, 1.0),
    min_th=st.floats(0.0, 3.0),
    width=st.floats(0.1, 10.0),
    down=st.booleans(),
    gentle=st.booleans(),
    decision_time=st.floats(0.0, 0.05),
    skew=st.booleans(),
    in_decision=st.sampled_from(["full", "zero", "remaining"]),
    offload_busy=st.booleans(),
    eq11_unit=st.sampled_from([1.0, 1e-3, 0.5]),
    arrivals=st.sampled_from(["batch", "spread"]),
)
def test_kernel_matches_naive_twin_task_by_task(
    model,
    seed,
    lam,
    mu,
    w_q,
    min_th,
    width,
    down,
    gentle,
    decision_time,
    skew,
    in_decision,
    offload_busy,
    eq11_unit,
    arrivals,
):
    topo = symmetric_tree(20.0, 40.0, 100.0, weights=(0.4, 0.8, 1.2, 1.6) if skew else None)
    rng = np.random.default_rng(seed)
    tasks = _draw_tasks(topo, lam, mu, 1.0, 25, 1.0, 0.1, rng, arrivals)
    kw = dict(
        in_decision=in_decision,
        offload_busy=offload_busy,
        eq11_unit=eq11_unit,
        w_q=w_q,
        min_th=min_th,
        max_th=min_th + width,
        gentle=gentle,
        down_offload=down,
        decision_time=decision_time,
    )
    fast = _run_kernel(model, topo, tasks, **kw)
    slow = simulate_naive(model, topo, tasks, **kw)
    for name in PER_TASK:
        np.testing.assert_allclose(fast[name], slow[name], rtol=1e-9, atol=1e-9, err_msg=name)
    np.testing.assert_array_equal(fast["went_down"], slow["went_down"])
    np.testing.assert_allclose(fast["server_stats"][:, K.SRV_AREA], slow["area"], rtol=1e-9)


def test_twin_on_a_user_tree():
    """A 4-tier chain-and-branch tree where a middle server also generates tasks."""
    speeds = [60, 30, 15, 15, 8, 8, 8]
    topo = from_parents([-1, 0, 1, 1, 2, 2, 3], speeds, 50.0, [0, 0, 1, 0, 1, 1, 1])
    tasks = _draw_tasks(topo, 3.0, 3.0, 1.0, 40, 1.0, 0.2, np.random.default_rng(5), "spread")
    for model in _MODEL_FLAGS:
        fast = _run_kernel(model, topo, tasks, w_q=0.1, min_th=0.5, max_th=3.0)
        slow = simulate_naive(model, topo, tasks, w_q=0.1, min_th=0.5, max_th=3.0)
        for name in PER_TASK:
            np.testing.assert_allclose(fast[name], slow[name], rtol=1e-9, atol=1e-9)


SPREAD = dict(arrivals="spread", compute_bottom=20.0, compute_middle=40.0, compute_top=100.0)


def test_pure_local_is_mg1_per_bottom_server():
    lam, mu, speed = 2.0, 7.0, 20.0  # rho = 0.7 at each bottom server
    res = simulate(
        model="pure_local", lam=lam, task_size=mu, periods=4000, replications=10, seed=3, **SPREAD
    )
    m1, m2 = size_moments(mu, 1.0)
    pk = pollaczek_khinchine(lam, m1 / speed, m2 / speed**2)
    assert res.ci_low <= pk <= res.ci_high, (pk, res.ci_low, res.ci_high)
    # and each bottom server on its own
    rec = res.records[res.records["measured"]]
    per_server = rec.groupby("origin")["completion_time"].mean()
    assert set(per_server.index) == {3, 4, 5, 6}
    assert np.allclose(per_server, pk, rtol=0.08)


def test_pure_cloud_is_mg1_at_the_centre_plus_links():
    lam, mu = 2.0, 5.0  # centre: 8 tasks/s of mean 0.05 s -> rho = 0.4
    res = simulate(
        model="pure_cloud", lam=lam, task_size=mu, periods=3000, replications=10, seed=4, **SPREAD
    )
    m1, m2 = size_moments(mu, 1.0)
    links = 2 * 0.1 * m1 / 100.0  # two hops of B = 0.1 D Mbit at 100 Mbit/s
    pk = pollaczek_khinchine(4 * lam, m1 / 100.0, m2 / 100.0**2) + links
    assert res.ci_low <= pk <= res.ci_high, (pk, res.ci_low, res.ci_high)
    assert res.share_s0 == 1.0


@pytest.mark.parametrize(("lam", "mu"), [(2.0, 7.0), (5.0, 3.0)])
def test_pure_local_batch_arrivals_against_the_text(lam, mu):
    """Sec. 5.1 read literally: a Poisson(λ) batch pushed at each period's start. A task's
    place in its batch is uniform, so with N ~ Poisson(λ) it finds E[N(N-1)]/(2E[N]) = λ/2
    others ahead on average: E[T] = (1 + λ/2) E[S] whenever a batch drains within the period
    (here 0.15 and 0.38 of a period on average: a backlog is rare and short)."""
    res = simulate(model="pure_local", lam=lam, task_size=mu, periods=3000, replications=8, seed=6)
    theory = (1.0 + lam / 2.0) * size_moments(mu, 1.0)[0] / 100.0
    assert res.ci_low <= theory * 1.005 and theory <= res.ci_high * 1.005, (theory, res)
    # and spread arrivals (a Poisson process) are not that: P-K differs by > 10 %
    pk = pollaczek_khinchine(lam, size_moments(mu, 1.0)[0] / 100.0, size_moments(mu, 1.0)[1] / 1e4)
    assert abs(pk / theory - 1.0) > 0.1


@pytest.mark.parametrize("model", sorted(_MODEL_FLAGS))
def test_conservation_and_littles_law(model):
    topo = symmetric_tree()
    tasks = _draw_tasks(topo, 4.0, 5.0, 1.0, 300, 1.0, 0.1, np.random.default_rng(11), "spread")
    out = _run_kernel(model, topo, tasks, down_offload=model == "advanced")
    # every task completes exactly once, at one server, after it arrived
    assert np.all(np.isfinite(out["finish"])) and np.all(out["finish"] > tasks.arrival)
    assert np.all(out["exec_server"] >= 0)
    executed = out["server_stats"][:, K.SRV_EXECUTED]
    assert executed.sum() == tasks.arrival.size
    np.testing.assert_array_equal(executed, np.bincount(out["exec_server"], minlength=7))
    # the completion time is the sum of its parts
    execution = tasks.work / topo.compute[out["exec_server"]]
    parts = out["wait"] + out["decide"] + out["transfer"] + execution
    np.testing.assert_allclose(out["finish"] - tasks.arrival, parts, rtol=1e-9)
    # Little: time-integral of tasks at servers = total time tasks spent at servers
    at_servers = (out["wait"] + out["decide"] + execution).sum()
    assert out["server_stats"][:, K.SRV_AREA].sum() == pytest.approx(at_servers, rel=1e-9)


def test_littles_law_per_server_pure_local():
    """L_s (kernel's time integral) = λ_s W_s (from the per-task times), server by server."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _draw_tasks(topo, 3.0, 5.0, 1.0, 2000, 1.0, 0.1, np.random.default_rng(8), "spread")
    out = _run_kernel("pure_local", topo, tasks)
    end = out["server_stats"][0, K.SRV_END_TIME]
    sojourn = out["finish"] - tasks.arrival
    for s in (3, 4, 5, 6):
        mine = tasks.origin == s
        lam_s = mine.sum() / end
        L = out["server_stats"][s, K.SRV_AREA] / end
        assert L == pytest.approx(lam_s * sojourn[mine].mean(), rel=1e-9)
        # and the P-K number of an M/G/1 at rho = 0.75 (within 15 %: one finite run)
        m1, m2 = size_moments(5.0, 1.0)
        assert L == pytest.approx(3.0 * pollaczek_khinchine(3.0, m1 / 20, m2 / 400), rel=0.15)


def test_records_are_tidy_and_paths_go_up():
    res = simulate(model="advanced", lam=6.0, task_size=6.0, periods=200, replications=2, seed=2)
    rec = res.records
    assert len(rec) == rec.groupby("replication")["task"].nunique().sum()
    for path, origin, ex, n in (
        rec[["servers_visited", "origin", "executed_at", "n_visited"]]
        .head(500)
        .itertuples(index=False)
    ):
        hops = [int(x) for x in path.split(">")]
        assert hops[0] == origin and hops[-1] == ex and len(hops) == n


def test_same_seed_same_numbers():
    run = dict(model="advanced", lam=8, task_size=7, periods=300, replications=3)
    a = simulate(**run, seed=9, keep_records=False)
    b = simulate(**run, seed=9, keep_records=False)
    c = simulate(**run, seed=10, keep_records=False)
    assert a.frame.equals(b.frame)
    assert not math.isclose(a.mean_time, c.mean_time)


def test_run_models_is_one_model_at_a_time_on_common_draws():
    run = dict(lam=7, task_size=6, seed=4, periods=150, overload="transient", decision_time=0.002)
    both = run_models(models=("advanced", "pure_local"), **run)
    for model in ("advanced", "pure_local"):
        one = run_models(models=(model,), **run)
        assert both[f"{model}/mean_time"] == one[f"{model}/mean_time"]
        assert both[f"{model}/rho_bound"] == one[f"{model}/rho_bound"]


def test_without_enhancement_1_ties_pure_cloud_without_decision_time():
    """The blind rule sends every task to the centre (Fig. 6); with τ_d = 0 nothing else
    differs from pure cloud, so on common draws the two tie to the last bit; any τ_d > 0
    makes the rule strictly slower (the paper's 'decision overhead')."""
    for tau, same in ((0.0, True), (0.001, False)):
        r = run_models(
            lam=5,
            task_size=4,
            models=("pure_cloud", "without_enhancement_1"),
            seed=1,
            periods=200,
            decision_time=tau,
            offload_busy=False,
            arrivals="spread",
        )
        cloud, blind = r["pure_cloud/mean_time"], r["without_enhancement_1/mean_time"]
        assert bool(cloud == blind) is same and blind >= cloud
        if not same:  # two decisions per task on the way up
            assert blind - cloud == pytest.approx(2 * tau, rel=0.2)


@settings(deadline=None, max_examples=20)
@given(
    seed=st.integers(0, 2**31),
    beta=st.floats(0.0, 50.0),
    power=st.floats(0.0, 5.0),
    speeds=st.lists(st.floats(5.0, 500.0), min_size=3, max_size=3),
)
def test_original_model_against_the_text(seed, beta, power, speeds):
    """A twin from the paper's text, not from the kernel: Sec. 3.2.4 compares, for one
    request at a time, eq. 5 (γ_t D/F_i + γ_e 10^-11 F_i² D) with eq. 8 (γ_t (B/W + D/F_j) +
    γ_e P B/W) and offloads iff eq. 8 is lower (eq. 9, «如果本地处理的开销较低，则当前服务器将选择
    本地处理，反之亦然»), with γ_t : γ_e = F : 1 (Sec. 5.1). Both sides scale with D (B = βD),
    so every task from a given server ends at the same server, found here by walking up with
    the equations written out; the kernel must execute every task there (any τ_d, queues)."""
    f_b, f_m, f_c = speeds
    topo = symmetric_tree(f_b, f_m, f_c)
    expected = {}
    for s in (3, 4, 5, 6):
        here = s
        while topo.parent[here] >= 0:
            up = topo.parent[here]
            f_i, f_j = topo.compute[here], topo.compute[up]
            g_t, g_e = f_i / (f_i + 1.0), 1.0 / (f_i + 1.0)
            d, b, w = 1.0, beta, 100.0
            local = g_t * d / f_i + g_e * 1e-11 * f_i**2 * d
            offload = g_t * (b / w + d / f_j) + g_e * power * b / w
            if not offload < local:
                break
            here = up
        expected[s] = here
    tasks = _draw_tasks(topo, 2.0, 3.0, 1.0, 30, 1.0, beta, np.random.default_rng(seed), "spread")
    out = _run_kernel("original", topo, tasks, power=power, decision_time=0.002)
    want = np.array([expected[int(o)] for o in tasks.origin])
    np.testing.assert_array_equal(out["exec_server"], want)


def test_a_keyword_without_a_table_row_is_refused_with_the_closest_name():
    """A keyword the table does not declare is refused, naming the closest one (it used to
    be dropped silently, so a misspelt one ran the default)."""
    with pytest.raises(TypeError, match="simulate.*'bandwith'.*Did you mean 'bandwidth'"):
        simulate(bandwith=5.0)
