"""P5's event kernel: what the twin comparisons leave open (from the mutation run).

``tests/test_hierarchy_sim.py`` compares the per-task times with the slow twin and the area
with Little's law; the other columns of ``server_stats`` (busy time, work, tasks queued,
forwarded up, sent down, the end time), the event count and its budget are checked here,
against what each task's path says (a task climbs from its origin to the server that
executes it), and small runs are checked against times worked out by hand.
"""

import numpy as np
import pytest
from naive_hierarchy import simulate_naive, static_route_naive

from workbench.hierarchy import from_parents, symmetric_tree
from workbench.hierarchy import kernels as K
from workbench.hierarchy.simulation import _draw_tasks, _run_kernel

COLUMNS = (
    "SRV_AREA",
    "SRV_BUSY",
    "SRV_EXECUTED",
    "SRV_WORK",
    "SRV_ENQUEUED",
    "SRV_RED_FORWARDED",
    "SRV_DECIDED_UP",
    "SRV_SENT_DOWN",
    "SRV_END_TIME",
)


def test_every_statistic_has_its_own_column_and_no_column_is_unnamed():
    cols = [getattr(K, c) for c in COLUMNS]
    assert sorted(cols) == list(range(K.N_SRV_STATS))


def _paths(topo, origin, exec_server):
    """Each task's servers from its origin up to the server that executed it."""
    paths = []
    for o, x in zip(origin, exec_server, strict=True):
        path = [int(o)]
        while path[-1] != x:
            path.append(int(topo.parent[path[-1]]))
            assert path[-1] >= 0, "the executing server is not above the origin"
        paths.append(path)
    return paths


def _tasks(topo, lam=4.0, size=5.0, periods=150, beta=0.1, seed=11):
    return _draw_tasks(
        topo, lam, size, 1.0, periods, 1.0, beta, np.random.default_rng(seed), "spread"
    )


def _common(topo, tasks, out):
    st = out["server_stats"]
    m = tasks.arrival.size
    # every server's clock stops at the last event: the last completion
    np.testing.assert_array_equal(st[:, K.SRV_END_TIME], np.full(topo.n, out["finish"].max()))
    np.testing.assert_array_equal(
        st[:, K.SRV_EXECUTED], np.bincount(out["exec_server"], minlength=topo.n)
    )
    np.testing.assert_allclose(
        st[:, K.SRV_WORK],
        np.bincount(out["exec_server"], weights=tasks.work, minlength=topo.n),
        rtol=1e-12,
    )
    assert st[:, K.SRV_WORK].sum() == pytest.approx(tasks.work.sum(), rel=1e-12)
    assert st[:, K.SRV_EXECUTED].sum() == m


def _exec_time(topo, tasks, out):
    return np.bincount(
        out["exec_server"],
        weights=tasks.work / topo.compute[out["exec_server"]],
        minlength=topo.n,
    )


def test_pure_local_statistics_and_events():
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo)
    m = tasks.arrival.size
    out = _run_kernel("pure_local", topo, tasks)
    st = out["server_stats"]
    _common(topo, tasks, out)
    np.testing.assert_array_equal(out["exec_server"], tasks.origin)
    np.testing.assert_array_equal(
        st[:, K.SRV_ENQUEUED], np.bincount(tasks.origin, minlength=topo.n)
    )
    np.testing.assert_allclose(st[:, K.SRV_BUSY], _exec_time(topo, tasks, out), rtol=1e-12)
    for col in (K.SRV_RED_FORWARDED, K.SRV_DECIDED_UP, K.SRV_SENT_DOWN):
        assert not st[:, col].any()
    # one arrival and one completion per task
    assert out["events"] == 2 * m


def test_pure_cloud_statistics_and_events():
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo, lam=2.0)
    m = tasks.arrival.size
    out = _run_kernel("pure_cloud", topo, tasks)
    st = out["server_stats"]
    _common(topo, tasks, out)
    assert (out["exec_server"] == 0).all() and (out["visits"] == 3).all()
    enq = np.zeros(topo.n)
    enq[0] = m
    np.testing.assert_array_equal(st[:, K.SRV_ENQUEUED], enq)
    np.testing.assert_allclose(st[:, K.SRV_BUSY], _exec_time(topo, tasks, out), rtol=1e-12)
    # links are pure delays: two hops of B / W
    np.testing.assert_allclose(out["transfer"], 2 * tasks.data / 100.0, rtol=1e-12)
    assert out["events"] == 3 * m + m


