"""P2 slot simulator: slow twin, conservation, reproducibility, M/M/1 oracle, cache replay
against the caching building blocks, scheme reductions, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive_proactive import simulate_twin

from workbench.caching import lru_hits, popularity_cache_hits
from workbench.proactive import (
    isolated_cloudlet_delay,
    make_scenario,
    run_length,
    run_scenario,
    simulate,
    train,
)
from workbench.proactive import kernels as K
from workbench.proactive.params import PARAMS
from workbench.proactive.runs import IGNORED_READINGS, draw_tasks
from workbench.validation import ParameterError, UnstableRegimeError

SMALL = dict(
    n_cloudlets=4, n_users=10, area=60.0, n_tasks=12, cacheable_ratio=0.5, coverage_db=110.0
)


def _small(seed=3, lam=6.0, n_slots=300, slot=0.005, **scen):
    sc = make_scenario(**(SMALL | scen), seed=seed)
    tr = train(sc, training_time=20.0, seed=seed)
    tasks = draw_tasks(sc, lam, 1e6, n_slots * slot, seed)
    return sc, tr, tasks


@pytest.mark.parametrize(
    ("scheme", "cache_aware", "hedge_check"),
    [
        ("proposed", False, False),
        ("proposed", True, True),
        ("proposed", True, False),
        ("BL1", False, True),
        ("BL1", True, True),
        ("BL2", False, False),
        ("BL2", True, True),
        ("BL3", True, True),
    ],
)
@pytest.mark.parametrize("fading", [False, True])
def test_kernel_equals_slow_twin(scheme, cache_aware, hedge_check, fading):
    # hedges that meet eq. 9 need queues at the first cloudlet and room at another
    lam, budget = (14.0, 0.08) if hedge_check else (6.0, 0.03)
    sc, tr, tasks = _small(seed=5, lam=lam)
    kw = dict(slots=300, slot=0.005, storage=2, x_max=2, budget=budget)
    run = run_scenario(
        scheme,
        sc,
        tr,
        tasks,
        fading_seed=9,
        fading=fading,
        cache_aware=cache_aware,
        hedge_check=hedge_check,
        **kw,
    )
    U, E = sc.path_gain.shape
    done, server, from_cache, copies = simulate_twin(
        scheme,
        sc,
        tr,
        tasks,
        fading_seed=9,
        n_slots=300,
        budget=budget,
        storage=2,
        fading=fading,
        cache_aware=cache_aware,
        hedge_check=hedge_check,
    )
    _same_as_twin(run, (done, server, from_cache, copies), scheme)


def _same_as_twin(run, twin, scheme):
    done, server, from_cache, copies = twin
    t = run.tasks
    assert np.allclose(t["done"], done, rtol=1e-9, atol=0)
    assert t["server"].tolist() == server
    assert t["from_cache"].tolist() == from_cache
    assert t["copies"].tolist() == copies
    if scheme in ("proposed", "BL1"):
        assert t["from_cache"].any()  # the comparison exercised the caches
    if scheme != "BL3":
        assert (t["copies"] > 1).any()  # ... and the hedge rounds


@pytest.mark.parametrize("scheme", ["proposed", "BL1"])
def test_popular_cache_start_equals_slow_twin(scheme):
    # the proposed scheme's caches start full of their best-ranked results; BL1's empty
    sc, tr, tasks = _small(seed=5, lam=14.0)
    kw = dict(slots=300, slot=0.005, storage=2, x_max=2, budget=0.08)
    run = run_scenario(scheme, sc, tr, tasks, fading_seed=9, cache_start="popular", **kw)
    U, E = sc.path_gain.shape
    twin = simulate_twin(
        scheme, sc, tr, tasks, fading_seed=9, n_slots=300, budget=0.08, storage=2, warm_caches=True
    )
    _same_as_twin(run, twin, scheme)
    empty = run_scenario(scheme, sc, tr, tasks, fading_seed=9, cache_start="empty", **kw)
    first = tasks.arrival < 0.05  # before any result could have been computed
    hits = run.tasks["from_cache"][first].sum(), empty.tasks["from_cache"][first].sum()
    assert (hits[0] > 0 and hits[1] == 0) if scheme == "proposed" else hits[0] == hits[1] == 0


@pytest.mark.parametrize("scheme", ["proposed", "BL2"])
def test_least_wait_hedged_upload_equals_slow_twin(scheme):
    # a hedged request goes to its match with the least estimated wait, queued there only
    sc, tr, tasks = _small(seed=5, lam=14.0)
    kw = dict(slots=300, slot=0.005, storage=2, x_max=2, budget=0.08)
    run = run_scenario(scheme, sc, tr, tasks, fading_seed=9, hedge_upload="least_wait", **kw)
    U, E = sc.path_gain.shape
    done, server, from_cache, copies = simulate_twin(
        scheme, sc, tr, tasks, fading_seed=9, n_slots=300, budget=0.08, storage=2, least_wait=True
    )
    t = run.tasks
    assert np.allclose(t["done"], done, rtol=1e-9, atol=0)
    assert t["server"].tolist() == server and t["copies"].tolist() == copies
    assert t["copies"].max() == 1 and run.counters["withdrawn"] == 0
    first_free = run_scenario(scheme, sc, tr, tasks, fading_seed=9, **kw)
    assert (first_free.tasks["copies"] > 1).any()  # the same requests were hedged there


@pytest.mark.parametrize("scheme", ["proposed", "BL1", "BL2", "BL3"])
def test_conservation_every_task_served_once(scheme):
    sc, tr, tasks = _small(seed=2, lam=8.0, n_slots=400)
    run = run_scenario(scheme, sc, tr, tasks, slots=400, fading_seed=1, storage=2, budget=0.03)
    t, c = run.tasks, run.counters
    assert c["tasks"] == len(tasks.arrival) == c["tasks_done"] == c["matched_requests"]
    assert t["done"].notna().all()
    assert (t["delay"] >= 0.005 - 1e-12).all()  # at least tau_EP
    # a task is served once: from a cache or by exactly one upload
    assert c["from_cache"] + c["uploads"] == c["tasks"]
    assert int(t["from_cache"].sum()) == c["from_cache"]
    # every copy of an uploaded task was either uploaded or withdrawn
    assert c["copies"] == c["uploads"] + c["withdrawn"]
    assert (t.loc[~t["from_cache"], "copies"] >= 1).all()
    assert (t.loc[t["from_cache"], "copies"] == 0).all()
    assert (t["copies"] <= 2).all()
    assert t["server"].between(0, sc.path_gain.shape[1] - 1).all()
    assert not t.loc[t["from_cache"], "cacheable"].eq(False).any()  # only cacheable hits
    if scheme == "BL3":
        assert c["hedged_tasks"] == 0 and c["withdrawn"] == 0
    if scheme in ("BL2", "BL3"):
        assert c["from_cache"] == 0


@pytest.mark.parametrize("scheme", ["BL2", "proposed"])
def test_user_uploads_one_task_at_a_time(scheme):
    sc, tr, tasks = _small(seed=4, lam=10.0, n_slots=300)
    t = run_scenario(scheme, sc, tr, tasks, slots=300, fading_seed=2, hedge_check=False).tasks
    up = t[~t["from_cache"]]
    assert up["upload_start"].notna().all() and up["upload_end"].notna().all()
    assert (up["upload_start"] >= up["arrival"] - 0.005).all()  # starts at a slot boundary
    assert (up["upload_end"] > up["upload_start"]).all()
    assert (up["done"] >= up["upload_end"] + 0.005 - 1e-12).all()  # + computing + tau_EP
    overlapping_users = 0
    for _, g in up.groupby("user"):
        g = g.sort_values("upload_start")
        # per user, upload intervals [start, end] never overlap ...
        assert np.all(g["upload_start"].to_numpy()[1:] >= g["upload_end"].to_numpy()[:-1])
        overlapping_users += len(g) > 1
    assert overlapping_users > 3  # ... and users with several uploads were checked
    # ... while different users do upload at the same time (the check is not vacuous)
    starts = np.sort(up["upload_start"].to_numpy())
    assert np.any(starts[1:] == starts[:-1])


@pytest.mark.parametrize("scheme", ["proposed", "BL1"])
def test_online_cache_replays_like_the_caching_building_blocks(scheme):
    sc, tr, tasks = _small(seed=8, lam=10.0, n_slots=600)
    t = run_scenario(scheme, sc, tr, tasks, slots=600, fading_seed=3, storage=2).tasks
    seen = t[t["cache_seq"] >= 0].sort_values("cache_seq")
    checked = 0
    for e, g in seen.groupby("server"):
        trace = g["task_type"].to_numpy()
        if scheme == "BL1":
            expect = lru_hits(trace, 2)
        else:
            expect = popularity_cache_hits(trace, 2, tr.cache_rank[e], sc.cacheable)
        assert np.array_equal(g["cache_hit"].to_numpy(), expect)
        checked += len(trace)
    assert checked > 50


def test_isolated_cloudlet_matches_mm1():
    # one user, one cloudlet, no fading, no interference: the upload queue is M/M/1
    sc = make_scenario(n_cloudlets=1, n_users=1, area=60.0, cacheable_ratio=0.0, seed=2)
    tr = train(sc, seed=1)
    rate = 10e6 * math.log2(1 + sc.power_w * sc.path_gain[0, 0] / sc.noise_w)
    mean_bits, slot, n_slots = 1e5, 1e-4, 1_000_000
    lam = 0.5 * rate / mean_bits
    means = []
    for seed in range(4):
        tasks = draw_tasks(sc, lam, mean_bits, n_slots * slot, seed)
        run = run_scenario(
            "BL3",
            sc,
            tr,
            tasks,
            slots=n_slots,
            fading_seed=1,
            fading=False,
            slot=slot,
            kappa=1.0,
            storage=0,
        )
        means.append(run.tasks["delay"].mean())
    theory = isolated_cloudlet_delay(
        lam=lam,
        link_rate=rate,
        mean_bits=mean_bits,
        cpu=1e10,
        kappa=1.0,
        tau_ep=0.005,
        slot_correction=slot,
    )
    assert np.mean(means) == pytest.approx(theory, rel=0.05)


def test_caching_off_reduces_proposed_and_bl1_to_bl2():
    sc, tr, tasks = _small(seed=6, lam=8.0, n_slots=400)
    runs = {
        s: run_scenario(s, sc, tr, tasks, slots=400, fading_seed=4, storage=0).tasks
        for s in ("proposed", "BL1", "BL2")
    }
    assert np.array_equal(runs["proposed"]["done"], runs["BL2"]["done"])
    assert np.array_equal(runs["BL1"]["done"], runs["BL2"]["done"])
    with_cache = run_scenario("proposed", sc, tr, tasks, slots=400, fading_seed=4, storage=3)
    assert with_cache.counters["from_cache"] > 0
    assert with_cache.tasks["delay"].mean() < runs["BL2"]["delay"].mean()


def test_xmax_one_turns_hedging_off():
    sc, tr, tasks = _small(seed=6, lam=8.0, n_slots=300)
    run = run_scenario("BL2", sc, tr, tasks, slots=300, fading_seed=4, x_max=1)
    assert run.counters["hedged_tasks"] == 0 and run.counters["withdrawn"] == 0


def test_simulate_reproducible_and_paired():
    kw = dict(n_cloudlets=6, n_users=18, **run_length(600, 2000), replications=2)
    a = simulate(policy="proposed", seed=3, **kw)
    b = simulate(policy="proposed", seed=3, **kw)
    c = simulate(policy="proposed", seed=4, **kw)
    assert a.frame.equals(b.frame) and a.records.equals(b.records)
    assert not a.frame.equals(c.frame)
    bl2 = simulate(policy="BL2", seed=3, **kw)
    assert a.frame["tasks"].tolist() == bl2.frame["tasks"].tolist()  # same task streams
    assert a.metric == "mean_delay" and a.records is not None
    assert {"p90_delay", "p99_delay", "hit_rate"} <= set(a.quantities)
    assert a.p90_delay <= a.p99_delay


def test_proposed_beats_bl2_at_the_defaults_on_average():
    # every cloudlet covers every user (110 dB): cache-aware users pool all 30 caches
    kw = dict(**run_length(1500, 2000), replications=2, seed=1, coverage_db=110.0)
    p, r = simulate(policy="proposed", cache_aware=False, **kw), simulate(policy="BL2", **kw)
    pooled = simulate(policy="proposed", cache_aware=True, **kw)
    assert 0.05 < p.hit_rate < pooled.hit_rate < 0.4  # 0.4 > the cacheable mass (~1/3)
    assert (p.frame["mean_delay"] < r.frame["mean_delay"]).all()


def test_cache_unaware_users_hit_at_their_own_best_link_pooled_users_anywhere():
    # without cache knowledge a user is matched by its own upload delay (eq. 14 without
    # y_ea), i.e. mostly to its strongest cloudlet, and hits only there; cache-aware users
    # fetch a result from whichever covering cloudlet holds it (the caches pool)
    sc = make_scenario(seed=4, coverage_db=110.0)
    tr = train(sc, seed=4)
    tasks = draw_tasks(sc, 1.0, 1e6, 1500 * 0.005, 4)
    at_attach = []
    for aware in (False, True):
        t = run_scenario(
            "proposed", sc, tr, tasks, slots=1500, fading_seed=4, cache_aware=aware
        ).tasks
        hits = t[t["from_cache"]]
        assert len(hits) > 20
        at_attach.append(float((hits["server"] == tr.attach[hits["user"]]).mean()))
    assert at_attach[0] > 0.6 > 0.3 > at_attach[1]


def test_certain_overload_raises_before_running():
    # λ_u L̄ / r above 1 for some user: its transmitter alone cannot keep up (user_load)
    with pytest.raises(UnstableRegimeError, match="ρ = .* >= 1"):
        simulate(
            policy="BL3",
            n_cloudlets=2,
            n_users=6,
            lam=400.0,
            **run_length(400, 2000),
            replications=2,
            fading=False,
        )


def test_a_saturated_kernel_raises_whatever_overload():
    # the queues outgrow the drain limit: there are no numbers to return, even transient ones
    with pytest.raises(UnstableRegimeError, match="'lam'.*unfinished"):
        simulate(policy="BL2", lam=8.0, slots=600, replications=2, overload="transient", warmup=0.0)


EARLIER = dict(hedge_check=False, cache_aware=False, coverage_db=110.0)


@pytest.mark.parametrize(
    ("lam", "reading"), [(3.0, {}), (2.0, EARLIER)], ids=["defaults", "earlier-readings"]
)
def test_known_unstable_point_is_flagged_and_raises_by_default(lam, reading):
    # at the defaults λ_u = 3 tasks/s saturates the cloudlets; with the earlier readings
    # (unchecked hedges, cache-blind users, full coverage) the system collapsed between 1.5
    # and 2: the delays trend over the run (found by the detector, not by the necessary
    # load bound)
    kw = dict(lam=lam, **run_length(2000, 2000), replications=3, keep_records=False) | reading
    r = simulate(policy="proposed", overload="transient", **kw)
    assert not r.stationary and r.info["load_bound"] < 1
    assert "with run length" in r.stationarity.note
    assert any("not stationary" in n for n in r.notes)
    with pytest.raises(UnstableRegimeError, match="not a steady state"):
        simulate(policy="proposed", **kw)


def test_earlier_readings_stable_at_1_5():
    r = simulate(
        policy="proposed",
        lam=1.5,
        **run_length(2000, 2000),
        replications=3,
        keep_records=False,
        **EARLIER,
    )
    assert r.stationary


def test_defaults_are_stationary_with_intervals_in_range():
    r = simulate(policy="proposed", **run_length(1000, 2000), replications=4, keep_records=False)
    assert r.stationary and r.stationarity.tested and r.stationarity.note == ""
    for q, (low, high) in {
        "mean_delay": (0, np.inf),
        "hit_rate": (0, 1),
        "pending_hit_rate": (0, 1),
        "hedged_fraction": (0, 1),
    }.items():
        lo, hi = r.interval(q)
        assert low <= lo <= r[q] <= hi <= high, q
    # the warm-up handed to the detector is the tasks of the 2000 warm-up slots (10 s × 90
    # users × λ_u: 1350 at λ_u = 1.5, Poisson sd 37), not a count of slots
    expected = 10.0 * 90 * PARAMS["lam"].default
    assert abs(r.stationarity.truncation - expected) < 4 * np.sqrt(expected)


def test_empty_run_raises_a_clear_error():
    from workbench.validation import EmptyRunError

    with pytest.raises(EmptyRunError, match="no tasks arriving after the warm-up.*lam"):
        simulate(lam=1e-308, **run_length(300, 2000), replications=2)


def test_simulate_to_precision_reaches_its_target():
    from workbench.proactive import simulate_to_precision

    r = simulate_to_precision(
        policy="BL3",
        rel_half_width=0.1,
        **run_length(500, 2000),
        n_cloudlets=10,
        n_users=30,
        max_replications=30,
        progress=False,
    )
    assert r.converged and r.half_width / r.mean_delay <= 0.1 and r.stationary
    assert r.replications >= 5
    capped = simulate_to_precision(
        policy="BL3",
        rel_half_width=0.001,
        **run_length(300, 1200),
        n_cloudlets=10,
        n_users=30,
        max_replications=6,
        progress=False,
    )
    assert not capped.converged and "did not converge" in capped.notes[-1]


@settings(deadline=None, max_examples=30)
@given(
    st.sampled_from(
        [
            "n_cloudlets",
            "storage",
            "zipf",
            "x_max",
            "budget",
            "slot",
            "lam",
            "cacheable_ratio",
            "slots",
            "replications",
            "tau_ep",
            "warmup",
        ]
    ),
    st.sampled_from([-1, 0.5, math.nan, math.inf, "3", None, 10**12]),
)
def test_simulate_bad_input_names_function_and_parameter(name, value):
    try:
        short = {"replications": 2, "slots": 10, "warmup": 0.0}
        simulate(policy="BL3", **short | {name: value})
    except ParameterError as err:
        assert f"'{name}' parameter of simulate" in str(err)
    else:  # only values inside the valid range may pass
        if name == "warmup" and value is None:
            return  # None: the table's warm-up
        assert name in ("zipf", "cacheable_ratio", "budget", "lam", "tau_ep", "slot", "warmup")
        assert value in (0.5,)


def test_simulate_rejects_unknown_names_and_schemes():
    with pytest.raises(ParameterError, match=r"simulate\(\) got an unexpected keyword argument"):
        simulate(policy="BL1", arrival_rate=1.0)
    with pytest.raises(ParameterError, match="Did you mean 'warmup'"):
        simulate(policy="BL1", warm_up=0.1)
    with pytest.raises(TypeError):
        simulate("BL1")  # keyword-only
    with pytest.raises(ParameterError, match="'overload' parameter of simulate"):
        simulate(policy="BL1", overload="ignore")
    with pytest.raises(ParameterError, match="'policy' parameter of simulate"):
        simulate(policy="BL4")
    with pytest.raises(ParameterError, match="'slots' parameter of simulate .*run-time bound"):
        simulate(policy="BL1", slots=50_000_000, n_users=900, n_cloudlets=300)
    # the run-time bound counts every replication, refused before anything runs
    with pytest.raises(ParameterError, match="'replications' parameter of simulate .* 1000 ×"):
        simulate(policy="BL1", replications=1000)
    from workbench.proactive import simulate_to_precision

    with pytest.raises(ParameterError, match="'max_replications' parameter"):
        simulate_to_precision(policy="BL1", max_replications=1000, slots=20_000)


def test_tiny_sigma_d_is_refused_by_the_table():
    # σ_d = 1e-308 was inside the declared range and divided by zero in the similarity
    with pytest.raises(ParameterError, match="'sigma_d' parameter of simulate"):
        simulate(policy="BL3", sigma_d=1e-308, slots=10, replications=2, warmup=0.0)


def test_slot_kernel_records_line_up_with_the_loop():
    """The records' fields, concatenated, are the loop's parameters in order: a field moved
    in one and not the other would pass a float where another belongs, silently."""

    fields = K.Radio._fields + K.Cloudlets._fields + K.TaskStream._fields + K.Schedule._fields
    code = K._slots_loop.py_func.__code__
    assert fields == code.co_varnames[: code.co_argcount]


READING_VALUES = {
    "cache_aware": (True, False),
    "cache_start": ("empty", "popular"),
    "hedge_check": (True, False),
    "hedge_upload": ("first_free", "least_wait"),
}


@pytest.mark.parametrize("policy", sorted(IGNORED_READINGS))
def test_a_reading_a_scheme_ignores_leaves_its_run_unchanged_and_the_others_change_it(policy):
    # loaded enough that requests hedge (x_max 3) and caches hit: each reading has work to do
    kw = dict(
        n_cloudlets=6,
        n_users=18,
        lam=6.0,
        x_max=3,
        **run_length(500, 1500),
        replications=2,
        seed=5,
        overload="transient",
    )
    base = simulate(policy=policy, **kw)
    if policy != "BL3":
        assert base.frame["hedged_fraction"].min() > 0.0
    for name, (_, other) in READING_VALUES.items():
        run = simulate(policy=policy, **{name: other}, **kw)
        same = run.frame.equals(base.frame) and run.records.equals(base.records)
        assert same == (name in IGNORED_READINGS[policy]), (policy, name, same)


def test_the_parameter_object_is_validated_once_and_taken_whole():
    from workbench.proactive import P2Params

    with pytest.raises(ParameterError, match="'replications' parameter of P2Params .* 1000 ×"):
        P2Params(replications=1000)
    with pytest.raises(ParameterError, match="'lam' parameter of simulate"):
        simulate(P2Params(), lam=-1.0)  # a change to an object is validated
    with pytest.raises(TypeError, match=r"simulate\(\) got an unexpected keyword .*'lam'"):
        simulate(P2Params(), lamda=1.0)
    run = dict(policy="BL3", slots=800, warmup=0.5, replications=2, overload="transient")
    by_keywords = simulate(**run)
    obj = P2Params(**{k: v for k, v in run.items() if k != "overload"})
    whole = simulate(obj, overload="transient")
    assert whole["mean_delay"] == by_keywords["mean_delay"]
    assert simulate(obj, seed=1, overload="transient")["mean_delay"] != whole["mean_delay"]
