"""The claim atlas of every paper: wall time on this machine and a projection to a cluster.

For each paper, ``workbench.atlas.atlas`` runs its design (quick: the paper's quick number
of points, full: its full number) crossed with its readings, on ``--workers`` local joblib
processes (or on a Dask cluster with ``--client tcp://host:8786``). The projection to
``--project`` workers assumes the evaluations are independent and CPU-bound, so the work
(wall time × workers used) spreads evenly; it cannot go below the time of the slowest
evaluation, which is also measured (one evaluation of each paper, timed alone).

Usage::

    python benchmarks/bench_atlas.py --quick              # every paper, quick atlas
    python benchmarks/bench_atlas.py --papers p5 p3       # full atlas of two papers
    python benchmarks/bench_atlas.py --papers p2 --points 8   # a part of it, to project
    python benchmarks/bench_atlas.py --client tcp://127.0.0.1:8786
"""

from __future__ import annotations

import argparse
import os
import time

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("NUMBA_CACHE_DIR", os.path.join(_ROOT, ".numba_cache"))

import pandas as pd  # noqa: E402

from workbench.atlas import atlas, atlas_summary, plausible_space  # noqa: E402
from workbench.registry import PAPERS  # noqa: E402


def one_evaluation_seconds(pid: str, quick: bool) -> float:
    """The time of one evaluation at the defaults (every claim of the paper)."""
    p = PAPERS[pid]
    spec = p.part("claims").ATLAS
    ranges, _ = plausible_space(p.params)
    point = {r.name: r.default for r in p.params.rows if r.plausible is not None}
    spec.evaluate(quick=quick, seed=0, **point)  # compile
    t0 = time.perf_counter()
    spec.evaluate(quick=quick, seed=1, **point)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", nargs="*", default=list(PAPERS))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--client", default=None)
    ap.add_argument("--project", type=int, default=50, help="project to this many workers")
    ap.add_argument("--points", type=int, default=None, help="design points (default: the paper's)")
    args = ap.parse_args()
    rows = []
    for pid in args.papers:
        single = one_evaluation_seconds(pid, args.quick)
        t0 = time.perf_counter()
        frame = atlas(
            pid,
            quick=args.quick,
            n_points=args.points,
            n_workers=args.workers,
            client=args.client,
        )
        wall = time.perf_counter() - t0
        n = len(frame.attrs["points"]) // max(1, frame["claim"].nunique())
        work = wall * args.workers
        rows.append(
            {
                "paper": pid,
                "evaluations": n,
                "wall_s": round(wall, 1),
                "one_evaluation_s": round(single, 2),
                f"projected_{args.project}_workers_s": round(max(work / args.project, single), 1),
            }
        )
        print(atlas_summary(frame).to_string(index=False), flush=True)
        print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    print(table.to_string(index=False))
    total = table["wall_s"].sum()
    print(
        f"all papers: {total:.0f} s on {args.workers} workers; projected on {args.project}: "
        f"{table[f'projected_{args.project}_workers_s'].sum():.0f} s"
    )


if __name__ == "__main__":
    main()
