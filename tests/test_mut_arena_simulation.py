"""The arena's run module: mutants of ``workbench/arena/simulation.py`` that the arena's tests
let survive (``benchmarks/mutation.py arena_simulation``).

Every number a replication reports is written again from the module's docstring by a slow
summary (tests/naive_arena.py: ``summary_naive``) over the recording twin's run of the same
tasks (``RecordingTwin``): delays and their quantiles, the shares of lost, cloud and
forwarded tasks, copies, the energy per task, each node's utilisation and power, and the
records task by task. The scenario has a device, rooms that overflow, a cloud of infinite
servers, and unequal powers, links and energy per bit, so that no two terms agree by
accident.
"""

import math
import threading
import warnings

import numpy as np
import pytest
from naive_arena import RecordingTwin, summary_naive
from numba import config, njit
from scipy import stats

from workbench import ParameterError, arena, validation
from workbench.arena import simulation
from workbench.arena.compile import (
    COPY_BYTES,
    STEPS_PER_COPY,
    TASK_BYTES,
    UNIFORM_BYTES,
    draw_tasks,
)
from workbench.arena.policies import C_DELAY, C_TRANSMISSION, USER_SIG
from workbench.arena.simulation import POLICIES, _policy, checked_net
from workbench.output_analysis import detect
from workbench.params import Param
from workbench.seeding import replication_seeds


def _chain(capacity=3, lam=3.0):
    """A device ``d`` whose home is ``e0``, three edges in a line ``e0 - e1 - e2`` (one or
    two servers, rooms of ``capacity``), a cloud of infinite servers behind ``e1``: every
    node draws its own busy and idle power, every link its own delay, bandwidth and energy
    per bit."""
    nodes = [
        {
            "id": f"e{k}",
            "role": "edge",
            "servers": 1 + k % 2,
            "capacity": capacity,
            "power_idle": 10.0 + 3 * k,
            "power_busy": 40.0 + 11 * k,
        }
        for k in range(3)
    ]
    nodes.append(
        {"id": "c", "role": "cloud", "servers": ".inf", "speed": 2.0, "power_idle": 900.0}
        | {"power_busy": 60.0}
    )
    nodes.append({"id": "d", "role": "device", "servers": 0, "power_idle": 0.5, "power_busy": 7.0})
    pairs = [
        ("d", "e0", 0.5, 5e6, 2e-7),
        ("e0", "e1", 1.0, 2e6, 1e-7),
        ("e1", "e2", 2.0, 1e6, 3e-7),
        ("e1", "c", 9.0, 1e7, 5e-8),
    ]
    links = [
        {"a": a, "b": b, "delay": 0.01 * d, "bandwidth": bw, "energy_per_bit": e}
        for a, b, d, bw, e in pairs
    ]
    size = {"dist": "weibull", "shape": 0.8, "scale": 0.5}
    sources = ["d", "e0", "e1", "e2"]
    work = [
        {"source": s, "rate": lam * (1 + 0.3 * k), "input_bits": 1000.0 * (k + 1), "size": size}
        for k, s in enumerate(sources)
    ]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _twins(sc, name, params, n, seed, reps, warm):
    """The recording twin's run of each replication's tasks (child r of the seed)."""
    ch = _policy(name, dict(params), "test")
    net = checked_net(sc, "test")
    full = {p: arena.PARAMS[p].default for p in POLICIES[name].params} | params
    start = full.pop("cancel", "completion") == "start"
    for child in replication_seeds(seed, reps):
        tk = draw_tasks(sc, n, ch.copies, ch.uniforms, child)
        twin = RecordingTwin(net, tk, name, warm=warm, cancel_on_start=start, **full)
        yield net, tk, twin.run()


_CASES = [
    ("local", {}),
    ("threshold", {"theta": 0.3, "e_max": 2}),
    ("replicate", {"m": 3}),
    ("replicate", {"m": 2, "cancel": "start"}),
    ("overflow", {"p": 0.6}),
]