@pytest.mark.parametrize("beta", [0.02, 0.0])
@pytest.mark.parametrize("offload_busy", [True, False])
@pytest.mark.parametrize("model", ["original", "without_enhancement_2"])
def test_overhead_rule_statistics_follow_each_tasks_path(model, offload_busy, beta):
    """Without RED a task joins the queue of every server it visits and, below the centre,
    is decided there once: it leaves up from every server of its path but the last. A
    task without data (β = 0) is on the next server at once: no hand-over occupies the
    worker, and there is no event for one."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo, lam=5.0, beta=beta)
    m, tau = tasks.arrival.size, 0.003
    out = _run_kernel(
        model, topo, tasks, decision_time=tau, offload_busy=offload_busy, in_decision="zero"
    )
    st = out["server_stats"]
    _common(topo, tasks, out)
    paths = _paths(topo, tasks.origin, out["exec_server"])
    enq = np.zeros(topo.n)
    up = np.zeros(topo.n)
    sent = np.zeros(topo.n)  # link time of the tasks sent up from each server
    for k, path in enumerate(paths):
        for s in path:
            enq[s] += 1
        for s in path[:-1]:
            up[s] += 1
            sent[s] += tasks.data[k] / topo.bandwidth[s]
    assert up.sum() > 0 and (out["exec_server"] != tasks.origin).any()
    np.testing.assert_array_equal(out["visits"], [len(p) for p in paths])
    np.testing.assert_array_equal(st[:, K.SRV_ENQUEUED], enq)
    np.testing.assert_array_equal(st[:, K.SRV_DECIDED_UP], up)
    assert not st[:, K.SRV_RED_FORWARDED].any() and not st[:, K.SRV_SENT_DOWN].any()
    decisions = enq.copy()
    decisions[0] = 0.0  # nothing is decided at the centre
    per_task = np.array([len(p) - (p[-1] == 0) for p in paths])
    np.testing.assert_allclose(out["decide"], tau * per_task)
    busy = _exec_time(topo, tasks, out) + tau * decisions + (sent if offload_busy else 0.0)
    np.testing.assert_allclose(st[:, K.SRV_BUSY], busy, rtol=1e-9)
    # arrivals, decisions, completions, and a hand-over to the link per task sent up
    sends = up.sum() if offload_busy and beta > 0 else 0
    events = out["visits"].sum() + decisions.sum() + m + sends
    assert out["events"] == events


def test_red_forwards_and_decisions_add_up_per_server():
    """With RED at the entrance a visit either joins the queue or is forwarded at once; a
    task leaves every server of its path but the last, by RED or by a decision."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo, lam=9.0, size=6.0, periods=120)
    out = _run_kernel(
        "without_enhancement_1",
        topo,
        tasks,
        offload_busy=False,
        decision_time=0.002,
        min_th=0.0,
        max_th=0.05,
        w_q=0.5,
    )
    st = out["server_stats"]
    _common(topo, tasks, out)
    paths = _paths(topo, tasks.origin, out["exec_server"])
    visits = np.zeros(topo.n)
    leaves = np.zeros(topo.n)
    for path in paths:
        for s in path:
            visits[s] += 1
        for s in path[:-1]:
            leaves[s] += 1
    red = st[:, K.SRV_RED_FORWARDED]
    assert red.sum() == out["red_forwards"].sum() > 0
    assert st[:, K.SRV_DECIDED_UP].sum() > 0
    assert red[0] == 0  # nowhere up to go from the centre
    np.testing.assert_array_equal(st[:, K.SRV_ENQUEUED] + red, visits)
    np.testing.assert_array_equal(st[:, K.SRV_DECIDED_UP] + red, leaves)
    decisions = st[:, K.SRV_ENQUEUED].copy()
    decisions[0] = 0.0
    busy = _exec_time(topo, tasks, out) + 0.002 * decisions
    np.testing.assert_allclose(st[:, K.SRV_BUSY], busy, rtol=1e-9)


