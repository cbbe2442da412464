"""The arena's engine against its slow twin (request by request) and conservation."""

import numpy as np
import pytest
from naive_arena import Twin

from workbench import arena
from workbench.arena.compile import compile_scenario, draw_tasks
from workbench.arena.kernels import Policy, engine
from workbench.arena.policies import N_PAR, SLOTS, no_user
from workbench.arena.simulation import POLICIES
from workbench.arena.studies import mesh_scenario


def _run(sc, name, n=3000, seed=1, **params):
    net = compile_scenario(sc)
    m = params.get("m", 1)
    tk = draw_tasks(sc, n, m, 2, np.random.default_rng(seed))
    par = np.zeros(N_PAR)
    for k, v in params.items():
        par[SLOTS[k]] = v
    out = engine()(net, tk, Policy(POLICIES[name].code, par), 0, no_user)
    return net, tk, out


@pytest.mark.parametrize(
    "name, params",
    [("local", {}), ("random", {}), ("jsq", {}), ("overflow", {"p": 0.6}), ("replicate", {"m": 3})],
)
def test_engine_equals_its_slow_twin_request_by_request(name, params):
    sc = mesh_scenario()
    net, tk, out = _run(sc, name, **params)
    finish, where = out[0], out[1]
    twin = Twin(net, tk, name, p=params.get("p", 1.0), m=params.get("m", 1))
    t_finish, t_where = twin.run()
    assert np.array_equal(where, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    # the comparison has something to compare: some tasks lost or moved, most done
    assert (where >= 0).mean() > 0.5


@pytest.mark.parametrize(
    "name, params",
    [("overflow", {"p": 0.5}), ("replicate", {"m": 2}), ("jsq", {}), ("power_of_d", {"d": 2})],
)
def test_conservation_every_task_and_copy_accounted_for(name, params):
    sc = mesh_scenario(capacity=2, lam=4.0, cloud=name != "overflow")
    net, tk, out = _run(sc, name, n=4000, **params)
    finish, where, copies, _, _, _, _, ctr = out[:8]
    n = len(tk.t)
    done, lost = int((where >= 0).sum()), int((where < 0).sum())
    assert done + lost == n  # the engine drains: nothing left in flight
    assert np.isnan(finish[where < 0]).all() and np.isfinite(finish[where >= 0]).all()
    assert ctr[0] == copies.sum()  # copies made = the tasks' copies
    if name == "overflow":
        assert lost > 0  # loss nodes without a cloud lose tasks
    assert (finish[where >= 0] >= tk.t[where >= 0]).all()


def test_replicas_cancel_the_rest_and_copies_add_up():
    """Each copy ends exactly once: done (one per completed task), cancelled or lost."""
    sc = mesh_scenario(capacity=6, lam=3.0)
    net = compile_scenario(sc)
    tk = draw_tasks(sc, 2000, 3, 2, np.random.default_rng(3))
    par = np.zeros(N_PAR)
    par[SLOTS["m"]] = 3
    finish, where, copies, _, _, _, _, ctr = engine()(
        net, tk, Policy(POLICIES["replicate"].code, par), 0, no_user
    )[:8]
    made, cancelled = ctr
    done = int((where >= 0).sum())
    assert copies.max() == 3 and (copies >= 1).all()
    assert cancelled > 0
    # every copy ends once: done (one per completed task), cancelled, or lost (it reached a
    # node that filled while it travelled); a replica is only placed on a free place
    lost_copies = made - done - cancelled
    assert 0 <= lost_copies < 0.05 * made
    # the first replica to finish cancels the others: a completed task with k copies
    # leaves k - 1 copies cancelled or lost, never a second completion
    assert cancelled + lost_copies == (copies[where >= 0] - 1).sum() + copies[where < 0].sum()


@pytest.mark.parametrize("name, params", [("random", {}), ("jsq", {}), ("replicate", {"m": 2})])
def test_simultaneous_events_leave_in_the_order_they_were_scheduled(name, params):
    """Arrivals on a grid of exact binary times, link delays and service times on the same
    grid: arrivals, reaches and departures coincide, and the engine (which keeps the next
    arrival outside its heap) orders every tie as the slow twin's heap does."""
    tk, finish, where = _on_a_grid_like_the_twin(
        mesh_scenario(capacity=3, delay=0.25), name, params.get("m", 1), 1500, seed=7
    )
    t = tk.t
    # ties happened: some task finished exactly when another arrived
    assert np.isin(finish[where >= 0], t).mean() > 0.2
    assert (where < 0).any() and (where >= 0).mean() > 0.5


def _on_a_grid_like_the_twin(sc, name, m, n, seed, input_bits=0.0):
    """Tasks on a quarter-second grid (arrival times and sizes repeat, so events tie; input
    bits 0 or ``input_bits`` per task), run by the engine and by the slow twin: the two must
    agree on every task's node and finish time. Returns the tasks, finish times and nodes."""
    net = compile_scenario(sc)
    rng = np.random.default_rng(seed)
    tk0 = draw_tasks(sc, n, m, 2, rng)
    t = 0.25 * np.cumsum(rng.integers(0, 3, n)).astype(float)  # repeats: equal arrival times
    size = 0.25 * rng.integers(1, 8, (n, m)).astype(float)
    bits = input_bits * rng.integers(0, 2, n).astype(float) if input_bits else np.zeros(n)
    tk = tk0._replace(t=t, size=size, bits=bits)
    par = np.zeros(N_PAR)
    par[SLOTS["m"]] = m
    finish, where = engine()(net, tk, Policy(POLICIES[name].code, par), 0, no_user)[:2]
    t_finish, t_where = Twin(net, tk, name, m=m).run()
    assert np.array_equal(where, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    return tk, finish, where


@pytest.mark.parametrize("name, params", [("random", {}), ("replicate", {"m": 2})])
def test_moves_over_equal_links_keep_the_tie_order(name, params):
    """Equal link delays (the engine's FIFO lane for moves) and input sizes of 0 or 2.5e5
    bits over 1 Mbit/s links (a quarter second more: some moves are due before earlier
    ones, so they go through the heap): everything on a quarter-second grid, so moves,
    arrivals and departures tie across both structures, and the order matches the slow
    twin's single heap."""
    nodes = [{"id": f"e{k}", "role": "edge", "servers": 2, "capacity": 3} for k in range(4)]
    links = [
        {"a": f"e{a}", "b": f"e{b}", "delay": 0.25, "bandwidth": 1e6}
        for a in range(4)
        for b in range(a + 1, 4)
    ]
    work = [
        {
            "source": f"e{k}",
            "rate": 3.0,
            "input_bits": 1.0,
            "size": {"dist": "exponential", "mean": 1.0},
        }
        for k in range(4)
    ]
    sc = arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})
    tk, finish, where = _on_a_grid_like_the_twin(
        sc, name, params.get("m", 1), 2000, seed=11, input_bits=2.5e5
    )
    t = tk.t
    moved = where[where >= 0] != tk.node[where >= 0]
    assert moved.mean() > 0.2  # moves happened
    assert np.isin(finish[where >= 0], t).mean() > 0.2  # ties happened


