"""The arena's full winner map: run it in parts, keep its frame, draw it, separate it.

``workbench.arena.studies.winner_map(quick=False)`` in one call is 540 points × 8 policies
× 5 replications × 20,000 tasks, about 15 CPU-minutes on a quiet core, and gives nothing
until it ends. This script sweeps the same grid (:func:`~workbench.arena.studies.map_grid`)
one (load, link delay) slice at a time with the same seeds (a point's seed depends only on
its values, :func:`workbench.sweep.point_seed`), so the frame is the one ``winner_map``
returns. Each finished slice is appended to ``PARTIAL`` and skipped when the script is run
again; progress and the projected end go to stdout. When every slice is in:

- ``data/arena/winner_map_full.csv``: the frame of
  :func:`~workbench.arena.studies.mark_winners` (one row per point and policy; ``winner``,
  ``tied_with``, ``margin``, ``margin_low``, ``margin_high``);
- ``docs/arena/winner_map_full.png``: :func:`~workbench.arena.figures.plot_winner_map`;
- the separation table (:func:`~workbench.arena.studies.separation_table`), over the whole
  grid and at the default cloud round trip alone, printed as Markdown.

``tests/test_arena_map.py`` recomputes one kept point and checks it equal to the kept rows.

Run: ``python benchmarks/arena_winner_map.py [--workers N] [--partial FILE]``;
``--finish`` writes the outputs from whatever slices are in (a partial map says so).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))
sys.path.insert(0, _ROOT)

import pandas as pd  # noqa: E402

from workbench.arena import figures, studies  # noqa: E402
from workbench.arena.params import PARAMS  # noqa: E402
from workbench.sweep import sweep  # noqa: E402

CSV = os.path.join(_ROOT, "data", "arena", "winner_map_full.csv")
PNG = os.path.join(_ROOT, "docs", "arena", "winner_map_full.png")
# the finished slices, outside the repository (a run leaves the tree clean)
PARTIAL = os.path.join(tempfile.gettempdir(), "workbench-winner_map_full.partial.csv")
SEED = 0


def run(partial: str, workers: int) -> pd.DataFrame:
    """Sweep every slice not yet in ``partial``; return every finished row."""
    grid, fixed = studies.map_grid(quick=False)
    done = pd.read_csv(partial) if os.path.exists(partial) else None
    have = set() if done is None else set(zip(done["load"], done["link_delay"], strict=True))
    slices = list(itertools.product(grid["load"], grid["link_delay"]))
    t0, ran = time.time(), 0
    todo = [s for s in slices if s not in have]
    print(f"{len(slices) - len(todo)} of {len(slices)} slices kept in {partial}", flush=True)
    for k, (load, delay) in enumerate(todo, 1):
        part = grid | {"load": [load], "link_delay": [delay]}
        frame = sweep(
            studies.evaluate_point,
            part,
            fixed=fixed,
            base_seed=SEED,
            n_workers=workers,
            progress=False,
        )
        frame.to_csv(partial, mode="a", header=not os.path.exists(partial), index=False)
        ran += 1
        spent = time.time() - t0
        left = spent / ran * (len(todo) - k)
        print(
            f"[{time.strftime('%H:%M:%S')}] slice {k}/{len(todo)} (load {load:g}, link delay "
            f"{delay:g} s): {len(frame)} rows, {spent:.0f} s so far, about {left:.0f} s left",
            flush=True,
        )
    return pd.read_csv(partial)


def finish(raw: pd.DataFrame) -> None:
    grid, _ = studies.map_grid(quick=False)
    size = 1
    for values in grid.values():
        size *= len(values)
    raw = raw.drop_duplicates(["load", "link_delay", "scv", "cloud_rtt", "policy"])
    n_points = len(raw.drop_duplicates(studies.POINT))
    marked = studies.mark_winners(raw.fillna({"policy": ""}))
    os.makedirs(os.path.dirname(CSV), exist_ok=True)
    os.makedirs(os.path.dirname(PNG), exist_ok=True)
    marked.to_csv(CSV, index=False)
    fig = figures.plot_winner_map(marked)
    fig.savefig(PNG, dpi=110, bbox_inches="tight")
    print(f"\n{n_points} of {size} points ({'complete' if n_points == size else 'PARTIAL'})")
    print(f"frame: {os.path.relpath(CSV, _ROOT)}; picture: {os.path.relpath(PNG, _ROOT)}\n")
    rtt = PARAMS["cloud_rtt"].default
    for label, part in (
        ("whole grid", marked),
        (f"cloud RTT {rtt * 1e3:g} ms", marked[marked["cloud_rtt"] == rtt]),
    ):
        table = studies.separation_table(part)
        print(f"### Separation, {label}\n")
        print(table.to_markdown(floatfmt=".3g"))
        print()
    print(figures.describe_map(marked))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=1, help="joblib processes per slice")
    ap.add_argument("--partial", default=PARTIAL, help="the finished slices (CSV)")
    ap.add_argument("--finish", action="store_true", help="only write the outputs")
    args = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.partial)), exist_ok=True)
    if args.finish:
        raw = pd.read_csv(args.partial)
    else:
        raw = run(args.partial, args.workers)
    finish(raw)


if __name__ == "__main__":
    main()