def test_tasks_sent_down_are_counted_at_the_centre():
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo, lam=9.0, size=6.0, periods=120)
    out = _run_kernel("pure_cloud", topo, tasks, down_offload=True)
    st = out["server_stats"]
    _common(topo, tasks, out)
    down = out["went_down"].astype(bool)
    assert down.any() and not down.all()
    assert st[0, K.SRV_SENT_DOWN] == down.sum() and not st[1:, K.SRV_SENT_DOWN].any()
    # a task sent down runs at a middle server, one hop below the centre
    assert set(out["exec_server"][down]) <= {1, 2}
    assert (out["exec_server"][~down] == 0).all()
    assert (out["visits"][down] == 4).all()


@pytest.mark.parametrize("model", ["pure_local", "original", "advanced"])
def test_the_event_budget_stops_the_run_one_event_short(model):
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo, lam=3.0, periods=20)
    events = _run_kernel(model, topo, tasks)["events"]
    assert _run_kernel(model, topo, tasks, max_events=events)["events"] == events
    with pytest.raises(RuntimeError, match="event budget"):
        _run_kernel(model, topo, tasks, max_events=events - 1)


def _hand_tasks(arrival, origin, work, data, n):
    m = len(arrival)
    return K.Tasks(
        arrival=np.asarray(arrival, dtype=float),
        origin=np.asarray(origin, dtype=np.int64),
        work=np.asarray(work, dtype=float),
        data=np.asarray(data, dtype=float),
        uniforms=np.full((m, n), 0.5),
    )


def test_a_few_tasks_by_hand_pure_local_and_pure_cloud():
    """Times worked out by hand: FIFO at one server, pure delays on the links."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    # two tasks at server 3 at t = 0 and 0.1 (work 4 and 2 at speed 20), one at 5 at t = 1
    tasks = _hand_tasks([0.0, 0.1, 1.0], [3, 3, 5], [4.0, 2.0, 10.0], [2.0, 1.0, 5.0], topo.n)
    out = _run_kernel("pure_local", topo, tasks)
    np.testing.assert_allclose(out["finish"], [0.2, 0.3, 1.5])
    np.testing.assert_allclose(out["wait"], [0.0, 0.1, 0.0])
    st = out["server_stats"]
    # server 3 holds one task on [0, 0.1), two on [0.1, 0.2), one on [0.2, 0.3)
    assert st[3, K.SRV_AREA] == pytest.approx(0.1 + 0.2 + 0.1)
    assert st[5, K.SRV_AREA] == pytest.approx(0.5)
    assert st[3, K.SRV_BUSY] == pytest.approx(0.3) and st[5, K.SRV_BUSY] == pytest.approx(0.5)
    # pure cloud: 2 hops of B / 100 up, then FIFO at the centre (speed 100)
    out = _run_kernel("pure_cloud", topo, tasks)
    arrive = np.array([0.0, 0.1, 1.0]) + 2 * np.array([2.0, 1.0, 5.0]) / 100.0
    np.testing.assert_allclose(out["transfer"], [0.04, 0.02, 0.1])
    np.testing.assert_allclose(out["finish"], arrive + np.array([4.0, 2.0, 10.0]) / 100.0)
    np.testing.assert_array_equal(out["visits"], [3, 3, 3])
    assert out["server_stats"][0, K.SRV_AREA] == pytest.approx(0.04 + 0.02 + 0.1)


def test_one_task_through_the_overhead_rule_by_hand():
    """One task at a slow bottom server (speed 1) whose link is fast: eqs. 5 and 8 send it
    up to the middle (speed 50) and there keep it (the centre is no faster than the
    middle and the hop costs time)."""
    topo = from_parents([-1, 0, 1], [50.0, 50.0, 1.0], [100.0, 100.0, 100.0], [0, 0, 1])
    tau = 0.01
    tasks = _hand_tasks([0.5], [2], [5.0], [1.0], topo.n)
    for busy in (True, False):
        out = _run_kernel("original", topo, tasks, decision_time=tau, offload_busy=busy)
        assert out["exec_server"][0] == 1 and out["visits"][0] == 2
        assert out["decide"][0] == pytest.approx(2 * tau)
        assert out["transfer"][0] == pytest.approx(0.01)
        assert out["finish"][0] == pytest.approx(0.5 + tau + 0.01 + tau + 5.0 / 50.0)
        st = out["server_stats"]
        assert st[2, K.SRV_BUSY] == pytest.approx(tau + (0.01 if busy else 0.0))
        assert st[1, K.SRV_BUSY] == pytest.approx(tau + 0.1)
        assert st[2, K.SRV_AREA] == pytest.approx(tau)
        assert st[1, K.SRV_AREA] == pytest.approx(tau + 0.1)
        assert out["events"] == 2 + 2 + 1 + (1 if busy else 0)


@pytest.mark.parametrize("in_decision", ["full", "zero", "remaining"])
def test_work_ahead_of_a_task_under_decision(in_decision):
    """_ahead: queued work plus the task in service; a decision counts as told."""
    q, work, now, end, speed = 3.0, 7.0, 1.0, 1.25, 4.0
    code = {"full": K.IN_DECISION_FULL, "zero": K.IN_DECISION_ZERO}.get(
        in_decision, K.IN_DECISION_REMAINING
    )
    assert len({K.IN_DECISION_FULL, K.IN_DECISION_ZERO, K.IN_DECISION_REMAINING}) == 3
    want = {"full": q + work, "zero": q, "remaining": q + (end - now) * speed}[in_decision]
    assert K._ahead(q, 2, K._DECIDE, end, now, speed, work, code) == pytest.approx(want)
    # an execution or a hand-over counts what is left of it; an idle worker nothing
    for kind in (K._EXECUTE, K._SEND):
        assert K._ahead(q, 2, kind, end, now, speed, work, code) == pytest.approx(q + 1.0)
    assert K._ahead(q, -1, K._EXECUTE, end, now, speed, work, code) == q
    assert K._ahead(q, 0, K._EXECUTE, end, now, speed, work, code) == pytest.approx(q + 1.0)


def test_a_run_out_of_budget_returns_minus_one():
    """The kernel's own contract: -1 when the event budget runs out (not any negative)."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo, lam=3.0, periods=10)
    out = _run_kernel("pure_local", topo, tasks)
    m, n = tasks.arrival.size, topo.n
    again = K.Outcome(*(np.empty_like(a) for a in _outcome_arrays(out)))
    rules = _rules(max_events=out["events"] - 1)
    tree = K.Tree(topo.parent, topo.compute, topo.bandwidth, *_weights(topo), np.full(n, 0.5))
    assert K.simulate_hierarchy(tree, rules, tasks, again) == -1
    rules = _rules(max_events=out["events"])
    assert K.simulate_hierarchy(tree, rules, tasks, again) == 2 * m


