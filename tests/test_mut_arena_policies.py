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
from workbench.arena.simulation import POLICIES, _compiled, _policy
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


def _late_device():
    """A device listed after its home ``a``, whose neighbour ``c`` the device does not
    reach: the home's neighbours are searched too, whatever the order of the nodes."""
    nodes = [_edge("a"), _edge("b"), _edge("c", 2), {"id": "dev", "role": "device"}, CLOUD]
    links = [
        {"a": "dev", "b": "a", "delay": 0.001},
        {"a": "dev", "b": "b", "delay": 0.02},
        {"a": "a", "b": "b", "delay": 0.004},
        {"a": "a", "b": "c", "delay": 0.002},
    ]
    links += [{"a": x, "b": "cloud", "delay": 0.05} for x in "abc"]
    return _net(nodes, links, [("dev", 25.0)])


def _cloud_home():
    """A device nearer the cloud than the edge: its home is the cloud, so replicas go to
    its serving neighbours only."""
    nodes = [_edge("a", 2), _edge("b"), {"id": "dev", "role": "device"}, CLOUD]
    links = [
        {"a": "dev", "b": "cloud", "delay": 0.001},
        {"a": "dev", "b": "a", "delay": 0.01},
        {"a": "a", "b": "b", "delay": 0.002},
        {"a": "a", "b": "cloud", "delay": 0.05},
        {"a": "b", "b": "cloud", "delay": 0.05},
    ]
    return _net(nodes, links, [("dev", 8.0), ("b", 3.0)])


SCENARIOS = {
    "mixed": _mixed,
    "ring": lambda: map_scenario(0.85, 0.002, 1.0, cloud_rtt=0.1),
    "lonely": _lonely,
    "late_device": _late_device,
    "cloud_home": _cloud_home,
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
    ("cloud_home", "replicate", {"m": 2}),
]


@pytest.mark.parametrize(("where", "name", "params"), CASES)
def test_policies_on_unequal_nodes_equal_their_slow_twin(where, name, params):
    sc = SCENARIOS[where]()  # the ring: the winner map's four edges, loaded
    ch = _policy(name, dict(params), "test")
    net = _compiled(sc, "test")
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
    net = _compiled(sc, "test")
    tk = draw_tasks(sc, 50, ch.copies, ch.uniforms, np.random.default_rng(1))
    pol = Policy(ch.code, ch.par, ch.upar, np.zeros(1), np.zeros(4, np.int64))
    where = engine()(net, tk, pol, 0, ch.user)[1]
    assert pol.err.tolist() == err and where[0] == -1
