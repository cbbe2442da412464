"""Policies against their slow twin where the nodes differ: mutants of
``workbench/arena/policies.py`` that the twin tests on equal nodes could not see
(``benchmarks/mutation.py arena_policies``).

On equal nodes a load ranking by tasks per server-speed is any increasing function of the
tasks held, so ``n / (c s)``, ``n + c s`` and ``n ** (c s)`` choose alike; a device's
candidates start with no node of its own; a ring's best neighbour must come from the
node's own links. Here the servers, speeds and link delays differ, and tasks start at a
device."""

import numpy as np
import pytest
from naive_arena import RecordingTwin, Twin
from numba import config, njit, typeof, types

from workbench import arena
from workbench.arena.compile import draw_tasks
from workbench.arena.kernels import (
    R_ACTION,
    R_DONE,
    R_PAUSED,
    R_PHASE,
    R_TASK,
    Pending,
    Policy,
    engine,
    loop,
    new_state,
)
from workbench.arena.policies import EXTERNAL, N_PAR, T_ARRIVAL, USER_SIG, no_user
from workbench.arena.simulation import POLICIES, _policy, checked_net
from workbench.arena.studies import map_scenario
from workbench.kernels.events import new_lane, new_queue


def _mixed():
    """A device whose home is ``a`` (its nearest serving node), three edges of unequal
    servers and speeds in a triangle of unequal delays, a cloud behind each edge."""
    nodes = [
        {"id": "dev", "role": "device", "servers": 0},
        {"id": "a", "role": "edge", "servers": 1, "speed": 1.0, "capacity": 6},
        {"id": "b", "role": "edge", "servers": 3, "speed": 0.5, "capacity": 12},
        {"id": "c", "role": "edge", "servers": 2, "speed": 2.0, "capacity": 8},
        {"id": "cloud", "role": "cloud", "servers": ".inf", "speed": 1.5},
    ]
    links = [
        {"a": "dev", "b": "a", "delay": 0.001},
        {"a": "dev", "b": "b", "delay": 0.004},
        {"a": "dev", "b": "c", "delay": 0.002},
        {"a": "a", "b": "b", "delay": 0.01},
        {"a": "b", "b": "c", "delay": 0.02},
        {"a": "a", "b": "c", "delay": 0.005},
    ]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "abc"]
    size = {"dist": "exponential", "mean": 0.1}
    work = [
        {"source": "dev", "rate": 40.0, "size": size},
        {"source": "b", "rate": 8.0, "size": size},
    ]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _net(nodes, links, work):
    size = {"dist": "exponential", "mean": 0.1}
    work = [{"source": x, "rate": r, "size": size} for x, r in work]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def _edge(name, servers=1):
    return {"id": name, "role": "edge", "servers": servers, "capacity": 5 * servers}


CLOUD = {"id": "cloud", "role": "cloud", "servers": ".inf", "speed": 1.5}


def _lonely():
    """Two edges that share only the cloud: a loaded one has no neighbour to forward to
    (its best neighbour is "none", not the other edge)."""
    links = [{"a": x, "b": "cloud", "delay": 0.05} for x in "xy"]
    return _net([_edge("x"), _edge("y"), CLOUD], links, [("x", 15.0), ("y", 2.0)])


def _late_device(first=False):
    """A device (no servers) listed after its home ``a`` (before it: ``first``), whose
    neighbour ``c`` the device does not reach: the home's neighbours are searched too,
    whatever the order of the nodes. (Without ``servers: 0`` the device serves and is its
    own home: nothing to search.)"""
    dev = {"id": "dev", "role": "device", "servers": 0}
    edges = [_edge("a"), _edge("b"), _edge("c", 2)]
    nodes = [dev, *edges, CLOUD] if first else [*edges, dev, CLOUD]
    links = [
        {"a": "dev", "b": "a", "delay": 0.001},
        {"a": "dev", "b": "b", "delay": 0.02},
        {"a": "a", "b": "b", "delay": 0.004},
        {"a": "a", "b": "c", "delay": 0.002},
    ]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "abc"]
    return _net(nodes, links, [("dev", 25.0)])