def _outcome_arrays(out):
    return [out[f] for f in K.Outcome._fields]


def _weights(topo):
    f = topo.compute
    return f / (f + 1.0), 1.0 / (f + 1.0)


def _rules(max_events):
    return K.Rules(
        kappa=1e-11,
        cloud_forward=False,
        use_red=False,
        overhead=False,
        queue_aware=False,
        down_offload=False,
        min_th=5.0,
        max_th=20.0,
        max_p=0.5,
        w_q=0.125,
        gentle=False,
        decision_time=0.0,
        in_decision=K.IN_DECISION_FULL,
        offload_busy=False,
        eq11_unit=1.0,
        max_events=max_events,
    )


@pytest.mark.parametrize(
    ("beta", "kappa", "power"),
    [
        (0.5, 1e-11, 0.5),  # the middle server 2 keeps its tasks, the rest climb to 0
        (0.5, 1e-5, 0.5),  # just below the κ where server 2 stops keeping its tasks
        (0.5, 2e-5, 0.5),  # the energy term γ_e κ F² D sends server 2's up as well
        (2.0, 1e-5, 0.5),
        (2.0, 1e-11, 0.5),  # both middle servers keep theirs
        (8.0, 1e-11, 0.5),  # the slowest bottom servers climb, the others keep theirs
        (8.0, 1e-11, 5.0),  # transmit energy keeps every task at its origin
        (8.0, 3e-5, 0.5),
    ],
)
def test_original_rule_runs_each_task_where_the_static_route_says(beta, kappa, power):
    """Eqs. 5, 8, 9: every task of the original rule ends where a walk up the tree with
    the equations says (tests/naive_hierarchy.py: static_route_naive, written from the
    paper's text), here with speeds, κ and P under which the route differs server by
    server and the energy terms decide."""
    topo = from_parents([-1, 0, 0, 1, 1, 2, 2], [90.0, 30.0, 60.0, 5.0, 12.0, 8.0, 20.0], 80.0)
    route = static_route_naive(
        topo.parent, topo.compute, topo.bandwidth, beta=beta, power=power, kappa=kappa
    )
    tasks = _draw_tasks(topo, 2.0, 3.0, 1.0, 30, 1.0, beta, np.random.default_rng(4), "spread")
    out = _run_kernel("original", topo, tasks, kappa=kappa, power=power, decision_time=0.001)
    np.testing.assert_array_equal(out["exec_server"], np.asarray(route)[tasks.origin])


