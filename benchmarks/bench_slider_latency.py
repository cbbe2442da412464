"""Slider latency on the analytic views: recompute + redraw + PNG encode, per update.

Moves each view's sliders programmatically (as a release would) and reports the median and
90th percentile of ``InteractiveFigure.latencies_ms``. Goal: < 100 ms median on the analytic
views. The browser adds its own transfer and paint time on top.

    .venv/bin/python benchmarks/bench_slider_latency.py
"""

from __future__ import annotations

import contextlib
import io

import numpy as np

from workbench.redundancy.views import VIEWS as P4_VIEWS

try:
    from workbench import datacenters as p3
except ImportError:  # P3 not installed in this checkout
    p3 = None


def measure(view, moves: dict[str, list]) -> np.ndarray:
    view.latencies_ms.clear()
    # outside a kernel the Output widget prints what it displays: keep the table readable
    with contextlib.redirect_stdout(io.StringIO()):
        for name, values in moves.items():
            for v in values:
                view.controls[name].value = v
    return np.asarray(view.latencies_ms)


def main() -> int:
    with contextlib.redirect_stdout(io.StringIO()):
        cases = _views()
    print(f"{'view':58s} {'updates':>7s} {'median ms':>10s} {'p90 ms':>8s}")
    for label, view, moves in cases:
        lat = measure(view, moves)
        print(f"{label:58s} {lat.size:7d} {np.median(lat):10.1f} {np.percentile(lat, 90):8.1f}")
    return 0


def _views():
    cases = [
        (
            "P4 trade-off (analytic)",
            P4_VIEWS["tradeoff"](),
            {
                "lam": [0.5, 1.0, 2.0, 3.0, 1.5] * 2,
                "N": [12, 24, 48, 24] * 2,
                "t_cloud": [8.0, 50.0, 15.0] * 2,
            },
        ),
        (
            "P4 scaling (analytic, 240 optimisations)",
            P4_VIEWS["scaling"](),
            {"lam": [0.5, 1.0, 2.0, 1.5], "t_cloud": [8.0, 50.0, 10.0]},
        ),
        (
            "P4 policies (simulation, 500 jobs x 20 runs x 30 points)",
            P4_VIEWS["policies"](),
            {"t_cloud": [10.0, 20.0, 15.0]},
        ),
    ]
    if p3 is not None and hasattr(p3, "explore"):
        view = p3.explore()
        first = next(iter(view.controls))
        ctl = view.controls[first]
        values = list(np.linspace(ctl.min, ctl.max, 6)) if hasattr(ctl, "min") else []
        cases.append((f"P3 explore ({first})", view, {first: values}))
    return cases


if __name__ == "__main__":
    raise SystemExit(main())