def _check(sc, name, params, n, seed, warmup):
    """Two replications of ``n`` tasks against the twin's: every quantity, the count of
    completed tasks, each node's utilisation and power (the slow summary), the records
    task by task (with no numpy warning on the way), and the stationarity verdict, which
    must be the detector's on the twin's delays in arrival order with its completed
    warm-up tasks cut."""
    reps = 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a summary that divides by zero on the way fails
        r = arena.simulate(
            scenario=sc,
            policy=name,
            requests=n,
            replications=reps,
            seed=seed,
            warmup=warmup,
            overload="transient",
            records=True,
            **params,
        )
    warm = round(warmup * n)
    assert r.info["warmup"] == warm
    ids = [x.id for x in sc.nodes] + [""]
    series, cut = [], []
    for k, (net, tk, out) in enumerate(_twins(sc, name, params, n, seed, reps, warm)):
        want = summary_naive(sc, net, tk, out, warm)
        got = r.frame.iloc[k]
        for col, value in want.items():
            assert got[col] == pytest.approx(value, rel=1e-9, abs=1e-12), col
        assert set(r.frame.columns) >= set(want)
        rec = r.records[r.records["replication"] == k]
        finish, where, copies, hops, energy, _, _, _, started = out
        keep = slice(warm, n)
        assert rec["task"].tolist() == list(range(warm, n))
        assert np.array_equal(rec["arrival"], tk.t[keep])
        assert rec["source"].tolist() == [ids[j] for j in tk.node[keep]]
        assert np.array_equal(rec["type"], tk.kind[keep])
        assert rec["node"].tolist() == [ids[j] for j in where[keep]]
        assert np.array_equal(rec["copies"], copies[keep])
        assert np.array_equal(rec["hops"], hops[keep])
        np.testing.assert_allclose(rec["energy"], energy[keep], rtol=1e-12, atol=0.0)
        np.testing.assert_array_equal(rec["start"], started[keep])
        np.testing.assert_array_equal(rec["finish"], finish[keep])
        np.testing.assert_array_equal(rec["delay"], np.asarray(finish[keep]) - tk.t[keep])
        outcome = [
            "lost" if w < 0 else ("cached" if math.isnan(s) else "served")
            for w, s in zip(where[keep], started[keep], strict=True)
        ]
        assert rec["outcome"].tolist() == outcome
        series.append(
            np.array([f - t for f, t, w in zip(finish, tk.t, where, strict=True) if w >= 0])
        )
        cut.append(sum(w >= 0 for w in where[:warm]))
    assert r.stationarity == detect(series, warmup=cut, unit="s", label="mean_delay")
    return r


@pytest.mark.parametrize(("name", "params"), _CASES)
def test_each_replications_row_is_the_docstrings_summary_of_the_twins_run(name, params):
    """1,200 tasks measured from task 120 on the chain, for policies that keep, forward,
    replicate (cancelled on completion and on start) and overflow into losses."""
    _check(_chain(), name, params, 1_200, 7, 0.1)


@pytest.mark.parametrize("name", ["jsq", "local"])
def test_a_window_shorter_than_a_second_is_measured_like_any_other(name):
    """348 arrivals a second: 200 tasks measured from task 20 span about half a second
    (utilisation and power are per second of that window, not NaN)."""
    r = _check(_chain(lam=60.0), name, {}, 200, 3, 0.1)
    window = r.records.groupby("replication")["arrival"].agg(lambda t: t.max() - t.min())
    assert window.between(0.2, 0.9).all()


def _star(delays=(0.0, 0.0), bandwidths=(None, None), bits=0.0, lam=0.5):
    """A device whose tasks go to edges ``n0``, ``n1``, ... over links of the given delays
    and bandwidths (None: infinite)."""
    nodes = [{"id": "dev", "role": "device", "servers": 0}]
    nodes += [{"id": f"n{k}", "role": "edge"} for k in range(len(delays))]
    links = []
    for k, (d, bw) in enumerate(zip(delays, bandwidths, strict=True)):
        links.append({"a": "dev", "b": f"n{k}", "delay": d} | ({"bandwidth": bw} if bw else {}))
    size = {"dist": "exponential", "mean": 1.0}
    work = [{"source": "dev", "rate": lam, "size": size, "input_bits": bits}]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _first(task, cand, state, par, u, out):
    out[0] = 0
    return 1