TWIN_CASES = {
    # RED's average sits on a zero lower threshold: the count starts at once
    "red_zero_threshold": ("without_enhancement_1", dict(min_th=0.0, max_th=0.5, w_q=0.3)),
    "advanced_zero_threshold": ("advanced", dict(min_th=0.0, max_th=0.2, down_offload=True)),
    # down-offloading from a rule that also decides at the middle servers
    "original_down": ("original", dict(down_offload=True, decision_time=0.0)),
    "cloud_down": ("pure_cloud", dict(down_offload=True)),
    "we2_remaining": ("without_enhancement_2", dict(in_decision="remaining", decision_time=0.01)),
}


@pytest.mark.parametrize("case", sorted(TWIN_CASES))
@pytest.mark.parametrize("arrivals", ["batch", "spread"])
def test_twin_on_links_of_different_speeds_and_equal_sizes(case, arrivals):
    """The slow twin on a tree whose every link has its own bandwidth (a hop down uses the
    child's link, a hop up the sender's), with equal task sizes in batches: events tie in
    time and the order they were scheduled in decides."""
    model, kw = TWIN_CASES[case]
    topo = from_parents(
        [-1, 0, 0, 1, 1, 2, 2],
        [100.0, 40.0, 40.0, 20.0, 20.0, 20.0, 20.0],
        [1000.0, 7.0, 300.0, 50.0, 9.0, 120.0, 30.0],
    )
    for sigma in (0.0, 1.0):
        tasks = _draw_tasks(topo, 9.0, 6.0, sigma, 40, 1.0, 0.5, np.random.default_rng(3), arrivals)
        fast = _run_kernel(model, topo, tasks, **kw)
        slow = simulate_naive(model, topo, tasks, **kw)
        for name in ("finish", "exec_server", "visits", "wait", "decide", "transfer"):
            np.testing.assert_allclose(fast[name], slow[name], rtol=1e-9, atol=1e-9, err_msg=name)
        np.testing.assert_array_equal(fast["red_forwards"], slow["red_forwards"])
        np.testing.assert_array_equal(fast["went_down"], slow["went_down"])
        np.testing.assert_allclose(fast["server_stats"][:, K.SRV_AREA], slow["area"], rtol=1e-9)
        st = fast["server_stats"]
        assert st[0, K.SRV_SENT_DOWN] == fast["went_down"].sum()
        assert not st[1:, K.SRV_SENT_DOWN].any()


