"""The arena's Gymnasium env: decisions per second, one env and a batch, against SimPy.

1. One :class:`workbench.arena.env.ArenaEnv` on the neutral scenario stepped through the
   Gymnasium API (``env.step`` from Python, observation and mask built every step) with a
   constant action (the cloud, which never refuses a task): decisions per second.
2. A batch (:class:`workbench.arena.env.BatchEnv`): ``size`` episodes stepped in one
   compiled call per step, the same constant action: decisions per second through
   ``BatchEnv.step`` (actions checked, observations copied out), and of the compiled call
   alone (``Episodes.step``, what the step costs without its Python side).
3. A SimPy version of the same env (the same tasks, one SimPy process per task, a
   ``simpy.Resource`` per node, the engine's link and transmission delays; the simulation
   run to the next arrival at each step, the queue lengths read for the observation):
   decisions per second, and its tasks' finish times against the env's (they must agree).

Both sides run in this process, interleaved (env, SimPy, env, ...; best of the rounds), and
are timed in CPU time (``time.process_time``), so the ratio is measured under the same load
and a loaded machine's waits do not count. Usage::

    python benchmarks/bench_arena_env.py            # 20,000 decisions per env episode
    python benchmarks/bench_arena_env.py --quick    # 5,000

Exits with status 1 if SimPy and the env disagree on any task.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
sys.path.insert(0, _ROOT)

import numpy as np  # noqa: E402
import simpy  # noqa: E402

from workbench.arena.env import ArenaEnv, BatchEnv  # noqa: E402


def run_env(env, action, seed):
    env.reset(seed=seed)
    t0 = time.process_time()
    steps, done = 0, False
    while not done:
        _, _, done, _, _ = env.step(action)
        steps += 1
    return steps / (time.process_time() - t0)


def run_batch(batch, action, steps, seed, compiled_only=False):
    batch.reset(seed=seed)
    acts = np.full(batch.size, action, np.int64)
    store = batch._store
    t0 = time.process_time()
    for _ in range(steps):
        if compiled_only:  # episodes do not end here: steps < tasks per episode
            store.step(acts, 1.0)
        else:
            batch.step(acts)
    return steps * batch.size / (time.process_time() - t0)


class SimPyEnv:
    """The env's rules in SimPy: place the task at the chosen candidate, travel (link delay
    plus transmission), wait for a server (unbounded for an infinite-server node), serve."""

    def __init__(self, env: ArenaEnv):
        self.net, self.width = env.net, env.width

    def reset(self, tk):
        net = self.net
        self.tk, self.sim = tk, simpy.Environment()
        n_nodes = len(net.servers)
        cap = [int(s) if s < 2**40 else 10**9 for s in net.servers]
        self.res = [simpy.Resource(self.sim, capacity=c) for c in cap]
        self.held = np.zeros(n_nodes, np.int64)
        self.finish = np.full(len(tk.t), np.nan)
        self.i = 0
        self.sim.run(until=tk.t[0])
        return self._obs()

    def _candidates(self, k):
        net = self.net
        nb = [int(b) for b in net.nbr_idx[net.nbr_ptr[k] : net.nbr_ptr[k + 1]]]
        own = [k] if net.servers[k] > 0 and k != net.cloud else []
        return own + [b for b in nb if net.servers[b] > 0 and b != net.cloud] + [net.cloud]

    def _obs(self):
        k = int(self.tk.node[self.i])
        cand = self._candidates(k)
        queue = self.held[cand].astype(float)
        return {"queue": queue, "nodes": cand}

    def _task(self, i, k, b):
        net, tk = self.net, self.tk
        dt = net.delay[k, b] + tk.bits[i] * net.invbw[k, b]
        if dt > 0:
            yield self.sim.timeout(dt)
        self.held[b] += 1
        with self.res[b].request() as req:
            yield req
            yield self.sim.timeout(tk.size[i, 0] / net.speed[b])
        self.held[b] -= 1
        self.finish[i] = self.sim.now

    def step(self, action):
        i, tk = self.i, self.tk
        k = int(tk.node[i])
        b = self._candidates(k)[action]
        self.sim.process(self._task(i, k, b))
        self.i += 1
        if self.i < len(tk.t):
            self.sim.run(until=tk.t[self.i])
            return self._obs(), False
        self.sim.run()
        return None, True


def run_simpy(twin, tk, action):
    t0 = time.process_time()
    twin.reset(tk)
    steps, done = 0, False
    while not done:
        _, done = twin.step(action)
        steps += 1
    return steps / (time.process_time() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv)
    n = 5_000 if args.quick else 20_000
    env = ArenaEnv("neutral", tasks=n)
    cloud = env.width - 1  # every edge node of the neutral scenario: 3 edges, then the cloud
    batch = BatchEnv("neutral", size=256, tasks=n)
    twin = SimPyEnv(env)
    run_env(env, cloud, 1)  # compile / load
    run_batch(batch, cloud, 10, 1)
    best = {"env": 0.0, "batch": 0.0, "compiled": 0.0, "simpy": 0.0}
    steps = min(n - 1, 2_000)
    for r in range(args.rounds):
        best["env"] = max(best["env"], run_env(env, cloud, 1 + r))
        tk = env.ep.tk
        best["simpy"] = max(best["simpy"], run_simpy(twin, tk, cloud))
        best["batch"] = max(best["batch"], run_batch(batch, cloud, steps, 1 + r))
        best["compiled"] = max(best["compiled"], run_batch(batch, cloud, steps, 1 + r, True))
    # the SimPy twin's tasks against the env's last episode
    same = np.allclose(twin.finish, env.ep.st.finish, rtol=1e-12, atol=1e-12)
    print(
        f"ArenaEnv (Gymnasium API, neutral, constant action, {n:,} decisions/episode): "
        f"{best['env']:,.0f} decisions/s"
    )
    print(
        f"BatchEnv (256 episodes per compiled call): {best['batch']:,.0f} decisions/s through "
        f"BatchEnv.step, {best['compiled']:,.0f} decisions/s in the compiled call alone"
    )
    print(
        f"SimPy env (same tasks, same rules): {best['simpy']:,.0f} decisions/s; "
        f"ArenaEnv/SimPy {best['env'] / best['simpy']:,.1f}x, "
        f"BatchEnv/SimPy {best['batch'] / best['simpy']:,.0f}x (CPU time, best of "
        f"{args.rounds} interleaved rounds); identical finish times: {same}"
    )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
