"""Move-by-move latency of P4's simulation view (issue 17: every move < 1 s worst on 2 cores).

Builds ``VIEWS["simulation"]`` (the first draw is not counted), then makes 20 moves, each one
slider set to a value drawn uniformly over that slider's range (a fixed RNG: the same moves
on every run), waits for the background draw and reads the view's own ``latencies_ms``.
Prints the load average, every move, and the median and worst.

    .venv/bin/python benchmarks/bench_p4_simulation_view.py [--moves 20] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import time

import ipywidgets as w
import numpy as np

from workbench.redundancy.views import VIEWS


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    view = VIEWS["simulation"]()
    view.wait(600)
    rng = np.random.default_rng(args.seed)
    done = []
    for _ in range(args.moves):
        sliders = [
            (name, c)
            for name, c in view.controls.items()
            if isinstance(c, (w.IntSlider, w.FloatSlider)) and c.layout.display != "none"
        ]
        name, ctl = sliders[rng.integers(len(sliders))]
        value = rng.uniform(ctl.min, ctl.max)
        value = int(round(value)) if isinstance(ctl, w.IntSlider) else round(value, 2)
        if value == ctl.value:
            continue
        before = len(view.latencies_ms)
        t0 = time.perf_counter()
        ctl.value = value
        view.wait(600)
        wall = 1e3 * (time.perf_counter() - t0)
        ms = view.latencies_ms[before] if len(view.latencies_ms) > before else float("nan")
        done.append(ms)
        print(f"{name:>14} = {value:<10g} {ms:8.0f} ms (wall {wall:.0f} ms)", flush=True)
    ms = np.asarray(done)
    print(f"{ms.size} moves: median {np.nanmedian(ms):.0f} ms, worst {np.nanmax(ms):.0f} ms")


if __name__ == "__main__":
    main()