@arena.policy(state=1, copies=2, params={"spread": (0.0, 1.0, 0.3)})
def _least_time_or_two(task, cand, state, par, u, out):
    """A user policy for the twin: the least expected time, and with probability ``spread``
    a second copy on the runner-up; ``state[0]`` counts the decisions it replicated."""
    best, second = 0, -1
    for j in range(cand.shape[1]):
        t = cand[4, j] + cand[5, j] + cand[1, j] / (cand[2, j] * cand[3, j])
        if t < cand[4, best] + cand[5, best] + cand[1, best] / (cand[2, best] * cand[3, best]):
            second, best = best, j
        elif j != best and second < 0:
            second = j
    out[0] = best
    if u[1] < par[0] and second >= 0 and state[0] < 1e9:
        state[0] += 1
        out[1] = second
        return 2
    return 1


_TWIN_CASES = [
    ("mesh", "threshold", {"theta": 0.3, "e_max": 2}),
    ("p1_fog", "threshold", {"theta": 0.05, "e_max": 1}),
    ("mesh", "power_of_d", {"d": 2}),
    ("mesh", "red", {"min_th": 0.5, "max_th": 3.0, "max_p": 0.3, "w_q": 0.2}),
    ("p5_hierarchy", "red", {}),
    ("mesh", "hedge_cache", {"cache_size": 0, "deadline": 0.2}),
    ("p2_proactive", "hedge_cache", {"cache_size": 10, "deadline": 0.05}),
    ("mesh", "user", {"spread": 0.3}),
    ("near_far", "threshold", {"theta": 0.3, "e_max": 1}),
]


