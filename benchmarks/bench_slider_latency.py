"""Slider latency: the plot function alone (warm), and the whole update (plot + PNG encode).

Part 1 calls each P4 view's plot function directly with a list of moves (family switches and
the extreme corners included), after one warm-up call, and reports the median and the worst
move. Part 2 moves the sliders of the real views programmatically (as a release would) and
reports ``InteractiveFigure.latencies_ms`` (plot + PNG encode; the browser adds transfer and
paint). Goal on the analytic views: < 100 ms median, < 1 s worst. On a shared machine every
number moves with the load: the load average is printed first.

    .venv/bin/python benchmarks/bench_slider_latency.py [--quick]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import time

import numpy as np

from workbench.redundancy import views as p4

try:
    from workbench.datacenters import views as p3_views
except ImportError:  # P3 not installed in this checkout
    p3_views = None

FAMILIES = [
    {"family": "S-Exp", "delta": 3.0, "mu": 0.2},
    {"family": "Pareto", "beta": 1.5, "alpha": 1.2},
    {"family": "Weibull", "shape": 0.5, "scale": 2.0},
    {"family": "Weibull", "shape": 0.2, "scale": 20.0},
    {"family": "Pareto", "beta": 0.1, "alpha": 1.05},
]

# view name -> (plot function, list of moves: keyword arguments)
P4_MOVES = {
    "diagram": (
        p4.plot_diagram,
        [dict(N=n, m=m, **f) for f in FAMILIES for n, m in ((24, 3), (60, 1), (7, 3), (60, 60))],
    ),
    "tradeoff": (
        p4.plot_tradeoff,
        [
            dict(N=n, lam=lam, t_cloud=t, **f)
            for f in FAMILIES
            for n, lam, t in ((24, 1.5, 15.0), (120, 8.0, 100.0), (2, 0.05, 1.0), (120, 0.05, 1.0))
        ],
    ),
    "scaling": (
        p4.plot_scaling,
        [
            dict(lam=lam, t_cloud=t, N_max=n, **f)
            for f in FAMILIES
            for lam, t, n in ((1.5, 10.0, 120), (8.0, 100.0, 300), (0.05, 1.0, 300))
        ],
    ),
}
SIMULATION_MOVES = {  # seconds per move by design: run in the background, latest move only
    "policies": (p4.plot_policies, [dict(**FAMILIES[1]), dict(**FAMILIES[0], N=60)]),
    "simulation": (p4.plot_simulation, [dict(**FAMILIES[1]), dict(**FAMILIES[2], N=2, m=2)]),
}


def time_plot(fn, moves) -> np.ndarray:
    import matplotlib.pyplot as plt

    plt.close(fn(**moves[0]))  # warm: numba cache, E[T_job] cache, fonts
    out = []
    for kw in moves:
        t0 = time.perf_counter()
        fig = fn(**kw)
        out.append(1e3 * (time.perf_counter() - t0))
        plt.close(fig)
    return np.asarray(out)


def measure(view, moves: dict[str, list]) -> np.ndarray:
    view.latencies_ms.clear()
    with contextlib.redirect_stdout(io.StringIO()):
        for name, values in moves.items():
            for v in values:
                view.controls[name].value = v
                view.wait(120)
    return np.asarray(view.latencies_ms)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the simulation views")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'P4 plot function (warm)':34s} {'moves':>5s} {'median ms':>10s} {'worst ms':>9s}")
    cases = dict(P4_MOVES) if args.quick else {**P4_MOVES, **SIMULATION_MOVES}
    for name, (fn, moves) in cases.items():
        lat = time_plot(fn, moves)
        print(f"{name:34s} {lat.size:5d} {np.median(lat):10.1f} {lat.max():9.1f}")

    print(f"\n{'whole update (plot + PNG)':34s} {'moves':>5s} {'median ms':>10s} {'worst ms':>9s}")
    with contextlib.redirect_stdout(io.StringIO()):
        views = [
            ("P4 tradeoff", p4.VIEWS["tradeoff"](), {"lam": [0.5, 2.0, 1.5], "N": [12, 48, 24]}),
            ("P4 scaling", p4.VIEWS["scaling"](), {"lam": [0.5, 2.0], "N_max": [300, 120]}),
            ("P4 diagram", p4.VIEWS["diagram"](), {"N": [12, 60], "m": [1, 5]}),
        ]
        if p3_views is not None and "explore" in getattr(p3_views, "VIEWS", {}):
            view = p3_views.VIEWS["explore"]()
            first = next(iter(view.controls))
            ctl = view.controls[first]
            values = list(np.linspace(ctl.min, ctl.max, 6)) if hasattr(ctl, "min") else []
            views.append((f"P3 explore ({first})", view, {first: values}))
    for label, view, moves in views:
        lat = measure(view, moves)
        print(f"{label:34s} {lat.size:5d} {np.median(lat):10.1f} {lat.max():9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
