"""Latency of the P2 schemes view: 20 slider moves as a student would make them.

Each move changes one control (storage, z, cacheable ratio, area, X_max) to a value drawn
in its slider range (fixed seed, so every run makes the same moves), then the view's plot
function runs (simulations + drawing; the PNG encode and transfer come on top): that is
the time until the move is answered. The view then refines the answer in the background
(precision-driven runs, a progress bar); ``--refine`` times that too, after each move and
before the next (a student who waits for the precise figure). The first draw at the
defaults (numba compile/cache load, training runs) is not counted.

    .venv/bin/python benchmarks/bench_p2_schemes_view.py [--refine]
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import matplotlib
import numpy as np

matplotlib.use("Agg")

from workbench.proactive import views  # noqa: E402
from workbench.proactive.params import PARAMS  # noqa: E402

NAMES = ("storage", "zipf", "cacheable_ratio", "area", "x_max")


def moves(n: int = 20, seed: int = 1) -> list[dict]:
    gen = np.random.default_rng(seed)
    values = {k: PARAMS[k].default for k in NAMES}
    out = []
    for i in range(n):
        name = NAMES[i % len(NAMES)]
        p = PARAMS[name]
        low, high = p.slider
        grid = np.arange(low, high + p.step / 2, p.step)
        new = grid[gen.integers(grid.size)]
        values = values | {name: int(new) if p.kind == "int" else float(round(new, 6))}
        out.append(dict(values))
    return out


def main() -> None:
    plot = views._schemes_plot
    print("load average", os.getloadavg())
    t = time.perf_counter()
    plot(**{k: PARAMS[k].default for k in NAMES})
    print(f"first draw (not counted): {time.perf_counter() - t:.2f} s")
    refine = "--refine" in sys.argv and hasattr(views, "_precise_result")
    times, longer = [], []
    for values in moves():
        t = time.perf_counter()
        plot(**values)
        times.append(time.perf_counter() - t)
        if refine:
            t = time.perf_counter()
            for key in views.missing_keys(**values):
                views._precise_result(key)
            plot(**values)
            longer.append(time.perf_counter() - t)
        matplotlib.pyplot.close("all")
    ms = [1e3 * x for x in times]
    print("moves [ms]:", " ".join(f"{x:.0f}" for x in ms))
    print(f"median {statistics.median(ms):.0f} ms, worst {max(ms):.0f} ms over {len(ms)} moves")
    if longer:
        print("refinement to the precision target [s]:", " ".join(f"{x:.1f}" for x in longer))
        print(f"median {statistics.median(longer):.1f} s, worst {max(longer):.1f} s")
    print("load average", os.getloadavg())


if __name__ == "__main__":
    main()
