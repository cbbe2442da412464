"""P5 edge hierarchy: the numba event kernel against the same hierarchy in SimPy.

Both simulators run the advanced decision model (RED at each entrance on the moving average
of the expected time to finish the queue, eq.-11 thresholds, queue-aware overhead rule at
the head of the queue) on the paper's 7-server tree, from the SAME draws (arrival times,
sizes, RED uniforms), so they must agree task by task on where each task ran and when it
finished; the script exits with status 1 if they do not.

The comparison uses a decision time τ_d = 5 ms (the default is 1 ms; the paper says a
decision occupies the worker but gives no length), so the decision path of both simulators
is exercised, with hand-overs that take no worker time (``offload_busy=False``: the SimPy
model implements that reading) and spread arrivals.

Then the full (λ, μ) grid of the paper (λ = 2..10, μ = 1..9) for all five models, with
5 replications × 1000 periods per point and Student-t intervals, is timed on two worker
processes (as the figures run it; pool start included) and in one process.

Usage::

    python benchmarks/bench_p5_simpy.py           # SimPy 400 periods, kernel 20000, grid
    python benchmarks/bench_p5_simpy.py --quick   # SimPy 100 periods, kernel 2000, no grid
"""

from __future__ import annotations

import argparse
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))

import numpy as np  # noqa: E402
import simpy  # noqa: E402

from workbench.hierarchy.model import time_weights  # noqa: E402
from workbench.hierarchy.simulation import _draw_tasks, _run_kernel  # noqa: E402
from workbench.hierarchy.topology import symmetric_tree  # noqa: E402
from workbench.kernels.red import red_drop_probability  # noqa: E402

LAM, MU = 8.0, 7.0
# the SimPy twin models the first readings: hand-overs take no worker time
KW = dict(
    min_th=5.0,
    max_th=20.0,
    max_p=0.1,
    w_q=0.002,
    decision_time=0.005,
    power=0.5,
    offload_busy=False,
)


