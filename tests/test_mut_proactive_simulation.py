"""P2's simulation module, where the first mutation run of ``proactive_simulation`` found no
test: the run length and its round trip to the warm-up's slots, the per-replication row
(warm-up cut, percentiles, shares, per-task counters, uplink utilisation), the users' load
bound, the replications' streams and records, the intervals' ranges and the precision loop's
door, monitor, fallback and defaults. Oracles: slow twins written from the docstrings
(tests/naive_proactive.py: row_naive, user_load_naive), the replications rebuilt by hand
from the public model functions and the documented seed streams, the ranges of a time and a
share, and the run-time bound's arithmetic."""

import math

import numpy as np
import pandas as pd
import pytest
from naive_proactive import row_naive, user_load_naive
from scipy import stats

from workbench import ParameterError
from workbench.output_analysis import detect
from workbench.proactive import (
    P2Params,
    draw_tasks,
    make_scenario,
    run_length,
    run_scenario,
    simulate,
    simulate_to_precision,
    train,
)
from workbench.proactive import params as P
from workbench.proactive import simulation as S
from workbench.proactive.runs import Run
from workbench.validation import UnstableRegimeError

# four cloudlets covering ten users, twelve task types of which six cacheable
SMALL = dict(
    n_cloudlets=4, n_users=10, area=60.0, n_tasks=12, cacheable_ratio=0.5, coverage_db=110.0
)
ROW_KEYS = (
    "uplink_utilisation",
    "mean_delay",
    "p90_delay",
    "p99_delay",
    "hit_rate",
    "hedged_fraction",
    "withdrawn_per_task",
    "pending_hit_rate",
    "tasks",
    "uploads",
    "copies",
    "withdrawn",
    "slots_run",
)
SHARES = ("hit_rate", "hedged_fraction", "pending_hit_rate", "uplink_utilisation")
TIMES = ("mean_delay", "p90_delay", "p99_delay")


def _same(got, want):
    """Equal to a float's rounding, NaN equal to NaN."""
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return got == pytest.approx(want, rel=1e-12, abs=1e-15)


# ------------------------------------------------------------------------------------------
# run_length
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("measured", "warm"), [(20_000, 4000), (7, 3), (997, 2003), (40, 360)])
def test_run_length_adds_the_slots_and_the_warm_up_rounds_back_to_its_slots(measured, warm):
    """``slots`` is the sum; ``warmup · slots`` rounds back to exactly ``warm`` slots, so the
    measured part is exactly ``measured`` slots (the result's run length)."""
    kw = run_length(measured, warm)
    assert kw["slots"] == measured + warm
    p = P2Params(**kw)
    assert p.warmup_slots() == warm
    assert p.slots - p.warmup_slots() == measured


def test_run_length_accepts_its_documented_range_and_refuses_one_past_it():
    """measured_slots in [1, 5e7], warmup_slots in [0, 5e7], both ends included."""
    assert run_length(1, 0) == {"slots": 1, "warmup": 0.0}
    assert run_length(50_000_000, 0)["slots"] == 50_000_000
    assert run_length(1, 50_000_000)["slots"] == 50_000_001
    for measured, warm, name in (
        (0, 5, "measured_slots"),
        (50_000_001, 0, "measured_slots"),
        (5, -1, "warmup_slots"),
        (5, 50_000_001, "warmup_slots"),
    ):
        with pytest.raises(ParameterError, match=f"'{name}' parameter of run_length"):
            run_length(measured, warm)


# ------------------------------------------------------------------------------------------
# one replication's row
# ------------------------------------------------------------------------------------------


