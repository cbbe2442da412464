"""The arena's engine beyond finish times: mutants of ``workbench/arena/kernels.py`` that the
engine's tests let survive (``benchmarks/mutation.py arena_kernels``).

The engine returns more than where and when each task finished: per task its copies, the
links its copies crossed and their transmission energy, and when its completing copy
started; per node the busy server-seconds between the arrivals of tasks ``warm`` and
``n - 1``; the counters of copies made and cancelled. Each is compared, task by task and
node by node, with the slow twin that records them (tests/naive_arena.py:
``RecordingTwin``: the busy time there is the overlap of every service interval with the
window, not an integral kept up to date at each event), on losses, forwards, cache hits,
replicas cancelled on completion and the declared cancel-on-start variant.
"""

import numpy as np
import pytest
from naive_arena import RecordingTwin, device_to_unbounded_edge
from numba import config, njit, typeof, types

from workbench import arena
from workbench.arena.compile import draw_tasks
from workbench.arena.kernels import (
    R_ACTION,
    R_DONE,
    R_NODE,
    R_PAUSED,
    R_PHASE,
    R_TASK,
    Pending,
    Policy,
    engine,
    loop,
    new_state,
)
from workbench.arena.policies import EXTERNAL, N_PAR, USER_SIG, no_user
from workbench.arena.simulation import POLICIES, _policy, checked_net
from workbench.arena.studies import mesh_scenario
from workbench.kernels.events import new_lane, new_queue


def _chain(capacity=3, lam=3.0, delay=0.01, cloud_servers=".inf"):
    """Three edges in a line ``e0 - e1 - e2`` (waiting rooms of ``capacity - servers``),
    the cloud behind ``e1`` only (two links from ``e0`` and ``e2``: paths of two hops),
    links of unequal delays, bandwidths and energy per bit, Weibull sizes and unequal
    input bits: every cost the engine adds up differs from link to link."""
    nodes = [
        {"id": f"e{k}", "role": "edge", "servers": 1 + k % 2, "capacity": capacity}
        for k in range(3)
    ]
    nodes.append({"id": "c", "role": "cloud", "servers": cloud_servers, "speed": 2.0})
    pairs = [
        ("e0", "e1", 1.0, 2e6, 1e-7),
        ("e1", "e2", 2.0, 1e6, 3e-7),
        ("e1", "c", 9.0, 1e7, 5e-8),
    ]
    links = [
        {"a": a, "b": b, "delay": delay * d, "bandwidth": bw, "energy_per_bit": e}
        for a, b, d, bw, e in pairs
    ]
    size = {"dist": "weibull", "shape": 0.8, "scale": 0.5}
    work = [
        {
            "source": f"e{k}",
            "rate": lam * (1 + 0.3 * k),
            "input_bits": 1000.0 * (k + 1),
            "size": size,
        }
        for k in range(3)
    ]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _two_stars():
    """A device ``d`` (no servers) with six edge neighbours besides its home ``h``, which
    has six more: replicate's ordered list (the home, then the serving neighbours of the
    device and of the home) holds 13 nodes, more than a node's degree (7) plus two and the
    uniforms."""
    nodes = [{"id": "d", "role": "device", "servers": 0}, {"id": "h", "role": "edge"}]
    nodes += [{"id": f"x{k}", "role": "edge", "capacity": 2} for k in range(12)]
    links = [{"a": "d", "b": "h", "delay": 0.001}]
    links += [{"a": "d", "b": f"x{k}", "delay": 0.002 * (k + 1)} for k in range(6)]
    links += [{"a": "h", "b": f"x{k}", "delay": 0.001 * k} for k in range(6, 12)]
    size = {"dist": "exponential", "mean": 1.0}
    work = [{"source": "d", "rate": 6.0, "size": size}]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _call_loop(net, tk, pol, warm, user, st, q, area0, area1):
    return loop(net, tk, pol, warm, user, st, q, area0, area1)


_LOOP = []