def test_a_user_policy_is_declared_within_its_documented_ranges():
    """UserPolicy: state 0 to 10**6 (0 when not given), copies 1 to 64, uniforms 1 to 64,
    parameters that are real or int rows; the decorator takes the same, and names a
    policy without a name 'user_policy' in its refusals."""
    decide = njit(USER_SIG)(_first)  # compiled once: UserPolicy keeps it as it is
    assert arena.UserPolicy("p", decide).state == 0
    assert arena.UserPolicy("p", decide, state=10**6).state == 10**6
    assert arena.UserPolicy("p", decide, copies=64, uniforms=64).uniforms == 64
    for bad in ({"state": 10**6 + 1}, {"copies": 0}, {"copies": 65}, {"uniforms": 65}):
        with pytest.raises(ParameterError, match=f"'{next(iter(bad))}' parameter of UserPolicy"):
            arena.UserPolicy("p", decide, **bad)
    real = Param("gain", "g", "a gain", low=0.0, high=1.0, default=0.5, source="choice")
    assert arena.UserPolicy("p", decide, params=(real,)).params == (real,)
    flag = Param("on", "o", "a switch", kind="bool", default=True, source="choice")
    with pytest.raises(ParameterError, match="'params' parameter of UserPolicy"):
        arena.UserPolicy("p", decide, params=(real, flag))
    assert arena.policy(decide).state == 0
    assert arena.policy(state=10**6)(decide).state == 10**6
    with pytest.raises(ParameterError, match="policy 'user_policy': parameter name 'no way'"):
        arena.policy(params={"no way": (0.0, 1.0, 0.5)})


def test_a_function_that_is_not_a_decision_function_is_refused_by_name():
    """A callable without Python code (a builtin) is refused as not a Python function; a
    function that does not compile is named with the signature it was compiled to, and
    numba's message is cut at 300 characters."""
    with pytest.raises(ParameterError, match="'decide' parameter of UserPolicy 'b' must be a"):
        arena.UserPolicy("b", len)

    def legacy(queue, servers, speed, delay, u):
        return "no"

    def modern(task, cand, state, par, u, out):
        return "no"

    for f, sig in ((legacy, "queue, servers, speed, delay, u"), (modern, "task, cand, state")):
        with pytest.raises(ParameterError) as err:
            arena.policy(f)
        head, numba_says = str(err.value).split("(see workbench.arena.policies): ")
        assert f"{f.__name__} does not compile as decide({sig}" in head
        assert len(numba_says) == 300


def test_the_older_signature_sees_the_link_delay_plus_the_transmission_time():
    """decide(queue, servers, speed, delay, u) gets per candidate the link's delay plus the
    input's transmission time: the least of them is n1 (0.002 + 0.01 s) against n0
    (0 + 0.02 s; the larger product of the two is n1's), and the older policy that takes
    it places as a new-style one that adds the two fields itself."""

    def least_delay_old(queue, servers, speed, delay, u):
        return int(np.argmin(delay))

    def least_delay_new(task, cand, state, par, u, out):
        out[0] = int(np.argmin(cand[C_DELAY] + cand[C_TRANSMISSION]))
        return 1

    sc = _star(delays=(0.0, 0.002), bandwidths=(5e5, 1e6), bits=1e4)
    run = dict(scenario=sc, requests=300, replications=2, seed=2, records=True)
    run["overload"] = "transient"
    old = arena.simulate(policy=arena.policy(least_delay_old), **run)
    new = arena.simulate(policy=arena.policy(least_delay_new), **run)
    assert (old.records["node"] == "n1").all()
    assert old.records.equals(new.records)