def test_reds_mean_work_present_forgets_the_rounding_of_tasks_gone():
    """Eq. 11 scales RED's thresholds by the mean execution time of the tasks present: the
    twin sums the works of the tasks present at each arrival. The kernel keeps a running
    sum, which rounding leaves at -1 here (2^53 + 1 rounds to 2^53, then both leave), and
    must start it afresh when the server empties. At server 1 (speed 1): task 0 (work 2^53)
    and task 1 (work 1) pass; tasks 2 and 3 (work 0.5) arrive together later. At 3's
    arrival task 2 is present (in its 4 s decision): t = 0.5 s, so the lower threshold is
    min(1, 0.5) x 5 = 2.5, above RED's average (0.64): task 3 joins the queue. A stale
    sum would make t = -0.5, the threshold -2.5, and RED forward task 3 with probability
    0.07 > its uniform draw 0.01."""
    topo = from_parents([-1, 0], [1e-3, 1.0], [1e6, 1e6])
    big = 2.0**53
    tasks = K.Tasks(
        arrival=np.array([0.0, big - 2.0, big + 16.0, big + 16.0]),
        origin=np.ones(4, dtype=np.int64),
        work=np.array([big, 1.0, 0.5, 0.5]),
        data=np.ones(4),
        uniforms=np.full((4, topo.n), 0.01),
    )
    kw = dict(min_th=5.0, max_th=20.0, w_q=0.125, decision_time=4.0)
    fast = _run_kernel("without_enhancement_1", topo, tasks, **kw)
    slow = simulate_naive("without_enhancement_1", topo, tasks, **kw)
    np.testing.assert_array_equal(fast["exec_server"], [1, 1, 1, 1])
    np.testing.assert_array_equal(fast["red_forwards"], [0, 0, 0, 0])
    for name in ("finish", "exec_server", "visits", "wait", "decide", "red_forwards"):
        np.testing.assert_array_equal(fast[name], slow[name], err_msg=name)


@pytest.mark.parametrize("in_decision", ["zero", "remaining"])
def test_a_hand_over_to_the_link_keeps_its_place_among_events_at_the_same_instant(in_decision):
    """Equal tasks in batches at whole seconds, decisions taking no time, speeds and links
    powers of two: a server's hand-over of a task to the link (offload_busy) ends at the
    same instant as other events, and the module docstring's order (at equal times, the
    event scheduled first) decides which comes first; here whether a child deciding at
    that instant sees its parent's worker still handing over or already deciding the next
    task (queue-aware rule, a task under decision counted as zero or its time left). The
    slow twin (tests/naive_hierarchy.py) numbers every scheduled event."""
    topo = from_parents(
        [-1, 0, 1, 2, 1, 2], [16.0, 16.0, 8.0, 2.0, 1.0, 2.0], [2.0, 4.0, 4.0, 2.0, 2.0, 4.0]
    )
    origin = [3, 5, 5, 5, 5, 5, 3, 3, 5, 5, 3, 5, 5, 5]
    m = len(origin)
    tasks = _hand_tasks([0.0] * 6 + [1.0] * 4 + [2.0] * 4, origin, [2.0] * m, [1.0] * m, topo.n)
    kw = dict(decision_time=0.0, offload_busy=True, in_decision=in_decision)
    fast = _run_kernel("without_enhancement_2", topo, tasks, **kw)
    slow = simulate_naive("without_enhancement_2", topo, tasks, **kw)
    for name in ("finish", "exec_server", "visits", "wait", "decide", "transfer"):
        np.testing.assert_array_equal(fast[name], slow[name], err_msg=name)
    np.testing.assert_allclose(fast["server_stats"][:, K.SRV_AREA], slow["area"], rtol=1e-12)


def _direct(topo, tasks, max_events):
    """simulate_hierarchy itself (pure local), on outputs filled with junk beforehand."""
    m, n = tasks.arrival.size, topo.n
    out = K.Outcome(
        finish=np.full(m, 7.0),
        exec_server=np.full(m, 7, dtype=np.int64),
        visits=np.full(m, 7, dtype=np.int64),
        wait=np.full(m, 7.0),
        decide=np.full(m, 7.0),
        transfer=np.full(m, 7.0),
        red_forwards=np.full(m, 7, dtype=np.int64),
        went_down=np.full(m, 7, dtype=np.int64),
        server_stats=np.full((n, K.N_SRV_STATS), 7.0),
    )
    tree = K.Tree(topo.parent, topo.compute, topo.bandwidth, *_weights(topo), np.full(n, 0.5))
    return K.simulate_hierarchy(tree, _rules(max_events), tasks, out), out


