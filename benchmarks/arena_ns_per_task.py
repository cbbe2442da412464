"""CPU nanoseconds per task of the arena's compiled engine on the SimPy benchmark's ring.

Run: ``python benchmarks/arena_ns_per_task.py [n_tasks] [repeats]``; prints the best and the
median CPU time per task over ``repeats`` runs (after one run that loads the kernels).
"""

from __future__ import annotations

import os
import sys
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
sys.path.insert(0, _ROOT)
sys.path.insert(0, os.path.join(_ROOT, "benchmarks"))

import numpy as np  # noqa: E402
from bench_arena_simpy import ring, run_engine  # noqa: E402

from workbench.arena.compile import compile_scenario, draw_tasks  # noqa: E402


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    sc = ring(50)
    net = compile_scenario(sc)
    tk = draw_tasks(sc, n, 1, 2, np.random.default_rng(1))
    run_engine(net, tk)
    ts = []
    for _ in range(reps):
        c0 = time.process_time()
        run_engine(net, tk)
        ts.append(time.process_time() - c0)
    ts = np.array(ts) / n * 1e9
    print(f"{n:,} tasks: best {ts.min():.1f} ns/task, median {np.median(ts):.1f} ns/task")


if __name__ == "__main__":
    main()
