"""The arena's engine against SimPy (request by request) and Ciw, and 10^7 tasks on 1,000 nodes.

1. SimPy twin: the same scenario (a ring of edge nodes with waiting rooms, 1 ms links, each
   node its own Poisson source) and the SAME pre-drawn tasks; policy ``random`` (a uniform
   candidate among the node and its two ring neighbours). The SimPy model is written the
   SimPy way (one process per task, a ``simpy.Resource`` per node); both must agree on every
   task's finish time and node. Ratio of tasks per second.
2. Ciw: the same ring with zero link delay, where ``random`` placement makes each node an
   M/M/c/K queue fed by the Poisson thinning of its own and its neighbours' sources; Ciw
   simulates that network with its own random numbers, so only the mean delays compare
   (within a few per cent), and the ratio is tasks per second.
3. Scale: 10^7 tasks (10 replications of 10^6) on a ring of 1,000 nodes, through
   ``arena.simulate``; wall time.

Usage::

    python benchmarks/bench_arena_simpy.py          # SimPy/Ciw 10^5 tasks, scale 10^7
    python benchmarks/bench_arena_simpy.py --quick  # SimPy/Ciw 2*10^4 tasks, scale 10^6

Rates are wall-clock on whatever machine runs it (best of 3 for the engine and for
``arena.simulate`` against Ciw, each after a first call that loads the compiled kernels);
on a shared machine every number moves with the load. Exits with status 1 if SimPy and the
engine disagree.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
sys.path.insert(0, _ROOT)

import numpy as np  # noqa: E402
import simpy  # noqa: E402

from workbench import arena  # noqa: E402
from workbench.arena.compile import compile_scenario, draw_tasks  # noqa: E402
from workbench.arena.kernels import Policy, engine  # noqa: E402
from workbench.arena.policies import N_PAR, RANDOM, no_user  # noqa: E402


def ring(n_nodes, servers=4, capacity=16, delay=0.001, load=0.8, mean=0.1):
    nodes = [
        {"id": f"e{k}", "role": "edge", "servers": servers, "capacity": capacity}
        for k in range(n_nodes)
    ]
    links = [{"a": f"e{k}", "b": f"e{(k + 1) % n_nodes}", "delay": delay} for k in range(n_nodes)]
    rate = load * servers / mean
    work = [
        {
            "source": f"e{k}",
            "rate": rate * (0.8 + 0.4 * (k % 2)),
            "size": {"dist": "exponential", "mean": mean},
        }
        for k in range(n_nodes)
    ]
    return arena.scenario_from_dict({"nodes": nodes, "links": links, "workload": work})


def simpy_twin(net, tk):
    """The same rules in SimPy: place at a uniform candidate, travel, join or be lost."""
    env = simpy.Environment()
    n_nodes = len(net.servers)
    res = [simpy.Resource(env, capacity=int(net.servers[k])) for k in range(n_nodes)]
    held = [0] * n_nodes
    n = len(tk.t)
    finish, where = np.full(n, np.nan), np.full(n, -1)

    def candidates(k):
        nb = [int(b) for b in net.nbr_idx[net.nbr_ptr[k] : net.nbr_ptr[k + 1]]]
        return [k, *nb]

    def task(i):
        k = int(tk.node[i])
        c = candidates(k)
        b = c[min(int(tk.u[i, 0] * len(c)), len(c) - 1)]
        dt = net.delay[k, b]
        if dt > 0:
            yield env.timeout(dt)
        if held[b] >= net.capacity[b]:
            return  # lost
        held[b] += 1
        with res[b].request() as req:
            yield req
            yield env.timeout(tk.size[i, 0] / net.speed[b])
        held[b] -= 1
        finish[i], where[i] = env.now, b

    def source():
        for i in range(n):
            yield env.timeout(tk.t[i] - env.now)
            env.process(task(i))

    env.process(source())
    env.run()
    return finish, where


def run_engine(net, tk):
    return engine()(net, tk, Policy(RANDOM, np.zeros(N_PAR)), 0, no_user)


def best_of(f, k=3):
    best = math.inf
    for _ in range(k):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def bench_simpy(n_tasks):
    sc = ring(50)
    net = compile_scenario(sc)
    tk = draw_tasks(sc, n_tasks, 1, 2, np.random.default_rng(1))
    run_engine(net, tk)  # compile / load
    t_engine, out = best_of(lambda: run_engine(net, tk))
    c0 = time.process_time()
    run_engine(net, tk)
    c_engine = time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    s_finish, s_where = simpy_twin(net, tk)
    t_simpy, c_simpy = time.perf_counter() - t0, time.process_time() - c0
    same_where = np.array_equal(out[1], s_where)
    same_finish = np.allclose(out[0], s_finish, rtol=1e-12, atol=1e-12, equal_nan=True)
    lost = float(np.mean(out[1] < 0))
    print(
        f"SimPy twin, 50-node ring, {n_tasks:,} tasks ({lost:.2%} lost): engine "
        f"{n_tasks / t_engine:,.0f} tasks/s, SimPy {n_tasks / t_simpy:,.0f} tasks/s, "
        f"ratio {t_simpy / t_engine:,.0f}x (CPU time: {c_simpy / c_engine:,.0f}x); "
        f"identical where={same_where}, "
        f"finish={same_finish}"
    )
    return same_where and same_finish


def ciw_delay_and_loss(records):
    """Mean delay of the served customers and the share rejected, from Ciw's records.

    Ciw also records each rejected customer (it found its node full), with exit date equal
    to arrival date: those are lost tasks, not tasks of zero delay, so the mean is over the
    ``service`` records only, as the arena's ``mean_delay`` is over completed tasks."""
    served = [x for x in records if x.record_type == "service"]
    delays = [x.exit_date - x.arrival_date for x in served]
    return float(np.mean(delays)), 1.0 - len(served) / len(records)