def test_a_wrong_answer_names_the_task_its_arrival_and_the_candidates_indices():
    """The sixth decision (task 5) answers 7 out of two candidates: the message names task
    5, its node and arrival time (replication 0's tasks), and the indices 0 to 1."""

    def sixth_wrong(task, cand, state, par, u, out):
        state[0] += 1.0
        out[0] = 7 if state[0] == 6.0 else 0
        return 1

    sc = _star()
    seed = 5
    tk = draw_tasks(sc, 200, 1, 2, replication_seeds(seed, 2)[0])
    pol = arena.policy(state=1)(sixth_wrong)
    with pytest.raises(arena.PolicyError) as err:
        arena.simulate(scenario=sc, policy=pol, requests=200, replications=2, seed=seed)
    said = str(err.value)
    assert f"task 5 (arrived at node 0 at time {tk.t[5]:.6g})" in said
    assert "the task had 2 candidates, indices 0 to 1 " in said


def _slow(task, cand, state, par, u, out):
    """About a millisecond a decision: a recurrence the compiler cannot shorten."""
    x = state[0]
    for _ in range(1_000_000):
        x = x * 0.999999 + u[0]
    state[0] = x
    out[0] = 0 if x >= 0.0 else 1
    return 1


def test_a_slow_policy_finishes_with_and_without_a_timeout():
    """A replication of 100 slow decisions lasts a fraction of a second: the wait for it
    checks the clock many times, and ends only on a real timeout (none here: 600 s)."""
    pol = arena.policy(state=1)(_slow)
    run = dict(scenario=_star(), policy=pol, requests=100, replications=2, seed=1)
    free = arena.simulate(**run, overload="transient")
    timed = arena.simulate(**run, overload="transient", timeout=600.0)
    assert free.frame.equals(timed.frame)
    assert (free.frame["utilisation:n1"] == 0.0).all()
    with pytest.raises(ParameterError, match=r"'timeout' parameter of simulate .*\(0, inf\)"):
        arena.simulate(**run, timeout=0.0)


class _Clock:
    """A monotonic clock that starts at 1 s and moves one second each time it is read."""

    def __init__(self):
        self.now, self.reads = 0.0, 0

    def monotonic(self):
        self.now += 1.0
        self.reads += 1
        return self.now


def test_the_timeout_counts_from_the_start_of_the_wait(monkeypatch):
    """On a clock read once at the start (1 s) and at each check (2, 3, 4, 5 s), a timeout of
    3.5 s ends the wait at the fourth check, 4 s after the start, naming the timeout."""
    clock = _Clock()
    monkeypatch.setattr(simulation, "time", clock)
    pol = arena.policy(state=1)(_slow)
    run = dict(scenario=_star(), policy=pol, requests=400, replications=2, seed=1)
    with pytest.raises(arena.PolicyError, match="within timeout=3.5 s"):
        arena.simulate(**run, timeout=3.5)
    assert clock.reads == 5


def test_intervals_are_student_t_clipped_to_each_quantitys_range():
    """Two replications of an overflowing chain (t = 12.71 on one degree of freedom): the
    loss share's raw interval passes 1 and the forwarded share's passes 0; each interval is
    mean ± t s / √2 cut to [0, 1] for a share and to [0, ∞) for a time, a count or an
    energy."""
    r = arena.simulate(
        scenario=_chain(capacity=2, lam=30.0),
        policy="overflow",
        requests=400,
        replications=2,
        seed=3,
        confidence=0.95,
        overload="transient",
    )
    t = stats.t.ppf(0.975, 1)
    crossed = set()
    for q in arena.QUANTITIES:
        x = r.frame[q].to_numpy()
        mean, half = x.mean(), t * x.std(ddof=1) / math.sqrt(2)
        high = 1.0 if q.endswith("_share") else math.inf
        crossed |= {q} if mean - half < 0.0 or mean + half > high else set()
        assert r.interval(q) == pytest.approx((max(mean - half, 0.0), min(mean + half, high)))
    assert {"loss_share", "forwarded_share"} <= crossed
    assert r.interval("loss_share")[1] == 1.0 and r.interval("forwarded_share")[0] == 0.0
    assert r.mean_delay < 1.0


