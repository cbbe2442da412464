"""Time one slot of the full P2 model (E = 30, U = 90, defaults) per scheme.

Run: ``.venv/bin/python benchmarks/bench_p2_slot.py [--slots N]``. The kernel is compiled
(or loaded from the numba cache) by a short warm-up run first; the time reported is the
kernel's wall time divided by the slots it ran (arrivals plus drain), median of 3 runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from workbench.proactive import draw_tasks, make_scenario, run_scenario, train


def main(n_slots: int = 20_000) -> None:
    scenario = make_scenario(seed=1)
    training = train(scenario, seed=1)
    tasks = draw_tasks(scenario, 1.0, 1e6, n_slots * 0.005, seed=1)
    warm = draw_tasks(scenario, 1.0, 1e6, 100 * 0.005, seed=2)
    print(f"E = 30, U = 90, {n_slots} slots of 5 ms, {len(tasks.arrival)} tasks")
    for fading in (True, False):
        for scheme in ("proposed", "BL1", "BL2", "BL3"):
            run_scenario(scheme, scenario, training, warm, slots=100, fading_seed=1)
            per_slot = []
            for rep in range(3):
                t0 = time.perf_counter()
                run = run_scenario(
                    scheme,
                    scenario,
                    training,
                    tasks,
                    slots=n_slots,
                    fading_seed=rep + 1,
                    fading=fading,
                )
                per_slot.append((time.perf_counter() - t0) / run.counters["slots_run"])
            us = 1e6 * float(np.median(per_slot))
            print(f"  {scheme:8s} fading={fading!s:5s}  {us:7.1f} µs/slot")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--slots", type=int, default=20_000)
    main(parser.parse_args().slots)