def _cloud_home():
    """A device (no servers) whose only serving link is the cloud: its home is the cloud,
    so replicas go to the cloud's serving neighbours only. (A device linked to an edge as
    well is homed at the edge however near the cloud is; a device without ``servers: 0``
    serves, and is its own home.)"""
    nodes = [_edge("a", 2), _edge("b"), {"id": "dev", "role": "device", "servers": 0}, CLOUD]
    links = [
        {"a": "dev", "b": "cloud", "delay": 0.001},
        {"a": "a", "b": "b", "delay": 0.002},
        {"a": "a", "b": "cloud", "delay": 0.05},
        {"a": "b", "b": "cloud", "delay": 0.05},
    ]
    return _net(nodes, links, [("dev", 8.0), ("b", 3.0)])


def _tiers():
    """The cloud listed between the edges and a fog node at index 0: the edges' parent (one
    tier up) is node 0, a node index that reads as "no parent" to a test of ``> 0``; edge
    ``b`` comes after the cloud, so a test of ``< cloud`` is not the same as ``!= cloud``.
    ``up`` is a device whose only serving link is the cloud (its home is the cloud: replicas
    go to the cloud's serving neighbours), ``dev`` one homed at ``a``."""
    nodes = [
        {"id": "fog", "role": "fog", "servers": 2, "speed": 1.0, "capacity": 6},
        _edge("a"),
        CLOUD,
        _edge("b", 2),
        {"id": "up", "role": "device", "servers": 0},
        {"id": "dev", "role": "device", "servers": 0},
    ]
    links = [
        {"a": "a", "b": "fog", "delay": 0.003},
        {"a": "b", "b": "fog", "delay": 0.004},
        {"a": "a", "b": "b", "delay": 0.006},
        {"a": "fog", "b": "cloud", "delay": 0.03},
        {"a": "a", "b": "cloud", "delay": 0.05},
        {"a": "b", "b": "cloud", "delay": 0.05},
        {"a": "up", "b": "cloud", "delay": 0.001},
        {"a": "dev", "b": "a", "delay": 0.002},
    ]
    work = [("a", 9.0), ("b", 10.0), ("up", 8.0), ("dev", 4.0)]
    return _net(nodes, links, work)


SCENARIOS = {
    "mixed": _mixed,
    "ring": lambda: map_scenario(0.85, 0.002, 1.0, cloud_rtt=0.1),
    "lonely": _lonely,
    "late_device": _late_device,
    "early_device": lambda: _late_device(first=True),
    "cloud_home": _cloud_home,
    "tiers": _tiers,
}
CASES = [
    ("mixed", "random", {}),
    ("mixed", "jsq", {}),
    ("mixed", "power_of_d", {"d": 2}),
    ("mixed", "threshold", {"theta": 0.05, "e_max": 2}),
    ("mixed", "hedge_cache", {"cache_size": 0, "deadline": 0.05}),
    ("ring", "threshold", {"theta": 0.05, "e_max": 1}),
    ("lonely", "threshold", {"theta": 0.05, "e_max": 1}),
    ("lonely", "hedge_cache", {"cache_size": 0, "deadline": 0.05}),
    ("late_device", "threshold", {"theta": 0.05, "e_max": 2}),
    ("early_device", "threshold", {"theta": 0.05, "e_max": 2}),
    ("early_device", "hedge_cache", {"cache_size": 0, "deadline": 0.05}),
    ("cloud_home", "replicate", {"m": 2}),
    ("tiers", "red", {"min_th": 0.5, "max_th": 3.0, "max_p": 0.3, "w_q": 0.2}),
    ("tiers", "replicate", {"m": 2}),
    ("tiers", "hedge_cache", {"cache_size": 0, "deadline": 0.05}),
    ("tiers", "threshold", {"theta": 0.05, "e_max": 2}),
    ("tiers", "jsq", {}),
]