def _near_far():
    """A busy node with two neighbours: one 10 ms away with one server and its own load,
    one 150 ms away with eight idle servers, and a cloud 1 s away. The best neighbour is the
    near one while its wait plus 10 ms beats 150 ms: the link delay decides (ignoring it,
    any wait at the near node sends the task far)."""
    nodes = [
        {"id": "x", "role": "edge", "servers": 1},
        {"id": "near", "role": "edge", "servers": 1},
        {"id": "far", "role": "edge", "servers": 8},
        {"id": "c", "role": "cloud", "servers": ".inf"},
    ]
    links = [{"a": "x", "b": "near", "delay": 0.01}, {"a": "x", "b": "far", "delay": 0.15}]
    links += [{"a": k, "b": "c", "delay": 1.0} for k in ("x", "near", "far")]
    size = {"dist": "exponential", "mean": 0.1}
    work = [
        {"source": "x", "rate": 9.0, "size": size},
        {"source": "near", "rate": 6.0, "size": size},
    ]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


@pytest.mark.parametrize(("where", "name", "params"), _TWIN_CASES)
def test_every_builtin_and_a_user_policy_equal_their_slow_twin(where, name, params):
    """Threshold (forwards), RED (its averaged queue), hedge_cache (cache hits and hedges),
    power_of_d and a user policy (its own Python function, called by the twin), task by
    task, including the mechanism each exists for."""
    from workbench.arena.simulation import _policy

    sc = {"mesh": mesh_scenario, "near_far": _near_far}.get(where, lambda: None)()
    sc = sc or arena.load_scenario(where)
    pol = _least_time_or_two if name == "user" else name
    ch = _policy(pol, dict(params), "test")
    net = _simulate_net(sc)
    tk = draw_tasks(sc, 3000, ch.copies, ch.uniforms, np.random.default_rng(8))
    engine_pol = Policy(ch.code, ch.par, ch.upar, np.zeros(max(ch.state, 1)), np.zeros(4, np.int64))
    finish, where_, copies = engine()(net, tk, engine_pol, 0, ch.user)[:3]
    if name == "user":
        decide = _least_time_or_two.decide  # its Python function (numba's, unless JIT is off)
        decide = getattr(decide, "py_func", decide)
        twin = Twin(net, tk, decide, state=1, par=[params["spread"]])
    else:
        full = {p: arena.PARAMS[p].default for p in POLICIES[name].params} | params
        twin = Twin(net, tk, name, **full)
    t_finish, t_where = twin.run()
    assert np.array_equal(where_, np.array(t_where))
    assert np.array_equal(finish, np.array(t_finish), equal_nan=True)
    done = where_ >= 0
    home = net.home[tk.node]
    assert done.mean() > 0.5
    if name == "threshold" and where == "near_far":  # both neighbours chosen
        assert (where_ == 1).mean() > 0.05 and (where_ == 2).mean() > 0.02
    elif name == "threshold":  # some tasks served by a neighbour, others by the cloud
        assert (done & (where_ != home) & (where_ != net.cloud)).mean() > 0.01
        assert (where_ == net.cloud).mean() > 0.01
    if name == "red":  # offloaded one tier up
        assert (done & (where_ != home)).mean() > 0.01
    if name in ("hedge_cache", "user"):  # second copies
        assert (copies == 2).mean() > 0.05
    if where == "p2_proactive":  # cache hits: a single copy served with no work
        assert (done & (copies == 1)).mean() > 0.1


def _simulate_net(sc):
    from workbench.arena.simulation import checked_net

    return checked_net(sc, "test")
