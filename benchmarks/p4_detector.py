"""P4's stationarity detector: raw system times against the series P4 hands it.

    .venv/bin/python benchmarks/p4_detector.py [--seeds 10] [--runs 100] [--jobs 500]

The measurements behind ``workbench.redundancy.simulation``'s choices (its docstring says
what and why; the numbers are here). On the points of the paper's Fig. 4 for Pareto(1.5,
1.2) (N = 24, T_cl = 15, λ from 0.25 to 5, the m of ASTO, BPO and the benchmark; 500 jobs ×
100 runs, as the paper), each run is fed to :func:`workbench.output_analysis.detect` twice:

- ``raw``: each job's system time (heavy-tailed: infinite variance when mα <= 2);
- ``replaced``: each job's system time with its own job time replaced by its mean (T_cl when
  blocked, wait + E[T_job(m)] otherwise), the series ``simulate`` hands the detector.

Printed per series: the points flagged at the shared level 1e-3 and at P4's 1e-6, and the
median p-value. Then the one real transient of the figures: the blocking of a 500-job run
from empty with m = 1 at λ = 4.75, over the first and the last 100 jobs of the runs,
against Erlang-B. The streams are those of ``simulate``: run r of seed s draws from child
r of ``numpy.random.SeedSequence(s)``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench.kernels.events import multiserver_fcfs  # noqa: E402
from workbench.output_analysis import detect  # noqa: E402
from workbench.redundancy import Pareto, blocking, job_time, policy_m  # noqa: E402
from workbench.redundancy.kernels import job_outcomes  # noqa: E402

N, T_CLOUD, SERVICE = 24, 15.0, Pareto(1.5, 1.2)


def runs(m: int, lam: float, jobs: int, n_runs: int, seed: int):
    """(raw, replaced, blocked) per run, from ``simulate``'s streams."""
    out = []
    for child in np.random.SeedSequence(seed).spawn(n_runs):
        rng = np.random.default_rng(child)
        inter = rng.exponential(1.0 / lam, jobs)
        times = SERVICE.sample_job_times(m, jobs, rng)
        waits, blocked, _ = multiserver_fcfs(inter, times, N // m, 0)
        blocked = blocked.astype(bool)
        t_sys, state = job_outcomes(waits, blocked, times, T_CLOUD, job_time(m, SERVICE))
        out.append((t_sys, state, blocked))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=500)
    args = ap.parse_args()
    t0 = time.perf_counter()
    lams = np.arange(0.25, 5.01, 0.25)
    points = sorted(
        {
            (policy_m(pol, N, lam, T_CLOUD, SERVICE), lam)
            for lam in lams
            for pol in ("asto", "bpo", "benchmark")
        }
    )
    p = {"raw": [], "replaced": []}
    flagged = {"raw": {}, "replaced": {}}
    for seed in range(args.seeds):
        for m, lam in points:
            rs = runs(m, float(lam), args.jobs, args.runs, seed)
            for name, k in (("raw", 0), ("replaced", 1)):
                value = detect([r[k] for r in rs]).p_value
                p[name].append(value)
                if value < 1e-6:
                    flagged[name].setdefault((m, float(lam)), []).append(value)
    total = len(p["raw"])
    print(
        f"Fig. 4, Pareto(1.5, 1.2): {len(points)} (m, λ) points × {args.seeds} seeds = {total}, "
        f"{args.jobs} jobs × {args.runs} runs each"
    )
    print(f"{'series':10s} {'flagged at 1e-3':>16s} {'flagged at 1e-6':>16s} {'median p':>10s}")
    for name, values in p.items():
        v = np.asarray(values)
        print(
            f"{name:10s} {np.sum(v < 1e-3):>9d} of {total:<4d} {np.sum(v < 1e-6):>9d} of "
            f"{total:<4d} {np.median(v):10.3g}"
        )
    for name, where in flagged.items():
        text = ", ".join(
            f"m={m} λ={lam:g} ({len(v)}×, p≥{min(v):.1e})" for (m, lam), v in sorted(where.items())
        )
        print(f"{name} flagged at 1e-6: {text or 'none'}")
    rs = runs(1, 4.75, args.jobs, args.runs, 0)
    first = np.mean([r[2][:100].mean() for r in rs])
    last = np.mean([r[2][-100:].mean() for r in rs])
    p_trend = detect([r[1] for r in rs]).p_value
    print(
        f"m = 1, λ = 4.75 from empty: blocking {first:.3f} (first 100 jobs), {last:.3f} "
        f"(last 100), Erlang-B {blocking(N, 1, 4.75, SERVICE):.3f}; trend p = {p_trend:.3g}"
    )
    print(f"{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