def _loop(net, tk, pol, warm, st, q, area0, area1):
    """:func:`loop` called as the engine calls it, the user function typed as
    :data:`USER_SIG`: the loop compiled for :func:`engine` serves (a call from Python with
    the built-in placeholder would compile the whole loop again, for minutes). With the JIT
    off, the loop itself."""
    if config.DISABLE_JIT:
        return loop(net, tk, pol, warm, no_user, st, q, area0, area1)
    if not _LOOP:
        kinds = [typeof(x) for x in (net, tk, pol, warm, no_user, st, q, area0, area1)]
        kinds[3], kinds[4] = types.int64, types.FunctionType(USER_SIG)
        _LOOP.append(njit(types.float64(*kinds), cache=True)(_call_loop))
    return _LOOP[0](net, tk, pol, warm, no_user, st, q, area0, area1)


_OUT = ("finish", "where", "copies", "hops", "energy_tx", "area", "span", "ctr", "start")


def _engine_and_twin(sc, name, params, n, seed, warm, cancel_on_start=False):
    """One engine run and the recording twin's on the same tasks; returns both outputs."""
    ch = _policy(name, dict(params), "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, n, ch.copies, ch.uniforms, np.random.default_rng(seed))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(max(ch.state, 1)), np.zeros(4, np.int64))
    out = engine()(net, tk, pol, warm, ch.user)
    full = {p: arena.PARAMS[p].default for p in POLICIES[name].params} | params
    full.pop("cancel", None)
    twin = RecordingTwin(net, tk, name, warm=warm, cancel_on_start=cancel_on_start, **full)
    return net, tk, out, twin.run()


def _assert_equal(out, want):
    for name, a, b in zip(_OUT, out, want, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        if name in ("energy_tx", "area", "span"):  # sums kept in another order
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-9, err_msg=name)
        else:
            assert np.array_equal(a, b, equal_nan=True), name


_CASES = [
    ("chain", "local", {}),
    ("chain", "jsq", {}),
    ("chain", "overflow", {"p": 0.6}),
    ("chain", "replicate", {"m": 3}),
    ("two_stars", "replicate", {"m": 3}),
    ("chain", "threshold", {"theta": 0.3, "e_max": 2}),
    ("p2_proactive", "hedge_cache", {"cache_size": 10, "deadline": 0.05}),
]


@pytest.mark.parametrize(("where", "name", "params"), _CASES)
def test_every_output_of_the_engine_equals_the_recording_twin(where, name, params):
    """Small rooms (losses), forwards, cache hits and replicas, measured from task 100:
    copies, hops, transmission energy, busy time per node, the window, the counters and the
    completing copies' starts, all as the twin records them."""
    sc = {"chain": _chain, "two_stars": _two_stars}.get(where, lambda: None)()
    sc = sc or arena.load_scenario(where)
    net, tk, out, want = _engine_and_twin(sc, name, params, n=1200, seed=4, warm=100)
    _assert_equal(out, want)
    where, copies, hops = out[1], out[2], out[3]
    assert (where >= 0).mean() > 0.3 and (out[5] > 0).sum() >= 2  # served, busy nodes
    if name != "local":
        assert (hops > 0).mean() > 0.1  # some copies crossed links (energy to compare)
    if name in ("overflow", "local"):
        assert (where < 0).any()  # losses
    if name in ("replicate", "hedge_cache"):
        assert (copies > 1).any() and out[7][1] > 0  # replicas, some cancelled
    if name == "hedge_cache":
        assert (np.isnan(out[8]) & (where >= 0)).any()  # cache hits: no service start


def test_cancel_on_start_equals_the_recording_twin():
    """The first replica to start cancels the others (waiting, travelling or not sent yet):
    every output equals the twin's (which cancels them when a copy starts, not when it
    ends), and no more copies are cancelled than a completed task's siblings and a lost
    task's copies."""
    sc = _chain(lam=2.0, delay=0.0)
    params = {"m": 3, "cancel": "start"}
    net, tk, out, want = _engine_and_twin(sc, "replicate", params, 1200, 6, 50, True)
    _assert_equal(out, want)
    where, copies, ctr = out[1], out[2], out[7]
    assert (copies == 3).mean() > 0.2 and ctr[1] > 0
    # one copy of a completed task is done, the others are cancelled or lost
    done = where >= 0
    assert ctr[1] <= (copies[done] - 1).sum() + copies[~done].sum()


def test_busy_time_is_the_work_done_in_the_window():
    """Local processing, one-server nodes, warm-up 0 and a last task that arrives after the
    system emptied: each node's busy time is the work of the tasks it served (conservation
    of work), and the window is the span of the arrivals."""
    sc = mesh_scenario(servers=1, capacity=10**6, lam=0.3, cloud=False)
    ch = _policy("local", {}, "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 400, 1, ch.uniforms, np.random.default_rng(2))
    t = tk.t.copy()
    t[-1] = t[-2] + 1e4  # the system is empty before the last arrival
    tk = tk._replace(t=t)
    tk = tk._replace(size=tk.size.copy())
    tk.size[-1] = 0.0  # and the last task takes no time
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    finish, where, _, _, _, area, span = engine()(net, tk, pol, 0, ch.user)[:7]
    assert (where == tk.node).all()  # local: every task served at its node, none lost
    work = np.bincount(where, weights=tk.size[:, 0] / net.speed[where], minlength=3)
    np.testing.assert_allclose(area, work, rtol=1e-10)
    assert span == t[-1] - t[0]


def test_a_run_paused_at_every_placement_equals_the_twin():
    """Under the external code the loop pauses at each placement and resumes with the action
    given (the learning environments drive it so). Actions that pick what ``random`` picks
    (its uniform over the deciding node's serving candidates, the cloud when there are
    none) give the twin's run of ``random``: every output, and when each lost task's last
    copy was lost (the time the environments charge a loss at)."""
    sc = _chain(capacity=2, lam=4.0)
    net = checked_net(sc, "test")
    n, warm = 600, 40
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(9))
    deg = int(np.diff(net.nbr_ptr).max())
    st = new_state(len(net.servers), n, 1, deg, 2)
    q = Pending(new_queue(n + 2), new_lane(4096))
    area0, area1 = np.zeros(len(net.servers)), np.zeros(len(net.servers))
    pol = Policy(EXTERNAL, np.zeros(N_PAR))
    twin = RecordingTwin(net, tk, "random", warm=warm)
    pauses = 0
    t0 = _loop(net, tk, pol, warm, st, q, area0, area1)
    while st.reg[R_PHASE] == R_PAUSED and pauses <= n:  # one pause per task, no more
        i, k = st.reg[R_TASK], st.reg[R_NODE]
        assert st.clock[1] == tk.t[i] and k == tk.node[i]  # paused at task i's arrival
        c = len(twin.candidates(k))  # the cloud is the candidate after these
        st.reg[R_ACTION] = min(int(tk.u[i, 0] * c), c - 1) if c else 0
        pauses += 1
        t0 = _loop(net, tk, pol, warm, st, q, area0, area1)
    assert st.reg[R_PHASE] == R_DONE and pauses == n
    want = twin.run()
    got = (st.finish, st.where, st.t_ncopies, st.t_hops, st.energy_tx, area1 - area0)
    _assert_equal(got + (tk.t[-1] - t0, st.ctr[2:4], st.t_start), want)
    assert np.array_equal(st.t_lost, twin.lost_times(), equal_nan=True)
    lost = st.where < 0
    assert lost.mean() > 0.05 and (st.t_lost[lost] >= tk.t[lost]).all()


def test_the_first_task_forwarded_and_queued_behind_later_ones_equals_the_twin():
    """Task 0 appears at a device linked only to the cloud: threshold forwards it (its one
    copy, copy 0, moves on and decides again at the edge ``x``), and it reaches ``x`` after
    later tasks filled its queue, so copy 0 waits at the queue's tail when more arrive.
    Copy 0 and task 0 are where a slip between "no copy" (-1) and copy 0, or between an
    empty queue and a queue whose tail is copy 0, shows."""
    nodes = [
        {"id": "dev", "role": "device", "servers": 0},
        {"id": "x", "role": "edge", "servers": 1},
        {"id": "c", "role": "cloud", "servers": ".inf"},
    ]
    links = [{"a": "dev", "b": "c", "delay": 0.5}, {"a": "c", "b": "x", "delay": 0.2}]
    size = {"dist": "exponential", "mean": 1.0}  # replaced below
    work = [{"source": s, "rate": 1.0, "size": size} for s in ("dev", "x")]
    sc = arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})
    net = checked_net(sc, "test")
    n = 20
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(0))
    t = np.r_[0.0, 0.05 + 0.1 * np.arange(1, n)]  # task 0 first, then one each 0.1 s at x
    node = np.r_[0, np.ones(n - 1, np.int64)]
    tk = tk._replace(t=t, node=node, source=node.copy(), size=np.ones((n, 1)))
    params = {"theta": 100.0, "e_max": 1}
    ch = _policy("threshold", dict(params), "test")
    out = engine()(net, tk, Policy(ch.code, ch.par), 0, ch.user)
    full = {p: arena.PARAMS[p].default for p in POLICIES["threshold"].params} | params
    _assert_equal(out, RecordingTwin(net, tk, "threshold", **full).run())
    finish, where = out[0], out[1]
    assert (where == 1).all() and out[7][0] == n  # all served at x, one copy each
    # task 0 reached x at 0.7 s behind tasks 1 to 6: it is the 7th served, after 7 s
    assert finish[0] == pytest.approx(7.0 + 0.15)


