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


@pytest.fixture(scope="module")  # the mutation runner credits its lines to every user
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


def test_the_parameters_in_info_are_the_runs_but_not_its_replication_count():
    """``info["parameters"]``: the validated keywords that shaped the run; how many
    replications ran is the result's own ``replications`` (the precision loop chooses it)."""
    r = simulate_to_precision(**RUN, periods=200, rel_half_width=0.5, initial=3, progress=False)
    assert r.replications >= 3 and "replications" not in r.info["parameters"]
    assert r.info["parameters"]["lam"] == LAM and r.info["parameters"]["model"] == "pure_local"


def test_run_models_with_no_task_after_the_warm_up_is_refused_by_name():
    with pytest.raises(EmptyRunError, match="tasks generated after the warm-up"):
        run_models(lam=0.001, periods=10, warmup=0.9, models=("pure_local",))


# --- the second mutation run: the draws, the budgets, the notes, eq. 11's unit, the detector


def draw_naive(topo, lam, mu, sigma, periods, period, beta, seed, arrivals):
    """The documented draws, task by task: per period and generating server a Poisson(λ w)
    count; one uniform offset per task; the tasks sorted by arrival (ties in draw order); a
    Normal(μ, σ) size per task in that order (none drawn when σ = 0), the non-positive ones
    redrawn together until none is left; then n uniforms per task for RED."""
    rng = np.random.default_rng(seed)
    gens = [int(g) for g in topo.generators]
    born = []
    for i in range(periods):
        for g in gens:
            born += [(i, g)] * int(rng.poisson(lam * topo.weight[g]))
    offset = [rng.uniform() for _ in born]
    arrival = [
        (i + (u if arrivals == "spread" else 0.0)) * period
        for (i, _), u in zip(born, offset, strict=True)
    ]
    order = sorted(range(len(born)), key=lambda k: arrival[k])
    work = [rng.normal(mu, sigma) if sigma > 0 else float(mu) for _ in order]
    while any(w <= 0 for w in work):
        bad = [k for k, w in enumerate(work) if w <= 0]
        for k in bad:
            work[k] = rng.normal(mu, sigma)
    uniforms = [[rng.uniform() for _ in range(topo.n)] for _ in order]
    return (
        np.array([arrival[k] for k in order]),
        np.array([born[k][1] for k in order]),
        np.array(work),
        beta * np.array(work),
        np.array(uniforms).reshape(len(order), topo.n),
    )


@pytest.mark.parametrize(
    ("mu", "sigma", "arrivals", "topology"),
    [
        (7.0, 1.0, "spread", "tree"),
        (7.0, 0.0, "spread", "tree"),
        (0.5, 2.0, "batch", "tree"),
        (7.0, 1.0, "spread", "skewed"),
    ],
)
def test_the_draws_follow_their_documented_order(mu, sigma, arrivals, topology):
    """Same seed, same numbers: the draws are the slow twin's, value for value. σ = 0 draws
    no size (the RED uniforms come next in the stream); at μ = 0.5, σ = 2 about 40 % of the
    sizes are redrawn, and only those; the skewed tree's weights (0.4 : 0.8 : 1.2 : 1.6)
    scale each server's Poisson rate."""
    from workbench.hierarchy import simulation as S
    from workbench.hierarchy.model import P5Params

    topo = P5Params(topology=topology).hierarchy()
    got = S._draw_tasks(topo, 1.5, mu, sigma, 30, 0.5, 0.2, np.random.default_rng(11), arrivals)
    want = draw_naive(topo, 1.5, mu, sigma, 30, 0.5, 0.2, 11, arrivals)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_array_equal(a, b)
    assert (got.work > 0).all() and got.arrival.size > 100


def test_original_and_without_enhancement_2_never_red_forward():
    """RED is the paper's enhancement 2: the original model (eqs. 3-9) and the model without
    enhancement 2 never forward a task by RED, on the same loaded draws where the advanced
    model does."""
    models = ("advanced", "original", "without_enhancement_2")
    out = run_models(
        lam=8.0, task_size=MU, periods=300, seed=4, min_th=0.5, max_th=2.0, models=models
    )
    assert out["advanced/red_forward_rate"] > 0.05
    assert out["original/red_forward_rate"] == 0.0
    assert out["without_enhancement_2/red_forward_rate"] == 0.0