def test_tasks_a_run_out_of_budget_never_reached_have_no_server_and_no_finish():
    """Outcome's exec_server is the server that executed the task, and servers are 0..n-1:
    a task that never started (the event budget ran out first) has none, -1 (the same mark
    as parent's -1 and an idle worker's -1), and no completion time (NaN). Pure local, by
    hand: task 0 arrives at server 3 at t = 0 and ends at 0.2 (work 4, speed 20); the
    budget of 2 events stops the run before task 1 arrives at t = 1."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _hand_tasks([0.0, 1.0, 2.0], [3, 5, 4], [4.0, 2.0, 10.0], [1.0, 1.0, 1.0], topo.n)
    events, out = _direct(topo, tasks, max_events=2)
    assert events == -1
    np.testing.assert_array_equal(out.exec_server, [3, -1, -1])
    np.testing.assert_array_equal(out.finish, [0.2, np.nan, np.nan])
    np.testing.assert_array_equal(out.visits, [1, 0, 0])
    # with the budget the run needs (an arrival and an end per task) every task has both
    events, out = _direct(topo, tasks, max_events=6)
    assert events == 6
    np.testing.assert_array_equal(out.exec_server, [3, 5, 4])
    np.testing.assert_allclose(out.finish, [0.2, 1.1, 2.5])


def test_a_run_without_tasks_has_no_event_and_every_statistic_zero():
    """No task, no event: the clock never leaves 0 (the origin of the arrival times), so
    every server's end time is 0, and nothing was queued, busy or executed."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _hand_tasks([], [], [], [], topo.n)
    events, out = _direct(topo, tasks, max_events=10)
    assert events == 0
    np.testing.assert_array_equal(out.server_stats, np.zeros((topo.n, K.N_SRV_STATS)))