def test_copies_sent_to_a_node_without_servers_are_lost_on_arrival():
    """A cloud declared with no servers holds nothing: jsq's tasks that find no room at
    the edges go there and are lost when they reach it (not kept waiting for a server that
    never comes): the state after the run has each lost task's loss time, as the twin."""
    sc = _chain(capacity=2, lam=4.0, cloud_servers=0)
    net = checked_net(sc, "test")
    n = 600
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(5))
    st = new_state(len(net.servers), n, 1, int(np.diff(net.nbr_ptr).max()), 2)
    q = Pending(new_queue(n + 2), new_lane(4096))
    area0, area1 = np.zeros(len(net.servers)), np.zeros(len(net.servers))
    pol = Policy(POLICIES["jsq"].code, np.zeros(N_PAR))
    _loop(net, tk, pol, 0, st, q, area0, area1)
    twin = RecordingTwin(net, tk, "jsq")
    finish, where = twin.run()[:2]
    assert np.array_equal(st.where, where) and np.array_equal(st.finish, finish, equal_nan=True)
    assert np.array_equal(st.t_lost, twin.lost_times(), equal_nan=True)
    lost = st.where < 0
    # lost at the cloud, one link (e1) or two away: after the arrival, never at it
    assert lost.mean() > 0.05 and (st.t_lost[lost] > tk.t[lost]).all()
    assert st.n_in[net.cloud] == 0 and np.isnan(st.t_lost[~lost]).all()