def test_the_event_budget_is_the_documented_bound_and_holds():
    """``_event_budget``: 3 events per task and server visited, a visit per tier plus one
    down, ``3 m (depth + 2)``, plus ``4 n + 16`` for the servers' last events, by hand for
    the tree (depth 2, 7 servers) and a Barabási-Albert tree; every model's events on a
    loaded run with down-offloads stay under it, and a run given fewer events than it needs
    is stopped (not a wrong answer)."""
    from workbench.hierarchy import simulation as S
    from workbench.hierarchy.model import P5Params

    tree = P5Params().hierarchy()
    assert int(tree.depth.max()) == 2 and tree.n == 7
    assert S._event_budget(tree, 1000) == 3 * 1000 * 4 + 4 * 7 + 16
    ba = P5Params(topology="ba-2").hierarchy()
    depth = int(ba.depth.max())
    assert S._event_budget(ba, 501) == 3 * 501 * (depth + 2) + 4 * ba.n + 16
    p = P5Params(lam=12.0, task_size=MU, periods=200, down_offload=True, decision_time=0.02)
    tasks = S._draw(p, tree, np.random.default_rng(1))
    m = tasks.arrival.size
    for model in S._MODEL_FLAGS:
        out = S._run_kernel(model, tree, tasks, **S._kernel_args(p))
        assert 2 * m <= out["events"] <= S._event_budget(tree, m)
    with pytest.raises(RuntimeError, match="event budget ran out"):
        S._run_kernel("advanced", tree, tasks, max_events=m, **S._kernel_args(p))


def test_the_memory_estimate_is_the_documented_one(monkeypatch):
    """Per expected task: 8 (20 + n) bytes of one replication's scratch, then 8 bytes of
    series and, with records, 400 bytes per replication kept (simulate: its replications;
    the precision loop: max_replications; run_models: one). Records are kept unless told not
    to. λ = 2 at 4 bottom servers for 1000 periods: 8000 expected tasks; each run is accepted
    under a budget of exactly its estimate and refused one byte below it, naming ``periods``."""
    from workbench import validation

    tasks, scratch = 2.0 * 4 * 1000, 8.0 * (20 + 7)
    cases = [
        (simulate, dict(replications=3, keep_records=False), scratch + 3 * 8.0),
        (simulate, dict(replications=2, keep_records=True), scratch + 2 * 408.0),
        (simulate_to_precision, dict(max_replications=7, progress=False), scratch + 7 * 408.0),
        (run_models, dict(models=("pure_local",)), scratch + 8.0),  # no records
    ]
    for func, kw, per_task in cases:
        call = RUN | kw | {"periods": 1000}
        if func is run_models:
            del call["model"]
        monkeypatch.setattr(validation, "MEMORY_BUDGET", tasks * per_task - 1.0)
        with pytest.raises(ParameterError, match=f"'periods' parameter of {func.__name__}"):
            func(**call)
        monkeypatch.setattr(validation, "MEMORY_BUDGET", tasks * per_task)
        func(**call)