def bench_ciw(n_tasks):
    import ciw

    n_nodes, servers, capacity = 10, 4, 16
    sc = ring(n_nodes, servers=servers, capacity=capacity, delay=0.0)
    rates = [w.rate for w in sc.workload]
    # random placement over {k-1, k, k+1}: node k receives a third of each of their rates
    lam = [(rates[k - 1] + rates[k] + rates[(k + 1) % n_nodes]) / 3 for k in range(n_nodes)]
    mu = 1 / 0.1

    def run():
        return arena.simulate(
            scenario=sc, policy="random", requests=n_tasks, replications=2, warmup=0.1
        )

    t0 = time.perf_counter()
    arena.simulate(scenario=sc, policy="random", requests=100, replications=2)
    t_first = time.perf_counter() - t0  # the first call: loads the compiled kernels
    t_arena, r = best_of(run)
    horizon = n_tasks / sum(rates)
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(x) for x in lam],
        service_distributions=[ciw.dists.Exponential(mu)] * n_nodes,
        number_of_servers=[servers] * n_nodes,
        queue_capacities=[capacity - servers] * n_nodes,
        routing=[[0.0] * n_nodes for _ in range(n_nodes)],
    )
    ciw.seed(1)
    t0 = time.perf_counter()
    sim = ciw.Simulation(network)
    sim.simulate_until_max_time(horizon)
    t_ciw = time.perf_counter() - t0
    recs = [x for x in sim.get_all_records() if x.arrival_date > 0.1 * horizon]
    d, lost = ciw_delay_and_loss(recs)
    ciw_rate = len(recs) / 0.9 / t_ciw
    arena_rate = 2 * n_tasks / t_arena
    print(
        f"Ciw, 10 M/M/4/16 nodes, {n_tasks:,} tasks: arena mean delay {r.mean_delay:.4f} s "
        f"[{r.ci_low:.4f}, {r.ci_high:.4f}], Ciw {d:.4f} s; lost: arena {r.loss_share:.2%}, "
        f"Ciw {lost:.2%}; arena {arena_rate:,.0f} tasks/s "
        f"(simulate, 2 replications, analysis included; best of 3 after a first call of "
        f"{t_first:.2f} s), Ciw {ciw_rate:,.0f} tasks/s, "
        f"ratio {arena_rate / ciw_rate:,.0f}x"
    )


def bench_scale(n_tasks, reps):
    sc = ring(1000, servers=2, capacity=20, load=0.7)
    t0, c0 = time.perf_counter(), time.process_time()
    r = arena.simulate(
        scenario=sc,
        policy="power_of_d",
        d=2,
        requests=n_tasks,
        replications=reps,
        overload="transient",
    )
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(
        f"Scale: {n_tasks * reps:,} tasks on 1,000 nodes (power_of_d, {reps} x {n_tasks:,}): "
        f"{dt:.1f} s wall, {cpu:.1f} s CPU, mean delay {r.mean_delay:.4f} s"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args(argv)
    n = 20_000 if args.quick else 100_000
    ok = bench_simpy(n)
    bench_ciw(n)
    bench_scale(10**5 if args.quick else 10**6, 10)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