def test_the_advice_for_heavy_tails_names_the_source_its_mean_and_its_law():
    """The second source has Pareto sizes with α = 2.3 and scale b: mean α b / (α − 1),
    c² = 1 / (α (α − 2)) ≈ 1.45, so the advice is a hyperexponential law (c² >= 1);
    α = 2.5 (c² = 0.8) gets a lognormal one."""
    light = {"source": "A", "rate": 1.0, "size": {"dist": "exponential", "mean": 0.1}}
    for alpha, law in ((2.3, "hyperexponential"), (2.5, "lognormal")):
        heavy = {"source": "A", "rate": 2.0, "size": {"dist": "pareto", "scale": 0.1}}
        heavy["size"]["alpha"] = alpha
        sc = arena.scenario_from_dict(
            {"nodes": [{"id": "A", "role": "edge"}], "workload": [light, heavy]}
        )
        with pytest.raises(arena.HeavyTailError) as err:
            arena.simulate(scenario=sc, policy="local", requests=1_000, replications=2)
        mean, c2 = alpha * 0.1 / (alpha - 1), 1 / (alpha * (alpha - 2))
        said = str(err.value)
        assert f"workload[1] (source 'A') has Pareto sizes with alpha = {alpha:g}" in said
        assert f"(mean {mean:.4g}, c² = {c2:.3g})" in said
        assert f"{{dist: {law}, mean: {mean:.4g}, scv: {c2:.3g}}}" in said


def test_the_cloud_policy_needs_a_cloud_and_sends_it_every_task():
    """'cloud' on the chain (its cloud is node 3, of infinite servers): every measured task
    is completed there; on a scenario without a cloud it is refused by name."""
    r = arena.simulate(scenario=_chain(), policy="cloud", requests=500, replications=2)
    assert (r.frame["cloud_share"] == 1.0).all() and (r.frame["loss_share"] == 0.0).all()
    with pytest.raises(ParameterError, match="simulate: policy 'cloud' needs a node with role"):
        arena.simulate(scenario=_star(), policy="cloud", requests=500, replications=2)


def test_red_needs_min_th_below_max_th():
    """RED's thresholds: min_th < max_th runs, equal or crossed ones are refused by name."""
    run = dict(scenario=_chain(), policy="red", requests=500, replications=2)
    arena.simulate(**run, min_th=1.0, max_th=2.0, overload="transient")
    for low in (2.0, 3.0):
        with pytest.raises(ParameterError, match="simulate: red needs min_th < max_th"):
            arena.simulate(**run, min_th=low, max_th=2.0)


def test_the_precision_loop_checks_two_replications_against_the_work_budget(monkeypatch):
    """simulate_to_precision runs at least two replications: a budget of two runs' steps
    (n tasks x 35 steps a copy) lets it start, one step less is refused naming
    'replications'. Its overload must be 'raise', given as any equal string. It keeps no
    per-task records (simulate's default: a long loop would hold every task)."""
    n = 1_000
    run = dict(scenario=_star(lam=0.3), policy="local", requests=n, progress=False)
    monkeypatch.setattr(validation, "WORK_BUDGET", 2 * n * STEPS_PER_COPY - 1)
    with pytest.raises(ParameterError, match="'replications' parameter of simulate_to_prec"):
        arena.simulate_to_precision(**run)
    monkeypatch.setattr(validation, "WORK_BUDGET", 2 * n * STEPS_PER_COPY)
    raise_ = "".join(["rai", "se"])  # equal to "raise", not the same object
    r = arena.simulate_to_precision(**run, rel_half_width=0.5, max_replications=2, overload=raise_)
    assert len(r.frame) == 2
    assert r.records is None


def test_a_policy_that_draws_one_uniform_sees_the_draws_of_the_builtin_random():
    """The engine draws at least two uniforms per task for every policy: a user policy that
    declares one and picks candidate ⌊u₀ n⌋ places every task where the built-in 'random'
    (two uniforms) does, on the same seed; so does the older five-argument form
    ``decide(queue, servers, speed, delay, u)``, given ``u``, the task's first uniform."""

    def pick_by_u(task, cand, state, par, u, out):
        n = cand.shape[1]
        out[0] = min(int(u[0] * n), n - 1)
        return 1

    def old_form(queue, servers, speed, delay, u):
        n = queue.shape[0]
        return min(int(u * n), n - 1)

    run = dict(scenario=_star((0.0,) * 3, (None,) * 3), requests=300, replications=2, seed=9)
    run |= dict(records=True, overload="transient")
    mine = arena.simulate(policy=arena.policy(uniforms=1)(pick_by_u), **run)
    old = arena.simulate(policy=arena.policy(old_form), **run)
    builtin = arena.simulate(policy="random", **run)
    assert mine.records["node"].nunique() == 3
    assert mine.records.equals(builtin.records)
    assert old.records.equals(builtin.records)