def test_the_memory_estimate_bounds_what_a_run_allocates():
    """The estimate against tracemalloc's peak of a run of 40,000 tasks, 8 replications (numpy
    reports its arrays to tracemalloc): at least the peak, and within 1.5 times it."""
    import tracemalloc

    from workbench.hierarchy import simulation as S

    simulate(**RUN, periods=100, replications=2)  # compiled and imported before measuring
    tracemalloc.start()
    try:
        simulate(**RUN, periods=5000, replications=8, keep_records=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    estimate = LAM * 4 * 5000 * S._task_bytes(7, 8, False)
    assert peak <= estimate <= 1.5 * peak


def _routing_notes(res):
    return [n for n in res.notes if "the policy's routing loads a server" in n]


def test_a_measured_overload_under_a_bound_below_one_is_said():
    """The advanced model's bound counts work, not decisions: with a 0.1 s decision per task
    at λ = 10 its bound is 0.23 while the bottom servers' workers are busy more than all the
    time. The note says so; it says nothing at a stable load, nor when the bound itself is
    1 (pure local, σ = 0: λ μ / F = 2 · 10 / 20 exactly) or above, which the bound's own
    note already says."""
    heavy = simulate(
        model="advanced",
        lam=10.0,
        task_size=MU,
        decision_time=0.1,
        periods=200,
        overload="transient",
    )
    assert heavy.info["rho_bound"] < 1.0 <= heavy.info["rho_measured"]
    assert len(_routing_notes(heavy)) == 1
    stable = simulate(**RUN, periods=300)
    assert stable.info["rho_measured"] < 1.0 and _routing_notes(stable) == []
    at_one = simulate(
        **(RUN | {"task_size": 10.0, "sigma": 0.0}), periods=300, overload="transient"
    )
    assert at_one.info["rho_bound"] == 1.0 and at_one.info["rho_measured"] >= 1.0
    assert _routing_notes(at_one) == []
    above = simulate(**(RUN | {"lam": 3.0}), periods=300, overload="transient")
    assert above.info["rho_bound"] > 1.0 and _routing_notes(above) == []


def test_eq11_units_are_seconds_milliseconds_and_the_period():
    """Eq. 11 reads the mean execution time and the thresholds in the unit u: "s" is the
    unit of a 1 s period, "ms" that of a 1 ms period, value for value; and the unit matters
    on this case (seconds and milliseconds forward different tasks)."""
    load = dict(model="advanced", lam=8.0, task_size=MU, seed=3, overload="transient")
    load |= dict(replications=2, keep_records=True, min_th=2.0, max_th=8.0)

    def forwards(**kw):
        return simulate(**load, **kw).records[["red_forwards", "completion_time"]]

    pd_testing = pytest.importorskip("pandas").testing
    s, per = forwards(periods=300, eq11_unit="s"), forwards(periods=300, eq11_unit="period")
    pd_testing.assert_frame_equal(s, per)
    fast = dict(periods=40, period=1e-3)
    ms, per_ms = forwards(**fast, eq11_unit="ms"), forwards(**fast, eq11_unit="period")
    pd_testing.assert_frame_equal(ms, per_ms)
    assert ms["red_forwards"].sum() > 0
    assert not forwards(**fast, eq11_unit="s")["red_forwards"].equals(ms["red_forwards"])


def test_the_detector_is_handed_the_warm_up_in_tasks():
    """Batch arrivals over 10 periods, under 50 tasks after the warm-up per replication (the
    detector then adds no cut of its own): it drops exactly the tasks generated before
    0.1 · 10 · T, those of the batch on the cut kept."""
    res = simulate(**(RUN | {"arrivals": "batch", "lam": 1.0}), periods=10, keep_records=True)
    rec = res.records
    warm = rec[rec["arrival"] < 1.0].groupby("replication").size()
    assert (rec["arrival"] == 1.0).any()
    assert res.stationarity.truncation == warm.max()
    assert res.stationarity.observations == (rec["arrival"] >= 1.0).sum()


def test_run_models_measures_from_the_cut():
    """run_models' warm-up: a batch landing on the cut (period 9 of 10 at warm-up 0.9) is
    all it measures; at λ = 0.1 with seed 1, 6 tasks come in the first 9 periods and none in
    the last: nothing is left to measure, though tasks came."""
    batch = dict(arrivals="batch", periods=10, warmup=0.9, models=("pure_local",))
    out = run_models(**batch, lam=LAM, seed=3)
    assert 0 < out["pure_local/tasks"] < 4 * LAM * 3
    with pytest.raises(EmptyRunError, match="tasks generated after the warm-up"):
        run_models(**batch, lam=0.1, seed=1)


def test_run_models_is_the_same_run_on_a_clock_a_thousand_times_faster():
    """Periods of 1 ms and servers 1000 times faster: the same draws on a clock scaled by
    1/1000, so the same run: the times are a thousandth, the loads, shares and counts the
    same, and the detector (on each task's completion time, not on the clock) finds both
    runs stationary."""
    common = {k: v for k, v in RUN.items() if k != "model"} | {"seed": 6, "periods": 900}
    fast = common | {"period": 1e-3} | {k: 1000 * RUN[k] for k in RUN if k.startswith("comp")}
    slow = run_models(**common, models=("pure_local",))
    quick = run_models(**fast, models=("pure_local",))
    assert quick["pure_local/mean_time"] == pytest.approx(slow["pure_local/mean_time"] / 1000)
    for q in ("load_s3", "share_s5", "tasks", "mean_in_system"):
        assert quick[f"pure_local/{q}"] == pytest.approx(slow[f"pure_local/{q}"], rel=1e-9)
    assert slow["pure_local/rho_measured"] == pytest.approx(0.7, rel=0.05)
    assert slow["pure_local/stationary"] == quick["pure_local/stationary"] == 1.0


def test_the_precision_loop_shows_its_bar_unless_told_not_to(capsys):
    """``progress`` defaults to a bar (tqdm, on stderr) labelled with the model, λ and μ."""
    simulate_to_precision(**RUN, periods=200, rel_half_width=0.5)
    assert "pure_local λ=2 μ=7" in capsys.readouterr().err
    simulate_to_precision(**RUN, periods=200, rel_half_width=0.5, progress=False)
    assert capsys.readouterr().err == ""


class _ZeroFirst:
    """A generator whose first Normal draws are exactly 0.0 (then numpy's own)."""

    def __init__(self, seed, zeros):
        self.rng, self.zeros = np.random.default_rng(seed), zeros

    def __getattr__(self, name):
        return getattr(self.rng, name)

    def normal(self, loc, scale, size):
        out = self.rng.normal(loc, scale, size)
        k = min(self.zeros, out.size)
        out[:k], self.zeros = 0.0, self.zeros - k
        return out


@pytest.mark.parametrize("zeros", [1, 1000])
def test_a_size_of_exactly_zero_is_redrawn(zeros):
    """Sizes are Normal(μ, σ) truncated to D > 0: a draw of exactly 0 (planted: the first
    draw, or the first 1000, redraws included) is drawn again like a negative one."""
    from workbench.hierarchy import simulation as S
    from workbench.hierarchy.model import P5Params

    topo = P5Params().hierarchy()
    tasks = S._draw_tasks(topo, 1.0, MU, 1.0, 5, 1.0, 0.2, _ZeroFirst(3, zeros), "spread")
    assert tasks.work.size > 5 and (tasks.work > 0).all()


def test_the_task_cap_is_three_million_expected_tasks():
    """At most 3,000,000 expected tasks per replication: exactly that many passes the cap
    (the run is then refused for its load, ρ >> 1, before any draw), half a task more is
    refused by the cap. λ · Σ weights · n with 4 bottom servers and n = 1000 periods."""
    from workbench import UnstableRegimeError

    cap = dict(RUN, periods=1000, replications=2, keep_records=False)
    with pytest.raises(UnstableRegimeError):
        simulate(**(cap | {"lam": 750.0}))
    with pytest.raises(ParameterError, match=r"at most 3,000,000") as refused:
        simulate(**(cap | {"lam": 750.000125}))
    assert not isinstance(refused.value, UnstableRegimeError)


def test_arrivals_named_at_run_time_are_spread():
    """``arrivals`` equal to "spread" but built at run time (not the same str object) still
    spreads the tasks inside their periods."""
    res = simulate(**(RUN | {"arrivals": "".join(["spr", "ead"])}), periods=50, replications=2)
    arrival = res.records["arrival"]
    assert (arrival != np.floor(arrival)).mean() > 0.99


def test_a_shares_interval_is_clipped_at_one():
    """Two replications of the advanced model at λ = 0.3: server 0's share of the tasks has
    a raw interval reaching above 1; the reported one stops at 1 exactly."""
    res = simulate(model="advanced", lam=0.3, task_size=MU, periods=100, seed=0, replications=2)
    s = res.summary.set_index("quantity").loc["share_s0"]
    assert s["estimate"] + s["half_width"] > 1.0
    assert s["ci_high"] == 1.0


def test_a_measured_load_of_exactly_one_is_said():
    """Pure local, σ = 0: every task is 0.5 s of work at a bottom server, so a server that
    got 20 tasks in 10 periods was busy 10 s of 10: load exactly 1 (seed 10: the busiest
    server, both replications) under a bound of 0.95. Measured by hand from the records,
    and said in the note."""
    one = dict(RUN, lam=1.9, task_size=10.0, sigma=0.0, overload="transient", warmup=0.0)
    res = simulate(**one, periods=10, replications=2, seed=10)
    rec = res.records
    busy = rec.groupby(["replication", "origin"])["execution"].sum() / 10.0
    assert busy.groupby("origin").mean().max() == 1.0 == res.info["rho_measured"]
    assert res.info["rho_bound"] == pytest.approx(0.95)
    assert len(_routing_notes(res)) == 1


def test_without_warm_up_the_first_tasks_count_whole():
    """warmup = 0: every task is measured, those of the first batch (arriving at t = 0, in
    the system longer than their arrival time) with their whole completion time: the row's
    mean time is the records' mean."""
    res = simulate(**(RUN | {"arrivals": "batch"}), periods=20, warmup=0.0, replications=2)
    rec = res.records
    assert (rec["arrival"] == 0.0).any() and rec["measured"].all()
    by_rep = rec.groupby("replication")["completion_time"].mean()
    np.testing.assert_allclose(res.frame["mean_time"], by_rep, rtol=1e-12)


def test_the_mean_number_in_system_is_littles_law_on_the_sample_path(local):
    """Pure local moves no task between servers, so the area under the number of tasks
    present, summed over the 7 servers up to the last completion, is the sum of every
    task's completion time (warm-up included): the row's mean number in system is that sum
    over 7 times the horizon, per replication."""
    rec = local.records.assign(finish=lambda r: r["arrival"] + r["completion_time"])
    per = rec.groupby("replication").agg(area=("completion_time", "sum"), end=("finish", "max"))
    want = per["area"] / per["end"] / 7
    np.testing.assert_allclose(local.frame["mean_in_system"], want, rtol=1e-9)


def test_run_models_names_the_first_overloaded_model():
    """λ = 20 overloads both pure local (ρ = 7) and pure cloud: the refusal names the first
    model of the list given, before any draw."""
    from workbench import UnstableRegimeError

    for models in (("pure_local", "pure_cloud"), ("pure_cloud", "pure_local")):
        with pytest.raises(UnstableRegimeError, match=f"model '{models[0]}'"):
            run_models(lam=20.0, task_size=MU, periods=50, models=models)


def test_run_models_sees_a_near_critical_queue_fill():
    """Pure local at ρ = 0.96 over 1000 periods, from empty: the queue's relaxation time
    (of order E[S] / (1 - ρ)², about 250 s) is a good part of the run, the completion times
    grow over it, and run_models' verdict says not stationary, as simulate's detector does
    on the same run length (its note: the mean grows)."""
    near = {k: v for k, v in RUN.items() if k != "model"} | {"lam": 2.75, "periods": 1000}
    one = run_models(**near, seed=1, overload="transient", models=("pure_local",))
    assert one["pure_local/rho_bound"] == pytest.approx(0.963, abs=1e-3)
    assert one["pure_local/rho_measured"] < 1.0 and one["pure_local/stationary"] == 0.0
    res = simulate(**near, model="pure_local", overload="transient", replications=3)
    assert not res.stationarity.stationary and "grows" in res.stationarity.note


@pytest.mark.parametrize("seed", [1, 3])
def test_run_models_judges_the_time_from_arrival_to_completion(seed):
    """Pure cloud, no warm-up, slow links: every task climbs two hops of B / W = 7 s and
    runs in 7 µs at a centre that is all but idle, so its completion time (finish minus
    arrival) is 14 s from the first task on: a steady state, whatever the run's length,
    though the completion time exceeds the arrival time of most tasks of these 16 to 20
    periods. The verdict is stationary, and the default overload='raise' lets it pass."""
    run = dict(
        lam=4.0,
        task_size=7.0,
        sigma=0.0,
        periods=16 + 2 * seed,
        warmup=0.0,
        bandwidth=1.0,
        data_per_work=1.0,
        compute_top=1e6,
        arrivals="spread",
        seed=seed,
        models=("pure_cloud",),
    )
    out = run_models(**run)
    assert out["pure_cloud/mean_time"] == pytest.approx(14.0 + 7e-6, abs=1e-6)
    assert out["pure_cloud/stationary"] == 1.0