def test_more_moves_in_flight_than_the_lane_holds_equal_the_twin():
    """One link of 3 s and 2,000 tasks a second: about 6,000 moves travel at once, more than
    the lane's 4,096 places, so moves go to the calendar queue while the lane is full and
    back to the lane as it drains; the tasks still reach the node, and finish, in the
    twin's order (one heap for everything)."""
    sc = arena.scenario_from_dict(device_to_unbounded_edge("x", 3.0, 2000.0, 0.01))
    n = 7000
    net, tk, out, want = _engine_and_twin(sc, "local", {}, n=n, seed=3, warm=0)
    _assert_equal(out, want)
    t = tk.t
    in_flight = np.arange(n) - np.searchsorted(t, t - 3.0) + 1  # sent in the last 3 s
    assert in_flight.max() > 5000 and (out[1] == 1).all()


def _one_server(t, size):
    """One edge ``x`` with one server of speed 1 and no limit on its room, ``local``
    tasks arriving at ``t`` with work ``size``: a FCFS M/G/1 run worked out by hand."""
    nodes = [{"id": "x", "role": "edge", "servers": 1}]
    work = [{"source": "x", "rate": 1.0, "size": {"dist": "exponential", "mean": 1.0}}]
    sc = arena.scenario_from_dict({"nodes": nodes, "links": [], "workload": work})
    net = checked_net(sc, "test")
    n = len(t)
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(0))
    tk = tk._replace(t=np.array(t, float), size=np.array(size, float)[:, None])
    tk = tk._replace(node=np.zeros(n, np.int64), source=np.zeros(n, np.int64))
    ch = _policy("local", {}, "test")
    return net, tk, Policy(ch.code, ch.par), ch.user