def test_the_memory_estimate_counts_the_two_uniforms_a_user_policy_is_given(monkeypatch):
    """A user policy that declares one uniform is given two a task (the engine's least), so a
    replication of n tasks holds n (184 + 136 + 2 x 8) bytes: that budget runs, one byte
    less is refused, naming 'requests' and the two uniforms. A built-in policy of one copy
    ('random', two uniforms) fits the same budget."""
    pol = arena.policy(uniforms=1)(_first)
    n = 200
    need = n * (TASK_BYTES + COPY_BYTES + 2 * UNIFORM_BYTES)
    run = dict(scenario=_star(), policy=pol, requests=n, replications=2, overload="transient")
    monkeypatch.setattr(validation, "MEMORY_BUDGET", need - 1)
    with pytest.raises(ParameterError, match="'requests' .*1 copies and 2 uniforms"):
        arena.simulate(**run)
    monkeypatch.setattr(validation, "MEMORY_BUDGET", need)
    assert len(arena.simulate(**run).frame) == 2
    assert len(arena.simulate(**(run | {"policy": "random"})).frame) == 2


def test_a_parameter_declared_with_int_ends_is_an_int():
    """A user policy's parameter declared ``(low, high, default)`` with ints (not bools) is
    an int row: 2 is accepted, 2.5 refused naming the parameter and its kind; declared with
    a float end it is a real row and takes 2.5."""
    run = dict(scenario=_star(), requests=100, replications=2, overload="transient")
    as_int = arena.policy(params={"k": (1, 3, 1)})(_first)
    as_real = arena.policy(params={"k": (1, 3.0, 1)})(_first)
    arena.simulate(policy=as_int, k=2, **run)
    arena.simulate(policy=as_real, k=2.5, **run)
    with pytest.raises(ParameterError, match=r"'k' parameter of simulate must be an int"):
        arena.simulate(policy=as_int, k=2.5, **run)


def _stuck_at_task_3(task, cand, state, par, u, out):
    """Instant for tasks 0 to 2; at the fourth decision a recurrence of par[0] steps (about
    a second compiled, a few seconds with the JIT off: bounded, so the thread ends)."""
    state[0] += 1.0
    if state[0] == 4.0:
        x = state[1]
        for _ in range(int(par[0])):
            x = x * 0.999999 + u[0]
        state[1] = x
    out[0] = 0
    return 1


def test_a_timeout_names_the_task_being_decided_and_leaves_a_daemon_thread(monkeypatch):
    """The fake clock (one second a read) ends the wait at its 11th check (about 0.5 s)
    while the policy is deciding task 3 (tasks 0 to 2 take microseconds): the message names
    task 3. The policy's thread is still running then, and is a daemon thread, so that it
    cannot keep the process from ending (the message says the core stays busy until then)."""
    clock = _Clock()
    monkeypatch.setattr(simulation, "time", clock)
    steps = 3_000_000 if config.DISABLE_JIT else 1_000_000_000
    pol = arena.policy(state=2, params={"steps": (1, 10**10, 1)})(_stuck_at_task_3)
    run = dict(scenario=_star(), policy=pol, requests=100, replications=2, seed=1)
    with pytest.raises(arena.PolicyError, match=r"\(it was deciding task 3\)"):
        arena.simulate(**run, steps=steps, timeout=10.5)
    worker = [t for t in threading.enumerate() if t.name == "arena policy _stuck_at_task_3"]
    assert len(worker) == 1
    assert worker[0].daemon
    worker[0].join()
