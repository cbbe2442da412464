"""Slider latency of every notebook view of every paper, as a student would move them.

For each view in each paper's ``views.VIEWS`` (from the registry): build it (the first draw is
not counted), then move every slider to its low end, its high end, the middle and back to its
default, one release at a time, and read the view's own ``latencies_ms`` (plot + PNG encode;
the browser adds transfer and paint) and the size of the PNG shown. Background views
(simulations, latest move only) are waited for and reported apart. Goal on analytic views:
< 100 ms median, < 1 s worst. The load average is printed first: on a shared machine every
number moves with it.

    .venv/bin/python benchmarks/bench_slider_latency.py [--papers p3 p4] [--moves 4]
"""

from __future__ import annotations

import argparse
import os
import time

import ipywidgets as w
import numpy as np
import pandas as pd

from workbench.registry import PAPERS


def sliders(view):
    return [
        (name, c)
        for name, c in view.controls.items()
        if isinstance(c, (w.IntSlider, w.FloatSlider)) and c.layout.display != "none"
    ]


def exercise(view, moves_per_slider: int) -> list[float]:
    before = len(view.latencies_ms)
    for _name, ctl in sliders(view):
        default = ctl.value
        for value in [ctl.min, ctl.max, (ctl.min + ctl.max) / 2, default][:moves_per_slider]:
            if isinstance(ctl, w.IntSlider):
                value = int(round(value))
            if value == ctl.value:
                continue
            ctl.value = value
            view.wait(120)
    return view.latencies_ms[before:]


def _png_size(png: bytes) -> str:
    """``width×height`` of the view's PNG (read from its header): legible on a projector?"""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        return ""
    return f"{int.from_bytes(png[16:20], 'big')}×{int.from_bytes(png[20:24], 'big')}"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--papers", nargs="*", default=list(PAPERS))
    parser.add_argument("--moves", type=int, default=4, help="moves per slider (1-4)")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    rows = []
    for pid in args.papers:
        for name, make in PAPERS[pid].views.items():
            t0 = time.perf_counter()
            view = make()
            if hasattr(view, "wait"):
                view.wait(300)
            first = 1e3 * (time.perf_counter() - t0)
            if not hasattr(view, "latencies_ms"):
                continue  # not a slider view (a table, an exercise set)
            ms = np.asarray(exercise(view, args.moves))
            kind = "background" if getattr(view, "_background", False) else "analytic"
            rows.append(
                {
                    "paper": pid,
                    "view": name,
                    "kind": kind,
                    "moves": ms.size,
                    "median_ms": float(np.median(ms)) if ms.size else np.nan,
                    "worst_ms": float(ms.max()) if ms.size else np.nan,
                    "first_draw_ms": first,
                    "refused": len(getattr(view, "errors", [])),
                    "image_px": _png_size(view.image.value),
                }
            )
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 200):
        print(table.round(0).to_string(index=False))


if __name__ == "__main__":
    main()