def test_a_one_server_run_worked_out_by_hand_with_and_without_a_measured_task():
    """Tasks at 0, 1 and 3 s of work 2, 0.5 and 1 s on one server: served in [0, 2],
    [2, 2.5] and [3, 4]. Measured from task 1, the node is busy 1 + 0.5 s of the 2 s
    between the arrivals of tasks 1 and 2. With ``warm = n`` no task is measured: the
    window starts at 0.0 (the loop returns 0.0 and leaves ``area0`` as given), so the busy
    time is the 2.5 s before the last arrival and the window 3 s; the state's ``area``
    (busy server-seconds) holds all 3.5 s at the end."""
    net, tk, pol, user = _one_server([0.0, 1.0, 3.0], [2.0, 0.5, 1.0])
    out = engine()(net, tk, pol, 1, user)
    np.testing.assert_allclose(out[0], [2.0, 2.5, 4.0], rtol=1e-12)
    np.testing.assert_allclose(out[5], [1.5], rtol=1e-12)
    assert out[6] == 2.0
    out = engine()(net, tk, pol, 3, user)
    np.testing.assert_allclose(out[0], [2.0, 2.5, 4.0], rtol=1e-12)
    np.testing.assert_allclose(out[5], [2.5], rtol=1e-12)
    assert out[6] == 3.0
    st = new_state(1, 3, 1, 0, 2)
    q = Pending(new_queue(3 + 2), new_lane(4096))
    area0, area1 = np.zeros(1), np.zeros(1)
    assert _loop(net, tk, pol, 3, st, q, area0, area1) == 0.0
    assert area0[0] == 0.0 and area1[0] == pytest.approx(2.5, rel=1e-12)
    assert st.area[0] == pytest.approx(3.5, rel=1e-12)


def _copies_owned(st, n):
    """Each task's copies ``t_first[i] .. t_first[i] + t_ncopies[i] - 1`` are copies of task
    ``i``: the ranges tile the copies made, and ``c_task`` names their task."""
    made = st.ctr[2]
    owner = np.full(made, -1)
    for i in range(n):
        lo, hi = st.t_first[i], st.t_first[i] + st.t_ncopies[i]
        assert 0 <= lo and hi <= made and (owner[lo:hi] == -1).all(), i
        owner[lo:hi] = i
    assert (owner >= 0).all()
    assert np.array_equal(st.c_task[:made], owner)


@pytest.mark.parametrize("case", ["cancel_on_start", "cache"])
def test_every_copy_made_belongs_to_its_task(case):
    """Conservation of copies in the state the loop leaves: replicas cancelled on start
    before they were sent (a sibling placed at the deciding node starts at once) and cache
    hits (one copy, done on arrival) are still their task's copies, in its range."""
    if case == "cache":
        sc, name, params = arena.load_scenario("p2_proactive"), "hedge_cache", {}
        params = {"cache_size": 10, "deadline": 0.05}
    else:
        sc, name, params = _chain(lam=2.0, delay=0.0), "replicate", {"m": 3, "cancel": "start"}
    ch = _policy(name, dict(params), "test")
    net = checked_net(sc, "test")
    n = 300
    tk = draw_tasks(sc, n, ch.copies, ch.uniforms, np.random.default_rng(6))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(max(ch.state, 1)), np.zeros(4, np.int64))
    st = new_state(len(net.servers), n, ch.copies, int(np.diff(net.nbr_ptr).max()), ch.uniforms)
    st.on_start[0] = 1 if case == "cancel_on_start" else 0
    q = Pending(new_queue(n * ch.copies + 2), new_lane(4096))
    area0, area1 = np.zeros(len(net.servers)), np.zeros(len(net.servers))
    _loop(net, tk, pol, 0, st, q, area0, area1)
    assert st.reg[R_PHASE] == R_DONE
    _copies_owned(st, n)
    if case == "cache":
        assert (np.isnan(st.t_start) & (st.where >= 0)).sum() > 5  # cache hits
    else:
        assert (st.t_ncopies == 3).sum() > 5 and st.ctr[3] > 5  # replicas, cancelled


def test_a_policy_without_uniforms_equals_the_twin():
    """The engine takes tasks with no uniforms (``R = 0``) for a policy that draws none:
    jsq on the chain (three candidates at ``e1``) equals the twin task by task."""
    sc = _chain(capacity=2, lam=4.0)
    ch = _policy("jsq", {}, "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 300, 1, 1, np.random.default_rng(7))
    tk = tk._replace(u=np.zeros((300, 0)))
    out = engine()(net, tk, Policy(ch.code, ch.par), 10, ch.user)
    _assert_equal(out, RecordingTwin(net, tk, "jsq", warm=10).run())
    assert (out[1] >= 0).mean() > 0.3 and (out[1] < 0).any()
