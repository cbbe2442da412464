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
from naive_arena import Twin

from workbench import arena
from workbench.arena.compile import draw_tasks
from workbench.arena.kernels import Policy, engine
from workbench.arena.simulation import POLICIES, _policy, checked_net
from workbench.arena.studies import map_scenario


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


@pytest.mark.parametrize(
    ("user", "err"),
    [(_seventh, [2, 0, 7, 2]), (_three_of_two, [1, 0, 3, 2])],
)
def test_an_invalid_answer_is_recorded_as_kind_task_value_limit(user, err):
    """The engine's record of an invalid answer, which simulate turns into a PolicyError:
    kind (1: a count outside 1..copies, 2: an index outside the candidates), the task, the
    value and its limit (an edge with no serving neighbour: itself and the cloud, 2
    candidates; 2 copies)."""
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