@pytest.mark.parametrize(("where", "name", "params"), CASES)
def test_policies_on_unequal_nodes_equal_their_slow_twin(where, name, params):
    sc = SCENARIOS[where]()  # the ring: the winner map's four edges, loaded
    ch = _policy(name, dict(params), "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 2000, ch.copies, ch.uniforms, np.random.default_rng(5))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    finish, where_ = engine()(net, tk, pol, 0, ch.user)[:2]
    if name == "replicate":
        twin = Twin(net, tk, name, m=params["m"])
    else:
        full = {p: arena.PARAMS[p].default for p in POLICIES[name].params} | params
        twin = Twin(net, tk, name, **full)
    t_finish, t_where = twin.run()
    assert np.array_equal(where_, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    done = where_ >= 0
    home = net.home[tk.node]
    moved = (done & (where_ != home)).mean()
    if (where, name) == ("lonely", "hedge_cache"):  # no neighbour to hedge to
        assert moved == 0.0 and done.mean() > 0.5
    else:  # the comparison has something to compare: tasks leave their home
        assert moved > 0.05
    if where == "mixed" and name != "threshold":
        assert {int(x) for x in np.unique(where_[done])} >= {1, 2, 3}
    if where in ("cloud_home", "tiers"):  # the device homed at the cloud
        dev = sc.index("dev" if where == "cloud_home" else "up")
        assert net.home[dev] == net.cloud
        if name == "replicate":  # its copies go to the cloud's serving neighbours
            near = [sc.index(x) for x in ("a", "b", "fog") if x in {n.id for n in sc.nodes}]
            served = where_[(tk.node == dev) & done]
            assert served.size > 100 and np.isin(served, near).all()
            assert len(np.unique(served)) == len(near)
    if where.endswith("_device"):  # its home's neighbour c, which it does not reach
        assert net.home[sc.index("dev")] == sc.index("a")
        assert (where_ == sc.index("c")).mean() > 0.05
    if where == "tiers" and name == "red":  # offloaded to the edges' parent: node 0
        assert net.parent[sc.index("a")] == net.parent[sc.index("b")] == 0
        assert (where_ == 0).mean() > 0.02


@arena.policy
def _seventh(task, cand, state, par, u, out):
    out[0] = 7
    return 1


@arena.policy(copies=2)
def _three_of_two(task, cand, state, par, u, out):
    out[0], out[1] = 0, 1
    return 3


@arena.policy
def _minus_first(task, cand, state, par, u, out):
    out[0] = -1
    return 1


@arena.policy
def _just_past(task, cand, state, par, u, out):
    out[0] = cand.shape[1]
    return 1


@pytest.mark.parametrize(
    ("user", "err"),
    [
        (_seventh, [2, 0, 7, 2]),
        (_three_of_two, [1, 0, 3, 2]),
        (_minus_first, [2, 0, -1, 2]),
        (_just_past, [2, 0, 2, 2]),
    ],
)
def test_an_invalid_answer_is_recorded_as_kind_task_value_limit(user, err):
    """The engine's record of an invalid answer, which simulate turns into a PolicyError:
    kind (1: a count outside 1..copies, 2: an index outside the candidates), the task, the
    value and its limit (an edge with no serving neighbour: itself and the cloud, 2
    candidates, indices 0 and 1: -1 and 2 are the first indices outside; 2 copies)."""
    sc = _lonely()
    ch = _policy(user, {}, "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 50, ch.copies, ch.uniforms, np.random.default_rng(1))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    where = engine()(net, tk, pol, 0, ch.user)[1]
    assert pol.err.tolist() == err and where[0] == -1


def test_a_source_without_a_serving_home_is_refused_at_load():
    """The premise of the equivalents of ``_hedge``'s branch for a home without servers
    (benchmarks/mutation/equivalents.toml): a source that serves nothing and reaches a
    serving node only through another device is refused, so no decision ever sees such a
    home."""
    nodes = [_edge("a"), {"id": "d1", "role": "device", "servers": 0}]
    nodes += [{"id": "d2", "role": "device", "servers": 0}, CLOUD]
    links = [
        {"a": "d2", "b": "d1", "delay": 0.001},
        {"a": "d1", "b": "a", "delay": 0.001},
        {"a": "a", "b": "cloud", "delay": 0.05},
    ]
    assert _net(nodes, links, [("d1", 5.0)]).nodes[1].id == "d1"  # d1 has its home a
    with pytest.raises(arena.ScenarioError, match=r"workload\[0\]\.source.*'d2' serves nothing"):
        _net(nodes, links, [("d2", 5.0)])


# --- the cloud as a source, RED at p = 0, a hedge with nowhere to go, the external action,
# the user signature ---------------------------------------------------------------------


def _cloud_source():
    """Tasks born at the cloud (a workload entry may sit there) and at edge ``a``: the
    cloud's candidates are its serving neighbours ``a`` and ``b``, never the cloud itself
    (the module docstring: the node itself when it has servers, the cloud excluded)."""
    links = [
        {"a": "a", "b": "b", "delay": 0.002},
        {"a": "a", "b": "cloud", "delay": 0.05},
        {"a": "b", "b": "cloud", "delay": 0.03},
    ]
    return _net([_edge("a"), _edge("b", 2), CLOUD], links, [("cloud", 20.0), ("a", 4.0)])


@pytest.mark.parametrize("name", ["random", "jsq"])
def test_tasks_born_at_the_cloud_choose_among_its_neighbours(name):
    sc = _cloud_source()
    ch = _policy(name, {}, "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 1500, ch.copies, ch.uniforms, np.random.default_rng(3))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    finish, where_ = engine()(net, tk, pol, 0, ch.user)[:2]
    t_finish, t_where = Twin(net, tk, name).run()
    assert np.array_equal(where_, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    born = tk.node == net.cloud
    assert born.mean() > 0.5 and net.home[net.cloud] == net.cloud
    if name == "random":  # a uniform edge, kept there or lost: never the cloud
        assert not (where_[born] == net.cloud).any()
        for b in ("a", "b"):
            assert (where_[born] == sc.index(b)).mean() > 0.2
    else:  # the cloud only when neither edge has room
        assert 0.0 < (where_[born] == net.cloud).mean() < 0.9


def test_red_never_offloads_for_the_draw_when_its_probability_is_zero():
    """RED offloads with probability p: the task's uniform u in [0, 1) falls below p. A
    draw of exactly 0 (rng.random() can return it) at a home whose averaged queue is
    below min_th (p = 0) keeps the task: a third of the tasks draw 0 here."""
    sc = _tiers()
    params = {"min_th": 0.5, "max_th": 3.0, "max_p": 0.3, "w_q": 0.2}
    ch = _policy("red", dict(params), "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 2000, ch.copies, ch.uniforms, np.random.default_rng(5))
    u = tk.u.copy()
    u[::3, 0] = 0.0
    tk = tk._replace(u=u)
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    finish, where_ = engine()(net, tk, pol, 0, ch.user)[:2]
    t_finish, t_where = Twin(net, tk, "red", **params).run()
    assert np.array_equal(where_, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    zero = u[:, 0] == 0.0
    home = net.home[tk.node]
    edge = home != net.cloud
    assert (where_[zero & edge] == home[zero & edge]).mean() > 0.1  # kept at an edge home
    assert (where_[zero & edge] == 0).mean() > 0.01  # and offloaded (p > 0) at other times


def test_a_hedge_with_no_neighbour_makes_one_copy():
    """An edge whose only other link is the cloud: when its wait check fails (the task waits
    behind another) the hedge finds no neighbour for a second copy, so the task has one
    copy (its home's), as the recording twin counts copies."""
    sc = _lonely()
    params = {"cache_size": 0, "deadline": 0.05}
    ch = _policy("hedge_cache", dict(params), "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 1500, ch.copies, ch.uniforms, np.random.default_rng(5))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    out = engine()(net, tk, pol, 0, ch.user)
    want = RecordingTwin(net, tk, "hedge_cache", **params).run()
    for a, b in zip(out[:3], want[:3], strict=True):  # finish, where, copies
        assert np.array_equal(a, np.array(b), equal_nan=True)
    assert (out[2] == 1).all() and out[7][0] == tk.t.size  # one copy each, made in all
    waited = out[8] > tk.t  # started after arriving at its own node: the check had failed
    assert waited.mean() > 0.1


def test_overflow_forwards_only_when_the_draw_is_below_p():
    """Overflow forwards a task its full home cannot take with probability p: when its
    uniform u in [0, 1) is below p. A third of the tasks draw exactly p = 0.5 here: those
    are kept at home or lost, never sent to a neighbour; the others match the twin too."""
    links = [{"a": "a", "b": x, "delay": 0.002} for x in "bc"]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "abc"]
    sc = _net([_edge("a"), _edge("b"), _edge("c", 2), CLOUD], links, [("a", 25.0)])
    ch = _policy("overflow", {"p": 0.5}, "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 2000, ch.copies, ch.uniforms, np.random.default_rng(7))
    u = tk.u.copy()
    u[::3, 0] = 0.5
    tk = tk._replace(u=u)
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    finish, where_ = engine()(net, tk, pol, 0, ch.user)[:2]
    t_finish, t_where = Twin(net, tk, "overflow", p=0.5).run()
    assert np.array_equal(where_, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    home = net.home[tk.node]
    at_p = u[:, 0] == 0.5
    assert ((where_[at_p] == -1) | (where_[at_p] == home[at_p])).all()
    assert (where_[at_p] == -1).mean() > 0.05  # their home was full at times
    moved = (where_ >= 0) & (where_ != home)
    assert moved[~at_p].mean() > 0.02  # the others are forwarded when below p


def _call_loop(net, tk, pol, warm, user, st, q, area0, area1):
    return loop(net, tk, pol, warm, user, st, q, area0, area1)


_LOOP = []


def _paused_loop(net, tk, pol, st, q, area0, area1):
    """:func:`loop` as the engine calls it (the user function typed as USER_SIG, so the
    loop compiled for the engine serves); with the JIT off, the loop itself."""
    if config.DISABLE_JIT:
        return loop(net, tk, pol, 0, no_user, st, q, area0, area1)
    if not _LOOP:
        kinds = [typeof(x) for x in (net, tk, pol, 0, no_user, st, q, area0, area1)]
        kinds[3], kinds[4] = types.int64, types.FunctionType(USER_SIG)
        _LOOP.append(njit(types.float64(*kinds), cache=True)(_call_loop))
    return _LOOP[0](net, tk, pol, 0, no_user, st, q, area0, area1)


def test_an_external_action_places_at_that_candidate_and_one_outside_them_loses_the_task():
    """Under the external code each task waits for an action: the index of one of the
    ``n`` candidates a user policy would see (the serving ones, then the cloud). Task
    ``i`` is given ``i mod (n + 3) - 1``: every index from -1 to n + 1, so every candidate
    in turn, and indices outside them, which lose the task (a target of -1). The twin runs
    a user policy that answers the same index, and no target (a lost task) outside them."""
    sc = _late_device()
    net = checked_net(sc, "test")
    n = 900
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(4))
    count = [len(Twin(net, tk, "random").candidates(int(k))) + 1 for k in tk.node]
    action = np.array([i % (c + 3) - 1 for i, c in enumerate(count)])
    calls = []

    def answer(task, cand, state, par, u, out):
        i = len(calls)
        calls.append(i)
        assert task[T_ARRIVAL] == tk.t[i] and cand.shape[1] == count[i]
        if not 0 <= action[i] < cand.shape[1]:
            return 0
        out[0] = action[i]
        return 1

    deg = int(np.diff(net.nbr_ptr).max())
    st = new_state(len(net.servers), n, 1, deg, 2)
    q = Pending(new_queue(n + 2), new_lane(4096))
    area0, area1 = np.zeros(len(net.servers)), np.zeros(len(net.servers))
    pol = Policy(EXTERNAL, np.zeros(N_PAR), err=np.zeros(4, np.int64))
    _paused_loop(net, tk, pol, st, q, area0, area1)
    pauses = 0
    while st.reg[R_PHASE] == R_PAUSED and pauses < n:
        st.reg[R_ACTION] = action[st.reg[R_TASK]]
        pauses += 1
        _paused_loop(net, tk, pol, st, q, area0, area1)
    assert st.reg[R_PHASE] == R_DONE and pauses == n and pol.err.tolist() == [0, 0, 0, 0]
    want = RecordingTwin(net, tk, answer).run()
    assert len(calls) == n
    got = (st.finish, st.where, st.t_ncopies, st.t_hops)
    for name, a, b in zip(("finish", "where", "copies", "hops"), got, want[:4], strict=True):
        assert np.array_equal(a, np.array(b), equal_nan=True), name
    outside = (action < 0) | (action >= np.array(count))
    assert outside.mean() > 0.2 and (st.where[outside] == -1).all()
    inside = ~outside & (st.where >= 0)
    assert inside.mean() > 0.4
    for a in range(max(count)):  # each candidate index chosen, and served where it points
        assert (inside & (action == a)).any()


def test_the_user_signature_declares_the_arrays_the_engine_passes():
    """A user decision is compiled once, to USER_SIG, before the run; the engine then calls
    it with its own buffers: the state's task view, its candidate rows (a slice of the first
    n columns), the policy's state and parameters, the task's row of uniforms and the
    state's answer buffer. Declared as numba types them (contiguous 1-D arrays, a strided
    2-D view), the user code is compiled for contiguous access; an ``A`` layout would
    accept them too but compile the strided code, and take strided arrays from Python."""
    sc = _late_device()
    ch = _policy("random", {}, "test")
    net = checked_net(sc, "test")
    tk = draw_tasks(sc, 10, 2, 3, np.random.default_rng(0))
    deg = int(np.diff(net.nbr_ptr).max())
    st = new_state(len(net.servers), 10, 2, deg, 3)
    pol = Policy(ch.code, ch.par, np.zeros(2), np.zeros(3), np.zeros(4, np.int64))
    passed = (st.task, st.fbuf[:, :3], pol.ustate, pol.upar, tk.u[4], st.ubuf[:2])
    assert USER_SIG.args == tuple(typeof(x) for x in passed)
    assert USER_SIG.return_type == types.int64