def test_red_with_a_zero_probability_forwards_nothing_even_on_a_zero_draw():
    """RED forwards an arriving task with probability p: with max_p = 0 (and the average
    below max_th) p is 0 at every visit, so no task may be forwarded, whatever its U[0, 1)
    draw, 0.0 included (U < p, never U <= p). The lower threshold 0 makes RED compute p
    at every visit."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    tasks = _tasks(topo, lam=6.0, periods=40)
    tasks = tasks._replace(uniforms=np.zeros((tasks.arrival.size, topo.n)))
    kw = dict(min_th=0.0, max_th=1e9, max_p=0.0, w_q=0.5, decision_time=0.001)
    out = _run_kernel("without_enhancement_1", topo, tasks, **kw)
    assert not out["red_forwards"].any()
    assert not out["server_stats"][:, K.SRV_RED_FORWARDED].any()
    assert out["visits"].sum() > tasks.arrival.size  # the overhead rule still sends some up


@pytest.mark.parametrize("model", ["pure_local", "original"])
def test_down_offload_acts_only_at_the_centres_entrance(model):
    """down_offload sends a task down at the centre's entrance only (module docstring). On
    a chain 0 <- 1 <- 2 <- 3 whose bottom server 3 is fast, a task arriving at server 2
    (below server 1, not the centre) would finish far sooner at its child 3 (1/1000 s +
    5/100 s against 5 s), but stays: by hand it runs at 2 from t = 0 to 5 (the overhead
    rule, with no decision time, keeps it too: sending it up to the equally slow server 1
    costs more in time and energy)."""
    topo = from_parents([-1, 0, 1, 2], [1.0, 1.0, 1.0, 100.0], 1000.0)
    tasks = _hand_tasks([0.0], [2], [5.0], [1.0], topo.n)
    out = _run_kernel(model, topo, tasks, down_offload=True, decision_time=0.0)
    assert out["exec_server"][0] == 2 and out["went_down"][0] == 0
    assert out["visits"][0] == 1 and out["finish"][0] == pytest.approx(5.0)
    assert not out["server_stats"][:, K.SRV_SENT_DOWN].any()


def test_down_offload_looks_at_the_centres_children_only_wherever_the_centre_is():
    """down_offload sends a task to the *child* of the centre that would finish it first.
    Here the centre is server 1 (children 0 and 2) and the fast server 3 hangs below 0: a
    grandchild, not a candidate. A task from 2 climbs to the centre in 1/1000 s; there
    (speed 10) it takes 1 s against 10 s at either child, so it stays: by hand it ends
    at 0.001 + 1 = 1.001."""
    topo = from_parents([1, -1, 1, 0], [1.0, 10.0, 1.0, 1000.0], 1000.0)
    tasks = _hand_tasks([0.0], [2], [10.0], [1.0], topo.n)
    out = _run_kernel("pure_cloud", topo, tasks, down_offload=True)
    assert out["exec_server"][0] == 1 and out["went_down"][0] == 0
    assert out["visits"][0] == 2 and out["finish"][0] == pytest.approx(1.001)
    assert not out["server_stats"][:, K.SRV_SENT_DOWN].any()


def test_a_task_sent_down_to_server_0_is_counted_and_stays_there():
    """The centre is server 1 and its fast child is server 0: a task from server 2 climbs
    to the centre (1/1000 s), where 0 would finish it in 1/1000 + 10/1000 s against 1 s at
    the centre, so it is sent down to 0, marked, counted, and runs there (pinned: pure
    cloud does not send it up again). By hand it ends at 0.001 + 0.001 + 0.01."""
    topo = from_parents([1, -1, 1], [1000.0, 10.0, 1.0], 1000.0)
    tasks = _hand_tasks([0.0], [2], [10.0], [1.0], topo.n)
    out = _run_kernel("pure_cloud", topo, tasks, down_offload=True)
    assert out["exec_server"][0] == 0 and out["went_down"][0] == 1
    assert out["visits"][0] == 3 and out["finish"][0] == pytest.approx(0.012)
    np.testing.assert_array_equal(out["server_stats"][:, K.SRV_SENT_DOWN], [0.0, 1.0, 0.0])


def test_a_tie_of_the_overhead_rule_stays_local():
    """Eq. 9 offloads only when offloading costs less: a tie stays local. Server 1 and its
    parent 0 have the same speed 2, the task has no data (no hop time, no transmit
    energy) and κ = 0 (no energy per cycle): both sides are γ_t 4/2, exactly (powers of
    two). By hand the task runs at its origin 1 from t = 0 to 2."""
    topo = from_parents([-1, 0], [2.0, 2.0], 100.0)
    tasks = _hand_tasks([0.0], [1], [4.0], [0.0], topo.n)
    out = _run_kernel("original", topo, tasks, kappa=0.0, decision_time=0.0)
    assert out["exec_server"][0] == 1 and out["visits"][0] == 1
    assert out["finish"][0] == 2.0
    assert not out["server_stats"][:, K.SRV_DECIDED_UP].any()


def test_twin_when_executions_after_decisions_tie_with_later_events():
    """Equal tasks in batches at whole seconds, decisions of 0.5 s, speeds and links powers
    of two: a worker that decides to execute schedules the execution's end, and events
    scheduled after it fall due at the same instant. The module docstring's order (at
    equal times, the event scheduled first) decides; the slow twin
    (tests/naive_hierarchy.py) numbers every scheduled event."""
    topo = from_parents(
        [-1, 0, 1, 2, 1, 2], [16.0, 16.0, 8.0, 2.0, 1.0, 2.0], [2.0, 4.0, 4.0, 2.0, 2.0, 4.0]
    )
    tasks = _draw_tasks(topo, 4.0, 4.0, 0.0, 2, 1.0, 0.0, np.random.default_rng(0), "batch")
    kw = dict(decision_time=0.5, offload_busy=False, in_decision="full", kappa=0.001)
    fast = _run_kernel("without_enhancement_2", topo, tasks, **kw)
    slow = simulate_naive("without_enhancement_2", topo, tasks, **kw)
    for name in ("finish", "exec_server", "visits", "wait", "decide", "transfer"):
        np.testing.assert_array_equal(fast[name], slow[name], err_msg=name)
    np.testing.assert_allclose(fast["server_stats"][:, K.SRV_AREA], slow["area"], rtol=1e-12)


def test_a_clock_near_the_float_limit_still_gives_the_area():
    """The kernel takes any float times. One task arrives at server 3 at 2^530 s and runs
    2^520 s (work 2^520 x 20 at speed 20; both times exact in binary): the area of server 3
    is 2^520 task-seconds, every other server's 0, with nothing left to add at the end
    (the closing term present x (now - last change) is 0 x 0; a product of two such times
    would overflow)."""
    topo = symmetric_tree(20.0, 40.0, 100.0)
    t, d = 2.0**530, 2.0**520
    tasks = _hand_tasks([t], [3], [d * 20.0], [1.0], topo.n)
    out = _run_kernel("pure_local", topo, tasks)
    assert out["finish"][0] == t + d
    area = np.zeros(topo.n)
    area[3] = d
    np.testing.assert_array_equal(out["server_stats"][:, K.SRV_AREA], area)