def simpy_advanced(topo, tasks):
    """The advanced model as SimPy processes: one worker process per server, FIFO store."""
    env = simpy.Environment()
    n = topo.n
    gt, ge = time_weights(topo.compute)
    queues = [[] for _ in range(n)]  # task ids waiting
    wake = [env.event() for _ in range(n)]
    state = {"busy": [None] * n, "kind": [0] * n, "end": [0.0] * n}
    avg, count = [0.0] * n, [-1] * n
    visits = np.zeros(tasks.arrival.size, dtype=int)
    finish = np.full(tasks.arrival.size, np.nan)
    where = np.full(tasks.arrival.size, -1)
    work, data = tasks.work, tasks.data

    def ahead(s):
        total = sum(work[k] for k in queues[s])
        k = state["busy"][s]
        if k is not None:
            total += (state["end"][s] - env.now) * topo.compute[s] if state["kind"][s] else work[k]
        return total

    def arrive(k, s):
        visits[k] += 1
        up = topo.parent[s]
        if up >= 0:
            avg[s] = (1 - KW["w_q"]) * avg[s] + KW["w_q"] * ahead(s) / topo.compute[s]
            present = queues[s] + ([state["busy"][s]] if state["busy"][s] is not None else [])
            t_exe = (
                sum(work[j] for j in present) / len(present) / topo.compute[s]
                if present
                else work[k] / topo.compute[s]
            )
            lo, hi = min(1.0, t_exe) * KW["min_th"], max(1.0, t_exe) * KW["max_th"]
            if avg[s] >= lo:
                count[s] += 1
                p = red_drop_probability(avg[s], lo, hi, KW["max_p"], count[s], False)
                if tasks.uniforms[k, visits[k] - 1] < p:
                    count[s] = 0
                    env.process(transfer(k, s, up))
                    return
            else:
                count[s] = -1
        queues[s].append(k)
        if not wake[s].triggered:
            wake[s].succeed()

    def transfer(k, s, up):
        yield env.timeout(data[k] / topo.bandwidth[s])
        arrive(k, up)

    def generator():
        for k in range(tasks.arrival.size):
            yield env.timeout(tasks.arrival[k] - env.now)
            arrive(k, int(tasks.origin[k]))

    def worker(s):
        up = topo.parent[s]
        while True:
            if not queues[s]:
                wake[s] = env.event()
                yield wake[s]
            k = queues[s].pop(0)
            state["busy"][s] = k
            if up >= 0:
                state["kind"][s], state["end"][s] = 0, env.now + KW["decision_time"]
                yield env.timeout(KW["decision_time"])
                local = (
                    gt[s] * work[k] / topo.compute[s]
                    + ge[s] * 1e-11 * topo.compute[s] ** 2 * work[k]
                )
                hop = data[k] / topo.bandwidth[s]
                off = gt[s] * (hop + (work[k] + ahead(up)) / topo.compute[up]) + (
                    ge[s] * KW["power"] * hop
                )
                if off < local:
                    state["busy"][s] = None
                    env.process(transfer(k, s, up))
                    continue
            state["kind"][s], state["end"][s] = 1, env.now + work[k] / topo.compute[s]
            yield env.timeout(work[k] / topo.compute[s])
            finish[k], where[k] = env.now, s
            state["busy"][s] = None

    for s in range(n):
        env.process(worker(s))
    env.process(generator())
    env.run()
    return finish, where


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    topo = symmetric_tree()
    simpy_periods, kernel_periods = (100, 2000) if args.quick else (400, 20000)

    tasks = _draw_tasks(
        topo, LAM, MU, 1.0, simpy_periods, 1.0, 0.1, np.random.default_rng(1), "spread"
    )
    _run_kernel("advanced", topo, tasks, **KW)  # warm (compile or load the cache)
    t0 = time.process_time()
    fast = _run_kernel("advanced", topo, tasks, **KW)
    t0 = time.process_time()
    fin, where = simpy_advanced(topo, tasks)
    t_simpy = time.process_time() - t0
    # SimPy's worker wake-ups can reorder simultaneous events; tasks must still agree
    same = np.allclose(fast["finish"], fin, rtol=1e-9) and np.array_equal(
        fast["exec_server"], where
    )
    disagree = int(np.sum(~np.isclose(fast["finish"], fin, rtol=1e-9)))
    big = _draw_tasks(
        topo, LAM, MU, 1.0, kernel_periods, 1.0, 0.1, np.random.default_rng(2), "spread"
    )
    best = np.inf
    for _ in range(3):
        t0 = time.process_time()
        _run_kernel("advanced", topo, big, **KW)
        best = min(best, time.process_time() - t0)
    rate_simpy = tasks.arrival.size / t_simpy
    rate_kernel = big.arrival.size / best
    print(
        f"SimPy : {tasks.arrival.size:>9,} tasks in {t_simpy:7.2f} s CPU = "
        f"{rate_simpy:>12,.0f} tasks/s"
    )
    print(
        f"kernel: {big.arrival.size:>9,} tasks in {best:7.3f} s CPU = {rate_kernel:>12,.0f} tasks/s"
    )
    print(f"ratio kernel/SimPy: {rate_kernel / rate_simpy:,.0f}x (goal >= 100x)")
    print(f"task-by-task agreement: {'yes' if same else f'NO ({disagree} tasks differ)'}")

    if not args.quick:
        from workbench.hierarchy import figures

        print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())} (2 cores)")
        for workers in (figures.FULL_WORKERS, 1):
            figures.FULL_WORKERS = workers
            figures.study.__wrapped__.cache_clear()  # the session cache under @takes
            t0 = time.perf_counter()
            grid = figures.grid_study(quick=False)
            wall = time.perf_counter() - t0
            print(
                f"full grid: {grid['lam'].nunique()} λ × {grid['mu'].nunique()} μ × "
                f"{grid['model'].nunique()} models × 5 replications × 1000 periods, with CIs: "
                f"{wall:.1f} s wall on {workers} process(es) (goal < 60 s on 2 cores)"
            )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