def _hand_run(rng, n, t_end, cached_share=0.3):
    """A run's task table drawn at random: arrivals in [0, t_end), some tasks from a cache
    (no upload: NaN upload times, no copy), the others with one to three copies."""
    arrival = np.sort(rng.uniform(0.0, t_end, n))
    cached = rng.random(n) < cached_share
    start = arrival + rng.uniform(0.0, 0.05, n)
    end = start + rng.exponential(0.02, n)
    frame = pd.DataFrame(
        {
            "arrival": arrival,
            "delay": np.where(cached, 0.005, end - arrival + 0.01),
            "from_cache": cached,
            "copies": np.where(cached, 0, rng.integers(1, 4, n)),
            "upload_start": np.where(cached, np.nan, start),
            "upload_end": np.where(cached, np.nan, end),
        }
    )
    counters = {
        "tasks": n,
        "withdrawn": int(rng.integers(0, 7)),
        "pending_hits": int(rng.integers(0, 5)),
        "uploads": int(rng.integers(0, 99)),
        "copies": int(rng.integers(0, 99)),
        "slots_run": int(rng.integers(1, 999)),
    }
    return Run(frame, counters)


@pytest.mark.parametrize("seed", range(6))
def test_the_row_of_a_drawn_run_matches_its_slow_twin(seed):
    """Warm-up cut, percentiles, shares and utilisation against row_naive, with a task
    arriving exactly at the cut (measured), horizons before and after the last upload's
    end, and one to three cloudlets."""
    rng = np.random.default_rng(seed)
    run = _hand_run(rng, int(rng.integers(5, 60)), 2.0)
    cut = float(run.tasks["arrival"].iloc[len(run.tasks) // 3])  # a task arrives at the cut
    for horizon in (1.0, 2.0, 5.0):
        for cloudlets in (1, 3):
            got = S._row(run, cut, cloudlets, horizon)
            want = row_naive(run.tasks, run.counters, cut, cloudlets, horizon)
            assert list(got) == list(ROW_KEYS)
            for k in ROW_KEYS:
                assert _same(got[k], want[k]), (k, horizon, cloudlets)
    assert S._row(run, cut, 1, 5.0)["tasks"] == len(run.tasks) - len(run.tasks) // 3


def test_the_row_of_a_run_with_nothing_measured_has_no_delay_and_zero_shares():
    """Every task before the cut: NaN delays, shares of 0 (not a division by zero), counters
    per task with no task at all (0 per 1), and no utilisation over a span of 0."""
    empty = Run(
        _hand_run(np.random.default_rng(1), 8, 1.0).tasks,
        dict.fromkeys(("tasks", "withdrawn", "pending_hits", "uploads", "copies", "slots_run"), 0),
    )
    row = S._row(empty, 1.0, 2, 1.0)
    want = row_naive(empty.tasks, empty.counters, 1.0, 2, 1.0)
    for k in ROW_KEYS:
        assert _same(row[k], want[k]), k
    assert math.isnan(row["mean_delay"]) and row["uplink_utilisation"] == 0.0
    assert row["hit_rate"] == 0.0 and row["tasks"] == 0


def test_a_row_with_one_task_upload_spans_its_measured_time_exactly():
    """One measured upload of 0.25 s, from 0.5 s to a horizon of 1.5 s on two cloudlets:
    utilisation 0.25 / (2 · 1.0); its delay is every percentile; one task in the whole run
    withdrew one copy and hit one pending result: 1 per task."""
    frame = pd.DataFrame(
        {
            "arrival": [0.2, 0.5],
            "delay": [9.0, 0.4],
            "from_cache": [True, False],
            "copies": [0, 2],
            "upload_start": [np.nan, 0.75],
            "upload_end": [np.nan, 1.0],
        }
    )
    counters = {"tasks": 1, "withdrawn": 1, "pending_hits": 1, "uploads": 1, "copies": 2}
    counters["slots_run"] = 300
    row = S._row(Run(frame, counters), 0.5, 2, 1.5)
    assert row["uplink_utilisation"] == 0.125
    assert row["mean_delay"] == row["p90_delay"] == row["p99_delay"] == 0.4
    assert row["hit_rate"] == 0.0 and row["hedged_fraction"] == 1.0
    assert row["withdrawn_per_task"] == 1.0 and row["pending_hit_rate"] == 1.0
    # an upload ending after the horizon stretches the span to its end: 0.25 / (2 · 1.5)
    late = frame.assign(upload_start=[np.nan, 1.75], upload_end=[np.nan, 2.0])
    row = S._row(Run(late, counters), 0.5, 2, 1.5)
    assert row["uplink_utilisation"] == pytest.approx(0.25 / 3.0, rel=1e-15)
    # the one measured task served from a cache: a hit rate of 1, nothing uploaded
    hit = frame.assign(from_cache=[False, True], copies=[1, 0], upload_start=[0.3, np.nan])
    row = S._row(Run(hit.assign(upload_end=[0.4, np.nan]), counters), 0.5, 2, 1.5)
    assert row["hit_rate"] == 1.0 and row["hedged_fraction"] == 0.0
    assert row["uplink_utilisation"] == 0.0
    # an upload longer than the time before it started (0.1 s to 0.35 s): busy 0.25 s
    early = frame.assign(arrival=[0.0, 0.05], upload_start=[np.nan, 0.1])
    row = S._row(Run(early.assign(upload_end=[np.nan, 0.35]), counters), 0.0, 1, 1.0)
    assert row["uplink_utilisation"] == pytest.approx(0.25, rel=1e-15)


def test_the_row_by_default_measures_every_task_on_one_cloudlet_from_time_zero():
    """Without a cut, a cloudlet count or a horizon: every task measured, over one
    cloudlet, the span from 0 to the last upload's end (before 1 s here)."""
    run = _hand_run(np.random.default_rng(9), 30, 0.5)
    assert run.tasks["upload_end"].max() < 1.0
    got, want = S._row(run), row_naive(run.tasks, run.counters, 0.0, 1, 0.0)
    for k in ROW_KEYS:
        assert _same(got[k], want[k]), k
    assert got["tasks"] == 30


# ------------------------------------------------------------------------------------------
# the users' load bound
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("policy", ["proposed", "BL1", "BL2", "BL3"])
def test_the_load_bound_is_the_busiest_users_upload_load(policy):
    """_user_load against its user-by-user twin, with and without storage (a scheme that
    caches nothing uploads every task), on networks with fewer cloudlets than users."""
    sc = make_scenario(**SMALL, zipf=1.2, seed=7)
    for storage in (0, 1, 4):
        for lam, bits in ((2.0, 1e6), (0.5, 3e5)):
            p = P2Params(policy=policy, storage=storage, lam=lam, mean_bits=bits, **SMALL)
            got = S._user_load(sc, p)
            want = user_load_naive(sc, policy, storage, lam, bits, p.bandwidth)
            assert got == pytest.approx(want, rel=1e-12)
    caching = P2Params(policy=policy, storage=1, **SMALL)
    off = caching.trusted(storage=0)
    assert (S._user_load(sc, caching) < S._user_load(sc, off)) == (policy in ("proposed", "BL1"))


def test_the_load_bound_takes_each_users_best_covering_cloudlet_not_its_best_one():
    """A planted network: no user is covered by its strongest cloudlet (every other one
    covers it), then a transmitter 160 dB weaker leaves every link below 1 bit/s: the
    bound divides by the best covering link's rate (user_load_naive)."""
    sc = make_scenario(**SMALL, seed=7)
    covered = np.ones_like(sc.covered)
    covered[np.arange(len(covered)), np.argmax(sc.path_gain, axis=1)] = False
    planted = sc._replace(covered=covered)
    faint = planted._replace(power_w=sc.power_w * 1e-16)
    assert (
        P2Params().bandwidth * math.log2(1.0 + faint.power_w * sc.path_gain.max() / sc.noise_w) < 1
    )
    for net in (planted, faint):
        for policy in ("proposed", "BL2"):
            p = P2Params(policy=policy, **SMALL)
            got = S._user_load(net, p)
            want = user_load_naive(net, policy, p.storage, p.lam, p.mean_bits, p.bandwidth)
            assert got == pytest.approx(want, rel=1e-12)
    # the strongest link would have carried the busiest user's load more easily
    full = P2Params(policy="BL2", **SMALL)
    assert S._user_load(planted, full) > S._user_load(sc, full)


def test_one_user_at_one_cloudlet_loads_its_link_by_lambda_bits_over_rate():
    """One user, one cloudlet, no cacheable type: ρ = λ L̄ / (B log2(1 + P g / σ²))."""
    sc = make_scenario(n_cloudlets=1, n_users=1, area=60.0, cacheable_ratio=0.0, seed=2)
    p = P2Params(n_cloudlets=1, n_users=1, area=60.0, cacheable_ratio=0.0, lam=3.0)
    rate = p.bandwidth * math.log2(1.0 + sc.power_w * sc.path_gain[0, 0] / sc.noise_w)
    assert S._user_load(sc, p) == pytest.approx(3.0 * p.mean_bits / rate, rel=1e-12)


# ------------------------------------------------------------------------------------------
# the replications, rebuilt by hand from the public model functions
# ------------------------------------------------------------------------------------------


def _by_hand(policy, seed, replications, measured, warm, model):
    """Replication r: the r-th child of SeedSequence(seed) gives four 32-bit seeds (network,
    training, tasks, fading); a network, its training, the tasks of slots · δ seconds and the
    slot kernel's run, measured from warm · δ."""
    p = P2Params(policy=policy, **run_length(measured, warm), **model)
    net = {k: v for k, v in model.items() if k in (*SMALL, "zipf")}  # make_scenario's
    out = []
    for child in np.random.SeedSequence(seed).spawn(replications):
        s_net, s_train, s_task, s_fade = (int(x) for x in child.generate_state(4, np.uint32))
        sc = make_scenario(**net, seed=s_net)
        tr = train(sc, lam=p.lam, seed=s_train)
        tasks = draw_tasks(sc, p.lam, p.mean_bits, p.slots * p.slot, s_task)
        run = run_scenario(
            policy,
            sc,
            tr,
            tasks,
            slots=p.slots,
            fading_seed=s_fade,
            storage=p.storage,
            x_max=p.x_max,
        )
        out.append((p, sc, tr, run))
    return out


@pytest.mark.parametrize("policy", ["proposed", "BL1", "BL3"])
def test_each_replication_is_the_documented_streams_run_by_hand(policy):
    """Rows, records (the measured tasks in arrival order, tagged with their replication),
    the detector's input (every task's delay in arrival order, the warm-up's tasks cut), the
    measured run length, the load bound and the run's parameters in ``info``."""
    model = SMALL | dict(lam=5.0, zipf=1.5, x_max=3, storage=2)
    measured, warm, seed, reps = 300, 100, 11, 3
    r = simulate(
        policy=policy,
        **run_length(measured, warm),
        replications=reps,
        seed=seed,
        overload="transient",
        **model,
    )
    hand = _by_hand(policy, seed, reps, measured, warm, model)
    p = hand[0][0]
    cut = warm * p.slot
    series, warmups = [], []
    for i, (_, sc, tr, run) in enumerate(hand):
        want = row_naive(run.tasks, run.counters, cut, p.n_cloudlets, p.slots * p.slot)
        got = r.frame.iloc[i]
        assert got["replication"] == i and got["clusters"] == tr.clusters.k
        for k in ROW_KEYS:
            assert _same(float(got[k]), float(want[k])), (i, k)
        t = run.tasks.sort_values("arrival", kind="stable")
        kept = t[t["arrival"] >= cut]
        rec = r.records[r.records["replication"] == i].reset_index(drop=True)
        cols = ["delay", "from_cache", "copies", "server", "cacheable"]
        assert rec[cols].equals(kept[cols].reset_index(drop=True))
        series.append(t["delay"].to_numpy())
        warmups.append(int((t["arrival"] < cut).sum()))
        assert (
            user_load_naive(sc, policy, p.storage, p.lam, p.mean_bits, p.bandwidth)
            <= (r.info["load_bound"])
        )
    assert list(r.records.columns) == ["replication", *cols]
    assert r.run_length == measured
    assert r.info["load_bound"] == pytest.approx(
        max(
            user_load_naive(sc, policy, p.storage, p.lam, p.mean_bits, p.bandwidth)
            for _, sc, _, _ in hand
        ),
        rel=1e-12,
    )
    assert {k: v for k, v in r.info.items() if k != "load_bound"} == {
        k: v for k, v in p if k != "confidence"
    } | {"replications": reps, "seed": seed}
    verdict = detect(series, warmup=warmups, unit="s", label="mean_delay", rho=r.info["load_bound"])
    assert r.stationarity == verdict
    for q in ("mean_delay", *SHARES):
        assert r[q] == pytest.approx(r.frame[q].mean(), rel=1e-12)


def test_a_task_arriving_exactly_at_the_warm_ups_end_is_measured(monkeypatch):
    """The warm-up is [0, warmup · slots · δ): the task nearest the cut, moved onto it (its
    user's order kept: no other task of that user lies between), is in the records, and the
    records are the tasks the row counts."""
    measured, warm = 200, 100
    cut = warm * P2Params().slot
    real, drawn = S._tasks, []

    def onto_the_cut(network, lam, mean_bits, horizon, s_task):
        t = real(network, lam, mean_bits, horizon, s_task)
        arrival = t.arrival.copy()  # the cached draw stays as it is
        arrival[np.argmin(np.abs(arrival - cut))] = cut
        drawn.append(arrival)
        return t._replace(arrival=arrival)

    monkeypatch.setattr(S, "_tasks", onto_the_cut)
    r = simulate(
        policy="BL2",
        **SMALL,
        **run_length(measured, warm),
        replications=2,
        seed=8,
        overload="transient",
    )
    for i, arrival in enumerate(drawn):
        assert (arrival == cut).sum() == 1
        kept = int((arrival >= cut).sum())
        assert (r.records["replication"] == i).sum() == kept == r.frame["tasks"].iloc[i]


def test_every_replication_keeps_its_records_and_the_default_keeps_them():
    """keep_records defaults to True; each replication's records are its measured tasks."""
    kw = dict(**SMALL, **run_length(200, 100), replications=3, seed=4, overload="transient")
    r = simulate(policy="BL2", **kw)
    counts = r.records.groupby("replication").size()
    assert counts.index.tolist() == [0, 1, 2]
    assert counts.tolist() == r.frame["tasks"].tolist()
    assert simulate(policy="BL2", keep_records=False, **kw).records is None


# ------------------------------------------------------------------------------------------
# the intervals' ranges
# ------------------------------------------------------------------------------------------


def test_intervals_are_clipped_to_a_times_and_a_shares_range():
    """Two replications at 99.99 %: t(1) = 6366, so every raw interval of a quantity whose
    two values differ crosses its range. A time's is cut at 0 (unbounded above), a share's
    to [0, 1], the withdrawn copies per task at 0 (a task may withdraw several)."""
    r = simulate(
        policy="proposed",
        **SMALL,
        lam=5.0,
        zipf=1.5,
        x_max=3,
        storage=2,
        **run_length(400, 100),
        replications=2,
        seed=0,
        confidence=0.9999,
        overload="transient",
        keep_records=False,
    )
    t = stats.t.ppf(1 - 0.0001 / 2, 1)
    for q in (*TIMES, *SHARES, "withdrawn_per_task"):
        x = r.frame[q].to_numpy()
        assert x[0] != x[1], q  # the case has spread in every quantity
        half = t * x.std(ddof=1) / math.sqrt(2)
        raw = (x.mean() - half, x.mean() + half)
        assert raw[0] < 0.0 and raw[1] > 1.0, q
        lo, hi = r.interval(q)
        assert lo == 0.0, q
        if q in SHARES:
            assert hi == 1.0, q
        else:
            assert hi == pytest.approx(raw[1], rel=1e-9), q


# ------------------------------------------------------------------------------------------
# the precision loop
# ------------------------------------------------------------------------------------------

SHORT = dict(policy="BL3", **SMALL, **run_length(200, 100), progress=False)


def test_the_precision_loop_calls_its_monitor_before_every_replication():
    seen = []
    r = simulate_to_precision(**SHORT, rel_half_width=0.5, initial=3, monitor=seen.append)
    assert r.replications >= 3 and seen == list(range(r.replications))
    assert r.records is None  # a precision run keeps no records
    assert r.info["load_bound"] == pytest.approx(
        max(
            user_load_naive(sc, "BL3", 10, r.info["lam"], r.info["mean_bits"], 1e7)
            for _, sc, _, _ in _by_hand("BL3", 0, 3, 200, 100, SMALL | {"x_max": 2, "storage": 10})
        ),
        rel=1e-12,
    )  # the first step's networks

    class Stop(Exception):
        pass

    def stop(index):
        if index == 1:
            raise Stop

    with pytest.raises(Stop):
        simulate_to_precision(**SHORT, monitor=stop)
    for bad in (5, "print"):
        with pytest.raises(ParameterError, match="'monitor' parameter of simulate_to_precision"):
            simulate_to_precision(**SHORT, monitor=bad)


def test_a_certain_overload_is_refused_before_the_first_replication():
    seen = []
    with pytest.raises(UnstableRegimeError, match="ρ = .* >= 1"):
        simulate_to_precision(**SHORT | {"n_users": 6}, lam=400.0, monitor=seen.append)
    assert seen == []


def test_the_half_width_target_is_at_most_ten_seconds():
    r = simulate_to_precision(**SHORT, half_width=10.0, initial=2)
    assert r.converged and r.replications == 2 and r.half_width <= 10.0
    with pytest.raises(ParameterError, match="'half_width' parameter of simulate_to_precision"):
        simulate_to_precision(**SHORT, half_width=10.5, initial=2)


def test_the_run_time_bound_admits_exactly_its_budget(monkeypatch):
    """slots × U × E × max_replications at most MAX_WORK: exactly the budget runs, one unit
    of work less is refused before running."""
    per = 300 * 10 * 4
    monkeypatch.setattr(P, "MAX_WORK", 2 * per)
    r = simulate_to_precision(**SHORT, half_width=10.0, max_replications=2, initial=2)
    assert r.replications == 2
    monkeypatch.setattr(P, "MAX_WORK", 2 * per - 1)
    with pytest.raises(ParameterError, match="run-time bound"):
        simulate_to_precision(**SHORT, half_width=10.0, max_replications=2, initial=2)


def test_a_precision_run_too_long_for_two_replications_names_a_parameter_it_takes(monkeypatch):
    """Two replications, the least a precision run makes, over the bound: the refusal names
    max_replications (simulate_to_precision takes no 'replications') and counts 2 of them,
    whatever the cap asked for."""
    per = 300 * 10 * 4
    monkeypatch.setattr(P, "MAX_WORK", 2 * per - 1)
    for top in (2, 200):
        with pytest.raises(ParameterError) as err:
            simulate_to_precision(**SHORT, max_replications=top)
        assert "'max_replications' parameter of simulate_to_precision" in str(err.value)
        assert f"Got 2 × {per:.3g} = {2 * per:.3g} instead" in str(err.value)


def test_the_default_precision_run_shows_a_progress_bar(capsys):
    simulate_to_precision(**SHORT | {"progress": True}, half_width=10.0, initial=2)
    assert "P2 BL3 to ±10 s" in capsys.readouterr().err
    kw = {k: v for k, v in SHORT.items() if k != "progress"}
    simulate_to_precision(**kw, half_width=10.0, initial=2)
    assert "P2 BL3 to ±10 s" in capsys.readouterr().err


UNSTABLE = dict(policy="proposed", lam=3.0, **run_length(2000, 2000), progress=False)


def test_an_unstable_point_raises_or_comes_back_flagged_with_its_first_step():
    """At λ_u = 3 the cloudlets saturate (the delays trend): "raise" refuses, "transient"
    returns the first step's replications, not stationary and not converged, saying so."""
    with pytest.raises(UnstableRegimeError, match="not a steady state"):
        simulate_to_precision(**UNSTABLE, initial=3)
    read = "".join(["ra", "ise"])  # a choice read at run time (a file, a widget): equal, not
    with pytest.raises(UnstableRegimeError, match="not a steady state"):  # the same object
        simulate_to_precision(**UNSTABLE, initial=3, overload=read)
    r = simulate_to_precision(**UNSTABLE, initial=3, overload="transient")
    assert r.replications == 3 and not r.converged and not r.stationary
    assert r.notes[-1] == "not stationary: precision not pursued, 3 replications shown"
    assert r.records is None and r.info["replications"] == 3
